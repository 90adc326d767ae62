"""Spec §9 conformance scenarios S1-S15, one test each (rule IDs cited per test)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over.geometry import DESIGN_IDS, TILE_VALUE, tile_value_of_strokes
from envs.otto_game_over_v0 import env as make_env
from tests.otto_game_over.helpers import board, legal, make, p_eight, play, points, shapes

S3_POS = {
    "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
    "tables": ["B7", "A4"],
    "tower": ["E12", "G16"],
}


def test_s1_tile_values() -> None:
    """S1, OGO-09: stroke points (+8 per X pair) equal the table values 0,4,7,8,10,12,12,16."""
    values = [tile_value_of_strokes(d) for d in range(len(DESIGN_IDS))]
    assert values == list(TILE_VALUE[:8])
    assert sorted(values) == [0, 4, 7, 8, 10, 12, 12, 16]


def test_s2_opening() -> None:
    """S2, OGO-01, OGO-02: only b3, c2, c4, d3 next to the centre, every orientation."""
    st = make({"tables": ["B7", "G16"], "tower": ["D10"]})
    expected = {
        f"{t} {sq} r{k}" for t in ("drawn", "table") for sq in ("b3", "c2", "c4", "d3") for k in range(4)
    }
    assert legal(st) == expected and len(expected) == 32
    assert "drawn a1 r0" not in legal(st)


def test_s3_square_and_circle_score_six() -> None:
    """S3, OGO-08, OGO-11, OGO-19: one tile closes square@ve4 + big@ve4 = 6 points."""
    st = make(S3_POS)
    assert legal(st) == {
        "drawn e2 r0",
        "drawn e2 r2",
        "drawn e4 r0",
        "drawn e4 r2",
        "table e2 r2",
        "table e4 r0",
    }
    play(st, "drawn e4 r0")
    assert shapes(st) == {"big@ve4": 0, "square@ve4": 0}
    assert points(st) == [6, 0]
    assert st.supply[0] == [4, 3, 2]


def test_s4_must_score_and_head_in_the_clouds() -> None:
    """S4, OGO-11, OGO-58, OGO-63: a non-scoring move is illegal unless head_in_the_clouds."""
    e = make_env()
    e.reset(seed=0, options={"position": S3_POS})
    a = e.unwrapped.string_to_action("drawn b3 r0")
    assert e.last()[0]["action_mask"][a] == 0
    e.step(a)
    assert e.rewards == {"player_0": -1, "player_1": 0}
    assert all(e.terminations.values())

    st = make(S3_POS, head_in_the_clouds=True)
    assert len(legal(st)) == 56 and "drawn b3 r0" in legal(st)
    play(st, "drawn b3 r0")
    assert st.to_move == 1 and st.drawn == DESIGN_IDS.index("G16") and st.tables[1] == DESIGN_IDS.index("A4")
    play(st, "drawn e4 r0")
    assert shapes(st) == {"square@ve4": 1} and points(st) == [0, 4]


def test_s5_zero_tile_beats_an_eight() -> None:
    """S5, OGO-14: a drawn Z0 must be placed, even when the table tile would close an 8."""
    st = make(p_eight(tower=["Z0"]))
    moves = legal(st)
    assert len(moves) == 40 and all(m.startswith("drawn ") for m in moves)
    assert {m.split()[1] for m in moves} == {"a1", "a4", "b2", "b3", "b4", "d1", "d2", "d4", "d5", "e4"}
    assert st.legal_mask()[st.string_to_action("table a1 r0")] == 0


@pytest.mark.parametrize("episode", ["game", "match"])
def test_s6_eight_nil(episode: str) -> None:
    """S6, OGO-12, OGO-24, OGO-48, OGO-52, §2.5: must 8; the 8 ends the match 8-0."""
    e = make_env(episode=episode)
    e.reset(seed=0, options={"position": p_eight(tower=["B7", "C8", "E12"])})
    st = e.unwrapped.state
    assert legal(st) == {"table a1 r0"}
    assert points(st) == [1, 1]
    e.step(st.string_to_action("table a1 r0"))
    st = e.unwrapped.state
    assert st.match_scores == [8, 0] and st.totals == [8, 0]
    if episode == "game":
        assert not st.is_terminal() and st.matches == 1 and st.to_move == 0
        assert len(st.design) - st.design.count(-1) == 1  # a fresh board
    else:
        assert e.rewards == {"player_0": 0.25, "player_1": -0.25}


def test_s7_infinity() -> None:
    """S7, OGO-45, OGO-46, OGO-47: the joker and Infinity save marker points after an 8."""
    st = make(p_eight(tower=["B7", "C8", "E12"], hands=[["joker"], ["infinity"]]))
    assert st.phase == 0  # CARD: p0 holds the joker
    play(st, "no card", "table a1 r0")
    assert st.current_player() == 0 and legal(st) == {"card joker as infinity", "keep infinity"}
    play(st, "card joker as infinity")
    assert st.current_player() == 1 and legal(st) == {"card infinity", "keep infinity"}
    play(st, "card infinity")
    assert st.match_scores == [9, 1]
    assert st.removed[7] == 1 and st.removed[8] == 1 and st.hands == [[], []]


S8_BOARD = """
     a      b      c      d      e
5  A4/0   G16/0  Z0/0   F12/0  A4/0
4  .      .      Z0/0   .      .
3  .      .      C8/0   .      .
2  .      .      Z0/0   .      .
1  A4/0   C8/1   Z0/0   E12/0  A4/0
"""


@pytest.mark.parametrize("p1_small", [4, 0])
def test_s8_giving_points_away(p1_small: int) -> None:
    """S8, OGO-13, OGO-21, OGO-22: a shape without a marker is claimed by the next player."""
    pos = {
        "board": board(S8_BOARD),
        "shapes": {"small@va1": 0, "small@va6": 0, "small@vf1": 0, "small@vf6": 0},
        "markers": [{"small": 0, "big": 4, "square": 3}, {"small": p1_small, "big": 4, "square": 3}],
        "tables": ["G16", "D10"],
        "tower": ["B7", "F12"],
    }
    st = make(pos)
    assert legal(st) == {"drawn a2 r2", "drawn e2 r1", "drawn a4 r3", "drawn e4 r0"}
    play(st, "drawn a4 r3")
    if p1_small:
        assert shapes(st)["small@va5"] == 1  # claimed by p1 at the start of its turn
        assert st.supply[1][0] == 3 and points(st) == [4, 1]
    else:
        assert shapes(st)["small@va5"] is None and points(st) == [4, 0]


def test_s9_dark_tiles() -> None:
    """S9, OGO-15, OGO-16, OGO-28: dark drawn with a path table, then dark on dark."""
    pos = {
        "tables": ["B7", "G16"],
        "tower": ["DARK", "A4", "DARK", "E12", "F12"],
        "deck": ["meteorite", "time-travel"],
    }
    st = make(pos)
    assert legal(st) == {f"table {sq} r{k}" for sq in ("b3", "c2", "c4", "d3") for k in range(4)}
    play(st, "table b3 r0")
    assert st.tables[0] == 8  # DARK
    play(st, "drawn d3 r0")
    assert st.tables[0] == DESIGN_IDS.index("E12") and st.hands[0] == [4]  # meteorite
    assert st.to_move == 1 and st.drawn == DESIGN_IDS.index("F12")


def test_s9_blind_dark_tile() -> None:
    """S9 blind, OGO-53: a drawn dark tile is discarded and the turn skipped."""
    st = make({"tower": ["DARK", "A4"]}, blind=True)
    assert st.to_move == 1 and st.discarded == [8]
    moves = legal(st)
    assert len(moves) == 16 and all(m.startswith("drawn ") for m in moves)


def test_s10_time_travel() -> None:
    """S10, OGO-34: a second full turn without a CARD phase."""
    st = make({"tables": ["B7", "G16"], "tower": ["A4", "E12", "F12"], "hands": [["time-travel"], []]})
    assert legal(st) == {"no card", "card time-travel"}
    play(st, "card time-travel", "drawn b3 r0")
    assert st.to_move == 0 and st.phase == 2 and st.drawn == DESIGN_IDS.index("E12")
    play(st, "table c4 r0")
    assert st.tables[0] == DESIGN_IDS.index("E12")
    assert st.to_move == 1 and st.drawn == DESIGN_IDS.index("F12")


def test_s11_quantum_leap() -> None:
    """S11, OGO-38, OGO-39, OGO-40, OGO-41: move a tile, score with it, then play on."""
    st = make(p_eight(tower=["B7"], hands=[["quantum-leap"], []]))
    moves = legal(st)
    assert len(moves) == 469
    assert {m.split()[2] for m in moves if m.startswith("card")} == {
        "b1",
        "b5",
        "c1",
        "c2",
        "c4",
        "c5",
        "d3",
        "e2",
        "e3",
    }
    for bad in ("card quantum-leap a5 b4 r0", "card quantum-leap c3 b4 r0", "card quantum-leap b1 b1 r1"):
        assert bad not in moves
    play(st, "card quantum-leap b1 e5 r0")
    assert points(st)[0] == 2 and st.supply[0][0] == 2
    assert legal(st) == {
        "drawn d1 r1",
        "drawn a4 r3",
        "drawn e4 r0",
        "drawn d5 r0",
        "drawn d5 r1",
        "table d1 r1",
        "table d1 r2",
        "table a4 r0",
        "table a4 r3",
        "table e4 r0",
        "table e4 r1",
        "table d5 r0",
        "table d5 r1",
    }


S12_POS = {
    "tables": ["A4", "B7", "C8"],
    "tower": ["E12", "F12", "G16", "D10"],
    "hands": [["alien-kidnapping"], ["infinity"], ["magnetic-inversion"]],
}


def test_s12_alien_kidnapping() -> None:
    """S12, OGO-42, OGO-43, OGO-44: a kidnapped Infinity fails; a kidnapped card is played now."""
    st = make(S12_POS, num_players=3)
    assert legal(st) == {"no card", "card alien-kidnapping player_1", "card alien-kidnapping player_2"}
    play(st, "card alien-kidnapping player_1")
    assert st.phase == 2 and st.drawn == DESIGN_IDS.index("E12")
    assert st.hands == [[], [], [1]]

    st = make(S12_POS, num_players=3)
    play(st, "card alien-kidnapping player_2")
    assert legal(st) == {"card magnetic-inversion player_1", "card magnetic-inversion player_2"}
    play(st, "card magnetic-inversion player_1")
    assert [DESIGN_IDS[t] for t in st.tables] == ["B7", "A4", "C8"]
    assert st.drawn == DESIGN_IDS.index("E12")


def _s13(card: str, seat: int) -> list[str]:
    hands: list[list[str]] = [[], [], []]
    hands[seat] = [card]
    st = make(
        {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12", "G16", "D10", "Z0", "A4"],
            "hands": hands,
            "to_move": seat,
        },
        num_players=3,
    )
    play(st, f"card {card}")
    return [DESIGN_IDS[t] for t in st.tables] + [DESIGN_IDS[st.drawn]]


def test_s13_revolution_and_meteorite() -> None:
    """S13, OGO-36, OGO-37: tables pass to the next / previous seat; the meteorite redraws."""
    assert _s13("revolution-cw", 1) == ["C8", "A4", "B7", "E12"]
    assert _s13("revolution-acw", 2)[:3] == ["B7", "C8", "A4"]
    assert _s13("meteorite", 2) == ["F12", "G16", "E12", "D10"]


S14_BOARD = """
     a      b      c      d      e
5  B7/3   Z0/0   D10/1  G16/2  E12/1
4  C8/1   F12/1  A4/3   C8/3   A4/0
3  Z0/2   F12/3  C8/0   B7/1   E12/3
2  G16/3  F12/2  B7/3   A4/3   Z0/0
1  F12/1  .      A4/1   C8/3   D10/1
"""


@pytest.mark.parametrize("episode", ["game", "match"])
def test_s14_silly_match_tie_blind_match(episode: str) -> None:
    """S14, OGO-51, OGO-53, OGO-54, OGO-33: silly points, a 24-24 tie, the blind match."""
    pos = {
        "board": board(S14_BOARD),
        "shapes": {"small@va6": 1, "small@vf1": 1},
        "tables": ["C8", "B7"],
        "tower": ["E12"],
        "hands": [["meteorite"], []],
        "totals": [16, 22],
        "to_move": 1,
    }
    e = make_env(episode=episode)
    e.reset(seed=1, options={"position": pos})
    st = e.unwrapped.state
    assert legal(st) == {f"{t} b1 r{k}" for t in ("drawn", "table") for k in range(4)}
    e.step(st.string_to_action("table b1 r2"))
    st = e.unwrapped.state
    assert st.match_scores == [8, 2] and st.totals == [24, 24]
    if episode == "game":
        assert st.tiebreak and st.blind_match and st.to_move == 0
        assert st.tables == [-1, -1] and st.hands == [[], []] and st.voided == 1
    else:
        assert e.rewards == {"player_0": 0.1875, "player_1": -0.1875}


S15_BOARD = """
     a      b      c      d      e
5  A4/0   G16/0  G16/0  G16/0  A4/0
4  .      E12/1  C8/0   E12/0  .
3  .      C8/0   C8/0   C8/0   .
2  .      E12/0  C8/0   E12/1  B7/1
1  A4/0   B7/3   G16/0  A4/0   .
"""


def test_s15_solo_victory() -> None:
    """S15, OGO-60, OGO-61, OGO-62: must 8 in solo; victory with 5 empty slots = 42."""
    shapes = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": shapes, "tower": ["D10"]}, num_players=1)
    assert st.supply == [[1, 0, 0]]
    assert legal(st) == {"drawn e1 r0", "drawn e1 r3"}
    play(st, "drawn e1 r0")
    assert st.is_terminal() and st.match_scores == [42]
    assert np.allclose(st.returns(), [42 / 32])
