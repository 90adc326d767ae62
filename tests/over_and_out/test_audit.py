"""Audit of the engine against the spec: edge cases beyond the §9 scenarios.

Each test cites the rule IDs it checks. Positions are stacked with the §6 reset options
and played through ``env()`` unless a forced engine state is simpler.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from envs.over_and_out.cards import TIPTOP_VALUES
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out_v0 import env
from tests.over_and_out.helpers import engine, legal, legal_strings, play, snap, table

SNAPSHOT_KEYS = [
    "to_move",
    "round",
    "dealer",
    "total",
    "tiptop",
    "direction",
    "chips",
    "hands",
    "draw_pile",
    "play_pile",
    "tiptop_pile",
    "plays",
]


def _placements(n: int) -> list[float]:
    return [float(Fraction(-1) + Fraction(2 * (j - 1), n - 1)) for j in range(1, n + 1)]


# ------------------------------------------------------------------ dealing and options
@pytest.mark.parametrize(("n", "dealer"), [(4, 1), (3, 0), (8, 7), (8, 3)])
def test_deck_top_block_dealing_order(n: int, dealer: int) -> None:
    """OAO-07, §6 deck_top: block dealing from the top, starting left of the dealer, dealer
    last; the cards after the hands are the first draws."""
    kinds = ["0", "1", "2", "3", "4", "5", "x2", "-10"]
    deck_top = [kinds[i % len(kinds)] for i in range(4 * n)] + ["spin-out", "top-out"]
    order = [(dealer + i) % n for i in range(1, n + 1)]
    e = table(deck_top, [55], num_players=n, first_dealer=dealer)
    s = snap(e)
    for block, seat in enumerate(order):
        expect = sorted(deck_top[4 * block : 4 * block + 4], key=kinds.index)
        assert s["hands"][seat] == expect
    assert s["to_move"] == order[0] and s["tiptop"] == 55 and s["dealer"] == dealer
    assert s["draw_pile"] == 72 - 4 * n and s["tiptop_pile"] == 4


def test_deck_top_with_starting_chips_and_random_dealer() -> None:
    """OAO-03, OAO-05, OAO-07: hands of starting_chips cards; a random dealer still deals
    the stacked cards from its left."""
    deck_top = ["1", "2", "3", "4", "5", "0"]
    for seed in range(6):
        e = table(deck_top, seed=seed, num_players=3, starting_chips=2)
        s = snap(e)
        order = [(s["dealer"] + i) % 3 for i in range(1, 4)]
        for block, seat in enumerate(order):
            assert s["hands"][seat] == sorted(deck_top[2 * block : 2 * block + 2])


def test_tiptop_top_order_and_round_one_only() -> None:
    """§6 tiptop_top: first value turned up as L, the next ones come in order under it;
    both options apply to round 1 only."""
    deck_top = ["topsy-turvy"] * 2 + ["0"] * 2 + ["topsy-turvy", "0"]
    e = table(deck_top, [33, 66, 55], num_players=2, first_dealer=1, starting_chips=2)
    assert snap(e)["tiptop"] == 33
    play(e, "play topsy-turvy")
    assert (snap(e)["tiptop"], snap(e)["tiptop_pile"]) == (66, 3)
    play(e, "play 0")
    play(e, "play topsy-turvy")
    assert (snap(e)["tiptop"], snap(e)["tiptop_pile"]) == (55, 2)


def test_deck_top_unavailable_cards() -> None:
    """§6: cards deck_counts does not hold raise ValueError."""
    e = env(num_players=2, deck_counts={"0": 8, "5": 1})
    e.reset(seed=0, options={"deck_top": ["5"]})
    for bad in (["5", "5"], ["1"], ["x3"]):
        with pytest.raises(ValueError, match="deck_top"):
            e.reset(seed=0, options={"deck_top": bad})
    with pytest.raises(ValueError, match="tiptop_top"):
        e.reset(seed=0, options={"tiptop_top": [77]})


# ------------------------------------------------------------------------- card values
@pytest.mark.parametrize(
    ("total", "limit", "x2_legal"), [(0, 22, True), (11, 22, True), (12, 22, False), (33, 66, True)]
)
def test_x2_bounds(total: int, limit: int, x2_legal: bool) -> None:
    """OAO-20: x2 is playable iff 2T <= L; at T = 0 it is legal and changes nothing."""
    state = engine(
        ["x2", "0", "0", "0", "0", "0", "0", "0"], [limit], total=total, num_players=2, first_dealer=1
    )
    assert ("play x2" in legal_strings(state)) == x2_legal
    if x2_legal:
        state.apply(6)
        assert state.total == 2 * total and state.current_player() == 1


@pytest.mark.parametrize("limit", TIPTOP_VALUES)
def test_top_out_at_the_limit(limit: int) -> None:
    """OAO-23: top-out is playable also when T = L (T stays L); play passes on."""
    state = engine(
        ["top-out", "5", "5", "5", "0", "0", "0", "0"], [limit], total=limit, num_players=2, first_dealer=1
    )
    assert legal_strings(state) == {"play top-out"}
    state.apply(9)
    assert (state.total, state.current_player(), state.round) == (limit, 1, 1)


@pytest.mark.parametrize(
    ("n", "total", "legal_"), [(5, 17, True), (5, 18, False), (1, 21, True), (1, 22, False)]
)
def test_number_cards_up_to_the_limit(n: int, total: int, legal_: bool) -> None:
    """OAO-13, OAO-19: a number card is playable iff T + n <= L (T = L allowed)."""
    state = engine([str(n)] * 4 + ["0"] * 4, [22], total=total, num_players=2, first_dealer=1)
    assert legal_strings(state) == ({f"play {n}"} if legal_ else {"bust"})


@pytest.mark.parametrize(
    ("rule", "total", "legal_", "after"),
    [
        ("require_10", 9, False, None),
        ("require_10", 10, True, 0),
        ("require_10", 22, True, 12),
        ("lose_below_zero", 9, True, "lost"),
        ("lose_below_zero", 0, True, "lost"),
        ("lose_below_zero", 10, True, 0),
        ("lose_below_zero", 15, True, 5),
    ],
)
def test_minus_ten_variants(rule: str, total: int, legal_: bool, after: int | str | None) -> None:
    """OAO-21, OAO-42: -10 needs T >= 10 by default; under lose_below_zero it is always
    playable and loses the round below 10 (no draw); at T >= 10 it subtracts 10 in both."""
    state = engine(
        ["-10", "5", "5", "5", "0", "0", "0", "0"],
        [22],
        total=total,
        num_players=2,
        first_dealer=1,
        minus10_rule=rule,
    )
    assert ("play -10" in legal_strings(state)) == legal_
    if not legal_:
        return
    state.apply(7)
    if after == "lost":
        assert (state.chips, state.round, state.dealer, state.current_player()) == ([3, 4], 2, 0, 1)
    else:
        assert (state.total, state.round, state.current_player()) == (after, 1, 1)
        assert len(state.hands[0]) == 4


def test_minus_ten_lose_below_zero_is_never_a_bust() -> None:
    """OAO-15, OAO-42, §7: under lose_below_zero a -10 in hand is playable, so bust is not legal
    even when every other card would exceed L."""
    state = engine(
        ["-10", "5", "5", "5", "0", "0", "0", "0"],
        [22],
        total=3,
        num_players=2,
        first_dealer=1,
        minus10_rule="lose_below_zero",
    )
    state.total = 20
    state._bits = -1
    assert legal_strings(state) == {"play -10"}


# -------------------------------------------------------------------------- Topsy Turvy
def test_topsy_turvy_equal_total_after_exhaustion() -> None:
    """OAO-28, OAO-29: after exhaustion the old L is not reshuffled; a new L equal to T is safe,
    a lower one loses without a draw."""
    deck_top = ["topsy-turvy"] * 4 + ["0"] * 4 + ["topsy-turvy"] * 4 + ["0"] * 4
    state = engine(
        deck_top,
        [22, 33, 44, 55, 66],
        num_players=2,
        first_dealer=1,
        deck_counts={"0": 20, "topsy-turvy": 20},
    )
    for _ in range(4):
        state.apply(10)
        state.apply(0)
    assert (state.tiptop, state.tiptop_pile, state.tiptop_discards) == (66, [], [22, 33, 44, 55])
    # the reshuffle order comes from the state's rng: a clone turns up the same new L
    probe = state.clone()
    probe.total = 0
    probe._bits = -1
    probe.apply(10)
    new_l = probe.tiptop
    assert new_l in (22, 33, 44, 55) and probe.tiptop_discards == [66]  # the old L is not reshuffled
    equal, lower = state.clone(), state.clone()
    for st, t in ((equal, new_l), (lower, new_l + 1)):
        st.total = t
        st._bits = -1
        st.apply(10)
    # new L == T: safe, T unchanged, the player draws
    assert (equal.round, equal.tiptop, equal.total, len(equal.tiptop_pile)) == (1, new_l, new_l, 3)
    assert equal.tiptop_discards == [66] and equal.chips == [4, 4] and len(equal.hands[0]) == 4
    # new L < T: the player of the Topsy Turvy loses the round (a new round is dealt)
    assert (lower.round, lower.chips) == (2, [3, 4])


def test_topsy_turvy_exhaustion_cycles() -> None:
    """OAO-29, OAO-44: pile sizes cycle 4,3,2,1,0,3,2,1,0,3...; L never repeats at once; the
    pile, the discards and L always make the 5 Tip Top cards."""
    state = engine(
        ["topsy-turvy"] * 4 + ["0"] * 4,
        num_players=2,
        first_dealer=1,
        deck_counts={"0": 30, "topsy-turvy": 30},
    )
    sizes = []
    for _ in range(30):
        if state.current_player() == 0 and "play topsy-turvy" in legal_strings(state):
            before = state.tiptop
            state.apply(10)
            assert state.tiptop != before and state.round == 1
            sizes.append(len(state.tiptop_pile))
        else:
            state.apply(state.legal_actions()[0])
        assert sorted([*state.tiptop_pile, *state.tiptop_discards, state.tiptop]) == list(TIPTOP_VALUES)
    assert sizes[:9] == [3, 2, 1, 0, 3, 2, 1, 0, 3]


def test_topsy_turvy_above_total_when_t_zero() -> None:
    """OAO-24, OAO-28: at T = 0 no new L can be lower: always safe, T unchanged, a card drawn."""
    state = engine(
        ["topsy-turvy", "0", "0", "0", "1", "1", "1", "1", "2"], [66, 22], num_players=2, first_dealer=1
    )
    state.apply(10)
    assert (state.tiptop, state.total, state.round, state.hands[0]) == (22, 0, 1, [0, 0, 0, 2])


# ---------------------------------------------------------------------------- Spin Out
def _eliminate(state: Any, seat: int) -> None:
    state.chips[seat] = 0
    state.hands[seat] = []
    state.out_order.append(seat)


def test_spin_out_two_active_after_elimination() -> None:
    """OAO-25, OAO-34: with 2 active players out of 3 seats, spin-out passes to the other one."""
    state = engine(["spin-out", *["0"] * 7, *["1"] * 6], num_players=3, first_dealer=2)
    _eliminate(state, 1)
    state.apply(8)
    assert (state.direction, state.current_player()) == (-1, 2)
    state.apply(state.legal_actions()[0])
    assert state.current_player() == 0


def test_spin_out_three_active_skips_eliminated() -> None:
    """OAO-04, OAO-26: counter-clockwise from seat 0 with seat 3 out goes to seat 2, then 1."""
    state = engine(["spin-out", *["0"] * 7, *["1"] * 8], num_players=4, first_dealer=3)
    _eliminate(state, 3)
    state.apply(8)
    assert (state.direction, state.current_player()) == (-1, 2)
    state.apply(state.legal_actions()[0])
    assert state.current_player() == 1
    state.apply(state.legal_actions()[0])
    assert state.current_player() == 0


def test_double_spin_out_and_new_round_direction() -> None:
    """OAO-22, OAO-26, OAO-37: a second spin-out restores clockwise; a new round starts
    clockwise even if the last one ended counter-clockwise."""
    state = engine(
        ["spin-out", "5", "5", "5", "spin-out", "0", "0", "0", "top-out", "0", "0", "0", "5", "5", "5"],
        [22],
        num_players=3,
        first_dealer=2,
    )
    state.apply(8)  # p0: ccw -> p2
    assert state.current_player() == 2
    state.apply(9)  # p2 top-out: T 22 -> p1
    assert (state.total, state.current_player()) == (22, 1)
    state.apply(8)  # p1 spin-out: cw -> p2
    assert (state.direction, state.current_player()) == (1, 2)
    state.apply(0)  # p2 -> p0
    assert state.current_player() == 0
    state2 = engine(
        ["spin-out", "5", "5", "5", "top-out", "0", "0", "0", "4", "4", "4", "4", "5", "0", "5"],
        [22],
        num_players=3,
        first_dealer=2,
    )
    state2.apply(8)  # p0 -> p2 (ccw)
    state2.apply(4)  # p2 plays 4 -> p1
    state2.apply(9)  # p1 top-out -> p0
    assert state2.current_player() == 0 and state2.hands[0] == [5, 5, 5, 5]
    state2.apply(11)  # p0 busts
    assert (state2.round, state2.direction, state2.dealer, state2.current_player()) == (2, 1, 0, 1)


# ----------------------------------------------------------------------- draw pile
def test_reshuffle_minimal_deck_draws_the_card_just_played() -> None:
    """OAO-32: with a deck exactly as large as the deal, every draw reshuffles the play pile,
    which holds only the card just played: the player draws it back."""
    state = engine(
        ["1", "1", "1", "1", "0", "0", "0", "0"], num_players=2, first_dealer=1, deck_counts={"1": 4, "0": 4}
    )
    assert state.draw_pile == []
    state.apply(1)
    assert (state.hands[0], state.total, state.draw_pile, sum(state.play_pile)) == ([1, 1, 1, 1], 1, [], 0)
    state.apply(0)
    assert state.hands[1] == [0, 0, 0, 0] and state.draw_pile == []


# --------------------------------------------------------------------- rounds and dealer
def test_dealer_eliminated_passes_deal_on() -> None:
    """OAO-34, OAO-36, OAO-10: the eliminated dealer's deal passes to the next active seat
    clockwise; play starts left of the new dealer."""
    e = table(["top-out", "0", "5", "5", "5", "5"], [22], num_players=3, first_dealer=0, starting_chips=1)
    assert snap(e)["to_move"] == 1
    play(e, "play top-out")
    play(e, "play 0")
    assert legal(e) == {"bust"}
    play(e, "bust")
    s = snap(e)
    assert (s["chips"], s["round"], s["dealer"], s["to_move"]) == ([0, 1, 1], 2, 1, 2)
    assert e.agent_selection == "player_0" and e.terminations["player_0"]
    e.step(None)
    assert e.agent_selection == "player_2" and e.agents == ["player_1", "player_2"]


def test_dealer_rotation_skips_several_eliminated_seats() -> None:
    """OAO-36: the deal passes from the previous dealer's seat to the next seat with chips."""
    state = engine(["5"] * 8 + ["top-out"] * 4 + ["0"] * 8, [22], num_players=5, first_dealer=4)
    for seat in (1, 2):
        _eliminate(state, seat)
    # seat 0 (left of dealer 4) opens; make it bust: T = 22 and a hand of 5s
    state.total = 22
    state._bits = -1
    assert state.legal_actions() == [11]
    state.apply(11)
    assert (state.round, state.dealer, state.current_player(), state.chips) == (2, 0, 3, [3, 0, 0, 4, 4])
    state.total = 22
    state.hands[3] = [5, 5, 5, 5]
    state._bits = -1
    state.apply(11)  # seat 3 busts; dealer 0 -> 3 (seats 1, 2 skipped)
    assert (state.round, state.dealer, state.current_player()) == (3, 3, 4)


# ------------------------------------------------------------------------------ rewards
def _random_game(params: dict[str, Any], seed: int) -> tuple[Any, list[dict[str, float]], list[str]]:
    """Random legal play through env(); returns the env, the rewards of each step, the order out."""
    e = env(**params)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    per_step, out = [], []
    while e.agents:
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
            continue
        mask = e.observe(agent)["action_mask"]
        acts = np.flatnonzero(mask)
        terms_before = dict(e.terminations)
        e.step(int(acts[rng.integers(acts.size)]))
        per_step.append(dict(e.rewards))
        out += [a for a, t in e.terminations.items() if t and not terms_before.get(a)]
    return e, per_step, out


@pytest.mark.parametrize("n", range(2, 9))
def test_placement_rewards_every_n(n: int) -> None:
    """§5, OAO-34, OAO-38: the j-th player out gets -1 + 2(j-1)/(N-1) in its elimination step,
    the winner +1 in the last; all other rewards 0; the sum is 0."""
    values = _placements(n)
    e, per_step, out = _random_game({"num_players": n, "starting_chips": 1}, seed=n)
    got: dict[str, float] = {}
    for rewards in per_step:
        for a, r in rewards.items():
            if r:
                assert a not in got
                got[a] = r
    assert len(out) == n
    for j, agent in enumerate(out[:-2], start=1):
        assert got.get(agent, 0.0) == pytest.approx(values[j - 1])
    # the last step eliminates the (N-1)-th player and makes the winner
    last = per_step[-1]
    ranked = sorted(last, key=lambda a: last[a])
    assert [last[a] for a in ranked[-2:]] == pytest.approx(values[-2:])
    assert sum(got.values()) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("n", [3, 5, 8])
def test_winner_only_rewards(n: int) -> None:
    """§5 winner_only: every eliminated player -1, the winner +1."""
    e, per_step, _ = _random_game(
        {"num_players": n, "starting_chips": 1, "reward_mode": "winner_only"}, seed=n
    )
    totals: dict[str, float] = {}
    for rewards in per_step:
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
    assert sorted(totals.values()) == [-1.0] * (n - 1) + [1.0]


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("mode", ["placement", "winner_only"])
def test_truncation_averages(n: int, mode: str) -> None:
    """§5 truncation: the m remaining players each get -1 + (2N - m - 1)/(N - 1) (placement;
    the sum stays 0) or 0 (winner_only); eliminated players keep their reward."""
    seen_m = set()
    for seed in range(12):
        for max_plays in (3, 9, 20):
            state = OverAndOutGame(
                num_players=n, starting_chips=1, max_plays=max_plays, reward_mode=mode
            ).new_initial_state(np.random.default_rng(seed))
            rng = np.random.default_rng(seed)
            while not state.is_terminal():
                acts = state.legal_actions()
                state.apply(acts[rng.integers(len(acts))])
            if not state.is_truncated():
                continue
            ret = state.returns()
            m = n - len(state.out_order)
            seen_m.add(m)
            assert state.plays == max_plays and m >= 2
            expect = -1 + (2 * n - m - 1) / (n - 1) if mode == "placement" else 0.0
            for s in state.active_seats():
                assert ret[s] == pytest.approx(expect)
            for j, s in enumerate(state.out_order, start=1):
                assert ret[s] == pytest.approx(_placements(n)[j - 1] if mode == "placement" else -1.0)
            if mode == "placement":
                assert ret.sum() == pytest.approx(0.0, abs=1e-12)
    assert seen_m


def test_truncation_by_bust_deals_next_round_first() -> None:
    """§3, §5: a bust that is the max_plays-th play ends its round (chip lost, next round dealt),
    then the game is truncated: rewards 0 for all when nobody is out."""
    e = table(
        ["5", "5", "5", "5", "top-out", "0", "0", "0", "5"], [22], num_players=2, first_dealer=1, max_plays=3
    )
    play(e, "play 5")
    play(e, "play top-out")
    play(e, "bust")
    s = snap(e)
    assert (s["chips"], s["round"], s["plays"]) == ([3, 4], 2, 3)
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_game_end_beats_truncation() -> None:
    """§5: a step that ends the game by elimination is not a truncation, even at max_plays."""
    e = table(["5", "top-out", "5"], [22], num_players=2, first_dealer=1, starting_chips=1, max_plays=3)
    play(e, "play 5")
    play(e, "play top-out")
    play(e, "bust")
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_max_plays_one() -> None:
    """§5, §6: max_plays = 1 truncates after the first play."""
    e = table(num_players=3, max_plays=1)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert all(e.truncations.values()) and snap(e)["plays"] == 1


def test_illegal_action_after_elimination() -> None:
    """OAO-43, OAO-S11: an illegal index ends the game: mover -1, the others 0, all terminated."""
    e = table(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    assert legal(e) == {"play 1", "play 2", "play 3", "play 4"}
    e.step(11)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(e.terminations.values())


# ------------------------------------------------------------------------- §8 notation
def test_snapshot_format() -> None:
    """§8: exact keys in order, plain Python types, hands sorted in action-space order."""
    deck_top = ["topsy-turvy", "top-out", "spin-out", "-10", "x2", "5", "0", "1"]
    e = table(deck_top, [44], num_players=2, first_dealer=1)
    s = snap(e)
    assert list(s) == SNAPSHOT_KEYS
    assert s["hands"] == [["-10", "spin-out", "top-out", "topsy-turvy"], ["0", "1", "5", "x2"]]
    assert s["direction"] == 1 and s["round"] == 1 and s["plays"] == 0 and s["play_pile"] == 0
    for key in SNAPSHOT_KEYS:
        v = s[key]
        if key in ("chips",):
            assert all(type(x) is int for x in v)
        elif key == "hands":
            assert all(type(t) is str for h in v for t in h)
        else:
            assert type(v) is int, key
    play(e, "play spin-out")
    assert type(snap(e)["direction"]) is int and snap(e)["direction"] == -1


def test_snapshot_to_move_during_dead_step() -> None:
    """§8, OAO-41: during the eliminated agent's dead step, to_move names the player to play."""
    e = table(["5", "top-out", "0", "5", "5", "5"], [22], num_players=3, first_dealer=2, starting_chips=1)
    for action in ("play 5", "play top-out", "play 0", "bust"):
        play(e, action)
    assert e.agent_selection == "player_0" and snap(e)["to_move"] == 2
    assert snap(e)["hands"][0] == [] and snap(e)["chips"] == [0, 1, 1]
    e.step(None)
    assert e.agent_selection == "player_2"


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("play 0", 0),
        (" PLAY   5 ", 5),
        ("Play X2", 6),
        ("play -10", 7),
        ("play   Spin-Out", 8),
        ("PLAY TOP-OUT", 9),
        ("play topsy-turvy", 10),
    ],
)
def test_string_to_action_canonical(text: str, index: int) -> None:
    """§8: case-insensitive, whitespace-tolerant reading of every card token."""
    deck_top = ["0", "5", "x2", "spin-out", "top-out", "topsy-turvy", "-10", "1"]
    state = engine(deck_top, [22], total=10, num_players=2, first_dealer=1, starting_chips=4)
    state.hands[0] = sorted([0, 5, 6, 7, 8, 9, 10])
    state._bits = -1
    assert state.string_to_action(text) == index
    assert state.action_to_string(index) == " ".join(text.lower().split())


def test_notation_errors() -> None:
    """§8: malformed text and cards not held / not playable raise ValueError saying what is
    expected; an illegal index reads 'illegal <index>'."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    for bad in ("play", "play 6", "bust now", "play spin out", "", "x2"):
        with pytest.raises(ValueError, match="expected"):
            state.string_to_action(bad)
    for not_legal in ("play 5", "bust", "play top-out"):
        with pytest.raises(ValueError, match="not legal"):
            state.string_to_action(not_legal)
    assert state.action_to_string(11) == "illegal 11"
    assert state.action_to_string(12) == "illegal 12"
    assert state.action_to_string(-1) == "illegal -1"
    legal_set = {state.action_to_string(a) for a in state.legal_actions()}
    assert legal_set == {"play 1", "play 2", "play 3", "play 4"}


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"num_players": 9}, ["num_players", "2", "8"]),
        ({"starting_chips": 0}, ["starting_chips", "1", "4"]),
        ({"minus10_rule": "always"}, ["minus10_rule", "require_10", "lose_below_zero"]),
        ({"reward_mode": "rank"}, ["reward_mode", "placement", "winner_only"]),
        ({"first_dealer": -1}, ["first_dealer", "None"]),
        ({"deck_counts": {"six": 4}}, ["deck_counts", "six"]),
        ({"num_players": 8, "deck_counts": {"0": 31}}, ["deck_counts", "32"]),
        ({"max_plays": 0}, ["max_plays"]),
        ({"colour": 1}, ["colour"]),
    ],
)
def test_bad_parameter_messages(params: dict[str, Any], words: list[str]) -> None:
    """§6: a bad parameter raises ValueError naming it and the allowed values."""
    with pytest.raises(ValueError, match=words[0]) as info:
        env(**params)
    for w in words:
        assert w in str(info.value)


def test_small_deck_and_eight_players() -> None:
    """§6 deck_counts: total >= starting_chips * N is enough; 8 players with 1 chip each on an
    8-card deck play a full game (every draw a reshuffle)."""
    params = {"num_players": 8, "starting_chips": 1, "deck_counts": {"5": 4, "0": 4}}
    e = env(**params)
    e.reset(seed=3)
    assert snap(e)["draw_pile"] == 0
    for seed in range(5):
        _, per_step, out = _random_game(params, seed)
        assert len(out) == 8
        assert sum(sum(r.values()) for r in per_step) == pytest.approx(0.0, abs=1e-12)


def test_reset_option_values() -> None:
    """§6: option values given as None count as absent; Tip Top values may be numpy ints;
    bools and strings are not Tip Top values; deck counts above 1000 are fine (int >= 0)."""
    e = env(num_players=2, first_dealer=1)
    e.reset(seed=0, options={"deck_top": None, "tiptop_top": None})
    e.reset(seed=0, options={"tiptop_top": [np.int64(55), 22]})
    assert snap(e)["tiptop"] == 55 and type(snap(e)["tiptop"]) is int
    for bad in ([True], ["22"], [22.0]):
        with pytest.raises(ValueError, match="tiptop_top"):
            e.reset(seed=0, options={"tiptop_top": bad})
    big = env(num_players=2, deck_counts={"0": 5000, "5": 3})
    big.reset(seed=0)
    assert snap(big)["draw_pile"] == 5003 - 8


def test_observation_fields_after_plays() -> None:
    """§7 / the doc page's encoding: T/66, L one-hot, Tip Top values left in the pile, play
    pile per kind / deck count, draw pile / deck size, counter-clockwise flag, relative seats,
    plays in the round / 100."""
    deck_top = ["spin-out", "1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3", "0", "0", "0", "0"]
    e = table(deck_top, [22, 44], num_players=3, first_dealer=2)
    for action in ("play spin-out", "play 3", "play 2"):
        play(e, action)
    obs = e.observe("player_0")["observation"]
    assert obs[11] == np.float32(5 / 66)
    assert obs[12:17].tolist() == [1, 0, 0, 0, 0] and obs[17:22].tolist() == [0, 1, 1, 1, 1]
    played = np.zeros(11, dtype=np.float32)
    played[[2, 3, 8]] = [1 / 8, 1 / 8, 1 / 6]
    assert np.array_equal(obs[22:33], played)
    assert obs[33] == np.float32((72 - 12 - 3) / 72) and obs[34] == 1.0
    # relative seats from player_0: k=0 me, k=1 seat 1, k=2 seat 2 (the dealer)
    assert obs[35:44].tolist() == [1, 1, 0, 1, 1, 0, 1, 1, 1]
    assert obs[59] == np.float32(3 / 100)
    obs2 = e.observe("player_2")["observation"]
    assert obs2[35:44].tolist() == [1, 1, 1, 1, 1, 0, 1, 1, 0]  # k=0 me = dealer
    play(e, "play 1")
    obs = e.observe("player_1")["observation"]
    assert obs[34] == 1.0 and obs[59] == np.float32(4 / 100)


def _spec_legal(hand: list[int], total: int, limit: int, lose_below_zero: bool) -> set[int]:
    """§4.4 and §7 written out independently of the engine's tables."""
    ok = set()
    for k in set(hand):
        if (
            (k <= 5 and total + k <= limit)
            or (k == 6 and 2 * total <= limit)
            or (k == 7 and (lose_below_zero or total >= 10))
            or k in (8, 9, 10)
        ):
            ok.add(k)
    return ok or {11}


@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 3},
        {"num_players": 5, "minus10_rule": "lose_below_zero"},
        {"num_players": 8, "starting_chips": 2},
    ],
)
def test_random_play_against_spec(params: dict[str, Any]) -> None:
    """OAO-04, OAO-12, OAO-15, OAO-18..OAO-28, OAO-33..OAO-36, OAO-42: in random games the legal
    set, T after each play, the next player and the round-end bookkeeping follow the spec."""
    game = OverAndOutGame(**params)
    lbz = params.get("minus10_rule") == "lose_below_zero"
    rng = np.random.default_rng(7)
    for seed in range(8):
        s = game.new_initial_state(np.random.default_rng(seed))
        while not s.is_terminal():
            p, t, lim, d = s.current_player(), s.total, s.tiptop, s.direction
            assert set(s.legal_actions()) == _spec_legal(s.hands[p], t, lim, lbz)
            acts = s.legal_actions()
            a = acts[rng.integers(len(acts))]
            chips, rnd, dealer = list(s.chips), s.round, s.dealer
            s.apply(a)
            sure_loss = a == 11 or (a == 7 and t < 10)  # topsy-turvy depends on the new L
            if s.round == rnd and not s.is_terminal():  # the round goes on
                assert not sure_loss
                expect_t = {6: 2 * t, 7: t - 10, 9: lim}.get(a, t + a if a <= 5 else t)
                assert s.total == expect_t and 0 <= s.total <= s.tiptop
                nd = -d if a == 8 else d
                nxt = (p + nd) % s.n
                while not s.chips[nxt]:
                    nxt = (nxt + nd) % s.n
                assert s.current_player() == nxt and s.direction == nd
                assert len(s.hands[p]) == s.chips[p]
            elif s.round != rnd:  # p lost the round: one chip, dealer rotates, T 0, clockwise
                assert a in (7, 10, 11)
                assert s.chips == [c - (i == p) for i, c in enumerate(chips)]
                nd = (dealer + 1) % s.n
                while not s.chips[nd]:
                    nd = (nd + 1) % s.n
                assert (s.dealer, s.total, s.direction, s.round_plays) == (nd, 0, 1, 0)
                assert [len(h) for h in s.hands] == s.chips


def test_max_game_length_counts_decisions_and_is_reached_at_the_truncation() -> None:
    """``max_game_length`` bounds the decisions (``apply`` calls), as the protocol says: a game
    cut off at ``max_plays`` (a bust is a play) has made exactly that many; the AEC episode adds
    one dead step per agent at most."""
    game = OverAndOutGame(num_players=3, max_plays=40)
    assert game.max_game_length == 40
    aec = env(num_players=3, max_plays=40)
    aec.reset(seed=2)
    rng = np.random.default_rng(2)
    decisions = dead = 0
    for _agent in aec.agent_iter():
        obs, _r, term, trunc, _i = aec.last()
        if term or trunc:
            dead += 1
            aec.step(None)
            continue
        decisions += 1
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert aec.unwrapped.state.is_truncated()
    assert decisions == game.max_game_length and dead == 3
