"""Observation and action encoding of OTTO Game Over (the layout is documented in ``env.py``).

The action codec is :mod:`notation` (strings) over :mod:`actions` (index layout); this
module re-exports it and builds the observation vector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.game import Symmetry
from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import CENTRE, MARKERS_PER_TEAM, N_SQ, N_V, NO_TILE
from envs.otto_game_over.notation import (
    ACTION_OF_STRING,
    ACTION_STRINGS,
    action_to_string,
    string_to_action,
)

if TYPE_CHECKING:
    from envs.otto_game_over.rules import State

__all__ = [
    "ACTION_OF_STRING",
    "ACTION_STRINGS",
    "BLOCKS",
    "OBS_SIZE",
    "SYMMETRIES",
    "action_to_string",
    "observe",
    "string_to_action",
]

#: (name, size) of each block of the flat observation, in order
BLOCKS: tuple[tuple[str, int], ...] = (
    ("board", 13 * 25),  # plane*25 + square: empty, design one-hot (8), orientation one-hot (4)
    ("vertices", 15 * 36),  # plane*36 + vertex: marker kind(3) x owner team(4 rel), unclaimed kind(3)
    ("drawn", 10),  # tile drawn this turn (public): none, dark, Z0..G16
    ("tables", 4 * 10),  # table tile of each seat (relative), same one-hot
    ("tower", 9),  # tiles left in the tower per kind (Z0..G16, dark) / 4
    ("markers", 4 * 3),  # markers left per team (relative): small/4, big/4, square/3
    ("totals", 4),  # game totals per team (relative) / target_score, clipped to 1
    ("my_cards", 9),  # my cards by kind / 4
    ("partner_cards", 9),  # the 2v2 partner's cards by kind / 4 (zero otherwise)
    ("cards_held", 4),  # number of cards held per seat (relative) / 8, clipped
    ("deck", 1),  # cards left in the deck / 33
    ("removed", 9),  # cards shown and out of the game, by kind / 4
    ("phase", 4),  # card, kidnap, place, infinity
    ("kidnapped", 9),  # the kidnapped card to play (KIDNAP phase)
    ("flags", 4),  # extra turn, blind match, tie-break match, solo
    ("to_move", 4),  # seat whose turn it is (relative)
    ("actor", 4),  # seat deciding now (relative)
    ("creator", 4),  # creator of the 8 in the INFINITY phase (relative)
    ("saved", 4),  # teams already saved by an Infinity (relative)
    ("misc", 4),  # time travel pending, matches / max_matches, an 8 closed (solo), unclaimed / 8
    ("match_scores", 4),  # last finished match's score per team (relative) / 32
)
OFFSET: dict[str, int] = {}
_o = 0
for _name, _size in BLOCKS:
    OFFSET[_name] = _o
    _o += _size
OBS_SIZE = _o


_O_VERT = OFFSET["vertices"]
_O_DRAWN = OFFSET["drawn"]
_O_TABLES = OFFSET["tables"]
_O_HELD = OFFSET["cards_held"]
_O_TOWER = OFFSET["tower"]
_O_MARKERS = OFFSET["markers"]
_O_TOTALS = OFFSET["totals"]
_O_SCORES = OFFSET["match_scores"]
_O_SAVED = OFFSET["saved"]
_O_MINE = OFFSET["my_cards"]
_O_PARTNER = OFFSET["partner_cards"]
_O_DECK = OFFSET["deck"]
_O_REMOVED = OFFSET["removed"]
_O_PHASE = OFFSET["phase"]
_O_TO_MOVE = OFFSET["to_move"]
_O_ACTOR = OFFSET["actor"]
_O_KIDNAPPED = OFFSET["kidnapped"]
_O_FLAGS = OFFSET["flags"]
_O_CREATOR = OFFSET["creator"]
_O_MISC = OFFSET["misc"]
_MARKER_SCALE = tuple(1 / m for m in MARKERS_PER_TEAM)
_TAIL = OBS_SIZE - _O_DRAWN  # the small blocks after the vertex planes, built as one list
_T_TABLES = _O_TABLES - _O_DRAWN
_T_HELD = _O_HELD - _O_DRAWN
_T_TOWER = _O_TOWER - _O_DRAWN
_T_MARKERS = _O_MARKERS - _O_DRAWN
_T_TOTALS = _O_TOTALS - _O_DRAWN
_T_SCORES = _O_SCORES - _O_DRAWN
_T_SAVED = _O_SAVED - _O_DRAWN
_T_MINE = _O_MINE - _O_DRAWN
_T_PARTNER = _O_PARTNER - _O_DRAWN
_T_DECK = _O_DECK - _O_DRAWN
_T_REMOVED = _O_REMOVED - _O_DRAWN
_T_PHASE = _O_PHASE - _O_DRAWN
_T_TO_MOVE = _O_TO_MOVE - _O_DRAWN
_T_ACTOR = _O_ACTOR - _O_DRAWN
_T_KIDNAPPED = _O_KIDNAPPED - _O_DRAWN
_T_FLAGS = _O_FLAGS - _O_DRAWN
_T_CREATOR = _O_CREATOR - _O_DRAWN
_T_MISC = _O_MISC - _O_DRAWN
_TILE_CODE = {NO_TILE: 0, **{x: 2 + x for x in range(8)}, 8: 1}


def observe(st: State, seat: int) -> np.ndarray:
    """The egocentric observation of ``seat`` (see ``BLOCKS``); nothing hidden from it.

    The board planes are kept up to date by ``flow.set_tile``; the vertex planes are
    sparse (one entry per closed shape); every block after them is filled in one Python
    list and copied in with a single slice assignment (numpy item writes cost more).
    """
    n, nt = st.n, st.n_teams
    my_team = st.team[seat]
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    obs[: 13 * 25] = st.board_planes
    unclaimed = 0
    for (shape, v), owner in st.shapes.items():
        if owner < 0:
            obs[_O_VERT + (12 + shape) * 36 + v] = 1.0
            unclaimed += 1
        else:
            obs[_O_VERT + (shape * 4 + (owner - my_team) % nt) * 36 + v] = 1.0
    tail = [0.0] * _TAIL
    tail[_TILE_CODE[st.drawn]] = 1.0
    tables, hands = st.tables, st.hands
    for s in range(n):
        rel = (s - seat) % n
        tail[_T_TABLES + rel * 10 + _TILE_CODE[tables[s]]] = 1.0
        if hands[s]:
            tail[_T_HELD + rel] = min(len(hands[s]) / 8, 1.0)
    counts = [0] * 9
    for x in st.tower:
        counts[x] += 1
    for x, c in enumerate(counts):
        if c:
            tail[_T_TOWER + x] = min(c / 4, 1.0)
    target = st.config.target_score
    for t in range(nt):
        rel = (t - my_team) % nt
        sup = st.supply[t]
        m = _T_MARKERS + rel * 3
        tail[m] = sup[0] * _MARKER_SCALE[0]
        tail[m + 1] = sup[1] * _MARKER_SCALE[1]
        tail[m + 2] = sup[2] * _MARKER_SCALE[2]
        tail[_T_TOTALS + rel] = min(st.totals[t] / target, 1.0)
        tail[_T_SCORES + rel] = min(st.match_scores[t] / 32, 1.0)
    _cards(tail, hands[seat], _T_MINE)
    if st.config.team_play:
        _cards(tail, hands[(seat + 2) % 4], _T_PARTNER)
    tail[_T_DECK] = min(len(st.deck) / 33, 1.0)  # a set-up position may hold more than the 33 cards
    for k, c in enumerate(st.removed):
        if c:
            tail[_T_REMOVED + k] = min(c / 4, 1.0)
    _state_blocks(tail, st, seat, unclaimed)
    obs[_O_DRAWN:] = tail
    return obs


def _cards(tail: list[float], hand: list[int], base: int) -> None:
    for c in hand:
        tail[base + c] += 0.25  # count / 4
    for c in hand:
        if tail[base + c] > 1.0:
            tail[base + c] = 1.0


def _state_blocks(tail: list[float], st: State, seat: int, unclaimed: int) -> None:
    n = st.n
    phase = st.phase
    if phase < 4:
        tail[_T_PHASE + phase] = 1.0
        tail[_T_TO_MOVE + (st.to_move - seat) % n] = 1.0
        tail[_T_ACTOR + (st.actor - seat) % n] = 1.0
    if st.kidnapped >= 0:
        tail[_T_KIDNAPPED + st.kidnapped] = 1.0
    if st.extra_turn:
        tail[_T_FLAGS] = 1.0
    if st.blind_match:
        tail[_T_FLAGS + 1] = 1.0
    if st.tiebreak:
        tail[_T_FLAGS + 2] = 1.0
    if st.config.solo:
        tail[_T_FLAGS + 3] = 1.0
    if phase == 3:
        tail[_T_CREATOR + (st.inf_creator - seat) % n] = 1.0
        my_team, nt = st.team[seat], st.n_teams
        for t in range(nt):
            if st.saved[t]:
                tail[_T_SAVED + (t - my_team) % nt] = 1.0
    m = _T_MISC
    if st.tt_pending:
        tail[m] = 1.0
    tail[m + 1] = min(st.matches / st.config.max_matches, 1.0)
    if st.solo_eights:
        tail[m + 2] = 1.0
    tail[m + 3] = min(unclaimed / 8, 1.0)


def resample_hidden(st: State, seat: int, rng: np.random.Generator) -> State:
    """Re-deal what ``seat`` cannot see: tower order, deck order, other players' cards."""
    new = st.clone()
    new.tower = [int(x) for x in rng.permutation(sorted(new.tower))]  # sorted: no trace of the old order
    partner = (seat + 2) % 4 if st.config.team_play else seat
    hidden = [s for s in range(st.n) if s not in (seat, partner)]
    pool = list(new.deck) + [c for s in hidden for c in new.hands[s]]
    pool = [int(x) for x in rng.permutation(np.array(sorted(pool), dtype=np.int64))]
    for s in hidden:
        k = len(new.hands[s])
        new.hands[s] = sorted(pool[:k])
        pool = pool[k:]
    new.deck = pool
    new.rng = np.random.default_rng(int(rng.integers(2**63)))
    new._mask = None
    return new


# ------------------------------------------------------------------ symmetries
def _turn_square(s: int) -> int:
    """The square a clockwise quarter turn of the board takes ``s`` to: (file, rank) -> (rank, 4 - file)."""
    f, r = s % 5, s // 5
    return (4 - f) * 5 + r


def _turn_vertex(v: int) -> int:
    """The vertex a clockwise quarter turn takes ``v`` to: (x, y) -> (y, 5 - x)."""
    x, y = v % 6, v // 6
    return (5 - x) * 6 + y


def _quarter_turn() -> tuple[np.ndarray, np.ndarray]:
    """(obs_index, action_index) of one clockwise quarter turn, as gathers (see
    :class:`~envs.core.game.Symmetry`): ``new[j] = old[index[j]]``.

    The frame (spec §1.4) and every rule of tracing and closing are the same under the turn;
    a tile at ``s`` in orientation ``k`` goes to the turned square in orientation ``k + 1``
    (orientations are clockwise quarter turns). The fixed centre stays C8 in r0 (its design
    looks the same in every orientation), so its orientation planes do not move.
    """
    obs_src = np.arange(OBS_SIZE, dtype=np.int64)
    for s in range(N_SQ):
        t = _turn_square(s)
        for plane in range(9):  # empty, design one-hot
            obs_src[plane * 25 + t] = plane * 25 + s
        for k in range(4):
            k2 = k if s == CENTRE else (k + 1) % 4
            obs_src[(9 + k2) * 25 + t] = (9 + k) * 25 + s
    for v in range(N_V):
        for plane in range(15):
            obs_src[_O_VERT + plane * 36 + _turn_vertex(v)] = _O_VERT + plane * 36 + v
    act_src = np.arange(A.N_ACTIONS, dtype=np.int64)
    for t in (0, 100):  # placements: 100*t + 4*square + k
        for s in range(N_SQ):
            for k in range(4):
                act_src[t + 4 * _turn_square(s) + (k + 1) % 4] = t + 4 * s + k
    for base in (A.CARD_BASE, A.JOKER_BASE):  # Quantum Leap: 8 + 100*from + 4*to + k
        for f in range(N_SQ):
            for s in range(N_SQ):
                for k in range(4):
                    new = base + A.E_QUANTUM + 100 * _turn_square(f) + 4 * _turn_square(s) + (k + 1) % 4
                    act_src[new] = base + A.E_QUANTUM + 100 * f + 4 * s + k
    return obs_src, act_src


def _symmetries() -> tuple[Symmetry, ...]:
    turn_obs, turn_act = _quarter_turn()
    out = []
    obs_i, act_i = turn_obs, turn_act
    for name in ("quarter turn clockwise", "half turn", "quarter turn anticlockwise"):
        obs_c, act_c = obs_i.copy(), act_i.copy()
        for a in (obs_c, act_c):  # shared by every game object: nobody may change them in place
            a.setflags(write=False)
        out.append(Symmetry(name, obs_c, act_c))
        obs_i, act_i = obs_i[turn_obs], act_i[turn_act]
    return tuple(out)


#: the three turns of the board (spec §1: the 5x5 board and its frame look the same after a
#: quarter turn). A mirror maps the rules to themselves as well, but the orientation it gives a
#: tile depends on the tile's design, so it is no fixed gather of indices (see the doc page)
SYMMETRIES: tuple[Symmetry, ...] = _symmetries()
