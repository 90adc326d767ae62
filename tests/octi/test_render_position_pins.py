"""Pins found by a mutation round of the Octi text picture (``render.py``), the reset option
``position`` (``position.py``) and the notation (``notation.py``): each test fails under a small
mutant of the line it names."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from envs.octi.game import OctiGame
from envs.octi.notation import EXPECTED
from envs.octi.render import render_ansi
from envs.octi.rules import State
from tests.octi.helpers import custom, new


def _load(position: dict[str, Any], **params: Any) -> State:
    return OctiGame(**params).new_initial_state(np.random.default_rng(0), {"position": position})


def _lines(st: State, start: str) -> list[str]:
    """The lines of the text picture that begin with ``start``."""
    return [line for line in render_ansi(st).splitlines() if line.startswith(start)]


def _message(st: State, text: str) -> str:
    with pytest.raises(ValueError, match=r"malformed Octi action|legal") as info:
        st.string_to_action(text)
    return str(info.value)


# --- render.py: the text picture -------------------------------------------------------------


def test_text_names_the_colour_of_the_seat_to_act() -> None:
    """The status line names the seat to act and its colour: player_0 is Black, player_1 Red (OCT-04)."""
    st = new()
    assert _lines(st, "turn ") == ["turn 1 of 300: player_0 (Black) to act, phase MAIN"]
    st.play("prong c2 N")
    assert _lines(st, "turn ") == ["turn 2 of 300: player_1 (Red) to act, phase MAIN"]


def test_text_board_has_the_top_rank_first_and_black_at_the_bottom() -> None:
    """The board is drawn in the absolute frame, N up (OCT-05): rank 7 first, Black's pods on
    rank 2 and Red's on rank 6 in a fresh game (OCT-03), file letters under the board."""
    assert render_ansi(new()).splitlines()[:8] == [
        " 7 .  .  .  .  .  .",
        " 6 .  R  R  R  R  .",
        " 5 .  .  .  .  .  .",
        " 4 .  .  .  .  .  .",
        " 3 .  .  .  .  .  .",
        " 2 .  B  B  B  B  .",
        " 1 .  .  .  .  .  .",
        "   a  b  c  d  e  f",
    ]


def test_text_shows_a_stacks_height_and_no_height_for_a_single_pod() -> None:
    """A stack of 2 own pods (OCT-30) is ``B2`` (§9 legend); a lone pod is ``B``; the pod list names the
    stacked pods ``c3.0``, ``c3.1`` (spec §8)."""
    st = custom("x_fast", black=(("c3", "N"), ("c3", ""), ("e3", "")), red=(("e7", "S"),))
    assert _lines(st, " 3 ") == [" 3 .  .  B2 .  B  .  +  .  ."]
    assert _lines(st, "Black pods:") == ["Black pods: c3.0[N] c3.1[] e3[]"]


def test_text_marks_the_empty_bases_of_both_players() -> None:
    """``+`` marks every empty base (§9 legend), Black's (rank 2) and Red's (rank 6) alike (OCT-01)."""
    st = custom(black=(("a1", "N"),), red=(("f7", "S"),))
    assert _lines(st, " 2 ") == [" 2 .  +  +  +  +  ."]
    assert _lines(st, " 6 ") == [" 6 .  +  +  +  +  ."]


def test_text_pod_list_includes_a_pod_on_a1() -> None:
    """The pod list keeps a pod on the first square, a1 (square index 0), for either colour."""
    st = custom(black=(("a1", "N,E"), ("c3", "")), red=(("f7", "S"),))
    assert _lines(st, "Black pods:") == ["Black pods: a1[N,E] c3[]"]
    red = custom(black=(("f1", "N"),), red=(("a1", "S"), ("c5", "")))
    assert _lines(red, "Red   pods:") == ["Red   pods: a1[S] c5[]"]


def test_text_declare_focus_is_the_queue_head_of_the_side_to_move() -> None:
    """In DECLARE the focus is the head of the declaration queue, a pod of the side to move
    (Red here): after ``step e5.0 S`` from a Red 3-stack, ``e5.0`` is asked first (OCT-31)."""
    st = custom("x_fast", black=(("a1", "N"),), red=(("e5", "S"), ("e5", "S"), ("e5", "S")), to_move=1)
    st.play("step e5.0 S")
    assert _lines(st, "moving ") == ["moving e4  focus e5.0  marked capture -"]
    st.play("with e5.0")
    assert _lines(st, "moving ") == ["moving e4 e5.0  focus e5.1  marked capture -"]


def test_text_names_capture_to_reserve_only_in_x() -> None:
    """``capture_to_reserve`` is an X rule (OCT-51), ignored in basic: the rules line names it
    in X only."""
    assert _lines(new("basic", capture_to_reserve=True), "rules:") == ["rules: basic"]
    assert _lines(new("x_fast", capture_to_reserve=True), "rules:") == ["rules: x_fast, capture to reserve"]
    assert _lines(new("x_classic"), "rules:") == ["rules: x_classic"]


# --- position.py: the reset option ``position`` ------------------------------------------------


def test_position_x_defaults_captured_to_zero_and_the_rest_to_reserve() -> None:
    """X: by default no pod is captured and the pods off the board are in reserve (OCT-37)."""
    st = _load({"board": {"c3": [[0, "N"]], "e3": [[0, ""]], "e5": [[1, "S"]]}}, variant="x_fast")
    snap = st.snapshot()
    assert (snap["reserve"], snap["captured"]) == ([5, 6], [0, 0])
    given = _load({"board": {"c3": [[0, "N"]], "e5": [[1, "S"]]}, "captured": [2, 0]}, variant="x_fast")
    assert (given.snapshot()["reserve"], given.snapshot()["captured"]) == ([4, 6], [2, 0])


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ({"c7": [[0, "N"]], "e5": [[1, "S"]]}, "player_0 has a pod on the enemy base c7"),
        ({"g7": [[0, "N"]], "c7": [[0, ""]], "e5": [[1, "S"]]}, "player_0 has a pod on the enemy base c7"),
        ({"a1": [[0, "N"]], "e3": [[1, "S"]]}, "player_1 has a pod on the enemy base e3"),
    ],
    ids=["black-c7", "black-c7-and-g7", "red-e3"],
)
def test_position_x_fast_refuses_a_pod_on_an_enemy_base(board: dict[str, Any], message: str) -> None:
    """x_fast: a pod on an enemy base won when it landed (OCT-42), so no turn starts there; the
    message names the lowest such square."""
    full = f"position: {message}; the game ended when it landed (OCT-42)"
    with pytest.raises(ValueError, match="^" + re.escape(full) + "$"):
        _load({"board": board}, variant="x_fast")


def test_position_x_classic_allows_a_pod_on_an_enemy_base() -> None:
    """x_classic has no landing win (OCT-42 is basic / x_fast only; classic needs all three
    bases, OCT-43): one pod on an enemy base is a position to play on."""
    st = _load({"board": {"c7": [[0, "N"]], "e5": [[1, "S"]]}}, variant="x_classic")
    assert st.snapshot()["board"] == {"c7": [[0, "N"]], "e5": [[1, "S"]]} and not st.is_terminal()


def test_position_square_names_in_any_case() -> None:
    """Square names are read in any case and with surrounding spaces (spec §8's reading rule)."""
    st = _load({"board": {"A1": [[0, "N"]], " E5 ": [[1, "S"]]}})
    assert st.snapshot()["board"] == {"a1": [[0, "N"]], "e5": [[1, "S"]]}


@pytest.mark.parametrize("phase", ["main", "Main", "MAIN"])
def test_position_phase_main_in_any_case(phase: str) -> None:
    """``phase`` ``"main"`` is read like ``"MAIN"``, the one phase a position starts in."""
    st = _load({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "phase": phase})
    assert st.snapshot()["phase"] == "MAIN"


@pytest.mark.parametrize(
    ("position", "message"),
    [
        (
            {"board": {"c3": [[0, "N"]], "e5": [[1, "S"]]}, "reserve": [-1, 6], "captured": [7, 0]},
            "position reserve must hold counts >= 0, got [-1, 6]",
        ),
        (
            {
                "board": {s: [[0, ""]] for s in ("a1", "b1", "d1", "f1", "h1", "i1")} | {"e5": [[1, "S"]], "e4": [[0, "N"]]},
                "reserve": [1, 6],
                "captured": [-1, 0],
            },
            "position captured must hold counts >= 0, got [-1, 0]",
        ),
        (
            {"board": {"c3": [[0, "N"]], "e5": [[1, "S"]]}, "captured": [8, 0]},
            "position reserve must hold counts >= 0, got [-2, 6], by default the pods neither on the board "
            "nor captured",
        ),
    ],
    ids=["reserve", "captured", "default-reserve"],
)  # fmt: skip
def test_position_refuses_a_negative_pool(position: dict[str, Any], message: str) -> None:
    """A negative ``reserve`` or ``captured`` is refused even when the counts add up to P; the
    message names the pool and its value, and says when the value is the default."""
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        _load(position, variant="x_fast")


# --- notation.py ----------------------------------------------------------------------------------


def test_notation_liberate_round_trip_and_malformed_forms() -> None:
    """``liberate <square>`` (OCT-40, spec §8): read in any case and spacing, written canonically;
    a pod suffix is malformed; a well-formed but illegal liberate lists the legal strings."""
    st = _load({"board": {"c7": [[0, "N"]], "e5": [[1, "S"]]}, "captured": [1, 0]}, variant="x_classic")
    a = st.string_to_action("  LIBERATE   C7 ")
    assert a == st.lay.liberate + st.K  # the first enemy base in Black's left-to-right order
    assert st.action_to_string(a) == "liberate c7"
    assert _message(st, "liberate c7.1") == f"malformed Octi action 'liberate c7.1'; expected {EXPECTED}"
    assert _message(st, "liberate e3").startswith(
        "'liberate e3' is not a legal action for player_0 in phase MAIN; legal: ["
    )
    st.apply(a)
    assert st.snapshot()["board"]["c7"] == [[0, "N"], [0, ""]] and st.snapshot()["captured"] == [0, 0]


def test_notation_after_the_game_is_over() -> None:
    """Once a pod has landed on an enemy base the game is over (OCT-42): a well-formed move is
    refused as such."""
    st = custom(black=(("c5", "N"),), red=(("f7", "S"),))
    st.play("step c5 N")
    assert st.is_terminal()
    assert _message(st, "step c6 N") == "'step c6 N': the game is over, no action is legal"


def test_action_to_string_reads_no_bool_float_or_string_as_an_index() -> None:
    """Spec §8 names action indices: ``True``, ``1.0`` and ``"3"`` are none (``True == 1`` in
    Python), so they print as illegal, as in the suite's other games; numpy ints are indices."""
    st = new()
    assert st.action_to_string(1) == st.action_to_string(np.int64(1)) == "prong b2 NE"
    assert [st.action_to_string(x) for x in (True, 1.0, "1")] == [
        "illegal True",
        "illegal 1.0",
        "illegal '1'",
    ]
