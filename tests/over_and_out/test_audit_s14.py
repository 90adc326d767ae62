"""Audit s14 of the engine against ``rules/over_and_out.md``: positions the earlier tests
leave thin (winner-only rewards when an elimination and truncation share a step, long
counter-clockwise skips, a lose-below-zero ``-10`` that ends the game)."""

from __future__ import annotations

import pytest

from tests.over_and_out import test_reference as reference
from tests.over_and_out.helpers import engine, finish_randomly, legal, play, snap, table

P0, P1, P2, P3 = "player_0", "player_1", "player_2", "player_3"


def test_oao_41_s12_winner_only_elimination_and_truncation_same_step() -> None:
    """OAO-41, §5 (winner-only truncation 0 each), §3 AEC view: the OAO-S12 start under
    ``reward_mode="winner_only"``: the bust that eliminates player_0 pays it -1 and
    terminates it (not truncated); the three players still in are truncated with 0."""
    e = table(
        ["5", "top-out", "0", "0", "5", "5", "5", "5"],
        [22],
        num_players=4,
        first_dealer=3,
        starting_chips=1,
        max_plays=5,
        reward_mode="winner_only",
    )
    for action in ("play 5", "play top-out", "play 0", "play 0"):
        play(e, action)
    assert legal(e) == {"bust"}
    play(e, "bust")
    assert e.rewards == {P0: -1.0, P1: 0.0, P2: 0.0, P3: 0.0}
    assert e.terminations[P0] and not e.truncations[P0]
    for a in (P1, P2, P3):
        assert e.truncations[a] and not e.terminations[a]
    assert e.agent_selection == P0  # OAO-41: the eliminated agent's dead step first
    assert snap(e)["chips"] == [0, 1, 1, 1]
    totals = finish_randomly(e)  # what each agent's last() reports in its dead step
    assert totals == {P0: -1.0, P1: 0.0, P2: 0.0, P3: 0.0}
    assert not e.agents


def test_oao_41_random_play_elimination_and_truncation_same_step() -> None:
    """OAO-41, §5 truncation: random play (N = 4, one chip, max_plays 12, winner-only, seed 2)
    where the 12th play eliminates a player, checked step by step against the independent
    reference; the eliminated agent is terminated, the others truncated."""
    assert (
        reference.env_playout(
            {"num_players": 4, "starting_chips": 1, "max_plays": 12, "reward_mode": "winner_only"}, 2
        )
        == 12
    )


def test_oao_26_spin_out_counter_clockwise_skips_two_eliminated_seats() -> None:
    """OAO-04, OAO-26, OAO-34: with seats 1 and 2 out of 6, spin-out by seat 4 sends play
    counter-clockwise: 4 -> 3 -> 0 (2 and 1 skipped) -> 5 -> 4."""
    state = engine(["spin-out"], num_players=6, first_dealer=3, deck_counts={"0": 40, "spin-out": 1})
    for seat in (1, 2):
        state.chips[seat] = 0
        state.hands[seat] = []
        state.out_order.append(seat)
    assert state.current_player() == 4 and 8 in state.hands[4]
    state.apply(8)
    order = [state.current_player()]
    for _ in range(4):
        state.apply(0)  # only 0s are left in the deck
        order.append(state.current_player())
    assert state.direction == -1
    assert order == [3, 0, 5, 4, 3]


@pytest.mark.parametrize("mode", ["placement", "winner_only"])
def test_oao_42_minus_ten_below_ten_ends_the_game(mode: str) -> None:
    """OAO-42, OAO-33, OAO-38, §5: under lose_below_zero a -10 at T 0 loses the round; with one
    chip each (N = 2) that eliminates the mover: game over, -1 / +1, all terminated."""
    e = table(
        ["-10", "0"],
        [22],
        num_players=2,
        first_dealer=1,
        starting_chips=1,
        minus10_rule="lose_below_zero",
        reward_mode=mode,
    )
    assert legal(e) == {"play -10"}
    play(e, "play -10")
    assert e.rewards == {P0: -1.0, P1: 1.0}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    s = snap(e)
    assert (s["chips"], s["total"], s["round"]) == ([0, 1], 0, 1)
