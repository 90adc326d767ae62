"""Otto the Octopus: the rules engine (spec ``rules/otto_octopus.md``).

The board and the placement test live in :mod:`envs.otto_octopus.board`; this module is
the turn structure of spec §3: MAIN (``place`` / ``pass``), EXTRA after a clownfish or
butterflyfish (``place`` / ``stop``), SWAP after a pufferfish, RETURN after a seahorse,
and the automatic steps (skipped turns, automatic passes, refills, the end of the game).

Hands are lists in acquisition order (the last tile is the secret one of the open game,
OTP-41); the pile is a list whose **last** element is its top (``pop()`` draws), while
every external view (snapshot, position schema) lists the pile top-first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.config import check_bool, check_choice, check_int, plain_fields
from envs.core.game import TERMINAL, GameState, clone_rng, note_event
from envs.otto_octopus.board import (
    BUTTERFLYFISH,
    CLOWNFISH,
    JELLYFISH,
    PUFFERFISH,
    SEAHORSE,
    SHARK,
    Ocean,
)  # fmt: skip

NUM_ACTIONS = 1106
PASS, STOP, RETURN_BASE, SWAP_BASE = 1024, 1025, 1026, 1042
MAIN, EXTRA, SWAP, RETURN = 0, 1, 2, 3
PHASES = ("main", "extra", "swap", "return")


@dataclass(frozen=True)
class Config:
    """Parameters of spec §6."""

    num_players: int = field(default=2, metadata={"help": "players, 1-4 (1 = the solo game, OTP-39/40)"})
    open_game: bool = field(
        default=False, metadata={"help": "open game: all but the newest hand tile visible (OTP-41)"}
    )
    simplified: bool = field(
        default=False, metadata={"help": "fish effects ignored, only their points count (OTP-42)"}
    )
    max_steps: int = field(
        default=1000, metadata={"help": "truncation: agent decisions before the game is cut"}
    )

    def __post_init__(self) -> None:
        plain_fields(self)
        check_choice("num_players", self.num_players, (1, 2, 3, 4))
        check_bool("open_game", self.open_game)
        check_bool("simplified", self.simplified)
        check_int("max_steps", self.max_steps, 1)

    @property
    def fish_rules(self) -> bool:
        """Moray and anglerfish placement limits apply (not in the simplified game)."""
        return not self.simplified


class State(GameState):
    """A position of Otto the Octopus, hidden hands and pile order included."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        n = config.num_players
        self.config = config
        self.n = n
        self.rng = rng
        self.ocean = Ocean()
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.pile: list[int] = []  # top is the last element
        self.pile_counts = [0] * 16  # tiles of each kind in the pile (kept in step, for observe)
        self.scores = [0] * n
        self.skips = [0] * n
        self.passed = [False] * n
        self.to_move = 0
        self.phase = MAIN
        self.extra = 0
        self.steps = 0
        self.over = False
        self.truncated = False
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------ protocol
    def current_player(self) -> int:
        return TERMINAL if self.over else self.to_move

    def is_terminal(self) -> bool:
        return self.over

    def is_truncated(self) -> bool:
        return self.truncated

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def clone(self) -> State:
        s = State.__new__(State)
        s.config, s.n, s.rng = self.config, self.n, clone_rng(self.rng)
        s.ocean = self.ocean.clone()
        s.hands = [h[:] for h in self.hands]
        s.pile = self.pile[:]
        s.pile_counts = self.pile_counts[:]
        s.scores, s.skips, s.passed = self.scores[:], self.skips[:], self.passed[:]
        s.to_move, s.phase, s.extra = self.to_move, self.phase, self.extra
        s.steps, s.over, s.truncated = self.steps, self.over, self.truncated
        s._mask = self._mask
        return s

    def recount_pile(self) -> None:
        """Rebuild ``pile_counts`` after the pile was replaced wholesale."""
        counts = [0] * 16
        for k in self.pile:
            counts[k] += 1
        self.pile_counts = counts

    def final_scores(self) -> list[int]:
        """Running score minus tiles in hand (solo: also minus the pile), OTP-38/OTP-40."""
        out = [self.scores[p] - len(self.hands[p]) for p in range(self.n)]
        if self.n == 1:
            out[0] -= len(self.pile)
        return out

    def winners(self) -> list[int]:
        fs = self.final_scores()
        best = max(fs)
        return [p for p in range(self.n) if fs[p] == best]

    def returns(self) -> np.ndarray:
        n = self.n
        if not self.over or self.truncated:
            return np.zeros(n, dtype=np.float64)  # a fresh array, as every game's returns()
        out = np.zeros(n, dtype=np.float64)
        if n == 1:
            out[0] = self.final_scores()[0] / 100.0
            return out
        w = self.winners()
        k = len(w)
        out[:] = -1.0 / (n - 1)
        out[w] = (n - k) / (k * (n - 1))
        return out

    # ---------------------------------------------------------------- mask
    def _compute_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.over:
            return mask
        p, hand = self.to_move, self.hands[self.to_move]
        if self.phase == MAIN or self.phase == EXTRA:
            self.ocean.fill_placements(mask, set(hand), self.config.fish_rules)
            mask[PASS if self.phase == MAIN else STOP] = 1
        elif self.phase == SWAP:
            for k in set(hand):
                for q in range(self.n):
                    if q != p and self.hands[q]:
                        mask[SWAP_BASE + 4 * k + q] = 1
        else:
            for k in set(hand):
                mask[RETURN_BASE + k] = 1
        return mask

    def _placement_mask(self, seat: int) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.hands[seat]:
            self.ocean.fill_placements(mask, set(self.hands[seat]), self.config.fish_rules)
        return mask

    # ---------------------------------------------------------------- apply
    def apply(self, action: int) -> None:
        if self.over:
            raise ValueError(f"action {action!r}: the game is over")
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            raise ValueError(f"action must be an int, got {action!r}")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action {a} out of range [0, {NUM_ACTIONS})")
        if self._mask is None:
            self._mask = self._compute_mask()
        if not self._mask[a]:
            from envs.otto_octopus.encode import ACTION_STRINGS

            raise ValueError(f"illegal action {a} ({ACTION_STRINGS[a]!r}) for player_{self.to_move} now")
        self._mask = None
        self.steps += 1
        if a < PASS:
            self._place(a >> 6, a & 63)
        elif a == PASS:
            self._pass()
        elif a == STOP:
            self._end_turn()
        elif a < SWAP_BASE:
            self._return(a - RETURN_BASE)
        else:
            self._swap((a - SWAP_BASE) >> 2, (a - SWAP_BASE) & 3)
        if not self.over and self.steps >= self.config.max_steps:
            self.truncated = True
            self._finish()

    def _draw(self, seat: int) -> None:
        if self.pile:
            k = self.pile.pop()
            self.pile_counts[k] -= 1
            self.hands[seat].append(k)

    def _place(self, kind: int, sq: int) -> None:
        """OTP-11..33: place, score, then the fish effect."""
        p = self.to_move
        if self.phase == EXTRA:
            self.extra -= 1  # OTP-33: each extra placement uses one
        self.hands[p].remove(kind)  # copies are identical; the oldest goes (keeps the secret, OTP-41)
        self.scores[p] += self.ocean.points(kind, sq)
        self.ocean.place(kind, sq, self.config.fish_rules)
        self.passed = [False] * self.n
        self.phase = MAIN
        if not self.config.simplified and self._effect(kind, p):
            return
        self._continue_turn()

    def _effect(self, kind: int, p: int) -> bool:
        """OTP-21..31 (solo: OTP-39). True when a decision (SWAP / RETURN) follows."""
        solo = self.n == 1
        if kind == SEAHORSE:
            self._draw(p)  # OTP-26
            if self.pile:
                self.phase = RETURN
                return True
        elif solo:
            return False
        elif kind == SHARK:
            for q in range(self.n):
                if q != p:
                    self.scores[q] -= 2  # OTP-27, never doubled (OTP-15)
        elif kind == CLOWNFISH:
            self._draw(p)  # OTP-21
            self.extra += 1
        elif kind == BUTTERFLYFISH:
            self.extra += 2  # OTP-22
        elif kind == JELLYFISH:
            self.skips[(p + 1) % self.n] += 1  # OTP-23
        elif kind == PUFFERFISH and self.hands[p] and any(self.hands[q] for q in range(self.n) if q != p):
            self.phase = SWAP  # OTP-24
            return True
        return False

    def _continue_turn(self) -> None:
        """OTP-33: extra placements while some remain and one is legal, else end the turn."""
        if self.extra > 0 and self.ocean.can_place(self.hands[self.to_move], self.config.fish_rules):
            self.phase = EXTRA
            self._mask = None
            return
        self._end_turn()

    def _end_turn(self) -> None:
        """OTP-18: refill to 3, then the next seat."""
        p = self.to_move
        hand = self.hands[p]
        while len(hand) < 3 and self.pile:
            k = self.pile.pop()
            self.pile_counts[k] -= 1
            hand.append(k)
        self.extra = 0
        self.phase = MAIN
        self._next_turn((p + 1) % self.n)

    def _pass(self) -> None:
        p = self.to_move
        self.passed[p] = True
        if all(self.passed):
            self._finish()  # OTP-37
        else:
            self._next_turn((p + 1) % self.n)

    def _next_turn(self, q: int) -> None:
        """The automatic steps of spec §3: skipped turns (OTP-23), automatic passes (OTP-19)."""
        self.phase, self.extra = MAIN, 0
        while True:
            if self.skips[q] > 0:
                self.skips[q] -= 1
                note_event(self, "skip", q)
            elif self.ocean.can_place(self.hands[q], self.config.fish_rules):
                self.to_move = q
                self._mask = None
                return
            else:
                self.passed[q] = True
                note_event(self, "pass", q)
                if all(self.passed):
                    self.to_move = q
                    self._finish()
                    return
            q = (q + 1) % self.n

    def _finish(self) -> None:
        self.over = True
        self.to_move = TERMINAL
        self.phase, self.extra = MAIN, 0
        self._mask = None

    def _return(self, kind: int) -> None:
        """OTP-26: the returned tile goes to a uniformly random place in the pile, then draw 1."""
        p = self.to_move
        self.hands[p].remove(kind)
        self.pile.insert(int(self.rng.integers(len(self.pile) + 1)), kind)
        self.pile_counts[kind] += 1
        self._draw(p)
        self.phase = MAIN
        self._continue_turn()

    def _swap(self, kind: int, j: int) -> None:
        """OTP-24: give ``kind``, take a uniformly random tile of player j."""
        p = self.to_move
        self.hands[p].remove(kind)
        taken = self.hands[j].pop(int(self.rng.integers(len(self.hands[j]))))
        self.hands[j].append(kind)
        self.hands[p].append(taken)
        self.phase = MAIN
        self._continue_turn()

    # ----------------------------------------------------- notation, (de)serialising
    def action_to_string(self, action: int) -> str:
        from envs.otto_octopus.encode import action_to_string

        return action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Spec §8: the index of any canonical string, legal now or not (its mask entry
        says which; stepping an illegal one ends the episode, OTP-44)."""
        from envs.otto_octopus.encode import parse_action

        return parse_action(text)

    def snapshot(self) -> dict[str, Any]:
        from envs.otto_octopus.position import dump_position

        return dump_position(self)

    def to_dict(self) -> dict[str, Any]:
        from envs.core.game import rng_to_dict

        return {
            "config": dataclasses.asdict(self.config),
            "position": self.snapshot(),
            "steps": self.steps,
            "truncated": self.truncated,
            "rng": rng_to_dict(self.rng),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        from envs.otto_octopus.position import state_from_dict

        return state_from_dict(d)
