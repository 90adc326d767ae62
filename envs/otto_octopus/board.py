"""The ocean of Otto the Octopus: geometry, tile kinds, arms and placement legality.

Squares are flattened rank-major, ``S = (rank - 1) * 8 + file`` (file a = 0)::

      a  b  c  d  e  f  g  h          index of each square
  8   C  #  #  #  #  #  #  C      8   56 57 58 59 60 61 62 63
  7   #  a  .  .  .  .  a  #      7   48 49 50 51 52 53 54 55
  6   #  .  a  ^  ^  a  .  #      6   40 41 42 43 44 45 46 47
  5   #  .  <  OO OO >  .  #      5   32 33 34 35 36 37 38 39
  4   #  .  <  OO OO >  .  #      4   24 25 26 27 28 29 30 31
  3   #  .  a  v  v  a  .  #      3   16 17 18 19 20 21 22 23
  2   #  a  .  .  .  .  a  #      2    8  9 10 11 12 13 14 15
  1   C  #  #  #  #  #  #  C      1    0  1  2  3  4  5  6  7

Directions are ``N=0, E=1, S=2, W=3``; a right turn is ``+1 (mod 4)``. Every arm is
right-handed (spec §1.2), so a tile kind alone fixes the heading it leaves with:
``straight`` keeps it, ``turn-in`` turns right, ``turn-out`` turns left.

:class:`Ocean` holds the placed tiles and the 8 arms and answers "which squares may take
a tile of this kind" with the binding test C1-C4 of OTP-07, incrementally: the frontier
(empty squares next to an occupied one) and the moray exclusion zone are kept up to
date, the rest is a handful of checks over the 8 arms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# ----------------------------------------------------------------------- tile kinds
KINDS: tuple[str, ...] = (
    "straight", "turn-in", "turn-out", "end", "end-shell",
    "clownfish", "butterflyfish", "jellyfish", "pufferfish", "starfish",
    "seahorse", "shark", "moray", "anglerfish", "minnow", "bubbles",
)  # fmt: skip
NUM_KINDS = 16
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
STRAIGHT, TURN_IN, TURN_OUT, END, END_SHELL = 0, 1, 2, 3, 4
CLOWNFISH, BUTTERFLYFISH, JELLYFISH, PUFFERFISH, STARFISH = 5, 6, 7, 8, 9
SEAHORSE, SHARK, MORAY, ANGLERFISH, MINNOW, BUBBLES = 10, 11, 12, 13, 14, 15
ARM_KINDS = (STRAIGHT, TURN_IN, TURN_OUT)
END_KINDS = (END, END_SHELL)
FISH_KINDS = tuple(range(CLOWNFISH, BUBBLES))  # the 10 fish; bubbles are not a fish
TILE_MIX: tuple[int, ...] = (12, 6, 6, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 7)  # 60 tiles
NUM_TILES = 60
NUM_ARM_TILES = 24
# printed points (ends and minnows are computed; see Ocean.points)
POINTS: tuple[int, ...] = (1, 1, 1, 0, 0, 1, 1, 1, 1, 3, 2, 0, 2, 3, 1, 0)
MINNOW_POINTS = (0, 1, 3, 6)  # by size of the minnow group the new tile joins
TURN_OF_KIND = (0, 1, 3)  # heading change of straight / turn-in (right) / turn-out (left)

# ---------------------------------------------------------------------- geometry
FILES = "abcdefgh"
SQUARES: tuple[str, ...] = tuple(f + str(r) for r in range(1, 9) for f in FILES)
SQUARE_INDEX = {s: i for i, s in enumerate(SQUARES)}
N, E, S, W = 0, 1, 2, 3
DIR_NAMES = "NESW"
_DF = (0, 1, 0, -1)
_DR = (1, 0, -1, 0)


def _step(sq: int, d: int) -> int:
    f, r = sq % 8 + _DF[d], sq // 8 + _DR[d]
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else -1


STEP: tuple[tuple[int, ...], ...] = tuple(tuple(_step(s, d) for d in range(4)) for s in range(64))
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(t for t in STEP[s] if t >= 0) for s in range(64))

OTTO_SQUARES = tuple(SQUARE_INDEX[s] for s in ("d4", "e4", "d5", "e5"))
CORAL = frozenset(SQUARE_INDEX[s] for s in ("a1", "h1", "a8", "h8"))
ALGAE = frozenset(SQUARE_INDEX[s] for s in ("b7", "c6", "f6", "g7", "b2", "c3", "f3", "g2"))
PERIMETER = frozenset(s for s in range(64) if s % 8 in (0, 7) or s // 8 in (0, 7))
# the 8 arms, clockwise from the north-west stub: (start square, outward heading)
ARMS: tuple[tuple[int, int], ...] = tuple(
    (SQUARE_INDEX[s], d)
    for s, d in (("d6", N), ("e6", N), ("f5", E), ("f4", E), ("e3", S), ("d3", S), ("c4", W), ("c5", W))
)
NUM_ARMS = 8
ARM_START = tuple(sq for sq, _ in ARMS)
START_SET = frozenset(ARM_START)
ARM_OF_START = {sq: a for a, sq in enumerate(ARM_START)}
# exits of an unstarted arm: one step straight, right, left of its start, never a start square
EXITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        t
        for t in (STEP[sq][d], STEP[sq][(d + 1) % 4], STEP[sq][(d + 3) % 4])
        if t >= 0 and t not in START_SET
    )
    for sq, d in ARMS
)
# square sets as 64-bit Python ints (bit S = square S): set algebra in ~50 ns per operation
BIT = tuple(1 << s for s in range(64))
PERIMETER_BITS = sum(BIT[s] for s in PERIMETER)
START_BITS = sum(BIT[s] for s in START_SET)
NEIGHBOUR_BITS = tuple(sum(BIT[t] for t in NEIGHBOURS[s]) for s in range(64))
EXIT_BITS = tuple(sum(BIT[t] for t in ex) for ex in EXITS)
OFF_BOARD_BIT = 1 << 64  # stands for "off the board" in the tip bit sets below
START_OFF_BITS = START_BITS | OFF_BOARD_BIT  # never a new tip (C1)


# NEXT_TIP_BITS[4 * sq + heading]: bits of the tips an arm tile on sq leaves for an arm
# arriving with that heading: straight, turn-in, turn-out, and the three together
def _tip_bits(sq: int, d: int) -> tuple[int, int, int, int]:
    s, r, left = (
        OFF_BOARD_BIT if t < 0 else BIT[t]
        for t in (STEP[sq][d], STEP[sq][(d + 1) % 4], STEP[sq][(d + 3) % 4])
    )
    return s, r, left, s | r | left


NEXT_TIP_BITS = tuple(_tip_bits(sq, d) for sq in range(64) for d in range(4))


_ARRAY_MEMO: dict[int, np.ndarray] = {}


def _memo_array(bits: int) -> np.ndarray:
    if len(_ARRAY_MEMO) > 4096:  # bounded: boards repeat little across games
        _ARRAY_MEMO.clear()
    arr = _ARRAY_MEMO[bits] = bits_to_array(bits).view(np.int8)  # the mask's dtype: no cast
    arr.flags.writeable = False
    return arr


def bits_to_array(bits: int) -> np.ndarray:
    """uint8[64] with 1 at every square of the bit set."""
    return np.unpackbits(np.frombuffer(bits.to_bytes(8, "little"), dtype=np.uint8), bitorder="little")


# board planes of the observation (see encode.py): 16 tile kinds, then these
PLANE_OTTO, PLANE_EXIT, PLANE_TIP = 16, 17, 21  # exit: 4 planes N/E/S/W
PLANE_PERIMETER, PLANE_CORAL, PLANE_ALGAE, PLANE_UNUSED_START, PLANE_MORAY = 22, 23, 24, 25, 26
NUM_PLANES = 27
# flat offsets of those planes in the observation
PLANE_TIP_AT, PLANE_UNUSED_START_AT, PLANE_MORAY_AT = (
    64 * PLANE_TIP,
    64 * PLANE_UNUSED_START,
    64 * PLANE_MORAY,
)


OBS_VECTOR_SIZE = 106  # the observation's entries after the planes (see encode.py)


def _initial_obs() -> np.ndarray:
    """A whole observation buffer: the board planes of the empty ocean, then zeros."""
    obs = np.zeros(NUM_PLANES * 64 + OBS_VECTOR_SIZE, dtype=np.float32)
    planes = obs[: NUM_PLANES * 64].reshape(NUM_PLANES, 64)
    for sq in OTTO_SQUARES:
        planes[PLANE_OTTO, sq] = 1.0
    for plane, squares in ((PLANE_PERIMETER, PERIMETER), (PLANE_CORAL, CORAL), (PLANE_ALGAE, ALGAE),
                           (PLANE_UNUSED_START, START_SET)):  # fmt: skip
        for sq in squares:
            planes[plane, sq] = 1.0
    return obs


INITIAL_OBS = _initial_obs()

EMPTY = -1
OTTO = 16  # board code of Otto's squares
UNSTARTED, STARTED, FINISHED = 0, 1, 2


class Ocean:
    """Placed tiles and the 8 arms (the public board)."""

    __slots__ = (
        "tiles", "exit_dir", "arm_of", "arm_state", "arm_tip", "arm_heading", "arm_len",
        "tip_arm", "arm_tiles_placed", "frontier", "moray_block", "placements", "obs", "_table", "_table_rules",
        "occupied", "tip_bits",
    )  # fmt: skip

    def __init__(self) -> None:
        self.tiles = [EMPTY] * 64
        self.exit_dir = [-1] * 64  # heading an arm tile leaves its square with
        self.arm_of = [-1] * 64  # arm index of an arm or end tile
        self.arm_state = [UNSTARTED] * NUM_ARMS
        self.arm_tip = [-1] * NUM_ARMS
        self.arm_heading = [d for _, d in ARMS]
        self.arm_len = [0] * NUM_ARMS  # arm tiles (not the end) in the arm
        self.tip_arm = [-1] * 64
        self.arm_tiles_placed = 0
        self.frontier = 0  # bit set: empty squares next to a tile
        self.moray_block = 0  # bit set: squares next to a moray (under the fish rules)
        self.occupied = sum(BIT[sq] for sq in OTTO_SQUARES)  # bit set: Otto and every tile
        self.tip_bits = 0  # bit set: tips of the started, unfinished arms
        self.placements: list[tuple[int, int]] = []  # (kind, square) in play order
        # an observation buffer whose board planes (``plane * 64 + S``) are kept current;
        # observe() copies it and fills in the rest
        self.obs = INITIAL_OBS.copy()
        # hand-independent placement table, built lazily once per board (see placement_table)
        self._table: tuple[list[Any], list[bool]] | None = None
        self._table_rules = True
        for sq in OTTO_SQUARES:
            self.tiles[sq] = OTTO
        for sq in OTTO_SQUARES:
            self._occupy_frontier(sq)

    def clone(self) -> Ocean:
        o = Ocean.__new__(Ocean)
        o.tiles = self.tiles[:]
        o.exit_dir = self.exit_dir[:]
        o.arm_of = self.arm_of[:]
        o.arm_state = self.arm_state[:]
        o.arm_tip = self.arm_tip[:]
        o.arm_heading = self.arm_heading[:]
        o.arm_len = self.arm_len[:]
        o.tip_arm = self.tip_arm[:]
        o.arm_tiles_placed = self.arm_tiles_placed
        o.frontier = self.frontier
        o.moray_block = self.moray_block
        o.occupied, o.tip_bits = self.occupied, self.tip_bits
        o.placements = self.placements[:]
        o.obs = self.obs.copy()
        o._table, o._table_rules = self._table, self._table_rules  # never mutated: shared
        return o

    def _occupy_frontier(self, sq: int) -> None:
        frontier = self.frontier & ~BIT[sq]
        tiles = self.tiles
        for t in NEIGHBOURS[sq]:
            if tiles[t] == EMPTY:
                frontier |= BIT[t]
        self.frontier = frontier

    # ------------------------------------------------------------------ arms
    def arm_target(self, arm: int) -> int:
        """Square an arm tile for ``arm`` would go on (-1 for a finished arm)."""
        st = self.arm_state[arm]
        if st == UNSTARTED:
            return ARM_START[arm]
        return self.arm_tip[arm] if st == STARTED else -1

    def open_exits(self) -> list[tuple[int, list[int]]]:
        """(arm, its usable exits) for every unstarted arm: exits that are empty and no tip."""
        tiles, tip_arm = self.tiles, self.tip_arm
        return [
            (a, [e for e in EXITS[a] if tiles[e] == EMPTY and tip_arm[e] < 0])
            for a in range(NUM_ARMS)
            if self.arm_state[a] == UNSTARTED
        ]

    def arm_tile_ok(self, arm: int, kind: int, exits: list[tuple[int, list[int]]] | None = None) -> bool:
        """OTP-05/07: may an arm tile of ``kind`` extend ``arm`` (C1-C4 hold afterwards)?"""
        st = self.arm_state[arm]
        if st == FINISHED:
            return False
        sq = ARM_START[arm] if st == UNSTARTED else self.arm_tip[arm]
        tip = STEP[sq][(self.arm_heading[arm] + TURN_OF_KIND[kind]) % 4]
        # C1: the new tip is on the board, empty and not a start square
        if tip < 0 or self.tiles[tip] != EMPTY or tip in START_SET:
            return False
        # C2: no other open arm aims at the same square (this arm's old tip is sq, not tip)
        if self.tip_arm[tip] >= 0:
            return False
        if exits is None:
            exits = self.open_exits()
        # C4: a started arm grows with one more arm tile, unstarted arms still need one each
        if st == STARTED and NUM_ARM_TILES - self.arm_tiles_placed - 1 < len(exits):
            return False
        # C3: every other unstarted arm keeps an exit (sq is a start or a tip: never an exit)
        for b, usable in exits:
            if b != arm and (not usable or (len(usable) == 1 and usable[0] == tip)):
                return False
        return True

    def nonarm_free(self, exits: list[tuple[int, list[int]]] | None = None) -> int:
        """Bit set of the squares a fish or bubbles may take, moray and anglerfish aside.

        Adjacent to a tile (OTP-01) and, by C1/C3 of OTP-07, never a start square, an
        arm's tip or the last free exit of an unstarted arm (OTP-08).
        """
        free = self.frontier & ~START_BITS
        for a in range(NUM_ARMS):
            if self.arm_state[a] == STARTED:
                free &= ~BIT[self.arm_tip[a]]
        for _, usable in self.open_exits() if exits is None else exits:
            if len(usable) == 1:
                free &= ~BIT[usable[0]]
        return free

    def placement_table(self, fish_rules: bool) -> tuple[list[Any], list[bool]]:
        """Per kind, where a tile of that kind may go now; and whether anywhere at all.

        Entry ``k`` is a list of squares for arm tiles and ends (kinds 0-4), a bit set
        for fish and bubbles. Legality never depends on the hand, so the table is
        built once per board and shared by every mask (and every clone) until the next
        placement. The arm-tile test is :meth:`arm_tile_ok` inlined: C3 only fails when
        the new tip is the last usable exit of another unstarted arm.
        """
        if self._table is not None and self._table_rules == fish_rules:
            return self._table
        arm_state = self.arm_state
        # C1/C2: a new tip is on the board, empty, no start square and no other arm's tip
        blocked = self.occupied | self.tip_bits | START_OFF_BITS
        lasts: list[tuple[int, int]] = []  # (unstarted arm, its only usable exit) - C3
        last_all = unstarted = 0
        for a in range(NUM_ARMS):
            if arm_state[a] == UNSTARTED:
                unstarted += 1
                usable = EXIT_BITS[a] & ~blocked
                if usable and not usable & (usable - 1):
                    lasts.append((a, usable))
                    last_all |= usable
        grow_ok = NUM_ARM_TILES - self.arm_tiles_placed - 1 >= unstarted  # C4
        straight: list[int] = []
        turn_in: list[int] = []
        turn_out: list[int] = []
        ends: list[int] = []
        arm_tip, arm_heading = self.arm_tip, self.arm_heading
        forbid_started = blocked | last_all
        for a in range(NUM_ARMS):
            st = arm_state[a]
            if st == STARTED:
                sq = arm_tip[a]
                ends.append(sq)
                if not grow_ok:
                    continue
                forbid = forbid_started
            elif st == UNSTARTED:
                sq = ARM_START[a]
                forbid = blocked
                for b, bit in lasts:
                    if b != a:  # its own last exit is where the arm may go
                        forbid |= bit
            else:
                continue
            t_straight, t_in, t_out, t_all = NEXT_TIP_BITS[4 * sq + arm_heading[a]]
            if not t_all & forbid:  # the common case: all three fit
                straight.append(sq)
                turn_in.append(sq)
                turn_out.append(sq)
                continue
            if not t_straight & forbid:
                straight.append(sq)
            if not t_in & forbid:
                turn_in.append(sq)
            if not t_out & forbid:
                turn_out.append(sq)
        # fish and bubbles: never a start square, a tip or a last usable exit (OTP-08)
        free = self.frontier & ~(blocked | last_all)
        fish = free & ~self.moray_block if fish_rules else free
        angler = fish & PERIMETER_BITS if fish_rules else fish
        entries: list[Any] = [straight, turn_in, turn_out, ends, ends, *([fish] * 8), angler, fish, free]
        has_fish = fish != 0
        has = [bool(straight), bool(turn_in), bool(turn_out), bool(ends), bool(ends),
               *([has_fish] * 8), angler != 0, has_fish, free != 0]  # fmt: skip
        self._table, self._table_rules = (entries, has), fish_rules
        return entries, has

    def can_place(self, hand: list[int], fish_rules: bool) -> bool:
        """Does any tile of ``hand`` have a legal placement?"""
        has = self.placement_table(fish_rules)[1]
        return any(has[k] for k in hand)

    def fill_placements(self, mask: np.ndarray, kinds: set[int], fish_rules: bool) -> None:
        """Set ``mask[64 * kind + square]`` for every legal placement of the ``kinds`` in hand."""
        entries, has = self.placement_table(fish_rules)
        for k in kinds:
            if not has[k]:
                continue
            if k <= END_SHELL:
                for sq in entries[k]:
                    mask[64 * k + sq] = 1
            else:
                arr = _ARRAY_MEMO.get(entries[k])
                mask[64 * k : 64 * k + 64] = _memo_array(entries[k]) if arr is None else arr

    def explain(self, kind: int, sq: int, fish_rules: bool) -> str | None:
        """Why placing ``kind`` on ``sq`` is illegal (``None`` if it is legal). Slow; for errors."""
        if self.tiles[sq] != EMPTY:
            return "the square is occupied (OTP-01)"
        if not self.frontier & BIT[sq]:
            return "the square touches no tile (OTP-01)"
        if kind <= TURN_OUT:
            for a in range(NUM_ARMS):
                if self.arm_target(a) == sq:
                    return (
                        None
                        if self.arm_tile_ok(a, kind)
                        else ("the arm could no longer be finished (OTP-05/OTP-07)")
                    )
            return "an arm tile goes only on a free arm start or an arm's tip (OTP-03/OTP-04)"
        if kind <= END_SHELL:
            return None if self.tip_arm[sq] >= 0 else "an end goes only on the tip of a started arm (OTP-06)"
        if fish_rules and kind == ANGLERFISH and sq not in PERIMETER:
            return "the anglerfish goes only on the perimeter (OTP-09)"
        if fish_rules and kind != BUBBLES and self.moray_block & BIT[sq]:
            return "no new fish next to a moray (OTP-10)"
        if not self.nonarm_free() & BIT[sq]:
            return "it would block an arm start or tip (OTP-07/OTP-08)"
        return None

    # --------------------------------------------------------------- scoring
    def minnow_group(self, sq: int) -> int:
        """Size of the minnow group a minnow on ``sq`` would join (itself included)."""
        seen = {sq}
        todo = [sq]
        while todo:
            s = todo.pop()
            for t in NEIGHBOURS[s]:
                if t not in seen and self.tiles[t] == MINNOW:
                    seen.add(t)
                    todo.append(t)
        return len(seen)

    def points(self, kind: int, sq: int) -> int:
        """OTP-11..15: points the mover scores for ``kind`` on ``sq`` (before placing it)."""
        if kind <= END_SHELL and kind >= END:
            base = 1 + self.arm_len[self.tip_arm[sq]]
            if kind == END_SHELL:
                base *= 2
        elif kind == MINNOW:
            base = MINNOW_POINTS[min(3, self.minnow_group(sq))]
        else:
            base = POINTS[kind]
        if sq in CORAL:
            base *= 2
        if sq in ALGAE:
            base += 1
        return base

    # ------------------------------------------------------------------ place
    def place(self, kind: int, sq: int, fish_rules: bool) -> None:
        """Put ``kind`` on ``sq`` (assumed legal) and update arms, frontier and moray zone."""
        self.tiles[sq] = kind
        self.occupied |= BIT[sq]
        self._table = None
        self.placements.append((kind, sq))
        self._occupy_frontier(sq)
        obs = self.obs
        obs[64 * kind + sq] = 1.0
        if kind <= TURN_OUT:
            arm = self.tip_arm[sq]
            if arm < 0:
                arm = ARM_OF_START[sq]
                obs[PLANE_UNUSED_START_AT + sq] = 0.0
            else:
                self.tip_arm[sq] = -1
                obs[PLANE_TIP_AT + sq] = 0.0
            heading = (self.arm_heading[arm] + TURN_OF_KIND[kind]) % 4
            tip = STEP[sq][heading]
            self.arm_heading[arm] = heading
            self.arm_state[arm] = STARTED
            self.arm_tip[arm] = tip
            self.tip_arm[tip] = arm
            self.tip_bits = (self.tip_bits & ~BIT[sq]) | BIT[tip]
            self.arm_len[arm] += 1
            self.arm_of[sq] = arm
            self.exit_dir[sq] = heading
            self.arm_tiles_placed += 1
            obs[PLANE_TIP_AT + tip] = 1.0
            obs[64 * (PLANE_EXIT + heading) + sq] = 1.0
        elif kind <= END_SHELL:
            arm = self.tip_arm[sq]
            obs[PLANE_TIP_AT + sq] = 0.0
            self.tip_arm[sq] = -1
            self.tip_bits &= ~BIT[sq]
            self.arm_state[arm] = FINISHED
            self.arm_tip[arm] = -1
            self.arm_of[sq] = arm
        elif kind == MORAY and fish_rules:
            self.moray_block |= NEIGHBOUR_BITS[sq]
            for t in NEIGHBOURS[sq]:
                obs[PLANE_MORAY_AT + t] = 1.0
