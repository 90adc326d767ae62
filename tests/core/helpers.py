"""Shared pieces of the conformance harness."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from envs.core.game import Game, GameState
from envs.core.registry import GAMES


def make_game(name: str, params: dict[str, Any]) -> Game[Any, Any]:
    return GAMES[name].game_class()(**params)  # type: ignore[no-any-return]


def random_action(state: GameState, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(state.legal_mask())
    assert legal.size > 0, "the player to act has no legal action before the end"
    return int(legal[rng.integers(legal.size)])


def state_json(state: GameState) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def position_json(state: GameState) -> str:
    """The state without its generator: what a seat could be dealt, not how chance goes on (a
    check that "the deal changed" must not pass on the generator alone)."""
    d = dict(state.to_dict())
    d.pop("rng", None)
    return json.dumps(d, sort_keys=True)


def play_random(game: Game[Any, Any], seed: int, max_steps: int | None = None) -> list[GameState]:
    """States of one seeded random game, the initial one first."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed + 10_000))
    states = [state.clone()]
    limit = max_steps if max_steps is not None else game.max_game_length
    steps = 0
    while not state.is_terminal() and steps < limit:
        state.apply(random_action(state, rng))
        states.append(state.clone())
        steps += 1
    return states
