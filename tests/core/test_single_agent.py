"""The training layer's single-agent view (``training.single_agent``) on every game and
config of the harness: Gymnasium's ``check_env``, rewards that sum to the learner's own
return, and observations/masks identical to the AEC env for the same seed and moves."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from envs.core.registry import GAMES  # noqa: E402
from tests.core.helpers import make_game  # noqa: E402
from tests.training.sa_checks import (  # noqa: E402
    check_matches_aec,
    check_rewards_sum_to_return,
    random_view,
)


def test_check_env(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    check_env(random_view(make_game(name, params)), skip_render_check=True)


def test_rewards_sum_to_the_learners_return(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    check_rewards_sum_to_return(make_game(name, params), episodes=3)


def test_matches_the_aec_env(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    game = make_game(name, params)
    for seed in range(2):
        raw = GAMES[name].raw_env_class()(**params)
        check_matches_aec(game, raw, seed=seed, seat=(seed + 1) % game.num_players)
