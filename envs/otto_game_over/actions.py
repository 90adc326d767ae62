"""The flat action layout (spec §7) and the secret card kinds; no state, no strings.

index        meaning
0-199        placement: 100*t + 4*square + k    (t = 0 drawn, 1 table; k = orientation)
200          no card
201 + E      card <effect>                      (E below)
2713 + E     card joker as <effect>
5225         card infinity
5226         card joker as infinity
5227         keep infinity

effect E     0 time-travel | 1+j magnetic-inversion player_j | 5 revolution-cw
             6 revolution-acw | 7 meteorite
             8 + 100*from + 4*to + k quantum-leap from to r<k> | 2508+j alien-kidnapping player_j
"""

from __future__ import annotations

N_ACTIONS = 5228
NO_CARD = 200
CARD_BASE = 201
JOKER_BASE = 2713
CARD_INFINITY = 5225
JOKER_INFINITY = 5226
KEEP_INFINITY = 5227

E_TIME_TRAVEL = 0
E_MAGNETIC = 1
E_REV_CW = 5
E_REV_ACW = 6
E_METEORITE = 7
E_QUANTUM = 8
E_ALIEN = 2508
N_EFFECTS = 2512

# secret card kinds
TIME_TRAVEL, MAGNETIC, REV_CW, REV_ACW, METEORITE, QUANTUM, ALIEN, INFINITY, JOKER = range(9)
CARD_NAMES: tuple[str, ...] = (
    "time-travel",
    "magnetic-inversion",
    "revolution-cw",
    "revolution-acw",
    "meteorite",
    "quantum-leap",
    "alien-kidnapping",
    "infinity",
    "joker",
)
CARD_OF_NAME: dict[str, int] = {n: i for i, n in enumerate(CARD_NAMES)}
#: the deck of spec §1.5: 4 of each of the eight kinds + 1 joker
DECK: tuple[int, ...] = tuple(k for k in range(8) for _ in range(4)) + (JOKER,)


def effect_kind(e: int) -> int:
    """The card kind whose effect code is ``e``."""
    if e == E_TIME_TRAVEL:
        return TIME_TRAVEL
    if e < E_REV_CW:
        return MAGNETIC
    if e == E_REV_CW:
        return REV_CW
    if e == E_REV_ACW:
        return REV_ACW
    if e == E_METEORITE:
        return METEORITE
    if e < E_ALIEN:
        return QUANTUM
    return ALIEN


EFFECT_KIND: tuple[int, ...] = tuple(effect_kind(e) for e in range(N_EFFECTS))
