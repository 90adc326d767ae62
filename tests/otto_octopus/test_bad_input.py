"""Bad input: parameters, reset options, the position schema, from_dict, notation."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.otto_octopus.encode import action_to_string, parse_action
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import State
from tests.otto_octopus.helpers import P1, make


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": 0}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"open_game": 1}, "open_game"),
        ({"simplified": "yes"}, "simplified"),
        ({"max_steps": 0}, "max_steps"),
        ({"max_steps": True}, "max_steps"),
        ({"colour": "red"}, "unknown parameter"),
    ],
)
def test_bad_params(params: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        OttoOctopusGame(**params)


def _reset(options: Any, **params: Any) -> State:
    return OttoOctopusGame(**params).new_initial_state(np.random.default_rng(0), options)


@pytest.mark.parametrize(
    ("position", "match"),
    [
        ("nope", "position must be a dict"),
        ({}, "hands"),
        ({"hands": [[], []], "colour": 1}, "unknown position key"),
        ({"hands": [[]]}, "list of 2 hands"),
        ({"hands": [["shrimp"], []]}, "unknown tile kind"),
        ({"hands": [["bubbles"] * 4, []]}, "at most 3"),
        ({"hands": [[], []], "placements": ["starfish b7"]}, "touches no tile"),
        ({"hands": [[], []], "placements": ["straight z9"]}, "'<kind> <square>'"),
        ({"hands": [[], []], "placements": "straight d6"}, "must be a list"),
        ({"hands": [[], []], "placements": ["straight d6", "straight d6"]}, "occupied"),
        ({"hands": [[], []], "placements": ["end d6"]}, "OTP-06"),
        ({"hands": [[], []], "placements": ["straight d6", "straight d7", "straight d8"]}, "OTP-07"),
        ({"hands": [[], []], "placements": [*P1, "anglerfish e7"]}, "perimeter"),
        ({"hands": [[], []], "placements": [*P1, "moray e7", "minnow f7"]}, "moray"),
        ({"hands": [[], []], "scores": [1]}, "scores"),
        ({"hands": [[], []], "skips": [0, -1]}, "skips"),
        ({"hands": [[], []], "passed": [0, 0]}, "passed"),
        ({"hands": [[], []], "to_move": 2}, "to_move"),
        ({"hands": [[], []], "phase": "dance"}, "phase"),
        ({"hands": [[], []], "extra": -1}, "extra"),
        ({"hands": [["straight"], []], "extra": 1}, "extra"),
        ({"hands": [["straight"], []], "phase": "extra"}, "extra"),
        ({"hands": [["straight"], []], "phase": "swap"}, "swap"),
        ({"hands": [[], ["straight"]], "phase": "return"}, "return"),
        ({"hands": [[], []], "pile": "bubbles"}, "pile"),
    ],
)
def test_bad_position(position: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _reset({"position": position})


def test_bad_reset_options() -> None:
    with pytest.raises(ValueError, match="unknown reset option"):
        _reset({"deck": []})
    with pytest.raises(ValueError, match="must be a dict"):
        _reset(["position"])


def test_snapshot_round_trip() -> None:
    """A snapshot fed back to reset reproduces the position, mid-turn phases included."""
    game = OttoOctopusGame(num_players=3, open_game=True)
    rng = np.random.default_rng(1)
    for seed in range(8):
        st = game.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal():
            snap = st.snapshot()
            again = game.new_initial_state(
                np.random.default_rng(0), {"position": json.loads(json.dumps(snap))}
            )
            assert again.snapshot() == snap
            assert np.array_equal(again.legal_mask(), st.legal_mask())
            legal_a = np.flatnonzero(st.legal_mask())
            st.apply(int(legal_a[rng.integers(legal_a.size)]))


def _state_dict() -> dict[str, Any]:
    return make(P1, [["starfish", "bubbles", "end"]]).to_dict()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("rng"), r"lacks key\(s\) \['rng'\]"),
        (lambda d: d.update(config=[]), r"'config' must be a dict"),
        (lambda d: d.update(config={"num_players": 9}), r"num_players must be one of"),
        (lambda d: d.update(config={"players": 2}), r"unknown parameter\(s\) \['players'\]"),
        (lambda d: d.update(rng={"bit_generator": "Nope"}), r"bit_generator must be one of"),
        (lambda d: d.update(rng=3), r"'rng' must be a dict"),
        (lambda d: d.update(steps=-1), r"'steps' must be an int >= 0, got -1"),
        (lambda d: d.update(steps="1"), r"'steps' must be an int >= 0, got '1'"),
        (lambda d: d.update(truncated=1), r"'truncated' must be a bool"),
        (lambda d: d.update(truncated=True), r"a truncated state must be over"),
        (lambda d: d.update(position=None), r"position must be a dict"),
        (lambda d: d["position"].update(hands=[["end"]]), r"position\['hands'\] must be a list of 2 hands"),
        (lambda d: d["position"].update(pile=[3]), r"position\['pile'\]\[0\]: unknown tile kind 3"),
        (lambda d: d["position"]["placements"].append(17), r"position\['placements'\]\[2\] must be .*got 17"),
        (
            lambda d: d["position"]["placements"].append(["straight"]),
            r"position\['placements'\]\[2\] must be .*got \['straight'\]",
        ),
    ],
)
def test_from_dict_malformed(mutate: Any, message: str) -> None:
    d = _state_dict()
    mutate(d)
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)
    with pytest.raises(ValueError, match=r"must be a dict"):
        State.from_dict("not a dict")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "place",
        "place starfish",
        "place starfish i9",
        "place shrimp a1",
        "swap end player_4",
        "swap end player_x",
        "return",
        "return 3",
        "passs",
        "stop now",
        "place straight d6 N",
        "1024",
    ],
)
def test_string_to_action_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="expected"):
        parse_action(text)
    st = make(P1, [["starfish", "bubbles", "end"]])
    with pytest.raises(ValueError, match=r"malformed action"):
        st.string_to_action(text)


def test_notation_parsing_is_lenient_and_strict() -> None:
    """§8: case-insensitive, whitespace collapsed; well formed but illegal -> its index (mask 0)."""
    st = make(P1, [["starfish", "bubbles", "end"]])
    assert st.string_to_action("  PLACE   Starfish  E7 ") == parse_action("place starfish e7")
    assert not st.legal_mask()[st.string_to_action("place starfish a1")]
    with pytest.raises(ValueError, match=r"action string"):
        parse_action(None)  # type: ignore[arg-type]
    assert action_to_string(1106) == "illegal 1106" and action_to_string(-1) == "illegal -1"
    for a in range(1106):
        assert parse_action(action_to_string(a)) == a


def test_apply_bad_actions() -> None:
    st = make(P1, [["starfish", "bubbles", "end"]])
    for bad in (-1, 1106, 2.5, "pass", True):
        with pytest.raises(ValueError, match=r"out of range|must be an int"):
            st.apply(bad)  # type: ignore[arg-type]
    st = make(P1, [["starfish"], []], pile=[])
    st.apply(parse_action("pass"))
    assert st.is_terminal()
    with pytest.raises(ValueError, match="over"):
        st.apply(parse_action("pass"))


def test_a_running_state_past_max_steps_is_refused() -> None:
    """``from_dict``: a game still running whose step count already reached ``max_steps``
    cannot exist (the engine truncates it at that step), so it is a ``ValueError``."""
    game = OttoOctopusGame(num_players=2, max_steps=50)
    st = game.new_initial_state(np.random.default_rng(0))
    d = st.to_dict()
    assert type(st).from_dict(d).to_dict() == d
    d["steps"] = 50
    with pytest.raises(ValueError, match="reaches max_steps"):
        type(st).from_dict(d)
