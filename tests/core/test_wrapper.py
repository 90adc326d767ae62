"""``env()``'s one-layer StandardWrapper behaves exactly like PettingZoo classic's
TerminateIllegalWrapper + AssertOutOfBoundsWrapper + OrderEnforcingWrapper stack."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from envs.core.registry import GAMES


def _classic(name: str) -> Any:
    e = GAMES[name].raw_env_class()()
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _run(env: Any, seed: int, illegal_at: int) -> list[Any]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for i, agent in enumerate(env.agent_iter()):
        obs, rew, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        pool = np.flatnonzero(mask == 0) if i == illegal_at and not mask.all() else np.flatnonzero(mask)
        env.step(int(pool[rng.integers(pool.size)]))
    out.append(sorted(env.rewards.items()))
    return out


@pytest.mark.parametrize("illegal_at", [-1, 0, 5])
def test_same_as_pettingzoo_stack(game_name: str, illegal_at: int) -> None:
    for seed in range(2):
        assert _run(GAMES[game_name].env(), seed, illegal_at) == _run(_classic(game_name), seed, illegal_at)


def test_order_enforced(game_name: str) -> None:
    env = GAMES[game_name].env()
    with pytest.raises(AttributeError):
        _ = env.agent_selection
    with pytest.raises(AttributeError):
        env.last()
