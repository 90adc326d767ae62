"""The rules engine of Over and Out (spec ``rules/over_and_out.md``).

One :class:`State` holds the whole game: chips, hands, the draw pile (top = last
element), the play pile as a count per kind (its order never matters: it is only ever
reshuffled), the Tip Top pile (top = last element), the turned-up Tip Top cards, T, L,
direction, dealer and the engine's RNG. Cards are kind numbers (see ``cards.py``).

Imports only the stdlib, numpy and ``envs.core``.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from envs.core.game import TERMINAL, GameState, clone_rng
from envs.core.notation import WordTable, canonical_text
from envs.over_and_out.cards import (
    ACTION_OF,
    ACTION_STRINGS,
    BUST,
    BUST_BIT,
    KIND_BIT,
    LEGAL_LISTS,
    MASKS,
    MINUS10,
    NUM_ACTIONS,
    NUM_KINDS,
    PLAYABLE_BITS,
    SPIN_OUT,
    TIPTOP_VALUES,
    TOKENS,
    TOP_OUT,
    TOPSY_TURVY,
    X2,
)
from envs.over_and_out.config import Config

__all__ = ["Config", "State"]

#: the notation's grammar, and where a malformed string departs from it (error messages only)
_GRAMMAR = f"'play <card>' with card in {list(TOKENS)}, or 'bust'"
_WORDS = WordTable(ACTION_STRINGS)


@lru_cache(maxsize=64)
def _deck_array(counts: tuple[int, ...]) -> np.ndarray:
    """The kinds of a whole deck with these counts, in kind order (shuffled per round)."""
    return np.repeat(np.arange(NUM_KINDS), counts)


class State(GameState):
    """A position of Over and Out, hidden cards and RNG included."""

    def __init__(self, config: Config, rng: np.random.Generator) -> None:
        n = config.num_players
        self.config = config
        self.rng = rng
        self.n = n
        self.chips: list[int] = [config.starting_chips] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]  # sorted kinds
        self.draw_pile: list[int] = []  # top = last
        self.play_pile: list[int] = [0] * NUM_KINDS  # count per kind since the last reshuffle
        self.tiptop_pile: list[int] = []  # top = last
        self.tiptop_discards: list[int] = []  # Tip Top cards discarded by Topsy Turvy (OAO-24), sorted
        self.tiptop = 0  # L
        self.total = 0  # T
        self.direction = 1  # +1 clockwise, -1 counter-clockwise
        self.dealer = 0
        self.round = 0
        self.plays = 0
        self.round_plays = 0
        self.to_move = TERMINAL
        self.out_order: list[int] = []  # seats in the order they were eliminated
        self.truncated = False
        self._returns: list[float] = [0.0] * n
        self._returns_array: np.ndarray | None = None  # cache of _returns; None = rebuild
        self._playable = PLAYABLE_BITS[config.minus10_rule == "lose_below_zero"]
        self._bits = -1  # cached legal bit set (incl. bust) of the player to move; -1 = stale

    # ------------------------------------------------------------------ setup
    @classmethod
    def new_game(
        cls,
        config: Config,
        rng: np.random.Generator,
        deck_top: Sequence[int] = (),
        tiptop_top: Sequence[int] = (),
    ) -> State:
        """Round 1 dealt (OAO-05..OAO-10); ``deck_top``/``tiptop_top`` stack the first deal."""
        state = cls(config, rng)
        fd = config.first_dealer
        state.dealer = int(rng.integers(config.num_players)) if fd is None else fd
        state._deal(deck_top, tiptop_top)
        return state

    def _deal(self, deck_top: Sequence[int] = (), tiptop_top: Sequence[int] = ()) -> None:
        """Set up a round: OAO-06..OAO-10, OAO-35, OAO-37 (nothing carries over)."""
        rest = list(self.config.counts)
        for k in deck_top:
            rest[k] -= 1
        deck = _deck_array(tuple(rest))
        draw: list[int] = self.rng.permutation(deck).tolist()
        draw.extend(reversed(deck_top))
        n, chips = self.n, self.chips
        for i in range(1, n + 1):  # block dealing: left of the dealer first, dealer last
            seat = (self.dealer + i) % n
            c = chips[seat]
            hand = draw[-c:] if c else []
            del draw[len(draw) - c :]
            hand.sort()
            self.hands[seat] = hand
        self.draw_pile = draw
        others = [v for v in TIPTOP_VALUES if v not in tiptop_top]
        pile: list[int] = self.rng.permutation(others).tolist() if others else []
        pile.extend(reversed(tiptop_top))
        self.tiptop = pile.pop()
        self.tiptop_pile = pile
        self.tiptop_discards = []
        self.play_pile = [0] * NUM_KINDS
        self.total = 0
        self.direction = 1
        self.round += 1
        self.round_plays = 0
        self.to_move = self._next_active(self.dealer, 1)
        self._bits = -1

    # ------------------------------------------------------------------- flow
    def current_player(self) -> int:
        return self.to_move

    def is_terminal(self) -> bool:
        return self.to_move < 0

    def is_truncated(self) -> bool:
        return self.truncated

    def returns(self) -> np.ndarray:
        # the cached array changes only when a reward is paid; callers get a copy
        arr = self._returns_array
        if arr is None:
            arr = self._returns_array = np.array(self._returns, dtype=np.float64)
        return arr.copy()

    def eliminated(self) -> frozenset[int]:
        return frozenset(self.out_order)

    def active_seats(self) -> list[int]:
        return [s for s in range(self.n) if self.chips[s] > 0]

    def _next_active(self, seat: int, direction: int) -> int:
        """OAO-04: the next seat with chips in ``direction`` (eliminated seats are skipped)."""
        n, chips = self.n, self.chips
        s = (seat + direction) % n
        while not chips[s]:
            s = (s + direction) % n
        return s

    def legal_bits(self) -> int:
        """Bit set of the legal actions (bit 11 = bust); cached until the next ``apply``."""
        bits = self._bits
        if bits < 0:
            if self.to_move < 0:
                bits = 0
            else:
                hand_bits = 0
                for k in self.hands[self.to_move]:
                    hand_bits |= KIND_BIT[k]
                bits = hand_bits & self._playable[self.tiptop][self.total]
                if not bits:  # OAO-15: bust only when nothing is playable
                    bits = BUST_BIT
            self._bits = bits
        return bits

    def legal_mask(self) -> np.ndarray:
        mask: np.ndarray = MASKS[self.legal_bits()].copy()
        return mask

    def legal_actions(self) -> list[int]:
        return list(LEGAL_LISTS[self.legal_bits()])

    # ------------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        p = self.to_move
        if p < 0:
            raise ValueError("the game is over: no action is legal")
        # a bool is an int to Python, never an action here; nor is another library's number
        # (operator.index would read a torch bool tensor as 1)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in [0, {NUM_ACTIONS - 1}], got {action!r}")
        a = int(action)
        bits = self.legal_bits()
        if not 0 <= a < NUM_ACTIONS or not (bits >> a) & 1:
            legal = [ACTION_STRINGS[x] for x in LEGAL_LISTS[bits]]
            raise ValueError(f"illegal action {a} for player_{p}; legal: {legal}")
        self._bits = -1
        self.plays += 1
        self.round_plays += 1
        if a == BUST:
            self._lose_round(p)
        else:
            self._play_card(p, a)
        if self.to_move >= 0 and self.plays >= self.config.max_plays:
            self._truncate()

    def _play_card(self, p: int, kind: int) -> None:
        """OAO-11, OAO-12, OAO-18..OAO-28, OAO-42; then draw (OAO-17, OAO-32) and pass."""
        hand = self.hands[p]
        hand.remove(kind)
        self.play_pile[kind] += 1
        t = self.total
        if kind <= 5:
            self.total = t + kind
        elif kind == X2:
            self.total = 2 * t
        elif kind == MINUS10:
            if t < 10:  # only reachable under minus10_rule="lose_below_zero" (OAO-42)
                self._lose_round(p)
                return
            self.total = t - 10
        elif kind == SPIN_OUT:
            self.direction = -self.direction
        elif kind == TOP_OUT:
            self.total = self.tiptop
        elif kind == TOPSY_TURVY and self._turn_tiptop() < t:  # OAO-28: new L lower than T
            self._lose_round(p)
            return
        pile = self.draw_pile
        if not pile:
            self._reshuffle()
        insort(hand, pile.pop())
        self.to_move = self._next_active(p, self.direction)

    def _reshuffle(self) -> None:
        """OAO-32: the play pile, the card just played included, becomes the draw pile."""
        self.draw_pile.extend(self.rng.permutation(_deck_array(tuple(self.play_pile))).tolist())
        self.play_pile = [0] * NUM_KINDS

    def _turn_tiptop(self) -> int:
        """OAO-24, OAO-27, OAO-29: discard L, turn up the next Tip Top card; return it."""
        if not self.tiptop_pile:
            self.tiptop_pile = self.rng.permutation(self.tiptop_discards).tolist()
            self.tiptop_discards = []
        insort(self.tiptop_discards, self.tiptop)
        self.tiptop = self.tiptop_pile.pop()
        return self.tiptop

    def _lose_round(self, p: int) -> None:
        """OAO-33..OAO-38: ``p`` loses a chip; eliminate, end the game or deal the next round."""
        self.chips[p] -= 1
        if not self.chips[p]:  # its last hand stays in the state until the next deal (card count)
            self.out_order.append(p)
            self._returns_array = None
            n, j = self.n, len(self.out_order)
            if self.config.reward_mode == "winner_only":
                self._returns[p] = -1.0
            else:  # -1 + 2(j-1)/(N-1), written so that simple fractions stay exact
                self._returns[p] = (2 * j - n - 1) / (n - 1)
            if j == n - 1:
                self._returns[self.active_seats()[0]] = 1.0
                self.to_move = TERMINAL
                return
        self.dealer = self._next_active(self.dealer, 1)
        self._deal()

    def _truncate(self) -> None:
        """§5: the remaining players share the unassigned placement values equally."""
        self.truncated = True
        self.to_move = TERMINAL
        self._returns_array = None
        if self.config.reward_mode == "placement":
            n, m = self.n, self.n - len(self.out_order)
            value = (n - m) / (n - 1)  # = -1 + (2N - m - 1)/(N - 1)
            for s in self.active_seats():
                self._returns[s] = value

    # --------------------------------------------------------------- copying
    def clone(self) -> State:
        c = State.__new__(State)
        c.__dict__.update(self.__dict__)
        c.rng = clone_rng(self.rng)
        c.chips = self.chips[:]
        c.hands = [h[:] for h in self.hands]
        c.draw_pile = self.draw_pile[:]
        c.play_pile = self.play_pile[:]
        c.tiptop_pile = self.tiptop_pile[:]
        c.tiptop_discards = self.tiptop_discards[:]
        c.out_order = self.out_order[:]
        c._returns = self._returns[:]
        return c

    def to_dict(self) -> dict[str, Any]:
        from envs.over_and_out.serial import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        from envs.over_and_out.serial import state_from_dict

        return state_from_dict(cls, d)

    # --------------------------------------------------------------- notation
    def action_to_string(self, action: int) -> str:
        bits = self.legal_bits()
        if (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)  # True is no index here, as in apply()
            and 0 <= action < NUM_ACTIONS
            and (bits >> int(action)) & 1
        ):
            return ACTION_STRINGS[int(action)]
        return f"illegal {action}"

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise ValueError(f"expected a string such as 'play 5' or 'bust', got {text!r}")
        key = canonical_text(text, _GRAMMAR)
        a = ACTION_OF.get(key)
        if a is None:
            raise ValueError(f"malformed action {text!r}: {_WORDS.hint(key)}; expected {_GRAMMAR}")
        bits = self.legal_bits()
        if not (bits >> a) & 1:
            legal = [ACTION_STRINGS[x] for x in LEGAL_LISTS[bits]]
            raise ValueError(f"{key!r} is not legal now; legal: {legal}")
        return a

    def snapshot(self) -> dict[str, Any]:
        """Spec §8 inspection hook."""
        return {
            "to_move": self.to_move,
            "round": self.round,
            "dealer": self.dealer,
            "total": self.total,
            "tiptop": self.tiptop,
            "direction": self.direction,
            "chips": list(self.chips),
            "hands": [
                [TOKENS[k] for k in h] if c else [] for h, c in zip(self.hands, self.chips, strict=True)
            ],
            "draw_pile": len(self.draw_pile),
            "play_pile": sum(self.play_pile),
            "tiptop_pile": len(self.tiptop_pile),
            "plays": self.plays,
        }
