"""Audit gaps confirmed by mutation: 2v2 tie-break 8, random kidnapping, the mask's closure
table, the Infinity visiting order (rule IDs cited)."""

from __future__ import annotations

import pytest

from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import closed_shapes
from envs.otto_game_over.scoring import BITS, outcome
from tests.otto_game_over.helpers import legal, make, p_eight, play, points, shapes


# --------------------------------------------------------------- tie-break in 2v2
@pytest.mark.parametrize(("seat", "team", "returns"), [(3, 1, [-1, 1, -1, 1]), (2, 0, [1, -1, 1, -1])])
def test_tiebreak_eight_wins_for_the_creators_team(seat: int, team: int, returns: list[float]) -> None:
    """OGO-55, OGO-57: an 8 closed in the 2v2 tie-break blind match wins the game at once for
    the creator's team (seats 0+2 = team 0, seats 1+3 = team 1); both partners get +1."""
    pos = p_eight(tower=["D10"], tiebreak=True, totals=[24, 24], tables=[None] * 4, to_move=seat)
    st = make(pos, num_players=4, teams=True)
    assert legal(st) == {"drawn a1 r0"}  # blind: drawn only; must 8 (OGO-12, OGO-53)
    play(st, "drawn a1 r0")
    assert st.is_terminal() and st.winners == [team]
    assert list(st.returns()) == returns


# ------------------------------------------------------------------- kidnapping
def test_kidnapped_card_is_uniformly_random() -> None:
    """OGO-42: the kidnapped card is drawn uniformly at random from the victim's hand: over
    60 seeds each of p1's two cards is taken at least 15 times (the engine gives 33/27)."""
    pos = {
        "tables": ["A4", "B7"],
        "tower": ["E12", "F12"],
        "hands": [["alien-kidnapping"], ["meteorite", "time-travel"]],
    }
    counts = {A.METEORITE: 0, A.TIME_TRAVEL: 0}
    for seed in range(60):
        st = make(pos, seed=seed)
        play(st, "card alien-kidnapping player_1")
        assert st.phase == 1 and st.actor == 0  # KIDNAP: both kinds are always usable
        counts[st.kidnapped] += 1
        assert sorted(st.hands[1] + [st.kidnapped]) == sorted([A.METEORITE, A.TIME_TRAVEL])
    assert min(counts.values()) >= 15, counts


# ------------------------------------------------------ the mask's closure table
@pytest.mark.parametrize("square_lobes", [False, True])
def test_bits_table_equals_outcome(square_lobes: bool) -> None:
    """OGO-08, OGO-11, OGO-12: the mask reads ``scoring.BITS[square_lobes][sig * 8 + d]``
    (built by ``_bits_table``); each entry must pack ``outcome(sig, d, square_lobes)`` as
    ``score_bits | eight_bits << 4`` (bit k = orientation r<k>; layout per ``_bits_table``),
    for every need signature sig < 6**4 and design d < 8 (``outcome`` is checked against
    tracing in test_geometry)."""
    table = BITS[square_lobes]
    assert len(table) == 6**4 * 8
    for sig in range(6**4):
        for d in range(8):
            score, eight, _pts = outcome(sig, d, square_lobes)
            assert table[sig * 8 + d] == score | eight << 4, (sig, d)


def test_must_score_a_big_circle_only() -> None:
    """OGO-11, OGO-13: the only scoring placements close big@vd4 (value 2; C8 far pairs on
    c3, d3, c4 wait for d4's SW corner): B7 r0, E12 r0/r2 on d4. Only they are legal, the
    legal set equals the closing placements found by tracing, and p0 scores 2."""
    pos = {"board": {"d3": "C8/0", "c4": "C8/0"}, "tables": ["E12", "A4"], "tower": ["B7", "G16"]}
    st = make(pos)
    expected = {"drawn d4 r0", "table d4 r0", "table d4 r2"}
    assert legal(st) == expected
    closing = set()  # every OGO-01 placement of both held tiles, traced (OGO-05)
    for t, design in (("drawn", st.drawn), ("table", st.tables[0])):
        for sq in range(25):
            if st.frontier >> sq & 1:
                for k in range(4):
                    d2, r2 = list(st.design), list(st.rot)
                    d2[sq], r2[sq] = design, k
                    found, eights = closed_shapes(d2, r2, sq, False)
                    assert not eights and all(kind == 1 for kind, _v in found)  # big circles only
                    if found:
                        closing.add(f"{t} {st.action_to_string(4 * sq + k).split()[1]} r{k}")
    assert closing == expected
    play(st, "drawn d4 r0")
    assert shapes(st) == {"big@vd4": 0} and points(st) == [2, 0]


# ----------------------------------------------------------------- Infinity order
def test_infinity_order_creator_then_clockwise() -> None:
    """OGO-46: Infinity seats are visited creator first, then clockwise: creator p1 (no
    card) is skipped, then p2 (infinity, 1 marker point) is asked before p0 (joker)."""
    pos = p_eight(
        tower=["B7"],
        tables=["G16", "D10", "A4"],
        to_move=1,
        hands=[["joker"], [], ["infinity"]],
        shapes={"small@vf1": 0, "small@va6": 2},
    )
    st = make(pos, num_players=3, episode="match")
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.current_player() == 2 and legal(st) == {"card infinity", "keep infinity"}
    play(st, "card infinity")
    assert st.current_player() == 0 and legal(st) == {"card joker as infinity", "keep infinity"}
    play(st, "card joker as infinity")
    assert st.is_terminal() and st.match_scores == [1, 8, 1] and st.hands == [[], [], []]
