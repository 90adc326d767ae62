"""Audit (session 14) of the engine against the spec: rules the earlier tests cover thinly.

Each test builds a position through the documented ``reset(options={"position": ...})`` hook
and asserts what the spec says (rule IDs in the names and docstrings).
"""

from __future__ import annotations

import pytest

from envs.otto_game_over.geometry import DARK, DESIGN_IDS
from tests.otto_game_over.helpers import board, legal, make, p_eight, play, points, shapes
from tests.otto_game_over.test_scenarios import S14_BOARD, S15_BOARD


def _names(tiles: list[int]) -> list[str | None]:
    return [None if t < 0 else ("DARK" if t == DARK else DESIGN_IDS[t]) for t in tiles]


def _s14_without_shapes(**extra: object) -> dict[str, object]:
    """The S14 board (b1 the only empty square, a placement there closes nothing)."""
    pos: dict[str, object] = {"board": board(S14_BOARD), "tower": ["E12"], "tower_rest": False}
    pos.update(extra)
    return pos


# ------------------------------------------------------------------ turn order after events
def test_ogo_34_time_travel_void_when_the_match_ends() -> None:
    """OGO-34, OGO-24, §2.5: Time Travel, then the placement closes an 8: the extra turn is
    void; the next match starts with the leader by game total (p1), not with p0 again."""
    st = make(p_eight(tower=["B7"], hands=[["time-travel"], []], totals=[0, 20]))
    play(st, "card time-travel")
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.matches == 1 and st.totals == [8, 20]
    assert st.to_move == 1 and not st.extra_turn and not st.tt_pending


def test_ogo_22_third_player_claims_what_the_second_cannot() -> None:
    """OGO-21, OGO-22: two squares closed without a marker; p1 has no square marker either,
    so both go to p2, whose turn starts next (the first player able to mark them)."""
    pos = {
        "board": {"c2": "Z0/0", "b1": "G16/0", "d1": "G16/0"},
        "tables": ["A4", "A4", "A4"],
        "tower": ["G16", "Z0", "B7"],
        "markers": [{"square": 0}, {"square": 0}, {}],
    }
    st = make(pos, num_players=3)
    play(st, "drawn c1 r0")
    assert shapes(st) == {"square@vc1": None, "square@vd1": None}
    assert st.to_move == 1 and st.drawn == DESIGN_IDS.index("Z0")
    play(st, "drawn b3 r0")  # a drawn Z0 closes nothing
    assert st.to_move == 2
    assert shapes(st) == {"square@vc1": 2, "square@vd1": 2}
    assert points(st) == [0, 0, 8] and st.supply[2][2] == 1


# ------------------------------------------------------------------ variants
def test_ogo_58_head_in_the_clouds_keeps_the_zero_rule() -> None:
    """OGO-58, OGO-14: with head_in_the_clouds a drawn Z0 must still be placed (the table tile
    D10, which could close an 8, stays out); all 40 Z0 placements are legal."""
    st = make(p_eight(tower=["Z0"]), head_in_the_clouds=True)
    moves = legal(st)
    assert len(moves) == 40 and all(m.startswith("drawn ") for m in moves)
    assert "table a1 r0" not in moves


def test_ogo_53_blind_variant_eight_is_an_ordinary_eight_nil() -> None:
    """OGO-53, OGO-24, §6 blind: in a regular blind match an 8 is an ordinary 8-nil (match
    scores 8-0, the game goes on with a new blind match), not a game win."""
    pos = p_eight(tower=["D10"], tables=[None, None])
    st = make(pos, blind=True)
    assert legal(st) == {"drawn a1 r0"}
    play(st, "drawn a1 r0")
    assert not st.is_terminal() and st.match_scores == [8, 0] and st.totals == [8, 0]
    assert st.matches == 1 and not st.tiebreak
    assert st.tables == [-1, -1] and st.to_move == 0  # §2.5: leader p0 starts, no table tiles


def test_ogo_55_tiebreak_won_by_a_team_that_was_not_tied() -> None:
    """OGO-55: after the blind tie-break match the highest total wins, whoever it is: p2
    (23 before) gets 2 marker points and wins with 25 against 24, 24."""
    pos = _s14_without_shapes(
        tables=[None, None, None],
        shapes={"small@va6": 2, "small@vf1": 2},
        totals=[24, 24, 23],
        tiebreak=True,
        to_move=0,
    )
    st = make(pos, num_players=3)
    assert {m.split()[1] for m in legal(st)} == {"b1"}
    play(st, sorted(legal(st))[0])
    assert st.is_terminal() and st.totals == [24, 24, 25] and st.winners == [2]
    assert list(st.returns()) == [-0.5, -0.5, 1.0]


def test_ogo_56_tile_rounds_with_three_tied_teams() -> None:
    """OGO-56: three teams still tied after the tie-break match draw one tile each per round
    (lowest seat first); a round whose best value is shared decides nothing; p1's C8 is then
    strictly highest."""
    pos = _s14_without_shapes(
        tables=[None, None, None],
        totals=[24, 24, 24],
        tiebreak=True,
        tower=["E12", "G16", "G16", "A4", "Z0", "C8", "B7"],
    )
    st = make(pos, num_players=3)
    play(st, "drawn b1 r0")
    assert st.is_terminal() and st.totals == [24, 24, 24] and st.winners == [1]
    assert list(st.returns()) == [-0.5, 1.0, -0.5]


# ------------------------------------------------------------------ dark tiles and cards
def test_ogo_28_dark_pair_with_an_empty_deck_draws_no_card() -> None:
    """OGO-16, OGO-28: dark drawn on a dark table tile with an empty deck: both darks are
    discarded, a new table tile is drawn, no card (the deck is empty), the turn is skipped."""
    st = make({"tables": ["DARK", "G16"], "tower": ["DARK", "A4", "E12"], "hands": [["infinity"], []]})
    assert legal(st) == {"no card"}  # OGO-31: only Infinity held
    play(st, "no card")
    assert st.hands == [[7], []] and st.deck == []
    assert _names(st.tables) == ["A4", "G16"] and st.discarded == [DARK, DARK]
    assert st.to_move == 1 and st.drawn == DESIGN_IDS.index("E12")


def test_ogo_37_meteorite_discards_dark_tables_and_runs_short() -> None:
    """OGO-37: every table tile (a dark one included) leaves the match; replacements go from
    the card player clockwise (p2, p3) and stop when the tower is empty (p0, p1 get none);
    the card player then places the table tile (OGO-18)."""
    st = make(
        {
            "tables": ["DARK", "A4", "B7", "C8"],
            "tower": ["E12", "F12"],
            "tower_rest": False,
            "hands": [[], [], ["meteorite"], []],
            "to_move": 2,
        },
        num_players=4,
    )
    play(st, "card meteorite")
    assert _names(st.tables) == [None, None, "E12", "F12"]
    assert sorted(_names(st.discarded)) == ["A4", "B7", "C8", "DARK"]  # type: ignore[type-var]
    assert st.phase == 2 and {m.split()[0] for m in legal(st)} == {"table"}


def test_ogo_36_revolutions_with_four_players() -> None:
    """OGO-36: clockwise passes seat i's table tile to seat i+1, anti-clockwise to i-1, dark
    and missing table tiles included."""
    tables = ["A4", "DARK", None, "G16"]
    for card, want in (
        ("revolution-cw", ["G16", "A4", "DARK", None]),
        ("revolution-acw", ["DARK", None, "G16", "A4"]),
    ):
        st = make({"tables": tables, "tower": ["E12", "F12"], "hands": [[card], [], [], []]}, num_players=4)
        play(st, f"card {card}")
        assert _names(st.tables) == want, card


# ------------------------------------------------------------------ solo
def test_ogo_61_all_markers_without_an_eight_is_not_victory() -> None:
    """OGO-61, OGO-20: A4 on e1 closes small circles at ve1, vf1 and vf2; the last small marker
    goes to ve1 (rank line 1, file e comes first), the others stay unmarked. All 11 markers
    are on the board but no 8 is closed yet: no victory, the solo match goes on."""
    marked = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    marked.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    marked.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": marked, "tower": ["A4", "G16"]}, num_players=1)
    play(st, "drawn e1 r0")
    got = shapes(st)
    assert (got["small@ve1"], got["small@vf1"], got["small@vf2"]) == (0, None, None)
    assert st.supply == [[0, 0, 0]] and st.solo_eights == 0
    assert not st.is_terminal() and st.phase == 2


# ------------------------------------------------------------------ the position hook's supply
def test_s15_with_the_supply_written_as_the_spec_states_it() -> None:
    """S15, OGO-61 through the position hook: "1 small marker left" written as ``{"small": 1}``.
    A kind not given defaults to 4/4/3 minus the team's shapes of that kind (here 0 big, 0
    square), so the 8 still wins; a count given is taken as given."""
    marked = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    marked.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    marked.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    pos = {"board": board(S15_BOARD), "shapes": marked, "tower": ["D10"]}
    for supply in ([{"small": 1}], [{}], [{"small": 1, "big": 0, "square": 0}]):
        st = make({**pos, "markers": supply}, num_players=1)
        assert st.supply == [[1, 0, 0]], supply
        play(st, "drawn e1 r0")
        assert st.is_terminal() and st.match_scores == [42], supply
    assert make({**pos, "markers": [{"small": 0, "big": 1}]}, num_players=1).supply == [[0, 1, 0]]  # as given
    too_many = {**marked, "small@vf2": 0, "small@ve1": 0}  # 5 small circles held by one team of 4 markers
    with pytest.raises(ValueError, match="team 0 owns 5 small shapes but has only 4 small markers"):
        make(
            {**pos, "board": {**board(S15_BOARD), "e1": "A4/0"}, "shapes": too_many, "markers": [{"big": 0}]},
            num_players=1,
        )
    # two teams: each team's kinds default on their own
    st = make({"markers": [{"small": 2}, {}]})
    assert st.supply == [[2, 4, 3], [4, 4, 3]]
