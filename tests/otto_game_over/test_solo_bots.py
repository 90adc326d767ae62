"""Solo play by the bots (OGO-60..62): the ``heuristic`` bot and the MCTS evaluation value a
solo board by how close it is to a victory (``evaluate.solo_progress``), read from public
information only, and the heuristic wins some deals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from envs.otto_game_over.bots import HeuristicBot, solo_placement_value
from envs.otto_game_over.evaluate import (
    EIGHT_PARTIAL,
    PARTIAL,
    evaluate,
    solo_progress,
    solo_shares,
    solo_value,
)
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.rules import PLACE, State
from tests.otto_game_over.helpers import board, legal, make
from tests.otto_game_over.test_scenarios import S15_BOARD


def _solo_positions(seed: int, **params: object) -> list[State]:
    """Every placement decision of one random solo deal."""
    game = OttoGameOverGame(num_players=1, **params)
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(np.random.default_rng(seed + 100))
    found = []
    while not st.is_terminal():
        if st.phase == PLACE:
            found.append(st.clone())
        legal_actions = st.legal_actions()
        st.apply(legal_actions[rng.integers(len(legal_actions))])
    return found


def test_empty_board_progress_by_hand() -> None:
    """OGO-61: on the empty solo board the frame's 3/4 small circles at the four corners
    (3 of 4 quadrants), its half-squares (2 of 4) and the centre's four big-circle quarters
    (1 of 4) are the half-built shapes; no X tile, so nothing of the 8."""
    game = OttoGameOverGame(num_players=1)
    st = game.new_initial_state(np.random.default_rng(0))
    small = PARTIAL * 4 * 0.75**2 / 4  # the four corners, 4 markers needed
    big = PARTIAL * 4 * 0.25**2 / 4  # vc3, vd3, vc4, vd4
    square = PARTIAL * 3 * 0.5**2 / 3  # three of the eight half-squares, 3 markers needed
    shares = [small, big, square, 0.0]
    expected = 0.5 * sum(shares) / 4 + 0.5 * math.prod(0.3 + 0.7 * x for x in shares)
    got = solo_progress(solo_shares(st.near, st.far, st.design, st.rot, st.supply[0], False))
    assert got == pytest.approx(expected, abs=1e-12)
    assert evaluate(st)[0] == pytest.approx(-1 + 1.5 * expected)
    # every requirement met is progress 1, whatever the board
    assert solo_progress(solo_shares(st.near, st.far, st.design, st.rot, [0, 0, 0], True)) == pytest.approx(
        1.0
    )


def test_open_x_tile_counts_for_the_eight() -> None:
    """OGO-06, OGO-61: an X tile whose lobes are still open counts toward the 8 by the small
    strokes in the six other quadrants of its two lobe vertices; a foreign stroke there
    kills it."""

    def eight_share(placed: dict[str, str], square_lobes: bool = False) -> float:
        st = make({"board": placed, "tower": ["A4"]}, num_players=1)
        return solo_shares(st.near, st.far, st.design, st.rot, st.supply[0], False, square_lobes)[3]

    # D10 r0 on c2: lobes at its SW and SE corners, the vertices vc2 and vd2
    assert eight_share({"c2": "D10/0"}) == 0.0  # open, but no small stroke around the lobes yet
    one = eight_share({"c2": "D10/0", "b2": "A4/0"})  # b2's SE corner is on vc2: 1 of 6
    assert one == pytest.approx(EIGHT_PARTIAL * (1 / 6) ** 2)
    two = eight_share({"c2": "D10/0", "b2": "A4/0", "d2": "A4/0"})  # d2's SW corner on vd2: 2 of 6
    assert two == pytest.approx(EIGHT_PARTIAL * (2 / 6) ** 2)
    assert eight_share({"c2": "D10/0", "b2": "G16/0"}) == 0.0  # a square stroke in a lobe
    assert eight_share({"c2": "C8/0", "b2": "A4/0"}) == 0.0  # no X tile
    # eight_lobes="round_or_square": a lobe of square strokes is alive, a lobe of both kinds not
    square = eight_share({"c2": "D10/0", "b2": "G16/0"}, square_lobes=True)
    assert square == pytest.approx(EIGHT_PARTIAL * (1 / 6) ** 2)
    both = {"c2": "D10/0", "b2": "G16/0", "c1": "A4/0"}  # c1's NW corner is on vc2 too
    assert eight_share(both, square_lobes=True) == 0.0
    assert eight_share({"c2": "D10/0", "b2": "A4/0"}, square_lobes=True) == one
    st = make({"board": {"c2": "D10/0"}, "tower": ["A4"]}, num_players=1)
    assert solo_shares(st.near, st.far, st.design, st.rot, st.supply[0], True)[3] == 1.0


SOLO_PARAMS = [{}, {"eight_lobes": "round_or_square"}, {"head_in_the_clouds": True}]


@pytest.mark.parametrize("params", SOLO_PARAMS, ids=["default", "square-lobes", "head-in-clouds"])
@pytest.mark.parametrize("seed", range(3))
def test_solo_placement_value_equals_playing_it(seed: int, params: dict[str, object]) -> None:
    """OGO-61/62: the heuristic's value of each placement (read off a copy of the board) is
    the evaluation of the position after playing it: the victory's reward, -1 for a full
    board, else ``solo_value(progress)``."""
    checked = 0
    for st in _solo_positions(seed, **params)[::2]:
        for a in st.legal_actions():
            after = st.clone()
            after.apply(a)
            assert solo_placement_value(st, a) == pytest.approx(float(evaluate(after)[0]), abs=1e-12)
            checked += 1
    assert checked > 100


def test_s15_heuristic_takes_the_victory() -> None:
    """S15, OGO-61, OGO-62: both forced 8s also place the last small marker (``r0`` at vf2,
    ``r3`` at ve1), so both are the victory (42 points, 42/32), valued above any running
    match (at most ``solo_value(1.0)``), and the heuristic plays one of them."""
    shapes = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": shapes, "tower": ["D10"]}, num_players=1)
    assert legal(st) == {"drawn e1 r0", "drawn e1 r3"}
    game = OttoGameOverGame(num_players=1)
    wins = {game.string_to_action(m) for m in ("drawn e1 r0", "drawn e1 r3")}
    for a in wins:
        assert solo_placement_value(st, a) == pytest.approx(42 / 32)
    assert solo_value(1.0) < 42 / 32
    bot = HeuristicBot(game)
    for seed in range(5):
        assert bot.act(st, 0, np.random.default_rng(seed)) in wins


def test_solo_heuristic_is_blind_to_the_tower_order() -> None:
    """OGO-60, bots read no hidden information: the order of the tower (face down) does not
    change the heuristic's solo choices for a fixed seed."""
    game = OttoGameOverGame(num_players=1)
    bot = HeuristicBot(game)
    for st in _solo_positions(7)[::3]:
        other = st.clone()
        np.random.default_rng(1).shuffle(other.tower)
        assert bot.act(st, 0, np.random.default_rng(3)) == bot.act(other, 0, np.random.default_rng(3))


def test_solo_heuristic_wins_some_deals() -> None:
    """OGO-61: the solo-aware heuristic wins some deals (measured: 46 of 1,000; the bots that
    only counted immediate points won none of 200). Deals 0-99 at these seeds: 6 wins, 9.52 markers."""
    game = OttoGameOverGame(num_players=1)
    bot = HeuristicBot(game)
    wins = markers = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        st = game.new_initial_state(np.random.default_rng(10_000 + seed))
        while not st.is_terminal():
            st.apply(bot.act(st, 0, rng))
        wins += st.returns()[0] >= 0
        markers += 11 - sum(st.supply[0])
        if st.returns()[0] >= 0:
            assert st.solo_eights > 0 and not any(st.supply[0])
    assert wins >= 3
    assert markers / 100 > 9.0  # the immediate-points heuristic placed 5.5 of 11 on average


def test_solo_victory_on_the_last_slot() -> None:
    """OGO-61/62 (doc page, "Decisions"): the placement that completes the victory and fills
    the last slot wins (the board did not fill *first*): 24 + 8 + 0 empty - 0 unmarked = 32;
    the heuristic values it so."""
    placed = board(S15_BOARD)
    for sq in ("a2", "a3", "a4", "e3", "e4"):  # dead-line tiles close nothing
        placed[sq] = "Z0/0"
    shapes = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": placed, "shapes": shapes, "tower": ["D10"]}, num_players=1)
    game = OttoGameOverGame(num_players=1)
    win = game.string_to_action("drawn e1 r0")
    assert solo_placement_value(st, win) == pytest.approx(1.0)
    st.apply(win)
    assert min(st.design) >= 0  # the board is full
    assert st.is_terminal() and st.match_scores == [32] and st.returns()[0] == pytest.approx(1.0)
