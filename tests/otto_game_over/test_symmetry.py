"""The board's three turns (``Game.symmetries()``): a turned position is observed and masked
exactly as the symmetry's gathers say, and play with the turned moves stays in step.

The turned position (``helpers.turned``) is built independently of the gathers: the state's own dict
(``to_dict``) with every tile moved to the turned square in the next orientation and every
closed shape to the turned vertex, loaded back with ``from_dict`` (which traces the board
afresh, OGO-05/06).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.otto_game_over.game import OttoGameOverGame
from tests.otto_game_over.helpers import turned


def test_the_symmetries_are_the_three_turns() -> None:
    syms = OttoGameOverGame().symmetries()
    assert [s.name for s in syms] == ["quarter turn clockwise", "half turn", "quarter turn anticlockwise"]
    one = syms[0]
    for k, sym in enumerate(syms, start=1):
        obs, act = np.arange(one.obs_index.size), np.arange(one.action_index.size)
        for _ in range(k):
            obs, act = obs[one.obs_index], act[one.action_index]
        assert np.array_equal(sym.obs_index, obs) and np.array_equal(sym.action_index, act)
    four_obs, four_act = np.arange(one.obs_index.size), np.arange(one.action_index.size)
    for _ in range(4):
        four_obs, four_act = four_obs[one.obs_index], four_act[one.action_index]
    assert np.array_equal(four_obs, np.arange(four_obs.size)), "four quarter turns are the identity"
    assert np.array_equal(four_act, np.arange(four_act.size))
    # a placement on a1 in r0 is a placement on a5 in r1 after a clockwise quarter turn
    g = OttoGameOverGame()
    st = g.new_initial_state(np.random.default_rng(0))
    a1_r0 = st.string_to_action("drawn a1 r0")
    assert int(one.action_index[st.string_to_action("drawn a5 r1")]) == a1_r0
    leap = st.string_to_action("card quantum-leap b1 e2 r3")
    assert int(one.action_index[st.string_to_action("card quantum-leap a4 b1 r0")]) == leap


@pytest.mark.parametrize("params", OttoGameOverGame.test_configs, ids=str)
def test_a_turned_position_is_observed_and_masked_as_the_gathers_say(params: dict[str, Any]) -> None:
    """Every seat's observation and the legal mask (OGO-01/02/11/12/14/58: where a tile may
    go, must score, must close an 8) of the turned position, on every position of seeded
    random games, under each of the three turns."""
    game = OttoGameOverGame(**params)
    syms = game.symmetries()
    states = 0
    seed = 0
    while states < 300:
        rng = np.random.default_rng(seed)
        st = game.new_initial_state(rng)
        seed += 1
        while not st.is_terminal() and states < 60 * seed:
            sym = syms[states % 3]
            image = turned(st, states % 3 + 1)
            for seat in range(game.num_players):
                assert np.array_equal(game.observe(image, seat), game.observe(st, seat)[sym.obs_index])
            assert np.array_equal(image.legal_mask(), st.legal_mask()[sym.action_index])
            legal = st.legal_actions()
            st.apply(legal[rng.integers(len(legal))])
            states += 1
    assert seed < 40


def test_play_stays_in_step() -> None:
    """The turned game played with the turned moves stays the image of the game, move for
    move, across matches to the end (the engine's own generator deals the same tiles and
    cards to both)."""
    game = OttoGameOverGame(num_players=3, target_score=8)
    sym = game.symmetries()[0]
    inverse = np.argsort(sym.action_index)
    steps = matches = 0
    for seed in range(10):
        st = game.new_initial_state(np.random.default_rng(seed))  # the engine's generator
        image = turned(st, 1)
        pick = np.random.default_rng(100 + seed)  # the moves' own stream
        while not st.is_terminal():
            legal = st.legal_actions()
            a = legal[pick.integers(len(legal))]
            st.apply(a)
            image.apply(int(inverse[a]))
            for seat in range(game.num_players):
                assert np.array_equal(game.observe(image, seat), game.observe(st, seat)[sym.obs_index])
            steps += 1
        assert image.is_terminal() and np.array_equal(image.returns(), st.returns())
        matches += st.matches
    assert steps > 300 and matches > 10, (steps, matches)
