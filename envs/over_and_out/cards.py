"""Card kinds, their tokens and the precomputed playability tables of Over and Out.

The 11 change-and-out card kinds are numbered in action-space order (spec §7); the
action index of ``play <card>`` is the kind's number and ``bust`` is :data:`BUST`.

    kind   0   1   2   3   4   5   6    7     8         9        10           (11)
    token  0   1   2   3   4   5   x2  -10  spin-out  top-out  topsy-turvy   bust

A set of kinds is a bit set (bit k = kind k), so "which cards of this hand are
playable" is one AND of the hand's bits with :data:`PLAYABLE_BITS`.
"""

from __future__ import annotations

import numpy as np

TOKENS: tuple[str, ...] = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "x2",
    "-10",
    "spin-out",
    "top-out",
    "topsy-turvy",
)
NUM_KINDS = len(TOKENS)
KIND_OF: dict[str, int] = {t: k for k, t in enumerate(TOKENS)}

X2, MINUS10, SPIN_OUT, TOP_OUT, TOPSY_TURVY = 6, 7, 8, 9, 10
BUST = 11
NUM_ACTIONS = 12
BUST_BIT = 1 << BUST

ACTION_STRINGS: tuple[str, ...] = (*(f"play {t}" for t in TOKENS), "bust")
ACTION_OF: dict[str, int] = {s: a for a, s in enumerate(ACTION_STRINGS)}

TIPTOP_VALUES: tuple[int, ...] = (22, 33, 44, 55, 66)
TIPTOP_INDEX: dict[int, int] = {v: i for i, v in enumerate(TIPTOP_VALUES)}
MAX_TIPTOP = TIPTOP_VALUES[-1]

#: spec §1, the default change-and-out deck (72 cards)
DEFAULT_DECK: dict[str, int] = {
    "0": 8,
    "1": 8,
    "2": 8,
    "3": 8,
    "4": 8,
    "5": 8,
    "x2": 4,
    "-10": 6,
    "spin-out": 6,
    "top-out": 4,
    "topsy-turvy": 4,
}

#: bit of each kind, for building a hand's bit set
KIND_BIT: tuple[int, ...] = tuple(1 << k for k in range(NUM_KINDS))


def _playable(kind: int, total: int, limit: int, minus10_always: bool) -> bool:
    """OAO-18..OAO-24 and OAO-42: may ``kind`` be played at total T and Tip Top L?"""
    if kind <= 5:
        return total + kind <= limit
    if kind == X2:
        return 2 * total <= limit
    if kind == MINUS10:
        return minus10_always or total >= 10
    return True  # 0 (kind 0 handled above), spin-out, top-out, topsy-turvy


def _playable_table(minus10_always: bool) -> tuple[tuple[int, ...], ...]:
    table = []
    for limit in range(MAX_TIPTOP + 1):
        row = []
        for total in range(MAX_TIPTOP + 1):
            bits = 0
            for kind in range(NUM_KINDS):
                if _playable(kind, total, limit, minus10_always):
                    bits |= 1 << kind
            row.append(bits)
        table.append(tuple(row))
    return tuple(table)


#: PLAYABLE_BITS[minus10_always][L][T] = bit set of the kinds playable at total T, limit L
PLAYABLE_BITS: tuple[tuple[tuple[int, ...], ...], ...] = (_playable_table(False), _playable_table(True))


def _mask_table() -> np.ndarray:
    table = np.zeros((1 << NUM_ACTIONS, NUM_ACTIONS), dtype=np.int8)
    for bits in range(1 << NUM_ACTIONS):
        for a in range(NUM_ACTIONS):
            table[bits, a] = (bits >> a) & 1
    table.setflags(write=False)
    return table


#: MASKS[legal bits incl. bust] = the int8 action mask (read-only; callers get copies)
MASKS: np.ndarray = _mask_table()

#: LEGAL_LISTS[legal bits incl. bust] = ascending legal action indices
LEGAL_LISTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a in range(NUM_ACTIONS) if (bits >> a) & 1) for bits in range(1 << NUM_ACTIONS)
)
