"""The reset option ``position`` of Octi (``envs/octi/position.py``): a turn's start in the
schema of ``snapshot()`` (spec §8), checked like ``from_dict`` plus the ends of the game."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs import octi_v0
from envs.octi.game import OctiGame
from envs.octi.rules import State


def _load(position: dict[str, Any], **params: Any) -> State:
    return OctiGame(**params).new_initial_state(np.random.default_rng(0), {"position": position})


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"variant": "x_fast"},
        {"variant": "x_classic", "capture_to_reserve": True},
        {"edgeless": True, "allow_reposition": True, "max_turns": 60},
    ],
)
def test_snapshots_of_a_turns_start_load_and_play_on_alike(params: dict[str, Any]) -> None:
    """Every MAIN snapshot of seeded random games loads to the same snapshot and legal moves;
    on the basic board (no stacks, so a move's string names one pod whatever its id) the same
    moves from both end the same way (OCT-42..45 included)."""
    loaded = 0
    for seed in range(6):
        game = OctiGame(**params)
        st = game.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        checkpoints: list[tuple[State, dict[str, Any]]] = []
        while not st.is_terminal():
            if st.phase == 0 and rng.random() < 0.15:
                checkpoints.append((st.clone(), st.snapshot()))
            legal = st.legal_actions()
            st.apply(legal[rng.integers(len(legal))])
        for original, snap in checkpoints:
            twin = game.new_initial_state(np.random.default_rng(99), {"position": snap})
            assert twin.snapshot() == snap
            if game.config.is_x:  # pods are numbered afresh: a stack's ".k" may name another one
                assert sorted(map(twin.action_to_string, twin.legal_actions())) == sorted(
                    map(original.action_to_string, original.legal_actions())
                )
                loaded += 1
                continue
            move_rng = np.random.default_rng(loaded)
            while not original.is_terminal():
                strings = sorted(original.action_to_string(a) for a in original.legal_actions())
                assert sorted(twin.action_to_string(a) for a in twin.legal_actions()) == strings
                move = strings[move_rng.integers(len(strings))]
                original.apply(original.string_to_action(move))
                twin.apply(twin.string_to_action(move))
                assert twin.snapshot() == original.snapshot()
            assert twin.is_terminal() and twin.returns().tolist() == original.returns().tolist()
            assert twin.is_truncated() == original.is_truncated()
            loaded += 1
    assert loaded >= 6


def test_the_initial_snapshot_loads_to_the_initial_state_observations_and_all() -> None:
    for variant in ("basic", "x_fast"):
        env, twin = octi_v0.env(variant=variant), octi_v0.env(variant=variant)
        env.reset(seed=0)
        twin.reset(seed=0, options={"position": env.unwrapped.snapshot()})
        for agent in env.possible_agents:  # the pod ids agree here: the pod-id planes too
            np.testing.assert_array_equal(
                env.observe(agent)["observation"], twin.observe(agent)["observation"]
            )
            np.testing.assert_array_equal(
                env.observe(agent)["action_mask"], twin.observe(agent)["action_mask"]
            )


def test_defaults_ids_and_moves_after_the_position() -> None:
    st = _load({"board": {"c4": [[0, "n,  SE"]], "b2": [[0, ""]], "d6": [[1, "S"]]}, "to_move": "player_1"})
    snap = st.snapshot()
    assert snap["to_move"] == 1 and snap["turn"] == 0 and snap["phase"] == "MAIN"
    assert snap["supply"] == [10, 11] and snap["reserve"] == [0, 0] and snap["captured"] == [2, 3]
    assert snap["board"] == {"b2": [[0, ""]], "c4": [[0, "N,SE"]], "d6": [[1, "S"]]}
    # ids in player_0's reading order (b2 before c4), player_1's turned around (OCT-03's rule)
    assert st.pos[:2] == [st.geo.square("b2"), st.geo.square("c4")]
    red = _load({"board": {"b6": [[1, ""]], "e5": [[1, "S"]], "c3": [[0, "N"]]}})
    assert red.pos[4:6] == [red.geo.square("b6"), red.geo.square("e5")]  # rank 6 is nearer player_1
    # X: pods neither on the board nor captured wait in reserve; moves continue from the position
    game = OctiGame(variant="x_fast")
    x = game.new_initial_state(
        np.random.default_rng(0),
        {
            "position": {"board": {"e4": [[0, "N"], [0, ""]], "e6": [[1, ""]]}, "captured": [1, 0]},
            "moves": ["step e4.0 N"],
        },
    )
    xs = x.snapshot()
    assert xs["reserve"] == [4, 6] and xs["captured"] == [1, 0] and xs["to_move"] == 1
    assert xs["board"]["e5"] == [[0, "N"]] and xs["supply"] == [24, 25]


def test_a_loaded_position_counts_once_for_the_repetition_draw() -> None:
    """OCT-52: the set-up position occurs once; its third occurrence draws."""
    st = _load({"board": {"b2": [[0, "N,S"]], "e6": [[1, "N,S"]]}}, repetition_draw=True)
    cycle = ["step b2 N", "step e6 S", "step b3 S", "step e5 N"]
    st.play(*cycle, *cycle[:-1])
    assert not st.is_terminal()
    st.play(cycle[-1])  # the third time: had the set-up not counted, this would be the second
    assert st.is_terminal() and not st.is_truncated() and st.returns().tolist() == [0.0, 0.0]
    assert st.snapshot()["turn"] == 8


@pytest.mark.parametrize(
    ("position", "params", "message"),
    [
        ({"board": {}, "colour": 1}, {}, "position has unknown key(s) ['colour']; allowed: ['board', 'to_move'"),
        ({"to_move": 1}, {}, "position needs 'board'"),
        ({"board": {"b2": [[0, ""]]}, "phase": "CHAIN"}, {}, "position phase must be 'MAIN' (a position starts a turn"),
        ({"board": {"z9": [[0, ""]]}}, {}, "no square 'z9' on a 6x7 board"),
        ({"board": {"b2": [[0, "N,UP"]]}}, {}, "position board b2: 'UP' is not a direction"),
        ({"board": {"b2": [[0, "N,n"]]}}, {}, "position board b2: direction N is given twice"),
        ({"board": {"b2": [[2, ""]]}}, {}, "position board b2: a pod's seat must be 0 or 1, got 2"),
        ({"board": {"b2": [[0, "", 5]]}}, {}, "position board b2: a pod is [seat, prongs], got [0, '', 5]"),
        ({"board": {"b2": []}}, {}, "position board b2: expected a non-empty list of [seat, prongs]"),
        ({"board": {s: [[0, ""]] for s in ("a1", "b1", "c1", "d1", "e1")}}, {}, "position board holds 5 pods of player_0; a side has 4"),
        ({"board": {"b3": [[0, "N"]]}, "to_move": 2}, {}, "position to_move must be 0, 1, 'player_0' or 'player_1', got 2"),
        ({"board": {"b3": [[0, "N"]]}, "to_move": 1.0}, {}, "position to_move must be 0, 1, 'player_0' or 'player_1', got 1.0"),
        ({"board": {"b3": [[1.0, "N"]]}}, {}, "position board b3: a pod's seat must be 0 or 1, got 1.0"),
        ({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "turn": 300}, {}, "position turn must be an int in [0, 299]"),
        ({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "reserve": [1, 0]}, {}, "position reserve must be [0, 0] in basic"),
        ({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "captured": [2, 3]}, {}, "player_0 has 4 pods: 1 on the board + reserve 0 + captured 2 must make 4"),
        ({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "supply": [12, 12]}, {}, "position: prongs are not conserved"),
        ({"board": {"b3": [[0, "N"], [0, ""]], "d6": [[1, ""]]}}, {}, "position: basic has no stacks (b3)"),
        ({"board": {"c6": [[0, "N"]], "d6": [[1, ""]]}}, {}, "player_0 has a pod on the enemy base c6; the game ended when it landed (OCT-42)"),
        ({"board": {s: [[1, ""]] for s in ("c3", "e3", "g3")} | {"e5": [[0, "N"]]}}, {"variant": "x_classic"}, "player_1 holds all three enemy bases; the game is over (OCT-43)"),
        ({"board": {"a1": [[0, "S,SW,W"]], "d6": [[1, ""]]}, "supply": [0, 21]}, {}, "position: player_0 to move has no legal action; the game is over (OCT-44)"),
        ([1], {}, "option 'position' must be a dict in the schema of snapshot(), got list"),
    ],
)  # fmt: skip
def test_bad_positions_are_named(position: Any, params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(position, **params)


def test_the_env_takes_the_option_and_lists_it() -> None:
    env = octi_v0.env()
    env.reset(options={"position": {"board": {"c3": [[0, "N"]], "d5": [[1, "S"]]}}, "moves": ["step c3 N"]})
    assert env.unwrapped.snapshot()["board"] == {"c4": [[0, "N"]], "d5": [[1, "S"]]}
    with pytest.raises(ValueError, match=re.escape("allowed: ['moves', 'position', 'state']")):
        env.reset(options={"positions": {}})


_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 400),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.one_of(st.integers(-2, 3), st.text(max_size=3)), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(-1, 2), max_size=2),
)
_GOOD = {"board": {"c3": [[0, "N,NE"]], "d5": [[1, "S"]]}, "to_move": 0, "turn": 3, "supply": [10, 11]}


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_junk_in_a_position_is_a_value_error(data: st.DataObject) -> None:
    """Junk at any key, square, pod or prong string: ``ValueError`` or a valid position."""
    position: dict[str, Any] = json.loads(json.dumps(_GOOD))
    where = data.draw(st.sampled_from(["key", "square", "pod", "seat", "prongs", "new key"]))
    junk = data.draw(_JUNK)
    if where == "key":
        position[data.draw(st.sampled_from(sorted(position)))] = junk
    elif where == "square":
        position["board"] = {
            data.draw(st.one_of(st.text(max_size=3), st.sampled_from(["a1", "F7", " e4 "]))): [[0, "N"]]
        }
    elif where == "pod":
        position["board"]["c3"] = [junk]
    elif where == "seat":
        position["board"]["c3"] = [[junk, "N"]]
    elif where == "prongs":
        position["board"]["c3"] = [[0, junk]]
    else:
        position[data.draw(st.text(max_size=5))] = junk
    variant = data.draw(st.sampled_from(["basic", "x_fast"]))
    try:
        state = _load(position, variant=variant)
    except ValueError:
        return
    assert state.legal_actions() and state.snapshot()["phase"] == "MAIN"
