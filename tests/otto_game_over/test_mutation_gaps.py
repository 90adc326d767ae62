"""Scenario tests closing gaps found by mutation testing of the OTTO Game Over engine.

Each test pins a rule of ``shared/rules/otto_game_over.md`` (IDs in the names and
docstrings) that a plausible engine bug could break without any earlier test noticing.
Positions are set through the documented ``reset(options={"position": ...})`` hook.
"""

from __future__ import annotations

from envs.otto_game_over import encode
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import DESIGN_IDS, VERTEX_OF_NAME
from tests.otto_game_over.helpers import board, legal, make, play, points, shapes
from tests.otto_game_over.test_scenarios import S14_BOARD

# Six A4 tiles around b2: an A4 on b2 closes small circles at vc2 (its SE corner: rank line
# 2, file line c) and vb3 (its NW corner: rank line 3, file line b), nothing else.
AROUND_B2 = {"a2": "A4/0", "a3": "A4/0", "b3": "A4/0", "b1": "A4/0", "c1": "A4/0", "c2": "A4/0"}


def test_ogo_20_marker_shortage_orders_by_rank_line_before_file_line() -> None:
    """OGO-20, OGO-22: one placement closes small@vc2 and small@vb3 with one small marker
    left. Vertex order is rank line ascending first, so vc2 (rank 2) gets p0's marker even
    though vb3 has the lower file line; vb3 stays unclaimed until p1 claims it."""
    pos = {
        "board": AROUND_B2,
        "tables": ["G16", "G16"],
        "tower": ["A4", "Z0"],
        "markers": [{"small": 1}, {"small": 4}],
    }
    st = make(pos)
    assert "drawn b2 r0" in legal(st)
    play(st, "drawn b2 r0")
    assert shapes(st) == {"small@vc2": 0, "small@vb3": 1}  # p1 claimed vb3 at its turn start
    assert points(st) == [1, 1] and st.supply[0][0] == 0 and st.supply[1][0] == 3


def test_ogo_22_claims_take_the_oldest_unclaimed_shape_first() -> None:
    """OGO-22: p0 has one small marker for two unclaimed small circles; vb3 closed first
    (it is listed first), so p0 claims vb3 although vc2 comes first in vertex order."""
    pos = {
        "board": {**AROUND_B2, "b2": "A4/0"},
        "shapes": {"small@vb3": None, "small@vc2": None},
        "tables": ["G16", "G16"],
        "tower": ["Z0"],
        "markers": [{"small": 1}, {"small": 0}],
    }
    st = make(pos)
    assert shapes(st) == {"small@vb3": 0, "small@vc2": None}


def test_ogo_22_shapes_closed_together_are_claimed_in_vertex_order() -> None:
    """OGO-22 with OGO-20's order: p0, with no small marker, closes small@vc2 and small@vb3 in
    one placement, so both are equally old; p1, with one small marker, claims vc2 at its turn
    start (rank line 2 before 3), and vb3 stays unclaimed (env doc page)."""
    pos = {
        "board": AROUND_B2,
        "tables": ["G16", "G16"],
        "tower": ["A4", "Z0"],
        "markers": [{"small": 0}, {"small": 1}],
    }
    st = make(pos)
    play(st, "drawn b2 r0")
    assert shapes(st) == {"small@vc2": 1, "small@vb3": None}
    assert points(st) == [0, 1] and st.supply[1][0] == 0


def test_ogo_01_ogo_38_adjacency_after_a_quantum_leap() -> None:
    """OGO-01, OGO-38: after b3 leaps to e5, the squares next to b3 only (a3, b2, b4) are
    no longer playable, while b3 itself is free again and touches c3; e5 adds d5 and e4.
    The drawn Z0 must be placed anywhere legal (OGO-14), so every adjacent square shows."""
    pos = {
        "board": {"b3": "A4/0"},
        "tables": ["G16", "G16"],
        "tower": ["Z0"],
        "hands": [["quantum-leap"], []],
    }
    st = make(pos)
    play(st, "card quantum-leap b3 e5 r0")
    moves = legal(st)
    assert {m.split()[1] for m in moves} == {"b3", "c2", "c4", "d3", "d5", "e4"}
    assert all(m.startswith("drawn ") for m in moves) and len(moves) == 24


#: three teams in their tie-break match (S14's board), p0 and p1 tied on 24: one tile fills the board
TIE_BREAK_POS = {
    "board": board(S14_BOARD),
    "tower": ["E12", "G16", "G16", "A4"],
    "tower_rest": False,
    "tables": [None, None, None],
    "totals": [24, 24, 20],
    "tiebreak": True,
}


def test_game_rewards_of_a_two_way_draw_among_three_teams() -> None:
    """§5 'game', OGO-55, OGO-56: p0 and p1 stay tied after the tie-break match and the tower
    cannot supply a second full round of tile draws: they share the win. With T = 3, k = 2
    a winner gets (T-k)/(k(T-1)) = 1/4 and the loser -1/(T-1) = -1/2 (zero-sum)."""
    st = make(TIE_BREAK_POS, num_players=3)
    play(st, "drawn b1 r0")  # fills the board, closes nothing; rounds: G16 = G16, then 1 tile left
    assert st.is_terminal() and st.totals == [24, 24, 20] and st.winners == [0, 1]
    assert list(st.returns()) == [0.25, 0.25, -0.5]


def test_observation_markers_and_tables_are_egocentric() -> None:
    """§7 (env docstring): vertex planes give the marker owner's team relative to the
    observer, and table tiles are listed from the observer clockwise."""
    game = OttoGameOverGame(num_players=3)
    st = make(
        {
            "board": {"d1": "A4/0", "e1": "A4/0", "d2": "A4/0", "e2": "A4/0", "d3": "A4/0"},
            "shapes": {"small@ve2": 0},
            "tables": ["A4", "B7", "G16"],
            "tower": ["Z0"],
        },
        num_players=3,
    )
    v, t = encode.OFFSET["vertices"], encode.OFFSET["tables"]
    code = {d: 2 + i for i, d in enumerate(DESIGN_IDS)}  # tile one-hot: none, dark, Z0..G16
    for seat in range(3):
        obs = game.observe(st, seat)
        planes = [p for p in range(15) if obs[v + p * 36 + VERTEX_OF_NAME["ve2"]]]
        assert planes == [(0 - seat) % 3]  # small marker (kind 0) of relative team (0 - seat)
        tables = obs[t : t + 40].reshape(4, 10)
        seen = [int(tables[r].argmax()) for r in range(3)]
        assert seen == [code[["A4", "B7", "G16"][(seat + r) % 3]] for r in range(3)]
