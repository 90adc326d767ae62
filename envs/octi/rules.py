"""The Octi rules engine (spec ``rules/octi.md``): config and state with the turn phase machine.

Position model (``State``): every pod has a *global code* ``g = seat * P + id``;
``pos[g]`` is its square (see :mod:`envs.octi.board`), ``RESERVE`` or ``CAPTURED``;
``prongs[g]`` is its 8-bit socket mask (bit d = absolute direction d). ``cnt[sq]``
counts the pods of the *movement board B'* on each square (every pod except this
turn's movers), ``col[sq]`` is the colour on a square (squares never mix colours,
OCT-09). Both are kept incrementally so legal moves are a few table look-ups.

The phase machine (spec §3): MAIN -> (hop) -> DECLARE -> CHAIN -> MOVER -> CAPTURE ->
END; :mod:`envs.octi.turn` holds the transitions, :mod:`envs.octi.notation` the §8
strings and :mod:`envs.octi.serial` ``to_dict`` / ``from_dict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.config import check_bool, check_choice, check_int, plain_fields
from envs.core.game import TERMINAL, GameState, clone_rng
from envs.octi import turn as _turn
from envs.octi.actions import Layout, layout
from envs.octi.board import Geometry, geometry
from envs.octi.turn import CAPTURE, CAPTURED, CHAIN, DECLARE, MAIN, MOVER, OVER, PHASE_NAMES, RESERVE

__all__ = [
    "CAPTURE",
    "CAPTURED",
    "CHAIN",
    "DECLARE",
    "MAIN",
    "MOVER",
    "OVER",
    "PHASE_NAMES",
    "RESERVE",
    "Config",
    "State",
]
VARIANTS = ("basic", "x_fast", "x_classic")
DEFAULT_MAX_TURNS = {"basic": 300, "x_fast": 500, "x_classic": 1000}


@dataclass(frozen=True)
class Config:
    """Parameters of one Octi game (spec §6)."""

    variant: str = field(default="basic", metadata={"help": "basic (6x7), x_fast or x_classic (9x9)"})
    max_turns: int | None = field(
        default=None, metadata={"help": "completed turns before a truncation draw; None = 300/500/1000"}
    )
    allow_reposition: bool = field(default=False, metadata={"help": "OCT-49: a turn may move a prong"})
    edgeless: bool = field(default=False, metadata={"help": "OCT-50: the board is a torus"})
    capture_to_reserve: bool = field(
        default=False,
        metadata={
            "help": "OCT-51 (X only; ignored in basic): own pods captured by their owner go to reserve"
        },
    )
    repetition_draw: bool = field(default=False, metadata={"help": "OCT-52: threefold repetition is a draw"})

    def __post_init__(self) -> None:
        plain_fields(self)
        check_choice("variant", self.variant, VARIANTS)
        if self.max_turns is not None:
            try:
                check_int("max_turns", self.max_turns, 1)
            except ValueError:
                raise ValueError(f"max_turns must be None or an int >= 1, got {self.max_turns!r}") from None
        for name in ("allow_reposition", "edgeless", "capture_to_reserve", "repetition_draw"):
            check_bool(name, getattr(self, name))

    @property
    def turn_limit(self) -> int:
        return DEFAULT_MAX_TURNS[self.variant] if self.max_turns is None else self.max_turns

    @property
    def is_x(self) -> bool:
        return self.variant != "basic"

    @property
    def pods(self) -> int:
        return 7 if self.is_x else 4

    @property
    def start_supply(self) -> int:
        return 25 if self.is_x else 12


class _RngCell:
    """A generator that clones share until one of them touches it (copy on access).

    Octi draws no chance, yet every state carries a generator and ``clone`` must give
    an independent one; copying a numpy generator costs far more than the rest of a
    clone, so the copy is made only when a state actually reads its ``rng``."""

    __slots__ = ("exposed", "gen", "shared")

    def __init__(self, gen: np.random.Generator) -> None:
        self.gen = gen
        self.shared = False
        self.exposed = False  # handed out by ``rng``: a caller may draw from it at any time


class State(GameState):
    """A position of Octi, mid-turn phases included (see module docstring)."""

    _rng_cell: _RngCell

    @property
    def rng(self) -> np.random.Generator:
        cell = self._rng_cell
        if cell.shared:
            cell = self._rng_cell = _RngCell(clone_rng(cell.gen))
        cell.exposed = True
        return cell.gen

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng_cell = _RngCell(value)

    def peek_rng(self) -> np.random.Generator:
        """The generator without un-sharing it (read its state only, never draw from it)."""
        return self._rng_cell.gen

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        self._setup_static(config)
        self.rng = rng
        g = self.geo
        P = self.P
        self.pos: list[int] = [RESERVE] * (2 * P)
        self.prongs: list[int] = [0] * (2 * P)
        for seat in (0, 1):  # OCT-03 / OCT-04: ids follow each owner's left-to-right bases
            for i, sq in enumerate(g.bases[seat]):
                self.pos[seat * P + i] = sq
        self.supply: list[int] = [config.start_supply] * 2
        self.to_move = 0
        self.turn = 0
        self.phase = MAIN
        self.result: list[float] = [0.0, 0.0]
        self.truncated = False
        self.history: dict[str, int] = {}
        self._clear_turn()
        self.rebuild_board()
        if config.repetition_draw:
            self.history[_turn.position_key(self, 0)] = 1

    # ------------------------------------------------------------ internals
    def _setup_static(self, config: Config) -> None:
        self.config = config
        self.geo: Geometry = geometry(config.variant, config.edgeless)
        self.P = config.pods
        self.K = len(self.geo.bases[0])
        self.x = config.is_x
        self.classic = config.variant == "x_classic"
        self.lay: Layout = layout(self.P, self.K, config.allow_reposition)
        self._legal: list[int] | None = None
        self._ba: bytearray | None = None
        #: per-observer pod planes of the observation (``encode.PodPlanes``), synced lazily
        self.pod_planes: list[Any] = [None, None]

    def _clear_turn(self) -> None:
        self.origin = -1
        self.movers: list[int] = []  # own ids, first mover first, then `with` pods
        self.finished: list[int] = []
        self.pending: list[int] = []  # declared movers that have not moved yet
        self.dqueue: list[int] = []  # declare queue (own ids)
        self.active = -1
        self.last_jump = False
        self.jumped: list[int] = [0] * self.P  # per own pod: bitmask of squares it jumped
        self.jorder: list[int] = []  # squares jumped this turn, in order first jumped
        self.cqueue: list[int] = []  # capture queue (global codes)
        self.cmarks: list[int] = []  # pods marked `capture`

    def rebuild_board(self) -> None:
        """Recompute ``cnt`` / ``col`` from ``pos`` (movers are not part of B')."""
        size = self.geo.size
        self.cnt: list[int] = [0] * size
        self.col: list[int] = [-1] * size
        P = self.P
        movers = {self.to_move * P + p for p in self.movers}
        for g, sq in enumerate(self.pos):
            if sq >= 0:
                self.col[sq] = g // P
                if g not in movers:
                    self.cnt[sq] += 1

    def _legal_list(self) -> list[int]:
        if self._legal is None:
            self._legal = _turn.legal_actions(self)
        return self._legal

    def _legal_bytes(self) -> bytearray:
        if self._ba is None:
            ba = bytearray(self.lay.size)
            for a in self._legal_list():
                ba[a] = 1
            self._ba = ba
        return self._ba

    # ----------------------------------------------------------------- flow
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.to_move

    def legal_mask(self) -> np.ndarray:
        return np.frombuffer(self._legal_bytes(), dtype=np.int8).copy()

    def legal_actions(self) -> list[int]:
        return sorted(self._legal_list())

    def apply(self, action: int) -> None:
        if self.phase == OVER:
            raise ValueError(f"action {action!r} after the end of the game")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int, got {action!r}")
        a = int(action)
        if not 0 <= a < self.lay.size or not self._legal_bytes()[a]:
            raise ValueError(
                f"illegal action {a} ({_turn.describe_index(self, a)}) in phase "
                f"{PHASE_NAMES[self.phase]} for player_{self.to_move}"
            )
        self._legal = None
        self._ba = None
        _turn.apply_action(self, a)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        return self.truncated

    def returns(self) -> np.ndarray:
        return np.array(self.result, dtype=np.float64)

    def finish(self, winner: int | None, truncated: bool = False) -> None:
        """End the game: ``winner`` gets +1 and the other -1; ``None`` is a draw."""
        self.phase = OVER
        self.truncated = truncated
        if winner is not None:
            self.result = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        self._legal = []

    # -------------------------------------------------------------- copying
    def clone(self) -> State:
        new = State.__new__(State)
        d = new.__dict__
        d.update(self.__dict__)
        for name in (
            "pos",
            "prongs",
            "supply",
            "result",
            "movers",
            "finished",
            "pending",
            "dqueue",
            "jumped",
            "jorder",
            "cqueue",
            "cmarks",
            "cnt",
            "col",
        ):
            d[name] = list(d[name])
        d["history"] = dict(self.history)
        if self._rng_cell.exposed:  # a generator handed out may be drawn from: copy it now
            d["_rng_cell"] = _RngCell(clone_rng(self._rng_cell.gen))
        else:
            self._rng_cell.shared = True
        if self._legal is not None:
            d["_legal"] = list(self._legal)
        d["_ba"] = None
        d["pod_planes"] = [None, None]
        return new

    def __getstate__(self) -> dict[str, Any]:
        # pickle / deepcopy: the observation cache holds numpy views that must not be split
        d = dict(self.__dict__)
        d["pod_planes"] = [None, None]
        return d

    def to_dict(self) -> dict[str, Any]:
        from envs.octi.serial import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        from envs.octi.serial import state_from_dict

        return state_from_dict(d)

    # ------------------------------------------------------------- notation
    def action_to_string(self, action: int) -> str:
        from envs.octi.notation import action_to_string

        return action_to_string(self, action)

    def string_to_action(self, text: str) -> int:
        from envs.octi.notation import string_to_action

        return string_to_action(self, text)

    def snapshot(self) -> dict[str, Any]:
        from envs.octi.notation import snapshot

        return snapshot(self)

    # -------------------------------------------------------------- queries
    def count(self, seat: int, where: int) -> int:
        """Pods of ``seat`` at ``where`` (``RESERVE``, ``CAPTURED`` or a square)."""
        P = self.P
        return sum(1 for sq in self.pos[seat * P : (seat + 1) * P] if sq == where)

    def pods_on(self, sq: int) -> list[int]:
        """Global codes of every pod physically on ``sq`` (movers included), ascending."""
        return [g for g, s in enumerate(self.pos) if s == sq]

    def play(self, *moves: str) -> None:
        """Apply notation strings in order (a test and setup convenience)."""
        for m in moves:
            self.apply(self.string_to_action(m))
