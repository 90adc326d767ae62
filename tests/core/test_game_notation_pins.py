"""Gaps found by a mutation round on ``envs/core/game.py`` and ``envs/core/notation.py``: each
test here failed on a plausible bug of those helpers (a mutant) that the rest of the suite let
through: who counts as a partner, what a malformed generator state or ``state`` reset option
is told, which seats are refused, and what a malformed action string's error shows."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.core.game import STATE_OPTION, hides_nothing, rng_from_dict, rng_to_dict, team_seats
from envs.core.notation import canonical_text
from envs.core.registry import GAMES
from tests.core.helpers import make_game


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("otto_game_over", {"num_players": 4}),
        ("otto_game_over", {"num_players": 1, "teams": True}),
        ("over_and_out", {"num_players": 4}),
        ("otto_octopus", {"num_players": 4}),
        ("octi", {}),
    ],
)
def test_only_a_2v2_game_has_partners(name: str, params: dict[str, Any]) -> None:
    """Four players without ``teams`` (or ``teams`` in a solo game, where it is ignored) are
    each on their own: a partner here would count a rival's win as the seat's own in
    ``play_match``, the evaluation and the tournament."""
    game = make_game(name, params)
    for seat in range(game.num_players):
        assert team_seats(game, seat) == frozenset({seat})


def test_a_2v2_game_pairs_the_opposite_seats() -> None:
    """With ``teams=True`` and four players, seats 0/2 and 1/3 are partners."""
    game = make_game("otto_game_over", {"num_players": 4, "teams": True})
    assert [team_seats(game, s) for s in range(4)] == [
        frozenset({0, 2}),
        frozenset({1, 3}),
        frozenset({2, 0}),
        frozenset({3, 1}),
    ]


@pytest.mark.parametrize("junk", [[1, 2], "PCG64", None, 7])
def test_an_rng_state_that_is_no_dict_is_a_value_error(junk: Any) -> None:
    """``rng_from_dict`` refuses a non-dict with a ValueError naming its type (not an
    AttributeError from deep inside)."""
    with pytest.raises(ValueError, match=f"^rng state must be a dict, got {type(junk).__name__}$"):
        rng_from_dict(junk)


def test_an_unknown_bit_generator_is_named_with_the_allowed_ones() -> None:
    """A generator name outside ``BIT_GENERATORS`` is reported as such, listing the allowed
    names and the one given (not as a bare ``KeyError`` in a "malformed" message)."""
    d = json.loads(json.dumps(rng_to_dict(np.random.default_rng(3))))
    d["bit_generator"] = "RandomState"
    with pytest.raises(ValueError, match=r"bit_generator must be one of") as err:
        rng_from_dict(d)
    assert str(err.value) == (
        "rng bit_generator must be one of ['MT19937', 'PCG64', 'PCG64DXSM', 'Philox', 'SFC64'], "
        "got 'RandomState'"
    )


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_negative_or_too_large_numpy_seat_is_refused(name: str) -> None:
    """A numpy integer seat is held to ``[0, n)`` like an int: ``np.int64(-1)`` would read
    the last seat's private view."""
    game = make_game(name, {})
    n = game.num_players
    state = game.new_initial_state(np.random.default_rng(0))
    for bad in (np.int64(-1), np.int32(-n), np.int64(n)):
        with pytest.raises(ValueError, match=rf"^seat must be an int in \[0, {n - 1}\], got "):
            game.observe(state, bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=rf"^seat must be an int in \[0, {n - 1}\], got "):
            game.private_text(state, bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_empty_state_option_is_refused_not_ignored(name: str) -> None:
    """``{"state": {}}`` is a malformed state, not an absent option: a fresh game dealt from the
    reset's seed in its place would pass silently for the position the user asked for."""
    game = make_game(name, {})
    with pytest.raises(ValueError, match=rf"^reset option {STATE_OPTION!r}"):
        game.new_initial_state(np.random.default_rng(0), {STATE_OPTION: {}})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_malformed_state_option_keeps_the_reason(name: str) -> None:
    """The ``state`` option's error carries ``from_dict``'s own reason after its prefix."""
    game = make_game(name, {})
    state = game.new_initial_state(np.random.default_rng(0))
    broken = {k: v for k, v in state.to_dict().items() if k != "rng"}
    with pytest.raises(ValueError, match=r"\['rng'\]") as direct:
        type(state).from_dict(broken)
    with pytest.raises(ValueError, match=r"reset option 'state'") as err:
        game.new_initial_state(np.random.default_rng(0), {STATE_OPTION: broken})
    assert str(err.value) == f"reset option {STATE_OPTION!r}: {direct.value}"


def test_a_state_of_other_parameters_names_only_those_that_differ() -> None:
    """The refusal lists the parameters that differ, not every parameter of the game."""
    theirs = make_game("otto_game_over", {"num_players": 3, "blind": True})
    d = theirs.new_initial_state(np.random.default_rng(0)).to_dict()
    game = make_game("otto_game_over", {})
    with pytest.raises(ValueError, match=r"other parameters") as err:
        game.new_initial_state(np.random.default_rng(0), {STATE_OPTION: d})
    assert str(err.value) == (
        "reset option 'state' holds a game of other parameters: "
        "num_players=3 (this game: 2), blind=True (this game: False)"
    )


def test_hides_nothing_takes_a_game_class_or_a_game() -> None:
    """``hides_nothing`` answers alike for a class (the CLI and the OpenSpiel registration pass
    one) and an instance: Octi alone hides nothing."""
    for name in sorted(GAMES):
        cls = GAMES[name].game_class()
        assert hides_nothing(cls) is (name == "octi"), name
        assert hides_nothing(cls()) is (name == "octi"), name


def test_octi_keeps_the_default_facts() -> None:
    """Octi uses the protocol's defaults: zero-sum, observations in ``[0, 1]`` (the AEC
    observation space is built from them)."""
    game = make_game("octi", {})
    assert game.zero_sum is True
    assert game.observation_bounds == (0.0, 1.0)
    env = GAMES["octi"].env()
    space = env.observation_space(env.possible_agents[0])["observation"]
    assert float(space.low.min()) == 0.0 and float(space.high.max()) == 1.0


@pytest.mark.parametrize(
    ("text", "why"),
    [(" Jump b2 né ", "notation is ASCII text"), (" jump\tb2 ", "the words are separated by spaces")],
)
def test_a_malformed_action_error_shows_the_text_as_given(text: str, why: str) -> None:
    """The error quotes the string exactly as the user typed it (surrounding spaces included)
    and the grammar expected."""
    with pytest.raises(ValueError, match=r"malformed action") as err:
        canonical_text(text, "GRAMMAR")
    msg = str(err.value)
    assert msg.startswith(f"malformed action {text!r}: {why}")
    assert msg.endswith("expected GRAMMAR")
