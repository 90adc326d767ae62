"""Engine-protocol promises a user audit (2026-12-03) found broken in one game or another;
each test runs on every game and test config and failed on the code before its fix."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES


def _states(name: str, params: dict[str, Any], count: int = 6) -> list[Any]:
    """The first state and a few later ones of a seeded random game."""
    game = GAMES[name].game_class()(**params)
    state = game.new_initial_state(np.random.default_rng(5))
    rng = np.random.default_rng(6)
    out = [state.clone()]
    for _ in range(count - 1):
        for _ in range(7):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        out.append(state.clone())
    return out


def test_a_bool_is_never_an_action(game_config: tuple[str, dict[str, Any]]) -> None:
    """``apply(True)`` was played as action 1 by two engines (the others and the AEC env refuse
    it): a bool is an int to Python, never an action here."""
    name, params = game_config
    for state in _states(name, params, 3):
        if state.is_terminal():
            continue
        before = state.to_dict()
        for bad in (True, False, np.True_, np.False_):
            # refused as no int, not as an illegal move (actions 0 and 1 are often illegal,
            # which let an engine that played True as 1 pass)
            with pytest.raises(ValueError, match=r"action must be an int"):
                state.apply(bad)
            assert state.to_dict() == before


def test_a_bool_is_never_named_as_an_action(game_config: tuple[str, dict[str, Any]]) -> None:
    """``action_to_string(True)`` printed Over and Out's legal ``play 1`` although ``apply(True)``
    is refused, so a tool that prints a move before playing it showed one the engine rejects.
    It bit only where action 0 or 1 is legal (the indices a bool could pass for), which random
    games reach in every game but Otto the Octopus (whose 0 and 1 place a straight at a1 and b1)."""
    name, params = game_config
    game = GAMES[name].game_class()(**params)
    rng = np.random.default_rng(11)
    for episode in range(20):
        state = game.new_initial_state(np.random.default_rng(episode))
        for _ in range(60):
            if state.is_terminal():
                break
            for bad in (True, False, np.True_, np.False_):
                assert state.action_to_string(bad).startswith("illegal")
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))


def test_returns_are_a_fresh_writable_array(game_config: tuple[str, dict[str, Any]]) -> None:
    """Otto the Octopus handed out one shared read-only array of zeros until the end, so
    search code that edits returns in place failed there only."""
    name, params = game_config
    for state in _states(name, params, 3):
        r = state.returns()
        assert r.flags.writeable and r.dtype == np.float64
        r += 1.0
        assert not np.array_equal(state.returns(), r)


def test_clone_is_independent_of_a_generator_handed_out_before(
    game_config: tuple[str, dict[str, Any]],
) -> None:
    """Octi's clone shared the generator of the original copy-on-access, so drawing from a
    reference to ``state.rng`` taken before the clone moved the clone's generator too."""
    name, params = game_config
    state = _states(name, params, 1)[0]
    gen = state.rng
    child = state.clone()
    before = copy.deepcopy(child.to_dict())
    gen.random(5)
    assert child.to_dict() == before
    grandchild = child.clone()
    child.rng.random(5)
    assert grandchild.to_dict() == before


def test_legal_indices_is_flatnonzero_of_the_mask() -> None:
    """``legal_indices`` (the scan every bot and the MCTS use) equals ``np.flatnonzero`` on the
    game's ``int8`` masks, on ``bool`` masks and on any nonzero value, for every game."""
    from envs.core.game import legal_indices

    rng = np.random.default_rng(3)
    for name in GAMES:
        game = GAMES[name].game_class()()
        state = game.new_initial_state(np.random.default_rng(0))
        for _ in range(30):
            if state.is_terminal():
                break
            mask = state.legal_mask()
            legal = legal_indices(mask)
            assert mask.dtype == np.int8 and np.array_equal(legal, np.flatnonzero(mask)), name
            assert np.array_equal(legal_indices(mask.astype(bool)), legal)
            assert state.legal_actions() == [int(a) for a in legal]
            state.apply(int(legal[rng.integers(legal.size)]))
    odd = np.array([0, 2, 0, -1, 1], dtype=np.int8)
    assert legal_indices(odd).tolist() == [1, 3, 4] and legal_indices(np.zeros(0, np.int8)).size == 0
