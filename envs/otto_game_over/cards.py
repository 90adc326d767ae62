"""The secret cards (spec §4.6-4.7, OGO-27..47): legal targets and effects."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.game import note_event
from envs.otto_game_over import actions as A
from envs.otto_game_over import flow
from envs.otto_game_over.geometry import CENTRE, NO_TILE, VERTEX_OF

if TYPE_CHECKING:
    from envs.otto_game_over.rules import State

_ROTS = np.arange(4)
_START_KINDS = (A.TIME_TRAVEL, A.MAGNETIC, A.REV_CW, A.REV_ACW, A.METEORITE, A.QUANTUM, A.ALIEN)


def movable_squares(st: State) -> list[int]:
    """OGO-39: placed tiles with no corner on a marked vertex; c3 never moves."""
    marked = {v for (_shape, v), owner in st.shapes.items() if owner >= 0}
    return [
        sq
        for sq in range(25)
        if st.design[sq] >= 0 and sq != CENTRE and not marked.intersection(VERTEX_OF[sq])
    ]


def effects(st: State, seat: int, kind: int) -> np.ndarray:
    """OGO-32: the effect codes E of ``kind`` with a target, played by ``seat``."""
    if kind == A.TIME_TRAVEL:
        return np.array([A.E_TIME_TRAVEL])
    if kind == A.MAGNETIC:  # OGO-35: any other seat, partner included
        return np.array([A.E_MAGNETIC + j for j in range(st.n) if j != seat], dtype=np.intp)
    if kind == A.REV_CW:
        return np.array([A.E_REV_CW])
    if kind == A.REV_ACW:
        return np.array([A.E_REV_ACW])
    if kind == A.METEORITE:
        return np.array([A.E_METEORITE])
    if kind == A.QUANTUM:  # OGO-38/40: any empty square (never the origin), any orientation
        mov = np.array(movable_squares(st), dtype=np.intp)
        empty = np.array([s for s in range(25) if st.design[s] < 0], dtype=np.intp)
        idx = A.E_QUANTUM + 100 * mov[:, None, None] + 4 * empty[None, :, None] + _ROTS[None, None, :]
        return idx.reshape(-1)
    if kind == A.ALIEN:  # OGO-42: an opponent holding a card
        return np.array(
            [A.E_ALIEN + j for j in range(st.n) if st.team[j] != st.team[seat] and st.hands[j]],
            dtype=np.intp,
        )
    return np.zeros(0, dtype=np.intp)  # infinity: never at turn start (OGO-30)


def joker_effects(st: State, seat: int) -> np.ndarray:
    """OGO-47: the joker as any of the seven start-of-turn kinds."""
    return np.concatenate([effects(st, seat, k) for k in _START_KINDS])


def card_indices(st: State) -> np.ndarray:
    """CARD phase: the card actions of the player to move (``no card`` added by the caller)."""
    seat = st.actor
    parts = [np.zeros(0, dtype=np.intp)]
    for kind in sorted(set(st.hands[seat])):
        if kind == A.JOKER:
            parts.append(A.JOKER_BASE + joker_effects(st, seat))
        else:
            parts.append(A.CARD_BASE + effects(st, seat, kind))
    return np.concatenate(parts)


def kidnap_indices(st: State) -> np.ndarray:
    """KIDNAP phase (OGO-43/44): exactly the legal uses of the kidnapped card."""
    if st.kidnapped == A.JOKER:
        return A.JOKER_BASE + joker_effects(st, st.actor)
    return A.CARD_BASE + effects(st, st.actor, st.kidnapped)


def play_card(st: State, action: int) -> None:
    """CARD phase: ``no card`` or one card from the hand (OGO-30), then draw and place."""
    seat = st.actor
    if action != A.NO_CARD:
        joker = action >= A.JOKER_BASE
        e = action - (A.JOKER_BASE if joker else A.CARD_BASE)
        card = A.JOKER if joker else A.EFFECT_KIND[e]
        st.hands[seat].remove(card)
        st.removed[card] += 1  # OGO-29: played cards leave the game
        if not do_effect(st, seat, e):
            return
    flow.proceed(st)


def play_kidnapped(st: State, action: int) -> None:
    joker = action >= A.JOKER_BASE
    e = action - (A.JOKER_BASE if joker else A.CARD_BASE)
    st.kidnapped = -1
    if do_effect(st, st.actor, e):
        flow.proceed(st)


def do_effect(st: State, seat: int, e: int) -> bool:
    """Apply effect ``e`` for ``seat``; False when no draw follows (match over, KIDNAP)."""
    kind = A.EFFECT_KIND[e]
    tables = st.tables
    n = st.n
    if kind == A.TIME_TRAVEL:  # OGO-34
        st.tt_pending = True
    elif kind == A.MAGNETIC:  # OGO-35
        j = e - A.E_MAGNETIC
        tables[seat], tables[j] = tables[j], tables[seat]
    elif kind == A.REV_CW:  # OGO-36: seat i passes to i+1
        st.tables = [tables[(i - 1) % n] for i in range(n)]
    elif kind == A.REV_ACW:
        st.tables = [tables[(i + 1) % n] for i in range(n)]
    elif kind == A.METEORITE:  # OGO-37
        st.discarded += [t for t in tables if t != NO_TILE]
        st.tables = [NO_TILE] * n
        for i in range(n):
            st.tables[(seat + i) % n] = st.tower.pop() if st.tower else NO_TILE
        note_event(st, "meteorite", seat, list(st.tables))
    elif kind == A.QUANTUM:
        f, rest = divmod(e - A.E_QUANTUM, 100)
        return not quantum_leap(st, seat, f, *divmod(rest, 4))
    else:
        return not kidnap(st, seat, e - A.E_ALIEN)
    return True


def quantum_leap(st: State, seat: int, src: int, dst: int, k: int) -> bool:
    """OGO-38..41, OGO-23: move a tile; True if the match ended (an 8)."""
    design = st.design[src]
    flow.clear_tile(st, src)
    opened = VERTEX_OF[src]
    for key in [key for key, owner in st.shapes.items() if owner < 0 and key[1] in opened]:
        del st.shapes[key]
    flow.set_tile(st, dst, design, k)
    return flow.resolve_closures(st, seat, dst)


def kidnap(st: State, seat: int, victim: int) -> bool:
    """OGO-42/43: take a random card of ``victim``; True if a KIDNAP decision follows."""
    hand = st.hands[victim]
    card = hand.pop(int(st.rng.integers(len(hand))))
    st.removed[card] += 1  # shown to all, and gone after this turn either way
    uses = (
        None
        if card == A.INFINITY
        else joker_effects(st, seat)
        if card == A.JOKER
        else effects(st, seat, card)
    )
    note_event(st, "kidnap", seat, victim, card, uses is not None and uses.size > 0)
    if uses is None or uses.size == 0:
        return False
    st.kidnapped = card
    st.phase = flow.KIDNAP
    st.actor = seat
    return True
