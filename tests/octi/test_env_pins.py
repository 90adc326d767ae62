"""Pins from a mutation round on Octi's env layer: the reset options ``position`` / ``state`` /
``moves`` (``envs/octi/position.py``, ``serial.py``, ``game.py``), the notation
(``notation.py``) and the env's end of game (spec ``rules/octi.md`` §5, §8; env docstring)."""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import pytest

from envs import octi_v0
from envs.octi.game import OctiGame
from envs.octi.rules import CAPTURED, State
from tests.octi.helpers import S02_MOVES, new, play

S09_MOVES = """
1. enter c3 / prong g7 S
2. prong c3.0 N / prong e7 S
3. prong c3.1 N / prong c7 S
"""


def _load(position: Any, **params: Any) -> State:
    return OctiGame(**params).new_initial_state(np.random.default_rng(0), {"position": position})


def _refused(d: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def _declare_dict() -> dict[str, Any]:
    """x_fast, DECLARE: pod 0 stepped off the c3 stack {0, 3}; pod 3 is asked with/without."""
    st = play(new("x_fast"), S09_MOVES)
    st.play("step c3.0 N")
    d = copy.deepcopy(st.to_dict())
    assert d["phase"] == "DECLARE" and d["movers"] == [0] and d["declare_queue"] == [3]
    State.from_dict(copy.deepcopy(d))  # the untouched dict loads
    return d


def _capture_dict() -> dict[str, Any]:
    """basic, CAPTURE: b2 jumped own c3 (S02 before move 5) and stopped; c3 is to be decided."""
    st = play(new(), S02_MOVES.split("5.")[0])
    st.play("jump b2 NE", "stop")
    d = copy.deepcopy(st.to_dict())
    assert d["phase"] == "CAPTURE" and d["capture_queue"]
    State.from_dict(copy.deepcopy(d))
    return d


def _truncated_dict() -> dict[str, Any]:
    """basic, ``max_turns=1``: over after Black's first turn, a draw by the limit (OCT-45)."""
    st = play(new(max_turns=1), "1. prong c2 N /")
    d = copy.deepcopy(st.to_dict())
    assert d["phase"] == "OVER" and d["truncated"] is True and d["result"] == [0.0, 0.0]
    State.from_dict(copy.deepcopy(d))
    return d


# --- serial.py: saved states and their checks (the ``state`` reset option) -----------------------


@pytest.mark.parametrize("key", ["to_move", "turn"])
def test_from_dict_reads_no_bool_as_an_int(key: str) -> None:
    """A saved state's ints are ints: ``True`` is no seat or turn count (``True == 1`` in Python);
    read as one, a corrupted record would load as another position's side to move."""
    d = new().to_dict()
    d[key] = True
    _refused(d, rf"{key} must be an int in \[0, \d+\], got True")


def test_from_dict_refuses_prongs_that_went_missing() -> None:
    """Prongs are conserved (OCT-03, OCT-12, OCT-26): a state whose supplies plus the prongs on pods fall SHORT
    of the total must be refused too, not only one holding too many."""
    d = new().to_dict()
    d["supply"][0] -= 1
    _refused(d, "prongs are not conserved: 0 on pods")


def test_from_dict_refuses_a_truncated_game_with_a_winner() -> None:
    """OCT-45: a truncation is a draw; a state flagged truncated while paying a win cannot arise
    (the env would report truncations and a +1/-1 together) and must be refused."""
    d = _truncated_dict()
    d["result"] = [1.0, -1.0]
    _refused(d, "truncated is True only for a game over by the turn limit")


def test_from_dict_refuses_a_mover_off_the_board() -> None:
    """OCT-34: the movers of a turn stand on the board; a DECLARE state whose first mover is
    captured (its prong moved to the supply, so the pieces still add up) must be refused."""
    d = _declare_dict()
    d["pos"][0], d["prongs"][0] = CAPTURED, 0
    d["supply"][0] += 1
    _refused(d, "mover/declared pod 0 is not on the board")


def test_from_dict_refuses_a_draw_in_the_middle_of_a_turn() -> None:
    """§5: only a base win (OCT-42) ends a game mid-turn; a drawn OVER state still carrying an
    origin or movers cannot arise and must be refused."""
    for key, value in (("origin", 14), ("movers", [0])):
        d = _truncated_dict()
        d[key] = value
        if key == "movers":
            d["origin"] = d["pos"][0]
        _refused(d, "only a base win ends the game in the middle of a turn")


@pytest.mark.parametrize(("key", "value"), [("last_jump", True), ("active", 0), ("finished", [0])])
def test_from_dict_refuses_turn_state_in_main(key: str, value: Any) -> None:
    """§3: MAIN starts a turn with no turn state; a MAIN state with an active pod, a finished
    mover or a pending further jump cannot arise and must be refused."""
    d = new().to_dict()
    d[key] = value
    if key == "finished":
        d["movers"], d["origin"] = [0], d["pos"][0]
    _refused(d, "phase MAIN cannot carry turn state")


def test_from_dict_refuses_declare_and_capture_phases_with_empty_queues() -> None:
    """§3 phase machine: DECLARE asks about the queue head and CAPTURE decides the queue head;
    with an empty queue no action is legal, so such states must be refused by name."""
    d = _declare_dict()
    d["declare_queue"] = []
    _refused(d, "inconsistent turn state for phase DECLARE")
    d = _capture_dict()
    d["capture_queue"] = []
    _refused(d, "inconsistent turn state for phase CAPTURE")


def test_from_dict_refuses_a_chain_phase_without_a_further_jump() -> None:
    """OCT-18 / OCT-21: CHAIN is offered only while the active pod has a legal further jump;
    with the pod it would jump (Red's d5) moved away, no action but ``stop`` would remain for a
    phase that must offer a jump, so the state must be refused."""
    st = play(new(), S02_MOVES.split("5.")[0])
    st.play("jump b2 NE")  # b2 over c3 to d4; d4 N over d5 is the further jump
    d = copy.deepcopy(st.to_dict())
    assert d["phase"] == "CHAIN" and d["pos"][5] == st.geo.square("d5")
    d["pos"][5] = st.geo.square("a7")
    _refused(d, "inconsistent turn state for phase CHAIN")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("movers", [0, 0], r"movers has repeated entries: \[0, 0\]"),
        ("supply", [12, 12, 0], "supply must have 2 entries, got 3"),
        ("jumped", [[]] * 6, "jumped must be a list of 7 square lists"),
    ],
)
def test_from_dict_refuses_malformed_turn_lists(key: str, value: Any, message: str) -> None:
    """A saved state's lists have their shape: a pod is a mover once, there are two supplies
    (a third entry could hide prongs from the conservation check) and one jumped list per pod."""
    d = _declare_dict()
    if key == "supply":
        d = new().to_dict()
    d[key] = value
    _refused(d, message)


# --- position.py: the reset option ``position`` --------------------------------------------------


def test_position_reads_no_bool_as_a_turn_count() -> None:
    """``turn`` is an int (env docstring): ``True`` must be refused, not read as turn 1."""
    with pytest.raises(ValueError, match=re.escape("position turn must be an int in [0, 299]")):
        _load({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "turn": True})


def test_position_reads_no_bool_in_a_pair() -> None:
    """``supply`` is a pair of ints: ``[True, 11]`` must be refused by name, not read as 1."""
    board = {"a1": [[0, "N,NE,E,SE,S,SW,W,NW"]], "b1": [[0, "N,NE,E"]], "d5": [[1, "S"]]}
    assert _load({"board": board, "supply": [1, 11]}).snapshot()["supply"] == [1, 11]
    with pytest.raises(ValueError, match=re.escape("position supply must be a pair of ints")):
        _load({"board": board, "supply": [True, 11]})


def test_position_refuses_a_square_that_is_not_a_string() -> None:
    """A board key that is not a square name is refused by name, never silently dropped (the
    pod would vanish from the position and the counts would shift to the pools)."""
    with pytest.raises(ValueError, match=re.escape("position board: 3 is not a square name")):
        _load({"board": {3: [[0, "N"]], "d6": [[1, ""]]}, "captured": [3, 3]})


def test_from_dict_refuses_a_finished_game_past_the_turn_limit() -> None:
    """OCT-45: a game ends when ``turn`` reaches ``max_turns``, so even an OVER state cannot
    have more completed turns than the limit; a bound of the running game's check alone is not
    enough for a saved record."""
    d = _truncated_dict()
    d["turn"] = 2
    _refused(d, r"turn must be an int in \[0, 1\], got 2")


# --- notation.py -----------------------------------------------------------------------------------


def test_an_illegal_string_lists_every_legal_string() -> None:
    """Env docstring: an illegal text raises ``ValueError`` listing the legal strings; all 32
    opening prongs (OCT-S01) must be there, sorted, not a truncated sample."""
    st = new()
    with pytest.raises(ValueError, match=r"is not a legal action") as info:
        st.string_to_action("step c2 N")
    message = str(info.value)
    assert message.startswith("'step c2 N' is not a legal action for player_0 in phase MAIN; legal: [")
    listed = re.findall(r"'(prong [a-f]\d [NESW]{1,2})'", message)
    assert len(listed) == 32 and listed == sorted(listed)
    assert {"prong b2 N", "prong e2 NW"} <= set(listed)


# --- game.py: the reset option ``moves`` -----------------------------------------------------------


def test_moves_option_names_the_failing_move_by_its_index() -> None:
    """Env docstring reset options: a bad entry of ``moves`` is named by its 0-based index and
    text, with the notation's reason, so a user can find it in a long list."""
    game = OctiGame()
    moves = ["prong c2 N", "prong d6 S", "step c2 S"]
    with pytest.raises(ValueError, match=r"option 'moves'\[2\]") as info:
        game.new_initial_state(np.random.default_rng(0), {"moves": moves})
    assert str(info.value).startswith(
        "option 'moves'[2] 'step c2 S': 'step c2 S' is not a legal action for player_0 in phase MAIN"
    )


@pytest.mark.parametrize("moves", ["prong c2 N", ["prong c2 N", 3], ("prong c2 N", None)])
def test_moves_option_must_be_a_list_of_strings(moves: Any) -> None:
    """``moves`` is a list of notation strings: a bare string (which would be read letter by
    letter) or a non-string entry is refused as such, before any move is played."""
    with pytest.raises(ValueError, match=r"^option 'moves' must be a list of notation strings$"):
        OctiGame().new_initial_state(np.random.default_rng(0), {"moves": moves})


def test_position_prongs_of_blanks_only_are_none() -> None:
    """Prong strings are read like notation (spaces around words ignored): ``" "`` is no prong,
    as ``""`` is, rather than an unknown direction."""
    st = _load({"board": {"b2": [[0, " "]], "c3": [[0, "N"]], "d6": [[1, ""]]}})
    assert st.snapshot()["board"]["b2"] == [[0, ""]] and st.snapshot()["supply"] == [11, 12]


def test_position_counts_player_1s_pods_too() -> None:
    """Each side's pods add up to P (OCT-03): a miscounted ``captured`` of player_1 is named
    like player_0's, with the counts that do not add up."""
    message = "position: player_1 has 4 pods: 1 on the board + reserve 0 + captured 2 must make 4"
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        _load({"board": {"b3": [[0, "N"]], "d6": [[1, ""]]}, "captured": [3, 2]})


def test_position_keeps_the_resets_generator() -> None:
    """Env docstring / ``Game.new_initial_state``: all randomness comes from the reset's ``rng``
    and the state keeps it, with or without ``position``; a loaded position must not swap in a
    fixed generator (saved records of differently seeded games would carry the same one)."""
    game = OctiGame()
    position = {"board": {"c3": [[0, "N"]], "d5": [[1, "S"]]}}
    for seed in (1, 2):
        plain = game.new_initial_state(np.random.default_rng(seed))
        loaded = game.new_initial_state(np.random.default_rng(seed), {"position": position})
        assert loaded.to_dict()["rng"] == plain.to_dict()["rng"]


def test_from_dict_refuses_history_keys_that_are_not_strings() -> None:
    """OCT-52: the repetition history maps position strings to counts; another key type could
    never match a position, so the count would silently never reach three."""
    d = new(repetition_draw=True).to_dict()
    assert d["history"]
    d["history"] = {1: 1}
    _refused(d, r"history must map position strings to counts 1\.\.3")


def test_an_illegal_numpy_index_prints_as_its_number() -> None:
    """Env docstring: an illegal index prints as ``"illegal <index>"``, also when it comes as a
    numpy integer (what a policy's ``argmax`` returns), not as its repr."""
    st = new()
    out_of_range: Any = np.int64(200)
    unmasked: Any = np.int64(32)  # step b2 N: b2 has no prong yet
    assert st.action_to_string(out_of_range) == "illegal 200"
    assert st.action_to_string(unmasked) == "illegal 32"


# --- the AEC env: turns, truncation at ``max_turns``, rewards ---------------------------------------


def test_env_turn_plane_and_truncation_from_a_loaded_position() -> None:
    """Env docstring: plane 39 is completed turns / ``max_turns`` (constant), and a position set
    up at turn ``max_turns - 1`` ends after one more turn as a truncation draw (OCT-45): both
    agents truncated, not terminated, reward 0 each, and the snapshot says OVER at the limit."""
    env = octi_v0.env(max_turns=10)
    env.reset(seed=0, options={"position": {"board": {"c3": [[0, "N"]], "d5": [[1, "S"]]}, "turn": 9}})
    for agent in env.possible_agents:
        plane = env.observe(agent)["observation"][39]
        np.testing.assert_allclose(plane, np.full_like(plane, 0.9))
    env.step(env.unwrapped.string_to_action("step c3 N"))
    assert env.truncations == {"player_0": True, "player_1": True}
    assert env.terminations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    snap = env.unwrapped.snapshot()
    assert (snap["phase"], snap["turn"], snap["to_move"]) == ("OVER", 10, 0)
