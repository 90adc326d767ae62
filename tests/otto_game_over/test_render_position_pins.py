"""Pins on the text picture, the position loader and the notation of OTTO Game Over that a
mutation round found no test held: each test names the behaviour (and its rule ID) and fails
under the small plausible change the round planted there."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from envs.otto_game_over import notation
from envs.otto_game_over.actions import CARD_NAMES
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.render import render_ansi
from envs.otto_game_over.rules import State
from tests.otto_game_over.helpers import board, legal, make, p_eight, play
from tests.otto_game_over.test_mutation_gaps import AROUND_B2, TIE_BREAK_POS
from tests.otto_game_over.test_scenarios import S15_BOARD


def _lines(st: State, prefix: str) -> list[str]:
    """The lines of the text picture that start with ``prefix``."""
    return [line for line in render_ansi(st).splitlines() if line.startswith(prefix)]


def _tiles_off_centre(st: State) -> Counter[str]:
    """Every tile of the set the position holds, wherever it is (the fixed centre aside)."""
    pos = st.snapshot()
    placed = [text.split("/")[0] for sq, text in pos["board"].items() if sq != "c3"]
    seen = [*pos["tables"], pos["drawn"], *pos["tower"], *pos["discarded"]]
    return Counter(placed + [x for x in seen if x is not None])


# ---------------------------------------------------------------- the text picture
def test_render_names_the_seat_answering_infinity_not_the_seat_to_move() -> None:
    """OGO-45/46, spec §9 S7: once p0's joker saved team 0, p1 answers Infinity out of turn
    (p0 is still the seat to move); the picture says p1 acts."""
    st = make(p_eight(tower=["B7", "C8", "E12"], hands=[["joker"], ["infinity"]]))
    play(st, "no card", "table a1 r0", "card joker as infinity")
    assert (st.to_move, st.actor) == (0, 1)
    assert legal(st) == {"card infinity", "keep infinity"}
    text = render_ansi(st).splitlines()
    assert text[-3:] == [
        "8 closed by player_0 (X tile a1), saved: team 0",
        "cards out: joker 1",
        "player_1 to act (infinity)",
    ]


def test_render_numbers_the_tie_break_match_after_the_regular_ones() -> None:
    """OGO-53..56: after 3 regular matches the tie-break match is match 4, and stays match 4
    when it ends the game (unlike a game-ending regular match, it is not in ``matches``)."""
    st = make({**TIE_BREAK_POS, "matches": 3}, num_players=3)
    assert _lines(st, "tower ") == ["tower 3, deck 0, drawn E12, match 4 (tie-break)"]
    play(st, "drawn b1 r0")  # fills the board; the tile draws leave p0 and p1 tied (OGO-56)
    assert st.is_terminal() and st.matches == 3 and st.winners == [0, 1]
    assert _lines(st, "tower ") == ["tower 1, deck 0, drawn -, match 4 (tie-break)"]
    assert _lines(st, "game over") == ["game over: teams 0, 1 won, returns [0.25, 0.25, -0.5]"]


def test_render_shows_the_solo_victory_score() -> None:
    """OGO-61/62, spec §9 S15: the solo victory line gives the match score 42 (the game total
    stays 0: a solo episode adds nothing to it)."""
    shapes: dict[str, Any] = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": shapes, "tower": ["D10"]}, num_players=1)
    play(st, "drawn e1 r0")
    assert st.match_scores == [42] and st.totals == [0]
    assert render_ansi(st).splitlines()[-1] == "game over: victory, score 42, returns [1.3125]"


def test_render_shows_the_last_match_once_one_has_ended() -> None:
    """OGO-52: no `last match:` line before any match has ended; the scores of the last one
    after regular matches; and at the end of a one-match episode (spec §9 S6, 8-nil, where
    ``matches`` stays 0)."""
    assert _lines(make({"tables": ["B7", "G16"]}), "last match") == []
    st = make({"tables": ["B7", "G16"], "matches": 2, "match_scores": [5, 12]})
    assert _lines(st, "last match") == ["last match: 5-12"]
    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    play(st, "table a1 r0")
    assert st.is_terminal() and st.matches == 0
    assert _lines(st, "last match") == ["last match: 8-0"]


def test_render_shapes_name_team_0_in_2v2() -> None:
    """OGO-21/22 in 2v2: seat 2 claims the oldest unclaimed small circle for team 0 with its
    team's last small marker; the picture writes the owner as `team0` / `team1` and an
    unclaimed shape as `-`."""
    pos = {
        "board": {**AROUND_B2, "a1": "A4/0", "b2": "A4/0"},
        "shapes": {"small@vb3": 1, "small@vc2": None, "small@vb2": None},
        "tables": ["G16"] * 4,
        "tower": ["Z0"],
        "markers": [{"small": 1}, {"small": 0}],
        "to_move": 2,
    }
    st = make(pos, num_players=4, teams=True)
    assert _lines(st, "shapes") == ["shapes: small@vb3=team1, small@vc2=team0, small@vb2=-"]


def test_render_announces_the_time_travel_extra_turn() -> None:
    """OGO-34: after `card time-travel` the coming extra turn is announced; once p1 has placed
    its tile, the extra turn itself is."""
    st = make({"tables": ["B7", "G16"], "tower": ["A4", "E12"], "hands": [[], ["time-travel"]], "to_move": 1})
    play(st, "card time-travel")
    assert _lines(st, "player_1: Time") == ["player_1: Time-Travel extra turn to come"]
    play(st, "drawn b3 r0")
    assert st.extra_turn and (st.to_move, st.actor) == (1, 1)
    assert _lines(st, "player_1: Time") == ["player_1: Time-Travel extra turn"]


# ---------------------------------------------------------------- the position loader
def test_position_solo_tower_has_no_dark_tiles() -> None:
    """OGO-60: in solo the 4 dark tiles are out of the set, so `tower_rest` fills the tower
    with the path tiles not listed elsewhere and no DARK."""
    st = make({"board": {"b3": "C8/0"}, "drawn": "A4", "phase": "place"}, num_players=1)
    assert _tiles_off_centre(st) == Counter(
        {d: 4 for d in ("Z0", "A4", "B7", "C8", "D10", "E12", "F12", "G16")}
    )
    assert "DARK" not in st.snapshot()["tower"] and len(st.tower) == 30


def test_position_tower_rest_does_not_count_the_fixed_centre() -> None:
    """§1.4/1.5, §2.3: the fixed centre c3 is not one of the 4 C8 path tiles, so only a C8
    placed elsewhere or on a table is taken out of the tower's rest (4 - 2 = 2 left)."""
    st = make({"board": {"b3": "C8/0"}, "tables": ["C8", "G16"], "drawn": "A4", "phase": "place"})
    tower = Counter(st.snapshot()["tower"])
    assert tower["C8"] == 2 and tower["DARK"] == 4 and len(st.tower) == 32
    assert set(_tiles_off_centre(st).values()) == {4}


def test_position_actor_defaults_to_the_seat_to_move() -> None:
    """Position schema: `actor` omitted is `to_move` (here p1 about to place)."""
    st = make({"tables": ["B7", "G16"], "drawn": "A4", "phase": "place", "to_move": 1})
    assert (st.to_move, st.actor) == (1, 1) and st.snapshot()["actor"] == 1


def test_position_infinity_actor_must_be_the_visited_seat() -> None:
    """OGO-46: in phase infinity the deciding seat is the creator's seat plus `visited`,
    clockwise (creator 3, visited 2 of 4 seats: seat 1); any other `actor` is refused."""

    def pos(**actor: int) -> dict[str, Any]:
        return {
            "board": {"b3": "A4/0"},
            "hands": [["infinity"]] * 4,
            "phase": "infinity",
            "to_move": 3,
            "infinity": {"creator": 3, "visited": 2, "saved": [False] * 4},
            **actor,
        }

    assert make(pos(actor=1), num_players=4).actor == 1
    for bad in ({"actor": 3}, {"actor": 2}, {}):
        with pytest.raises(ValueError, match=r"actor") as err:
            make(pos(**bad), num_players=4)
        assert str(err.value) == "position['actor'] must be the seat the infinity phase is visiting"


def test_position_reads_tile_names_in_any_case() -> None:
    """Position schema: tile names are read in any case (as the notation is) and written
    upper case by ``snapshot()``."""
    st = make(
        {
            "tables": ["d10", "G16"],
            "drawn": "a4",
            "phase": "place",
            "tower": ["b7", "Dark", "e12"],
            "tower_rest": False,
            "discarded": ["dark", "DaRk"],
        }
    )
    pos = st.snapshot()
    assert pos["tables"] == ["D10", "G16"] and pos["drawn"] == "A4"
    assert pos["tower"] == ["B7", "DARK", "E12"] and pos["discarded"] == ["DARK", "DARK"]


def test_position_refuses_an_unknown_removed_card() -> None:
    """Position schema: `removed_cards` keys are card names in any case; any other key is
    refused with a message naming it and the card names."""
    assert make({"removed_cards": {"Meteorite": 1}}).snapshot()["removed_cards"] == {"meteorite": 1}
    with pytest.raises(ValueError, match=r"removed_cards") as err:
        make({"removed_cards": {"Meteorite": 1, "banana": 2}})
    names = list(CARD_NAMES)
    assert str(err.value) == f"position['removed_cards'] keys must be card names {names}, got ['banana']"


def test_position_actor_differs_from_to_move_only_in_infinity() -> None:
    """Position schema: outside phase infinity the deciding seat is the seat to move; an `actor`
    that differs is refused in every phase, `start` (the default) included."""
    for phase in ("start", "place"):
        pos = {"tables": ["B7", "G16"], "to_move": 1, "actor": 0, "phase": phase}
        if phase == "place":
            pos["drawn"] = "A4"
        with pytest.raises(ValueError, match=r"actor") as err:
            make(pos)
        assert str(err.value) == "position['actor'] differs from 'to_move' only in phase 'infinity'"


# ---------------------------------------------------------------- the notation
def test_action_to_string_refuses_a_bool_as_an_index() -> None:
    """Spec §8: True and False are no action indices (although ``True == 1`` in Python): the
    engine's ``action_to_string`` names them illegal instead of reading 1 and 0."""
    game = OttoGameOverGame()
    st = make({"tables": ["B7", "G16"]})
    for to_string in (notation.action_to_string, game.action_to_string, st.action_to_string):
        assert to_string(1) == "drawn a1 r1" and to_string(0) == "drawn a1 r0"
        assert to_string(True) == "illegal True" and to_string(False) == "illegal False"
