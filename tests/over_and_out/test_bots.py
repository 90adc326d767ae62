"""Bots: legal, honest (blind to hidden cards), and the heuristic beats random."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.arena import play_match
from envs.core.bots import make_bot
from envs.over_and_out.bots import BOTS
from envs.over_and_out.game import OverAndOutGame


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bots_play_legal_and_blind(name: str) -> None:
    """Each bot plays legal moves and chooses the same action on any re-deal of what it cannot see."""
    game = OverAndOutGame(num_players=3)
    bot = make_bot(game, name, BOTS)
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        p = state.current_player()
        seed = int(rng.integers(2**31))
        action = bot.act(state, p, np.random.default_rng(seed))
        assert state.legal_mask()[action]
        other = game.resample_hidden(state, p, rng)
        assert bot.act(other, p, np.random.default_rng(seed)) == action
        state.apply(action)


@pytest.mark.parametrize("n", [2, 4])
def test_heuristic_beats_random(n: int) -> None:
    """Short check (the docstring numbers come from 500-game matches)."""
    game = OverAndOutGame(num_players=n)
    bots = [BOTS["heuristic"](game)] + [BOTS["random"](game) for _ in range(n - 1)]
    result = play_match(game, bots, games=40, seed=3)
    assert result.win_rate > (0.65 if n == 2 else 0.45)
