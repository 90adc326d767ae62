"""Pins from a mutation round on OTTO Game Over's env layer: the game facts and functions
(``envs/otto_game_over/game.py``), the env's metadata (``env.py``), the notation
(``notation.py``, ``actions.py``, spec §7, §8) and the position schema of the reset option
``position`` / ``snapshot()`` / ``to_dict`` (``position.py``; the env docstring's "Reset options
and the position schema")."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest

from envs import otto_game_over_v0
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.rules import State
from tests.otto_game_over.helpers import board, make, p_eight, play
from tests.otto_game_over.test_scenarios import S14_BOARD, S15_BOARD

# --- game.py: seats are checked, facts match the doc page ----------------------------------------


@pytest.mark.parametrize("seat", [2, -1, True])
@pytest.mark.parametrize("fn", ["observe", "infos", "private_text", "resample_hidden"])
def test_per_seat_functions_refuse_a_seat_outside_the_game(fn: str, seat: Any) -> None:
    """A seat is an int in [0, n): a 2-player game has no seat 2, and ``-1`` would read another
    seat's view (hidden cards included) through Python's negative indexing."""
    game = OttoGameOverGame()
    st = game.new_initial_state(np.random.default_rng(0))
    args: tuple[Any, ...] = (np.random.default_rng(1),) if fn == "resample_hidden" else ()
    with pytest.raises(ValueError, match=re.escape(f"seat must be an int in [0, 1], got {seat!r}")):
        getattr(game, fn)(st, seat, *args)


def test_env_metadata_is_the_documented_one() -> None:
    """Doc page: module ``envs.otto_game_over_v0``, render modes ``ansi`` / ``rgb_array`` /
    ``human``; one agent acts at a time (AEC, Infinity answers out of turn), so it is no
    parallel env."""
    md = otto_game_over_v0.raw_env.metadata
    assert md["name"] == "otto_game_over_v0"
    assert md["render_modes"] == ["ansi", "rgb_array", "human"]
    assert md["is_parallelizable"] is False


def test_mcts_defaults_are_the_tuned_settings() -> None:
    """Doc page / ``mcts_defaults``: the ``mcts`` bot's tuned settings are a ``heuristic`` prior
    with leaves valued at once (depth 0)."""
    assert OttoGameOverGame.mcts_defaults == {"depth": 0, "prior": "heuristic"}


def test_solo_game_length_bound_is_one_match() -> None:
    """§5: solo is always one solitary match, whatever ``episode`` says (solo ignores
    ``episode``, §6), so its length bound is the one-match bound."""
    assert (
        OttoGameOverGame(num_players=1).max_game_length
        == OttoGameOverGame(num_players=1, episode="match").max_game_length
    )


def test_game_length_bound_counts_the_tie_break_match() -> None:
    """OGO-53, doc page: a game may play ``max_matches`` regular matches and then the tie-break
    match, so the bound of ``max_matches=1`` covers two matches (the 4 x 33 card extras once)."""
    one = OttoGameOverGame(episode="match").max_game_length - 4 * 33
    assert OttoGameOverGame(max_matches=1).max_game_length - 4 * 33 == 2 * one
    assert OttoGameOverGame().max_game_length - 4 * 33 == 31 * one


def test_zero_sum_except_solo() -> None:
    """§5: rewards are zero-sum ("game" and "match" alike); solo pays one player alone."""
    assert OttoGameOverGame().zero_sum is True
    assert OttoGameOverGame(num_players=4, teams=True, episode="match").zero_sum is True
    assert OttoGameOverGame(num_players=1).zero_sum is False


def test_reset_options_must_be_a_dict() -> None:
    """Reset options are a dict: a list of pairs is refused by a ``ValueError`` naming its type."""
    game = OttoGameOverGame()
    with pytest.raises(ValueError, match=re.escape("reset options must be a dict, got list")):
        game.new_initial_state(np.random.default_rng(0), [("position", {})])  # type: ignore[arg-type]


def test_a_position_option_of_none_is_absent() -> None:
    """Doc page: an option given as ``None`` is absent, so ``{"position": None}`` deals a new
    game (§2: two table tiles and one card each), like no option at all."""
    game = OttoGameOverGame()
    st = game.new_initial_state(np.random.default_rng(5), {"position": None})
    fresh = game.new_initial_state(np.random.default_rng(5))
    assert st.snapshot() == fresh.snapshot()
    assert all(t is not None for t in st.snapshot()["tables"])
    assert [len(h) for h in st.snapshot()["hands"]] == [1, 1]


# --- notation.py: the error names the grammar ------------------------------------------------------


def test_malformed_action_error_ends_with_the_grammar() -> None:
    """§8, doc page: malformed text raises ``ValueError`` saying what is wrong, then the grammar
    (squares a1..e5, orientations k 0..3)."""
    with pytest.raises(ValueError, match=r"malformed action") as info:
        OttoGameOverGame().string_to_action("drawn f1 r0")
    msg = str(info.value)
    assert msg.startswith("malformed action 'drawn f1 r0': after 'drawn' comes one of a1, b1")
    assert msg.endswith(
        "expected 'drawn|table <square> r<k>', 'no card', 'card <effect>', 'card joker as <effect>', "
        "'card infinity', 'card joker as infinity' or 'keep infinity' "
        "(square a1..e5, k 0..3, effect e.g. 'magnetic-inversion player_1', 'quantum-leap b1 e5 r0')"
    )


# --- position.py: snapshot() writes back exactly what was set up --------------------------------

FULL = p_eight(
    shapes={"small@vf1": 0, "small@va6": None},
    drawn="E12",
    tower=["B7", "A4"],
    tower_rest=False,
    discarded=["DARK", "Z0"],
    hands=[["meteorite", "joker"], []],
    deck=["infinity", "time-travel"],
    removed_cards={"quantum-leap": 2},
    voided_cards=0,
    markers=[{"small": 4, "big": 3, "square": 2}, {"small": 1, "big": 4, "square": 3}],
    totals=[5, 7],
    match_scores=[2, 3],
    matches=2,
    to_move=1,
    phase="place",
    time_travel=True,
    extra_turn=False,
    solo_eights=0,
)


def test_snapshot_writes_back_every_key_of_a_position() -> None:
    """Doc page / position schema: ``snapshot()`` writes every key, so the position set up reads
    back key for key: tower and deck top first, an unclaimed shape as ``null``, a Time Travel
    played this turn, the markers, totals, scores and matches as given."""
    snap = make(copy.deepcopy(FULL)).snapshot()
    for key, value in FULL.items():
        assert snap[key] == value, key
    assert snap["actor"] == 1 and snap["kidnapped"] is None and snap["infinity"] is None
    assert snap["tiebreak"] is False and "result" not in snap


def test_position_tower_and_deck_are_listed_top_first() -> None:
    """Position schema, OGO-16, OGO-28, OGO-10: ``tower`` and ``deck`` are top first. player_0
    draws the dark top onto its dark table tile: both are discarded, it draws the next tile
    (B7) as table tile and the top card (infinity), and its turn is skipped; player_1 then
    draws the last tile, A4."""
    st = make(
        {
            "tables": ["DARK", "G16"],
            "tower": ["DARK", "B7", "A4"],
            "tower_rest": False,
            "deck": ["infinity", "time-travel"],
        }
    )
    snap = st.snapshot()
    assert snap["tables"] == ["B7", "G16"] and snap["discarded"] == ["DARK", "DARK"]
    assert snap["hands"] == [["infinity"], []] and snap["deck"] == ["time-travel"]
    assert (snap["to_move"], snap["phase"], snap["drawn"], snap["tower"]) == (1, "place", "A4", [])


def test_snapshot_writes_a_time_travel_extra_turn() -> None:
    """OGO-34, position schema: a turn set up as a Time-Travel extra turn starts as one (the
    player draws and places, no card phase) and the snapshot says so."""
    st = make({"tables": ["A4", "B7"], "hands": [["meteorite"], []], "extra_turn": True})
    snap = st.snapshot()
    assert (snap["extra_turn"], snap["phase"], snap["to_move"]) == (True, "place", 0)
    plain = make({"tables": ["A4", "B7"], "hands": [["meteorite"], []]}).snapshot()
    assert (plain["extra_turn"], plain["phase"]) == (False, "card")


def test_snapshot_writes_the_solo_eights_and_the_voided_cards() -> None:
    """Position schema: ``solo_eights`` (8s closed so far in a solo match) and ``voided_cards``
    (cards voided unseen when the tie-break match began, OGO-33) read back as set up."""
    assert make({"solo_eights": 2}, num_players=1).snapshot()["solo_eights"] == 2
    tie = make({"tiebreak": True, "voided_cards": 33, "totals": [24, 24]}).snapshot()
    assert tie["voided_cards"] == 33 and tie["tiebreak"] is True


def test_snapshot_of_an_infinity_phase_is_a_copy() -> None:
    """OGO-46, position schema: the infinity record reads back whole (creator, visited, saved
    per team, the visited seat as actor), and editing the returned dict leaves the game alone."""
    pos = {
        "board": {"b3": "A4/0"},
        "hands": [["infinity"]] * 4,
        "phase": "infinity",
        "to_move": 3,
        "actor": 1,
        "infinity": {"creator": 3, "visited": 2, "saved": [False, True, False, False]},
    }
    st = make(copy.deepcopy(pos), num_players=4)
    snap = st.snapshot()
    assert (snap["phase"], snap["actor"], snap["to_move"]) == ("infinity", 1, 3)
    assert snap["infinity"] == pos["infinity"]
    snap["infinity"]["saved"][0] = True
    assert st.snapshot()["infinity"]["saved"] == [False, True, False, False]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"voided_cards": 34, "tiebreak": True, "totals": [24, 24]},
            "position['voided_cards'] must be an int in [0, 33], got 34",
        ),
        ({"removed_cards": {"meteorite": 34}}, "position['removed_cards'] must be an int in [0, 33], got 34"),
        ({"kidnapped": "", "phase": "kidnap"}, "position['kidnapped']: card must be one of"),
        ({"board": {"b3": "DARK/0"}}, "position['board']['b3']: a dark tile can never be placed (OGO-03)"),
        ({"board": {1: "A4/0"}}, "position['board'] must be a dict with string keys, got {1: 'A4/0'}"),
        ({"board": {"c3": "C8/1"}}, "position['board']['c3'] is the fixed centre and must be 'C8/0'"),
        ({"tables": ["B7", "A4", "C8"]}, "position['tables'] must be a list of 2, got ['B7', 'A4', 'C8']"),
        ({"totals": [1, 2, 3]}, "position['totals'] must be a list of 2, got [1, 2, 3]"),
        (
            {"markers": [{"smal": 1}, {}]},
            "position['markers'][0] keys must be small/big/square, got ['smal']",
        ),
        (
            {"infinity": {"creator": 0, "visited": 0, "saved": [False, False]}},
            "position['kidnapped'] / ['infinity'] are set exactly in their own phase",
        ),
    ],
)
def test_position_refuses_with_the_key_named(extra: dict[str, Any], message: str) -> None:
    """Position schema, §1.5 (33 cards), OGO-03, §2 (the fixed centre C8 r0): out-of-range
    counts, an empty card name, a dark tile on the board, a turned centre, a board keyed by
    something other than square names, a marker kind misspelt, an infinity record outside phase infinity and per-seat / per-team lists of the wrong length (too
    long as well as too short) are refused by a ``ValueError`` naming the key."""
    with pytest.raises(ValueError, match=re.escape(message)):
        make(extra)


def test_position_infinity_creator_is_a_seat_of_the_game() -> None:
    """OGO-46: the creator of the 8 is a seat: seat 2 does not exist in a 2-player game even
    when (creator + visited) mod n names the actor."""
    pos = {
        "hands": [["infinity"]] * 2,
        "phase": "infinity",
        "infinity": {"creator": 2, "visited": 0, "saved": [False, False]},
    }
    with pytest.raises(
        ValueError, match=re.escape("position['infinity.creator'] must be an int in [0, 1], got 2")
    ):
        make(pos)


def _truncated_dict() -> dict[str, Any]:
    """S14 with ``max_matches=1``: the board fills, the only match ends below the target and
    the game is truncated (§5)."""
    st = make(
        {
            "board": board(S14_BOARD),
            "shapes": {"small@va6": 1, "small@vf1": 1},
            "tables": ["C8", "B7"],
            "tower": ["E12"],
            "to_move": 1,
        },
        max_matches=1,
    )
    play(st, "table b1 r2")
    assert st.is_truncated()
    return json.loads(json.dumps(st.to_dict()))


def test_a_truncated_state_restores_truncated() -> None:
    """§5, doc page ("state" option restores a whole state exactly): a truncated game's state
    reads ``truncated: true`` and restores truncated, with its zero returns."""
    d = _truncated_dict()
    assert d["position"]["result"] == {"winners": [], "returns": [0.0, 0.0], "truncated": True}
    again = State.from_dict(copy.deepcopy(d))
    assert again.is_truncated() and list(again.returns()) == [0.0, 0.0]
    assert again.to_dict() == d


@pytest.mark.parametrize("value", [1, None, "yes"])
def test_a_state_result_truncated_flag_is_a_bool(value: Any) -> None:
    """Position schema (``result``): ``truncated`` is true or false; anything else is refused
    by name rather than read as a truth value."""
    d = _truncated_dict()
    d["position"]["result"]["truncated"] = value
    with pytest.raises(
        ValueError, match=re.escape(f"position['result.truncated'] must be true or false, got {value!r}")
    ):
        State.from_dict(d)


def test_listed_tower_tiles_stay_on_top_of_the_rest() -> None:
    """Position schema (``tower_rest``): the rest of the set is shuffled in *below* the listed
    tower, so the first listed tile is drawn first (spec §9 S3 sets up its draw this way)."""
    for seed in range(3):
        snap = make({"tower": ["E12", "G16"], "tables": ["A4", "B7"]}, seed=seed).snapshot()
        assert snap["drawn"] == "E12" and snap["tower"][0] == "G16"
        assert len(snap["tower"]) == 4 * 9 - 2 - 1  # the set of 36 minus the tables and the drawn tile


FIVE_SMALLS = {
    "board": {
        **{"b1": "Z0/0", "c1": "E12/3", "d1": "D10/2", "e1": "A4/2", "c2": "E12/1", "d2": "B7/1"},
        **{"c3": "C8/0", "d3": "E12/1", "e3": "A4/0", "a4": "D10/0", "b4": "G16/3", "c4": "F12/0"},
        **{"d4": "B7/1", "a5": "A4/1", "b5": "B7/3", "c5": "D10/2", "d5": "F12/1", "e5": "C8/2"},
    },
    "shapes": {f"small@{v}": 0 for v in ("va6", "vb6", "ve1", "vf1", "va5")},
    "tables": ["A4", "B7"],
}


def test_position_default_markers_cannot_go_below_zero() -> None:
    """OGO-19, position schema (``markers``: a kind not given is 4/4/3 minus the team's shapes
    of that kind): a team owning five small circles has no default small supply (it has only 4
    markers); given explicitly, the supply is taken as it is."""
    with pytest.raises(
        ValueError, match=re.escape("team 0 owns 5 small shapes but has only 4 small markers")
    ):
        make(copy.deepcopy(FIVE_SMALLS))
    st = make({**copy.deepcopy(FIVE_SMALLS), "markers": [{"small": 0}, {}]})
    assert st.snapshot()["markers"] == [
        {"small": 0, "big": 4, "square": 3},
        {"small": 4, "big": 4, "square": 3},
    ]


def test_a_solo_victory_state_restores_its_return_above_one() -> None:
    """§5, OGO-62, S15, doc page ("state" option restores any state): a solo victory pays
    score / 32, 42 / 32 = 1.3125 after S15, so a finished solo state holds a return above 1 and
    restores with it."""
    shapes = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    st = make({"board": board(S15_BOARD), "shapes": shapes, "tower": ["D10"]}, num_players=1)
    play(st, "drawn e1 r0")
    d = json.loads(json.dumps(st.to_dict()))
    assert d["position"]["result"] == {"winners": [0], "returns": [1.3125], "truncated": False}
    again = State.from_dict(d)
    assert again.is_terminal() and list(again.returns()) == [1.3125]
    assert again.to_dict() == d


@pytest.mark.parametrize(
    ("phase", "extra"),
    [
        ("start", {}),
        ("card", {"hands": [["meteorite"], []]}),
        ("kidnap", {"hands": [["meteorite"], ["time-travel"]], "kidnapped": "time-travel"}),
    ],
)
def test_position_drawn_tile_needs_phase_place(phase: str, extra: dict[str, Any]) -> None:
    """Position schema (``drawn``: the tile drawn this turn, phase "place" only), OGO-10: the
    tile is drawn after the card decision, so a start, card or kidnap position holding one is
    refused naming ``drawn``. Card and kidnap positions were accepted, and the tile vanished at
    the next draw (in none of drawn, tables, tower or discards)."""
    message = f"position['drawn'] needs phase 'place', got phase {phase!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        make({"tables": ["A4", "B7"], "drawn": "E12", "phase": phase, "tower": ["G16"], **extra})
    st = make({"tables": ["A4", "B7"], "drawn": "E12", "phase": "place", "tower": ["G16"]})
    assert st.snapshot()["drawn"] == "E12"


@pytest.mark.parametrize("key", ["config", "rng"])
@pytest.mark.parametrize("value", [["num_players", 2], "default", None])
def test_a_state_dict_needs_dict_config_and_rng(key: str, value: Any) -> None:
    """Doc page ("state" option: a dict ``state.to_dict()`` wrote): its ``config`` and ``rng``
    are dicts; anything else is refused by a ``ValueError`` naming both."""
    d = json.loads(json.dumps(make({"tables": ["B7", "G16"]}).to_dict()))
    d[key] = value
    with pytest.raises(ValueError, match=re.escape("state dict: 'config' and 'rng' must be dicts")):
        State.from_dict(d)


@pytest.mark.parametrize(("value", "name"), [([1, 2], "list"), ("state", "str"), (None, "NoneType")])
def test_a_state_dict_is_a_dict(value: Any, name: str) -> None:
    """Doc page ("state" option): ``State.from_dict`` takes the dict ``to_dict`` wrote; any other
    value is refused by a ``ValueError`` naming its type."""
    with pytest.raises(ValueError, match=re.escape(f"a state dict is expected, got {name}")):
        State.from_dict(value)
