"""Octi board geometry: squares, directions, bases and precomputed neighbour tables.

Squares are flattened rank by rank, files left to right (absolute frame, player_0 at
the bottom)::

    basic 6x7                    index = (rank - 1) * W + file_index   (a = 0)
    7 | 36 37 38 39 40 41
    6 | 30 31 32 33 34 35        e.g. c2 = 1*6 + 2 = 8, d6 = 5*6 + 3 = 33
    ...
    1 |  0  1  2  3  4  5
        a  b  c  d  e  f

The 9x9 board is the same with W = H = 9 (c3 = 20, e7 = 58).

Directions are absolute socket indices, clockwise from N (toward rank H, player_1's
side): N=0 NE=1 E=2 SE=3 S=4 SW=5 W=6 NW=7. A seat's egocentric direction is
``(abs + 4 * seat) % 8`` (player_1 looks south), which is its own inverse.
"""

from __future__ import annotations

from dataclasses import dataclass

DIR_NAMES: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIR_INDEX: dict[str, int] = {n: i for i, n in enumerate(DIR_NAMES)}
#: (dfile, drank) of each absolute direction
DIR_DELTAS: tuple[tuple[int, int], ...] = (
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
)
FILES = "abcdefghi"

#: set bits / unset bits of every 8-bit prong mask, ascending direction
SET_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(d for d in range(8) if m >> d & 1) for m in range(256))
FREE_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in range(8) if not m >> d & 1) for m in range(256)
)

# Bases as (file index, rank index), in each owner's own left-to-right order (OCT-01, OCT-02).
# player_0 looks north, so its left-to-right is ascending file; player_1's is descending.
_BASES_BASIC = (((1, 1), (2, 1), (3, 1), (4, 1)), ((4, 5), (3, 5), (2, 5), (1, 5)))
_BASES_X = (((2, 2), (4, 2), (6, 2)), ((6, 6), (4, 6), (2, 6)))


@dataclass(frozen=True)
class Geometry:
    """Everything about one board layout that never changes during a game."""

    width: int
    height: int
    edgeless: bool
    #: NEIGH[sq][d]: the neighbour square of sq in absolute direction d, or -1 off the board
    neigh: tuple[tuple[int, ...], ...]
    #: bases[seat]: that seat's base squares in its own left-to-right order
    bases: tuple[tuple[int, ...], ...]
    #: egocentric base list of each seat: own bases then enemy bases, both in its left-to-right order
    ego_bases: tuple[tuple[int, ...], ...]
    #: enemy_base_set[seat]: squares of the bases of seat's opponent
    enemy_base_set: tuple[frozenset[int], ...]
    #: square names, "a1" ...
    names: tuple[str, ...]
    #: ROT[sq]: the square seen by player_1 (rotated 180 degrees)
    rot: tuple[int, ...]

    @property
    def size(self) -> int:
        return self.width * self.height

    def square(self, name: str) -> int:
        """Index of a square name (``ValueError`` if not on this board)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"no square {name!r} on a {self.width}x{self.height} board") from None


def _build(
    width: int, height: int, edgeless: bool, raw_bases: tuple[tuple[tuple[int, int], ...], ...]
) -> Geometry:
    def idx(x: int, y: int) -> int:
        return y * width + x

    neigh = []
    for sq in range(width * height):
        x, y = sq % width, sq // width
        row = []
        for dx, dy in DIR_DELTAS:
            nx, ny = x + dx, y + dy
            if edgeless:
                nx, ny = nx % width, ny % height
            row.append(idx(nx, ny) if 0 <= nx < width and 0 <= ny < height else -1)
        neigh.append(tuple(row))
    bases = tuple(tuple(idx(x, y) for x, y in side) for side in raw_bases)
    # The enemy bases in my left-to-right order are the enemy's own order reversed.
    ego = (bases[0] + bases[1][::-1], bases[1] + bases[0][::-1])
    names = tuple(f"{FILES[sq % width]}{sq // width + 1}" for sq in range(width * height))
    rot = tuple(width * height - 1 - sq for sq in range(width * height))
    return Geometry(
        width,
        height,
        edgeless,
        tuple(neigh),
        bases,
        ego,
        (frozenset(bases[1]), frozenset(bases[0])),
        names,
        rot,
    )


GEOMETRIES: dict[tuple[bool, bool], Geometry] = {
    (big, edgeless): _build(9 if big else 6, 9 if big else 7, edgeless, _BASES_X if big else _BASES_BASIC)
    for big in (False, True)
    for edgeless in (False, True)
}


def geometry(variant: str, edgeless: bool) -> Geometry:
    """The shared geometry of a variant (``basic`` is 6x7, the X variants 9x9)."""
    return GEOMETRIES[(variant != "basic", edgeless)]
