"""A static evaluation of an Otto the Octopus position for the MCTS depth cutoff.

The final-score margin (running score minus tiles in hand, the end-of-game count) decides
the game; the evaluation squashes it: the win/loss values are shared among the seats by a
softmax of ``final_scores / SCALE`` (two players: ``v = tanh(margin / (2 SCALE))``), so it
stays in ``reward_range`` and is zero-sum like the returns. Solo: the final score / 100.
"""

from __future__ import annotations

import numpy as np

from envs.core.mcts import share_values
from envs.otto_octopus.rules import State

SCALE = 4.0


def evaluate(st: State, low: float, high: float) -> np.ndarray:
    if st.is_terminal():
        return np.array(st.returns(), dtype=np.float64)
    n = st.n
    fs = np.array(st.final_scores(), dtype=np.float64)
    if n == 1:
        return np.clip(fs / 100.0, low, high)
    return share_values(fs / SCALE, 0.0, -1.0 / (n - 1), 1.0)
