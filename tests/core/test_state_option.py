"""The reset option ``"state"`` every game takes (``Game.restored_state``): a whole engine
state as ``state.to_dict()`` wrote it, through JSON, hidden parts and generator included."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from envs.core.game import STATE_OPTION
from envs.core.registry import GAMES
from tests.core.helpers import make_game, random_action


def _env_after(name: str, params: dict[str, Any], seed: int, moves: int) -> tuple[Any, np.random.Generator]:
    """An env after ``moves`` seeded random moves (dead steps taken), and the move generator."""
    env = GAMES[name].env(**params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(moves):
        if not env.agents:
            break
        obs, _r, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env, rng


def test_a_restored_state_plays_on_like_the_original(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    for seed, moves in ((0, 0), (5, 9), (11, 31)):
        env, rng = _env_after(name, params, seed, moves)
        if not env.agents:
            continue
        d = json.loads(json.dumps(env.unwrapped.state.to_dict()))  # what a JSON file would hold
        twin = GAMES[name].env(**params)
        twin.reset(seed=seed + 977, options={STATE_OPTION: d})  # the seed has no say: the state has its rng
        # (a seat already out is no agent of the restored episode: tests/over_and_out/test_api.py)
        for _ in range(400):  # the rest of the game, chance included, is the original's
            assert twin.agents == env.agents and twin.agent_selection == env.agent_selection
            if not env.agents:
                break
            a, b = env.last(), twin.last()
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[2:4] == b[2:4]
            action = None if a[2] or a[3] else int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
            env.step(action)
            twin.step(action)
            assert twin.rewards == env.rewards
        assert twin.unwrapped.state.to_dict() == env.unwrapped.state.to_dict()


def test_the_engine_takes_the_option_and_none_counts_as_absent(
    game_config: tuple[str, dict[str, Any]],
) -> None:
    name, params = game_config
    game = make_game(name, params)
    rng = np.random.default_rng(3)
    state = game.new_initial_state(np.random.default_rng(4))
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply(random_action(state, rng))
    d = state.to_dict()
    restored = game.new_initial_state(np.random.default_rng(0), {STATE_OPTION: d})
    assert restored.to_dict() == d
    fresh = game.new_initial_state(np.random.default_rng(4), {STATE_OPTION: None})
    assert fresh.to_dict() == game.new_initial_state(np.random.default_rng(4)).to_dict()


@pytest.mark.parametrize(
    ("name", "mine", "theirs", "differ"),
    [
        ("octi", {}, {"variant": "x_fast"}, "variant='x_fast' (this game: 'basic')"),
        ("over_and_out", {"num_players": 2}, {"num_players": 3}, "num_players=3 (this game: 2)"),
        ("otto_game_over", {}, {"num_players": 3}, "num_players=3 (this game: 2)"),
        ("otto_octopus", {}, {"num_players": 4}, "num_players=4 (this game: 2)"),
    ],
)
def test_bad_states_are_refused_by_name(
    name: str, mine: dict[str, Any], theirs: dict[str, Any], differ: str
) -> None:
    other = GAMES[name].env(**theirs)
    other.reset(seed=0)
    d = other.unwrapped.state.to_dict()
    env = GAMES[name].env(**mine)
    with pytest.raises(
        ValueError, match="^" + re.escape(f"reset option 'state' holds a game of other parameters: {differ}")
    ):
        env.reset(options={STATE_OPTION: d})
    # the same after an observation (a config may cache derived values beside its parameters:
    # Over and Out's observation scales; only the parameters are compared and named)
    env.reset(seed=0)
    env.observe(env.agent_selection)
    with pytest.raises(
        ValueError,
        match="^" + re.escape(f"reset option 'state' holds a game of other parameters: {differ}") + "$",
    ):
        env.reset(options={STATE_OPTION: d})
    own = GAMES[name].env(**theirs)
    with pytest.raises(
        ValueError,
        match=r"^reset option 'state' sets the whole game and takes no other option; got also \['x'\]",
    ):
        own.reset(options={STATE_OPTION: d, "x": 1})
    with pytest.raises(
        ValueError, match=r"^reset option 'state' must be a dict written by state.to_dict\(\), got list"
    ):
        own.reset(options={STATE_OPTION: [1]})
    broken = {k: v for k, v in d.items() if k != "rng"}
    with pytest.raises(ValueError, match=r"^reset option 'state': "):
        own.reset(options={STATE_OPTION: broken})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['y'\]; allowed: \[.*'state'\]"):
        own.reset(options={"y": 1})
    # PettingZoo's api_test probe key stays harmless beside it
    own.reset(options={STATE_OPTION: d, "options": 1})
    assert own.unwrapped.state.to_dict() == d


def test_every_game_lists_its_reset_options(game_name: str) -> None:
    """``Game.reset_options`` (which ``eightfold list`` shows) is what the unknown-key error
    allows, ``state`` included."""
    game_cls = GAMES[game_name].game_class()
    assert STATE_OPTION in game_cls.reset_options
    with pytest.raises(ValueError, match=re.escape(f"allowed: {list(game_cls.reset_options)}")):
        game_cls().new_initial_state(np.random.default_rng(0), {"no_such_option": 1})


def test_a_state_of_another_game_is_named(game_name: str) -> None:
    """A state written by another game is refused naming that game, not as keys missing."""
    game = make_game(game_name, {})
    for other in GAMES:
        if other == game_name:
            continue
        state = make_game(other, {}).new_initial_state(np.random.default_rng(0))
        with pytest.raises(
            ValueError, match=rf"reset option 'state' holds a state of {other}, not of {game_name}"
        ):
            game.new_initial_state(np.random.default_rng(0), {STATE_OPTION: state.to_dict()})


def test_a_reset_option_given_as_none_is_absent(game_name: str) -> None:
    """Every game reads a reset option set to ``None`` as not given (it was refused by some
    games and taken by others)."""
    game = make_game(game_name, {})
    plain = game.new_initial_state(np.random.default_rng(5))
    for key in game.reset_options:
        state = game.new_initial_state(np.random.default_rng(5), {key: None})
        assert json.dumps(state.to_dict(), sort_keys=True) == json.dumps(plain.to_dict(), sort_keys=True), key


def test_beside_a_state_another_option_given_as_none_is_absent(game_name: str) -> None:
    """``None`` counts as absent beside ``state`` too: ``{"state": d, "moves": None}`` (a
    caller filling every option it knows) loads ``d``; it was refused as a second option,
    while ``{"state": None, "moves": [...]}`` was taken."""
    game = make_game(game_name, {})
    d = game.new_initial_state(np.random.default_rng(5)).to_dict()
    for key in game.reset_options:
        if key == STATE_OPTION:
            continue
        state = game.new_initial_state(np.random.default_rng(9), {STATE_OPTION: d, key: None})
        assert json.dumps(state.to_dict(), sort_keys=True) == json.dumps(d, sort_keys=True), key
