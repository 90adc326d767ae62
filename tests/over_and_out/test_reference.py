"""Differential test: an independent reference of Over and Out, written from the
rules spec (shared/rules/over_and_out.md) alone, driven side by side with the
engine over random playouts of every variant.

The reference never simulates the RNG: whenever the spec calls for a shuffle
(a new round's deal, OAO-07/OAO-37; a draw-pile reshuffle, OAO-32; a Tip Top
pile rebuild, OAO-29) it asks an *oracle* for the resulting order, and the test
supplies that order from the engine's state after the step, after checking it is
a permutation of exactly the cards the spec says are shuffled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out_v0 import env as make_env

# ---------------------------------------------------------------------------
# Reference implementation (from the spec only)
# ---------------------------------------------------------------------------

# §7 / §8: card tokens in action-space order; action k < 11 = "play CARDS[k]".
CARDS = ["0", "1", "2", "3", "4", "5", "x2", "-10", "spin-out", "top-out", "topsy-turvy"]
ACTIONS = [f"play {c}" for c in CARDS] + ["bust"]
TIPTOP = [22, 33, 44, 55, 66]  # §1 Tip Top values
DEFAULT_DECK = {  # §1 default deck_counts
    "0": 8, "1": 8, "2": 8, "3": 8, "4": 8, "5": 8,
    "x2": 4, "-10": 6, "spin-out": 6, "top-out": 4, "topsy-turvy": 4,
}  # fmt: skip

# An oracle receives (kind, cards) and returns those cards in the order the
# shuffle produced them (first = top). kind is "deal", "draw" or "tiptop".
Oracle = Callable[[str, list], list]


def sort_hand(hand: list[str]) -> list[str]:
    """§8 snapshot: hands sorted in action-space order."""
    return sorted(hand, key=CARDS.index)


def playable(card: str, total: int, limit: int, minus10_rule: str) -> bool:
    """§4.4 'Playable iff' column; OAO-14 (nothing that breaks OAO-13 is playable)."""
    if card == "0":  # OAO-18 always
        return True
    if card in ("1", "2", "3", "4", "5"):  # OAO-19 T + n <= L
        return total + int(card) <= limit
    if card == "x2":  # OAO-20 2T <= L (legal at T = 0)
        return 2 * total <= limit
    if card == "-10":  # OAO-21 T >= 10; OAO-42 always under lose_below_zero
        return minus10_rule == "lose_below_zero" or total >= 10
    # OAO-22 spin-out, OAO-23 top-out (also at T = L), OAO-24 topsy-turvy: always
    return True


def placement_value(n: int, j: int) -> float:
    """§5: the j-th player eliminated (1-based) gets -1 + 2(j-1)/(N-1)."""
    return -1.0 + 2.0 * (j - 1) / (n - 1)


@dataclass
class Ref:
    n: int
    starting_chips: int = 4
    deck_counts: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DECK))
    minus10_rule: str = "require_10"
    reward_mode: str = "placement"
    max_plays: int = 5000
    # ---- state ----
    chips: list[int] = field(default_factory=list)
    dealer: int = 0
    round: int = 0
    total: int = 0
    limit: int = 0
    direction: int = 1
    to_move: int = 0
    hands: list[list[str]] = field(default_factory=list)
    draw: list[str] = field(default_factory=list)  # index 0 = top
    play_pile: list[str] = field(default_factory=list)
    tiptop_pile: list[int] = field(default_factory=list)  # index 0 = top
    tiptop_discards: list[int] = field(default_factory=list)
    plays: int = 0
    round_plays: int = 0
    eliminated: list[int] = field(default_factory=list)  # in elimination order
    game_over: bool = False
    truncated: bool = False
    step_rewards: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    newly_terminated: list[int] = field(default_factory=list)

    # -- helpers ----------------------------------------------------------
    def full_deck(self) -> list[str]:
        """§6 deck_counts: missing tokens count 0."""
        return [c for c in CARDS for _ in range(self.deck_counts.get(c, 0))]

    def active(self, seat: int) -> bool:
        """'Active player = a player who still has chips.'"""
        return self.chips[seat] > 0

    def next_active(self, seat: int, direction: int) -> int:
        """OAO-04 / OAO-34: next seat in `direction`, skipping eliminated seats."""
        s = (seat + direction) % self.n
        while not self.active(s):
            s = (s + direction) % self.n
        return s

    # -- setup (§2, §4.2) ---------------------------------------------------
    def start(self, first_dealer: int, oracle: Oracle) -> None:
        self.chips = [self.starting_chips] * self.n  # OAO-03
        self.returns = [0.0] * self.n
        self.step_rewards = [0.0] * self.n
        self.dealer = first_dealer  # OAO-05
        self.round = 0
        self.plays = 0
        self.setup_round(oracle)

    def setup_round(self, oracle: Oracle) -> None:
        """OAO-06..OAO-10, OAO-37: nothing carries over between rounds."""
        self.round += 1
        self.round_plays = 0
        self.total = 0  # OAO-10
        self.direction = 1  # OAO-10 [MODEL] clockwise every round
        self.play_pile = []  # OAO-08
        self.tiptop_discards = []
        self.tiptop_pile = list(oracle("tiptop_deal", list(TIPTOP)))  # OAO-06
        deck = list(oracle("deal", self.full_deck()))  # OAO-07 shuffle
        self.hands = [[] for _ in range(self.n)]
        # OAO-07 block dealing: left of the dealer first, dealer last.
        seat = self.dealer
        order = []
        for _ in range(sum(1 for s in range(self.n) if self.active(s))):
            seat = self.next_active(seat, 1)
            order.append(seat)
        assert order[-1] == self.dealer
        for s in order:
            k = self.chips[s]  # OAO-03 / OAO-35: cards = chips
            self.hands[s], deck = deck[:k], deck[k:]
        self.draw = deck  # OAO-08
        self.limit = self.tiptop_pile.pop(0)  # OAO-09
        self.to_move = self.next_active(self.dealer, 1)  # OAO-10

    # -- legality (§3 step 1, §4.4, OAO-15) -------------------------------
    def legal(self) -> set[str]:
        me = self.to_move
        acts = {f"play {c}" for c in self.hands[me] if playable(c, self.total, self.limit, self.minus10_rule)}
        return acts or {"bust"}  # OAO-15: bust only when nothing is playable

    # -- one agent step (§3) ------------------------------------------------
    def step(self, action: str, oracle: Oracle) -> None:
        assert not self.game_over and not self.truncated
        assert action in self.legal(), (action, self.legal())
        self.step_rewards = [0.0] * self.n
        self.newly_terminated = []
        me = self.to_move
        self.plays += 1  # §5: plays counted over all rounds, bust included
        self.round_plays += 1
        lost = False
        if action == "bust":  # OAO-15
            lost = True
        else:
            card = action[len("play ") :]
            self.hands[me].remove(card)
            self.play_pile.append(card)  # OAO-11
            if card in ("1", "2", "3", "4", "5"):  # OAO-19
                self.total += int(card)
            elif card == "x2":  # OAO-20
                self.total *= 2
            elif card == "-10":
                if self.total < 10:  # OAO-42 (only reachable under lose_below_zero)
                    assert self.minus10_rule == "lose_below_zero"
                    lost = True  # T unchanged
                else:  # OAO-21
                    self.total -= 10
            elif card == "spin-out":  # OAO-22, OAO-25, OAO-26
                self.direction = -self.direction
            elif card == "top-out":  # OAO-23
                self.total = self.limit
            elif card == "topsy-turvy":  # OAO-24, OAO-27
                if not self.tiptop_pile:  # OAO-29: rebuild from discards, not current
                    self.tiptop_pile = list(oracle("tiptop", list(self.tiptop_discards)))
                    self.tiptop_discards = []
                self.tiptop_discards.append(self.limit)
                self.limit = self.tiptop_pile.pop(0)
                if self.limit < self.total:  # OAO-28 (equal is safe)
                    lost = True
            # "0" (OAO-18): no change
        if lost:  # OAO-16: no draw; OAO-33 round over at once
            self.lose_round(me, oracle)
        else:
            if not self.draw:  # OAO-32: play pile incl. the card just played
                self.draw = list(oracle("draw", list(self.play_pile)))
                self.play_pile = []
            self.hands[me].append(self.draw.pop(0))  # OAO-12, OAO-17
            self.to_move = self.next_active(me, self.direction)  # §3 step 5
        # §5 truncation after a step that leaves the game unfinished.
        if not self.game_over and self.plays >= self.max_plays:
            self.truncated = True
            remaining = [s for s in range(self.n) if self.active(s)]
            m = len(remaining)
            for s in remaining:
                # placement: the average of the unassigned placements; winner_only: 0
                placement = self.reward_mode == "placement"
                r = -1.0 + (2 * self.n - m - 1) / (self.n - 1) if placement else 0.0
                self.step_rewards[s] += r
        for s in range(self.n):
            self.returns[s] += self.step_rewards[s]

    def lose_round(self, loser: int, oracle: Oracle) -> None:
        self.chips[loser] -= 1  # OAO-33
        if self.chips[loser] == 0:  # OAO-34 eliminated at once
            self.eliminated.append(loser)
            self.newly_terminated.append(loser)
            if self.reward_mode == "placement":
                self.step_rewards[loser] += placement_value(self.n, len(self.eliminated))
            else:
                self.step_rewards[loser] += -1.0
            self.hands[loser] = []
        remaining = [s for s in range(self.n) if self.active(s)]
        if len(remaining) == 1:  # OAO-38
            self.game_over = True
            self.step_rewards[remaining[0]] += 1.0
            return
        # OAO-36: deal passes to the next active player clockwise from the
        # previous dealer's seat.
        self.dealer = self.next_active(self.dealer, 1)
        self.setup_round(oracle)  # OAO-35, OAO-37


# ---------------------------------------------------------------------------
# Harness: drive the engine and the reference side by side
# ---------------------------------------------------------------------------


def top_first(pile: list) -> list:
    """to_dict lists piles with their top card last; the reference keeps it first."""
    return list(reversed(pile))


def deal_order(ref: Ref) -> list[int]:
    """OAO-07: left of the dealer first, the dealer last (active seats only)."""
    order, seat = [], ref.dealer
    for _ in range(sum(1 for c in ref.chips if c > 0)):
        seat = ref.next_active(seat, 1)
        order.append(seat)
    return order


def make_oracle(
    ref: Ref,
    post: dict,
    mover: int | None,
    deck_top: list[str] | None = None,
    tiptop_top: list[int] | None = None,
) -> Oracle:
    """Orders for the reference's shuffles, read from the engine's state after the step.

    Every order is checked to be a permutation of exactly the cards the spec says
    are shuffled (OAO-07/OAO-37 whole deck and all 5 Tip Top cards; OAO-32 play pile
    incl. the card just played; OAO-29 the discarded Tip Top cards, not the current).
    """

    def oracle(kind: str, cards: list) -> list:
        if kind == "deal":
            if deck_top:  # §6 deck_top: first = top, then block dealing (OAO-07)
                dealt = sum(ref.chips[s] for s in deal_order(ref))
                assert len(deck_top) >= dealt
                order = list(deck_top[:dealt]) + top_first(post["draw_pile"])
            else:
                order = [c for s in deal_order(ref) for c in post["hands"][s]]
                order += top_first(post["draw_pile"])
        elif kind == "tiptop_deal":
            order = [post["tiptop"], *top_first(post["tiptop_pile"])]
            if tiptop_top:
                assert order[: len(tiptop_top)] == list(tiptop_top), (order, tiptop_top)
        elif kind == "draw":
            drawn = Counter(post["hands"][mover]) - Counter(ref.hands[mover])
            assert sum(drawn.values()) == 1, ("reshuffle draw", post["hands"][mover], ref.hands[mover])
            order = list(drawn) + top_first(post["draw_pile"])
        elif kind == "tiptop":
            if post["round"] == ref.round and post["to_move"] >= 0:
                order = [post["tiptop"], *top_first(post["tiptop_pile"])]
            else:  # the engine ended the round: pick a new L below T if any exists
                order = sorted(cards, key=lambda v: (v >= ref.total, v))
        else:  # pragma: no cover
            raise AssertionError(kind)
        assert Counter(order) == Counter(cards), (kind, sorted(map(str, order)), sorted(map(str, cards)))
        return order

    return oracle


def compare(ref: Ref, state) -> None:
    """The engine's state against the reference, as far as the spec fixes it."""
    d = state.to_dict()
    snap = state.snapshot()
    if ref.game_over:
        assert state.is_terminal()
        assert d["out_order"] == ref.eliminated
        return
    assert state.is_truncated() == ref.truncated
    if ref.truncated:  # the engine ends a truncated game: no player to move any more
        assert snap["to_move"] in (ref.to_move, -1)
    else:
        assert not state.is_terminal()
        assert snap["to_move"] == ref.to_move
    for key, want in ( ("round", ref.round), ("dealer", ref.dealer),
                      ("total", ref.total), ("tiptop", ref.limit), ("direction", ref.direction),
                      ("chips", ref.chips), ("plays", ref.plays)):  # fmt: skip
        assert snap[key] == want, (key, snap[key], want)
    assert d["round_plays"] == ref.round_plays
    assert d["out_order"] == ref.eliminated
    # §8 snapshot: hands sorted in action-space order, [] when eliminated
    assert snap["hands"] == [sort_hand(h) if ref.chips[s] else [] for s, h in enumerate(ref.hands)]
    assert snap["draw_pile"] == len(ref.draw)
    assert snap["play_pile"] == len(ref.play_pile)
    assert snap["tiptop_pile"] == len(ref.tiptop_pile)
    assert top_first(d["draw_pile"]) == ref.draw  # OAO-12: draws come off the top in order
    assert d["play_pile"] == dict(Counter(ref.play_pile))
    assert top_first(d["tiptop_pile"]) == ref.tiptop_pile
    assert sorted(d["tiptop_discards"]) == sorted(ref.tiptop_discards)
    # OAO-44 invariants, checked on the reference too
    assert sum(len(ref.hands[s]) for s in range(ref.n) if ref.chips[s]) + len(ref.draw) + len(
        ref.play_pile
    ) == len(ref.full_deck())
    assert sorted([*ref.tiptop_pile, *ref.tiptop_discards, ref.limit]) == TIPTOP
    assert all(len(ref.hands[s]) == ref.chips[s] for s in range(ref.n) if ref.chips[s])
    assert 0 <= ref.total <= ref.limit
    np.testing.assert_allclose(state.returns(), ref.returns, atol=1e-9)


def engine_legal(state) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def new_ref(params: dict) -> Ref:
    return Ref(
        n=params.get("num_players", 4),
        starting_chips=params.get("starting_chips", 4),
        deck_counts=dict(params.get("deck_counts", DEFAULT_DECK)),
        minus10_rule=params.get("minus10_rule", "require_10"),
        reward_mode=params.get("reward_mode", "placement"),
        max_plays=params.get("max_plays", 5000),
    )


def stacked_options(params: dict, rng: np.random.Generator) -> dict:
    """§6 reset options: a random deck_top covering the first deal, a random tiptop_top."""
    ref = new_ref(params)
    deck = ref.full_deck()
    rng.shuffle(deck)
    k = ref.n * ref.starting_chips + int(rng.integers(0, 6))
    tip = [int(v) for v in rng.permutation(TIPTOP)[: int(rng.integers(1, 6))]]
    return {"deck_top": deck[: min(k, len(deck))], "tiptop_top": tip}


def start_pair(params: dict, state, options: dict | None) -> Ref:
    d0 = state.to_dict()
    ref = new_ref(params)
    first = params.get("first_dealer")
    if first is None:  # OAO-05: random from the reset seed; read it from the engine
        first = d0["dealer"]
        assert 0 <= first < ref.n
    ref.chips = [ref.starting_chips] * ref.n  # needed by the oracle's deal order
    ref.dealer = first
    opts = options or {}
    ref.start(first, make_oracle(ref, d0, None, opts.get("deck_top"), opts.get("tiptop_top")))
    return ref


def choose(legal: set[str], rng: np.random.Generator) -> str:
    acts = sorted(legal)
    return acts[int(rng.integers(len(acts)))]


def engine_playout(params: dict, seed: int, stacked: bool) -> int:
    """Random legal playout through the engine API; returns the number of decisions."""
    rng = np.random.default_rng(seed + 1000)
    options = stacked_options(params, rng) if stacked else None
    game = OverAndOutGame(**params)
    state = game.new_initial_state(np.random.default_rng(seed), options)
    ref = start_pair(params, state, options)
    compare(ref, state)
    decisions = 0
    while not ref.game_over and not ref.truncated:
        legal = ref.legal()
        assert engine_legal(state) == legal, (engine_legal(state), legal, ref.hands[ref.to_move])
        mask = state.legal_mask()
        assert {state.action_to_string(int(a)) for a in np.flatnonzero(mask)} == legal
        action = choose(legal, rng)
        mover = ref.to_move
        state.apply(state.string_to_action(action))
        ref.step(action, make_oracle(ref, state.to_dict(), mover))
        compare(ref, state)
        decisions += 1
        if decisions % 5 == 0:  # to_dict/from_dict carry the whole state (DESIGN.md)
            d = state.to_dict()
            state = type(state).from_dict(d)
            assert state.to_dict() == d
            compare(ref, state)
    assert state.is_terminal() == (ref.game_over or ref.truncated)
    assert state.is_truncated() == ref.truncated
    np.testing.assert_allclose(state.returns(), ref.returns, atol=1e-9)
    if ref.reward_mode == "placement" or ref.n == 2:  # §5 zero-sum
        assert abs(sum(ref.returns)) < 1e-9
    return decisions


# Configurations: every parameter of §6 and every player count.
SMALL_DECK = {"0": 3, "1": 3, "2": 2, "x2": 2, "-10": 2, "spin-out": 2, "top-out": 1, "topsy-turvy": 1}
TOPSY_DECK = {"0": 6, "3": 6, "5": 8, "x2": 2, "-10": 3, "top-out": 4, "topsy-turvy": 12}
MINUS_DECK = {"4": 6, "5": 8, "x2": 4, "-10": 12, "spin-out": 4, "0": 2}
NUMBERS_DECK = {"3": 10, "4": 10, "5": 10, "spin-out": 3}
ZERO_DECK = {"0": 9}
CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {},
    {"num_players": 5},
    {"num_players": 6, "first_dealer": 5},
    {"num_players": 7, "starting_chips": 2},
    {"num_players": 8},
    {"num_players": 3, "minus10_rule": "lose_below_zero"},
    {"num_players": 5, "minus10_rule": "lose_below_zero", "reward_mode": "winner_only"},
    {"num_players": 4, "reward_mode": "winner_only", "first_dealer": 2},
    {"num_players": 2, "reward_mode": "winner_only", "starting_chips": 3},
    {"num_players": 5, "starting_chips": 1},
    {"num_players": 8, "starting_chips": 1, "reward_mode": "winner_only"},
    {"num_players": 3, "max_plays": 40},
    {"num_players": 6, "max_plays": 90, "starting_chips": 2},
    {"num_players": 4, "max_plays": 1},
    {"num_players": 5, "max_plays": 60, "starting_chips": 1, "reward_mode": "winner_only"},
    {"num_players": 4, "deck_counts": SMALL_DECK, "starting_chips": 3},
    {"num_players": 3, "deck_counts": SMALL_DECK, "minus10_rule": "lose_below_zero"},
    {"num_players": 8, "deck_counts": SMALL_DECK, "starting_chips": 2},
    {"num_players": 3, "deck_counts": TOPSY_DECK},
    {"num_players": 6, "deck_counts": TOPSY_DECK, "starting_chips": 2, "reward_mode": "winner_only"},
    {"num_players": 4, "deck_counts": MINUS_DECK, "minus10_rule": "lose_below_zero"},
    {"num_players": 2, "deck_counts": MINUS_DECK},
    {"num_players": 5, "deck_counts": NUMBERS_DECK, "starting_chips": 2},
    {"num_players": 2, "deck_counts": ZERO_DECK, "max_plays": 30},
    {"num_players": 4, "deck_counts": {"0": 4, "5": 4}, "starting_chips": 1, "max_plays": 50},
]


def cfg_id(p: dict) -> str:
    return "-".join(f"{k}={'custom' if k == 'deck_counts' else v}" for k, v in sorted(p.items())) or "default"


@pytest.mark.parametrize("params", CONFIGS, ids=[cfg_id(p) for p in CONFIGS])
def test_engine_matches_reference(params: dict) -> None:
    """OAO-01..OAO-44, §5, §6: legal sets, every state after every play (board, hands,
    piles in order, chips, dealer, direction, plays, eliminations), terminal status and
    returns agree with the reference over random playouts, plain and stacked (§6 options)."""
    decisions = 0
    for seed in range(2):
        decisions += engine_playout(params, seed, stacked=bool(seed % 2))
    assert decisions > 0


def ref_observation(ref: Ref, me: int) -> np.ndarray:
    """§7 encoding as documented in the env docstring (direction as 1 = counter-clockwise,
    a documented change from §7's ±1 so that the Box stays [0, 1])."""
    o = np.zeros(60, dtype=np.float32)
    hand = Counter(ref.hands[me]) if ref.chips[me] else Counter()
    played = Counter(ref.play_pile)
    for k, c in enumerate(CARDS):
        o[k] = hand[c] / 4
        o[22 + k] = played[c] / max(1, ref.deck_counts.get(c, 0))
    o[11] = ref.total / 66
    o[12 + TIPTOP.index(ref.limit)] = 1
    for v in ref.tiptop_pile:  # OAO-30
        o[17 + TIPTOP.index(v)] = 1
    o[33] = len(ref.draw) / len(ref.full_deck())
    o[34] = 1.0 if ref.direction == -1 else 0.0
    for s in range(ref.n):
        k = (s - me) % ref.n
        o[35 + 3 * k] = float(ref.chips[s] > 0)
        o[36 + 3 * k] = ref.chips[s] / 4
        o[37 + 3 * k] = float(s == ref.dealer)
    o[59] = min(1.0, ref.round_plays / 100)
    return o


def env_playout(params: dict, seed: int, illegal_at: int | None = None) -> int:
    """Random playout through ``env()``: per-step rewards, terminations, truncations and
    the agent selection (§3 'AEC view', §5, OAO-40, OAO-41, OAO-43) against the reference."""
    rng = np.random.default_rng(seed + 7)
    e = make_env(**params)
    e.reset(seed=seed)
    raw = e.unwrapped
    ref = start_pair(params, raw.state, None)
    compare(ref, raw.state)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    expected = None  # final returns once decided
    live = 0
    while e.agents:
        agent = e.agent_selection
        obs, rew, term, trunc, _ = e.last()
        totals[agent] += rew
        if term or trunc:
            if not (ref.game_over or ref.truncated):  # §8: to_move during a dead step
                assert raw.snapshot()["to_move"] == ref.to_move
            e.step(None)
            continue
        assert expected is None
        np.testing.assert_allclose(obs["observation"], ref_observation(ref, ref.to_move), atol=1e-6)
        assert agent == f"player_{ref.to_move}"
        for other in e.agents:  # OAO-40: only the player to move has a non-zero mask
            if other != agent:
                o = e.observe(other)
                assert not o["action_mask"].any()
                np.testing.assert_allclose(o["observation"], ref_observation(ref, int(other[7:])), atol=1e-6)
        assert {raw.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"])} == ref.legal()
        if illegal_at is not None and live == illegal_at:  # OAO-43
            masked = np.flatnonzero(obs["action_mask"] == 0)
            e.step(int(masked[rng.integers(masked.size)]))
            assert all(e.terminations[a] for a in e.agents)
            for a in e.agents:
                assert e.rewards[a] == (-1.0 if a == agent else 0.0)
            expected = list(ref.returns)
            expected[ref.to_move] -= 1.0
            continue
        action = choose(ref.legal(), rng)
        mover = ref.to_move
        e.step(raw.string_to_action(action))
        ref.step(action, make_oracle(ref, raw.state.to_dict(), mover))
        compare(ref, raw.state)
        live += 1
        for s in range(ref.n):  # §5: this step's rewards
            if f"player_{s}" in e.rewards:
                assert e.rewards[f"player_{s}"] == pytest.approx(ref.step_rewards[s]), (s, e.rewards)
        for s in ref.newly_terminated:  # OAO-41: terminated in the eliminating step
            assert e.terminations[f"player_{s}"]
        if ref.game_over:
            assert all(e.terminations[a] for a in e.agents)
        elif ref.truncated:  # §5 truncation: all remaining agents (one eliminated in this
            # same step is terminated instead, OAO-41 / OAO-S12)
            for a in e.agents:
                out = int(a[7:]) in ref.newly_terminated
                assert e.truncations[a] != out and e.terminations[a] == out, (a, out)
        elif ref.newly_terminated:  # OAO-41: the dead step comes first
            assert e.agent_selection == f"player_{ref.newly_terminated[0]}"
        else:
            assert e.agent_selection == f"player_{ref.to_move}"
        if ref.game_over or ref.truncated:
            expected = list(ref.returns)
    assert expected is not None
    assert [totals[f"player_{s}"] for s in range(ref.n)] == pytest.approx(expected)
    return live


ENV_CONFIGS = [
    {"num_players": 2},
    {"num_players": 5, "starting_chips": 1},
    {"num_players": 4, "starting_chips": 2, "reward_mode": "winner_only"},
    {"num_players": 6, "starting_chips": 1, "max_plays": 25},
    {"num_players": 4, "starting_chips": 1, "max_plays": 12, "reward_mode": "winner_only"},
    {"num_players": 3, "deck_counts": TOPSY_DECK, "minus10_rule": "lose_below_zero"},
]


@pytest.mark.parametrize("params", ENV_CONFIGS, ids=[cfg_id(p) for p in ENV_CONFIGS])
def test_env_rewards_match_reference(params: dict) -> None:
    """§3 AEC view, §5 placement / winner-only / truncation rewards, OAO-40, OAO-41:
    per-step rewards, terminations, truncations and dead steps through ``env()``."""
    assert env_playout(params, 0) > 0
    assert env_playout(params, 1) > 0


@pytest.mark.parametrize("seed", range(4))
def test_env_illegal_action_matches_reference(seed: int) -> None:
    """OAO-43: an illegal action ends the game, mover -1, others 0; rewards already paid
    to eliminated agents stand."""
    params = {"num_players": 2 + seed, "starting_chips": 1 + seed % 2}
    env_playout(params, seed, illegal_at=3 + 5 * seed)


# ---------------------------------------------------------------------------
# The reference against the spec's own worked examples (§9), engine alongside
# ---------------------------------------------------------------------------


def scripted(params: dict, options: dict, actions: list[str], seed: int = 0) -> tuple[Ref, object]:
    """Play ``actions`` on engine and reference, comparing after every play."""
    game = OverAndOutGame(**params)
    state = game.new_initial_state(np.random.default_rng(seed), options)
    ref = start_pair(params, state, options)
    compare(ref, state)
    for action in actions:
        assert engine_legal(state) == ref.legal()
        mover = ref.to_move
        state.apply(state.string_to_action(action))
        ref.step(action, make_oracle(ref, state.to_dict(), mover))
        compare(ref, state)
    return ref, state


def test_reference_s01_legality_and_flow() -> None:
    """OAO-S01: OAO-07 block deal, OAO-18..OAO-21, OAO-23 legal sets and totals."""
    ref, _ = scripted({"num_players": 2, "first_dealer": 1},
                      {"deck_top": ["5", "x2", "-10", "1", "x2", "3", "0", "top-out",
                                    "4", "2", "0", "5", "3", "1"], "tiptop_top": [22]}, [])  # fmt: skip
    assert [sort_hand(h) for h in ref.hands] == [["1", "5", "x2", "-10"], ["0", "3", "x2", "top-out"]]
    assert (ref.to_move, ref.limit, ref.total, len(ref.draw)) == (0, 22, 0, 64)
    legal_before = [{"play 1", "play 5", "play x2"}, {"play 0", "play 3", "play x2", "play top-out"},
                    {"play 1", "play 4", "play x2", "play -10"}, {"play 0", "play 2", "play top-out"},
                    {"play 0", "play -10"}, {"play 0", "play 3", "play 5", "play top-out"}]  # fmt: skip
    plays = ["play 5", "play x2", "play x2", "play 2", "play -10", "play top-out"]
    totals = [5, 10, 20, 22, 12, 22]
    for before, action, total in zip(legal_before, plays, totals, strict=True):
        assert ref.legal() == before
        ref.step(action, lambda kind, cards: cards)
        assert ref.total == total
    assert ref.legal() == {"play 0"}
    assert [sort_hand(h) for h in ref.hands] == [["0", "1", "3", "4"], ["0", "1", "3", "5"]]
    assert (len(ref.draw), len(ref.play_pile), ref.plays) == (58, 6, 6)


def test_reference_s02_s03_s09_round_losses() -> None:
    """OAO-S02 (OAO-15 bust), OAO-S03 (OAO-28 Topsy Turvy below T), OAO-S09 (OAO-21/OAO-42):
    chips, next dealer (OAO-36), first player (OAO-10), hand sizes (OAO-35)."""
    two = {"num_players": 2, "first_dealer": 1}
    ref, _ = scripted(two, {"deck_top": ["5", "5", "4", "4", "top-out", "0", "0", "0", "3", "1"],
                            "tiptop_top": [22]}, ["play 5", "play top-out"])  # fmt: skip
    assert ref.legal() == {"bust"}
    ref, _ = scripted(two, {"deck_top": ["5", "5", "4", "4", "top-out", "0", "0", "0", "3", "1"],
                            "tiptop_top": [22]}, ["play 5", "play top-out", "bust"])  # fmt: skip
    assert (ref.chips, ref.round, ref.dealer, ref.to_move, ref.total, ref.direction) == (
        [3, 4],
        2,
        0,
        1,
        0,
        1,
    )
    assert ([len(h) for h in ref.hands], len(ref.draw), len(ref.play_pile)) == ([3, 4], 65, 0)
    s03 = {"deck_top": ["top-out", "0", "0", "0", "topsy-turvy", "0", "0", "0", "1"], "tiptop_top": [33, 22]}
    ref, _ = scripted(two, s03, ["play top-out"])
    assert ref.legal() == {"play 0", "play topsy-turvy"}
    ref, _ = scripted(two, s03, ["play top-out", "play topsy-turvy"])
    assert (ref.chips, ref.round, ref.dealer, ref.to_move) == ([4, 3], 2, 0, 1)
    s09 = {"deck_top": ["-10", "0", "0", "0", "1", "1", "1", "1"], "tiptop_top": [22]}
    ref, _ = scripted(two, s09, [])
    assert ref.legal() == {"play 0"}
    ref, _ = scripted({**two, "minus10_rule": "lose_below_zero"}, s09, [])
    assert ref.legal() == {"play 0", "play -10"}
    ref, _ = scripted({**two, "minus10_rule": "lose_below_zero"}, s09, ["play -10"])
    assert (ref.chips, ref.round, ref.dealer, ref.to_move) == ([3, 4], 2, 0, 1)


def test_reference_s05_s06_spin_out() -> None:
    """OAO-S05 / OAO-S06: OAO-22, OAO-25, OAO-26."""
    ref, _ = scripted({"num_players": 3, "first_dealer": 2},
                      {"deck_top": ["spin-out", "1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3",
                                    "0", "0", "0", "0"], "tiptop_top": [22]}, [])  # fmt: skip
    movers = []
    for action in ("play spin-out", "play 3", "play 2", "play 1"):
        movers.append(ref.to_move)
        ref.step(action, lambda kind, cards: cards)
    assert (movers, ref.to_move, ref.direction, ref.total) == ([0, 2, 1, 0], 2, -1, 6)
    ref, _ = scripted({"num_players": 2, "first_dealer": 1},
                      {"deck_top": ["spin-out", "1", "1", "1", "2", "2", "2", "2", "0", "0"],
                       "tiptop_top": [22]}, ["play spin-out", "play 2", "play 1"])  # fmt: skip
    assert (ref.to_move, ref.direction, ref.total) == (1, -1, 3)


def test_reference_s07_reshuffle_and_truncation() -> None:
    """OAO-S07: OAO-32 (the card just played is reshuffled too), §5 truncation."""
    params = {"num_players": 2, "first_dealer": 1, "deck_counts": {"0": 9}, "max_plays": 6}
    ref, _ = scripted(params, {}, [])
    sizes = []
    for _ in range(6):
        ref.step("play 0", lambda kind, cards: cards)
        sizes.append((len(ref.draw), len(ref.play_pile)))
    assert sizes == [(0, 1), (1, 0), (0, 1), (1, 0), (0, 1), (1, 0)]
    assert ref.truncated and ref.returns == [0.0, 0.0]


def test_reference_s08_s12_elimination_rewards() -> None:
    """OAO-S08 (OAO-34, OAO-36 skipping an eliminated seat, §5 placement / winner-only) and
    OAO-S12 (§5 truncation after an elimination)."""
    s08 = {"deck_top": ["5", "top-out", "0", "5", "5", "5"], "tiptop_top": [22]}
    for mode, want in (("placement", [-1.0, 0.0, 1.0]), ("winner_only", [-1.0, -1.0, 1.0])):
        params = {"num_players": 3, "first_dealer": 2, "starting_chips": 1, "reward_mode": mode}
        ref, state = scripted(params, s08, ["play 5", "play top-out", "play 0", "bust"])
        assert (ref.chips, ref.round, ref.dealer, ref.to_move) == ([0, 1, 1], 2, 1, 2)
        assert ref.returns[0] == -1.0
        rng = np.random.default_rng(3)
        while not ref.game_over:
            action = choose(ref.legal(), rng)
            mover = ref.to_move
            state.apply(state.string_to_action(action))
            ref.step(action, make_oracle(ref, state.to_dict(), mover))
            compare(ref, state)
        assert sorted(ref.returns) == want
    params = {"num_players": 4, "first_dealer": 3, "starting_chips": 1, "max_plays": 5}
    s12 = {"deck_top": ["5", "top-out", "0", "0", "5", "5", "5", "5"], "tiptop_top": [22]}
    ref, _ = scripted(params, s12, ["play 5", "play top-out", "play 0", "play 0", "bust"])
    assert ref.truncated and ref.returns == pytest.approx([-1.0, 1 / 3, 1 / 3, 1 / 3])


def test_reference_s10_tiptop_exhaustion() -> None:
    """OAO-S10: OAO-29, the discarded Tip Top cards (not the current one) form the new pile."""
    params = {"num_players": 2, "first_dealer": 1, "deck_counts": {"0": 20, "topsy-turvy": 20}}
    deck_top = ["topsy-turvy"] * 4 + ["0"] * 4 + ["topsy-turvy"] * 4 + ["0"] * 4
    for seed in range(4):
        ref, _ = scripted(params, {"deck_top": deck_top, "tiptop_top": [22, 33, 44, 55, 66]},
                          ["play topsy-turvy", "play 0"] * 4 + ["play topsy-turvy"], seed=seed)  # fmt: skip
        assert ref.limit in (22, 33, 44, 55) and len(ref.tiptop_pile) == 3 and ref.chips == [4, 4]


def test_game_over_beats_truncation() -> None:
    """§5: truncation only 'after any agent step that leaves the game unfinished'; the step
    that eliminates the last opponent at plays = max_plays ends the game with ±1 (OAO-38)."""
    params = {"num_players": 2, "first_dealer": 1, "starting_chips": 1, "max_plays": 3}
    ref, state = scripted(params, {"deck_top": ["5", "top-out", "5", "5"], "tiptop_top": [22]},
                          ["play 5", "play top-out", "bust"])  # fmt: skip
    assert ref.game_over and not ref.truncated
    assert state.is_terminal() and not state.is_truncated()
    assert list(state.returns()) == [-1.0, 1.0]


def test_exact_deck_reshuffles_on_first_draw() -> None:
    """OAO-08 / OAO-32: a deck exactly the size of the deal leaves an empty draw pile; the
    first play's card is reshuffled and drawn back."""
    params = {"num_players": 3, "deck_counts": {"0": 6, "5": 6}, "max_plays": 300}
    for seed in range(3):
        engine_playout(params, seed, stacked=False)


def test_notation_and_options() -> None:
    """§8 notation (case-insensitive, whitespace collapsed; illegal index -> no legal string),
    §6 reset options raise ValueError for unavailable cards, OAO-05 random first dealer."""
    game = OverAndOutGame(num_players=2, first_dealer=1)
    state = game.new_initial_state(np.random.default_rng(0), {"deck_top": ["spin-out", "1", "1", "1"]})
    assert state.string_to_action("  PLAY   Spin-Out ") == state.string_to_action("play spin-out")
    for a in range(12):
        text = state.action_to_string(a)
        assert (text in engine_legal(state)) == bool(state.legal_mask()[a])
    with pytest.raises(ValueError, match=r"deck_top asks for more"):
        game.new_initial_state(np.random.default_rng(0), {"deck_top": ["x2"] * 5})
    with pytest.raises(ValueError, match=r"not a Tip Top value"):
        game.new_initial_state(np.random.default_rng(0), {"tiptop_top": [77]})
    with pytest.raises(ValueError, match=r"twice"):
        game.new_initial_state(np.random.default_rng(0), {"tiptop_top": [22, 22]})
    dealers = {OverAndOutGame(num_players=4).new_initial_state(np.random.default_rng(s)).dealer
               for s in range(40)}  # fmt: skip
    assert dealers == {0, 1, 2, 3}


def test_reset_options_round_one_only() -> None:
    """§6: deck_top / tiptop_top apply to round 1 only; later deals are shuffled (OAO-37)."""
    stacked = {"deck_top": ["5", "5", "4", "4", "top-out", "0", "0", "0", "3", "1"], "tiptop_top": [22]}
    hands = set()
    for seed in range(4):
        ref, state = scripted(
            {"num_players": 2, "first_dealer": 1}, stacked, ["play 5", "play top-out", "bust"], seed
        )
        assert ref.round == 2
        hands.add(tuple(sort_hand(ref.hands[1])))
    assert len(hands) > 1
