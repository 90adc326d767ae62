"""What a placement would close, without placing it (the must-score / must-8 masks).

This is the incremental form of tracing from the new tile's ports (OGO-05/08): a line
through the new tile can only close around one of its four corners, so only the slots
of those four vertices are read. For a candidate square, each corner gets a *need*: the
near-pair kind (s or Q) and whether far-pair B would close a shape there, given the three
other slots. The four needs form a signature (6**4 = 1296 of them); ``BITS`` holds,
per signature and design, the orientations that score and those that close an 8
(:func:`outcome` gives their points too). 8s of X tiles already on the board are handled by :func:`x_needs`. The test suite
checks all of this against :func:`geometry.closed_shapes` on random boards.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from envs.otto_game_over.geometry import D10, EMPTY, F12, LOBES, NEAR, OTHERS, SLOT_SQUARE, X_DESIGNS, B, Q, S

OTHERS_T: tuple[tuple[int, int, int], ...] = tuple((int(a), int(b), int(c)) for a, b, c in OTHERS.tolist())


def _near_bits() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """NEAR_BITS[design][corner][kind]: orientations whose near pair at the corner is ``kind``."""
    return tuple(
        tuple(
            tuple(sum(1 << k for k in range(4) if NEAR[4 * d + k][c] == kind) for kind in range(7))
            for c in range(4)
        )
        for d in range(8)
    )


NEAR_BITS = _near_bits()


def _outcome(sig: int, d: int, square_lobes: bool) -> tuple[int, int, tuple[int, ...]]:
    """(score bits, eight bits, points per orientation) of design ``d`` at signature ``sig``."""
    from envs.otto_game_over.geometry import FAR

    needs = [(sig // 6**c) % 6 for c in range(4)]
    near_need = [(0, S, Q)[n // 2] for n in needs]
    far_need = [n % 2 for n in needs]
    pts, score_bits, eight_bits = [], 0, 0
    for k in range(4):
        dr = 4 * d + k
        p = 0
        for c in range(4):
            if near_need[c] and NEAR[dr][c] == near_need[c]:
                p += 1 if near_need[c] == S else 4
            if far_need[c] and FAR[dr][c] == B:
                p += 2
        pts.append(p)
        score_bits |= (p > 0) << k
        if d in X_DESIGNS:
            ok = [near_need[c] == S or (square_lobes and near_need[c] == Q) for c in range(4)]
            if all(ok[c] for c in LOBES[dr]):
                eight_bits |= 1 << k
    return score_bits, eight_bits, tuple(pts)


_CACHE: dict[int, tuple[int, int, tuple[int, ...]]] = {}


def outcome(sig: int, d: int, square_lobes: bool) -> tuple[int, int, tuple[int, ...]]:
    """(score bits, 8 bits, points per orientation), memoised (at most 1296*8*2 entries)."""
    key = (sig << 4) | (d << 1) | square_lobes
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = _outcome(sig, d, square_lobes)
    return hit


def signature(near: list[int], far: list[int], sq: int) -> int:
    """The need signature of square ``sq`` (see the module docstring)."""
    sig = 0
    mul = 1
    for c in range(4):
        a, b, e = OTHERS_T[4 * sq + c]
        n = near[a]
        need = 0
        if n == near[b] == near[e]:
            need = 2 if n == S else (4 if n == Q else 0)
        if far[a] == B and far[b] == B and far[e] == B:
            need += 1
        sig += need * mul
        mul *= 6
    return sig


#: X-tile needs: square -> [[(corner, kind), ...] per X tile that square would complete]
XNeeds = dict[int, list[list[tuple[int, int]]]]


#: what :func:`x_entry` says of one X tile: (the one square its 8 lacks, what that square must
#: bring), or None
XEntry = tuple[int, list[tuple[int, int]]] | None


def x_entry(near: list[int], design: list[int], rot: list[int], square_lobes: bool, x: int) -> XEntry:
    """The X tile on ``x``: the one square its 8 lacks and what that square must bring, or
    None (complete, blocked, or two or more squares missing). It reads only the slots of the
    vertices around ``x``: a tile placed outside ``AROUND[x]`` leaves it unchanged."""
    square = -1
    needs: list[tuple[int, int]] = []
    for c in LOBES[4 * design[x] + rot[x]]:
        slots = OTHERS_T[4 * x + c]
        ka, kb, kc = near[slots[0]], near[slots[1]], near[slots[2]]
        kind = ka or kb or kc  # the lobe's kind: every filled slot must hold it
        if (kind != S and not (square_lobes and kind == Q)) or not (
            ka in (EMPTY, kind) and kb in (EMPTY, kind) and kc in (EMPTY, kind)
        ):
            return None
        for slot in slots:
            if near[slot] == EMPTY:
                sq = SLOT_SQUARE[slot]
                if square not in (-1, sq):
                    square = -2  # two or more squares missing
                elif square != -2:
                    square = sq
                needs.append((slot % 4, kind))
    return (square, needs) if square >= 0 else None


def x_entries(near: list[int], design: list[int], rot: list[int], square_lobes: bool) -> dict[int, XEntry]:
    """:func:`x_entry` of every X tile on the board, by square (ascending)."""
    return {x: x_entry(near, design, rot, square_lobes, x) for x, d in enumerate(design) if d in (D10, F12)}


def merge_x_entries(entries: Iterable[XEntry]) -> XNeeds:
    """The entries (X tiles in ascending order) grouped by the square they lack."""
    out: XNeeds = {}
    for e in entries:
        if e is not None:
            out.setdefault(e[0], []).append(e[1])
    return out


def x_needs(near: list[int], design: list[int], rot: list[int], square_lobes: bool) -> XNeeds:
    """For each X tile whose 8 lacks exactly one square: what that square must bring."""
    return merge_x_entries(x_entries(near, design, rot, square_lobes).values())


def eight_bits_from_x(needs_list: list[list[tuple[int, int]]], d: int) -> int:
    """Orientations of design ``d`` that complete one of the X tiles of ``needs_list``."""
    bits = 0
    for needs in needs_list:
        b = 15
        for c, kind in needs:
            b &= NEAR_BITS[d][c][kind]
        bits |= b
    return bits


def _bits_table(square_lobes: bool) -> tuple[int, ...]:
    """BITS[sig*8 + d] = score bits | 8 bits << 4 of design ``d`` at signature ``sig``.

    The same as :func:`outcome` for every signature, built with numpy at import so the
    mask reads one list entry per (square, tile) instead of calling a memoised function.
    """
    from envs.otto_game_over.geometry import FAR_ARR, NEAR_ARR

    sigs = np.arange(6**4)
    needs = np.stack([(sigs // 6**c) % 6 for c in range(4)], axis=1)  # [sig, corner]
    near_need = np.array([0, S, Q])[needs // 2]
    far_need = needs % 2 == 1
    # [sig, design, k, corner]
    near_hit = (near_need[:, None, None, :] != 0) & (NEAR_ARR[None] == near_need[:, None, None, :])
    far_hit = far_need[:, None, None, :] & (FAR_ARR[None] == B)
    score = (near_hit | far_hit).any(axis=3)  # [sig, design, k]
    lobe_ok = (near_need == S) | ((near_need == Q) if square_lobes else False)  # [sig, corner]
    eight = np.zeros_like(score)
    for d in X_DESIGNS:
        for k in range(4):
            lobes = list(LOBES[4 * d + k])
            eight[:, d, k] = lobe_ok[:, lobes].all(axis=1)
    weights = 1 << np.arange(4)
    packed = (score * weights).sum(axis=2) | ((eight * weights).sum(axis=2) << 4)
    return tuple(int(x) for x in packed.reshape(-1))


#: BITS[square_lobes][sig*8 + d]: packed score / 8 orientation bits (see :func:`_bits_table`)
BITS: tuple[tuple[int, ...], tuple[int, ...]] = (_bits_table(False), _bits_table(True))
