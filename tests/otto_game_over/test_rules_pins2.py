"""Second mutation round on the OTTO Game Over engine (``rules.py`` and ``flow.py``).

Each test pins a behaviour of ``shared/rules/otto_game_over.md`` (rule IDs in the names and
docstrings) that a planted bug in the rules engine or the turn / match flow could break while
every earlier test still passed: parameter validation (§6), where cards are in play (OGO-33,
OGO-59), must-8 in every orientation and with an F12 as the X tile (OGO-06, OGO-12), dark and
empty-tower draws (OGO-16..18, OGO-49), first player and turn order (§2.5, OGO-10, OGO-34),
the INFINITY phase (OGO-45, OGO-46), team play (OGO-57), tie-breaks (OGO-53..56), rewards and
truncation (§5) and solo scoring (OGO-60..62). Positions are set through the documented
``reset(options={"position": ...})`` hook (tests/otto_game_over/helpers.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import TILE_VALUE
from envs.otto_game_over.rules import State
from tests.otto_game_over.helpers import board, legal, make, p_eight, play, turned
from tests.otto_game_over.test_bots_pins import S15_SHAPES
from tests.otto_game_over.test_scenarios import S14_BOARD, S15_BOARD

# An F12/0 on b4 whose two lobes (around vc5 and vb4) are A4 small arcs; a4 is the last gap.
F12_EIGHT = {"b4": "F12/0", "c4": "A4/0", "b5": "A4/0", "c5": "A4/0", "a3": "A4/0", "b3": "A4/0"}


def test_section6_teams_error_message() -> None:
    """§6: ``teams`` needs ``num_players=4`` (the parameter help says so); 3 players raise
    ``ValueError`` saying exactly that."""
    with pytest.raises(ValueError, match=r"^teams=True needs num_players=4, got num_players=3$"):
        OttoGameOverGame(num_players=3, teams=True)


@pytest.mark.parametrize("value", [1, "yes", None])
def test_section6_head_in_the_clouds_must_be_a_bool(value: object) -> None:
    """§6, OGO-58: ``head_in_the_clouds`` is a bool; anything else is a ``ValueError``."""
    with pytest.raises(ValueError, match="head_in_the_clouds must be True or False"):
        OttoGameOverGame(head_in_the_clouds=value)


@pytest.mark.parametrize(
    ("params", "extra"),
    [
        ({"secret_cards": False}, {}),
        ({"blind": True}, {"tables": [None, None]}),
        ({}, {"tiebreak": True, "tables": [None, None]}),
    ],
)
@pytest.mark.parametrize("phase", ["card", "infinity"])
def test_ogo_33_ogo_59_no_card_phase_without_cards(params: dict, extra: dict, phase: str) -> None:
    """OGO-59 (trial run), OGO-33/53 (blind and tie-break matches): no CARD or INFINITY phase
    occurs where no cards are in play, so a position in such a phase is rejected."""
    pos = {"phase": phase, "tower": ["A4"], **extra}
    if phase == "infinity":
        pos.update(
            p_eight(tables=pos.get("tables", ["D10", "G16"])),
            infinity={"creator": 0, "visited": 0, "saved": [False, False]},
        )
    with pytest.raises(ValueError, match="needs secret cards in play"):
        make(pos, **params)


def test_ogo_12_must_eight_in_orientation_r3() -> None:
    """OGO-12, OGO-02: S6 turned a quarter anticlockwise: the only 8 is the D10 table tile on
    e1 in orientation r3, and that single placement is the whole legal set (the drawn B7
    could score small circles, which must-8 forbids)."""
    st = turned(make(p_eight(tower=["B7", "C8", "E12"])), 3)
    assert legal(st) == {"table e1 r3"}
    play(st, "table e1 r3")
    assert st.match_scores == [8, 0]


def test_ogo_06_ogo_12_f12_on_the_board_is_an_x_tile() -> None:
    """OGO-06, OGO-12, OGO-24: an F12 already on the board is the X tile of an 8 whose
    lobes are small arcs; the drawn A4 on a4 completes it in every orientation, so must-8
    leaves exactly those 4 placements, and the 8 ends the match 8-nil."""
    st = make({"board": F12_EIGHT, "tables": ["G16", "G16"], "tower": ["A4", "Z0"]})
    assert legal(st) == {f"drawn a4 r{k}" for k in range(4)}
    play(st, "drawn a4 r1")
    assert st.match_scores == [8, 0] and st.totals == [8, 0] and st.matches == 1


def test_ogo_06_square_lobe_on_a_board_x_tile_only_with_the_option() -> None:
    """OGO-06 (``eight_lobes``), OGO-12: the F12 on b4 has a square lobe (G16s around vc5)
    and a round one waiting for a4. Only with ``eight_lobes="round_or_square"`` is the A4 on
    a4 an 8, so must-8 leaves exactly those 4 placements; with "round" it is not."""
    squares = {**F12_EIGHT, "c4": "G16/0", "b5": "G16/0", "c5": "G16/0"}
    pos = {"board": squares, "tables": ["G16", "G16"], "tower": ["A4", "Z0"]}
    st = make(pos, eight_lobes="round_or_square")
    assert legal(st) == {f"drawn a4 r{k}" for k in range(4)}
    play(st, "drawn a4 r2")
    assert st.match_scores == [8, 0]
    assert len(legal(make(pos))) == 8  # "round": a5 and d5 scoring placements, no 8


def test_placement_options_report_the_eight_bits() -> None:
    """OGO-12, S6 (``State.placement_options`` docstring: bit k of the 8 bits says
    orientation k closes an 8): the table D10 on a1 closes the 8 in r0 only (bit 0), the
    drawn B7 there closes no 8."""
    st = make(p_eight(tower=["B7", "C8", "E12"]))
    a1 = {t: (score, eight) for t, sq, score, eight, _pts in st.placement_options() if sq == 0}
    assert a1[1][1] == 0b0001 and a1[0][1] == 0


def test_apply_after_the_game_is_over_raises() -> None:
    """OGO-63 (raw engine): once the game is over (S6 in a "match" episode) every action
    raises ``ValueError`` saying the game is over."""
    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    play(st, "table a1 r0")
    assert st.is_terminal()
    with pytest.raises(ValueError, match="^the game is over: no action is legal$"):
        st.apply(0)


@pytest.mark.parametrize("action", [True, np.bool_(False)])
def test_apply_rejects_a_bool_action(action: object) -> None:
    """OGO-63 (raw engine): an action is an int index; a bool (although ``True == 1``) is a
    ``ValueError`` naming the range, not the placement ``drawn a1 r1``."""
    st = make({"tables": ["B7", "G16"], "tower": ["D10"]})
    before = st.snapshot()
    with pytest.raises(ValueError, match=r"action must be an int in \[0, 5228\)"):
        st.apply(action)
    assert st.snapshot() == before


def _summary(st: State) -> tuple:
    snap = st.snapshot()
    return st.to_move, snap["tables"], snap["drawn"], snap["tower"], snap["discarded"]


def test_ogo_17_dark_drawn_without_a_table_tile_becomes_it() -> None:
    """OGO-17: p0 has no table tile and draws DARK: the dark tile becomes p0's table tile
    (not discarded) and the turn is skipped; p1 is to move with the drawn E12."""
    st = make({"tables": [None, "A4"], "tower": ["DARK", "E12"], "tower_rest": False})
    assert _summary(st) == (1, ["DARK", "A4"], "E12", [], [])
    assert st.current_player() == 1 and len(legal(st)) == 32


def test_ogo_18_ogo_14_zero_table_tile_is_played_from_an_empty_tower() -> None:
    """OGO-18, OGO-14, OGO-49: the tower is empty and p0's table tile is Z0, a path tile:
    p0 must place it (16 ``table`` actions at the opening, Z0 has no special force). Then no
    one holds a path tile and the tower is empty: the match ends (c), scoring 0-0."""
    st = make({"tables": ["Z0", None], "tower": [], "tower_rest": False}, episode="match")
    assert legal(st) == {f"table {sq} r{k}" for sq in ("b3", "c2", "c4", "d3") for k in range(4)}
    play(st, "table b3 r0")
    assert st.is_terminal() and st.match_scores == [0, 0] and list(st.returns()) == [0.0, 0.0]


@pytest.mark.parametrize("p0_table", [None, "DARK"])
def test_ogo_18_ogo_49_empty_tower_skips_only_the_seat_without_a_path_tile(p0_table: str | None) -> None:
    """OGO-18, OGO-49: the tower is empty, p0 holds no path tile (none or DARK) but p1 does:
    the match is not over (c) -- p0's turn is skipped and p1 places its table A4."""
    st = make({"tables": [p0_table, "A4"], "tower": [], "tower_rest": False})
    assert not st.is_terminal() and st.current_player() == 1 and st.to_move == 1
    assert legal(st) == {f"table {sq} r{k}" for sq in ("b3", "c2", "c4", "d3") for k in range(4)}


@pytest.mark.timeout(20)
def test_ogo_49_dark_table_tile_is_not_a_tile_to_play() -> None:
    """OGO-49: tower empty, p0's table tile is DARK and p1 has none: no player holds a
    *path* tile, so the match ends at once with 0-0 (a dark tile never keeps it going)."""
    st = make({"tables": ["DARK", None], "tower": [], "tower_rest": False}, episode="match")
    assert st.is_terminal() and st.match_scores == [0, 0] and st.winners == [0, 1]


def test_ogo_16_dark_pair_from_a_one_tile_tower() -> None:
    """OGO-16, OGO-28, OGO-18: p0 (table DARK) draws the last tile, DARK: both go to the
    discard pile, p0 gets no new table tile (the tower is empty) but the deck's top card, and
    the turn is skipped; p1 (holding a card) is in its CARD phase."""
    pos = {
        "tables": ["DARK", "A4"],
        "tower": ["DARK"],
        "tower_rest": False,
        "hands": [[], ["meteorite"]],
        "deck": ["infinity", "joker"],
    }
    st = make(pos)
    assert _summary(st) == (1, [None, "A4"], None, [], ["DARK", "DARK"])
    assert st.snapshot()["hands"][0] == ["infinity"] and st.snapshot()["deck"] == ["joker"]
    assert legal(st) == {"no card", "card meteorite"}


def test_ogo_16_s9_dark_pair_discards_both_tiles() -> None:
    """S9, OGO-16: after p0's ``table b3 r0`` (DARK becomes its table tile) and p1's
    ``drawn d3 r0``, p0 draws DARK on DARK: the discard pile is exactly the two dark tiles."""
    pos = {
        "tables": ["B7", "G16"],
        "tower": ["DARK", "A4", "DARK", "E12", "F12"],
        "deck": ["meteorite", "time-travel"],
    }
    st = make(pos)
    play(st, "table b3 r0", "drawn d3 r0")
    snap = st.snapshot()
    assert snap["discarded"] == ["DARK", "DARK"] and snap["tables"][0] == "E12" and snap["drawn"] == "F12"


def test_ogo_53_blind_dark_tile_is_discarded() -> None:
    """OGO-53, S9 blind variant: the dark tile p0 draws in a blind match is discarded (it is
    out of the match, not back in the tower) and p1 moves with the next tile."""
    st = make({"tower": ["DARK", "A4", "E12"], "tower_rest": False}, blind=True)
    assert _summary(st) == (1, [None, None], "A4", ["E12"], ["DARK"])


@pytest.mark.parametrize(
    ("hands", "asked", "scores"),
    [
        # p0 (creator, joker, 0 points) is not asked; p1 saves 1, then p2 decides last
        ([["joker"], ["infinity"], ["infinity"]], [1, 2], [8, 1, 0]),
        # p1 has a point but no card: not asked; p2 is
        ([["joker"], [], ["infinity"]], [2], [8, 0, 1]),
    ],
)
def test_ogo_46_infinity_visits_clockwise_to_the_last_seat(
    hands: list[list[str]], asked: list[int], scores: list[int]
) -> None:
    """OGO-46, OGO-45: 3 players, p1 owns small@va6 and p2 small@vf1, p0 has no point. After
    p0's 8 (S6) the seats are visited creator first, then clockwise: p0 (0 points) and seats
    without a card are skipped; each other seat decides, the last seat included. The first
    asked seat plays ``card infinity`` and keeps its point, the second keeps its card."""
    pos = p_eight(
        tower=["B7", "C8", "E12"],
        tables=["D10", "G16", "A4"],
        shapes={"small@vf1": 2, "small@va6": 1},
        hands=hands,
    )
    st = make(pos, num_players=3, episode="match")
    play(st, "no card", "table a1 r0")
    seen = []
    for answer in ("card infinity", "keep infinity")[: len(asked)]:
        seen.append(st.current_player())
        assert legal(st) == {"card infinity", "keep infinity"}
        play(st, answer)
    assert seen == asked and st.is_terminal() and st.match_scores == scores
    assert st.snapshot()["removed_cards"] == {"infinity": 1}


def test_ogo_25_shapes_closed_with_the_eight_get_no_marker() -> None:
    """OGO-25, OGO-24: with an A4 on a2, the D10 that closes the 8 on a1 also closes
    small@va2 (frame half + a1 + a2). The match is over at that moment: no marker is placed,
    no shape is recorded, the supplies are untouched."""
    pos = p_eight(tower=["B7", "C8", "E12"])
    pos["board"]["a2"] = "A4/0"
    st = make(pos, episode="match")
    assert legal(st) == {"table a1 r0", "table a1 r1"}
    play(st, "table a1 r0")
    assert st.is_terminal() and st.match_scores == [8, 0]
    assert st.snapshot()["shapes"] == {"small@vf1": 0, "small@va6": 1}
    assert st.supply == [[3, 4, 3], [3, 4, 3]]


def test_clone_in_the_infinity_phase_is_independent() -> None:
    """OGO-45, OGO-46, OGO-52 through ``clone()`` (an independent deep copy): a clone taken
    in S7's INFINITY phase plays both Infinity answers, so the match ends (9-1), the cards are
    removed and the next match is dealt from the tower and deck. The original position --
    table tiles, tower, saved flags, removed cards, totals and RNG -- is unchanged, and the
    original then plays on to the same result as the clone did."""
    pos = p_eight(
        tower=["B7", "C8", "E12"], hands=[["joker"], ["infinity"]], deck=["meteorite", "time-travel"]
    )
    st = make(pos)
    play(st, "no card", "table a1 r0")
    before = st.to_dict()
    twin = st.clone()
    play(twin, "card joker as infinity", "card infinity")
    assert twin.totals == [9, 1] and twin.matches == 1
    assert st.to_dict() == before
    assert st.snapshot()["infinity"] == {"creator": 0, "visited": 0, "saved": [False, False]}
    play(st, "card joker as infinity", "card infinity")
    assert st.to_dict() == twin.to_dict()


def test_section2_new_match_deals_from_the_deck_top_and_clears_the_discards() -> None:
    """§2.3-2.4, OGO-28, OGO-29: after S6's 8-nil (p0 keeps its joker) the next match is
    dealt: the discard pile of the old match is gone, each seat in order draws the deck's top
    card (p0 meteorite, p1 time-travel), the rest of the deck stays, and unused cards are
    kept (p0 still holds the joker)."""
    pos = p_eight(
        tower=["B7", "C8", "E12"],
        deck=["meteorite", "time-travel", "infinity"],
        discarded=["DARK", "DARK"],
        hands=[["joker"], []],
    )
    st = make(pos)
    play(st, "no card", "table a1 r0", "keep infinity")
    snap = st.snapshot()
    assert st.matches == 1 and st.totals == [8, 0]
    assert snap["discarded"] == [] and snap["deck"] == ["infinity"]
    assert sorted(snap["hands"][0]) == ["joker", "meteorite"] and snap["hands"][1] == ["time-travel"]


def test_section2_two_v_two_has_one_marker_supply_per_team() -> None:
    """OGO-57, §1.5: in 2v2 there are 2 marker sets (one per team), each 4 small, 4 big and
    3 square markers."""
    st = OttoGameOverGame(num_players=4, teams=True).new_initial_state(np.random.default_rng(0))
    assert st.snapshot()["markers"] == [{"small": 4, "big": 4, "square": 3}] * 2
    assert st.supply == [[4, 4, 3], [4, 4, 3]]


def test_section2_cards_are_shuffled_per_game() -> None:
    """§2.2, OGO-64: the 33 cards are shuffled once per game by the seeded generator:
    different seeds give different deck orders, the same seed the same one."""
    game = OttoGameOverGame()

    def deal(seed: int) -> tuple:
        snap = game.new_initial_state(np.random.default_rng(seed)).snapshot()
        return tuple(snap["deck"]), tuple(map(tuple, snap["hands"]))

    assert len({deal(seed) for seed in range(4)}) == 4
    assert deal(7) == deal(7)


@pytest.mark.parametrize("params", [{"blind": True}, {"secret_cards": False}, {"num_players": 1}])
def test_ogo_33_ogo_59_no_deck_where_no_cards_are_played(params: dict) -> None:
    """OGO-33, OGO-59, OGO-60: blind games, trial runs and solo have no secret cards: the
    deck and every hand are empty from the start (a snapshot of the start reloads)."""
    game = OttoGameOverGame(**params)
    st = game.new_initial_state(np.random.default_rng(3))
    snap = st.snapshot()
    assert snap["deck"] == [] and all(h == [] for h in snap["hands"])
    game.new_initial_state(np.random.default_rng(0), {"position": snap})


def test_section2_4_set_aside_dark_tiles_are_shuffled_back() -> None:
    """§2.4 [MODEL: reshuffle the whole tower], OGO-64: dark tiles set aside while dealing
    the starting tiles are shuffled back into the tower, not put on top or at the bottom.
    Over 300 seeded 4-player deals the dark tiles sit uniformly in the draw order (the tile
    drawn for the first turn, then the tower top first): mean relative position 0.5 within
    0.03, and the first draw is dark about 4 times in 36 (far fewer than 60 times)."""
    game = OttoGameOverGame(num_players=4, secret_cards=False)
    where, first_dark = [], 0
    for seed in range(300):
        snap = game.new_initial_state(np.random.default_rng(seed)).snapshot()
        tiles = ([snap["drawn"]] if snap["drawn"] else []) + list(snap["tower"])
        where += [i / (len(tiles) - 1) for i, x in enumerate(tiles) if x == "DARK"]
        first_dark += tiles[0] == "DARK"
    assert len(where) == 1200  # all 4 dark tiles are back in every deal
    assert abs(np.mean(where) - 0.5) < 0.03 and first_dark < 60


@pytest.mark.parametrize("seed", range(6))
def test_section2_5_two_v_two_first_player_comes_from_the_leading_team(seed: int) -> None:
    """§2.5, OGO-57: in 2v2 team B (seats 1 and 3) leads 10 to 0. p0's 8-nil (S6) makes it
    10 to 8, and the next match starts with the seat of team B holding the higher table
    tile (ties: the lower seat) -- never a seat of team A, whatever it holds."""
    pos = p_eight(tower=["B7", "C8", "E12"], tables=["D10", "G16", "A4", "A4"], totals=[0, 10])
    st = make(pos, seed=seed, num_players=4, teams=True)
    play(st, "table a1 r0")
    assert st.totals == [8, 10] and st.matches == 1
    values = {s: TILE_VALUE[st.tables[s]] for s in (1, 3)}
    assert st.to_move == max((1, 3), key=lambda s: (values[s], -s))


def test_ogo_61_solo_victory_needs_every_marker_kind_placed() -> None:
    """OGO-26, OGO-61, OGO-62: S15 without the tile on d4 (so big@vd4 is open and one big
    marker is left). The D10 on e1 closes the 8 and small@vf2, spending the last small
    marker: one big marker is still in supply, so the match goes on (no victory yet). The
    E12 on d4 then closes big@vd4: all 11 markers are placed and an 8 was closed earlier,
    so the match is won at once. A Z0 on a4 is a placed tile, not an empty slot: the score
    is 24 + 8 + 2 x 4 empty slots = 40, reward 40/32."""
    squares = board(S15_BOARD)
    del squares["d4"]
    squares["a4"] = "Z0/0"
    shape_map = {k: v for k, v in S15_SHAPES.items() if k != "big@vd4"}
    st = make({"board": squares, "shapes": shape_map, "tower": ["D10", "E12"]}, num_players=1)
    assert st.supply == [[1, 1, 0]]
    play(st, "drawn e1 r0")
    assert not st.is_terminal() and st.supply == [[0, 1, 0]] and st.solo_eights == 1
    assert legal(st) == {"drawn d4 r0", "drawn d4 r2"}
    play(st, "drawn d4 r0")
    assert st.is_terminal() and st.supply == [[0, 0, 0]] and st.winners == [0]
    assert st.match_scores == [40] and list(st.returns()) == [1.25]


def test_ogo_57_seat_three_scores_for_team_b() -> None:
    """OGO-57, OGO-19, S3: in 2v2, seat 3 places the drawn E12 on e4 and closes square@ve4
    and big@ve4: both markers come from team B's supply (team 1), 6 points for team B."""
    pos = {
        "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
        "tables": ["A4", "A4", "A4", "B7"],
        "tower": ["E12", "G16"],
        "to_move": 3,
    }
    st = make(pos, num_players=4, teams=True)
    assert "drawn e4 r0" in legal(st)
    play(st, "drawn e4 r0")
    assert st.snapshot()["shapes"] == {"square@ve4": 1, "big@ve4": 1}
    assert st.supply == [[4, 4, 3], [4, 3, 2]] and st.marker_points(1) == 6


@pytest.mark.parametrize(("seat", "scores"), [(2, [8, 0]), (3, [0, 8])])
def test_ogo_24_ogo_57_eight_by_a_second_partner_scores_for_its_team(seat: int, scores: list[int]) -> None:
    """OGO-24, OGO-57, §5 'match': in 2v2 the 8-nil of S6 closed by seat 2 (team A) or seat
    3 (team B) gives 8 to that seat's team; every seat of the team gets (8 - 0)/32."""
    tables = ["A4"] * 4
    tables[seat] = "D10"
    st = make(
        p_eight(tower=["B7", "C8", "E12"], tables=tables, to_move=seat),
        num_players=4,
        teams=True,
        episode="match",
    )
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.is_terminal() and st.match_scores == scores
    team = seat % 2
    assert list(st.returns()) == [0.25 if s % 2 == team else -0.25 for s in range(4)]


def test_ogo_61_solo_full_board_after_an_eight_is_still_a_defeat() -> None:
    """OGO-61: victory needs all 11 markers on the board *and* an 8. An 8 was closed earlier
    (``solo_eights`` 1) but 9 markers are still in supply when the E12 on b1 fills the
    board: the player loses (reward -1, no winner)."""
    pos = {
        "board": board(S14_BOARD),
        "shapes": {"small@va6": 0, "small@vf1": 0},
        "tower": ["E12"],
        "solo_eights": 1,
    }
    st = make(pos, num_players=1)
    play(st, "drawn b1 r0")
    assert st.is_terminal() and list(st.returns()) == [-1.0]
    assert st.winners == [] and st.match_scores == [0]


def test_section2_3_tower_is_shuffled_per_match() -> None:
    """§2.3, OGO-60, OGO-64: the tower is shuffled by the seeded generator: different seeds
    deal different starting table tiles (3 players) and a different first solo tile."""
    tables = {
        tuple(OttoGameOverGame(num_players=3).new_initial_state(np.random.default_rng(s)).tables)
        for s in range(4)
    }
    assert len(tables) == 4
    solo = {
        OttoGameOverGame(num_players=1).new_initial_state(np.random.default_rng(s)).drawn for s in range(4)
    }
    assert len(solo) > 1


def test_clone_then_play_the_table_tile_leaves_the_original_tables() -> None:
    """OGO-10 through ``clone()``: a clone places its table tile (S3's ``table e4 r0``), so
    its drawn E12 becomes its table tile; the original still holds B7 on the table and E12
    drawn, and can play the same move."""
    pos = {
        "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
        "tables": ["B7", "A4"],
        "tower": ["E12", "G16"],
    }
    st = make(pos)
    before = st.to_dict()
    twin = st.clone()
    play(twin, "table e4 r0")
    assert twin.snapshot()["tables"] == ["E12", "A4"]
    assert st.to_dict() == before and st.snapshot()["tables"] == ["B7", "A4"]
    play(st, "table e4 r0")
    assert st.to_dict() == twin.to_dict()


def test_placement_options_report_an_eight_of_a_board_x_tile() -> None:
    """OGO-12, OGO-06 (``State.placement_options``: bit k of the 8 bits = orientation k
    closes an 8): the drawn A4 on a4 completes the 8 of the F12 on b4 in all 4 orientations."""
    st = make({"board": F12_EIGHT, "tables": ["G16", "G16"], "tower": ["A4", "Z0"]})
    a4 = {t: eight for t, sq, _score, eight, _pts in st.placement_options() if sq == 15}
    assert a4 == {0: 0b1111, 1: 0}
