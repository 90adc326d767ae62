"""Observation tensor and action codec of Over and Out.

Action index (``Discrete(12)``): ``play <card>`` = the card kind's number (see
``cards.py``: 0-5 the numbers, 6 x2, 7 -10, 8 spin-out, 9 top-out, 10 topsy-turvy),
``bust`` = 11.

Observation ``float32[60]`` of seat ``me`` (all entries in [0, 1]); relative seat
k = (seat - me) mod N, k = 0 is ``me``, padded to 8 seats:

    [ 0:11]  own hand: count per card kind / 4
    [11]     T / 66
    [12:17]  L one-hot over (22, 33, 44, 55, 66)
    [17:22]  1 if that Tip Top value is still in the face-down Tip Top pile
    [22:33]  play pile (cards played since the last reshuffle) per kind / max(1, deck count)
    [33]     draw pile size / deck size
    [34]     1 if play runs counter-clockwise (after an odd number of spin-outs this round), else 0
    [35:59]  per relative seat k: 35+3k active, 36+3k chips / 4, 37+3k is dealer
    [59]     plays in this round / 100, clipped to 1
"""

from __future__ import annotations

import struct
from functools import lru_cache

import numpy as np

from envs.over_and_out.cards import (
    ACTION_OF,
    ACTION_STRINGS,
    NUM_ACTIONS,
    NUM_KINDS,
    TIPTOP_INDEX,
)
from envs.over_and_out.rules import State

__all__ = ["ACTION_OF", "ACTION_STRINGS", "NUM_ACTIONS", "OBS_SIZE", "observe"]

OBS_SIZE = 60
HAND, TOTAL, LIMIT, TIPTOP_LEFT, PLAYED, DRAW, DIRECTION, SEATS, ROUND_PLAYS = (
    0,
    11,
    12,
    17,
    22,
    33,
    34,
    35,
    59,
)
MAX_SEATS = 8


def observe(state: State, me: int) -> np.ndarray:
    """The observation of seat ``me`` (only what that player knows at the table)."""
    inv = state.config.inverse_counts
    played = state.play_pile
    rp = state.round_plays
    obs = [
        *(_hand_part(tuple(state.hands[me])) if state.chips[me] else _NO_HAND),
        state.total / 66.0,
        *_tiptop_part(state.tiptop, tuple(state.tiptop_pile)),
        *[played[k] * inv[k] for k in range(NUM_KINDS)],
        len(state.draw_pile) * inv[NUM_KINDS],
        1.0 if state.direction < 0 else 0.0,
        *_seats_part(tuple(state.chips), state.dealer, me),
        1.0 if rp >= 100 else rp / 100.0,
    ]
    # struct + bytearray: a writable float32 array ~30% faster than np.array(list)
    return np.frombuffer(bytearray(_PACK.pack(*obs)), dtype=np.float32)


_NO_HAND = (0.0,) * NUM_KINDS
_PACK = struct.Struct(f"<{OBS_SIZE}f")


@lru_cache(maxsize=4096)
def _hand_part(hand: tuple[int, ...]) -> tuple[float, ...]:
    part = [0.0] * NUM_KINDS
    for k in hand:
        part[k] += 0.25
    return tuple(part)


@lru_cache(maxsize=1024)
def _tiptop_part(limit: int, pile: tuple[int, ...]) -> tuple[float, ...]:
    part = [0.0] * 10
    part[TIPTOP_INDEX[limit]] = 1.0
    for v in pile:
        part[5 + TIPTOP_INDEX[v]] = 1.0
    return tuple(part)


@lru_cache(maxsize=8192)
def _seats_part(chips: tuple[int, ...], dealer: int, me: int) -> tuple[float, ...]:
    part = [0.0] * (3 * MAX_SEATS)
    n = len(chips)
    for k in range(n):
        seat = (me + k) % n
        if chips[seat]:
            part[3 * k] = 1.0
            part[3 * k + 1] = chips[seat] * 0.25
        if seat == dealer:
            part[3 * k + 2] = 1.0
    return tuple(part)
