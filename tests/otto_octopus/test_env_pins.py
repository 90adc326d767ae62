"""Pins from a mutation round on Otto the Octopus's env layer: the reset option ``position`` and
``snapshot()`` (``envs/otto_octopus/position.py``), ``State.from_dict`` (the ``state`` option),
the game's facts, infos, hidden-information views and re-deals (``game.py``) and the env's
metadata (``env.py``).

What is pinned is what the doc page (the module docstring of ``envs/otto_octopus/env.py``) and
the spec (``rules/otto_octopus.md``) promise: the position schema and its errors naming the key,
the snapshot being a copy that feeds back to the same position, the phases that play can reach,
the re-deal keeping the seat's own view, and the metadata PettingZoo reads. The last tests pin
four defects this round found and that are fixed now: phases the simplified game and solo never
reach, passes in a mid-turn phase, and unknown keys of mixed types.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from envs import otto_octopus_v0
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import State
from tests.otto_octopus.helpers import P1, make


def _load(position: Any, **params: Any) -> State:
    return OttoOctopusGame(**params).new_initial_state(np.random.default_rng(0), {"position": position})


def _refused(position: Any, message: str, **params: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(position, **params)


# --- position.py: the schema and its errors ---------------------------------------------------


def test_position_names_the_hand_slot_of_an_unknown_kind() -> None:
    """Doc page: every problem of a position raises ``ValueError`` naming the key; a bad tile in a
    hand is named down to its seat and slot."""
    _refused({"hands": [["straight", "shrimp"], []]}, "position['hands'][0][1]: unknown tile kind 'shrimp'")
    _refused({"hands": [[], []], "pile": ["end", 3]}, "position['pile'][1]: unknown tile kind 3")


def test_position_reads_no_bool_as_a_score() -> None:
    """Doc page: ``scores`` are ints; ``True`` (``== 1`` in Python) is refused by name, not read
    as a score of 1."""
    _refused({"hands": [[], []], "scores": [True, 0]}, "position['scores'] must hold ints, got True")
    assert _load({"hands": [["straight"], []], "scores": [1, -4]}).scores == [1, -4]


def test_position_skips_reach_their_bound_of_sixty() -> None:
    """OTP-23: each pending skip is a jellyfish's; the bound is the game's 60 tiles (a position
    with 61 is refused elsewhere), so 60 itself loads."""
    st = _load({"hands": [["straight"], ["straight"]], "skips": [0, 60]})
    assert st.skips == [0, 60]


def test_position_passed_needs_one_flag_per_seat() -> None:
    """Doc page schema: ``passed`` holds one bool per seat; a list of the wrong length is
    refused by name."""
    _refused(
        {"hands": [[], []], "passed": [False]}, "position['passed'] must be a list of 2 bools, got [False]"
    )
    _refused(
        {"hands": [[], []], "passed": [False, False, False]},
        "position['passed'] must be a list of 2 bools",
    )


def test_position_placements_take_the_action_notation_in_any_case() -> None:
    """Doc page / spec §8: a placement may be written as its action, and actions are read
    case-insensitively, squares included (``PLACE STRAIGHT D6`` is ``place straight d6``)."""
    st = _load({"placements": ["PLACE STRAIGHT D6", "Straight D7"], "hands": [[], []]})
    assert st.snapshot()["placements"] == P1


def test_otp42_simplified_position_replays_fish_without_their_placement_limits() -> None:
    """OTP-42: the simplified game drops the anglerfish's perimeter rule (OTP-09) and the moray's
    exclusion zone (OTP-10), so a position of it replays such placements; the full game refuses
    the same placements naming the rule."""
    placements = [*P1, "anglerfish e7", "moray c7", "minnow c6"]
    st = _load({"placements": placements, "hands": [[], []]}, simplified=True)
    assert st.snapshot()["placements"] == placements
    with pytest.raises(ValueError, match=r"position\['placements'\]\[2\] 'anglerfish e7' is not a legal"):
        _load({"placements": placements, "hands": [[], []]})


def test_position_given_is_not_changed_by_the_play_that_follows() -> None:
    """Doc page: a position (or a snapshot) fed to ``reset`` reproduces it; the engine reads it
    and keeps its own lists, so passing (OTP-19, which marks ``passed``) leaves the caller's dict
    as it was and the same dict loads the same position again."""
    pos = {
        "placements": P1,
        "hands": [["starfish"], ["straight"]],
        "pile": ["bubbles"],
        "passed": [False, False],
    }
    st = _load(pos)
    st.apply(st.string_to_action("pass"))
    assert st.passed == [True, False]
    assert pos["passed"] == [False, False]
    assert _load(pos).passed == [False, False]


def test_snapshot_is_a_copy_of_the_position() -> None:
    """Doc page: ``snapshot()`` returns the current position in the schema; changing the
    returned lists does not change the engine (its scores and passed flags stay)."""
    st = make(P1, [["starfish"], ["straight"]], scores=[3, 4], passed=[False, True])
    snap = st.snapshot()
    snap["scores"][0] = 99
    snap["passed"][0] = True
    snap["skips"][0] = 5
    assert st.scores == [3, 4] and st.passed == [False, True] and st.skips == [0, 0]
    assert st.snapshot()["scores"] == [3, 4] and not st.is_terminal()


def test_position_reads_no_bool_as_the_seat_to_move() -> None:
    """Doc page: ``to_move`` is a seat, an agent name or -1; ``True`` is refused by name, not
    read as seat 1."""
    _refused(
        {"hands": [["straight"], ["straight"]], "to_move": True},
        "position['to_move'] must be a seat in [0, 1] (or 'player_<seat>') or -1 (over), got True",
    )


@pytest.mark.parametrize("phase", ["over", "MAIN", "place"])
def test_position_phase_is_one_of_the_four_names(phase: str) -> None:
    """Doc page schema: ``phase`` is ``main | extra | swap | return``; anything else is refused
    with the list of the four."""
    _refused(
        {"hands": [["straight"], []], "phase": phase},
        f"position['phase'] must be one of ['main', 'extra', 'swap', 'return'], got {phase!r}",
    )


def test_position_reads_no_bool_as_extra_placements() -> None:
    """OTP-33 / doc page: ``extra`` is an int; ``True`` is refused by name, not read as one
    extra placement."""
    _refused(
        {"placements": P1, "hands": [["straight"], []], "phase": "extra", "extra": True},
        "position['extra'] must be an int in [0, 60], got True",
    )


def test_position_finished_with_extra_placements_left_is_refused() -> None:
    """Doc page: a finished position (``to_move`` -1) is in ``main`` with ``extra`` 0; extra
    placements left at the end are refused even in phase ``main``."""
    _refused(
        {"hands": [[], []], "to_move": -1, "extra": 1},
        "a finished position (to_move -1) has phase 'main' and extra 0",
    )


def test_otp24_position_swap_needs_a_tile_in_the_movers_hand() -> None:
    """OTP-24 / doc page: ``swap`` needs a tile in the mover's hand as well as in an opponent's;
    an empty mover's hand with a full opponent's is refused."""
    _refused(
        {"placements": P1, "hands": [[], ["straight", "end"]], "phase": "swap"},
        "phase 'swap' needs a tile in the mover's hand and in an opponent's (OTP-24)",
    )


# --- position.py: State.from_dict (the reset option ``state``) --------------------------------


def _state_dict() -> dict[str, Any]:
    return make(P1, [["starfish", "bubbles", "end"]]).to_dict()


@pytest.mark.parametrize("key", ["steps", "truncated", "config", "position", "rng"])
def test_from_dict_names_a_missing_key(key: str) -> None:
    """Doc page (``state`` option): a malformed state dict raises ``ValueError`` naming what is
    wrong; each of the five keys ``to_dict`` writes is required."""
    d = _state_dict()
    del d[key]
    with pytest.raises(ValueError, match=re.escape(f"state dict lacks key(s) ['{key}']")):
        State.from_dict(d)


def test_from_dict_reads_no_bool_as_a_step_count() -> None:
    """``steps`` of a saved state is an int >= 0; ``True`` is refused by name, not read as 1."""
    d = _state_dict()
    d["steps"] = True
    with pytest.raises(ValueError, match=re.escape("state dict 'steps' must be an int >= 0, got True")):
        State.from_dict(d)


def test_from_dict_turns_any_malformed_position_into_a_value_error() -> None:
    """Doc page: a malformed saved state raises ``ValueError``; unknown position keys of mixed
    types (which cannot even be sorted) are no exception to that."""
    d = _state_dict()
    d["position"][1] = 0
    d["position"]["colour"] = 0
    with pytest.raises(ValueError, match="position"):
        State.from_dict(d)


def test_position_with_unknown_keys_of_mixed_types_is_a_value_error() -> None:
    """Doc page: every problem of a position raises ``ValueError`` naming the key, as the reset
    options themselves do for unknown keys of mixed types (sorting them raised ``TypeError``)."""
    with pytest.raises(ValueError, match=re.escape("unknown position key(s) ['colour', 1]; allowed:")):
        _load({"hands": [[], []], 1: 0, "colour": 0})


def test_position_hand_and_pile_are_lists_never_strings() -> None:
    """Doc page schema: a hand and the pile are lists of tile kinds; a string (even an empty one,
    which would read as no tiles) is refused by name."""
    _refused({"hands": ["", []]}, "position['hands'][0] must be a list of tile kinds, got ''")
    _refused({"hands": [[], []], "pile": ""}, "position['pile'] must be a list of tile kinds, got ''")


def test_from_dict_reads_no_int_as_the_truncated_flag() -> None:
    """``truncated`` of a saved state is a bool; ``1`` is refused by name even for a finished
    game (where a truncation could stand)."""
    d = make(P1, to_move=-1).to_dict()
    d["truncated"] = 1
    with pytest.raises(ValueError, match=re.escape("state dict 'truncated' must be a bool, got 1")):
        State.from_dict(d)


def test_from_dict_restores_a_truncated_game_as_truncated() -> None:
    """Doc page (``state`` option): a state is restored exactly; a game cut off by ``max_steps``
    stays truncated, so its infos name no winner and its returns are 0 (§5)."""
    game = OttoOctopusGame(max_steps=1)
    st = make(P1, [["starfish"], ["straight"]], max_steps=1)
    st.apply(st.string_to_action("pass"))
    assert st.is_terminal() and st.is_truncated()
    again = State.from_dict(st.to_dict())
    assert again.is_truncated() and again.to_dict() == st.to_dict()
    assert game.infos(again, 0)["winners"] == []
    assert list(again.returns()) == [0.0, 0.0]


@pytest.mark.parametrize("text", ["straight d6 north", "straight", "place straight d6 n"])
def test_position_placement_is_exactly_a_kind_and_a_square(text: str) -> None:
    """Doc page schema: a placement is ``'<kind> <square>'`` (or its action ``'place <kind>
    <square>'``); a word too many or too few is refused by name, never read in part."""
    _refused(
        {"placements": [text], "hands": [[], []]},
        f"position['placements'][0] must be '<kind> <square>' like 'straight d6' (or 'place straight d6'), got {text!r}",
    )


# --- game.py: facts, reset options, views ------------------------------------------------------


@pytest.mark.parametrize(("n", "zero_sum"), [(1, False), (2, True), (3, True), (4, True)])
def test_s5_zero_sum_except_solo(n: int, zero_sum: bool) -> None:
    """§5 / doc page: 2-4 players are zero-sum (OpenSpiel ``ZERO_SUM``); solo pays the final
    score / 100 (``GENERAL_SUM``)."""
    assert OttoOctopusGame(num_players=n).zero_sum is zero_sum


def test_reset_option_position_none_is_absent() -> None:
    """Reset options given as ``None`` are absent, as for every option of the suite: the game
    is dealt afresh from the seed, exactly as without options."""
    game = OttoOctopusGame()
    fresh = game.new_initial_state(np.random.default_rng(7))
    none = game.new_initial_state(np.random.default_rng(7), {"position": None})
    assert none.snapshot() == fresh.snapshot()


def test_resample_hidden_depends_on_the_observation_not_on_the_deal() -> None:
    """``resample_hidden`` re-deals uniformly and consistently with the seat's observation:
    two states that look the same to player_0 (same own hand, same unseen tiles, other hand and
    pile dealt differently) are re-dealt to the same state from the same generator."""
    game = OttoOctopusGame()
    a = make(P1, [["starfish", "end"], ["straight", "bubbles", "minnow"]], pile=["turn-in", "shark", "moray"])
    b = make(P1, [["starfish", "end"], ["moray", "turn-in", "shark"]], pile=["minnow", "bubbles", "straight"])
    assert np.array_equal(game.observe(a, 0), game.observe(b, 0))
    ra = game.resample_hidden(a, 0, np.random.default_rng(3))
    rb = game.resample_hidden(b, 0, np.random.default_rng(3))
    assert ra.snapshot() == rb.snapshot()
    assert ra.snapshot()["hands"][0] == ["starfish", "end"]


@pytest.mark.parametrize("seat", [-1, 2, True])
def test_seat_views_refuse_a_seat_out_of_range(seat: Any) -> None:
    """A seat is an int in ``[0, n)``: a negative index would silently read another seat's view
    (its hidden hand), so ``observe``, ``infos``, ``resample_hidden``, ``private_text`` and
    ``public_action_string`` (its ``viewer``) refuse it by name."""
    game = OttoOctopusGame(open_game=True)
    st = make(P1, [["starfish", "end"], ["straight"]], open_game=True)
    message = f"must be an int in [0, 1], got {seat!r}"
    for call in (
        lambda: game.observe(st, seat),
        lambda: game.infos(st, seat),
        lambda: game.resample_hidden(st, seat, np.random.default_rng(0)),
        lambda: game.private_text(st, seat),
    ):
        with pytest.raises(ValueError, match=re.escape("seat " + message)):
            call()
    with pytest.raises(ValueError, match=re.escape("viewer " + message)):
        game.public_action_string(st, st.string_to_action("pass"), seat)


def test_infos_scores_are_a_copy_of_the_running_scores() -> None:
    """Doc page: ``infos`` carry ``scores`` (running); they are a report, so changing the dict an
    agent received does not change the game's scores."""
    game = OttoOctopusGame()
    st = make(P1, [["starfish"], ["straight"]], scores=[3, 4])
    info = game.infos(st, 0)
    assert info == {"scores": [3, 4]}
    info["scores"][0] = 99
    assert st.scores == [3, 4] and game.infos(st, 1) == {"scores": [3, 4]}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_s5_facts_of_the_doc_page(n: int) -> None:
    """Doc page / §5 / §7: ``Discrete(1106)`` actions, a ``float32[1834]`` observation in
    ``[-1, 1]``; with 2-4 players every reward lies in ``[-1, 1]`` (a winner's
    ``(n - k) / (k * (n - 1))`` is at most 1, a loser's ``-1 / (n - 1)`` and the illegal
    mover's -1 at least -1)."""
    game = OttoOctopusGame(num_players=n)
    assert game.num_actions == 1106 and game.observation_shape == (1834,)
    assert game.observation_bounds == (-1.0, 1.0)
    assert game.reward_range == (-1.0, 1.0)


def test_env_metadata_names_the_game_and_its_render_modes() -> None:
    """Doc page: the env is ``otto_octopus_v0`` with render modes ``ansi``, ``rgb_array`` and
    ``human`` (any other raises), and it is an AEC game only (turns, not parallel)."""
    env = otto_octopus_v0.env()
    assert env.metadata["name"] == "otto_octopus_v0"
    assert env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    assert env.metadata["is_parallelizable"] is False
    human = otto_octopus_v0.env(render_mode="human")
    assert human.unwrapped.render_mode == "human"
    with pytest.raises(ValueError, match="render_mode"):
        otto_octopus_v0.env(render_mode="rgb")


def test_new_initial_state_needs_a_numpy_generator() -> None:
    """OTP-45: all randomness comes from the generator of the reset; anything else is refused
    by name before a tile is dealt."""
    with pytest.raises(ValueError, match="rng must be a numpy Generator"):
        OttoOctopusGame().new_initial_state(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rng must be a numpy Generator, e.g. np.random.default_rng"):
        OttoOctopusGame().new_initial_state(7, {"position": {"hands": [[], []]}})  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [None, 1024, b"pass"])
def test_string_to_action_refuses_what_is_not_text(text: Any) -> None:
    """Doc page / §8: ``string_to_action`` parses notation; anything that is not a string raises
    ``ValueError`` (before the first ``reset()`` too), never another error."""
    game = OttoOctopusGame()
    with pytest.raises(ValueError, match=r"action string"):
        game.string_to_action(text)
    with pytest.raises(ValueError, match=r"action string"):
        otto_octopus_v0.env().unwrapped.string_to_action(text)
    assert game.string_to_action("  PASS ") == 1024


# --- defects found in this round, fixed: phases no play of the game can reach -------------------


@pytest.mark.parametrize(
    ("phase", "extra", "pile"),
    [("extra", 1, ["bubbles"]), ("swap", 0, ["bubbles"]), ("return", 0, ["end"])],
)
def test_otp42_simplified_position_refuses_the_phases_of_fish_effects(
    phase: str, extra: int, pile: list[str]
) -> None:
    """OTP-42: the simplified game ignores the clownfish, butterflyfish, pufferfish and seahorse
    actions, so its play never reaches ``extra``, ``swap`` or ``return``; the doc page: "The
    phase must be one play can reach" (a ``ValueError`` naming the key). The same position
    loads in the full game."""
    position = {
        "placements": P1,
        "hands": [["straight"], ["bubbles"]],
        "pile": pile,
        "phase": phase,
        "extra": extra,
    }
    _refused(
        position,
        f"position['phase'] {phase!r} cannot occur in the simplified game, which ignores the fish "
        "effects that lead there (OTP-42); use 'main'",
        simplified=True,
    )
    assert _load(position).snapshot()["phase"] == phase


def test_otp39_solo_position_refuses_extra_and_swap_but_reads_return() -> None:
    """OTP-39: solo ignores the clownfish, butterflyfish and pufferfish effects, so a solo game
    is never in ``extra`` (OTP-33) or ``swap``; the seahorse still applies, so ``return`` loads."""
    message = (
        "position['phase'] 'extra' cannot occur in solo, which ignores the clownfish, "
        "butterflyfish and pufferfish (OTP-39); use 'main' or 'return'"
    )
    _refused(
        {"placements": P1, "hands": [["straight"]], "phase": "extra", "extra": 1}, message, num_players=1
    )
    position = {"placements": P1, "hands": [["straight"]], "pile": ["end"], "phase": "return"}
    st = _load(position, num_players=1)
    assert st.snapshot()["phase"] == "return" and st.current_player() == 0


@pytest.mark.parametrize("passed", [[True, True], [False, True]])
def test_otp37_position_in_a_mid_turn_phase_has_no_passes_since_the_placement(passed: list[bool]) -> None:
    """OTP-37: ``passed`` counts passes since the last placement, and ``extra`` / ``swap`` /
    ``return`` follow the mover's placement in the same turn, so every flag is false there. A
    ``swap`` position with a seat passed is refused (with every seat passed it used to be turned
    into a finished game that dropped the pending swap); with none it loads."""
    position = {
        "placements": [*P1, "pufferfish e7"],
        "hands": [["bubbles"], ["bubbles"]],
        "phase": "swap",
        "passed": passed,
    }
    _refused(
        position,
        "position['passed'] must be all false in phase 'swap': the mover has just placed a tile, "
        "and a placement clears the passes (OTP-37)",
    )
    st = _load({**position, "passed": [False, False]})
    assert not st.is_terminal() and st.snapshot()["phase"] == "swap"
