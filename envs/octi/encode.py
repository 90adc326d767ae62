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

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from envs.octi.actions import Layout, layout
from envs.octi.board import SET_BITS
from envs.octi.turn import CAPTURE, DECLARE, OVER, RESERVE

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


_TEMPLATES: dict[tuple[int, int, int], np.ndarray] = {}


def _template(st: State, seat: int) -> np.ndarray:
    """The flat all-zero observation with the (constant) base planes 18 / 19 set."""
    key = (st.geo.width, st.P, seat)
    t = _TEMPLATES.get(key)
    if t is None:
        size = st.geo.size
        t = np.zeros(num_channels(st.P) * size, dtype=np.float32)
        flip = size - 1 if seat else 0
        for plane, owner in ((18, seat), (19, 1 - seat)):
            for b in st.geo.bases[owner]:
                t[plane * size + (flip - b if flip else b)] = 1.0
        _TEMPLATES[key] = t
    return t


def _build(st: State, seat: int) -> np.ndarray:
    P, geo = st.P, st.geo
    size = geo.size
    out = _template(st, seat).copy()
    counts: list[int] = []  # flat indices that get +1/P (pods and prongs per square)
    ones: list[int] = []  # flat indices set to 1
    pools = _pods(st, seat, counts, ones, size)
    consts: list[tuple[int, float]] = []
    if st.phase != OVER:
        consts.append((27 + st.phase, 1.0))
        if st.origin >= 0:
            _turn_planes(st, seat, counts, ones, size, consts)
    inv = 1.0 / P
    # memoryview item writes beat numpy fancy indexing for a few dozen entries
    mv: Any = memoryview(cast(Any, out))
    for i in counts:
        mv[i] += inv
    for i in ones:
        mv[i] = 1.0
    total = 1.0 / (2 * st.config.start_supply)
    consts += [(32, st.supply[seat] * total), (33, st.supply[1 - seat] * total),
               (34, pools[seat] * inv), (35, pools[1 - seat] * inv),
               (36, pools[2 + seat] * inv), (37, pools[3 - seat] * inv),
               (39, st.turn / st.config.turn_limit)]
    planes = out.reshape(-1, size)
    for c, v in consts:
        if v:
            planes[c].fill(v)
    return out.reshape(-1, geo.height, geo.width)


_POD_ENTRIES: dict[tuple[int, int, int, int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _pod_entries(size: int, seat: int, rel: int, q: int, m: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(count indices, one-hot indices) of a pod seen by ``seat`` on view square ``q`` with prong
    mask ``m``; ``rel`` is its own id, -1 for an enemy pod. Cached: the set of keys is small."""
    key = (size, seat, rel, q, m)
    hit = _POD_ENTRIES.get(key)
    if hit is None:
        E = 4 * seat
        bits = SET_BITS[m]
        base = 2 if rel >= 0 else 10
        counts = (q if rel >= 0 else size + q,) + tuple((base + (d ^ E)) * size + q for d in bits)
        ones: tuple[int, ...] = ()
        if rel >= 0:
            k = (POD_PLANES + 9 * rel) * size + q
            ones = (k,) + tuple(k + (1 + (d ^ E)) * size for d in bits)
        hit = _POD_ENTRIES[key] = (counts, ones)
    return hit


def _pods(st: State, seat: int, counts: list[int], ones: list[int], size: int) -> list[int]:
    """Pod planes; returns the pool sizes [reserve 0, reserve 1, captured 0, captured 1]."""
    P = st.P
    flip = size - 1 if seat else 0
    pools = [0, 0, 0, 0]
    prongs = st.prongs
    for g, sq in enumerate(st.pos):
        owner = g // P
        if sq < 0:
            pools[owner if sq == RESERVE else 2 + owner] += 1
            continue
        c, o = _pod_entries(size, seat, g - seat * P if owner == seat else -1,
                            flip - sq if flip else sq, prongs[g])
        counts += c
        if o:
            ones += o
    return pools


def _turn_planes(st: State, seat: int, counts: list[int], ones: list[int], size: int,
                 consts: list[tuple[int, float]]) -> None:
    flip = size - 1 if seat else 0
    E = 4 * seat

    def at(sq: int) -> int:
        return flip - sq if flip else sq

    s, P = st.to_move, st.P
    ones.append(20 * size + at(st.origin))
    focus = _focus(st)
    if focus >= 0:
        fq = at(st.pos[focus])
        ones.append(21 * size + fq)
        ones += [(FOCUS_PRONGS + (d ^ E)) * size + fq for d in SET_BITS[st.prongs[focus]]]
        if focus // P == seat:
            consts.append((38, 1.0))
    jm = st.jumped[st.active] if st.active >= 0 else 0
    for sq in st.jorder:
        ones.append(23 * size + at(sq))
        if jm >> sq & 1:
            ones.append(22 * size + at(sq))
    extra = [24 * size + at(st.pos[s * P + p]) for p in st.movers]
    extra += [25 * size + at(st.pos[s * P + p]) for p in st.finished]
    extra += [26 * size + at(st.pos[g]) for g in st.cmarks]
    counts += extra
