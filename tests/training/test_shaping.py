"""Potential-based reward shaping in the single-agent view (``shaping=k``)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.bots import RandomBot
from envs.core.registry import get_game
from tests.training.toy_game import ToyGame
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv

GAMES = ["otto_octopus", "over_and_out", "octi", "otto_game_over"]


def _view(name: str, shaping: float, gamma: float = 1.0) -> SingleAgentEnv:
    entry = get_game(name)
    params = {"num_players": 2, "episode": "match"} if name == "otto_game_over" else {}
    if name in ("otto_octopus", "over_and_out"):
        params = {"num_players": 2}
    game = entry.game_class()(**params)
    return SingleAgentEnv(
        game, OpponentPool.from_specs(game, ["random"], entry.bots()), shaping=shaping, gamma=gamma
    )


@pytest.mark.parametrize("name", GAMES)
def test_shaped_rewards_telescope_to_the_true_return(name: str) -> None:
    """With gamma = 1 the shaping terms telescope: sum of rewards = return - k * phi(s0);
    the observations, masks and the true return are those of the unshaped view."""
    k = 0.7
    plain, shaped = _view(name, 0.0), _view(name, k)
    for seed in range(3):
        o1, _ = plain.reset(seed=seed)
        o2, _ = shaped.reset(seed=seed)
        phi0 = float(shaped.game.evaluate(shaped.state)[shaped.seat])  # type: ignore[attr-defined]
        rng = np.random.default_rng(seed)
        total_plain = total_shaped = 0.0
        differ = 0  # steps whose shaped reward is not the plain one (phi0 is 0 in the Otto games)
        done = False
        while not done:
            assert np.array_equal(o1, o2)
            mask = plain.action_masks()
            assert np.array_equal(mask, shaped.action_masks())
            a = int(rng.choice(np.flatnonzero(mask)))
            o1, r1, d1, t1, info1 = plain.step(a)
            o2, r2, d2, t2, info2 = shaped.step(a)
            assert (d1, t1) == (d2, t2)
            total_plain += r1
            total_shaped += r2
            differ += r1 != pytest.approx(r2)
            done = d1 or t1
        assert info1["return"] == info2["return"] == pytest.approx(total_plain)
        assert info1["outcome"] == info2["outcome"]
        assert total_shaped == pytest.approx(total_plain - k * phi0)
        assert differ > 0  # the shaping terms are there, not only their telescoped sum


def test_shaping_rewards_progress_within_a_game() -> None:
    """Shaping is not a no-op: some step rewards of a shaped game are non-zero before the end."""
    env = _view("otto_octopus", 1.0, gamma=0.99)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    rewards = []
    done = False
    while not done:
        _o, r, d, t, _i = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(r)
        done = d or t
    assert any(abs(r) > 1e-6 for r in rewards[:-1])


@pytest.mark.parametrize(
    ("kw", "word"), [({"shaping": -1.0}, "shaping"), ({"shaping": 1.0, "gamma": 0.0}, "gamma")]
)
def test_bad_shaping_parameters_name_themselves(kw: dict[str, float], word: str) -> None:
    entry = get_game("otto_octopus")
    game = entry.game_class()()
    with pytest.raises(ValueError, match=word):
        SingleAgentEnv(game, OpponentPool.from_specs(game, ["random"], entry.bots()), **kw)


def test_shaping_needs_an_evaluation() -> None:
    game = ToyGame(num_players=2)
    with pytest.raises(ValueError, match="evaluate"):
        SingleAgentEnv(game, OpponentPool.from_specs(game, ["random"], {"random": RandomBot}), shaping=1.0)
