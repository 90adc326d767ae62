"""Helpers for the Over and Out tests: stacked deals through ``env()`` and the engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State
from envs.over_and_out_v0 import env


def table(
    deck_top: list[str] | None = None, tiptop_top: list[int] | None = None, seed: int = 0, **params: Any
) -> Any:
    """A reset ``env()`` with the spec §6 reset options."""
    e = env(**params)
    options: dict[str, Any] = {}
    if deck_top is not None:
        options["deck_top"] = deck_top
    if tiptop_top is not None:
        options["tiptop_top"] = tiptop_top
    e.reset(seed=seed, options=options)
    return e


def legal(e: Any) -> set[str]:
    """Canonical strings of the legal actions of the agent to act; checks the observed mask too."""
    raw = e.unwrapped
    mask = raw.state.legal_mask()
    obs, *_ = e.last()
    assert np.array_equal(obs["action_mask"], mask)
    return {raw.action_to_string(int(a)) for a in np.flatnonzero(mask)}


def play(e: Any, text: str) -> None:
    """Step the agent to act with the action written ``text`` (must be legal)."""
    assert e.agent_selection == f"player_{e.unwrapped.state.current_player()}"
    e.step(e.unwrapped.string_to_action(text))


def snap(e: Any) -> dict[str, Any]:
    return e.unwrapped.snapshot()  # type: ignore[no-any-return]


def engine(
    deck_top: list[str] | None = None,
    tiptop_top: list[int] | None = None,
    seed: int = 0,
    total: int | None = None,
    **params: Any,
) -> State:
    """An engine state with a stacked first deal and optionally a forced total T."""
    game = OverAndOutGame(**params)
    options = {"deck_top": deck_top or [], "tiptop_top": tiptop_top or []}
    state = game.new_initial_state(np.random.default_rng(seed), options)
    if total is not None:
        state.total = total
        state._bits = -1
    return state


def legal_strings(state: State) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def finish_randomly(e: Any, seed: int = 0) -> dict[str, float]:
    """Play the env to the end with random legal actions; total reward per agent (from now)."""
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        totals[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        actions = np.flatnonzero(obs["action_mask"])
        e.step(int(actions[rng.integers(actions.size)]))
    return totals
