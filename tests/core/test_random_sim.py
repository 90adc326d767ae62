"""Random-simulation soak in the spirit of OpenSpiel's random sim test, on the engine.

At every step of many seeded random games: the mover has a legal action; every legal
action is accepted; sampled illegal ones are rejected with ``ValueError``; ``clone()``
and ``to_dict()``/``from_dict()`` round-trip and continue identically; observations fit
the declared space; returns stay within bounds; the game ends within its declared limit.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tests.core.helpers import make_game, random_action, state_json

ROUND_TRIP_GAMES = 4
PLAIN_GAMES = 16


def _check_obs(game: Any, state: Any) -> None:
    lo, hi = game.observation_bounds
    for seat in range(game.num_players):
        obs = game.observe(state, seat)
        assert obs.dtype == np.float32 and obs.shape == game.observation_shape
        assert np.all(np.isfinite(obs)) and obs.min() >= lo and obs.max() <= hi, (
            f"observation of seat {seat} leaves [{lo}, {hi}]: min {obs.min()} max {obs.max()}"
        )


def _check_illegal_rejected(game: Any, state: Any, mask: np.ndarray, rng: np.random.Generator) -> None:
    illegal = np.flatnonzero(mask == 0)
    for a in rng.choice(illegal, size=min(3, illegal.size), replace=False) if illegal.size else []:
        probe = state.clone()
        with pytest.raises(ValueError, match=r"illegal action"):
            probe.apply(int(a))
    for a in (-1, game.num_actions):
        with pytest.raises(ValueError, match=r"illegal action|out of range|must be an int"):
            state.clone().apply(a)


def _soak_one(game: Any, seed: int, round_trip: bool) -> None:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed + 1))
    state_cls = type(state)
    steps = 0
    while not state.is_terminal():
        assert steps < game.max_game_length, "episode exceeded the declared max_game_length"
        player = state.current_player()
        assert 0 <= player < game.num_players
        mask = state.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        assert mask.any(), "the player to act has an empty mask before the end"
        action = random_action(state, rng)
        if round_trip:
            _check_obs(game, state)
            _check_illegal_rejected(game, state, mask, rng)
            before = state_json(state)
            clone = state.clone()
            restored = state_cls.from_dict(json.loads(before))
            assert state_json(restored) == before, "from_dict(to_dict()) changed the state"
            assert np.array_equal(restored.legal_mask(), mask)
            state.apply(action)
            clone.apply(action)
            restored.apply(action)
            after = state_json(state)
            assert state_json(clone) == after, "a clone continued differently"
            assert state_json(restored) == after, "a restored state continued differently"
        else:
            state.apply(action)
        steps += 1
    ret = state.returns()
    lo, hi = game.reward_range
    assert np.all(ret >= lo - 1e-9) and np.all(ret <= hi + 1e-9), f"returns {ret} outside {game.reward_range}"
    if game.zero_sum:
        assert abs(float(np.sum(ret))) < 1e-9, f"returns {ret} do not sum to zero"
    assert not state.legal_mask().any(), "mask not empty after the end"
    with pytest.raises(ValueError, match=r"game is over|after the end"):
        state.clone().apply(0)


def test_random_sim_round_trip(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    game = make_game(name, params)
    for seed in range(ROUND_TRIP_GAMES):
        _soak_one(game, seed, round_trip=True)


def test_random_sim_many_games(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    game = make_game(name, params)
    for seed in range(100, 100 + PLAIN_GAMES):
        _soak_one(game, seed, round_trip=False)


def test_pays_before_end_is_declared(game_config: tuple[str, dict[str, Any]]) -> None:
    """A game whose ``returns()`` pay a seat before the end says so (``pays_before_end``: the
    OpenSpiel adapter's reward model follows it)."""
    name, params = game_config
    game = make_game(name, params)
    early = 0
    for seed in range(200, 210):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            early += bool(np.any(state.returns() != 0))
            state.apply(random_action(state, rng))
    if not type(game).pays_before_end:
        assert early == 0
    elif game.num_players > 2 and name == "over_and_out" and params.get("max_plays", 5000) > 100:
        assert early > 0  # a seat knocked out is paid at once (Over and Out, 3+ players)


def test_env_episode_within_limit_and_returns(game_config: tuple[str, dict[str, Any]]) -> None:
    """Through env(): every agent is done within the declared limit; rewards sum to the engine returns."""
    from envs.core.registry import GAMES

    name, params = game_config
    env = GAMES[name].env(**params)
    game = env.unwrapped.game
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    final_flags: dict[str, tuple[bool, bool]] = {}
    steps = 0
    for agent in env.agent_iter(max_iter=game.max_game_length + game.num_players + 1):
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        if term or trunc:
            assert term != trunc, "an agent is both terminated and truncated"
            final_flags[agent] = (term, trunc)
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    assert not env.agents, "agents left after the declared max_game_length"
    if env.unwrapped.state.is_truncated():
        # the length limit: PettingZoo truncation for everyone still playing then
        assert any(trunc for _term, trunc in final_flags.values()), final_flags
    else:
        assert all(flags == (True, False) for flags in final_flags.values()), final_flags
    final = env.unwrapped.state.returns()
    for seat, a in enumerate(env.possible_agents):
        assert totals[a] == pytest.approx(final[seat]), "paid rewards differ from the engine returns"
