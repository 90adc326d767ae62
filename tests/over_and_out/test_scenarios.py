"""Spec §9 conformance scenarios OAO-S01 .. OAO-S12, one test each, through ``env()``."""

from __future__ import annotations

import pytest

from tests.over_and_out.helpers import finish_randomly, legal, play, snap, table

P0, P1, P2, P3 = "player_0", "player_1", "player_2", "player_3"


def test_s01_legality_and_flow() -> None:
    """OAO-S01 (OAO-07, OAO-11, OAO-12, OAO-14, OAO-18..OAO-21, OAO-23)."""
    e = table(
        ["5", "x2", "-10", "1", "x2", "3", "0", "top-out", "4", "2", "0", "5", "3", "1"],
        [22],
        num_players=2,
        first_dealer=1,
    )
    s = snap(e)
    assert s["hands"] == [["1", "5", "x2", "-10"], ["0", "3", "x2", "top-out"]]
    assert (s["to_move"], s["tiptop"], s["total"], s["draw_pile"]) == (0, 22, 0, 64)
    steps = [  # (mover, legal before, play, T after, card drawn)
        (0, {"play 1", "play 5", "play x2"}, "play 5", 5, "4"),
        (1, {"play 0", "play 3", "play x2", "play top-out"}, "play x2", 10, "2"),
        (0, {"play 1", "play 4", "play x2", "play -10"}, "play x2", 20, "0"),
        (1, {"play 0", "play 2", "play top-out"}, "play 2", 22, "5"),
        (0, {"play 0", "play -10"}, "play -10", 12, "3"),
        (1, {"play 0", "play 3", "play 5", "play top-out"}, "play top-out", 22, "1"),
    ]
    for mover, before, action, total, drawn in steps:
        assert snap(e)["to_move"] == mover
        assert legal(e) == before
        hand = list(snap(e)["hands"][mover])
        play(e, action)
        hand.remove(action.split()[1])
        assert sorted(snap(e)["hands"][mover]) == sorted([*hand, drawn])
        assert snap(e)["total"] == total
    assert legal(e) == {"play 0"}
    s = snap(e)
    assert s["hands"] == [["0", "1", "3", "4"], ["0", "1", "3", "5"]]
    assert (s["draw_pile"], s["play_pile"], s["plays"]) == (58, 6, 6)


def test_s02_forced_bust_next_round() -> None:
    """OAO-S02 (OAO-15, OAO-33, OAO-35, OAO-36, OAO-37)."""
    e = table(["5", "5", "4", "4", "top-out", "0", "0", "0", "3", "1"], [22], num_players=2, first_dealer=1)
    play(e, "play 5")
    assert snap(e)["total"] == 5 and sorted(snap(e)["hands"][0]) == ["3", "4", "4", "5"]
    play(e, "play top-out")
    assert snap(e)["total"] == 22
    assert snap(e)["hands"][0] == ["3", "4", "4", "5"]
    assert legal(e) == {"bust"}
    play(e, "bust")
    s = snap(e)
    assert s["chips"] == [3, 4]
    assert (s["round"], s["dealer"], s["to_move"], s["total"], s["direction"]) == (2, 0, 1, 0, 1)
    assert [len(h) for h in s["hands"]] == [3, 4]
    assert (s["draw_pile"], s["play_pile"]) == (65, 0)
    assert e.agent_selection == P1 and not any(e.terminations.values())


def test_s03_topsy_turvy_below_total() -> None:
    """OAO-S03 (OAO-16, OAO-24, OAO-28)."""
    e = table(
        ["top-out", "0", "0", "0", "topsy-turvy", "0", "0", "0", "1"], [33, 22], num_players=2, first_dealer=1
    )
    play(e, "play top-out")
    assert snap(e)["total"] == 33 == snap(e)["tiptop"]
    assert legal(e) == {"play 0", "play topsy-turvy"}
    play(e, "play topsy-turvy")
    s = snap(e)
    assert s["chips"] == [4, 3]
    assert (s["round"], s["dealer"], s["to_move"], s["plays"]) == (2, 0, 1, 2)


def test_s04_topsy_turvy_equal_total() -> None:
    """OAO-S04 (OAO-24, OAO-27, OAO-28: a new L equal to T is safe)."""
    e = table(
        ["5", "x2", "topsy-turvy", "0", "5", "2", "0", "0", "1", "1", "1", "1"],
        [44, 22, 55],
        num_players=2,
        first_dealer=1,
    )
    for action in ("play 5", "play 5", "play x2", "play 2"):
        play(e, action)
    assert snap(e)["total"] == 22 and snap(e)["tiptop"] == 44
    draw_before = snap(e)["draw_pile"]
    play(e, "play topsy-turvy")
    s = snap(e)
    assert (s["tiptop"], s["total"], s["tiptop_pile"], s["chips"], s["round"]) == (22, 22, 3, [4, 4], 1)
    assert len(s["hands"][0]) == 4 and s["draw_pile"] == draw_before - 1
    assert s["hands"][1] == ["0", "0", "1", "1"]
    assert legal(e) == {"play 0"}


def test_s05_spin_out_three_players() -> None:
    """OAO-S05 (OAO-22, OAO-26)."""
    e = table(
        ["spin-out", "1", "1", "1", "2", "2", "2", "2", "3", "3", "3", "3", "0", "0", "0", "0"],
        [22],
        num_players=3,
        first_dealer=2,
    )
    assert snap(e)["to_move"] == 0
    play(e, "play spin-out")
    assert (snap(e)["direction"], snap(e)["to_move"]) == (-1, 2)
    play(e, "play 3")
    assert snap(e)["to_move"] == 1
    play(e, "play 2")
    assert snap(e)["to_move"] == 0
    play(e, "play 1")
    assert (snap(e)["to_move"], snap(e)["total"]) == (2, 6)


def test_s06_spin_out_two_players() -> None:
    """OAO-S06 (OAO-25: with two players spin-out is not a skip)."""
    e = table(["spin-out", "1", "1", "1", "2", "2", "2", "2", "0", "0"], [22], num_players=2, first_dealer=1)
    play(e, "play spin-out")
    assert (snap(e)["to_move"], snap(e)["direction"]) == (1, -1)
    play(e, "play 2")
    assert snap(e)["to_move"] == 0
    play(e, "play 1")
    assert (snap(e)["to_move"], snap(e)["total"]) == (1, 3)


def test_s07_reshuffle_and_truncation() -> None:
    """OAO-S07 (OAO-32 reshuffle incl. the card just played; §5 truncation, OAO-39)."""
    e = table(num_players=2, first_dealer=1, deck_counts={"0": 9}, max_plays=6)
    draws, plays = [], []
    for i in range(6):
        assert snap(e)["to_move"] == i % 2
        play(e, "play 0")
        draws.append(snap(e)["draw_pile"])
        plays.append(snap(e)["play_pile"])
    assert draws == [0, 1, 0, 1, 0, 1]
    assert plays == [1, 0, 1, 0, 1, 0]
    assert e.truncations == {P0: True, P1: True}
    assert e.terminations == {P0: False, P1: False}
    assert e.rewards == {P0: 0, P1: 0}
    # the doc page's reading of §8: after a truncation nobody is to play, through every dead step
    assert snap(e)["to_move"] == -1 and snap(e)["plays"] == 6
    e.step(None)
    assert snap(e)["to_move"] == -1


@pytest.mark.parametrize("mode", ["placement", "winner_only"])
def test_s08_elimination_and_placement(mode: str) -> None:
    """OAO-S08 (OAO-34, OAO-36, OAO-38, OAO-41; §5 placement and winner_only)."""
    e = table(
        ["5", "top-out", "0", "5", "5", "5"],
        [22],
        num_players=3,
        first_dealer=2,
        starting_chips=1,
        reward_mode=mode,
    )
    assert snap(e)["hands"] == [["5"], ["top-out"], ["0"]]
    for action in ("play 5", "play top-out", "play 0"):
        play(e, action)
    assert snap(e)["total"] == 22
    assert legal(e) == {"bust"}
    play(e, "bust")
    assert e.agent_selection == P0  # the dead step comes first
    obs, rew, term, trunc, _ = e.last()
    assert (rew, term, trunc) == (-1, True, False)
    assert not obs["action_mask"].any()
    s = snap(e)
    assert s["chips"] == [0, 1, 1]
    assert (s["round"], s["dealer"], s["to_move"]) == (2, 1, 2)
    assert [len(h) for h in s["hands"]] == [0, 1, 1]
    e.step(None)
    assert e.agents == [P1, P2] and e.agent_selection == P2
    totals = finish_randomly(e)
    assert not e.agents
    final = e.unwrapped.state.returns()
    loser = e.unwrapped.state.out_order[-1]
    winner = 3 - loser
    assert final[0] == -1 and final[winner] == 1
    assert final[loser] == (0 if mode == "placement" else -1)
    assert totals[f"player_{loser}"] == final[loser] and totals[f"player_{winner}"] == 1
    if mode == "placement":
        assert sum(final) == 0


@pytest.mark.parametrize("rule", ["require_10", "lose_below_zero"])
def test_s09_minus_ten_rule(rule: str) -> None:
    """OAO-S09 (OAO-21, OAO-42)."""
    e = table(
        ["-10", "0", "0", "0", "1", "1", "1", "1"], [22], num_players=2, first_dealer=1, minus10_rule=rule
    )
    if rule == "require_10":
        assert legal(e) == {"play 0"}
        return
    assert legal(e) == {"play 0", "play -10"}
    play(e, "play -10")
    s = snap(e)
    assert s["chips"] == [3, 4]
    assert (s["round"], s["dealer"], s["to_move"]) == (2, 0, 1)


def test_s10_tiptop_pile_exhaustion() -> None:
    """OAO-S10 (OAO-24, OAO-27, OAO-29, OAO-30)."""
    tops = ["topsy-turvy"] * 4 + ["0"] * 4
    for seed in range(6):
        e = table(
            tops + tops,
            [22, 33, 44, 55, 66],
            seed=seed,
            num_players=2,
            first_dealer=1,
            deck_counts={"0": 20, "topsy-turvy": 20},
        )
        for limit in (33, 44, 55, 66):
            play(e, "play topsy-turvy")
            assert snap(e)["tiptop"] == limit and snap(e)["total"] == 0
            play(e, "play 0")
        assert snap(e)["tiptop_pile"] == 0
        play(e, "play topsy-turvy")
        s = snap(e)
        assert s["tiptop"] in (22, 33, 44, 55) and s["tiptop_pile"] == 3
        assert s["chips"] == [4, 4] and s["round"] == 1


def test_s11_illegal_action() -> None:
    """OAO-S11 (OAO-43: env() ends the game on an illegal action, -1 to the mover)."""
    e = table(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    obs, *_ = e.last()
    assert obs["action_mask"][11] == 0
    e.step(11)
    assert e.rewards == {P0: -1, P1: 0}
    assert all(e.terminations.values())
    finish_randomly(e)
    assert not e.agents


def test_s12_truncation_after_elimination() -> None:
    """OAO-S12 (§5 truncation averages the unassigned placements; OAO-41)."""
    e = table(
        ["5", "top-out", "0", "0", "5", "5", "5", "5"],
        [22],
        num_players=4,
        first_dealer=3,
        starting_chips=1,
        max_plays=5,
    )
    for action in ("play 5", "play top-out", "play 0", "play 0"):
        play(e, action)
    assert snap(e)["hands"][0] == ["5"] and legal(e) == {"bust"}
    play(e, "bust")
    assert e.rewards[P0] == -1 and e.terminations[P0] and not e.truncations[P0]
    for a in (P1, P2, P3):
        assert e.rewards[a] == pytest.approx(1 / 3)
        assert e.truncations[a] and not e.terminations[a]
    assert sum(e.rewards.values()) == pytest.approx(0)
    assert snap(e)["plays"] == 5 and e.unwrapped.state.is_truncated()
    finish_randomly(e)
    assert not e.agents
