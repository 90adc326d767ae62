"""Checks of the single-agent view that run on any engine (the toy and every real game)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.bots import RandomBot
from envs.core.game import Game, GameState
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv


class Recorder:
    """Wraps a player and logs ``(seat, action)`` of every move into a shared list."""

    def __init__(self, inner: Any, log: list[tuple[int, int]]) -> None:
        self.inner, self.log = inner, log

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        a = int(self.inner.act(state, player, rng))
        self.log.append((player, a))
        return a


def random_view(game: Game[Any, Any], log: list[tuple[int, int]] | None = None, **kw: Any) -> SingleAgentEnv:
    """The view with uniformly random opponents (recorded into ``log`` if given)."""
    pool = None
    if game.num_players > 1:
        pool = OpponentPool()
        bot: Any = RandomBot(game)
        pool.add("random", "random", Recorder(bot, log) if log is not None else bot)
    return SingleAgentEnv(game, pool, **kw)


def play_episode(
    env: SingleAgentEnv,
    rng: np.random.Generator,
    log: list[tuple[int, int]] | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One episode with random legal learner moves; returns what the tests need."""
    obs, info = env.reset(seed=seed, options=options)
    seen = [(obs, env.action_masks().astype(np.int8))]
    rewards: list[float] = []
    while True:
        legal = np.flatnonzero(env.action_masks())
        a = int(legal[rng.integers(legal.size)])
        if log is not None:
            log.append((env.seat, a))
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        assert env.observation_space.contains(obs)
        if term or trunc:
            return {"rewards": rewards, "info": info, "seen": seen, "term": term, "trunc": trunc}
        seen.append((obs, env.action_masks().astype(np.int8)))


def check_rewards_sum_to_return(game: Game[Any, Any], episodes: int, seed: int = 0) -> None:
    """Every episode's rewards sum to the learner's own return, whatever ends it."""
    env = random_view(game)
    rng = np.random.default_rng(seed)
    for ep in range(episodes):
        out = play_episode(env, rng, seed=seed + ep)
        final = float(env.state.returns()[env.seat])
        assert abs(sum(out["rewards"]) - final) < 1e-9, (sum(out["rewards"]), final)
        assert out["info"]["return"] == final
        assert out["info"]["outcome"] in ("win", "draw", "loss")


def check_matches_aec(game: Game[Any, Any], raw_env: Any, seed: int, seat: int) -> None:
    """Same seed and moves: the view's observations and masks equal the AEC env's."""
    log: list[tuple[int, int]] = []
    env = random_view(game, log)
    out = play_episode(env, np.random.default_rng(seed + 1), log, seed=seed, options={"seat": seat})
    raw_env.reset(seed=seed)
    agent = raw_env.possible_agents[seat]
    decisions = iter(out["seen"])
    for mover, action in log:
        while raw_env.agents and (
            raw_env.terminations[raw_env.agent_selection] or raw_env.truncations[raw_env.agent_selection]
        ):
            raw_env.step(None)
        assert raw_env.agent_selection == raw_env.possible_agents[mover]
        if mover == seat:
            obs, mask = next(decisions)
            got = raw_env.observe(agent)
            np.testing.assert_array_equal(got["observation"], obs)
            np.testing.assert_array_equal(got["action_mask"], mask)
        raw_env.step(action)
    assert next(decisions, None) is None
    np.testing.assert_array_equal(raw_env.state.returns(), env.state.returns())
