"""Engine-level bad input: parameters, reset options, actions, notation, from_dict."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest

from envs.octi.game import OctiGame
from envs.octi.rules import State
from tests.octi.helpers import new, play

BAD_PARAMS = [
    ("variant", "octi_x"),
    ("variant", 3),
    ("max_turns", 0),
    ("max_turns", 2.5),
    ("max_turns", True),
    ("allow_reposition", 1),
    ("edgeless", "yes"),
    ("capture_to_reserve", None),
    ("repetition_draw", 0),
]


@pytest.mark.parametrize("name,value", BAD_PARAMS)
def test_bad_parameter_names_it(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=name):
        OctiGame(**{name: value})


def test_bad_reset_options() -> None:
    game = OctiGame()
    rng = np.random.default_rng(0)
    for opts, message in (
        ({"nope": 1}, r"unknown reset option\(s\) \['nope'\]"),
        ({"moves": "prong c2 N"}, r"option 'moves' must be a list of notation strings"),
        ({"moves": ["prong c2 X"]}, r"option 'moves'\[0\] 'prong c2 X': malformed Octi action"),
        ({"moves": [3]}, r"option 'moves' must be a list of notation strings"),
    ):
        with pytest.raises(ValueError, match=message):
            game.new_initial_state(rng, opts)  # type: ignore[arg-type]
    st = game.new_initial_state(rng, {"moves": ["prong c2 N", "prong d6 S", "step c2 N"]})
    assert st.snapshot()["board"]["c3"] == [[0, "N"]]


@pytest.mark.parametrize("action", [-1, 117, 10**9, 32, "3", 2.0, None, True])
def test_apply_rejects_bad_actions(action: Any) -> None:
    st = new()
    with pytest.raises(ValueError, match=r"illegal action|action must be an int"):
        st.apply(action)


def test_apply_after_end() -> None:
    st = play(new(max_turns=1), "1. prong c2 N /")
    assert st.is_terminal() and not st.legal_mask().any()
    with pytest.raises(ValueError, match="after the end"):
        st.apply(0)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "prong",
        "prong c2",
        "prong c2 north",
        "step z9 N",
        "jump c2",
        "hello world",
        "capture",
        "with",
        "enter",
        "prong c2 N extra",
        "stop now",
        "reposition c2 N",
        "prong c2.x N",
        "\x00",
        "prong c22 N",
    ],
)
def test_string_to_action_garbage(text: str) -> None:
    with pytest.raises(ValueError, match=r"malformed Octi action|is not a legal action|there is no square"):
        new().string_to_action(text)


@pytest.mark.parametrize(
    ("variant", "text", "square", "files", "ranks"),
    [
        ("basic", "step z9 N", "z9", "f", "7"),
        ("basic", "prong c22 n", "c22", "f", "7"),
        ("basic", "PRONG G1 N", "g1", "f", "7"),
        ("basic", "enter a8", "a8", "f", "7"),
        ("basic", "reposition h2.1 n s", "h2", "f", "7"),
        ("x_fast", "liberate j1", "j1", "i", "9"),
        ("x_classic", "with c10", "c10", "i", "9"),
    ],
)
def test_a_square_off_the_board_is_named(
    variant: str, text: str, square: str, files: str, ranks: str
) -> None:
    """Well-formed text that names a square the board does not have (spec §8: a1..f7 or
    a1..i9) says so, with the board's files and ranks, instead of listing the legal moves."""
    st = OctiGame(variant=variant).new_initial_state(np.random.default_rng(0))
    want = (
        f"{text!r}: there is no square {square!r} on the {variant} board (files a-{files}, ranks 1-{ranks})"
    )
    with pytest.raises(ValueError, match="^" + re.escape(want) + "$"):
        st.string_to_action(text)


def test_string_to_action_not_a_string() -> None:
    with pytest.raises(ValueError, match="string"):
        new().string_to_action(5)  # type: ignore[arg-type]


def test_string_to_action_normalises() -> None:
    st = new()
    assert st.string_to_action("  PRONG   c2   n ") == st.string_to_action("prong c2 N")
    assert st.action_to_string(32) == "illegal 32"
    assert st.action_to_string(-5) == "illegal -5"


def _mid_game_dict() -> dict[str, Any]:
    st = play(
        new("x_fast"),
        "1. enter c3 / prong c7 S\n2. prong c3.0 N / step c7 S\n"
        "3. prong c3.1 N / step c6 S\n4. prong e3 N / step c5 S\n5. jump c3.0 N, with c3",
    )
    d = st.to_dict()
    json.dumps(d)
    assert State.from_dict(d).to_dict() == d
    return d


# (key, planted value, a fragment of the message that names that problem)
MUTATIONS = [
    ("pos", [0] * 3, "pos must have 14 entries"),
    ("pos", "x", "pos must be a list"),
    ("prongs", [999] * 14, r"prongs\[0\] must be an int in \[0, 255\], got 999"),
    ("supply", [100, 100], r"supply\[0\] must be an int in \[0, 50\], got 100"),
    ("supply", [-1, 0], r"supply\[0\] must be an int in \[0, 50\], got -1"),
    ("phase", "DANCE", "phase must be one of .*got 'DANCE'"),
    ("to_move", 2, r"to_move must be an int in \[0, 1\], got 2"),
    ("turn", -1, "turn must be an int in .*got -1"),
    ("result", [1.0, 1.0], r"result must be \[0, 0\], \[1, -1\] or \[-1, 1\]"),
    ("truncated", "no", "truncated must be a bool, got 'no'"),
    ("history", {"k": 9}, r"history must map position strings to counts 1\.\.3"),
    ("rng", {"bit_generator": "Nope"}, "rng bit_generator must be one of .*got 'Nope'"),
    ("rng", 5, "rng must be a dict"),
    ("movers", [9], r"movers\[0\] must be an int in \[0, 6\], got 9"),
    ("declare_queue", [0], "a declared pod cannot already be a mover"),
    ("jumped", [[1000]] * 7, r"jumped\[0\] must be an int in \[0, 80\], got 1000"),
    ("jumped_order", "c4", "jumped_order must be a list, got str"),
    ("capture_queue", [3], "capture candidate 3 is not on a jumped square"),
    ("config", {"variant": "huge"}, "variant must be one of .*got 'huge'"),
    ("config", 7, "config must be a dict"),
    ("active", 99, r"active must be an int in \[-1, 6\], got 99"),
    ("origin", -7, r"origin must be an int in \[-1, 80\], got -7"),
    ("last_jump", 1, "last_jump must be a bool, got 1"),
    ("truncated", True, "truncated is True only for a game over by the turn limit"),
    # a running game is not truncated; no repetition_draw
    ("history", {"bogus": 2}, "history is kept only with repetition_draw=True"),
]


@pytest.mark.parametrize(
    "key,value,message", MUTATIONS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(MUTATIONS)]
)
def test_from_dict_malformed(key: str, value: Any, message: str) -> None:
    d = _mid_game_dict()
    d[key] = value
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def test_from_dict_inconsistent_positions() -> None:
    d = copy.deepcopy(new("x_fast").to_dict())
    d["pos"][7] = d["pos"][0]  # a Red pod on Black's c3
    with pytest.raises(ValueError, match="both colours"):
        State.from_dict(d)
    d = new().to_dict()
    d["prongs"][0] = 1  # a prong out of nowhere
    with pytest.raises(ValueError, match="conserved"):
        State.from_dict(d)
    d = new().to_dict()
    del d["supply"]
    with pytest.raises(ValueError, match="supply"):
        State.from_dict(d)
    with pytest.raises(ValueError, match=r"must be a dict"):
        State.from_dict([1, 2])  # type: ignore[arg-type]
