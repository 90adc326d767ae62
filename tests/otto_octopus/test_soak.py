"""Random games: clone / to_dict round trips, hidden information, mask vs. ``explain``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.otto_octopus.board import NUM_KINDS
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import PASS, State


@pytest.mark.parametrize("params", OttoOctopusGame.test_configs)
def test_random_games_round_trip(params: dict[str, Any]) -> None:
    game = OttoOctopusGame(**params)
    rng = np.random.default_rng(11)
    for seed in range(3):
        st = game.new_initial_state(np.random.default_rng(seed))
        steps = 0
        while not st.is_terminal():
            p = st.current_player()
            mask = st.legal_mask()
            assert st.pile_counts == [st.pile.count(k) for k in range(NUM_KINDS)]
            back = State.from_dict(json.loads(json.dumps(st.to_dict())))
            assert back.snapshot() == st.snapshot() and np.array_equal(back.legal_mask(), mask)
            for seat in range(game.num_players):
                obs = game.observe(st, seat)
                assert obs.shape == game.observation_shape and obs.min() >= -1 and obs.max() <= 1
                other = game.resample_hidden(st, seat, rng)
                assert np.array_equal(game.observe(other, seat), obs)
                assert other.hands[seat] == st.hands[seat]
            assert np.array_equal(game.resample_hidden(st, p, rng).legal_mask(), mask)
            legal_a = np.flatnonzero(mask)
            a = int(legal_a[rng.integers(legal_a.size)])
            twin = st.clone()
            st.apply(a)
            twin.apply(a)
            assert twin.snapshot() == st.snapshot()
            steps += 1
        assert steps <= game.max_game_length
        ret = st.returns()
        if game.zero_sum:
            assert abs(ret.sum()) < 1e-9


def test_mask_agrees_with_explain() -> None:
    """The fast mask (numpy, incremental) and the slow ``explain`` give the same answers."""
    for params in ({}, {"simplified": True}):
        game = OttoOctopusGame(**params)
        rng = np.random.default_rng(2)
        for seed in range(6):
            st = game.new_initial_state(np.random.default_rng(seed))
            while not st.is_terminal():
                full = np.zeros(1106, dtype=np.int8)
                st.ocean.fill_placements(full, set(range(NUM_KINDS)), game.config.fish_rules)
                for a in range(PASS):
                    why = st.ocean.explain(a >> 6, a & 63, game.config.fish_rules)
                    assert (why is None) == bool(full[a]), (a, why)
                legal_a = np.flatnonzero(st.legal_mask())
                st.apply(int(legal_a[rng.integers(legal_a.size)]))
