"""The rules engine of OTTO Game Over (spec ``rules/otto_game_over.md``).

``Config`` holds the parameters of spec §6; ``State`` the whole position. The work is
split over small modules: :mod:`geometry` (tiles, frame, tracing), :mod:`scoring`
(what a placement would close), :mod:`flow` (turns, matches, the game), :mod:`cards`
(secret cards) and :mod:`position` (the position schema of ``reset`` / ``snapshot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.config import check_bool, check_choice, check_int, plain_fields
from envs.core.game import TERMINAL, GameState
from envs.otto_game_over import actions as A
from envs.otto_game_over import cards, flow, notation, position
from envs.otto_game_over.geometry import D10, DARK, F12, Z0
from envs.otto_game_over.scoring import BITS, XNeeds, eight_bits_from_x, outcome, signature, x_needs

#: ROT_BYTES[bits]: the 4 mask bytes of the orientations in ``bits``
ROT_BYTES: tuple[bytes, ...] = tuple(bytes(bits >> k & 1 for k in range(4)) for bits in range(16))

CARD, KIDNAP, PLACE, INFINITY, OVER = range(5)
#: squares of each 9-bit chunk of a bitmask
BIT_SQUARES: tuple[list[int], ...] = tuple([s for s in range(9) if b >> s & 1] for b in range(512))
PHASE_NAMES = ("card", "kidnap", "place", "infinity", "over")


@dataclass(frozen=True)
class Config:
    """Parameters of spec §6."""

    num_players: int = field(default=2, metadata={"help": "1 (solo mode), 2, 3 or 4"})
    teams: bool = field(default=False, metadata={"help": "2v2 teams (needs num_players=4; ignored in solo)"})
    secret_cards: bool = field(
        default=True, metadata={"help": "False = trial run without cards (OGO-59; solo has none)"}
    )
    blind: bool = field(
        default=False,
        metadata={"help": "every match under blind-match rules (OGO-53; solo runs blind anyway)"},
    )
    head_in_the_clouds: bool = field(
        default=False, metadata={"help": "must-score / must-8 not enforced (OGO-58)"}
    )
    episode: str = field(
        default="game", metadata={"help": "'game' (to target_score) or 'match' (one match); ignored in solo"}
    )
    target_score: int = field(default=24, metadata={"help": "game total that ends the game (OGO-52)"})
    max_matches: int = field(default=30, metadata={"help": "regular matches before truncation"})
    eight_lobes: str = field(
        default="round", metadata={"help": "'round' or 'round_or_square': lobes of an 8 (OGO-06)"}
    )

    def __post_init__(self) -> None:
        plain_fields(self)
        check_choice("num_players", self.num_players, (1, 2, 3, 4))
        check_bool("teams", self.teams)
        check_bool("secret_cards", self.secret_cards)
        check_bool("blind", self.blind)
        check_bool("head_in_the_clouds", self.head_in_the_clouds)
        check_choice("episode", self.episode, ("game", "match"))
        check_int("target_score", self.target_score, 1)
        check_int("max_matches", self.max_matches, 1)
        check_choice("eight_lobes", self.eight_lobes, ("round", "round_or_square"))
        if self.teams and self.num_players not in (1, 4):
            raise ValueError(f"teams=True needs num_players=4, got num_players={self.num_players}")

    @property
    def solo(self) -> bool:
        return self.num_players == 1

    @property
    def team_play(self) -> bool:
        return self.teams and self.num_players == 4


class State(GameState):
    """A position of OTTO Game Over: board, tiles, cards, markers, totals and the RNG.

    Tile codes: 0..7 = Z0..G16, 8 = DARK, -1 = none. Piles are lists with the top at the end.
    """

    # board (flow.set_tile keeps design/rot/occ/frontier/board_planes/near/far in step)
    design: list[int]  # per square, -1 = empty
    rot: list[int]
    occ: int  # bit s = square s holds a tile
    frontier: int  # bit s = square s is empty and next to a tile (OGO-01)
    board_planes: np.ndarray  # the board block of the observation
    near: list[int]  # slot kinds (geometry module docstring)
    sigs: list[int]  # cached need signature per square (scoring module), -1 = stale
    xn: XNeeds | None  # cached scoring.x_needs of the board, None = stale (never mutated: clones share it)
    far: list[int]
    shapes: dict[tuple[int, int], int]  # (shape, vertex) -> team, -1 = unclaimed; in closing order
    supply: list[list[int]]  # per team: small, big, square markers left
    # tiles and cards
    tower: list[int]
    discarded: list[int]
    tables: list[int]
    drawn: int
    hands: list[list[int]]
    deck: list[int]
    removed: list[int]  # per card kind: shown and out of the game
    voided: int  # voided unseen at a tie-break
    # scores and flow
    totals: list[int]
    match_scores: list[int]
    matches: int
    tiebreak: bool
    to_move: int
    actor: int
    phase: int
    tt_pending: bool
    extra_turn: bool
    kidnapped: int
    inf_creator: int
    inf_pos: int
    saved: list[bool]
    solo_eights: int
    winners: list[int]
    truncated: bool
    final: list[float]

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        n = config.num_players
        self.n = n
        self.team = tuple(s % 2 for s in range(n)) if config.team_play else tuple(range(n))
        self.n_teams = 2 if config.team_play else n
        flow.clear_game(self)
        self._mask: np.ndarray | None = None
        self._closing: dict[int, int] = {}

    # ------------------------------------------------------------------ views
    @property
    def cards_on(self) -> bool:
        """Secret cards are in play in the current match (OGO-33, OGO-59)."""
        c = self.config
        return c.secret_cards and not c.blind and not c.solo and not self.tiebreak

    @property
    def blind_match(self) -> bool:
        """The current match is played blind (no table tiles, draw and place)."""
        return self.config.blind or self.tiebreak or self.config.solo

    def marker_points(self, team: int) -> int:
        return sum((1, 2, 4)[shape] for (shape, _v), owner in self.shapes.items() if owner == team)

    def placeable(self) -> tuple[bool, bool]:
        """(drawn, table): which held tile may be placed this turn (OGO-03, 10, 14, 15, 18, 53)."""
        drawn, table = self.drawn, self.tables[self.to_move]
        drawn_ok = 0 <= drawn < DARK
        table_ok = 0 <= table < DARK and not self.blind_match and drawn != Z0
        return drawn_ok, table_ok

    # ------------------------------------------------------------------ flow
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.actor

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        return self.truncated

    def returns(self) -> np.ndarray:
        return np.array(self.final, dtype=np.float64)

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def _compute_mask(self) -> np.ndarray:
        if self.phase == CARD or self.phase == KIDNAP:  # index arrays (a Quantum Leap has hundreds)
            mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
            if self.phase == CARD:
                mask[A.NO_CARD] = 1
                mask[cards.card_indices(self)] = 1
            else:
                mask[cards.kidnap_indices(self)] = 1
            return mask
        # placements: a bytearray filled by slices is far cheaper than numpy fancy indexing
        buf = bytearray(A.N_ACTIONS)
        if self.phase == PLACE:
            self._fill_placements(buf)
        elif self.phase == INFINITY:
            buf[A.KEEP_INFINITY] = 1
            hand = self.hands[self.actor]
            buf[A.CARD_INFINITY] = A.INFINITY in hand
            buf[A.JOKER_INFINITY] = A.JOKER in hand
        return np.frombuffer(buf, dtype=np.int8)

    def _fill_placements(self, buf: bytearray) -> None:
        """OGO-01/02/11/12/14/58: write the legal placements into ``buf``.

        One pass over the candidate squares; each (tile, square) gets its score / 8
        orientation bits from the cached need signatures, then the mask keeps the 8s if
        any, else the scoring ones if any, else everything.
        """
        near, far, sigs = self.near, self.far, self.sigs
        f = self.frontier
        cands = BIT_SQUARES[f & 0x1FF] + [s + 9 for s in BIT_SQUARES[f >> 9 & 0x1FF]]
        cands += [s + 18 for s in BIT_SQUARES[f >> 18]]
        square_lobes = self.config.eight_lobes != "round"
        table = BITS[square_lobes]
        xn = self.board_x_needs()
        ok_d, ok_t = self.placeable()
        tiles = [(t, d) for t, d, ok in ((0, self.drawn, ok_d), (100, self.tables[self.to_move], ok_t)) if ok]
        bases: list[int] = []
        packed: list[int] = []  # score bits | 8 bits << 4, per (square, tile)
        union = 0
        for s in cands:
            sig = sigs[s]
            if sig < 0:
                sig = sigs[s] = signature(near, far, s)
            row = 8 * sig
            xs = xn.get(s) if xn else None
            for t, d in tiles:
                v = table[row + d]
                if xs is not None:
                    v |= eight_bits_from_x(xs, d) << 4
                union |= v
                bases.append(t + 4 * s)
                packed.append(v)
        self._closing = dict(zip(bases, packed, strict=True))  # bits & 15 | bits >> 4 = closes
        if self.config.head_in_the_clouds or self.drawn == Z0:
            union = 0
        if union & 0xF0:  # must 8 (OGO-12)
            for base, v in zip(bases, packed, strict=True):
                buf[base : base + 4] = ROT_BYTES[v >> 4]
        elif union:  # must score (OGO-11)
            for base, v in zip(bases, packed, strict=True):
                buf[base : base + 4] = ROT_BYTES[v & 15]
        else:
            for base in bases:
                buf[base : base + 4] = ROT_BYTES[15]

    def board_x_needs(self) -> XNeeds:
        """:func:`~envs.otto_game_over.scoring.x_needs` of the board, cached in ``xn`` until
        the next board edit (``flow.set_tile`` / ``clear_tile`` / ``clear_board``)."""
        if self.xn is None:
            design = self.design
            has_x = D10 in design or F12 in design
            square_lobes = self.config.eight_lobes != "round"
            self.xn = x_needs(self.near, design, self.rot, square_lobes) if has_x else {}
        return self.xn

    def placement_options(self) -> list[tuple[int, int, int, int, tuple[int, ...]]]:
        """Per candidate square and placeable tile: (t, square, score bits, 8 bits, points).

        Bit k of the score / 8 bits says orientation k closes a shape / an 8 (OGO-01/08/12).
        """
        near, far = self.near, self.far
        cands = BIT_SQUARES[self.frontier & 0x1FF] + [s + 9 for s in BIT_SQUARES[self.frontier >> 9 & 0x1FF]]
        cands += [s + 18 for s in BIT_SQUARES[self.frontier >> 18]]
        square_lobes = self.config.eight_lobes != "round"
        xn = self.board_x_needs()
        ok_d, ok_t = self.placeable()
        tiles = [(t, d) for t, d, ok in ((0, self.drawn, ok_d), (1, self.tables[self.to_move], ok_t)) if ok]
        out = []
        sigs = self.sigs
        for s in cands:
            sig = sigs[s]
            if sig < 0:
                sig = sigs[s] = signature(near, far, s)
            for t, d in tiles:
                score, eight, pts = outcome(sig, d, square_lobes)
                if s in xn:
                    eight |= eight_bits_from_x(xn[s], d)
                out.append((t, s, score, eight, pts))
        return out

    def closes_something(self, t: int, sq: int, k: int) -> bool:
        """Whether the placement just applied (known to the mask) closes a shape or an 8."""
        bits = self._closing.get(100 * t + 4 * sq)
        return bits is None or bool((bits | bits >> 4) >> k & 1)

    def apply(self, action: int) -> None:
        if self.phase == OVER:
            raise ValueError("the game is over: no action is legal")
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= int(action) < A.N_ACTIONS
        ):
            raise ValueError(f"action must be an int in [0, {A.N_ACTIONS}), got {action!r}")
        a = int(action)
        if self._mask is None:
            self._mask = self._compute_mask()
        if not self._mask[a]:
            raise ValueError(
                f"illegal action {a} ({self.action_to_string(a)}) in phase {PHASE_NAMES[self.phase]}"
            )
        self._mask = None
        if self.phase == PLACE:
            flow.place(self, a)
        elif self.phase == CARD:
            cards.play_card(self, a)
        elif self.phase == KIDNAP:
            cards.play_kidnapped(self, a)
        else:
            flow.answer_infinity(self, a)

    # ----------------------------------------------------------- (de)serialising
    def clone(self) -> State:
        new = State.__new__(State)
        d = self.__dict__.copy()
        for key in (
            "design",
            "rot",
            "tower",
            "discarded",
            "tables",
            "deck",
            "removed",
            "totals",
            "match_scores",
            "saved",
            "final",
            "winners",
        ):
            d[key] = list(d[key])
        d["hands"] = [list(h) for h in self.hands]
        d["supply"] = [list(s) for s in self.supply]
        d["shapes"] = dict(self.shapes)
        d["_closing"] = dict(self._closing)
        d["board_planes"] = self.board_planes.copy()
        d["near"] = list(self.near)
        d["sigs"] = list(self.sigs)
        d["far"] = list(self.far)
        from envs.core.game import clone_rng

        d["rng"] = clone_rng(self.rng)
        new.__dict__.update(d)
        return new

    def to_dict(self) -> dict[str, Any]:
        return position.state_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        return position.state_from_dict(d)

    def snapshot(self) -> dict[str, Any]:
        return position.dump(self)

    # --------------------------------------------------------------- notation
    def action_to_string(self, action: int) -> str:
        """Spec §8: the canonical string of any index (``illegal <index>`` out of range)."""
        return notation.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Spec §8: the index of a well-formed action string (legal or not)."""
        return notation.string_to_action(text)
