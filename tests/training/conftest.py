"""Fixtures of the training tests: the toy engine and the real games that are installed."""

from __future__ import annotations

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
