"""Observation planes and the action codec of Octi.

The action codec is :func:`envs.octi.actions.layout` (built eagerly per config: offsets
plus a ``decode`` tuple index -> (kind, pod/base, dir, dir)); strings depend on where the
pods stand, so :mod:`envs.octi.notation` renders them from the state.

``observe(state, seat)`` returns ``float32[C, H, W]`` in the observer's frame: player_1
sees the board rotated 180 degrees (flat square ``sq`` -> ``W*H - 1 - sq``) and
directions turned by 4, so "forward" is always egocentric direction 0 and row 0 is the
observer's own back rank. Channels (P pods per player):

==========  ==================================================================
0 / 1       own / enemy pods on the square / P
2-9         own pods on the square with a prong in egocentric direction e / P
10-17       enemy pods on the square with a prong in egocentric direction e / P
18 / 19     own / enemy bases
20          origin O of the turn (0 in MAIN)
21          focus square: active pod (CHAIN, MOVER) or queue head (DECLARE, CAPTURE)
22          squares already jumped by the active pod this turn
23          squares jumped by any pod this turn (capture candidates)
24          pods moving this turn (the side to move's) / P
25          movers that have finished moving / P
26          pods marked ``capture`` so far / P
27-31       phase one-hot, constant planes: MAIN, DECLARE, CHAIN, MOVER, CAPTURE
32 / 33     own / enemy prong supply / total prongs (constant planes)
34 / 35     own / enemy reserve pods / P (constant)
36 / 37     own / enemy captured pods / P (constant)
38          the focus pod is own (constant)
39          completed turns / max_turns (constant)
40-47       prongs of the focus pod in egocentric direction e, on the focus square
48 + 9k     own pod id k: 1 on its square
49+9k..56+9k  own pod id k has a prong in egocentric direction e, on its square
==========  ==================================================================

C = 48 + 9P: 84 for basic (6 x 7 planes), 111 for X (9 x 9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.octi.actions import Layout, layout
from envs.octi.board import SET_BITS
from envs.octi.turn import CAPTURE, CAPTURED, DECLARE, OVER, RESERVE

if TYPE_CHECKING:
    from envs.octi.rules import State

__all__ = ["Layout", "layout", "num_channels", "observe"]

FOCUS_PRONGS = 40
POD_PLANES = 48


def num_channels(pods: int) -> int:
    return POD_PLANES + 9 * pods


def _focus(st: State) -> int:
    """Global code of the pod in focus, or -1."""
    if st.phase == DECLARE:
        return st.to_move * st.P + st.dqueue[0]
    if st.phase == CAPTURE:
        return st.cqueue[0]
    if st.phase == OVER or st.active < 0:
        return -1
    return st.to_move * st.P + st.active


def observe(st: State, seat: int) -> np.ndarray:
    """The planes above for ``seat`` (memoised per position; a fresh copy each call)."""
    key = ("obs", seat)
    cached = st.memo.get(key)
    if cached is None:
        cached = _build(st, seat)
        st.memo[key] = cached
    return cached.copy()


def _build(st: State, seat: int) -> np.ndarray:
    P, geo = st.P, st.geo
    size = geo.size
    out = np.zeros((num_channels(P), size), dtype=np.float32)
    flip = size - 1 if seat else 0  # 180-degree rotation of a flat index: size - 1 - sq
    E = 4 * seat
    inv = 1.0 / P
    _pods(st, seat, out, flip, E, inv)
    for b in geo.bases[seat]:
        out[18, flip - b if flip else b] = 1.0
    for b in geo.bases[1 - seat]:
        out[19, flip - b if flip else b] = 1.0
    _turn_planes(st, seat, out, flip, E, inv)
    total = 1.0 / (2 * st.config.start_supply)
    sc = (
        st.supply[seat] * total, st.supply[1 - seat] * total,
        st.count(seat, RESERVE) * inv, st.count(1 - seat, RESERVE) * inv,
        st.count(seat, CAPTURED) * inv, st.count(1 - seat, CAPTURED) * inv,
    )
    for i, v in enumerate(sc):
        if v:
            out[32 + i] = v
    if st.turn:
        out[39] = st.turn / st.config.turn_limit
    return out.reshape(-1, geo.height, geo.width)


def _pods(st: State, seat: int, out: np.ndarray, flip: int, E: int, inv: float) -> None:
    P = st.P
    for g, sq in enumerate(st.pos):
        if sq < 0:
            continue
        q = flip - sq if flip else sq
        own = g // P == seat
        out[0 if own else 1, q] += inv
        base = 2 if own else 10
        bits = SET_BITS[st.prongs[g]]
        for d in bits:
            out[base + (d ^ E), q] += inv
        if own:
            k = POD_PLANES + 9 * (g - seat * P)
            out[k, q] = 1.0
            for d in bits:
                out[k + 1 + (d ^ E), q] = 1.0


def _turn_planes(st: State, seat: int, out: np.ndarray, flip: int, E: int, inv: float) -> None:
    ph = st.phase
    if ph == OVER:
        return
    out[27 + ph] = 1.0
    if st.origin < 0:
        return

    def at(sq: int) -> int:
        return flip - sq if flip else sq

    s, P = st.to_move, st.P
    out[20, at(st.origin)] = 1.0
    focus = _focus(st)
    if focus >= 0:
        fq = at(st.pos[focus])
        out[21, fq] = 1.0
        for d in SET_BITS[st.prongs[focus]]:
            out[FOCUS_PRONGS + (d ^ E), fq] = 1.0
        if focus // P == seat:
            out[38] = 1.0
    if st.active >= 0:
        jm = st.jumped[st.active]
        for sq in st.jorder:
            if jm >> sq & 1:
                out[22, at(sq)] = 1.0
    for sq in st.jorder:
        out[23, at(sq)] = 1.0
    for p in st.movers:
        out[24, at(st.pos[s * P + p])] += inv
    for p in st.finished:
        out[25, at(st.pos[s * P + p])] += inv
    for g in st.cmarks:
        out[26, at(st.pos[g])] += inv
