"""A static evaluation of an OTTO Game Over position for the MCTS depth cutoff.

* ``episode="match"``: the match rewards if the match ended now on markers,
  ``(own points - mean of the others) / 32`` per team (zero-sum, in range).
* ``episode="game"``: the win/loss values shared among the teams by a softmax of
  ``(totals + markers of this match) / SCALE``.
* Solo: 0 (the outcome hinges on closing an 8, which a static count cannot see).
"""

from __future__ import annotations

import numpy as np

from envs.core.mcts import share_values
from envs.otto_game_over.flow import MAX_MATCH_SCORE
from envs.otto_game_over.rules import State

SCALE = 4.0


def evaluate(st: State) -> np.ndarray:
    if st.is_terminal():
        return st.returns()
    if st.config.solo:
        return np.zeros(st.n, dtype=np.float64)
    t = st.n_teams
    points = np.array([st.marker_points(x) for x in range(t)], dtype=np.float64)
    if st.config.episode == "match":
        team_value = (points - (points.sum() - points) / (t - 1)) / MAX_MATCH_SCORE
    else:
        strength = (np.array(st.totals, dtype=np.float64) + points) / SCALE
        team_value = share_values(strength, 0.0, -1.0 / (t - 1), 1.0)
    return np.array([team_value[st.team[s]] for s in range(st.n)], dtype=np.float64)
