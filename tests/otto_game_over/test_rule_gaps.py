"""Rule gaps found by planted bugs that the earlier tests citing these rule IDs let through.

One test per rule: OGO-46 (a saved team is not asked again), OGO-55 (a team that was not
tied wins the tie-break with an 8), OGO-52 (a total of exactly ``target_score`` ends the
game), OGO-10 (play passes clockwise) and OGO-48 (b) (a full board ends the match). Each
builds a position through the ``reset(options={"position": ...})`` hook and asserts the
outcome the spec gives.
"""

from __future__ import annotations

import numpy as np
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


def test_resample_re_deals_every_hand_the_seat_cannot_see() -> None:
    """§7 hidden information: a seat's re-deal (what its search samples) re-deals the deck and
    every other player's cards, except a 2v2 partner's (OGO-27), keeping each hand's size and
    the cards unseen as a whole."""
    from envs.otto_game_over.game import OttoGameOverGame

    for params in ({"num_players": 3}, {"num_players": 4}, {"num_players": 4, "teams": True}):
        game = OttoGameOverGame(**params)
        st = game.new_initial_state(np.random.default_rng(4))
        n = game.num_players
        partner = 2 if params.get("teams") else 0
        unseen = sorted(list(st.deck) + [c for s in range(1, n) if s != partner for c in st.hands[s]])
        changed = set()
        for k in range(20):
            world = game.resample_hidden(st, 0, np.random.default_rng(k))
            assert world.hands[0] == st.hands[0] and world.hands[partner] == st.hands[partner]
            again = sorted(
                list(world.deck) + [c for s in range(1, n) if s != partner for c in world.hands[s]]
            )
            assert again == unseen and [len(h) for h in world.hands] == [len(h) for h in st.hands]
            changed |= {s for s in range(1, n) if sorted(world.hands[s]) != sorted(st.hands[s])}
        assert changed == {s for s in range(1, n) if s != partner and st.hands[s]}, (params, changed)


def test_infinity_phase_slots_are_relative_to_the_observer() -> None:
    """§7 / the doc page's ``to_move``, ``actor``, ``creator`` and ``saved`` blocks in the
    INFINITY phase (OGO-45/46), where the seat deciding is not the seat whose turn it is: 2v2,
    p0 closes an 8 and saves its team with Infinity; p1 (the other team) is asked next. Seen
    from p2 (p0's partner) and from p3, each block names the seat or team relative to the
    observer."""
    from envs.otto_game_over import encode as E
    from envs.otto_game_over.game import OttoGameOverGame

    pos = p_eight(tower=["B7"], tables=["D10", "G16", "A4", "A4"], hands=[["infinity"], ["infinity"], [], []])
    st = make(pos, num_players=4, teams=True, episode="match")
    play(st, "no card")
    play(st, "table a1 r0")
    play(st, "card infinity")  # p0 saves team 0
    assert (st.actor, st.to_move, st.inf_creator, st.saved) == (1, 0, 0, [True, False])
    game = OttoGameOverGame(num_players=4, teams=True, episode="match")

    def block(seat: int, name: str) -> list[int]:
        obs = game.observe(st, seat).ravel()
        off = getattr(E, name)
        return [int(x) for x in obs[off : off + 4]]

    # from p2: p0 is 2 seats on, p1 3 seats on; team 0 is its own team
    assert block(2, "_O_TO_MOVE") == [0, 0, 1, 0] and block(2, "_O_ACTOR") == [0, 0, 0, 1]
    assert block(2, "_O_CREATOR") == [0, 0, 1, 0] and block(2, "_O_SAVED") == [1, 0, 0, 0]
    # from p3: p0 is 1 seat on, p1 2 seats on; team 0 is the other team
    assert block(3, "_O_TO_MOVE") == [0, 1, 0, 0] and block(3, "_O_ACTOR") == [0, 0, 1, 0]
    assert block(3, "_O_CREATOR") == [0, 1, 0, 0] and block(3, "_O_SAVED") == [0, 1, 0, 0]


def test_flag_and_misc_slots_of_rare_phases() -> None:
    """§7 / the doc page's ``flags``, ``misc`` and ``kidnapped`` blocks where random play
    seldom goes: a tie-break match sets both the blind and the tie-break flags (OGO-53); a
    solo game with an 8 closed sets ``misc[2]`` (OGO-61); no unclaimed shape reads 0."""
    from envs.otto_game_over import encode as E
    from envs.otto_game_over.game import OttoGameOverGame

    def tail(st: object, name: str, size: int, **params: object) -> list[float]:
        obs = OttoGameOverGame(**params).observe(st, 0).ravel()  # type: ignore[arg-type]
        off = getattr(E, name)
        return [float(x) for x in obs[off : off + size]]

    tie = make(
        p_eight(tower=["D10"], tables=[None, None, None], tiebreak=True, totals=[24, 24, 10]), num_players=3
    )
    assert tail(tie, "_O_FLAGS", 4, num_players=3) == [0.0, 1.0, 1.0, 0.0]
    plain = make(p_eight())
    assert tail(plain, "_O_FLAGS", 4) == [0.0, 0.0, 0.0, 0.0]
    assert tail(plain, "_O_MISC", 4)[3] == 0.0  # both of P-EIGHT's shapes are claimed
    solo = make({"solo_eights": 1}, num_players=1)
    assert tail(solo, "_O_MISC", 4, num_players=1)[2] == 1.0
    assert tail(make({}, num_players=1), "_O_MISC", 4, num_players=1)[2] == 0.0
