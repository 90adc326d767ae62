"""A static evaluation of an Octi position for the MCTS depth cutoff (``OctiGame.evaluate``).

It reuses the ``heuristic`` bot's knowledge: material and prong supply, progress toward a
free enemy base, and immediate threats (a side that can land on an enemy base next turn).
Zero-sum, in return units: ``[v, -v]`` with ``v = tanh(score / SCALE)`` for seat 0.
"""

from __future__ import annotations

import math

import numpy as np

from envs.octi.bots import _material, _progress, _threat
from envs.octi.rules import OVER, State

SCALE = 12.0  # one pod of material (10) is worth about tanh(0.83) = 0.68
THREAT_MOVER = 40.0  # the side to move reaches an enemy base: almost a win
THREAT_WAITING = 12.0  # the side not to move does: the mover must parry it


def evaluate(st: State) -> np.ndarray:
    if st.phase == OVER:
        return st.returns()
    score = _material(st, 0) + _progress(st, 0) - _progress(st, 1)
    mover = st.to_move
    for seat in (0, 1):
        if _threat(st, seat):
            bonus = THREAT_MOVER if seat == mover else THREAT_WAITING
            score += bonus if seat == 0 else -bonus
    v = math.tanh(score / SCALE)
    return np.array([v, -v], dtype=np.float64)
