"""Each game's ``evaluate`` (the MCTS depth-cutoff value): shape, range, zero-sum where the
game is, and the returns themselves on a terminal state, over every test config."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.game import Game, GameState
from envs.core.mcts import MCTSBot, share_values
from envs.core.registry import GAMES, installed_games

#: every registered game whose ``Game`` defines the hook (all four today; a new game's joins by itself)
WITH_EVALUATE = [n for n in installed_games() if callable(getattr(GAMES[n].game_class(), "evaluate", None))]
CASES = [(name, cfg) for name in WITH_EVALUATE for cfg in GAMES[name].game_class().test_configs]


def _positions(game: Game[Any, Any], seed: int, every: int = 3) -> tuple[list[GameState], GameState]:
    """Some positions of one seeded random game, and its last (terminal or truncated) state."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed + 1))
    found: list[GameState] = []
    step = 0
    while not state.is_terminal() and step < game.max_game_length:
        if step % every == 0:
            found.append(state.clone())
        legal = np.flatnonzero(state.legal_mask())
        state.apply(int(legal[rng.integers(legal.size)]))
        step += 1
    return found, state


@pytest.mark.parametrize(("name", "cfg"), CASES, ids=[f"{n}-{i}" for i, (n, _c) in enumerate(CASES)])
def test_evaluate_shape_range_zero_sum_and_terminal(name: str, cfg: dict[str, Any]) -> None:
    game: Game[Any, Any] = GAMES[name].game_class()(**cfg)
    lo, hi = game.reward_range
    positions, last = _positions(game, seed=len(str(cfg)))
    for state in positions[:60]:
        before = state.to_dict()
        value = game.evaluate(state)  # type: ignore[attr-defined]
        assert state.to_dict() == before  # evaluating never changes the state
        assert isinstance(value, np.ndarray) and value.dtype == np.float64
        assert value.shape == (game.num_players,)
        assert np.all(np.isfinite(value))
        assert np.all(value >= lo - 1e-9) and np.all(value <= hi + 1e-9)
        if game.zero_sum:
            assert abs(float(value.sum())) < 1e-9
    if last.is_terminal():
        np.testing.assert_array_equal(game.evaluate(last), last.returns())  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", WITH_EVALUATE)
def test_default_depth_uses_the_evaluation(name: str) -> None:
    game: Game[Any, Any] = GAMES[name].game_class()()
    assert MCTSBot(game).depth is not None
    assert MCTSBot(game, depth="full").depth is None


def test_share_values_sum_and_range() -> None:
    rng = np.random.default_rng(0)
    for m in (2, 3, 5):
        for _ in range(50):
            strength = rng.normal(0, 3, m)
            mean = float(rng.uniform(-1, 1))
            v = share_values(strength, mean, -1.0, 1.0)
            assert abs(float(v.sum()) - m * mean) < 1e-9
            assert np.all(v >= -1 - 1e-9) and np.all(v <= 1 + 1e-9)
            assert int(np.argmax(v)) == int(np.argmax(strength))
    assert np.isclose(share_values(np.array([1.0, 0.0]), 0.0, -1.0, 1.0)[0], np.tanh(0.5))
