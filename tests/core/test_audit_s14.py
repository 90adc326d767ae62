"""PettingZoo conventions a user relies on, checked where the AEC adapter once differed."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.core.game import Game, hides_nothing
from envs.core.registry import GAMES
from tests.core.helpers import state_json


def _episode(env: Any, steps: int) -> list[Any]:
    """The engine state after reset, then ``steps`` random agent steps (rng fixed)."""
    rng = np.random.default_rng(0)
    out = [state_json(env.unwrapped.state)]
    for _ in range(steps):
        if not env.agents:
            break
        obs, rew, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        out.append((env.agent_selection if env.agents else None, rew, state_json(env.unwrapped.state)))
    return out


def _run(name: str) -> list[Any]:
    env = GAMES[name].env()
    env.reset(seed=5)
    out = [_episode(env, 20)]
    for _ in range(2):
        env.reset()
        out.append(_episode(env, 20))
    return out


def test_unseeded_reset_continues_the_seeded_stream(game_name: str) -> None:
    """Gymnasium / PettingZoo seeding: ``reset()`` after ``reset(seed=s)`` continues the stream
    that ``s`` started (rlcard classic envs only reseed when a seed is given), so a run that is
    seeded once is reproducible, while its unseeded episodes still differ from one another."""
    first, second = _run(game_name), _run(game_name)
    assert first == second
    env = GAMES[game_name].env()
    if not hides_nothing(env.unwrapped.game):  # a game of chance: the unseeded episodes are new deals
        starts = []
        for episode in first:
            start = json.loads(episode[0])
            start.pop("rng", None)  # a new generator alone is no new deal
            starts.append(json.dumps(start, sort_keys=True))
        assert len(set(starts)) == len(starts)


def test_metadata_like_classic(game_name: str) -> None:
    """PettingZoo classic metadata: name, render_modes, is_parallelizable and render_fps
    (read by video recorders), the same through ``env()`` and on the raw class."""
    env = GAMES[game_name].env()
    for metadata in (env.metadata, GAMES[game_name].raw_env_class().metadata):
        assert metadata["name"] == f"{game_name}_v0"
        assert set(metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
        assert metadata["is_parallelizable"] is False
        assert isinstance(metadata["render_fps"], int) and metadata["render_fps"] > 0


def test_notation_before_reset(game_name: str) -> None:
    """OTTO Game Over's and Otto the Octopus's §8 notation holds "whatever the state", so the
    env answers before the first ``reset()`` exactly as after it; the other two games name
    squares or cards of the position and say that ``reset()`` comes first."""
    name = game_name
    env = GAMES[name].env()
    # a game with state-free notation overrides the Game-level hooks (any new game too)
    state_free = GAMES[name].game_class().action_to_string is not Game.action_to_string
    n = env.action_space(env.possible_agents[0]).n
    indices = [0, 1, n // 2, n - 1]
    if not state_free:
        with pytest.raises(RuntimeError, match="reset"):
            env.unwrapped.action_to_string(0)
        with pytest.raises(RuntimeError, match="reset"):
            env.unwrapped.string_to_action("bust")
        return
    before = [env.unwrapped.action_to_string(a) for a in indices]
    assert [env.unwrapped.string_to_action(s) for s in before] == indices
    assert env.unwrapped.action_to_string(n) == f"illegal {n}"
    with pytest.raises(ValueError, match=r"malformed action"):
        env.unwrapped.string_to_action("no such move")
    env.reset(seed=3)
    assert [env.unwrapped.action_to_string(a) for a in indices] == before
