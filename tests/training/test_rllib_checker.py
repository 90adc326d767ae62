"""RLlib's own env checker on the multi-agent env, and the illegal-action convention that
lets it pass.

``ray.rllib.utils.pre_checks.env.check_multiagent_environments`` resets the env and steps it
with ``action_space.sample()``, a move the mask may forbid. The env answers an illegal action
as the AEC env's ``env()`` does (OCT-48, OAO-43, OGO-63, OTP-44: the mover -1, every other
learning agent 0, all terminated); it raised the engine's ``ValueError`` before, which the
checker reported as "the `step()` method seems to be faulty". Skipped without the ``rllib``
extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from envs.core.playthrough import config_id  # noqa: E402
from envs.core.registry import GAMES, installed_games  # noqa: E402
from training.rllib.env import EightfoldMultiAgentEnv  # noqa: E402


def _configs() -> list[Any]:
    out = []
    for name in installed_games():
        for params in GAMES[name].game_class().test_configs:
            out.append(pytest.param(name, dict(params), id=f"{name}-{config_id(params)}"))
    return out


@pytest.mark.parametrize(("name", "params"), _configs())
@pytest.mark.parametrize("opponents", ["self", "random"])
def test_rllibs_own_checker_passes(name: str, params: dict[str, Any], opponents: str) -> None:
    if opponents == "random" and GAMES[name].game_class()(**params).num_players == 1:
        pytest.skip("a solo game has no opponent")
    for seed in range(3):  # the checker's sampled actions differ with the space's own stream
        env = EightfoldMultiAgentEnv({"game": name, "params": params, "opponents": opponents, "seed": seed})
        for space in env.action_spaces.values():
            space.seed(seed)
        check_multiagent_environments(env)


def _illegal_and_legal(env: EightfoldMultiAgentEnv, agent: str, obs: dict[str, Any]) -> tuple[int, int]:
    mask = obs[agent]["action_mask"]
    return int(np.flatnonzero(mask == 0)[0]), int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name", installed_games())
def test_an_illegal_action_ends_the_episode_the_aec_way(name: str) -> None:
    """Every seat an RLlib agent (self-play, 2 players): the mover -1, the other 0, both
    terminated, the engine state untouched; a further step is refused until ``reset``."""
    params = {"num_players": 2} if name != "octi" else {}
    env = EightfoldMultiAgentEnv({"game": name, "params": params, "opponents": "self"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    before = env.state.to_dict()
    illegal, legal = _illegal_and_legal(env, agent, obs)
    obs, rewards, terms, truncs, infos = env.step({agent: illegal})
    other = next(a for a in env.possible_agents if a != agent)
    assert rewards == {agent: -1.0, other: 0.0}
    assert terms == {agent: True, other: True, "__all__": True}
    assert truncs == {"__all__": False}
    assert set(obs) == {agent, other} and not any(o["action_mask"].any() for o in obs.values())
    assert env.state.to_dict() == before
    with pytest.raises(ValueError, match="ended on an illegal action; call reset"):
        env.step({agent: legal})
    obs, _ = env.reset(seed=0)  # and a new episode plays on
    (agent,) = obs
    env.step({agent: _illegal_and_legal(env, agent, obs)[1]})


def test_an_illegal_action_against_a_bot_pays_only_the_learner() -> None:
    env = EightfoldMultiAgentEnv(
        {"game": "over_and_out", "params": {"num_players": 3}, "opponents": "random"}
    )
    obs, _ = env.reset(seed=4)
    (agent,) = obs
    obs, rewards, terms, _truncs, _ = env.step({agent: _illegal_and_legal(env, agent, obs)[0]})
    assert rewards == {agent: -1.0} and terms == {agent: True, "__all__": True} and set(obs) == {agent}


@pytest.mark.parametrize("bad", [-1, 12, 2.0, True, np.bool_(False), np.array([3]), "3", None])
def test_an_action_outside_the_space_is_a_value_error(bad: Any) -> None:
    """Not an illegal move but no move at all: refused, naming the agent and the range; a float
    is never truncated to an index, a bool is no index."""
    env = EightfoldMultiAgentEnv({"game": "over_and_out", "params": {"num_players": 2}, "opponents": "self"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    before = env.state.to_dict()
    with pytest.raises(ValueError, match=rf"action of {agent} must be an int in \[0, 12\), got "):
        env.step({agent: bad})
    assert env.state.to_dict() == before


@pytest.mark.parametrize("kind", [np.int64, np.uint16, np.uint64, np.array, int])
def test_integer_actions_of_every_kind_play(kind: Any) -> None:
    """A Python int, numpy integers and a 0-d integer array play the same move."""
    config = {"game": "otto_octopus", "params": {"num_players": 2}, "opponents": "self"}
    env, plain = EightfoldMultiAgentEnv(config), EightfoldMultiAgentEnv(config)
    obs, _ = env.reset(seed=0)
    plain.reset(seed=0)
    (agent,) = obs
    legal = int(np.flatnonzero(obs[agent]["action_mask"])[-1])
    start = env.state.to_dict()
    env.step({agent: kind(legal)})
    plain.step({agent: legal})
    assert env.state.to_dict() == plain.state.to_dict() != start


@pytest.mark.parametrize("seed", [True, "3", -1, 1.5])
def test_a_bad_reset_seed_is_named(seed: Any) -> None:
    """As ``env()``'s reset: a bool, text, a negative number or a float is no seed, and the
    message names ``seed`` (numpy's own messages did not, and ``True`` seeded as 1)."""
    env = EightfoldMultiAgentEnv({"game": "over_and_out", "params": {"num_players": 2}})
    with pytest.raises(ValueError, match=r"seed must be an int >= 0, got "):
        env.reset(seed=seed)


def test_a_config_without_a_game_is_named() -> None:
    with pytest.raises(ValueError, match="env_config must name the game"):
        EightfoldMultiAgentEnv({"params": {"num_players": 2}})
