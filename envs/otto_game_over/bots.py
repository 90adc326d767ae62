"""Scripted baselines: ``random``, ``greedy`` (best immediate outcome), ``heuristic``.

Bots never read hidden information: whatever they simulate runs on
``game.resample_hidden(state, player, rng)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.core.bots import Bot, BotFactory, RandomBot, ScoringBot, check_engine_state, check_mover
from envs.core.game import Game, GameState
from envs.otto_game_over import actions as A
from envs.otto_game_over.evaluate import solo_progress, solo_shares, solo_value
from envs.otto_game_over.flow import MAX_MATCH_SCORE, victory_score
from envs.otto_game_over.geometry import (
    AROUND,
    D10,
    F12,
    NEAR,
    NEIGHBOUR_BITS,
    NO_TILE,
    SHAPE_POINTS,
    VERTEX_OF,
    closed_shapes,
)
from envs.otto_game_over.geometry import FAR as FAR_OF
from envs.otto_game_over.rules import BIT_SQUARES, CARD, INFINITY, KIDNAP, PLACE, State
from envs.otto_game_over.scoring import (
    XEntry,
    XNeeds,
    eight_bits_from_x,
    merge_x_entries,
    outcome,
    signature,
    x_entries,
    x_entry,
    x_needs,
)

EIGHT_VALUE = 30.0  # closing an 8 ends the match 8-nil: worth far more than a few points
QUANTUM_SAMPLE = 60  # Quantum Leap moves tried per decision


class _Board:
    """A throwaway copy of the board slots, for trying a placement."""

    def __init__(self, st: State) -> None:
        self.design = list(st.design)
        self.rot = list(st.rot)
        self.near = list(st.near)
        self.far = list(st.far)
        self.frontier = st.frontier
        self.occ = st.occ
        self.square_lobes = st.config.eight_lobes != "round"

    def place(self, sq: int, d: int, k: int) -> None:
        self.design[sq], self.rot[sq] = d, k
        for c in range(4):
            slot = 4 * VERTEX_OF[sq][c] + c
            self.near[slot] = NEAR[4 * d + k][c]
            self.far[slot] = FAR_OF[4 * d + k][c]
        self.occ |= 1 << sq
        self.frontier = (self.frontier | NEIGHBOUR_BITS[sq]) & ~self.occ

    def _x_needs_after(self, xbase: dict[int, XEntry], sq: int) -> XNeeds:
        """:func:`x_needs` of this board, one placement on ``sq`` after the board of ``xbase``:
        the X tiles outside ``AROUND[sq]`` keep their entries (:func:`x_entry` reads only the
        vertices around its tile), the others are recomputed; X tiles in ascending order, as
        :func:`x_needs` lists them."""
        around = AROUND[sq]
        xs = list(xbase)
        if self.design[sq] in (D10, F12):
            xs = sorted([*xs, sq])
        return merge_x_entries(
            x_entry(self.near, self.design, self.rot, self.square_lobes, x) if x in around else xbase[x]
            for x in xs
        )

    def square_best(self, s: int, xn: XNeeds) -> SquareBest:
        """(points, 8s) of the best placement of each design on square ``s``: the designs
        with points as ``((design, best points), ...)`` and a bit mask of the designs that
        can close an 8 there."""
        sparse, eights = _sig_best(signature(self.near, self.far, s), self.square_lobes)
        if s in xn:
            for d in range(8):
                if eight_bits_from_x(xn[s], d):
                    eights |= 1 << d
        return sparse, eights

    def best(
        self,
        cache: dict[int, SquareBest] | None = None,
        near_sq: int = -1,
        xbase: dict[int, XEntry] | None = None,
    ) -> tuple[list[int], int]:
        """Over every square of the next placement: the best points of each design (a list
        of 8) and the bit mask of the designs that can close an 8.

        With ``cache`` (per-square results of the board before a placement on ``near_sq``),
        only the squares around ``near_sq`` are re-evaluated; with ``xbase`` (each X tile's
        :func:`x_entry` on that board), only the X tiles around ``near_sq``.
        """
        has_x = D10 in self.design or F12 in self.design  # an X tile on the board
        if not has_x:
            xn: XNeeds = {}
        elif xbase is None or near_sq < 0:
            xn = x_needs(self.near, self.design, self.rot, self.square_lobes)
        else:
            xn = self._x_needs_after(xbase, near_sq)
        pts = [0] * 8
        eights = 0
        f = self.frontier
        around = AROUND[near_sq] if near_sq >= 0 else ()
        squares = BIT_SQUARES[f & 0x1FF] + [s + 9 for s in BIT_SQUARES[f >> 9 & 0x1FF]]
        for s in squares + [s + 18 for s in BIT_SQUARES[f >> 18]]:  # the frontier, ascending
            if cache is not None and s in cache and s not in around and s not in xn:
                sparse, e = cache[s]
            else:
                sparse, e = self.square_best(s, xn)
            eights |= e
            for d, p in sparse:
                if p > pts[d]:
                    pts[d] = p
        return pts, eights


#: (design, points) pairs with points, and the 8 mask, of one square's best placements
SquareBest = tuple[tuple[tuple[int, int], ...], int]
_SIG_BEST: dict[int, SquareBest] = {}


def _sig_best(sig: int, square_lobes: bool) -> SquareBest:
    """:meth:`_Board.square_best` without X-tile 8s, per need signature (memoised)."""
    key = sig << 1 | square_lobes
    hit = _SIG_BEST.get(key)
    if hit is None:
        sparse, eights = [], 0
        for d in range(8):
            _score, eight, pts = outcome(sig, d, square_lobes)
            if max(pts) > 0:
                sparse.append((d, max(pts)))
            if eight:
                eights |= 1 << d
        hit = _SIG_BEST[key] = (tuple(sparse), eights)
    return hit


def _tried(st: State, action: int) -> tuple[_Board, list[tuple[int, int]], list[int]]:
    """A copy of the board with placement ``action`` on it, and the shapes and 8s it closes.

    With the placement mask of ``st`` computed, a placement the mask knows closes nothing is
    not traced (the engine's own shortcut in ``flow.place``: the mask's score / 8 bits are
    exact)."""
    t, rest = divmod(action, 100)
    sq, k = divmod(rest, 4)
    board = _Board(st)
    board.place(sq, st.drawn if t == 0 else st.tables[st.to_move], k)
    if st._mask is not None and st.phase == PLACE and not st.closes_something(t, sq, k):
        return board, [], []
    shapes, eights = closed_shapes(board.design, board.rot, sq, board.square_lobes)
    return board, shapes, eights


def placement_gain(st: State, action: int) -> tuple[float, _Board]:
    """Immediate value of a placement for the mover: markers won, gifts lost, an 8."""
    board, shapes, eights = _tried(st, action)
    team = st.team[st.to_move]
    if eights and not st.config.solo:
        mine = st.marker_points(team)
        others = sum(st.marker_points(x) for x in range(st.n_teams) if x != team)
        return EIGHT_VALUE + 8 - mine + others / max(1, st.n_teams - 1), board
    supply = list(st.supply[team])
    gain = 10.0 * len(eights)  # solo: an 8 is needed to win
    for shape, _v in shapes:
        if supply[shape] > 0:
            supply[shape] -= 1
            gain += SHAPE_POINTS[shape]
        else:
            gain -= SHAPE_POINTS[shape]  # left unclaimed: the next player may take it
    return gain, board


def solo_placement_value(st: State, action: int) -> float:
    """Solo (OGO-60..62): the value of the board after a placement, in return units: the
    victory's reward if it wins, -1 if it fills the board without one, else
    :func:`~envs.otto_game_over.evaluate.solo_value` of its :func:`solo_progress`."""
    board, shapes, eights = _tried(st, action)
    supply = list(st.supply[0])
    unmarked = sum(1 for owner in st.shapes.values() if owner < 0)
    for shape, _v in shapes:
        if supply[shape] > 0:
            supply[shape] -= 1
        else:
            unmarked += 1
    eight = st.solo_eights > 0 or bool(eights)
    empty = sum(1 for d in board.design if d < 0)
    if eight and not any(supply):  # OGO-61/62: victory at once
        return max(victory_score(empty, unmarked), 0) / MAX_MATCH_SCORE
    if empty == 0:  # the board is full: defeat
        return -1.0
    shares = solo_shares(board.near, board.far, board.design, board.rot, supply, eight, board.square_lobes)
    return solo_value(solo_progress(shares))


class GreedyBot(Bot):
    """Best immediate outcome: most points now, always saves with Infinity, keeps its cards."""

    name = "greedy"
    game_name = "otto_game_over"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        check_engine_state(state, self.name)
        legal = state.legal_actions()
        if not legal:
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        assert isinstance(state, State)
        if len(legal) == 1:
            return legal[0]
        if state.phase == INFINITY:
            return min(legal)  # card infinity < joker as infinity < keep infinity
        if state.phase == CARD:
            return A.NO_CARD
        if state.phase == KIDNAP:
            return int(legal[rng.integers(len(legal))])
        gains = np.array([placement_gain(state, a)[0] for a in legal])
        best = np.flatnonzero(gains >= gains.max() - 1e-9)
        return int(legal[best[rng.integers(best.size)]])


class HeuristicBot(ScoringBot):
    """Rules of thumb: score, never set up the next player (above all not an 8), save with
    Infinity, and use cards when a simulation says they pay.

    Its choice is the best of :meth:`scores` (Quantum Leap moves: a random sample of them and
    every one that closes an 8);
    ``scores`` also serves as the MCTS prior (``mcts:prior=heuristic``).
    """

    name = "heuristic"
    game_name = "otto_game_over"

    def __init__(self, game: Game[Any, Any], card_margin: float = 1.5) -> None:
        super().__init__(game)
        ok = isinstance(card_margin, (int, float)) and not isinstance(card_margin, bool)
        if not ok or not math.isfinite(card_margin):
            raise ValueError(f"heuristic: card_margin must be a finite number, got {card_margin!r}")
        self.card_margin = float(card_margin)

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        check_engine_state(state, self.name)
        legal = state.legal_actions()
        if not legal:
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        assert isinstance(state, State)
        if len(legal) == 1:
            return legal[0]
        if state.phase == INFINITY:
            return min(legal)
        view = self.game.resample_hidden(state, player, rng)
        if state.phase == PLACE:
            return self._best_placement(view, legal, rng)[0]
        return self._best_card(view, legal, rng)

    def placement_value(
        self,
        st: State,
        action: int,
        cache: dict[int, SquareBest] | None = None,
        xbase: dict[int, XEntry] | None = None,
    ) -> float:
        """The placement's gain minus 0.8 x the next player's threat after it; ``cache`` and
        ``xbase`` (:meth:`_square_cache`, :meth:`_x_base` of ``st``) only save work."""
        if st.config.solo:
            return solo_placement_value(st, action)
        gain, board = placement_gain(st, action)
        if gain >= EIGHT_VALUE:
            return gain
        nxt = (st.to_move + 1) % st.n
        if st.team[nxt] == st.team[st.to_move]:
            return gain
        mine = st.marker_points(st.team[st.to_move])
        table = st.tables[nxt]
        pts, eights = board.best(cache, (action % 100) // 4, xbase)
        bonus = EIGHT_VALUE + mine
        value = [p + bonus if eights >> d & 1 else p for d, p in enumerate(pts)]
        if 0 <= table < 8 and not st.blind_match:  # the table tile is known: a 9th option
            vt = value[table]
            value = [v if v > vt else vt for v in value]
        threat = sum(value) / 8  # integers: the same as a (pairwise) numpy mean
        return gain - 0.8 * threat

    def _best_placement(self, st: State, legal: list[int], rng: np.random.Generator) -> tuple[int, float]:
        st.legal_mask()  # a re-dealt view has none yet: the mask tells which placements close nothing
        cache = self._square_cache(st)
        xbase = None if cache is None else self._x_base(st)  # both serve the next player's threat
        values = np.array([self.placement_value(st, a, cache, xbase) for a in legal])
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return legal[int(best[rng.integers(best.size)])], float(values.max())

    def _square_cache(self, st: State) -> dict[int, SquareBest] | None:
        """Per frontier square, the next player's options on the current board."""
        nxt = (st.to_move + 1) % st.n
        if st.config.solo or st.team[nxt] == st.team[st.to_move]:
            return None
        board = _Board(st)
        return {s: board.square_best(s, {}) for s in range(25) if board.frontier >> s & 1}

    @staticmethod
    def _x_base(st: State) -> dict[int, XEntry]:
        """:func:`x_entry` of each X tile of the current board, by square (ascending)."""
        return x_entries(st.near, st.design, st.rot, st.config.eight_lobes != "round")

    def _after(self, st: State, action: int, rng: np.random.Generator) -> float:
        """Value of playing a card action: its immediate effect, then the best placement."""
        me = st.to_move
        team = st.team[me]
        before = st.marker_points(team)
        sim = st.clone()
        sim.apply(action)
        if sim.is_terminal() or sim.matches != st.matches:  # the match ended (an 8 by me)
            return EIGHT_VALUE if sim.match_scores[team] >= 8 else -EIGHT_VALUE
        gain = float(sim.marker_points(team) - before)
        if sim.phase == PLACE and sim.to_move == me:
            return gain + self._best_placement(sim, sim.legal_actions(), rng)[1]
        return gain

    def _best_card(self, st: State, legal: list[int], rng: np.random.Generator) -> int:
        quantum = [a for a in legal if _is_quantum(a)]
        others = [a for a in legal if not _is_quantum(a) and a != A.NO_CARD]
        if A.NO_CARD in legal:
            others.insert(0, A.NO_CARD)  # keeping the cards wins ties
        values = self._card_values(st, others, rng)
        if len(quantum) > QUANTUM_SAMPLE:  # hundreds of moves: try a random sample of them,
            sample = [quantum[i] for i in rng.choice(len(quantum), QUANTUM_SAMPLE, replace=False)]
            kept = set(sample)  # and every leap that closes an 8 (it may win the match at once):
            eights = [a for a in quantum if a not in kept and _closes_eight(st, a)]  # board only
            quantum = sample + eights
        tried = others + quantum
        values += self._card_values(st, quantum, rng)
        return tried[int(np.argmax(values))]  # the first of the best

    def _card_values(self, st: State, actions: list[int], rng: np.random.Generator) -> list[float]:
        """Value of each card-phase action (on a state the caller may read whole)."""
        team = st.team[st.to_move]
        base = st.marker_points(team)
        out = []
        for a in actions:
            if a == A.NO_CARD:  # chosen outside the card phase only when nothing else is legal
                out.append(self._after(st, a, rng) + self.card_margin if st.phase == CARD else -1e9)
            elif not _is_quantum(a):
                out.append(self._after(st, a, rng))
            else:
                gain = _quantum_gain(st, a)
                if gain is not None:
                    out.append(gain)
                    continue
                sim = st.clone()  # an 8: whether the match ends now depends on the hands
                sim.apply(a)
                ended = sim.is_terminal() or sim.matches != st.matches
                if ended:
                    out.append(EIGHT_VALUE if sim.match_scores[team] >= 8 else -EIGHT_VALUE)
                else:
                    out.append(float(sim.marker_points(team) - base))
        return out

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        return self.scores(state, player, [action], rng)[0]

    def scores(
        self, state: GameState, player: int, actions: list[int], rng: np.random.Generator
    ) -> list[float]:
        """The values :meth:`act` compares: Infinity phase lowest action first, placements by
        :meth:`placement_value`, card actions by a simulation on a re-dealt copy."""
        assert isinstance(state, State)
        if state.phase == INFINITY:
            return [-float(a) for a in actions]
        if state.phase == PLACE:  # reads only the board and the table tiles (public)
            state.legal_mask()  # the placements that close nothing are not traced (_tried)
            cache = self._square_cache(state)
            xbase = None if cache is None else self._x_base(state)
            return [self.placement_value(state, a, cache, xbase) for a in actions]
        return self._card_values(self.game.resample_hidden(state, player, rng), actions, rng)


def _quantum_gain(st: State, a: int) -> float | None:
    """Marker points a Quantum Leap wins the mover, read off the board without playing it;
    None when the move closes an 8.

    The same as playing it on a copy (OGO-38..41, OGO-19/23): the moved tile was under no
    marker and its new square was empty, so the only shapes that change owner are the ones
    closed through the new square, marked in vertex order while the supply lasts.
    """
    f, rest = divmod(_effect(a) - A.E_QUANTUM, 100)
    dst, k = divmod(rest, 4)
    design, rot = list(st.design), list(st.rot)
    design[dst], rot[dst] = design[f], k
    design[f], rot[f] = NO_TILE, 0
    shapes, eights = closed_shapes(design, rot, dst, st.config.eight_lobes != "round")
    if eights:
        return None
    supply = list(st.supply[st.team[st.to_move]])
    gain = 0
    for shape, _v in sorted(shapes):
        if supply[shape] > 0:
            supply[shape] -= 1
            gain += SHAPE_POINTS[shape]
    return float(gain)


def _closes_eight(st: State, a: int) -> bool:
    """Does Quantum Leap ``a`` close an 8 (read off the board, as :func:`_quantum_gain`)?"""
    return _quantum_gain(st, a) is None


def _effect(a: int) -> int:
    """The effect code E of a card action (played card or joker)."""
    return a - (A.JOKER_BASE if a >= A.JOKER_BASE else A.CARD_BASE)


def _is_quantum(a: int) -> bool:
    return A.CARD_BASE <= a < A.CARD_INFINITY and A.E_QUANTUM <= _effect(a) < A.E_ALIEN


BOTS: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot}
