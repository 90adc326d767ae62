"""Pins found by a mutation round on the board geometry (``geometry.py``), the placement
predictor (``scoring.py``) and the observation encoder (``encode.py``) of OTTO Game Over.

Each test checks behaviour the spec (``shared/rules/otto_game_over.md``) states, through the
public engine API and the documented position hook; a failure means the engine misses an
8, a legal orientation, or writes an observation slot the env doc does not describe.

Observation offsets are written out from the env doc's table (offset = the sum of the sizes
before), so a block moved in ``encode.BLOCKS`` fails here too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.rules import State
from tests.otto_game_over.helpers import board, legal, make, p_eight, play, shapes
from tests.otto_game_over.test_scenarios import S14_BOARD as S14_TEXT
from tests.otto_game_over.test_scenarios import S15_BOARD

#: (offset, size) of the observation blocks read here (env doc, "Observation")
LAYOUT = {
    "vertices": (325, 540),
    "drawn": (865, 10),
    "tables": (875, 40),
    "tower": (915, 9),
    "markers": (924, 12),
    "totals": (936, 4),
    "cards_held": (958, 4),
    "deck": (962, 1),
    "removed": (963, 9),
    "flags": (985, 4),
    "to_move": (989, 4),
    "actor": (993, 4),
    "creator": (997, 4),
    "saved": (1001, 4),
    "misc": (1005, 4),
    "match_scores": (1009, 4),
}
#: the vertex index of the observation: (y - 1) * 6 + x, va1 = 0 .. vf6 = 35
VE4 = 3 * 6 + 4

#: spec §9 S14: 23 tiles, b1 the last empty square
S14_BOARD = board(S14_TEXT)

S3_POS: dict[str, Any] = {
    "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
    "tables": ["B7", "A4"],
    "tower": ["E12", "G16"],
}


def _block(obs: np.ndarray, name: str) -> list[float]:
    start, size = LAYOUT[name]
    assert obs.shape == (1013,)
    return [round(float(x), 6) for x in obs[start : start + size]]


def _obs(st: State, seat: int, **params: Any) -> np.ndarray:
    obs: np.ndarray = OttoGameOverGame(**params).observe(st, seat)
    return obs


# ------------------------------------------------------------------ 8s in the middle
#: an X tile (D10 r0 on b2: its X links the SW and SE corners, lobes at vb2 and vc2, both
#: interior vertices) ringed by A4 tiles (a quarter small circle in every corner)
INTERIOR_EIGHT = {"a1": "A4/0", "a2": "A4/0", "b1": "A4/0", "c1": "A4/0", "c2": "A4/0", "b2": "D10/0"}


def test_an_eight_with_both_lobes_inside_the_board_is_closed_by_its_x_tile() -> None:
    """OGO-05, OGO-06, OGO-12, OGO-24: an 8 whose two lobes run around interior vertices (a line of eight
    tile strokes and no frame half-shape) is closed by placing its X tile: the only legal
    action is that placement (must 8), and it ends the match 8-nil. A tracer that gives up on
    lines of more than six strokes misses it (the match would go on, scores 0-0)."""
    board = {sq: t for sq, t in INTERIOR_EIGHT.items() if sq != "b2"}
    st = make({"board": board, "tables": ["D10", "G16"], "tower": ["B7"]}, episode="match")
    assert legal(st) == {"table b2 r0"}
    play(st, "table b2 r0")
    assert st.is_terminal()
    assert st.snapshot()["match_scores"] == [8, 0]
    assert list(st.returns()) == [0.25, -0.25]


def test_an_eight_with_both_lobes_inside_the_board_is_closed_by_a_lobe_tile() -> None:
    """OGO-05, OGO-06, OGO-08, OGO-12, OGO-24: the same interior 8 closed by the last lobe tile on c2 rather
    than by the X tile: must 8 keeps exactly the four placements of the table A4 (a small
    quarter circle in every corner) and the drawn B7 in r2 (its small quarter circle turned
    to the SW corner, lobe vc2); the one played ends the match 8-nil for the placer (p1)."""
    board = {sq: t for sq, t in INTERIOR_EIGHT.items() if sq != "c2"}
    st = make({"board": board, "tables": ["G16", "A4"], "tower": ["B7"], "to_move": 1}, episode="match")
    assert legal(st) == {f"table c2 r{k}" for k in range(4)} | {"drawn c2 r2"}
    play(st, "table c2 r3")
    assert st.is_terminal()
    assert st.snapshot()["match_scores"] == [0, 8]


def test_a_square_completing_two_x_tiles_offers_the_orientations_of_both() -> None:
    """OGO-11, OGO-12, OGO-24: c2 is the one square two 8s lack: the D10 on b2 needs a small quarter
    circle in c2's SW corner (lobe vc2), the D10 on d2 one in its SE corner (lobe vd2). A B7
    has its small quarter circle at the NE corner in r0, so r1 (SE) closes d2's 8 and r2 (SW)
    closes b2's: must 8 allows exactly those two, and r2 ends the match 8-nil. A predictor
    that kept only the last X tile's orientations would forbid r2 and not score it."""
    board = {sq: "A4/0" for sq in ("a1", "a2", "b1", "c1", "d1", "e1", "e2")}
    board.update({"b2": "D10/0", "d2": "D10/0"})
    pos = {"board": board, "tables": ["B7", "G16"], "tower": ["C8"]}
    st = make(pos, episode="match")
    assert legal(st) == {"table c2 r1", "table c2 r2"}
    play(st, "table c2 r2")
    assert st.is_terminal() and st.snapshot()["match_scores"] == [8, 0]
    st = make(pos, episode="match")
    play(st, "table c2 r1")
    assert st.is_terminal() and st.snapshot()["match_scores"] == [8, 0]


# ------------------------------------------------------------------ observation blocks
def test_marker_supply_is_scaled_by_each_kinds_own_count() -> None:
    """OGO-19, §1.5 (4 small, 4 big, 3 square markers per team): the ``markers`` block is
    small/4, big/4, square/3 per relative team: a full supply reads 1, 1, 1, and after S3's
    square + big circle p0's row reads 1, 3/4, 2/3 (a square count over 4 would read 0.75
    for a full supply, as if a square were already placed)."""
    st = make(S3_POS)
    full = [1.0, 1.0, 1.0]
    assert _block(_obs(st, 0), "markers") == full + full + [0.0] * 6
    play(st, "drawn e4 r0")
    mine = [1.0, 0.75, round(2 / 3, 6)]
    assert _block(_obs(st, 0), "markers")[:6] == mine + full
    assert _block(_obs(st, 1), "markers")[:6] == full + mine  # egocentric: my team first


def test_unclaimed_shapes_are_observed_in_the_plane_of_their_kind() -> None:
    """OGO-19, OGO-21: S3's ``drawn e4 r0`` closes square@ve4 and big@ve4; with no big disc and no
    square marker left for either team they stay unclaimed (also after p1's turn-start
    claims, OGO-22), and every observer sees them in vertex planes 13 (big) and 14 (square)
    at ve4, not in the small-circle plane 12 and not as anyone's marker."""
    pos = dict(S3_POS, markers=[{"big": 0, "square": 0}, {"big": 0, "square": 0}])
    st = make(pos)
    play(st, "drawn e4 r0")
    assert shapes(st) == {"big@ve4": None, "square@ve4": None}
    for seat in (0, 1):
        vert = np.array(_block(_obs(st, seat), "vertices")).reshape(15, 36)
        assert [int(vert[p, VE4]) for p in range(15)] == [0] * 13 + [1, 1], seat
        assert vert.sum() == 2


def test_no_tile_and_a_dark_tile_have_their_own_slots() -> None:
    """OGO-15 (S9): the tile one-hots are none, dark, Z0..G16. Before the draw (CARD phase)
    p0's drawn slot reads "none" (0); once p0 drew the DARK and placed the table tile, the
    DARK is p0's table tile: slot 1 of p0's table row for both observers, and the tower block's
    dark count (last, / 4) falls from 4/4 to 3/4."""
    pos = {
        "tables": ["B7", "G16"],
        "tower": ["DARK", "A4", "DARK", "E12", "F12"],
        "hands": [["meteorite"], []],
    }
    st = make(pos)
    assert legal(st) == {"no card", "card meteorite"}
    obs = _obs(st, 0)
    assert _block(obs, "drawn") == [1.0] + [0.0] * 9
    assert _block(obs, "tower")[8] == 1.0  # 4 dark tiles in the tower
    play(st, "no card")
    assert _block(_obs(st, 0), "drawn") == [0.0, 1.0] + [0.0] * 8  # the DARK drawn, shown
    play(st, "table b3 r0")
    dark = [0.0, 1.0] + [0.0] * 8
    for seat in (0, 1):
        tables = _block(_obs(st, seat), "tables")
        rel = (0 - seat) % 2
        assert tables[10 * rel : 10 * rel + 10] == dark, seat
        assert _block(_obs(st, seat), "tower")[8] == 0.75, seat


def test_a_fresh_game_counts_four_dark_tiles_in_the_tower() -> None:
    """§2.4, §7 tower block: after the set-up the 4 dark tiles are back in the tower (the
    last tower slot reads 4/4); each design's slot is its copies left / 4."""
    game = OttoGameOverGame(num_players=2)
    st = game.new_initial_state(np.random.default_rng(3))
    tower = _block(game.observe(st, 0), "tower")
    assert tower[8] == 1.0
    snap = st.snapshot()
    in_hand = [t for t in (*snap["tables"], snap["drawn"]) if t]
    for i, design in enumerate(("Z0", "A4", "B7", "C8", "D10", "E12", "F12", "G16")):
        assert tower[i] == (4 - in_hand.count(design)) / 4, design


def test_totals_are_scaled_by_the_target_score_parameter() -> None:
    """OGO-52, §6 ``target_score``: the ``totals`` block is each relative team's game total /
    target_score (clipped at 1): 16 and 22 of a 40-point game read 0.4 and 0.55, not /24;
    in S14's tie-break match (totals 24-24 of 24) both read 1, and a total past the target
    still reads 1 (the observation space is [0, 1])."""
    st = make({"tables": ["B7", "G16"], "tower": ["D10"], "totals": [16, 22]}, target_score=40)
    assert _block(_obs(st, 0, target_score=40), "totals") == [0.4, 0.55, 0.0, 0.0]
    assert _block(_obs(st, 1, target_score=40), "totals") == [0.55, 0.4, 0.0, 0.0]
    st = make({"tables": ["B7", "G16"], "tower": ["D10"], "totals": [30, 12]}, target_score=20)
    assert _block(_obs(st, 1, target_score=20), "totals") == [0.6, 1.0, 0.0, 0.0]


def test_the_last_match_score_is_scaled_by_32() -> None:
    """OGO-24, §5 (32 = the largest match score): after S6's 8-nil the new match observes the
    last match's scores [8, 0] as 8/32 = 0.25 for the winner's team, egocentric."""
    st = make(p_eight(tower=["B7", "C8", "E12"]))
    play(st, "table a1 r0")
    assert st.totals == [8, 0] and not st.is_terminal()
    assert _block(_obs(st, 0), "match_scores") == [0.25, 0.0, 0.0, 0.0]
    assert _block(_obs(st, 1), "match_scores") == [0.0, 0.25, 0.0, 0.0]


def test_cards_held_are_counted_over_8() -> None:
    """OGO-27, OGO-28: other players' cards are secret but their number is public: ``cards_held``
    is each relative seat's count / 8 (3 cards read 0.375, 1 card 0.125)."""
    hands = [["meteorite", "time-travel", "infinity"], ["joker"], []]
    st = make({"tables": ["A4", "B7", "C8"], "tower": ["D10"], "hands": hands}, num_players=3)
    assert _block(_obs(st, 0, num_players=3), "cards_held") == [0.375, 0.125, 0.0, 0.0]
    assert _block(_obs(st, 1, num_players=3), "cards_held") == [0.125, 0.0, 0.375, 0.0]
    hands = [["meteorite"] * 4 + ["time-travel"] * 4 + ["revolution-cw"] * 2, [], []]  # 10 cards: clipped
    st = make({"tables": ["A4", "B7", "C8"], "tower": ["D10"], "hands": hands}, num_players=3)
    assert _block(_obs(st, 2, num_players=3), "cards_held") == [0.0, 1.0, 0.0, 0.0]


def test_deck_size_is_scaled_by_the_33_cards() -> None:
    """OGO-28, §1.5 (33 secret cards): the ``deck`` slot is the cards left / 33: a deck of 11
    reads 1/3, and a card drawn after a dark pair (OGO-16) lowers it to 10/33."""
    deck = ["meteorite"] * 3 + ["time-travel"] * 4 + ["revolution-cw"] * 4
    st = make({"tables": ["B7", "G16"], "tower": ["A4"], "deck": deck})
    assert _block(_obs(st, 0), "deck") == [round(11 / 33, 6)]
    st = make({"tables": ["B7", "DARK"], "tower": ["DARK", "A4"], "deck": deck, "to_move": 1})
    assert st.hands[1] == [4] and st.to_move == 0  # p1 drew DARK on DARK: a meteorite, turn skipped
    assert _block(_obs(st, 1), "deck") == [round(10 / 33, 6)]


def test_cards_shown_and_out_of_the_game_are_counted_over_4() -> None:
    """OGO-29, S13: a played card leaves the game, shown: after p2's ``card meteorite`` the
    ``removed`` block reads 1/4 at the meteorite slot (kind 4) for every observer, and 2/4
    with one more meteorite already out (``removed_cards`` of the position)."""
    for before, value in ((0, 0.25), (1, 0.5)):
        pos = {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12", "G16", "D10", "Z0", "A4"],
            "hands": [[], [], ["meteorite"]],
            "to_move": 2,
            "removed_cards": {"meteorite": before} if before else {},
        }
        st = make(pos, num_players=3)
        play(st, "card meteorite")
        for seat in range(3):
            assert _block(_obs(st, seat, num_players=3), "removed") == [0.0] * 4 + [value] + [0.0] * 4


def test_the_flags_tell_a_blind_game_a_tie_break_match_and_solo_apart() -> None:
    """OGO-53, OGO-55, OGO-60, §6 ``blind``: the ``flags`` block is extra turn, blind match, tie-break
    match, solo. A regular match reads none; ``blind=True`` reads blind only (its matches are
    no tie-break: an 8 there is an ordinary 8-nil); the tie-break match that follows S14's
    24-24 reads blind and tie-break; a solo match reads blind and solo."""
    game_st = OttoGameOverGame().new_initial_state(np.random.default_rng(0))
    assert _block(_obs(game_st, 0), "flags") == [0.0, 0.0, 0.0, 0.0]
    blind = OttoGameOverGame(blind=True)
    st = blind.new_initial_state(np.random.default_rng(0))
    for seat in (0, 1):
        assert _block(blind.observe(st, seat), "flags") == [0.0, 1.0, 0.0, 0.0], seat
    solo = OttoGameOverGame(num_players=1)
    st = solo.new_initial_state(np.random.default_rng(0))
    assert _block(solo.observe(st, 0), "flags") == [0.0, 1.0, 0.0, 1.0]
    pos = {
        "board": S14_BOARD,
        "shapes": {"small@va6": 1, "small@vf1": 1},
        "tables": ["C8", "B7"],
        "tower": ["E12"],
        "hands": [["meteorite"], []],
        "totals": [16, 22],
        "to_move": 1,
    }
    st = make(pos, seed=1)
    play(st, "table b1 r2")
    assert st.totals == [24, 24] and st.tiebreak
    for seat in (0, 1):
        assert _block(_obs(st, seat), "flags") == [0.0, 1.0, 1.0, 0.0], seat


def test_matches_played_are_scaled_by_the_max_matches_parameter() -> None:
    """§5 truncation, §6 ``max_matches``: ``misc[1]`` is the regular matches finished /
    max_matches (clipped at 1): 3 of 10 read 0.3, 3 of the default 30 read 0.1, and S6's 8
    ending the first match of a 4-match game raises it from 0 to 1/4."""
    pos = {"tables": ["B7", "G16"], "tower": ["D10"], "matches": 3}
    assert _block(_obs(make(pos, max_matches=10), 0, max_matches=10), "misc")[1] == 0.3
    assert _block(_obs(make(pos), 1), "misc")[1] == 0.1
    st = make(p_eight(tower=["B7", "C8", "E12"]), max_matches=4)
    assert _block(_obs(st, 0, max_matches=4), "misc")[1] == 0.0
    play(st, "table a1 r0")
    assert st.matches == 1 and _block(_obs(st, 1, max_matches=4), "misc")[1] == 0.25


def test_a_solo_victory_score_reads_1_in_the_match_scores() -> None:
    """OGO-62, S15: the solo victory scores 42 (24 + 8 + 2 x 5 empty slots); the
    ``match_scores`` slot is score / 32 clipped at 1, so it reads 1 and stays inside the
    observation space, and the solo 8 flag (``misc[2]``) is set."""
    marked = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    marked.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    marked.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": marked, "tower": ["D10"]}, num_players=1)
    play(st, "drawn e1 r0")
    assert st.is_terminal() and st.match_scores == [42]
    obs = _obs(st, 0, num_players=1)
    assert _block(obs, "match_scores") == [1.0, 0.0, 0.0, 0.0]
    assert _block(obs, "misc")[2] == 1.0


def test_only_a_2v2_partner_sees_the_opposite_seats_cards() -> None:
    """OGO-27, §7 hidden information: in 2v2 the ``partner_cards`` block holds the opposite
    seat's cards by kind / 4; in a 4-player free-for-all the opposite seat is an opponent,
    whose cards stay hidden (block all zero; only the count shows in ``cards_held``)."""
    hands = [["time-travel"], ["meteorite"], ["meteorite", "joker"], ["infinity"]]
    pos = {"tables": ["A4", "B7", "C8", "D10"], "tower": ["E12"], "hands": hands}
    start = LAYOUT["cards_held"][0] - 9  # partner_cards: the 9 slots before cards_held
    for teams, expect in ((True, [0.0] * 4 + [0.25] + [0.0] * 3 + [0.25]), (False, [0.0] * 9)):
        st = make(pos, num_players=4, teams=teams)
        obs = _obs(st, 0, num_players=4, teams=teams)
        assert [float(x) for x in obs[start : start + 9]] == expect, teams
        assert _block(obs, "cards_held") == [0.125, 0.125, 0.25, 0.125]


def test_a_resampled_world_has_its_own_generator() -> None:
    """OGO-64 (all randomness from the generator seeded at reset), §7 hidden information:
    ``resample_hidden`` gives the new world a fresh generator drawn from the caller's; a
    search playing out in that world must not advance (or share) the real game's generator,
    or the real game's later shuffles and kidnaps would depend on the bot's search."""
    game = OttoGameOverGame(num_players=3)
    st = game.new_initial_state(np.random.default_rng(11))
    before = st.rng.bit_generator.state
    world = game.resample_hidden(st, 0, np.random.default_rng(5))
    assert world.rng is not st.rng
    world.rng.integers(1000, size=10)
    while not world.is_terminal() and world.matches == 0:
        world.apply(world.legal_actions()[0])
    assert st.rng.bit_generator.state == before
    again = game.resample_hidden(st, 0, np.random.default_rng(5))
    assert (
        again.rng.bit_generator.state
        == game.resample_hidden(st, 0, np.random.default_rng(5)).rng.bit_generator.state
    )
