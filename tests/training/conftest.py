"""Fixtures of the training tests: the toy engine and the real games that are installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envs.core.bots import RandomBot
from envs.core.registry import installed_games
from tests.training.toy_game import ToyGame

TOY_BOTS: dict[str, Any] = {"random": RandomBot}


@pytest.fixture
def toy_bots() -> dict[str, Any]:
    return dict(TOY_BOTS)


def first_two_player_game() -> tuple[str, dict[str, Any]] | None:
    """The game the CLI smoke tests run on: Over and Out (2 players) if present, else Octi."""
    games = installed_games()
    for name, params in (("over_and_out", {"num_players": 2}), ("octi", {})):
        if name in games:
            return name, params
    for name in games:
        return name, {}
    return None


__all__ = ["TOY_BOTS", "ToyGame", "first_two_player_game"]


@pytest.fixture(scope="module")
def octi_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained MaskablePPO model of Octi (``max_turns: 8``): its move probabilities are
    spread, so a sampled game strays from the most likely moves."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from envs.core.registry import GAMES
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    game = GAMES["octi"].game_class()(max_turns=8)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    env = SingleAgentEnv(game, pool)
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), policy_kwargs={"net_arch": [8]}, seed=0)
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    return path
