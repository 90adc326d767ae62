"""Scripted Over and Out players: ``random``, ``greedy`` and ``heuristic``.

They read only what the seat may see at the table: its own hand, T, L, the values left
in the Tip Top pile (public: OAO-30), the chips of every seat and the player count —
never another hand or the order of a pile.

* ``greedy`` — the best immediate outcome: least risk of losing the round with this very
  play (bust, an unlucky Topsy Turvy, ``-10`` below 10), then the highest T / L left to
  the next player.
* ``heuristic`` — a good player's rules of thumb: no needless risk; keep the cards that
  are always playable (``top-out`` > ``0`` = ``spin-out`` > ``-10`` > ``topsy-turvy``) as
  escapes and play number cards while they fit, the largest that fits first; use
  ``top-out`` as an attack only while another escape card stays in hand; prefer plays that
  leave T high for the next player (never ``-10`` while a number card fits).
"""

from __future__ import annotations

import numpy as np

from envs.core.bots import BotFactory, RandomBot, ScoringBot
from envs.core.game import GameState
from envs.over_and_out.cards import BUST, MINUS10, SPIN_OUT, TOP_OUT, TOPSY_TURVY, X2
from envs.over_and_out.rules import State

#: how much a player wants to keep a card kind in hand (escapes high, big numbers low)
KEEP_VALUE: tuple[float, ...] = (3.0, 0.8, 0.6, 0.4, 0.2, 0.0, 0.5, 2.5, 3.0, 4.0, 2.0)


def _topsy_outcomes(state: State) -> list[int]:
    """The Tip Top values Topsy Turvy may turn up (public: OAO-29, OAO-30)."""
    return list(state.tiptop_pile) if state.tiptop_pile else list(state.tiptop_discards)


def immediate(state: State, action: int) -> tuple[float, float]:
    """(risk of losing the round with this play, expected T / L left to the next player)."""
    t, limit = state.total, state.tiptop
    if action == BUST:
        return 1.0, 0.0
    if action <= 5:
        return 0.0, (t + action) / limit
    if action == X2:
        return 0.0, 2 * t / limit
    if action == MINUS10:
        return (1.0, 0.0) if t < 10 else (0.0, (t - 10) / limit)
    if action == TOP_OUT:
        return 0.0, 1.0
    if action == TOPSY_TURVY:
        values = _topsy_outcomes(state)
        safe = [v for v in values if v >= t]
        risk = 1.0 - len(safe) / len(values)
        return risk, (float(np.mean([t / v for v in safe])) if safe else 0.0)
    return 0.0, t / limit  # 0, spin-out


class GreedyBot(ScoringBot):
    """Least immediate risk, then the most pressure on the next player."""

    name = "greedy"
    game_name = "over_and_out"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, State)
        risk, pressure = immediate(state, action)
        return -10.0 * risk + pressure


class HeuristicBot(ScoringBot):
    """Rules of thumb (module docstring)."""

    name = "heuristic"
    game_name = "over_and_out"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, State)
        risk, pressure = immediate(state, action)
        if action == BUST:
            return -100.0
        score = -100.0 * risk - 0.5 * KEEP_VALUE[action] + 3.0 * pressure
        if action == TOP_OUT and state.total < state.tiptop:
            escapes = sum(1 for k in state.hands[player] if k in (0, SPIN_OUT, TOP_OUT)) - 1
            if escapes >= 1:  # attack only with another escape card in hand for the reply
                score += 6.0
        return score


BOTS: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}
