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
22          squares already jumped by the active pod this turn (DECLARE: the first mover;
            CAPTURE: none)
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

:func:`symmetries` gives the left-right mirror of the board as gathers of these planes and of
the action indices (``Game.symmetries()``; the doc page's "Symmetries").
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from envs.core.game import Symmetry
from envs.octi.actions import ADD, ENTER, JUMP, LIBERATE, REPOSITION, STEP, Layout, layout
from envs.octi.board import SET_BITS, geometry
from envs.octi.turn import CAPTURE, CAPTURED, DECLARE, OVER, RESERVE

if TYPE_CHECKING:
    from envs.octi.rules import State

__all__ = ["Layout", "layout", "num_channels", "observe", "symmetries"]

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
    """The planes above for ``seat`` (a fresh array each call)."""
    return _build(st, seat)


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


_LEVELS: dict[int, tuple[float, ...]] = {}


def _levels(P: int) -> tuple[float, ...]:
    """LEVELS[k]: the float32 value of k pods / P, as k successive float32 additions of 1/P make it
    (keeps the planes byte-identical to a sum built pod by pod)."""
    lv = _LEVELS.get(P)
    if lv is None:
        vals = [0.0]
        for _ in range(2 * P + 2):
            vals.append(struct.unpack("f", struct.pack("f", vals[-1] + 1.0 / P))[0])
        lv = _LEVELS[P] = tuple(vals)
    return lv


class PodPlanes:
    """The pod planes (0-17, 48..) of one observer, kept up to date incrementally.

    ``cnt`` holds the integer pod count of every counting entry, ``arr`` the float32 planes
    (template included). ``sync`` diffs the state's ``pos`` / ``prongs`` against the copy
    seen last time and moves only the pods that changed (usually one per step)."""

    __slots__ = ("arr", "cnt", "consts", "entries", "planes", "pos", "prongs", "view")

    def __init__(self, st: State, seat: int) -> None:
        self.arr: np.ndarray = _template(st, seat).copy()
        self.planes = self.arr.reshape(-1, st.geo.size)
        self.view = self.arr.reshape(-1, st.geo.height, st.geo.width)
        #: the constant planes 27..39 as last written into ``arr``
        self.consts = [0.0] * 13
        self.cnt = [0] * len(self.arr)
        self.pos = [RESERVE] * (2 * st.P)
        self.prongs = [0] * (2 * st.P)
        self.entries = _entry_table(st.geo.size, st.P, seat)

    def sync(self, st: State, seat: int) -> None:
        pos, prongs = st.pos, st.prongs
        opos, oprongs = self.pos, self.prongs
        if pos == opos and prongs == oprongs:
            return
        P = st.P
        lv = _levels(P)
        mv: Any = memoryview(cast(Any, self.arr))
        cnt, table = self.cnt, self.entries
        for g in range(2 * P):
            sq, m = pos[g], prongs[g]
            osq, om = opos[g], oprongs[g]
            if sq == osq and m == om:
                continue
            rows = table[g]
            if sq == osq:  # only prongs changed: touch the changed directions
                add, gone = m & ~om, om & ~m
            else:
                add, gone = m, om
                if osq >= 0:
                    c, o = rows[osq][8]
                    k = cnt[c] - 1
                    cnt[c] = k
                    mv[c] = lv[k]
                    if o >= 0:
                        mv[o] = 0.0
                if sq >= 0:
                    c, o = rows[sq][8]
                    k = cnt[c] + 1
                    cnt[c] = k
                    mv[c] = lv[k]
                    if o >= 0:
                        mv[o] = 1.0
            if gone:
                row = rows[osq]
                for d in SET_BITS[gone]:
                    c, o = row[d]
                    k = cnt[c] - 1
                    cnt[c] = k
                    mv[c] = lv[k]
                    if o >= 0:
                        mv[o] = 0.0
            if add:
                row = rows[sq]
                for d in SET_BITS[add]:
                    c, o = row[d]
                    k = cnt[c] + 1
                    cnt[c] = k
                    mv[c] = lv[k]
                    if o >= 0:
                        mv[o] = 1.0
            opos[g] = sq
            oprongs[g] = m

    def set_consts(self, consts: list[float]) -> None:
        """Write the constant planes 27..39 that changed since the last call."""
        old = self.consts
        if consts != old:
            planes = self.planes
            for i, v in enumerate(consts):
                if v != old[i]:
                    planes[27 + i].fill(v)
            self.consts = consts


_Entry = tuple[int, int]
_ENTRY_TABLES: dict[tuple[int, int, int], tuple[tuple[tuple[_Entry, ...], ...], ...]] = {}


def _entry_table(size: int, P: int, seat: int) -> tuple[tuple[tuple[_Entry, ...], ...], ...]:
    """TABLE[g][sq][d] = (count index, one-hot index or -1) of pod ``g`` on absolute square
    ``sq`` as ``seat`` sees it: d = 0..7 its prong in absolute direction d, d = 8 the pod itself."""
    key = (size, P, seat)
    t = _ENTRY_TABLES.get(key)
    if t is None:
        E = 4 * seat
        rows = []
        for g in range(2 * P):
            rel = g - seat * P if g // P == seat else -1
            base = 2 if rel >= 0 else 10
            per_sq = []
            for sq in range(size):
                q = size - 1 - sq if seat else sq
                k = (POD_PLANES + 9 * rel) * size + q if rel >= 0 else -1
                row = [
                    ((base + (d ^ E)) * size + q, k + (1 + (d ^ E)) * size if k >= 0 else -1)
                    for d in range(8)
                ]
                row.append((q if rel >= 0 else size + q, k))
                per_sq.append(tuple(row))
            rows.append(tuple(per_sq))
        t = _ENTRY_TABLES[key] = tuple(rows)
    return t


def _build(st: State, seat: int) -> np.ndarray:
    P, geo = st.P, st.geo
    size = geo.size
    cache = st.pod_planes
    pp: PodPlanes | None = cache[seat]
    if pp is None:
        pp = cache[seat] = PodPlanes(st, seat)
    pp.sync(st, seat)
    consts = [0.0] * 13  # planes 27..39
    counts: list[int] = []
    ones: list[int] = []
    if st.phase != OVER:
        consts[st.phase] = 1.0
        if st.origin >= 0 and _turn_planes(st, seat, counts, ones, size):
            consts[11] = 1.0
    inv = 1.0 / P
    total = 1.0 / (2 * st.config.start_supply)
    mine, theirs = st.pos[seat * P : (seat + 1) * P], st.pos[(1 - seat) * P : (2 - seat) * P]
    consts[5] = st.supply[seat] * total
    consts[6] = st.supply[1 - seat] * total
    consts[7] = mine.count(RESERVE) * inv
    consts[8] = theirs.count(RESERVE) * inv
    consts[9] = mine.count(CAPTURED) * inv
    consts[10] = theirs.count(CAPTURED) * inv
    consts[12] = st.turn / st.config.turn_limit
    pp.set_consts(consts)
    out = pp.view.copy()
    if ones:  # mid-turn planes 20-26, 40-47 (every such turn has an origin entry in ``ones``)
        mv: Any = memoryview(cast(Any, out.reshape(-1)))
        for i in counts:
            mv[i] += inv
        for i in ones:
            mv[i] = 1.0
    return out


def _turn_planes(st: State, seat: int, counts: list[int], ones: list[int], size: int) -> bool:
    """Planes 20-26 and 40-47 (mid-turn only); True when the focus pod is the observer's."""
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
        own_focus = focus // P == seat
    else:
        own_focus = False
    jm = st.jumped[st.active] if st.active >= 0 else 0
    for sq in st.jorder:
        ones.append(23 * size + at(sq))
        if jm >> sq & 1:
            ones.append(22 * size + at(sq))
    extra = [24 * size + at(st.pos[s * P + p]) for p in st.movers]
    extra += [25 * size + at(st.pos[s * P + p]) for p in st.finished]
    extra += [26 * size + at(st.pos[g]) for g in st.cmarks]
    counts += extra
    return own_focus


# ------------------------------------------------------------------ symmetries
def mirror_dir(d: int) -> int:
    """The direction the left-right mirror takes ``d`` to (E <-> W, NE <-> NW, SE <-> SW; N, S
    stay). It commutes with player_1's turn by 4, so it maps egocentric directions alike."""
    return -d & 7


@lru_cache(maxsize=8)  # a key per board and action layout: four in all
def _mirror(big: bool, pods: int, reposition: bool) -> Symmetry:
    """The left-right mirror (file x <-> W-1-x) as gathers ``new[j] = old[index[j]]`` (see
    :class:`~envs.core.game.Symmetry`); ``big`` = the 9x9 board of the X variants.

    Every pod keeps its id and moves to the mirrored square with its prongs mirrored; the bases
    are mirror-symmetric (OCT-01, OCT-02), so a base index goes to the mirrored base in the same
    (own / enemy) half. The mirror commutes with player_1's 180-degree view (OCT-47), so one
    gather serves both seats."""
    geo = geometry("x_fast" if big else "basic", False)
    W, size = geo.width, geo.size
    P, K = pods, len(geo.bases[0])  # as the state sizes them (rules.State)
    lay = layout(P, K, reposition)
    channel = list(range(num_channels(P)))
    for first in (2, 10, FOCUS_PRONGS, *(POD_PLANES + 1 + 9 * k for k in range(P))):
        for e in range(8):
            channel[first + e] = first + mirror_dir(e)
    square = np.array([(sq // W) * W + (W - 1 - sq % W) for sq in range(size)], dtype=np.int64)
    obs = (np.array(channel, dtype=np.int64)[:, None] * size + square[None, :]).reshape(-1)
    base = []
    for ego in geo.ego_bases:
        where = {sq: b for b, sq in enumerate(ego)}
        base.append([where[int(square[sq])] for sq in ego])
    if base[0] != base[1] or any((b < K) != (m < K) for b, m in enumerate(base[0])):
        raise AssertionError("the bases are not mirror-symmetric")  # pragma: no cover - geometry
    act = np.arange(lay.size, dtype=np.int64)
    for a, (kind, x, y, z) in enumerate(lay.decode):
        if kind in (ADD, STEP, JUMP):
            act[a] = a - y + mirror_dir(y)
        elif kind in (ENTER, LIBERATE):
            act[a] = a - x + base[0][x]
        elif kind == REPOSITION:
            act[a] = lay.repo + 64 * x + 8 * mirror_dir(y) + mirror_dir(z)
    for arr in (obs, act):  # shared by every game object: nobody may change them in place
        arr.setflags(write=False)
    return Symmetry("mirror", obs, act)


def symmetries(config: Any) -> tuple[Symmetry, ...]:
    """The board's left-right mirror for ``config`` (an ``envs.octi.rules.Config``; the rules of
    every variant and option are the same under it): one :class:`~envs.core.game.Symmetry`, its
    arrays read-only and shared by every game of the same board and action layout."""
    return (_mirror(config.is_x, config.pods, config.allow_reposition),)
