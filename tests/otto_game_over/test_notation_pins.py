"""Pins on OTTO Game Over's notation (spec §8), the position hook and the state dict that a
mutation round on ``actions.py``, ``notation.py``, ``position.py`` and ``env.py`` found no
test held: each test names the behaviour (and its rule IDs) and fails under the small
plausible change the round planted there."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.otto_game_over import notation
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.rules import State
from envs.otto_game_over_v0 import env as make_env
from tests.otto_game_over.helpers import board, make, p_eight, play
from tests.otto_game_over.test_scenarios import S8_BOARD, S15_BOARD

SQUARES = [f"{f}{r}" for r in range(1, 6) for f in "abcde"]  # S(sq) = (rank-1)*5 + file


def _effects() -> list[str]:
    """Spec §7/§8: the effect words in the order of their code E."""
    out = ["time-travel"]
    out += [f"magnetic-inversion player_{j}" for j in range(4)]
    out += ["revolution-cw", "revolution-acw", "meteorite"]
    out += [f"quantum-leap {f} {t} r{k}" for f in SQUARES for t in SQUARES for k in range(4)]
    out += [f"alien-kidnapping player_{j}" for j in range(4)]
    return out


# ---------------------------------------------------------------- the notation
def test_every_index_has_its_own_canonical_string_in_the_spec_layout() -> None:
    """Spec §7/§8: the 5,228 indices each have one canonical string, laid out as §7 says,
    impossible targets included (``card quantum-leap c3 c3 r0``, ``player_3`` in a 2-player
    game), and each string reads back to its own index. A shifted or doubled string would make
    an action unreachable by its name."""
    expected = [f"{t} {sq} r{k}" for t in ("drawn", "table") for sq in SQUARES for k in range(4)]
    expected += ["no card"] + [f"card {e}" for e in _effects()]
    expected += [f"card joker as {e}" for e in _effects()]
    expected += ["card infinity", "card joker as infinity", "keep infinity"]
    assert len(expected) == 5228
    st = make({"tables": ["B7", "G16"]})  # 2 players
    strings = [st.action_to_string(i) for i in range(5228)]
    assert strings == expected
    assert len(set(strings)) == 5228
    assert [st.string_to_action(s) for s in strings] == list(range(5228))
    for text in (
        "card quantum-leap c3 c3 r0",
        "card quantum-leap b1 b1 r1",
        "card magnetic-inversion player_3",
    ):
        assert st.action_to_string(st.string_to_action(text)) == text


def test_a_malformed_string_is_named_in_the_error() -> None:
    """Spec §8: anything but a canonical string raises ``ValueError``; the message quotes the
    text the user gave, so a typo in a script is found at once."""
    st = make({"tables": ["B7", "G16"]})
    for text in ("drawn b3 r9", "card joker as  kidnap player_1", "keep infinty"):
        with pytest.raises(ValueError, match=r"malformed action") as err:
            st.string_to_action(text)
        assert repr(text) in str(err.value)


@pytest.mark.parametrize("text", ["drawn\tb3 r1", "no\ncard", "card\r\nmeteorite"])
def test_only_spaces_separate_the_words(text: str) -> None:
    """Spec §8: surrounding whitespace is ignored and runs of spaces collapse; anything else,
    such as a tab or line break between the words, is malformed (``ValueError``)."""
    with pytest.raises(ValueError, match="malformed"):
        notation.string_to_action(text)
    assert notation.string_to_action(" \t" + text.split()[0] + "  " + " ".join(text.split()[1:]) + "\n ") >= 0


def test_bytes_are_no_action_string() -> None:
    """Spec §8: only text is parsed; bytes raise ``ValueError`` (not a bare AttributeError)
    naming the type."""
    for parse in (notation.string_to_action, OttoGameOverGame().string_to_action):
        with pytest.raises(ValueError, match="bytes"):
            parse(b"no card")  # type: ignore[arg-type]


def test_action_to_string_names_a_non_integer_it_was_given() -> None:
    """Doc page (spec §8): ``action_to_string`` of something that is no index answers
    ``illegal <value>``, naming the value, as it does for an index out of range."""
    assert notation.action_to_string(1.5) == "illegal 1.5"  # type: ignore[arg-type]
    assert notation.action_to_string("b3") == "illegal b3"  # type: ignore[arg-type]
    assert notation.action_to_string(np.int64(5227)) == "keep infinity"  # type: ignore[arg-type]


# ---------------------------------------------------------------- the position hook
def test_position_integers_refuse_booleans() -> None:
    """§9 position hook, OGO-10, OGO-19: seat and count entries are ints; ``true`` (which
    Python counts as 1) is refused by name rather than read as seat 1 or one marker."""
    for pos, key in (
        ({"tables": ["B7", "G16"], "to_move": True}, "to_move"),
        ({"voided_cards": True}, "voided_cards"),
        ({"tables": ["B7", "G16"], "markers": [{"small": True}, {}]}, "small"),
    ):
        with pytest.raises(ValueError, match=key):
            make(pos)


def test_position_tower_rest_leaves_out_the_discarded_tiles() -> None:
    """Position schema, OGO-16: the rest of the tower is the set minus every listed tile, the
    discarded ones too: after the four dark tiles went out as two dark pairs, none of them can
    be drawn again (the tower holds the 32 path tiles minus the tables)."""
    st = make({"tables": ["B7", "G16"], "discarded": ["DARK"] * 4})
    snap = st.snapshot()
    tiles = [*snap["tower"], snap["drawn"]]  # p0 has drawn the top one
    assert "DARK" not in tiles and len(tiles) == 30


@pytest.mark.parametrize("key", ["tower", "discarded"])
def test_position_tile_piles_hold_tiles_not_null(key: str) -> None:
    """Position schema, §1.5: the tower and the discard pile hold tiles (a design or DARK);
    ``null`` there (allowed only for an empty table or no drawn tile) is refused by name."""
    with pytest.raises(ValueError, match=key):
        make({"tables": ["B7", "G16"], key: ["A4", None]})


def test_position_shape_owner_is_a_team_not_a_seat() -> None:
    """OGO-57, position schema: in 2v2 a shape belongs to team 0 or 1; seat numbers 2 and 3
    are refused with a ``ValueError`` naming the shape (not read as a third team)."""
    pos = {"board": board(S8_BOARD), "shapes": {"small@va1": 1}}
    assert make(pos, num_players=4, teams=True).snapshot()["shapes"] == {"small@va1": 1}
    for owner in (2, 3):
        with pytest.raises(ValueError, match="small@va1"):
            make({**pos, "shapes": {"small@va1": owner}}, num_players=4, teams=True)


def test_position_shape_must_be_of_the_kind_it_names() -> None:
    """OGO-06/07, position schema: a shape is (kind, vertex) and must be closed as that kind on
    the board: the small circle at va1 is no square and no big circle."""
    pos = {"board": board(S8_BOARD), "tables": ["G16", "D10"]}
    assert make({**pos, "shapes": {"small@va1": 0}}).snapshot()["shapes"] == {"small@va1": 0}
    for key in ("square@va1", "big@va1"):
        with pytest.raises(ValueError, match="is not a closed"):
            make({**pos, "shapes": {key: 0}})


def test_position_markers_are_bounded_by_the_team_set() -> None:
    """§1.5, OGO-19: a team has 4 small discs, 4 big discs and 3 squares; a supply above
    that is refused naming the kind."""
    assert make({"markers": [{"square": 3, "big": 4, "small": 4}, {}]}).supply[0] == [4, 4, 3]
    for kind, n in (("square", 4), ("big", 5), ("small", 5)):
        with pytest.raises(ValueError, match=kind):
            make({"markers": [{kind: n}, {}]})


@pytest.mark.parametrize(
    ("params", "extra"),
    [({"num_players": 1}, {}), ({}, {"tiebreak": True, "totals": [24, 24]})],
)
def test_position_solo_and_tie_break_have_no_table_tiles(
    params: dict[str, Any], extra: dict[str, Any]
) -> None:
    """OGO-53, OGO-60: solo and the tie-break blind match deal no table tiles, so a position
    giving one is refused (it would hand the player a tile to place that the rules never
    deal)."""
    n = params.get("num_players", 2)
    with pytest.raises(ValueError, match="tables"):
        make({"tables": ["B7"] + [None] * (n - 1), **extra}, **params)
    assert make({"tables": [None] * n, **extra}, **params).tables == [-1] * n


def test_position_refuses_a_card_phase_in_a_time_travel_extra_turn() -> None:
    """OGO-30, OGO-34: a Time-Travel extra turn has no CARD phase, so a position setting one
    up is refused."""
    pos = {"tables": ["B7", "G16"], "hands": [["meteorite"], []], "phase": "card"}
    assert make(pos).phase == 0
    with pytest.raises(ValueError, match="extra turn"):
        make({**pos, "extra_turn": True})


def test_position_without_a_legal_action_is_refused() -> None:
    """Position schema (OGO-10): a PLACE phase with no tile in hand (nothing drawn, no table
    tile) has no legal action and is refused, rather than leaving an agent with an all-zero
    mask."""
    with pytest.raises(ValueError, match="no legal action"):
        make({"phase": "place"})


def test_position_infinity_visit_count_is_below_the_seat_count() -> None:
    """OGO-46: each seat is visited once, creator first; ``visited`` counts the seats already
    visited, 0..n-1, so n (which would ask the creator twice) is refused."""

    def pos(visited: int, actor: int) -> dict[str, Any]:
        return {
            "board": {"b3": "A4/0"},
            "hands": [["infinity"]] * 4,
            "phase": "infinity",
            "to_move": 3,
            "actor": actor,
            "infinity": {"creator": 3, "visited": visited, "saved": [False] * 4},
        }

    assert make(pos(3, 2), num_players=4).actor == 2
    with pytest.raises(ValueError, match="visited"):
        make(pos(4, 3), num_players=4)


def test_position_infinity_record_is_checked_whole() -> None:
    """OGO-46, position schema: phase infinity needs its record whole: the creator's seat
    (not taken from ``to_move``) and one saved flag per team; a missing creator or a flag list
    of the wrong length is refused by name."""
    base = {
        "board": {"b3": "A4/0"},
        "hands": [["infinity"]] * 4,
        "phase": "infinity",
        "to_move": 3,
        "actor": 1,
    }
    assert (
        make({**base, "infinity": {"creator": 3, "visited": 2, "saved": [False] * 4}}, num_players=4).actor
        == 1
    )
    with pytest.raises(ValueError, match="creator"):
        make({**base, "infinity": {"visited": 2, "saved": [False] * 4}}, num_players=4)
    for saved in ([False] * 3, [False] * 5, None):
        with pytest.raises(ValueError, match="saved"):
            make({**base, "infinity": {"creator": 3, "visited": 2, "saved": saved}}, num_players=4)


@pytest.mark.parametrize("text", ["A4/4", "B7/-1", "E12/r1", "G16"])
def test_position_orientation_is_r0_to_r3(text: str) -> None:
    """OGO-02, §1.2: a placed tile's orientation is one of r0..r3; ``<design>/4`` and other
    spellings are refused naming the square."""
    with pytest.raises(ValueError, match="b3"):
        make({"board": {"b3": text}})


def test_position_result_belongs_to_a_finished_game_only() -> None:
    """Position schema, OGO-63: ``result`` (winners, returns) is written only for a finished
    game; a playable position carrying one is refused rather than ignored."""
    result = {"winners": [0], "returns": [1.0, -1.0], "truncated": False}
    with pytest.raises(ValueError, match="result"):
        make({"tables": ["B7", "G16"], "result": result})


def test_snapshot_of_a_short_tower_reloads_without_growing_it() -> None:
    """§9 position hook, OGO-49: ``snapshot()`` writes ``tower_rest: false``, so a position
    set up with only some tiles in the tower comes back with exactly those tiles, not a
    refilled tower (which would postpone the tile-exhaustion end)."""
    st = make({"tables": ["B7", "G16"], "tower": ["A4", "E12"], "tower_rest": False})
    snap = st.snapshot()
    assert snap["tower_rest"] is False and snap["tower"] == ["E12"]  # A4 drawn by p0
    again = make(snap)
    assert again.snapshot() == snap and len(again.tower) == 1


def test_position_hand_order_makes_no_difference() -> None:
    """OGO-27/42, position schema: a hand is a set of cards: listed in any order it gives the
    same position, the same snapshot and (same seed) the same kidnapped card."""

    def pos(hand: list[str]) -> dict[str, Any]:
        return {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12", "G16", "D10"],
            "hands": [["alien-kidnapping"], hand, []],
        }

    one = make(pos(["meteorite", "time-travel", "revolution-cw"]), num_players=3)
    two = make(pos(["revolution-cw", "time-travel", "meteorite"]), num_players=3)
    assert one.snapshot() == two.snapshot()
    assert one.snapshot()["hands"][1] == ["time-travel", "revolution-cw", "meteorite"]
    for seed in range(6):
        a = make(pos(["meteorite", "time-travel", "revolution-cw"]), seed=seed, num_players=3)
        b = make(pos(["revolution-cw", "time-travel", "meteorite"]), seed=seed, num_players=3)
        play(a, "card alien-kidnapping player_1")
        play(b, "card alien-kidnapping player_1")
        assert a.snapshot() == b.snapshot()


# ---------------------------------------------------------------- the state dict
def test_a_finished_game_state_restores() -> None:
    """OGO-24, doc page ("state" option): ``State.from_dict`` restores any state ``to_dict``
    wrote, a finished one too: S6's 8-nil in a one-match episode stays over with returns
    +0.25 / -0.25."""
    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    play(st, "table a1 r0")
    assert st.is_terminal()
    again = State.from_dict(json.loads(json.dumps(st.to_dict())))
    assert again.is_terminal() and list(again.returns()) == [0.25, -0.25]
    assert again.to_dict() == st.to_dict()


# ---------------------------------------------------------------- the game and env adapter
def test_an_empty_position_is_the_schema_defaults_not_a_new_deal() -> None:
    """Position schema (OGO-01, §2.6 style set-up): ``{"position": {}}`` is a position with
    every key at its default (c3 only, no table tiles, no cards, p0 to move), not a fresh
    deal with table tiles and cards."""
    st = make({})
    snap = st.snapshot()
    assert snap["board"] == {"c3": "C8/0"} and snap["tables"] == [None, None]
    assert snap["hands"] == [[], []] and snap["deck"] == [] and snap["to_move"] == 0


def test_infos_report_totals_and_match_scores_apart() -> None:
    """§5 infos, OGO-52: after S6's 8-nil with totals 10-3 before it, ``totals`` read 18-3 and
    ``match_scores`` 8-0 for every agent."""
    e = make_env()
    e.reset(seed=0, options={"position": p_eight(tower=["B7", "C8", "E12"], totals=[10, 3])})
    e.step(e.unwrapped.state.string_to_action("table a1 r0"))
    for agent in ("player_0", "player_1"):
        assert e.infos[agent]["totals"] == [18, 3]
        assert e.infos[agent]["match_scores"] == [8, 0]


def test_solo_reward_range_reaches_the_best_victory() -> None:
    """§5, OGO-62: a solo victory pays score / 32 and scores up to 24 + 8 + 2 x 24 = 80, so the
    reward range a learner reads reaches 2.5 (S15's 42 pays 1.3125, above 1); other
    configurations stay in [-1, 1]."""
    assert OttoGameOverGame(num_players=1).reward_range == (-1.0, 2.5)
    assert OttoGameOverGame().reward_range == (-1.0, 1.0)


def test_solo_score_info_is_the_match_score() -> None:
    """§5, OGO-62, S15: ``infos["solo_score"]`` is the solo match score: 42 after S15's
    victory."""
    shapes = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    shapes.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    shapes.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    e = make_env(num_players=1)
    e.reset(seed=0, options={"position": {"board": board(S15_BOARD), "shapes": shapes, "tower": ["D10"]}})
    e.step(e.unwrapped.state.string_to_action("drawn e1 r0"))
    assert e.infos["player_0"]["solo_score"] == 42
    assert e.rewards["player_0"] == 1.3125


def test_private_text_shows_the_partners_cards_in_2v2_only() -> None:
    """OGO-27, OGO-57: in 2v2 a seat sees its partner's cards (the seat opposite, +2); in a
    4-player free-for-all nobody else's."""
    hands = [["meteorite"], ["time-travel"], ["infinity"], ["joker"]]
    pos = {"tables": ["A4", "B7", "C8", "D10"], "hands": hands}
    game = OttoGameOverGame(num_players=4, teams=True)
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert game.private_text(st, 0) == "your cards: meteorite; your partner player_2's cards: infinity"
    assert game.private_text(st, 1) == "your cards: time-travel; your partner player_3's cards: joker"
    ffa = OttoGameOverGame(num_players=4)
    st = ffa.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert ffa.private_text(st, 0) == "your cards: meteorite"
    st = game.new_initial_state(
        np.random.default_rng(0), {"position": {**pos, "hands": [[], [], ["infinity"], []]}}
    )
    assert game.private_text(st, 0) == "your cards: none; your partner player_2's cards: infinity"
    assert game.private_text(st, 1) == "your cards: none; your partner player_3's cards: none"


def test_a_finished_state_with_returns_out_of_range_is_refused() -> None:
    """§5, doc page ("state" option): the returns of a finished state lie in [-1, 3]; a state
    dict whose result says otherwise is refused rather than paying it."""
    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    play(st, "table a1 r0")
    for returns in ([5.0, -0.25], [0.25, -2.0], [True, False]):
        d = json.loads(json.dumps(st.to_dict()))
        d["position"]["result"]["returns"] = returns
        with pytest.raises(ValueError, match="returns"):
            State.from_dict(d)


def test_a_seed_in_the_reset_options_is_refused() -> None:
    """OGO-64, doc page (reset options): ``position`` and ``state`` are the only options; a
    ``seed`` put there by mistake is refused by name rather than silently ignored (all chance
    comes from ``reset(seed=...)``)."""
    game = OttoGameOverGame()
    with pytest.raises(ValueError, match="unknown reset option.*seed"):
        game.new_initial_state(np.random.default_rng(0), {"seed": 3})


def test_infos_name_team_0_among_the_winners() -> None:
    """§5 infos, OGO-24: after S6's 8-nil in a one-match episode ``winners`` is ``[0]`` (team
    0, p0's), for every agent."""
    e = make_env(episode="match")
    e.reset(seed=0, options={"position": p_eight(tower=["B7", "C8", "E12"])})
    e.step(e.unwrapped.state.string_to_action("table a1 r0"))
    assert e.infos["player_0"]["winners"] == e.infos["player_1"]["winners"] == [0]


@pytest.mark.parametrize("params", [{"blind": True}, {}])
def test_position_tower_rest_keeps_the_dark_tiles_outside_solo(params: dict[str, Any]) -> None:
    """§1.5, OGO-53, OGO-60: only solo removes the 4 dark tiles; a blind match (S9's blind
    variant) or a regular one set up with the rest of the tower holds all four."""
    tables = [None, None] if params else ["B7", "G16"]
    snap = make({"tables": tables}, **params).snapshot()
    tiles = [*snap["tower"], snap["drawn"], *snap["discarded"]]
    assert tiles.count("DARK") == 4


@pytest.mark.parametrize(
    ("params", "phase"),
    [({"blind": True}, "card"), ({"secret_cards": False}, "card"), ({"secret_cards": False}, "infinity")],
)
def test_position_card_phases_need_cards_in_play(params: dict[str, Any], phase: str) -> None:
    """OGO-33, OGO-59: no CARD or INFINITY phase occurs in a blind match or a trial run, so a
    position setting one up is refused."""
    pos: dict[str, Any] = {"tables": [None, None] if params.get("blind") else ["B7", "G16"], "phase": phase}
    if phase == "infinity":
        pos["infinity"] = {"creator": 0, "visited": 0, "saved": [False, False]}
        pos["board"] = board(S8_BOARD)
        pos["shapes"] = {"small@va1": 0}
    with pytest.raises(ValueError, match="secret cards"):
        make(pos, **params)


def test_a_finished_game_is_restored_only_from_a_state_dict() -> None:
    """Doc page (reset options), OGO-24: a finished game's position (phase ``over``) cannot
    be set up through ``position``; only ``State.from_dict`` takes it, and there its result
    must name real teams and give one return per seat."""
    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    play(st, "table a1 r0")
    snap = st.snapshot()
    assert snap["phase"] == "over" and snap["result"]["winners"] == [0]
    with pytest.raises(ValueError, match="finished game cannot be set up"):
        make(snap, episode="match")
    for key, value in (
        ("winners", [2]),
        ("winners", [-1]),
        ("returns", [0.25]),
        ("returns", [0.25, -0.25, 0.0]),
    ):
        d = json.loads(json.dumps(st.to_dict()))
        d["position"]["result"][key] = value
        with pytest.raises(ValueError, match=key):
            State.from_dict(d)
