"""Clean-room spec checks (written from the specs alone, 2026-12-07) for Over and Out and Otto the Octopus.

Written from ``rules/over_and_out.md`` and ``rules/otto_octopus.md`` and the public API only
(``env()``, ``reset`` options, ``snapshot()``, the notation), concentrating on 3-5 players,
eliminations, variants and end-of-game scoring. Every test cites the rule IDs it checks.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from envs import otto_octopus_v0, over_and_out_v0

# --------------------------------------------------------------------------------------
# Over and Out helpers
# --------------------------------------------------------------------------------------

TOK = ["0", "1", "2", "3", "4", "5", "x2", "-10", "spin-out", "top-out", "topsy-turvy"]
BUST = 11


def oao(num_players, options=None, seed=0, **kw):
    e = over_and_out_v0.env(num_players=num_players, **kw)
    e.reset(seed=seed, options=options)
    return e


def legal(e):
    a = e.agent_selection
    u = e.unwrapped
    return {u.action_to_string(int(i)) for i in np.flatnonzero(e.observe(a)["action_mask"])}


def play(e, text):
    """Step the legal action ``text`` for the agent to move; return that step's rewards."""
    u = e.unwrapped
    i = u.string_to_action(text)
    assert e.observe(e.agent_selection)["action_mask"][i], (text, sorted(legal(e)))
    e.step(i)
    return dict(e.rewards)


def dead_steps(e):
    while e.agents and (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        e.step(None)


def snap(e):
    return e.unwrapped.snapshot()


def oao_playable(card, total, limit, rule):
    if card in "012345":
        return total + int(card) <= limit
    if card == "x2":
        return 2 * total <= limit
    if card == "-10":
        return total >= 10 or rule == "lose_below_zero"
    return True


def next_active(seat, direction, chips):
    n = len(chips)
    s = seat
    while True:
        s = (s + direction) % n
        if chips[s] > 0:
            return s


def oao_state(n, chips, hands, dealer, to_move, out_order, **cfg):
    """A round-1 engine state with the given table (OAO-44 keeps every card somewhere)."""
    e = oao(n, first_dealer=dealer, **cfg)
    d = copy.deepcopy(e.unwrapped.state.to_dict())
    pool = list(d["draw_pile"])
    for h in d["hands"]:
        pool += h
    for h in hands:
        for c in h:
            pool.remove(c)
    d["chips"] = list(chips)
    d["hands"] = [list(h) for h in hands]
    d["draw_pile"] = pool
    d["dealer"] = dealer
    d["to_move"] = to_move
    d["out_order"] = list(out_order)
    e.reset(seed=0, options={"state": d})
    return e


# --------------------------------------------------------------------------------------
# Over and Out: setup, deal, turn order
# --------------------------------------------------------------------------------------


def test_oao_07_10_block_deal_four_players_dealer_1():
    """OAO-07/08/10: block deal starts left of the dealer, dealer last; left of dealer opens."""
    top = ["5"] * 4 + ["4"] * 4 + ["3"] * 4 + ["2"] * 4 + ["x2"]
    e = oao(4, {"deck_top": top, "tiptop_top": [44]}, first_dealer=1)
    s = snap(e)
    assert s["hands"][2] == ["5"] * 4
    assert s["hands"][3] == ["4"] * 4
    assert s["hands"][0] == ["3"] * 4
    assert s["hands"][1] == ["2"] * 4
    assert s["to_move"] == 2 and e.agent_selection == "player_2"
    assert (s["total"], s["tiptop"], s["direction"], s["round"]) == (0, 44, 1, 1)
    assert (s["draw_pile"], s["play_pile"], s["tiptop_pile"]) == (72 - 16, 0, 4)
    play(e, "play 5")
    s = snap(e)
    assert sorted(s["hands"][2]) == ["5", "5", "5", "x2"]  # OAO-12/17: the top card is drawn
    assert s["to_move"] == 3


def test_oao_03_07_starting_chips_five_players():
    """OAO-03/07: starting_chips=2 with 5 players deals 2 cards each, block by block."""
    top = ["1", "1", "2", "2", "3", "3", "4", "4", "5", "5"]
    e = oao(5, {"deck_top": top}, first_dealer=4, starting_chips=2)
    s = snap(e)
    assert s["hands"] == [["1", "1"], ["2", "2"], ["3", "3"], ["4", "4"], ["5", "5"]]
    assert s["chips"] == [2] * 5 and s["draw_pile"] == 62 and s["to_move"] == 0


def test_oao_22_26_spin_out_four_players_holds_direction():
    """OAO-22/26: after spin-out the other neighbour plays; the direction holds."""
    top = ["spin-out", "1", "1", "1"] + ["2"] * 4 + ["3"] * 4 + ["4"] * 4 + ["0"] * 8
    e = oao(4, {"deck_top": top, "tiptop_top": [44]}, first_dealer=3)
    assert snap(e)["to_move"] == 0
    play(e, "play spin-out")
    assert (snap(e)["to_move"], snap(e)["direction"]) == (3, -1)
    play(e, "play 4")
    assert snap(e)["to_move"] == 2
    play(e, "play 3")
    assert snap(e)["to_move"] == 1
    play(e, "play 2")
    assert snap(e)["to_move"] == 0
    play(e, "play 1")
    s = snap(e)
    assert (s["to_move"], s["direction"], s["total"]) == (3, -1, 10)


def test_oao_22_26_double_spin_out_five_players():
    """OAO-22/26: a second spin-out restores clockwise play (5 players)."""
    top = ["spin-out", "1", "1", "1", "spin-out", "2", "2", "2"]
    top += ["3"] * 4 + ["4"] * 4 + ["0"] * 4 + ["1"] * 5
    e = oao(5, {"deck_top": top, "tiptop_top": [44]}, first_dealer=4)
    play(e, "play spin-out")  # p0
    assert snap(e)["to_move"] == 4
    play(e, "play 0")  # p4
    play(e, "play 4")  # p3
    play(e, "play 3")  # p2
    assert snap(e)["to_move"] == 1
    play(e, "play spin-out")  # p1 -> clockwise again
    s = snap(e)
    assert (s["to_move"], s["direction"], s["total"]) == (2, 1, 7)


def test_oao_37_new_round_clockwise_after_spin_out_three_players():
    """OAO-15/33/35/36/37: bust after a spin-out; next round clockwise, dealer rotates."""
    top = ["spin-out", "5", "5", "5"] + ["4"] * 4 + ["top-out", "4", "4", "4"] + ["3", "3"]
    e = oao(3, {"deck_top": top, "tiptop_top": [22]}, first_dealer=2)
    play(e, "play spin-out")  # p0
    assert snap(e)["to_move"] == 2
    play(e, "play top-out")  # p2, T = 22
    s = snap(e)
    assert s["to_move"] == 1 and s["total"] == 22
    assert legal(e) == {"bust"}
    rew = play(e, "bust")
    assert all(v == 0 for v in rew.values())
    s = snap(e)
    assert s["chips"] == [4, 3, 4]
    assert (s["round"], s["dealer"], s["to_move"], s["direction"], s["total"]) == (2, 0, 1, 1, 0)
    assert [len(h) for h in s["hands"]] == [4, 3, 4]
    assert (s["draw_pile"], s["play_pile"], s["plays"]) == (72 - 11, 0, 3)
    for q in e.agents:  # §7: plays in this round and the play pile start again at 0
        o = e.observe(q)["observation"]
        assert o[59] == 0 and not o[22:33].any() and o[34] == 0


def test_oao_25_spin_out_two_active_of_three():
    """OAO-25/34: with exactly 2 active players (one seat out) spin-out is no skip."""
    e = oao_state(
        3,
        [0, 4, 4],
        [[], ["spin-out", "1", "1", "1"], ["2", "2", "2", "2"]],
        dealer=2,
        to_move=1,
        out_order=[0],
    )
    assert e.agent_selection == "player_1"
    play(e, "play spin-out")
    s = snap(e)
    assert (s["to_move"], s["direction"]) == (2, -1)
    play(e, "play 2")
    assert snap(e)["to_move"] == 1


def test_oao_04_26_34_reverse_play_skips_eliminated_seat():
    """OAO-04/26/34: counter-clockwise play skips an eliminated seat (4 players, seat 2 out)."""
    e = oao_state(
        4,
        [4, 4, 0, 4],
        [["spin-out", "1", "1", "1"], ["2", "2", "2", "2"], [], ["3", "3", "3", "3"]],
        dealer=1,
        to_move=3,
        out_order=[2],
    )
    play(e, "play 3")  # p3, clockwise -> p0
    assert snap(e)["to_move"] == 0
    play(e, "play spin-out")  # p0 -> counter-clockwise: p3
    assert snap(e)["to_move"] == 3
    play(e, "play 3")  # p3 -> skips seat 2 -> p1
    assert snap(e)["to_move"] == 1


# --------------------------------------------------------------------------------------
# Over and Out: losing a round, eliminations, rewards
# --------------------------------------------------------------------------------------


def test_oao_28_33_topsy_turvy_below_total_four_players():
    """OAO-24/28/33/36: the Topsy Turvy player loses when the new L < T (4 players)."""
    top = ["top-out", "0", "0", "0"] + ["topsy-turvy", "0", "0", "0"] + ["1"] * 4 + ["2"] * 4
    top += ["3"]
    e = oao(4, {"deck_top": top, "tiptop_top": [33, 22]}, first_dealer=3)
    play(e, "play top-out")  # p0, T 33
    assert legal(e) == {"play 0", "play topsy-turvy"}
    play(e, "play topsy-turvy")  # p1: new L 22 < 33
    s = snap(e)
    assert s["chips"] == [4, 3, 4, 4]
    assert (s["round"], s["dealer"], s["to_move"], s["total"]) == (2, 0, 1, 0)
    assert s["tiptop_pile"] == 4  # OAO-37: the 5 Tip Top cards are gathered again


def test_oao_29_tiptop_exhaustion_three_players():
    """OAO-29/44: Topsy Turvy on an empty Tip Top pile reshuffles the discards (3 players)."""
    e = oao(
        3,
        {
            "deck_top": ["topsy-turvy"] * 4 + ["0"] * 8 + ["topsy-turvy"] * 4 + ["0"] * 8,
            "tiptop_top": [22, 33, 44, 55, 66],
        },
        first_dealer=2,
        deck_counts={"0": 30, "topsy-turvy": 20},
    )
    for expected in (33, 44, 55, 66):
        play(e, "play topsy-turvy")
        assert snap(e)["tiptop"] == expected
        play(e, "play 0")
        play(e, "play 0")
    assert snap(e)["tiptop_pile"] == 0
    play(e, "play topsy-turvy")
    s = snap(e)
    assert s["tiptop"] in (22, 33, 44, 55) and s["tiptop_pile"] == 3
    assert s["chips"] == [4, 4, 4] and s["total"] == 0


def test_oao_32_reshuffle_three_players_small_deck():
    """OAO-32: an empty draw pile is refilled from the play pile incl. the card just played."""
    e = oao(3, first_dealer=2, deck_counts={"0": 13})
    assert snap(e)["draw_pile"] == 1
    play(e, "play 0")
    s = snap(e)
    assert (s["draw_pile"], s["play_pile"]) == (0, 1)
    play(e, "play 0")
    s = snap(e)
    assert (s["draw_pile"], s["play_pile"]) == (1, 0)
    assert [len(h) for h in s["hands"]] == [4, 4, 4]


def test_oao_42_minus10_lose_below_zero_five_players():
    """OAO-21/42: '-10' below 10 loses only under lose_below_zero; at T >= 10 it subtracts."""
    top = ["-10", "0", "0", "0"] + ["5", "5", "-10", "0"] + ["x2"] * 4 + ["1"] * 8 + ["3"] * 5
    opts = {"deck_top": top, "tiptop_top": [44]}
    e = oao(5, opts, first_dealer=4)
    assert legal(e) == {"play 0"}
    e = oao(5, opts, first_dealer=4, minus10_rule="lose_below_zero")
    assert legal(e) == {"play 0", "play -10"}
    play(e, "play 0")  # p0
    play(e, "play 5")  # p1, T 5
    assert snap(e)["to_move"] == 2
    play(e, "play x2")  # p2, T 10
    assert snap(e)["total"] == 10
    play(e, "play 1")  # p3, T 11
    play(e, "play 1")  # p4, T 12
    play(e, "play -10")  # p0, T 2: playable at T >= 10 under both rules
    assert snap(e)["total"] == 2
    play(e, "play -10")  # p1, T 2 < 10 -> loses the round, T unchanged is irrelevant now
    s = snap(e)
    assert s["chips"] == [4, 3, 4, 4, 4] and s["round"] == 2
    assert (s["dealer"], s["to_move"]) == (0, 1)


def _s12_like(n, **kw):
    """p0 busts at the end of the first lap; starting_chips=1 eliminates it."""
    top = ["5", "top-out"] + ["0"] * (n - 2) + ["5"] * (n + 2)
    e = oao(n, {"deck_top": top, "tiptop_top": [22]}, first_dealer=n - 1, starting_chips=1, **kw)
    play(e, "play 5")
    play(e, "play top-out")
    for _ in range(n - 2):
        play(e, "play 0")
    assert legal(e) == {"bust"}
    return e, play(e, "bust")


def test_oao_34_36_41_elimination_four_players_dealer_skips_out_seat():
    """OAO-34/36/41, §5: first out gets -1; dead step first; dealer rotation skips the seat."""
    e, rew = _s12_like(4)
    assert rew["player_0"] == -1
    assert all(rew[f"player_{i}"] == 0 for i in (1, 2, 3))
    assert e.terminations["player_0"] and e.agent_selection == "player_0"
    s = snap(e)
    assert s["chips"] == [0, 1, 1, 1] and s["hands"][0] == []
    assert (s["round"], s["dealer"], s["to_move"]) == (2, 1, 2)
    e.step(None)
    assert "player_0" not in e.agents and e.agent_selection == "player_2"


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("mode", ["placement", "winner_only"])
def test_oao_s5_placement_rewards_in_elimination_order(n, mode):
    """§5, OAO-38: j-th out gets -1 + 2(j-1)/(N-1) (winner_only: -1), the winner +1."""
    e, _ = _s12_like(n, reward_mode=mode)
    total = {a: 0.0 for a in e.possible_agents}
    total["player_0"] = -1.0
    order = [0]
    rng = np.random.default_rng(n)
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))
        for q, r in e.rewards.items():
            total[q] += r
            if e.terminations[q] and q not in [f"player_{o}" for o in order] and r < 1:
                order.append(int(q.split("_")[1]))
    assert len(order) == n - 1
    for j, seat in enumerate(order, start=1):
        want = -1 + 2 * (j - 1) / (n - 1) if mode == "placement" else -1
        assert total[f"player_{seat}"] == pytest.approx(want)
    winner = (set(range(n)) - set(order)).pop()
    assert total[f"player_{winner}"] == pytest.approx(1)
    if mode == "placement":
        assert sum(total.values()) == pytest.approx(0)


@pytest.mark.parametrize("n", [4, 5])
def test_oao_s5_truncation_after_elimination(n):
    """§5 (OAO-S12 at N=4,5): truncation pays each of m remaining players (N-m)/(N-1)."""
    e, rew = _s12_like(n, max_plays=n + 1)
    assert rew["player_0"] == -1
    for i in range(1, n):
        assert e.truncations[f"player_{i}"]
        assert rew[f"player_{i}"] == pytest.approx(1 / (n - 1))
    assert sum(rew.values()) == pytest.approx(0)


def test_oao_s5_truncation_winner_only_zero():
    """§5: winner_only truncation pays 0 to the remaining players."""
    e, rew = _s12_like(4, max_plays=5, reward_mode="winner_only")
    assert rew == {"player_0": -1, "player_1": 0, "player_2": 0, "player_3": 0}


def test_oao_43_illegal_action_four_players():
    """OAO-43: an illegal action ends the game, mover -1, the others 0."""
    e = oao(4, {"deck_top": ["1", "2", "3", "4"]}, first_dealer=3)
    e.step(BUST)
    assert e.rewards == {"player_0": -1, "player_1": 0, "player_2": 0, "player_3": 0}
    assert all(e.terminations.values())


def test_oao_s8_notation_round_trip():
    """§8: action_to_string / string_to_action agree, case and spaces ignored."""
    top = ["x2", "-10", "spin-out", "top-out"]
    e = oao(3, {"deck_top": top}, first_dealer=2)
    u = e.unwrapped
    assert u.string_to_action("  PLAY   Top-Out ") == 9
    for a in np.flatnonzero(e.observe("player_0")["action_mask"]):
        assert u.string_to_action(u.action_to_string(int(a))) == a
    assert u.action_to_string(BUST) not in legal(e)


# --------------------------------------------------------------------------------------
# Over and Out: model-based random games at every player count and variant
# --------------------------------------------------------------------------------------


def _oao_checked_game(seed, n, rule="require_10", mode="placement", sc=4, deck=None, maxp=5000):
    kw = {
        "num_players": n,
        "minus10_rule": rule,
        "reward_mode": mode,
        "starting_chips": sc,
        "max_plays": maxp,
    }
    if deck:
        kw["deck_counts"] = deck
    e = over_and_out_v0.env(**kw)
    e.reset(seed=seed)
    size = sum(deck.values()) if deck else 72
    rng = np.random.default_rng(seed)
    total = {a: 0.0 for a in e.possible_agents}
    out = []
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        s = snap(e)
        p = int(a.split("_")[1])
        assert s["to_move"] == p
        mask = e.observe(a)["action_mask"]
        for q in e.agents:
            if q != a:
                assert not e.observe(q)["action_mask"].any()  # OAO-40
        t0, lim = s["total"], s["tiptop"]
        want = {i for i, c in enumerate(TOK) if c in s["hands"][p] and oao_playable(c, t0, lim, rule)}
        assert set(np.flatnonzero(mask)) == (want or {BUST})  # OAO-14/15/18-24/42
        act = int(rng.choice(np.flatnonzero(mask)))
        e.step(act)
        for q, r in e.rewards.items():
            total[q] += r
        t = snap(e)
        assert t["plays"] == s["plays"] + 1
        d = e.unwrapped.state.to_dict()  # OAO-44: the 5 Tip Top cards are always all there
        assert sorted([*d["tiptop_pile"], *d["tiptop_discards"], d["tiptop"]]) == [22, 33, 44, 55, 66]
        card = TOK[act] if act < BUST else None
        if sum(t["chips"]) < sum(s["chips"]):  # the round was lost by the mover (OAO-33)
            assert t["chips"][p] == s["chips"][p] - 1
            assert card is None or card == "topsy-turvy" or (card == "-10" and t0 < 10)
            if t["chips"][p] == 0:
                out.append(p)
                j = len(out)
                want_r = -1 + 2 * (j - 1) / (n - 1) if mode == "placement" else -1
                assert e.rewards[a] == pytest.approx(want_r)
            if t["to_move"] != -1:  # OAO-35/36/37
                nd = next_active(s["dealer"], 1, t["chips"])
                assert t["round"] == s["round"] + 1 and t["dealer"] == nd
                assert t["to_move"] == next_active(nd, 1, t["chips"])
                assert (t["total"], t["direction"], t["play_pile"], t["tiptop_pile"]) == (0, 1, 0, 4)
                assert t["draw_pile"] == size - sum(t["chips"])
        else:
            assert t["chips"] == s["chips"] and t["round"] == s["round"]
            eff = {"x2": 2 * t0, "-10": t0 - 10, "top-out": lim}
            if card in "012345":
                assert t["total"] == t0 + int(card)
            else:
                assert t["total"] == eff.get(card, t0)
            if card == "topsy-turvy":
                assert t["tiptop"] != lim
                assert t["tiptop_pile"] == (s["tiptop_pile"] - 1 if s["tiptop_pile"] else 3)
            assert 0 <= t["total"] <= t["tiptop"]  # OAO-13
            if s["draw_pile"]:
                assert (t["draw_pile"], t["play_pile"]) == (s["draw_pile"] - 1, s["play_pile"] + 1)
            else:  # OAO-32
                assert (t["draw_pile"], t["play_pile"]) == (s["play_pile"], 0)
            d = -s["direction"] if card == "spin-out" else s["direction"]
            assert t["direction"] == d
            if t["to_move"] != -1:
                assert t["to_move"] == next_active(p, d, t["chips"])
            assert sum(map(len, t["hands"])) + t["draw_pile"] + t["play_pile"] == size  # OAO-44
        if t["to_move"] != -1:
            assert [len(h) for h in t["hands"]] == t["chips"]  # OAO-03/17/44
        elif t["plays"] >= maxp and sum(c > 0 for c in t["chips"]) > 1:
            m = sum(c > 0 for c in t["chips"])
            for q in range(n):
                if t["chips"][q]:
                    assert e.truncations[f"player_{q}"]
                    want_r = (n - m) / (n - 1) if mode == "placement" else 0
                    assert e.rewards[f"player_{q}"] == pytest.approx(want_r)
    if mode == "placement":
        assert sum(total.values()) == pytest.approx(0)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 8])
def test_oao_random_games_model_checked(n):
    """OAO-03..44, §5: every move of seeded random games against an independent model."""
    for k, (rule, mode, sc) in enumerate(
        [
            ("require_10", "placement", 4),
            ("lose_below_zero", "winner_only", 2),
            ("lose_below_zero", "placement", 1),
        ]
    ):
        _oao_checked_game(1000 * n + k, n, rule, mode, sc)
    _oao_checked_game(n, n, maxp=40)
    _oao_checked_game(n + 1, n, mode="winner_only", maxp=25)
    deck = {"0": 10, "1": 10, "topsy-turvy": 15, "spin-out": 5, "x2": 3, "5": 10}
    _oao_checked_game(n + 2, n, deck=deck, sc=2)


# --------------------------------------------------------------------------------------
# Otto the Octopus helpers
# --------------------------------------------------------------------------------------

KINDS = [
    "straight",
    "turn-in",
    "turn-out",
    "end",
    "end-shell",
    "clownfish",
    "butterflyfish",
    "jellyfish",
    "pufferfish",
    "starfish",
    "seahorse",
    "shark",
    "moray",
    "anglerfish",
    "minnow",
    "bubbles",
]
MIX = dict(zip(KINDS, (12, 6, 6, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 7), strict=True))
P1 = ["straight d6", "straight d7"]
BB3 = ["bubbles"] * 3


def otto(n, position=None, seed=0, **kw):
    e = otto_octopus_v0.env(num_players=n, **kw)
    e.reset(seed=seed, options={"position": position} if position is not None else None)
    return e


def final_rewards(n, finals):
    best = max(finals)
    w = [i for i in range(n) if finals[i] == best]
    k = len(w)
    return [(n - k) / (k * (n - 1)) if i in w else -1 / (n - 1) for i in range(n)]


def play_out_passes(e):
    """Everybody passes until the game ends; returns the accumulated rewards."""
    total = {a: 0.0 for a in e.possible_agents}
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        e.step(e.unwrapped.string_to_action("pass"))
        for q, r in e.rewards.items():
            total[q] += r
    return total


# --------------------------------------------------------------------------------------
# Otto: turn order, skips, effects at 3-4 players
# --------------------------------------------------------------------------------------


def test_otp_23_jellyfish_three_players_skips_next_seat():
    """OTP-23/18: the jellyfish makes the next seat skip; play goes to the seat after."""
    e = otto(3, {"placements": P1, "hands": [["jellyfish", "bubbles", "bubbles"], BB3, BB3]})
    play(e, "place jellyfish c7")
    s = snap(e)
    assert (s["to_move"], s["skips"], s["scores"]) == (2, [0, 0, 0], [1, 0, 0])


def test_otp_23_jellyfish_by_last_seat_wraps_to_first():
    """OTP-23: a jellyfish by seat 2 of 3 skips seat 0; seat 1 plays next."""
    e = otto(
        3,
        {"placements": P1, "hands": [BB3, BB3, ["jellyfish", "bubbles", "bubbles"]], "to_move": 2},
    )
    play(e, "place jellyfish c7")
    s = snap(e)
    assert s["to_move"] == 1 and s["skips"] == [0, 0, 0]


def test_otp_23_33_two_jellyfish_accumulate_and_skips_are_not_passes():
    """OTP-23/33/37: two skips accumulate; a skipped turn is not a pass."""
    e = otto(
        3,
        {"placements": P1, "hands": [["butterflyfish", "jellyfish", "jellyfish"], BB3, BB3]},
    )
    play(e, "place butterflyfish c7")
    s = snap(e)
    assert (s["phase"], s["extra"], s["to_move"]) == ("extra", 2, 0)
    play(e, "place jellyfish c6")
    play(e, "place jellyfish e7")
    s = snap(e)
    assert (s["to_move"], s["skips"], s["scores"]) == (2, [0, 1, 0], [4, 0, 0])
    play(e, "pass")  # p2
    play(e, "pass")  # p0; p1 skips again; p2 to move, game not over
    s = snap(e)
    assert (s["to_move"], s["skips"], s["passed"]) == (2, [0, 0, 0], [True, False, True])
    play(e, "pass")  # p2 again; p1 has not passed yet
    s = snap(e)
    assert s["to_move"] == 0
    play(e, "pass")
    assert snap(e)["to_move"] == 1
    play(e, "pass")  # now all three have passed
    assert snap(e)["to_move"] == -1
    assert all(e.terminations.values())


def test_otp_27_15_shark_four_players():
    """OTP-27/15/16: shark on algae: mover +1, every opponent -2 (scores may go negative)."""
    pos = {
        "placements": P1,
        "hands": [["shark", "bubbles", "bubbles"], BB3, BB3, BB3],
        "scores": [0, 5, 1, -3],
    }
    e = otto(4, pos)
    play(e, "place shark c6")
    assert snap(e)["scores"] == [1, 3, -1, -5]


def test_otp_24_pufferfish_four_players_skips_empty_hands():
    """OTP-24: SWAP offers only opponents holding tiles; the mover takes a random one."""
    pos = {
        "placements": P1,
        "hands": [["pufferfish", "straight", "end"], [], ["starfish"] * 3, ["minnow"]],
        "pile": [],
    }
    e = otto(4, pos)
    play(e, "place pufferfish c7")
    assert legal(e) == {f"swap {k} player_{j}" for k in ("straight", "end") for j in (2, 3)}
    play(e, "swap end player_3")
    s = snap(e)
    assert sorted(s["hands"][0]) == ["minnow", "straight"]
    assert s["hands"][3] == ["end"]
    assert s["to_move"] == 2  # p1 has no tile: automatic pass (OTP-19)
    assert s["passed"][1]


def test_otp_24_pufferfish_no_opponent_tiles_no_swap():
    """OTP-24: with every opponent's hand empty the swap does not happen."""
    pos = {"placements": P1, "hands": [["pufferfish", "straight"], [], []], "pile": ["bubbles"]}
    e = otto(3, pos)
    play(e, "place pufferfish c7")
    s = snap(e)
    assert s["phase"] == "main" and s["to_move"] == 0  # p1, p2 pass automatically
    assert sorted(s["hands"][0]) == ["bubbles", "straight"]
    assert s["passed"] == [False, True, True]


def test_otp_26_seahorse_last_pile_tile_skips_return():
    """OTP-26/47: seahorse drawing the last pile tile skips the return; no refill."""
    pos = {"placements": P1, "hands": [["seahorse", "bubbles"], BB3, BB3], "pile": ["starfish"]}
    e = otto(3, pos)
    play(e, "place seahorse c7")
    s = snap(e)
    assert s["to_move"] == 1 and s["phase"] == "main"
    assert sorted(s["hands"][0]) == ["bubbles", "starfish"] and s["pile"] == []
    assert s["scores"][0] == 2


def test_otp_26_seahorse_return_three_players():
    """OTP-26: draw, return any kind in hand (random position), draw: pile size unchanged."""
    pile = ["starfish", "minnow", "shark", "moray"]
    pos = {"placements": P1, "hands": [["seahorse", "bubbles", "end"], BB3, BB3], "pile": pile}
    e = otto(3, pos)
    play(e, "place seahorse c7")
    assert legal(e) == {"return bubbles", "return end", "return starfish"}
    play(e, "return end")
    s = snap(e)
    assert len(s["hands"][0]) == 3 and "bubbles" in s["hands"][0] and "starfish" in s["hands"][0]
    assert len(s["pile"]) == 3 and s["to_move"] == 1
    assert sorted(s["hands"][0] + s["pile"]) == sorted(["bubbles", "starfish", "end", *pile[1:]])


def test_otp_21_33_clownfish_empty_pile_still_plays_again():
    """OTP-21/33/47: clownfish with an empty pile: no draw, one extra placement."""
    pos = {"placements": P1, "hands": [["clownfish", "starfish", "bubbles"], BB3, BB3], "pile": []}
    e = otto(3, pos)
    play(e, "place clownfish c7")
    s = snap(e)
    assert (s["phase"], s["extra"], s["to_move"]) == ("extra", 1, 0)
    assert "stop" in legal(e)
    play(e, "place starfish c6")
    s = snap(e)
    assert s["scores"][0] == 1 + 4 and s["to_move"] == 1 and s["hands"][0] == ["bubbles"]


def test_otp_22_33_butterflyfish_ends_when_nothing_fits():
    """OTP-22/33: extra placements end when no legal placement exists."""
    pos = {"placements": P1, "hands": [["butterflyfish", "end-shell"], BB3, BB3], "pile": []}
    e = otto(3, pos)
    play(e, "place butterflyfish c7")
    s = snap(e)
    assert s["phase"] == "extra" and s["extra"] == 2
    play(e, "place end-shell d8")  # (1 + 2) x 2 = 6
    s = snap(e)
    assert s["scores"][0] == 1 + 6 and s["to_move"] == 1 and s["phase"] == "main"


# --------------------------------------------------------------------------------------
# Otto: end of game, final scores, ties
# --------------------------------------------------------------------------------------


def test_otp_37_38_s5_three_player_tie_for_first():
    """OTP-37/38, §5: final = score - hand; 2 of 3 tie: (n-k)/(k(n-1)) = 1/4, other -1/2."""
    pos = {
        "placements": P1,
        "hands": [["starfish"], ["bubbles"], []],
        "pile": [],
        "scores": [5, 5, 2],
    }
    e = otto(3, pos)
    total = play_out_passes(e)
    assert [total[f"player_{i}"] for i in range(3)] == pytest.approx([0.25, 0.25, -0.5])


@pytest.mark.parametrize(
    ("scores", "hands"),
    [
        ([4, 4, 4, 4], [[], [], [], []]),
        ([6, 6, 7, 3], [["bubbles"], ["bubbles"], ["bubbles", "bubbles"], []]),
        ([1, 9, 2, 9], [["bubbles"], ["starfish"], [], ["bubbles", "bubbles"]]),
    ],
)
def test_otp_38_s5_four_player_rewards(scores, hands):
    """OTP-38, §5: 4-player terminal rewards from final scores (ties share the win)."""
    e = otto(4, {"placements": P1, "hands": hands, "pile": [], "scores": scores})
    total = play_out_passes(e)
    finals = [scores[i] - len(hands[i]) for i in range(4)]
    want = final_rewards(4, finals)
    assert [total[f"player_{i}"] for i in range(4)] == pytest.approx(want)
    assert sum(total.values()) == pytest.approx(0)


def test_otp_40_solo_final_counts_hand_and_pile():
    """OTP-39/40: solo: one pass ends it; final = score - hand - pile, reward /100."""
    pos = {"placements": P1, "hands": [["shark", "jellyfish"]], "pile": ["bubbles"] * 4}
    e = otto(1, pos)
    play(e, "place shark c6")  # +1 (algae), shark hits nobody
    s = snap(e)
    assert s["scores"] == [1] and s["to_move"] == 0 and s["skips"] == [0]
    assert len(s["hands"][0]) == 3 and len(s["pile"]) == 2
    play(e, "place jellyfish c7")  # +1, no skip: same seat again
    s = snap(e)
    assert s["scores"] == [2] and s["to_move"] == 0
    e.step(e.unwrapped.string_to_action("pass"))
    assert e.terminations["player_0"]
    assert e.rewards["player_0"] == pytest.approx((2 - 3 - 1) / 100)


def test_otp_39_solo_pufferfish_butterfly_no_effect():
    """OTP-39: solo ignores clownfish, butterflyfish, pufferfish effects (they still score)."""
    pos = {"placements": P1, "hands": [["pufferfish", "butterflyfish", "clownfish"]], "pile": BB3}
    e = otto(1, pos)
    for k, sq in (("pufferfish", "c7"), ("butterflyfish", "e7"), ("clownfish", "c6")):
        play(e, f"place {k} {sq}")
        s = snap(e)
        assert s["phase"] == "main" and s["extra"] == 0
    assert snap(e)["scores"] == [4]


def test_otp_42_simplified_three_players_effects_ignored():
    """OTP-42: simplified: no skip, no shark penalty, no moray/anglerfish limits, no swap."""
    pos = {
        "placements": [*P1, "moray c7"],
        "hands": [["jellyfish", "shark", "pufferfish"], ["anglerfish", "bubbles"], BB3],
        "pile": ["bubbles"] * 6,
    }
    e = otto(3, pos, simplified=True)
    assert "place jellyfish b7" in legal(e)  # next to the moray
    play(e, "place jellyfish b7")  # +1 +1 algae
    s = snap(e)
    assert s["to_move"] == 1 and s["skips"] == [0, 0, 0] and s["scores"] == [2, 0, 0]
    assert "place anglerfish e7" in legal(e)  # not on the perimeter
    play(e, "place anglerfish e7")
    play(e, "pass")
    play(e, "place shark c6")
    s = snap(e)
    assert s["scores"] == [3, 3, 0]
    play(e, "pass")
    play(e, "pass")
    play(e, "place pufferfish c8")
    s = snap(e)
    assert s["phase"] == "main" and s["to_move"] == 1


def test_otp_10_09_moray_and_anglerfish_limits_four_players():
    """OTP-09/10: fish never next to a moray (minnow too); anglerfish on the perimeter only."""
    pos = {
        "placements": [*P1, "turn-out d8", "moray c7"],
        "hands": [["minnow", "anglerfish", "straight"], BB3, BB3, BB3],
    }
    e = otto(4, pos)
    lg = legal(e)
    assert "place minnow b7" not in lg and "place minnow c6" not in lg
    assert "place minnow e7" in lg
    assert "place anglerfish c8" not in lg  # next to the moray
    assert "place anglerfish e8" in lg and "place anglerfish e7" not in lg


def test_otp_41_open_game_four_players_observation():
    """OTP-41: all tiles but the newest are visible to everyone (egocentric slots)."""
    hands = [
        ["straight", "starfish", "moray"],
        ["bubbles", "turn-out", "shark"],
        ["minnow", "clownfish", "end"],
        ["turn-in", "seahorse", "anglerfish"],
    ]
    e = otto(4, {"hands": hands}, open_game=True)
    for me in range(4):
        o = e.observe(f"player_{me}")["observation"]
        for slot in (1, 2, 3):
            seat = (me + slot) % 4
            vis = np.round(o[1728 + 16 * slot : 1728 + 16 * slot + 16] * 3).astype(int)
            want = np.zeros(16, int)
            for k in hands[seat][:2]:
                want[KINDS.index(k)] += 1
            assert (vis == want).all(), (me, slot)
    closed = otto(4, {"hands": hands})
    assert not closed.observe("player_0")["observation"][1744:1792].any()


def test_otp_44_illegal_action_four_players():
    """OTP-44: an illegal action ends the episode: mover -1, others 0."""
    e = otto(4, {"placements": P1, "hands": [["starfish"], BB3, BB3, BB3]})
    e.step(e.unwrapped.string_to_action("place starfish a1"))
    assert e.rewards == {"player_0": -1, "player_1": 0, "player_2": 0, "player_3": 0}


def test_otp_s5_truncation_three_players():
    """§5: after max_steps decisions every agent is truncated with reward 0."""
    e = otto(3, seed=5, max_steps=3)
    for _ in range(3):
        a = e.agent_selection
        e.step(int(np.flatnonzero(e.observe(a)["action_mask"])[0]))
    assert all(e.truncations.values())
    assert all(r == 0 for r in e.rewards.values())


@pytest.mark.parametrize("n", [3, 4])
def test_otp_35_36_mulligan_every_hand_playable(n):
    """OTP-35/36, §2: after reset every hand has 3 tiles incl. an arm tile; pile 60-3n."""
    for seed in range(30):
        s = snap(otto(n, seed=seed))
        assert len(s["pile"]) == 60 - 3 * n
        for h in s["hands"]:
            assert len(h) == 3 and {"straight", "turn-in", "turn-out"} & set(h)
        assert sorted(sum(s["hands"], []) + s["pile"]) == sorted(k for k, c in MIX.items() for _ in range(c))


@pytest.mark.parametrize("n", [1, 3, 4])
@pytest.mark.parametrize(("open_game", "simplified"), [(False, False), (True, False), (False, True)])
def test_otp_random_games_final_rewards(n, open_game, simplified):
    """OTP-18/37/38/40/48, §5: random games keep 60 tiles, hands <= 3; rewards from finals."""
    for seed in range(3):
        e = otto(n, seed=seed, open_game=open_game, simplified=simplified)
        rng = np.random.default_rng(seed)
        total = {a: 0.0 for a in e.possible_agents}
        last = None
        steps = 0
        while e.agents:
            a = e.agent_selection
            if e.terminations[a] or e.truncations[a]:
                e.step(None)
                continue
            last = snap(e)
            e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))
            steps += 1
            for q, r in e.rewards.items():
                total[q] += r
            s = snap(e)
            assert len(s["placements"]) + sum(map(len, s["hands"])) + len(s["pile"]) == 60
            assert all(len(h) <= 3 for h in s["hands"])
        assert steps < 60 * (n + 2) + n + 2 * (n - 1) + 1
        s = e.unwrapped.snapshot()
        finals = [s["scores"][i] - len(s["hands"][i]) for i in range(n)]
        if n == 1:
            assert total["player_0"] == pytest.approx((finals[0] - len(s["pile"])) / 100)
        else:
            want = final_rewards(n, finals)
            assert [total[f"player_{i}"] for i in range(n)] == pytest.approx(want)
        assert last is not None


# --------------------------------------------------------------------------------------
# Observations and reproducibility
# --------------------------------------------------------------------------------------


def test_oao_30_s7_observation_tiptop_pile_and_play_pile_five_players():
    """OAO-30/40, §7: Tip Top values still face down, play pile per kind, plays this round."""
    e = oao(5, seed=3)
    u = e.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(150):
        if not e.agents:
            break
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        d = u.state.to_dict()
        counts = d["config"]["deck_counts"]
        for q in e.agents:
            o = e.observe(q)["observation"]
            assert list(o[17:22]) == [float(v in d["tiptop_pile"]) for v in (22, 33, 44, 55, 66)]
            for i, t in enumerate(TOK):
                assert o[22 + i] == pytest.approx(d["play_pile"].get(t, 0) / max(1, counts[t]))
            assert o[59] == pytest.approx(min(1.0, d["round_plays"] / 100))
        e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))


@pytest.mark.parametrize(("n", "open_game"), [(3, False), (4, True)])
def test_otp_41_s7_observation_public_fields(n, open_game):
    """OTP-20/41, §7: hand sizes, scores, skips, passes, phase, seat to act, unseen tiles."""
    e = otto(n, seed=n, open_game=open_game)
    rng = np.random.default_rng(n)
    b = 1728
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        s = snap(e)
        for me in range(n):
            o = e.observe(f"player_{me}")["observation"]
            for k in range(4):
                seat = (me + k) % n
                if k >= n:
                    assert o[b + 64 + k] == 0 and o[b + 102 + k] == 0
                    continue
                assert o[b + 64 + k] == pytest.approx(len(s["hands"][seat]) / 3)
                assert o[b + 85 + k] == pytest.approx(max(-1, min(1, s["scores"][seat] / 100)))
                assert o[b + 89 + k] == pytest.approx(min(1, s["skips"][seat] / 2))
                assert o[b + 93 + k] == float(s["passed"][seat])
                assert o[b + 102 + k] == float(s["to_move"] == seat)
            phases = ["main", "extra", "swap", "return"]
            assert list(o[b + 98 : b + 102]) == [float(p == s["phase"]) for p in phases]
            unseen = {k: s["pile"].count(k) for k in KINDS}
            for j in range(n):
                if j != me:
                    for k in s["hands"][j][-1:] if open_game else s["hands"][j]:
                        unseen[k] += 1
            for i, k in enumerate(KINDS):
                assert o[b + 69 + i] == pytest.approx(min(1, unseen[k] / MIX[k]))
        e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))


def _trace(e, seed):
    rng = np.random.default_rng(seed)
    out = [repr(e.unwrapped.snapshot())]
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))
        out.append(repr(e.unwrapped.snapshot()))
    return out


def test_oao_05_otp_45_reset_seed_reproducible():
    """OAO-05, OTP-45: the same reset seed and actions replay the same game (4 players)."""
    assert _trace(oao(4, seed=11), 1) == _trace(oao(4, seed=11), 1)
    assert _trace(otto(4, seed=11), 1) == _trace(otto(4, seed=11), 1)
    assert snap(oao(4, seed=11)) != snap(oao(4, seed=12))


def test_otp_39_40_t15_solo_clownfish_jellyfish():
    """OTP-39/40 (T15): solo clownfish gives no extra placement, jellyfish no skip."""
    pile = ["starfish", "straight", "minnow", "bubbles"]
    e = otto(1, {"placements": P1, "hands": [["clownfish", "jellyfish", "bubbles"]], "pile": pile})
    play(e, "place clownfish c7")
    s = snap(e)
    assert (s["phase"], s["scores"]) == ("main", [1])
    assert sorted(s["hands"][0]) == ["bubbles", "jellyfish", "starfish"]
    play(e, "place jellyfish c6")
    assert snap(e)["scores"] == [3]
    e.step(e.unwrapped.string_to_action("pass"))
    assert e.rewards["player_0"] == pytest.approx(-0.02)


# --------------------------------------------------------------------------------------
# Otto: an independent model of placement legality (OTP-01..10, C1-C4), scoring and turns
# --------------------------------------------------------------------------------------

FILES = "abcdefgh"
HEADINGS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
RIGHT = {"N": "E", "E": "S", "S": "W", "W": "N"}
LEFT = {v: k for k, v in RIGHT.items()}
STARTS = {"d6": "N", "e6": "N", "f5": "E", "f4": "E", "e3": "S", "d3": "S", "c4": "W", "c5": "W"}
OTTO_SQ = {"d4", "e4", "d5", "e5"}
CORAL = {"a1", "h1", "a8", "h8"}
ALGAE = {"b7", "c6", "f6", "g7", "b2", "c3", "f3", "g2"}
ARM_KINDS = {"straight", "turn-in", "turn-out"}
ENDS = {"end", "end-shell"}
FISH = set(KINDS[5:15])
POINTS = {"starfish": 3, "seahorse": 2, "shark": 0, "moray": 2, "anglerfish": 3, "bubbles": 0}
SQUARES = [f + str(r) for r in range(1, 9) for f in FILES]


def _step(sq, h):
    f = FILES.index(sq[0]) + HEADINGS[h][0]
    r = int(sq[1]) + HEADINGS[h][1]
    return FILES[f] + str(r) if 0 <= f < 8 and 1 <= r <= 8 else None


def _adj(sq):
    return [x for x in (_step(sq, h) for h in "NESW") if x]


class Ocean:
    def __init__(self, placements):
        self.occ = {}
        self.arms = {s: {"tip": None, "head": h, "n": 0, "fin": False} for s, h in STARTS.items()}
        self.arm_tiles = 0
        for pl in placements:
            self.place(*pl.split())

    def arm_at(self, sq):
        if sq in self.arms and self.arms[sq]["n"] == 0:
            return sq
        for s, a in self.arms.items():
            if a["n"] and not a["fin"] and a["tip"] == sq:
                return s
        return None

    def place(self, kind, sq):
        """Place and return the base points (before coral and algae)."""
        if kind in ARM_KINDS or kind in ENDS:
            arm = self.arms[self.arm_at(sq)]
            if kind in ENDS:
                arm["fin"] = True
                self.occ[sq] = kind
                return (1 + arm["n"]) * (2 if kind == "end-shell" else 1)
            h = {"straight": arm["head"], "turn-in": RIGHT[arm["head"]]}.get(kind, LEFT[arm["head"]])
            arm.update(head=h, n=arm["n"] + 1, tip=_step(sq, h))
            self.arm_tiles += 1
            self.occ[sq] = kind
            return 1
        if kind == "minnow":
            group, todo = {sq}, [sq]
            while todo:
                for y in _adj(todo.pop()):
                    if self.occ.get(y) == "minnow" and y not in group:
                        group.add(y)
                        todo.append(y)
            self.occ[sq] = kind
            return {1: 1, 2: 3, 3: 6}[len(group)]
        self.occ[sq] = kind
        return POINTS.get(kind, 1)

    def sound(self):
        tips = []
        for a in self.arms.values():
            if a["n"] and not a["fin"]:
                t = a["tip"]
                if t is None or t in self.occ or t in STARTS:  # C1
                    return False
                tips.append(t)
        if len(tips) != len(set(tips)):  # C2
            return False
        unstarted = [s for s, a in self.arms.items() if a["n"] == 0]
        for s in unstarted:  # C3
            h = STARTS[s]
            exits = [_step(s, h), _step(s, RIGHT[h]), _step(s, LEFT[h])]
            if s in self.occ or not any(
                x and x not in self.occ and x not in STARTS and x not in tips for x in exits
            ):
                return False
        return 24 - self.arm_tiles >= len(unstarted)  # C4

    def legal(self, kind, sq, simplified):
        if sq in self.occ or sq in OTTO_SQ:
            return False
        if not any(x in self.occ or x in OTTO_SQ for x in _adj(sq)):  # OTP-01/02
            return False
        arm = self.arm_at(sq)
        if kind in ARM_KINDS and arm is None:  # OTP-03/04
            return False
        if kind in ENDS and (arm is None or self.arms[arm]["n"] == 0):  # OTP-06
            return False
        if not simplified and kind == "anglerfish" and not (sq[0] in "ah" or sq[1] in "18"):
            return False  # OTP-09
        if not simplified and kind in FISH and any(self.occ.get(x) == "moray" for x in _adj(sq)):
            return False  # OTP-10
        trial = copy.deepcopy(self)
        trial.place(kind, sq)
        return trial.sound()  # OTP-07

    def any_legal(self, hand, simplified):
        return any(self.legal(k, sq, simplified) for k in set(hand) for sq in SQUARES)


def _otto_checked_game(seed, n, open_game=False, simplified=False):
    e = otto(n, seed=seed, open_game=open_game, simplified=simplified)
    rng = np.random.default_rng(seed)
    effects = not simplified and n > 1
    while e.agents:
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        s = snap(e)
        p = s["to_move"]
        assert a == f"player_{p}"
        idx = np.flatnonzero(e.observe(a)["action_mask"])
        if s["phase"] in ("main", "extra"):
            ocean = Ocean(s["placements"])
            want = {
                64 * KINDS.index(k) + SQUARES.index(sq)
                for k in set(s["hands"][p])
                for sq in SQUARES
                if ocean.legal(k, sq, simplified)
            }
            assert {int(i) for i in idx if i < 1024} == want, s
            assert (1024 in idx) == (s["phase"] == "main") and (1025 in idx) == (s["phase"] == "extra")
        act = int(rng.choice(idx))
        e.step(act)
        t = snap(e)
        if act < 1024:  # OTP-11..17, OTP-27, OTP-30
            kind, sq = KINDS[act // 64], SQUARES[act % 64]
            base = Ocean(s["placements"]).place(kind, sq)
            pts = base * (2 if sq in CORAL else 1) + (sq in ALGAE)
            for q in range(n):
                d = pts if q == p else (-2 if kind == "shark" and effects else 0)
                assert t["scores"][q] - s["scores"][q] == d, (kind, sq, s["scores"], t["scores"])
        if act in (1024, 1025):  # OTP-18/19/23/33/37: the turn ends, then skips and auto passes
            hands = [list(h) for h in s["hands"]]
            pile, skips, passed = list(s["pile"]), list(s["skips"]), list(s["passed"])
            if act == 1024:
                passed[p] = True
            while act == 1025 and len(hands[p]) < 3 and pile:
                hands[p].append(pile.pop(0))
            ocean, q = Ocean(s["placements"]), p
            while not all(passed):
                q = (q + 1) % n
                if skips[q]:
                    skips[q] -= 1
                elif ocean.any_legal(hands[q], simplified):
                    break
                else:
                    passed[q] = True
            if all(passed):
                assert t["to_move"] == -1
            else:
                assert (t["to_move"], t["skips"], t["passed"], t["phase"]) == (q, skips, passed, "main")
                assert t["hands"] == hands
        assert len(t["placements"]) + sum(map(len, t["hands"])) + len(t["pile"]) == 60


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_otp_01_10_model_checked_random_games(n):
    """OTP-01..19, OTP-23/27/30/33/37/39/42: every mask, score and turn hand-over vs a model."""
    _otto_checked_game(10 + n, n)
    _otto_checked_game(20 + n, n, open_game=True)
    _otto_checked_game(30 + n, n, simplified=True)


def test_oao_34_36_eliminated_dealer_passes_the_deal_on():
    """OAO-34/36: the round-1 dealer is knocked out; the deal goes to the next active seat."""
    e = oao(
        3, {"deck_top": ["top-out", "0", "5", "5", "5"], "tiptop_top": [22]}, first_dealer=2, starting_chips=1
    )
    play(e, "play top-out")  # p0, T 22
    play(e, "play 0")  # p1
    assert legal(e) == {"bust"}
    rew = play(e, "bust")  # p2, the dealer, is out
    assert rew == {"player_0": 0, "player_1": 0, "player_2": -1}
    s = snap(e)
    assert s["chips"] == [1, 1, 0]
    assert (s["round"], s["dealer"], s["to_move"], s["total"]) == (2, 0, 1, 0)
    assert e.agent_selection == "player_2"
    e.step(None)
    assert e.agent_selection == "player_1"


def test_oao_28_38_topsy_turvy_knockout_ends_two_player_game():
    """OAO-28/33/38, §5: a Topsy Turvy below T that takes the last chip ends the game."""
    e = oao(
        2,
        {"deck_top": ["top-out", "topsy-turvy", "0", "0"], "tiptop_top": [33, 22]},
        first_dealer=1,
        starting_chips=1,
    )
    play(e, "play top-out")  # p0, T 33
    rew = play(e, "play topsy-turvy")  # p1: L 22 < 33
    assert rew == {"player_0": 1, "player_1": -1}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert snap(e)["to_move"] == -1
