"""A static evaluation of an Over and Out position for the MCTS depth cutoff.

Each seat still in the game gets a strength: its chips, a little for the escape cards in
its hand (always playable: ``0``, ``spin-out``, ``top-out``) and, for the mover, minus the
least risk of losing the round with its play now (the ``greedy`` bot's ``immediate``).
The placement values not yet paid are shared among the seats still in by a softmax of
these strengths, so the evaluation stays in ``reward_range`` and sums like the returns.
"""

from __future__ import annotations

import numpy as np

from envs.core.mcts import share_values
from envs.over_and_out.bots import immediate
from envs.over_and_out.cards import BUST, SPIN_OUT, TOP_OUT
from envs.over_and_out.rules import State

CHIP = 0.9  # logit per chip
ESCAPE = 0.25  # logit per escape card in hand
RISK = 0.9  # logit lost by the mover per unit of unavoidable risk this play


def evaluate(st: State) -> np.ndarray:
    if st.is_terminal():
        return st.returns()
    n = st.n
    out = st.returns()
    active = st.active_seats()
    m = len(active)
    j = len(st.out_order)
    if st.config.reward_mode == "winner_only":
        left = [1.0] + [-1.0] * (m - 1)
    else:  # placements j+1 .. n-1 still to go out, then the winner
        left = [(2 * k - n - 1) / (n - 1) for k in range(j + 1, n)] + [1.0]
    logits = []
    for s in active:
        hand = st.hands[s]
        x = CHIP * st.chips[s] + ESCAPE * sum(1 for k in hand if k in (0, SPIN_OUT, TOP_OUT))
        if s == st.to_move:
            legal = [a for a in range(BUST + 1) if st.legal_bits() >> a & 1]
            x -= RISK * min(immediate(st, a)[0] for a in legal) if legal else 0.0
        logits.append(x)
    values = share_values(np.array(logits), float(np.mean(left)), min(left), max(left))
    out[active] = values
    return out
