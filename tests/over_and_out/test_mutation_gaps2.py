"""Second round of tests closing gaps found by mutation testing of the Over and Out engine.

Each test names the rule(s) of ``rules/over_and_out.md`` it checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.over_and_out.bots import immediate
from envs.over_and_out.cards import MINUS10, TOPSY_TURVY
from envs.over_and_out.game import OverAndOutGame
from tests.over_and_out.helpers import engine


def test_s3_resample_hidden_shuffles_the_tiptop_pile_order() -> None:
    """§3 information table and OAO-30: the order of the Tip Top pile is visible to nobody
    (only which values remain), so a determinization must not keep the true order: over 20
    re-deals of a fresh round (L 22 turned up, 4 cards face down) more than one order of the
    Tip Top pile appears, always holding the 4 values 33, 44, 55, 66."""
    game = OverAndOutGame(num_players=2, first_dealer=1)
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], [22], num_players=2, first_dealer=1)
    assert sorted(state.tiptop_pile) == [33, 44, 55, 66]
    rng = np.random.default_rng(7)
    orders = set()
    for _ in range(20):
        other = game.resample_hidden(state, 0, rng)
        assert sorted(other.tiptop_pile) == [33, 44, 55, 66]
        orders.add(tuple(other.tiptop_pile))
    assert len(orders) > 1


def test_oao_28_bots_count_topsy_turvy_equal_to_total_as_safe() -> None:
    """OAO-28: a new L equal to T is not lower, so it is safe. L 33 is up, T 22 and the Tip
    Top pile holds 22, 44, 55, 66: every possible new L is >= 22, so the bots' immediate
    risk of `play topsy-turvy` is 0 (expected T / L = mean(22/22, 22/44, 22/55, 22/66))."""
    state = engine(
        ["topsy-turvy", "0", "0", "0", "0", "0", "0", "0"], [33], total=22, num_players=2, first_dealer=1
    )
    assert sorted(state.tiptop_pile) == [22, 44, 55, 66]
    risk, pressure = immediate(state, TOPSY_TURVY)
    assert risk == 0.0
    assert pressure == pytest.approx(np.mean([22 / 22, 22 / 44, 22 / 55, 22 / 66]))


def test_oao_29_bots_topsy_turvy_outcomes_after_tiptop_pile_exhaustion() -> None:
    """OAO-29 (scenario OAO-S10): once the Tip Top pile is empty, Topsy Turvy turns up one of
    the discarded Tip Top cards (never the current L). After four Topsy Turvys L is 66 and
    the discards are 22, 33, 44, 55; with T forced to 40 two of the four outcomes (22, 33)
    lose the round: the bots' immediate risk is 1/2, expected T / L = mean(40/44, 40/55)."""
    state = engine(
        ["topsy-turvy"] * 4 + ["0"] * 4 + ["topsy-turvy"] * 4 + ["0"] * 4,
        [22, 33, 44, 55, 66],
        num_players=2,
        first_dealer=1,
        deck_counts={"0": 20, "topsy-turvy": 20},
    )
    for _ in range(4):
        state.apply(TOPSY_TURVY)  # p0
        state.apply(0)  # p1
    assert state.tiptop == 66 and state.tiptop_pile == [] and state.tiptop_discards == [22, 33, 44, 55]
    assert state.current_player() == 0
    state.total = 40
    state._bits = -1
    risk, pressure = immediate(state, TOPSY_TURVY)
    assert risk == pytest.approx(0.5)
    assert pressure == pytest.approx(np.mean([40 / 44, 40 / 55]))


@pytest.mark.parametrize("rule", ["require_10", "lose_below_zero"])
def test_oao_21_oao_42_bots_minus_ten_at_exactly_ten_is_safe(rule: str) -> None:
    """OAO-21 ("solo puede jugar esta carta si el total es 10 o más") and OAO-42 (it loses
    only with T < 10): `-10` at T = 10 is a safe play to T = 0, so the bots' immediate risk
    is 0 and the expected T / L is 0."""
    state = engine(
        ["-10", "0", "0", "0", "1", "1", "1", "1"],
        [22],
        total=10,
        num_players=2,
        first_dealer=1,
        minus10_rule=rule,
    )
    assert "play -10" in {state.action_to_string(a) for a in state.legal_actions()}
    assert immediate(state, MINUS10) == (0.0, 0.0)
    state.apply(MINUS10)
    assert state.total == 0 and state.chips == [4, 4]


def test_s5_winner_only_evaluation_sums_like_the_returns() -> None:
    """§5 winner_only: every eliminated player ends with -1 and the winner +1, so the returns
    of a whole N = 3 game sum to 1 - 2 = -1 and lie in [-1, +1]. The MCTS static evaluation
    of a fresh round (nobody out yet) shares exactly those unpaid values: sum -1."""
    game = OverAndOutGame(num_players=3, first_dealer=2, reward_mode="winner_only")
    state = engine(["1", "2", "3", "4"], [22], num_players=3, first_dealer=2, reward_mode="winner_only")
    values = game.evaluate(state)
    assert values.sum() == pytest.approx(-1.0)
    assert np.all(values >= -1.0) and np.all(values <= 1.0)
