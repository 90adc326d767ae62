"""A static evaluation of an OTTO Game Over position for the MCTS depth cutoff.

* ``episode="match"``: the match rewards if the match ended now on markers,
  ``(own points - mean of the others) / 32`` per team (zero-sum, in range).
* ``episode="game"``: the win/loss values shared among the teams by a softmax of
  ``(totals + markers of this match) / SCALE``.
* Solo: ``-1 + 1.5 * progress`` with :func:`solo_progress` (how close the board is to a
  victory, OGO-61), in [-1, 0.5]: from a defeat's -1 up to the reward of a victory of 16
  points (a victory pays its score / 32, OGO-62, and scores 32 or more unless it leaves more
  unmarked shapes than twice its empty slots).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.mcts import share_values
from envs.otto_game_over.flow import MAX_MATCH_SCORE
from envs.otto_game_over.geometry import (
    EMPTY,
    LOBES,
    MARKERS_PER_TEAM,
    N_V,
    OTHERS,
    X_DESIGNS,
    B,
    Q,
    S,
)
from envs.otto_game_over.rules import State

SCALE = 4.0

#: solo: a half-built circle or square with a share f of its four quadrants filled (frame
#: half-shapes count) and nothing foreign in the others counts PARTIAL * f**2 of a marker
PARTIAL = 0.7
#: solo: an X tile whose two lobes are still open counts EIGHT_PARTIAL * f**2 of the 8, f the
#: share of the six other lobe quadrants already holding small-circle strokes
EIGHT_PARTIAL = 0.6
_OTHERS: tuple[tuple[int, ...], ...] = tuple(tuple(int(i) for i in row) for row in OTHERS)


def solo_progress(shares: Sequence[float]) -> float:
    """How close a solo board is to victory (OGO-61: 4 small circles, 4 big circles and 3
    squares marked, and an 8 closed), in [0, 1], from its four :func:`solo_shares`: their mean
    blended half and half with the product of ``0.3 + 0.7 * share`` (a victory needs all four).

    The shares read the board and the supply only (public information). These weights and forms were
    compared with a few variants (fill counted linearly or cubed, other weights for big
    circles, the mean alone) over 500-1,000 deals of ``heuristic``; all won 4-6% of the deals,
    within noise of each other.
    """
    product = 1.0
    for share in shares:
        product *= 0.3 + 0.7 * share
    return 0.5 * sum(shares) / 4 + 0.5 * product


def solo_shares(
    near: Sequence[int],
    far: Sequence[int],
    design: Sequence[int],
    rot: Sequence[int],
    supply: Sequence[int],
    eight: bool,
    square_lobes: bool = False,
) -> list[float]:
    """The share done of each solo requirement (small circles, big circles, squares, the 8),
    each in [0, 1]: the markers placed out of 4, 4 and 3, plus for each marker still in the
    supply one of the best half-built shapes of its kind, counting ``PARTIAL * f**2`` for a
    share ``f`` of its four quadrants filled (frame half-shapes count, no foreign stroke);
    the 8: 1 once closed, else ``EIGHT_PARTIAL * f**2`` for the best X tile whose lobes are
    open, ``f`` the share of the six other lobe quadrants holding small-circle strokes (with
    ``square_lobes``, ``eight_lobes="round_or_square"``, a lobe may hold square strokes
    instead, OGO-06)."""
    lobe_kinds = (S, Q) if square_lobes else (S,)
    fills: dict[int, list[float]] = {S: [], Q: [], B: []}
    for v in range(N_V):
        for slots, kinds in ((near[4 * v : 4 * v + 4], (S, Q)), (far[4 * v : 4 * v + 4], (B,))):
            filled = [x for x in slots if x != EMPTY]
            # open (not closed), started, of one kind only, and a kind that closes here
            if 0 < len(filled) < 4 and filled[0] in kinds and filled.count(filled[0]) == len(filled):
                fills[filled[0]].append(len(filled) / 4)
    shares = []
    for shape, kind in enumerate((S, B, Q)):
        left, need = supply[shape], MARKERS_PER_TEAM[shape]
        best = sorted(fills[kind], reverse=True)[:left]
        shares.append(min(1.0, (need - left + PARTIAL * sum(f * f for f in best)) / need))
    if eight:
        shares.append(1.0)
    else:
        best8 = 0.0
        for sq, d in enumerate(design):
            if d not in X_DESIGNS:
                continue
            total = 0
            for c in LOBES[4 * d + rot[sq]]:
                lobe = [near[i] for i in _OTHERS[4 * sq + c] if near[i] != EMPTY]
                if lobe and (lobe[0] not in lobe_kinds or any(x != lobe[0] for x in lobe)):
                    break  # a foreign stroke (or both kinds) around the lobe: it cannot close
                total += len(lobe)
            else:
                best8 = max(best8, total / 6)
        shares.append(EIGHT_PARTIAL * best8 * best8)
    return shares


def solo_value(progress: float) -> float:
    """The solo evaluation of a running match: ``-1 + 1.5 * progress``."""
    return -1.0 + 1.5 * progress


def evaluate(st: State) -> np.ndarray:
    if st.is_terminal():
        return st.returns()
    if st.config.solo:
        square_lobes = st.config.eight_lobes != "round"
        shares = solo_shares(
            st.near, st.far, st.design, st.rot, st.supply[0], st.solo_eights > 0, square_lobes
        )
        return np.array([solo_value(solo_progress(shares))], dtype=np.float64)
    t = st.n_teams
    points = np.array([st.marker_points(x) for x in range(t)], dtype=np.float64)
    if st.config.episode == "match":
        team_value = (points - (points.sum() - points) / (t - 1)) / MAX_MATCH_SCORE
    else:
        strength = (np.array(st.totals, dtype=np.float64) + points) / SCALE
        team_value = share_values(strength, 0.0, -1.0 / (t - 1), 1.0)
    return np.array([team_value[st.team[s]] for s in range(st.n)], dtype=np.float64)
