"""Stable-Baselines3's own env checker (``stable_baselines3.common.env_checker.check_env``) on
the single-agent view of every game config the games declare for tests.

Gymnasium's ``check_env`` runs in ``test_single_agent.py``; SB3's adds what SB3 itself needs
of a learner's env (spaces it can build a policy for, observations inside them, the reset and
step signatures). Its only warnings are the image advice for Octi's board planes, which
``eightfold train`` feeds to a CNN of its own (``training.policies``), not to SB3's
``CnnPolicy`` with its uint8 images of 36x36 and up.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("stable_baselines3")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

from envs.core.playthrough import config_id  # noqa: E402
from envs.core.registry import GAMES, installed_games  # noqa: E402
from training.single_agent import make_env  # noqa: E402

IMAGE_ADVICE = (
    "is an image but its `dtype`",
    "is an image but the upper and lower bounds",
    "minimal resolution",
)


def _configs() -> list[Any]:
    return [
        pytest.param(name, dict(params), id=f"{name}-{config_id(params)}")
        for name in installed_games()
        for params in GAMES[name].game_class().test_configs
    ]


@pytest.mark.parametrize(("name", "params"), _configs())
def test_sb3s_own_checker_passes(name: str, params: dict[str, Any]) -> None:
    env = make_env(name, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    advice = [str(w.message) for w in caught if "check_env" in w.filename or "env_checker" in w.filename]
    if env.observation_space.shape is not None and len(env.observation_space.shape) == 3:  # Octi's planes
        assert all(any(a in m for a in IMAGE_ADVICE) for m in advice), advice
    else:
        assert advice == []
