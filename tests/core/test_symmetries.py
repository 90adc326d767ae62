"""``Game.symmetries()``: whatever a game declares is a pair of permutations of its spaces."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.registry import GAMES


def test_declared_symmetries_are_permutations_of_the_spaces(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    game = GAMES[name].game_class()(**params)
    n_obs = int(np.prod(game.observation_shape))
    names = set()
    for sym in game.symmetries():
        assert sym.name and sym.name not in names
        names.add(sym.name)
        assert sym.obs_index.dtype == np.int64 and sym.action_index.dtype == np.int64
        assert np.array_equal(np.sort(sym.obs_index), np.arange(n_obs)), "a permutation of the observation"
        assert np.array_equal(np.sort(sym.action_index), np.arange(game.num_actions)), (
            "a permutation of the actions"
        )
        assert not (
            np.array_equal(sym.obs_index, np.arange(n_obs))
            and np.array_equal(sym.action_index, np.arange(game.num_actions))
        ), "the identity is implied, not declared"
