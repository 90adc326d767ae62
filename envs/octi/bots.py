"""Scripted Octi baselines: ``random``, ``greedy`` and ``heuristic``.

Octi has no hidden information, so the bots read the engine state directly (a
``resample_hidden`` would only clone it).

* ``greedy``: plays each legal action on a copy and keeps the best immediate outcome:
  a win, else material (pods alive, counting pods jumped this turn as captured
  enemies), then prong supply.
* ``heuristic``: greedy's outcome plus a good player's rules of thumb: never end a turn
  that lets the opponent land on one of my bases next turn (jump series included),
  do not leave pods where an enemy can jump them, bring pods toward the nearest free
  enemy base, prefer forward prongs, capture enemy pods and spare own ones.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs.core.bots import BotFactory, RandomBot, ScoringBot
from envs.core.game import GameState
from envs.octi.board import SET_BITS, Geometry
from envs.octi.rules import CAPTURE, OVER, State

WIN = 10_000.0


def _material(st: State, seat: int) -> float:
    """Pods alive (board + reserve) and prong supply of ``seat`` minus the opponent's."""
    P = st.P
    gone = set(st.cmarks)  # pods marked `capture` this turn
    if st.phase == CAPTURE:  # decided pods have left the queue: a spared one stays alive
        gone |= {g for g in st.cqueue if g // P != st.to_move}
    elif st.phase != OVER:  # pods on squares jumped this turn count as taken by the mover
        gone |= {g for g in range(2 * P) if st.pos[g] in st.jorder and g // P != st.to_move}
    alive = [0, 0]
    for g, sq in enumerate(st.pos):
        if sq != -2 and g not in gone:
            alive[g // P] += 1
    return 10.0 * (alive[seat] - alive[1 - seat]) + 0.5 * (st.supply[seat] - st.supply[1 - seat])


def outcome(st: State, seat: int) -> float:
    if st.phase == OVER:
        return WIN * float(st.result[seat])
    return _material(st, seat)


class GreedyBot(ScoringBot):
    """Best immediate outcome of the agent step."""

    name = "greedy"
    game_name = "octi"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        nxt = state.clone()
        nxt.apply(action)
        assert isinstance(nxt, State)
        return outcome(nxt, player)


def can_reach_base(st: State, seat: int, targets: frozenset[int] | None = None) -> bool:
    """Could ``seat`` land a pod on an enemy base (or on ``targets``) in one turn (steps and jump series)?"""
    if targets is None:
        targets = st.geo.enemy_base_set[seat]
    neigh, cnt, col = st.geo.neigh, st.cnt, st.col
    P = st.P
    for g in range(seat * P, seat * P + P):
        sq = st.pos[g]
        m = st.prongs[g]
        if sq < 0 or not m:
            continue
        dirs = SET_BITS[m]
        for d in dirs:
            n = neigh[sq][d]
            if n in targets and (cnt[n] == 0 or (st.x and col[n] == seat)):
                return True
        cnt[sq] -= 1  # the jumping pod leaves its square
        try:
            todo = [(sq, 0)]
            while todo:
                cur, done = todo.pop()
                for d in dirs:
                    n = neigh[cur][d]
                    if n < 0 or done >> n & 1 or not cnt[n]:
                        continue
                    land = neigh[n][d]
                    if land < 0 or cnt[land]:
                        continue
                    if land in targets:
                        return True
                    todo.append((land, done | 1 << n))
        finally:
            cnt[sq] += 1
    return False


def _exposed(st: State, seat: int) -> int:
    """Own pods an enemy pod could jump right now."""
    neigh, cnt, col = st.geo.neigh, st.cnt, st.col
    P = st.P
    n_exposed = 0
    for g in range((1 - seat) * P, (2 - seat) * P):
        sq = st.pos[g]
        if sq < 0:
            continue
        for d in SET_BITS[st.prongs[g]]:
            n = neigh[sq][d]
            if n >= 0 and cnt[n] and col[n] == seat:
                land = neigh[n][d]
                if land >= 0 and not cnt[land]:
                    n_exposed += 1
    return n_exposed


@lru_cache(maxsize=200_000)
def _reach(geo: Geometry, sq: int, mask: int, targets: tuple[int, ...]) -> int:
    """Steps a pod with prongs ``mask`` needs from ``sq`` to a target square (empty board);
    Chebyshev distance + 2 (+ 3 without prongs) when its prongs cannot get there."""
    W = geo.width
    cheb = min(max(abs(sq % W - t % W), abs(sq // W - t // W)) for t in targets)
    if not mask:
        return cheb + 3
    seen = {sq: 0}
    frontier = [sq]
    while frontier:
        nxt = []
        for cur in frontier:
            if cur in targets:
                return seen[cur]
            for d in SET_BITS[mask]:
                n = geo.neigh[cur][d]
                if n >= 0 and n not in seen:
                    seen[n] = seen[cur] + 1
                    nxt.append(n)
        frontier = nxt
    return cheb + 2


def _progress(st: State, seat: int) -> float:
    """How close ``seat`` is to landing on a free enemy base, with the prongs its pods have."""
    cnt, col = st.cnt, st.col
    held = sum(1 for b in st.geo.bases[1 - seat] if cnt[b] and col[b] == seat)
    # classic needs every enemy base: aim at those not yet held
    targets = tuple(
        b
        for b in st.geo.bases[1 - seat]
        if not (cnt[b] and (col[b] == 1 - seat or (st.classic and col[b] == seat)))
    )
    if not targets:
        return 0.0
    dists = sorted(
        _reach(st.geo, sq, st.prongs[g], targets)
        for g in range(seat * st.P, (seat + 1) * st.P)
        if (sq := st.pos[g]) >= 0
    )
    if not dists:
        return 0.0
    # the closest pod matters most, a second attacker helps, prongs are flexibility
    prongs = sum(bin(st.prongs[g]).count("1") for g in range(seat * st.P, (seat + 1) * st.P))
    bonus = 6.0 * held if st.classic else 0.0
    return bonus - 2.0 * dists[0] - 0.5 * (dists[1] if len(dists) > 1 else 9) + 0.1 * min(prongs, 12)


def _threat(st: State, seat: int) -> bool:
    """Can ``seat`` win on its next turn (classic: it holds two enemy bases and reaches the third)?"""
    if not st.classic:
        return can_reach_base(st, seat)
    bases = st.geo.bases[1 - seat]
    free = frozenset(b for b in bases if not (st.cnt[b] and st.col[b] == seat))
    return len(free) == 1 and can_reach_base(st, seat, free)


class HeuristicBot(ScoringBot):
    """Greedy outcome plus safety and progress rules of thumb (module docstring)."""

    name = "heuristic"
    game_name = "octi"

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        assert isinstance(state, State)
        nxt = state.clone()
        nxt.apply(action)
        value = outcome(nxt, player)
        if nxt.phase == OVER:
            return value
        if nxt.to_move != player and _threat(nxt, 1 - player):
            value -= WIN / 2  # the opponent would win at once
        value += _progress(nxt, player) - 0.7 * _progress(nxt, 1 - player)
        return value - 4.0 * _exposed(nxt, player)


BOTS: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}
