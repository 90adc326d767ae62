"""Board and tile geometry of OTTO Game Over (spec §1): squares, vertices, ports,
strokes, rotations, the frame, and the tracing of lines.

Coordinate systems in use::

    square  s = (rank-1)*5 + file   (a=0)     a1=0 .. e1=4, a2=5 .. c3=12 .. e5=24
    vertex  v = y*6 + x             x = a..f -> 0..5, y = 1..6 -> 0..5; v<x><y> is
                                    the lower-left corner of square <x><y>
    port    g = 8*s + p             p numbered clockwise from the top-left (spec §1.2)
    slot    4*v + c                 the quadrant of vertex v filled by the square whose
                                    corner c (0=NE 1=SE 2=SW 3=NW) lies on v

            N1=0   N2=1
          +--o------o--+
    W2=7  o            o E1=2
    W1=6  o            o E2=3
          +--o------o--+
            S2=5   S1=4

A *slot* holds the kind of the stroke joining the two near ports (``NEAR``) or the two
far ports (``FAR``) of that corner of the tile; a circle or square closes at a vertex
exactly when its four slots hold the same kind (frame half-shapes fill the slots outside
the board). Tracing (:func:`trace`) is the binding definition (OGO-05/06); the slot
tables are the fast equivalent used by the legal mask (a test checks they agree).
"""

from __future__ import annotations

import numpy as np

FILES = "abcde"
VFILES = "abcdef"
N_SQ = 25
N_V = 36
CENTRE = 12
SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[s % 5]}{s // 5 + 1}" for s in range(N_SQ))
SQUARE_OF_NAME: dict[str, int] = {n: i for i, n in enumerate(SQUARE_NAMES)}
VERTEX_NAMES: tuple[str, ...] = tuple(f"v{VFILES[v % 6]}{v // 6 + 1}" for v in range(N_V))
VERTEX_OF_NAME: dict[str, int] = {n: i for i, n in enumerate(VERTEX_NAMES)}

# stroke / slot kinds
EMPTY, S, B, Q, X, L, MIX = 0, 1, 2, 3, 4, 5, 6
KIND_OF_CHAR = {"s": S, "B": B, "Q": Q, "X": X, "L": L}
STROKE_POINTS = {S: 1, B: 2, Q: 4, X: 4, L: 0}  # an X pair = 8

# closed shapes with a marker: index 0 small circle, 1 big circle, 2 square
SHAPE_NAMES = ("small", "big", "square")
SHAPE_POINTS = (1, 2, 4)
SHAPE_OF_KIND = {S: 0, B: 1, Q: 2}
MARKERS_PER_TEAM = (4, 4, 3)

DESIGNS: dict[str, tuple[int, tuple[tuple[int, int, str], ...]]] = {  # spec §1.4, binding
    "Z0": (0, ((0, 5, "L"), (1, 4, "L"), (3, 6, "L"), (2, 7, "L"))),
    "A4": (4, ((1, 2, "s"), (3, 4, "s"), (5, 6, "s"), (7, 0, "s"))),
    "B7": (7, ((5, 6, "Q"), (4, 7, "B"), (1, 2, "s"), (0, 3, "L"))),
    "C8": (8, ((0, 3, "B"), (2, 5, "B"), (4, 7, "B"), (6, 1, "B"))),
    "D10": (10, ((4, 6, "X"), (3, 5, "X"), (1, 2, "s"), (7, 0, "s"))),
    "E12": (12, ((5, 6, "Q"), (4, 7, "B"), (1, 2, "Q"), (0, 3, "B"))),
    "F12": (12, ((1, 5, "X"), (2, 6, "X"), (4, 7, "B"), (0, 3, "B"))),
    "G16": (16, ((1, 2, "Q"), (3, 4, "Q"), (5, 6, "Q"), (7, 0, "Q"))),
}
FRAME: dict[str, str] = {  # spec §1.4, binding
    "va1": "s",
    "vb1": "s",
    "vc1": "Q",
    "vd1": "Q",
    "ve1": "s",
    "vf1": "s",
    "va6": "s",
    "vb6": "s",
    "vc6": "Q",
    "vd6": "Q",
    "ve6": "s",
    "vf6": "s",
    "va2": "s",
    "va3": "Q",
    "va4": "Q",
    "va5": "s",
    "vf2": "s",
    "vf3": "Q",
    "vf4": "Q",
    "vf5": "s",
}

DESIGN_IDS: tuple[str, ...] = tuple(DESIGNS)
Z0, A4, B7, C8, D10, E12, F12, G16 = range(8)
DARK = 8  # tile code of a dark ("antimatter") tile
NO_TILE = -1
TILE_NAMES: tuple[str, ...] = (*DESIGN_IDS, "DARK")
TILE_OF_NAME: dict[str, int] = {n.upper(): i for i, n in enumerate(TILE_NAMES)}
TILE_VALUE: tuple[int, ...] = (*(DESIGNS[d][0] for d in DESIGN_IDS), 0)
X_DESIGNS = frozenset({D10, F12})


def near_pair(c: int) -> tuple[int, int]:
    return ((2 * c + 1) % 8, (2 * c + 2) % 8)


def far_pair(c: int) -> tuple[int, int]:
    return ((2 * c) % 8, (2 * c + 3) % 8)


def _rotated(design: int, k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    other = [0] * 8
    kind = [0] * 8
    for a, b, ch in DESIGNS[DESIGN_IDS[design]][1]:
        a2, b2 = (a + 2 * k) % 8, (b + 2 * k) % 8
        other[a2], other[b2] = b2, a2
        kind[a2] = kind[b2] = KIND_OF_CHAR[ch]
    return tuple(other), tuple(kind)


def _corner_kinds(other: tuple[int, ...], kind: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    near, far, corner = [], [], [-1] * 8
    for c in range(4):
        a, b = near_pair(c)
        near.append(kind[a] if other[a] == b else MIX)
        a, b = far_pair(c)
        far.append(kind[a] if other[a] == b else MIX)
    for p in range(8):
        for c in range(4):
            if {p, other[p]} in ({*near_pair(c)}, {*far_pair(c)}):
                corner[p] = c
    lobes = tuple(c for c in range(4) if all(kind[p] == X for p in near_pair(c)))
    return tuple(near), tuple(far), tuple(corner), lobes


# per design-rotation index dr = 4*design + k
OTHER: list[tuple[int, ...]] = []
KIND: list[tuple[int, ...]] = []
NEAR: list[tuple[int, ...]] = []  # slot kind of each corner's near pair
FAR: list[tuple[int, ...]] = []
STROKE_CORNER: list[tuple[int, ...]] = []  # corner a stroke runs around, -1 for none
LOBES: list[tuple[int, ...]] = []  # corners of the two lobes of an X tile, () otherwise
for _d in range(8):
    for _k in range(4):
        _o, _kd = _rotated(_d, _k)
        _n, _f, _c, _lb = _corner_kinds(_o, _kd)
        OTHER.append(_o)
        KIND.append(_kd)
        NEAR.append(_n)
        FAR.append(_f)
        STROKE_CORNER.append(_c)
        LOBES.append(_lb)
NEAR_ARR = np.array(NEAR, dtype=np.int8).reshape(8, 4, 4)  # [design, k, corner]
FAR_ARR = np.array(FAR, dtype=np.int8).reshape(8, 4, 4)


def tile_value_of_strokes(design: int) -> int:
    """OGO-09: the sum of a design's potential points (an X pair counts 8)."""
    return sum(STROKE_POINTS[KIND_OF_CHAR[ch]] for _a, _b, ch in DESIGNS[DESIGN_IDS[design]][1])


# ------------------------------------------------------------------ squares, vertices
CORNER_OFFSET = ((1, 1), (1, 0), (0, 0), (0, 1))  # corner c of square (f, r) is vertex (f+dx, r+dy)
SIDE_STEP = ((0, 1), (1, 0), (0, -1), (-1, 0))  # N E S W


def corner_vertex(sq: int, c: int) -> int:
    dx, dy = CORNER_OFFSET[c]
    return (sq // 5 + dy) * 6 + sq % 5 + dx


VERTEX_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(corner_vertex(s, c) for c in range(4)) for s in range(N_SQ)
)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (s // 5 + dy) * 5 + s % 5 + dx for dx, dy in SIDE_STEP if 0 <= s % 5 + dx < 5 and 0 <= s // 5 + dy < 5
    )
    for s in range(N_SQ)
)
NEIGHBOUR_BITS: tuple[int, ...] = tuple(sum(1 << t for t in NEIGHBOURS[s]) for s in range(N_SQ))
#: squares sharing a vertex with each square (their slot signatures change when it changes)
AROUND: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(N_SQ) if set(VERTEX_OF[t]) & set(VERTEX_OF[s])) for s in range(N_SQ)
)
ADJ = np.zeros((N_SQ, N_SQ), dtype=np.int8)
for _s in range(N_SQ):
    for _t in NEIGHBOURS[_s]:
        ADJ[_s, _t] = 1


def _square_at_slot(v: int, c: int) -> int:
    """The square whose corner ``c`` lies on vertex ``v`` (-1 off the board)."""
    dx, dy = CORNER_OFFSET[c]
    f, r = v % 6 - dx, v // 6 - dy
    return r * 5 + f if 0 <= f < 5 and 0 <= r < 5 else -1


SLOT_SQUARE: tuple[int, ...] = tuple(_square_at_slot(i // 4, i % 4) for i in range(4 * N_V))
FRAME_KIND: dict[int, int] = {VERTEX_OF_NAME[n]: KIND_OF_CHAR[k] for n, k in FRAME.items()}
#: slot kinds of an empty board (the frame fills the slots outside it; far pairs never join there)
NEAR0: tuple[int, ...] = tuple(EMPTY if SLOT_SQUARE[i] >= 0 else FRAME_KIND[i // 4] for i in range(4 * N_V))
FAR0: tuple[int, ...] = tuple(EMPTY if SLOT_SQUARE[i] >= 0 else MIX for i in range(4 * N_V))
#: OTHERS[4*s + c]: the three other slots of the vertex at corner c of square s
OTHERS = np.array(
    [[4 * VERTEX_OF[s][c] + c2 for c2 in range(4) if c2 != c] for s in range(N_SQ) for c in range(4)],
    dtype=np.intp,
)


# ------------------------------------------------------------------------- ports
def _port_xy(g: int) -> tuple[int, int]:
    s, p = divmod(g, 8)
    px, py = ((1, 4), (3, 4), (4, 3), (4, 1), (3, 0), (1, 0), (0, 1), (0, 3))[p]
    return 4 * (s % 5) + px, 4 * (s // 5) + py


def _links() -> tuple[list[int], list[int]]:
    link, link_kind = [-1] * 200, [0] * 200
    border: list[int] = []
    for g in range(200):
        s, p = divmod(g, 8)
        dx, dy = SIDE_STEP[p // 2]
        f, r = s % 5 + dx, s // 5 + dy
        if 0 <= f < 5 and 0 <= r < 5:
            link[g] = 8 * (r * 5 + f) + ((p + 5) % 8 if p % 2 == 0 else (p + 3) % 8)
        else:
            border.append(g)
    # frame: the two border ports one unit from a border vertex are joined around it
    for v in range(N_V):
        vx, vy = 4 * (v % 6), 4 * (v // 6)
        near = [g for g in border if abs(_port_xy(g)[0] - vx) + abs(_port_xy(g)[1] - vy) == 1]
        if len(near) == 2:
            a, b = near
            link[a], link[b] = b, a
            link_kind[a] = link_kind[b] = FRAME_KIND[v]
    assert all(x >= 0 for x in link)
    return link, link_kind


LINK, LINK_KIND = _links()


# ---------------------------------------------------------------------- tracing
def trace(design: list[int], rot: list[int], start: int) -> list[tuple[int, int]] | None:
    """OGO-05: follow the line from global port ``start`` (on a placed tile).

    Returns the closed line as ``(square or -1 for the frame, kind)`` per stroke, or
    ``None`` when it is open. A line that can no longer score (a dead stroke, or longer
    than an 8's eight strokes) is reported as ``None`` too: callers only want scoring lines.
    """
    g = start
    line: list[tuple[int, int]] = []
    while True:
        s = g >> 3
        dr = 4 * design[s] + rot[s]
        kind = KIND[dr][g & 7]
        if kind == L or len(line) > 8:
            return None
        line.append((s, kind))
        g2 = (s << 3) | OTHER[dr][g & 7]
        h = LINK[g2]
        if LINK_KIND[g2]:
            line.append((-1, LINK_KIND[g2]))
        if design[h >> 3] < 0:
            return None
        if h == start:
            return line
        g = h


def classify(line: list[tuple[int, int]], lobes_may_be_square: bool) -> str | None:
    """OGO-06: 'small', 'big', 'square', 'eight' or None for a closed line."""
    kinds = [k for _s, k in line]
    xs = [i for i, k in enumerate(kinds) if k == X]
    if not xs:
        first = kinds[0]
        if first in SHAPE_OF_KIND and all(k == first for k in kinds):
            return SHAPE_NAMES[SHAPE_OF_KIND[first]]
        return None
    if len(xs) != 2 or line[xs[0]][0] != line[xs[1]][0]:
        return None
    allowed = (S, Q) if lobes_may_be_square else (S,)
    for lobe in (kinds[xs[0] + 1 : xs[1]], kinds[xs[1] + 1 :] + kinds[: xs[0]]):
        if not lobe or lobe[0] not in allowed or any(k != lobe[0] for k in lobe):
            return None
    return "eight"


def closed_shapes(
    design: list[int], rot: list[int], sq: int, lobes_may_be_square: bool
) -> tuple[list[tuple[int, int]], list[int]]:
    """OGO-08: every shape closed through the tile on ``sq``.

    Returns ``([(shape index, vertex), ...], [X-tile square of each 8])``.
    """
    shapes: list[tuple[int, int]] = []
    eights: list[int] = []
    seen: set[int] = set()
    dr = 4 * design[sq] + rot[sq]
    for p in range(8):
        if p in seen:
            continue
        seen.add(p)
        seen.add(OTHER[dr][p])
        line = trace(design, rot, 8 * sq + p)
        if line is None:
            continue
        _mark_ports(design, rot, sq, 8 * sq + p, seen)
        name = classify(line, lobes_may_be_square)
        if name == "eight":
            eights.append(next(s for s, k in line if k == X))
        elif name is not None:
            c = STROKE_CORNER[dr][p]  # the line starts on this tile's stroke
            shapes.append((SHAPE_NAMES.index(name), VERTEX_OF[sq][c]))
    return shapes, eights


def _mark_ports(design: list[int], rot: list[int], sq: int, start: int, seen: set[int]) -> None:
    """Mark every port of ``sq`` on the closed line from ``start`` as traced."""
    g = start
    while True:
        s = g >> 3
        q = OTHER[4 * design[s] + rot[s]][g & 7]
        if s == sq:
            seen.add(g & 7)
            seen.add(q)
        g = LINK[(s << 3) | q]
        if g == start:
            return
