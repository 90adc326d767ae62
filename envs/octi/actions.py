"""The flat action index layout (spec §7), shared by the engine and the codec.

With P pods per player and K bases per player (e = egocentric direction, b = egocentric
base index: own bases 0..K-1 then enemy bases K..2K-1, each in the mover's left-to-right):

    ADD(p, e)          8p + e
    STEP(p, e)         8P + 8p + e
    JUMP(p, e)         16P + 8p + e
    ENTER(b)           24P + b
    LIBERATE(b)        24P + 2K + b
    WITH .. SPARE      24P + 4K + 0..4   (WITH, WITHOUT, STOP, CAPTURE, SPARE)
    REPOSITION(p,f,t)  24P + 4K + 5 + 64p + 8f + t     (only with allow_reposition)

basic: 117 actions (373 with reposition); X: 185 (633).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

ADD, STEP, JUMP, ENTER, LIBERATE, WITH, WITHOUT, STOP, CAPTURE, SPARE, REPOSITION = range(11)
KIND_NAMES = (
    "prong",
    "step",
    "jump",
    "enter",
    "liberate",
    "with",
    "without",
    "stop",
    "capture",
    "spare",
    "reposition",
)


@dataclass(frozen=True)
class Layout:
    """Offsets of each action kind and the decoded form of every index."""

    pods: int
    bases: int
    reposition: bool
    add: int
    step: int
    jump: int
    enter: int
    liberate: int
    single: int
    repo: int
    size: int
    #: DECODE[a] = (kind, x, y, z): pod/base and egocentric directions (unused parts 0)
    decode: tuple[tuple[int, int, int, int], ...]


@cache
def layout(pods: int, bases: int, reposition: bool) -> Layout:
    add, step, jump = 0, 8 * pods, 16 * pods
    enter = 24 * pods
    liberate = enter + 2 * bases
    single = liberate + 2 * bases
    repo = single + 5
    size = repo + (64 * pods if reposition else 0)
    dec: list[tuple[int, int, int, int]] = []
    for kind in (ADD, STEP, JUMP):
        dec += [(kind, p, e, 0) for p in range(pods) for e in range(8)]
    dec += [(ENTER, b, 0, 0) for b in range(2 * bases)]
    dec += [(LIBERATE, b, 0, 0) for b in range(2 * bases)]
    dec += [(k, 0, 0, 0) for k in (WITH, WITHOUT, STOP, CAPTURE, SPARE)]
    if reposition:
        dec += [(REPOSITION, p, f, t) for p in range(pods) for f in range(8) for t in range(8)]
    assert len(dec) == size
    return Layout(pods, bases, reposition, add, step, jump, enter, liberate, single, repo, size, tuple(dec))
