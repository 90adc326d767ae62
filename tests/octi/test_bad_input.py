"""Engine-level bad input: parameters, reset options, actions, notation, from_dict."""

from __future__ import annotations

import copy
import json
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
    for opts in ({"nope": 1}, {"moves": "prong c2 N"}, {"moves": ["prong c2 X"]}, {"moves": [3]}):
        with pytest.raises(ValueError):
            game.new_initial_state(rng, opts)  # type: ignore[arg-type]
    st = game.new_initial_state(rng, {"moves": ["prong c2 N", "prong d6 S", "step c2 N"]})
    assert st.snapshot()["board"]["c3"] == [[0, "N"]]


@pytest.mark.parametrize("action", [-1, 117, 10**9, 32, "3", 2.0, None, True])
def test_apply_rejects_bad_actions(action: Any) -> None:
    st = new()
    with pytest.raises(ValueError):
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
    with pytest.raises(ValueError):
        new().string_to_action(text)


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


MUTATIONS = [
    ("pos", [0] * 3),
    ("pos", "x"),
    ("prongs", [999] * 14),
    ("supply", [100, 100]),
    ("supply", [-1, 0]),
    ("phase", "DANCE"),
    ("to_move", 2),
    ("turn", -1),
    ("result", [1.0, 1.0]),
    ("truncated", "no"),
    ("history", {"k": 9}),
    ("rng", {"bit_generator": "Nope"}),
    ("rng", 5),
    ("movers", [9]),
    ("declare_queue", [0]),
    ("jumped", [[1000]] * 7),
    ("jumped_order", "c4"),
    ("capture_queue", [3]),
    ("config", {"variant": "huge"}),
    ("config", 7),
    ("active", 99),
    ("origin", -7),
    ("last_jump", 1),
    ("truncated", True),
    ("history", {"bogus": 2}),  # a running game is not truncated; no repetition_draw
]


@pytest.mark.parametrize("key,value", MUTATIONS)
def test_from_dict_malformed(key: str, value: Any) -> None:
    d = _mid_game_dict()
    d[key] = value
    with pytest.raises(ValueError):
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
    with pytest.raises(ValueError):
        State.from_dict([1, 2])  # type: ignore[arg-type]
