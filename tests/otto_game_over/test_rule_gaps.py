"""Rule gaps found by planted bugs that the earlier tests citing these rule IDs let through.

One test per rule: OGO-46 (a saved team is not asked again), OGO-55 (a team that was not
tied wins the tie-break with an 8), OGO-52 (a total of exactly ``target_score`` ends the
game), OGO-10 (play passes clockwise) and OGO-48 (b) (a full board ends the match). Each
builds a position through the ``reset(options={"position": ...})`` hook and asserts the
outcome the spec gives.
"""

from __future__ import annotations

import pytest

from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import DESIGN_IDS
from tests.otto_game_over.helpers import board, legal, make, p_eight, play
from tests.otto_game_over.test_scenarios import S14_BOARD


@pytest.mark.parametrize(
    ("hands", "savers", "scores"),
    [
        # the creator's team: p0 saves (8 + 1), p2 is not asked
        ([["infinity"], [], ["infinity"], []], [0], [9, 0]),
        # the other team: p1 saves (its 1 point), p3 is not asked
        ([[], ["infinity"], [], ["infinity"]], [1], [8, 1]),
    ],
)
def test_ogo_46_saved_team_partner_is_not_asked(
    hands: list[list[str]], savers: list[int], scores: list[int]
) -> None:
    """OGO-46, OGO-45, OGO-57: in 2v2 a seat decides in the INFINITY phase only if its team
    is not yet saved. Both partners of a team hold ``infinity``; once the first of them (in
    the order creator, then clockwise) has played it, the partner is skipped and keeps the
    card, and the match ends at once."""
    pos = p_eight(tower=["B7"], tables=["D10", "G16", "A4", "A4"], hands=hands)
    st = make(pos, num_players=4, teams=True, episode="match")
    if hands[0]:
        play(st, "no card")  # OGO-31: the CARD phase is offered although only Infinity is held
    assert legal(st) == {"table a1 r0"}  # must 8 (OGO-12)
    play(st, "table a1 r0")
    (saver,) = savers
    partner = saver + 2
    assert st.current_player() == saver and legal(st) == {"card infinity", "keep infinity"}
    play(st, "card infinity")
    assert st.is_terminal(), f"player_{partner} was asked although the team is saved"
    assert st.match_scores == scores
    assert st.hands[partner] == [A.INFINITY] and st.hands[saver] == []


def test_ogo_55_tiebreak_eight_by_a_team_that_was_not_tied() -> None:
    """OGO-55: an 8 closed in the tie-break blind match wins the game at once for the
    creator's team, any team: p2 (10, not among the tied leaders at 24-24) closes it and
    wins, although 8 more points would leave its total below theirs."""
    pos = p_eight(tower=["D10"], tables=[None, None, None], tiebreak=True, totals=[24, 24, 10], to_move=2)
    st = make(pos, num_players=3)
    assert legal(st) == {"drawn a1 r0"}  # blind: drawn only; must 8 (OGO-12, OGO-53)
    play(st, "drawn a1 r0")
    assert st.is_terminal() and st.winners == [2]
    assert list(st.returns()) == [-0.5, -0.5, 1.0]


def test_ogo_52_total_exactly_target_ends_the_game() -> None:
    """OGO-52: the game ends when a total is >= ``target_score`` (24) at the end of a match:
    p0 at 16 closes an 8 (S6), reaches exactly 24 and wins; no new match is dealt."""
    st = make(p_eight(tower=["B7", "C8", "E12"], totals=[16, 0]))
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.match_scores == [8, 0] and st.totals == [24, 0]
    assert st.is_terminal() and st.winners == [0] and st.matches == 1
    assert list(st.returns()) == [1.0, -1.0]


def test_ogo_10_play_passes_clockwise() -> None:
    """OGO-10, §2.1: play is clockwise in seat order: with 3 players the turn after p0's is
    p1's, then p2's, then p0's again. Every drawn tile is a Z0, which must be placed
    (OGO-14) and closes nothing."""
    pos = {"tables": ["A4", "B7", "C8"], "tower": ["Z0", "Z0", "Z0", "E12"]}
    st = make(pos, num_players=3)
    seats = [st.current_player()]
    for move in ("drawn b3 r0", "drawn d3 r0", "drawn c4 r0"):
        play(st, move)
        seats.append(st.current_player())
    assert seats == [0, 1, 2, 0]
    assert st.to_move == 0 and st.drawn == DESIGN_IDS.index("E12")


def test_ogo_48b_full_board_ends_the_match() -> None:
    """OGO-48 (b), OGO-50: the placement that fills the 24th slot ends the match; each team
    scores its markers on the board (p0 small@va6, p1 small@vf1: 1 each). The S14 board with
    b1 empty; the drawn E12 there closes nothing."""
    pos = {
        "board": board(S14_BOARD),
        "shapes": {"small@va6": 0, "small@vf1": 1},
        "tables": ["C8", "B7"],
        "tower": ["E12"],
    }
    st = make(pos, episode="match")
    assert {m.split()[1] for m in legal(st)} == {"b1"}
    play(st, "drawn b1 r0")
    assert min(st.design) >= 0  # all 25 squares hold a tile
    assert st.is_terminal() and st.match_scores == [1, 1]
    assert list(st.returns()) == [0.0, 0.0]
