"""What a placement would close, without placing it (the must-score / must-8 masks).

Every candidate placement is judged from the slot tables of :mod:`geometry`: a shape
closes at a vertex when the three other slots already hold the kind the new tile brings.
That is the incremental form of tracing from the new tile's ports (OGO-05/08); the test
suite checks it against :func:`geometry.closed_shapes` on random boards.
"""

from __future__ import annotations

import numpy as np

from envs.otto_game_over.geometry import (
    EMPTY,
    FAR_ARR,
    LOBES,
    NEAR_ARR,
    OTHERS,
    SLOT_SQUARE,
    B,
    Q,
    S,
    X_DESIGNS,
)

_NEAR_S = NEAR_ARR == S  # [design, k, corner]
_NEAR_Q = NEAR_ARR == Q
_FAR_B = FAR_ARR == B
_LOBE1 = np.array([[(LOBES[4 * d + k] or (0, 0))[0] for k in range(4)] for d in range(8)], dtype=np.intp)
_LOBE2 = np.array([[(LOBES[4 * d + k] or (0, 0))[1] for k in range(4)] for d in range(8)], dtype=np.intp)
_ROTS = np.arange(4)

#: constraints to close the 8 of a placed X tile: square -> [[(corner, allowed kinds), ...], ...]
XNeeds = dict[int, list[list[tuple[int, tuple[int, ...]]]]]


class SlotView:
    """Which kinds would close a shape at each (square, corner) of the current board."""

    __slots__ = ("all_b", "all_q", "all_s", "lobe_ok", "x_needs")

    def __init__(
        self, near: np.ndarray, far: np.ndarray, design: list[int], rot: list[int], square_lobes: bool
    ) -> None:
        others_near = near[OTHERS]
        self.all_s = (others_near == S).all(axis=1).reshape(25, 4)
        self.all_q = (others_near == Q).all(axis=1).reshape(25, 4)
        self.all_b = (far[OTHERS] == B).all(axis=1).reshape(25, 4)
        self.lobe_ok = self.all_s | self.all_q if square_lobes else self.all_s
        self.x_needs = _x_needs(near, design, rot, square_lobes)

    def outcomes(self, design: int, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(points, eight)``, each ``[len(cands), 4 orientations]``, of placing ``design``."""
        a_s = self.all_s[cands][:, None, :]
        a_q = self.all_q[cands][:, None, :]
        a_b = self.all_b[cands][:, None, :]
        points = (
            (a_s & _NEAR_S[design]).sum(axis=2)
            + 2 * (a_b & _FAR_B[design]).sum(axis=2)
            + 4 * (a_q & _NEAR_Q[design]).sum(axis=2)
        )
        if design in X_DESIGNS:
            ok = self.lobe_ok[cands]
            eight = ok[:, _LOBE1[design]] & ok[:, _LOBE2[design]]
        else:
            eight = np.zeros((cands.size, 4), dtype=bool)
        if self.x_needs:
            for i, sq in enumerate(cands.tolist()):
                for needs in self.x_needs.get(sq, ()):
                    hit = np.ones(4, dtype=bool)
                    for c, allowed in needs:
                        hit &= np.isin(NEAR_ARR[design, :, c], allowed)
                    eight[i] |= hit
        return points, eight


def _x_needs(near: np.ndarray, design: list[int], rot: list[int], square_lobes: bool) -> XNeeds:
    """For each X tile whose 8 lacks exactly one square: what that square must bring."""
    out: XNeeds = {}
    allowed = (S, Q) if square_lobes else (S,)
    for x in range(25):
        d = design[x]
        if d not in X_DESIGNS:
            continue
        squares: set[int] = set()
        needs: list[tuple[int, tuple[int, ...]]] = []
        ok = True
        for c in LOBES[4 * d + rot[x]]:
            slots = OTHERS[4 * x + c]
            kinds = near[slots]
            filled = {int(k) for k in kinds if k != EMPTY}
            if len(filled) != 1 or next(iter(filled)) not in allowed:
                ok = False
                break
            for slot, k in zip(slots.tolist(), kinds.tolist(), strict=True):
                if k == EMPTY:
                    squares.add(SLOT_SQUARE[slot])
                    needs.append((slot % 4, (next(iter(filled)),)))
        if ok and len(squares) == 1:
            out.setdefault(squares.pop(), []).append(needs)
    return out
