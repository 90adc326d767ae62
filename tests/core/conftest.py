"""The conformance harness is parametrised over every registered game that exists and
every ``test_configs`` entry its ``Game`` declares (a game declares them once)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.core.playthrough import config_id
from envs.core.registry import GAMES, installed_games


def available_games() -> list[str]:
    return installed_games()


def game_configs() -> list[Any]:
    out = []
    for name in available_games():
        for params in GAMES[name].game_class().test_configs:
            out.append(pytest.param((name, dict(params)), id=f"{name}-{config_id(params)}"))
    return out


def golden_configs() -> list[Any]:
    out = []
    for name in available_games():
        for params in GAMES[name].game_class().golden_configs:
            out.append(pytest.param((name, dict(params)), id=f"{name}-{config_id(params)}"))
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "game_config" in metafunc.fixturenames:
        metafunc.parametrize("game_config", game_configs())
    if "golden_config" in metafunc.fixturenames:
        metafunc.parametrize("golden_config", golden_configs())
    if "game_name" in metafunc.fixturenames:
        metafunc.parametrize("game_name", available_games())
