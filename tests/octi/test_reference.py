"""Differential test: an independent reference of the Octi rules, written straight from
the binding spec ``rules/octi.md`` (rule IDs cited inline), compared with the engine at every
agent step of random playouts over every variant and option (OCT-01..OCT-52, §3, §5, §6, §8).

At each decision the engine's legal actions (as canonical notation strings, §8) must equal the
reference's; after each action the engine's ``snapshot()`` must equal the reference's; at the end
the terminal flags and rewards must agree. Octi has no chance events.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from envs.octi.notation import legal_strings
from envs.octi.rules import Config, State
from tests.octi.helpers import S11_MOVES, S13_MOVES

# ---------------------------------------------------------------------------------------------
# Reference implementation
# ---------------------------------------------------------------------------------------------

DIRS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")  # OCT-05: fixed absolute directions
DELTA = {  # N = toward rank H (higher rank), E = toward higher files
    "N": (0, 1),
    "NE": (1, 1),
    "E": (1, 0),
    "SE": (1, -1),
    "S": (0, -1),
    "SW": (-1, -1),
    "W": (-1, 0),
    "NW": (-1, 1),
}

Sq = tuple[int, int]  # (file index 0.., rank index 0..)
PodKey = tuple[int, int]  # (seat, id)


def sq_name(s: Sq) -> str:
    return "abcdefghi"[s[0]] + str(s[1] + 1)


def parse_sq(t: str) -> Sq:
    return ("abcdefghi".index(t[0]), int(t[1:]) - 1)


@dataclass
class Pod:
    status: str  # "board" | "reserve" | "captured"
    sq: Sq | None
    prongs: set[str] = field(default_factory=set)


class Ref:
    """Reference game state + rules. Actions are canonical notation strings (§8)."""

    def __init__(
        self,
        variant: str = "basic",
        max_turns: int | None = None,
        allow_reposition: bool = False,
        edgeless: bool = False,
        capture_to_reserve: bool = False,
        repetition_draw: bool = False,
    ) -> None:
        self.variant = variant
        self.x = variant != "basic"
        self.max_turns = (
            max_turns if max_turns is not None else {"basic": 300, "x_fast": 500, "x_classic": 1000}[variant]
        )  # §6
        self.allow_reposition = allow_reposition
        self.edgeless = edgeless
        self.capture_to_reserve = capture_to_reserve and self.x  # OCT-51: ignored in basic
        self.repetition_draw = repetition_draw
        # §1 components, OCT-01/02/03
        if self.x:
            self.W = self.H = 9
            base_names = (["c3", "e3", "g3"], ["c7", "e7", "g7"])
            self.P, total = 7, 25
        else:
            self.W, self.H = 6, 7
            base_names = (["b2", "c2", "d2", "e2"], ["b6", "c6", "d6", "e6"])
            self.P, total = 4, 12
        self.bases = [[parse_sq(n) for n in base_names[0]], [parse_sq(n) for n in base_names[1]]]
        self.supply = [total, total]
        self.pods: dict[PodKey, Pod] = {}
        for seat in (0, 1):
            # §1 pod ids: player_0 ascending file, player_1 descending file; X: ids 3..6 reserve
            order = sorted(self.bases[seat], reverse=(seat == 1))
            for i in range(self.P):
                if i < len(order):
                    self.pods[(seat, i)] = Pod("board", order[i])
                else:
                    self.pods[(seat, i)] = Pod("reserve", None)
        self.to_move = 0  # OCT-04
        self.turn = 0
        self.phase = "MAIN"
        self.winner: int | None = None  # None + over => draw
        self.over = False
        self.truncated = False
        self.why = ""  # which rule ended the game
        self.last_main: dict[int, str] = {}  # test-policy memory only (the "repeat" policy)
        self.history: dict[Any, int] = {}
        self._occ: dict[Sq, list[PodKey]] | None = None
        self._count_position(0)
        self._reset_turn()

    # -- turn bookkeeping --------------------------------------------------------------------
    def _reset_turn(self) -> None:
        self.origin: Sq | None = None
        self.movers: list[PodKey] = []  # first mover + pods declared `with`
        self.moved: set[PodKey] = set()
        self.jumped: dict[PodKey, set[Sq]] = {}  # per-pod jumped squares (OCT-19)
        self.jump_log: list[Sq] = []  # squares in order of first jump this turn
        self.first_mover: PodKey | None = None
        self.first_was_jump = False
        self.declare_queue: list[PodKey] = []
        self.capture_queue: list[PodKey] = []
        self.marked: list[PodKey] = []
        self.active: PodKey | None = None

    # -- geometry ----------------------------------------------------------------------------
    def nb(self, s: Sq, d: str) -> Sq | None:
        dx, dy = DELTA[d]
        x, y = s[0] + dx, s[1] + dy
        if self.edgeless:  # OCT-50: torus
            return (x % self.W, y % self.H)
        if 0 <= x < self.W and 0 <= y < self.H:  # OCT-06 hard edge
            return (x, y)
        return None

    def on_board(self) -> list[PodKey]:
        return sorted(k for k, p in self.pods.items() if p.status == "board")

    def pods_at(self, s: Sq) -> list[PodKey]:
        """Every pod physically on ``s`` (movers included), ascending id (cached until a change)."""
        if self._occ is None:
            self._occ = {}
            for k in self.on_board():
                self._occ.setdefault(self.pods[k].sq, []).append(k)  # type: ignore[arg-type]
        return self._occ.get(s, [])

    def bprime_at(self, s: Sq, hopper: PodKey) -> list[PodKey]:
        """Movement board B' (§3): all board pods except the turn's movers and the hopper."""
        return [k for k in self.pods_at(s) if k not in self.movers and k != hopper]

    def name(self, k: PodKey) -> str:
        """§8: pod = its current square, '.k' iff the square holds two or more pods."""
        s = self.pods[k].sq
        assert s is not None
        here = self.pods_at(s)
        if len(here) >= 2:
            return f"{sq_name(s)}.{sorted(i for _, i in here).index(k[1])}"
        return sq_name(s)

    # -- hops --------------------------------------------------------------------------------
    def steps(self, k: PodKey) -> list[str]:
        seat, out = k[0], []
        s = self.pods[k].sq
        assert s is not None
        for d in DIRS:
            if d not in self.pods[k].prongs:  # OCT-07
                continue
            t = self.nb(s, d)
            if t is None:
                continue
            occ = self.bprime_at(t, k)
            # OCT-14 empty in B'; OCT-15 X: own pods allowed, enemy never
            if not occ or (self.x and all(o[0] == seat for o in occ)):
                out.append(d)
        return out

    def jumps(self, k: PodKey) -> list[str]:
        out = []
        s = self.pods[k].sq
        assert s is not None
        done = self.jumped.get(k, set())
        for d in DIRS:
            if d not in self.pods[k].prongs:  # OCT-07
                continue
            t = self.nb(s, d)
            if t is None or t in done:  # OCT-06, OCT-19 (per pod)
                continue
            if not self.bprime_at(t, k):  # OCT-17 jumped square holds a pod in B'
                continue
            land = self.nb(t, d)
            if land is None or self.bprime_at(land, k):  # OCT-17 landing vacant in B'
                continue
            out.append(d)
        return out

    def first_hops(self, k: PodKey) -> list[str]:
        """OCT-35 legal first hops (empty jumped set) as notation strings."""
        assert not self.jumped.get(k)
        n = self.name(k)
        return [f"step {n} {d}" for d in self.steps(k)] + [f"jump {n} {d}" for d in self.jumps(k)]

    # -- legal actions -----------------------------------------------------------------------
    def main_actions(self, seat: int) -> list[str]:
        acts: list[str] = []
        own = [k for k in self.on_board() if k[0] == seat]
        for k in own:
            n = self.name(k)
            if self.supply[seat] > 0:  # OCT-12, OCT-13
                acts += [f"prong {n} {d}" for d in DIRS if d not in self.pods[k].prongs]  # OCT-08
            acts += self.first_hops(k)  # OCT-14..19
            if self.allow_reposition:  # OCT-49
                for a in DIRS:
                    if a in self.pods[k].prongs:
                        acts += [f"reposition {n} {a} {b}" for b in DIRS if b not in self.pods[k].prongs]
        enemy = 1 - seat
        if self.x and any(p.status == "reserve" for (s, _), p in self.pods.items() if s == seat):
            for b in self.bases[seat]:  # OCT-36: own base empty or only own pods
                if all(o[0] == seat for o in self.pods_at(b)):
                    acts.append(f"enter {sq_name(b)}")
            if self.variant == "x_classic":  # OCT-38: enemy base holding an own pod
                for b in self.bases[enemy]:
                    if any(o[0] == seat for o in self.pods_at(b)):
                        acts.append(f"enter {sq_name(b)}")
        if self.variant == "x_classic":  # OCT-40 liberate
            on_enemy_base = any(self.pods[k].sq in self.bases[enemy] for k in own)
            has_captured = any(p.status == "captured" for (s, _), p in self.pods.items() if s == seat)
            if on_enemy_base and has_captured:
                for b in self.bases[seat] + self.bases[enemy]:
                    if any(o[0] == seat for o in self.pods_at(b)):
                        acts.append(f"liberate {sq_name(b)}")
        return acts

    def legal(self) -> list[str]:
        if self.over:
            return []
        if self.phase == "MAIN":
            return self.main_actions(self.to_move)
        if self.phase == "DECLARE":
            n = self.name(self.declare_queue[0])
            return [f"with {n}", f"without {n}"]
        if self.phase == "CHAIN":
            assert self.active is not None
            n = self.name(self.active)
            return [f"jump {n} {d}" for d in self.jumps(self.active)] + ["stop"]  # OCT-20/21
        if self.phase == "MOVER":
            assert self.active is not None
            return self.first_hops(self.active)
        if self.phase == "CAPTURE":
            n = self.name(self.capture_queue[0])
            return [f"capture {n}", f"spare {n}"]  # OCT-23, OCT-28
        raise AssertionError(self.phase)

    # -- applying ----------------------------------------------------------------------------
    def _find_pod(self, name: str) -> PodKey:
        sq, _, idx = name.partition(".")
        here = self.pods_at(parse_sq(sq))
        return here[int(idx)] if idx else here[0]  # ids ascending within one colour (OCT-09)

    def apply(self, action: str) -> None:
        assert action in self.legal(), action
        self._occ = None
        w = action.split()
        kind = w[0]
        seat = self.to_move
        if kind == "prong":  # OCT-12
            k = self._find_pod(w[1])
            self.pods[k].prongs.add(w[2])
            self.supply[seat] -= 1
            self._end()
        elif kind == "reposition":  # OCT-49
            k = self._find_pod(w[1])
            self.pods[k].prongs.remove(w[2])
            self.pods[k].prongs.add(w[3])
            self._end()
        elif kind in ("enter", "liberate"):  # OCT-36/38 lowest reserve id; OCT-40 lowest captured
            pool = "reserve" if kind == "enter" else "captured"
            i = min(i for (s, i), p in self.pods.items() if s == seat and p.status == pool)
            self.pods[(seat, i)] = Pod("board", parse_sq(w[1]))
            self._end()
        elif kind in ("step", "jump"):
            k = self._find_pod(w[1])
            if self.phase == "MAIN":  # §3: origin O, first mover
                self.origin = self.pods[k].sq
                self.movers = [k]
                self.first_mover = k
                self.first_was_jump = kind == "jump"
            self._hop(k, kind, w[2])
            self._follow_up(k, kind == "jump", first=self.phase == "MAIN")
        elif kind in ("with", "without"):  # OCT-34
            k = self.declare_queue.pop(0)
            if kind == "with":
                self.movers.append(k)
            if not self.declare_queue:
                assert self.first_mover is not None
                self._follow_up_3(self.first_mover, self.first_was_jump)
        elif kind == "stop":  # OCT-20
            assert self.active is not None
            self._done()
        elif kind in ("capture", "spare"):
            k = self.capture_queue.pop(0)
            if kind == "capture":
                self.marked.append(k)
            if not self.capture_queue:
                self._end()
        else:
            raise AssertionError(action)

    def _hop(self, k: PodKey, kind: str, d: str) -> None:
        s = self.pods[k].sq
        assert s is not None
        t = self.nb(s, d)
        assert t is not None
        if kind == "jump":
            self.jumped.setdefault(k, set()).add(t)
            if t not in self.jump_log:
                self.jump_log.append(t)
            t = self.nb(t, d)
            assert t is not None
        self.pods[k].sq = t
        self.moved.add(k)
        self._occ = None

    def _follow_up(self, m: PodKey, was_jump: bool, first: bool) -> None:
        seat = self.to_move
        # step 1 / OCT-42: basic, x_fast landing on an enemy base wins at once
        if self.variant != "x_classic" and self.pods[m].sq in self.bases[1 - seat]:
            self._finish(seat, why="OCT-42")
            return
        if self.x and first:  # step 2 / OCT-34, OCT-35: declare queue
            q = [k for k in self.pods_at(self.origin) if k != m and self.first_hops(k)] if self.origin else []
            if q:
                self.declare_queue = q
                self.phase = "DECLARE"
                return
        self._follow_up_3(m, was_jump)

    def _follow_up_3(self, m: PodKey, was_jump: bool) -> None:
        if was_jump and self.jumps(m):  # step 3 / OCT-18, OCT-21
            self.phase, self.active = "CHAIN", m
            return
        self._done()

    def _done(self) -> None:  # step 4
        waiting = [k for k in sorted(self.movers) if k not in self.moved]
        if waiting:
            self.phase, self.active = "MOVER", waiting[0]
            return
        self.active = None
        if self.jump_log:
            # §3 capture queue: B' pods on jumped squares, by first-jump time then id (OCT-29)
            q: list[PodKey] = []
            for s in self.jump_log:
                for k in self.pods_at(s):
                    if k not in self.movers and k not in q:
                        q.append(k)
            assert q
            self.capture_queue = q
            self.phase = "CAPTURE"
            return
        self._end()

    def _position(self, to_move: int) -> Any:
        board = tuple(
            sorted(
                (sq_name(p.sq), k[0], ",".join(d for d in DIRS if d in p.prongs))
                for k, p in self.pods.items()
                if p.status == "board" and p.sq is not None
            )
        )  # OCT-52: pod ids not part of the position
        cnt = [
            [sum(1 for (s, _), p in self.pods.items() if s == seat and p.status == st) for seat in (0, 1)]
            for st in ("reserve", "captured")
        ]
        return (board, tuple(self.supply), tuple(map(tuple, cnt)), to_move)

    def _count_position(self, to_move: int) -> int:
        key = self._position(to_move)
        self.history[key] = self.history.get(key, 0) + 1
        return self.history[key]

    def _end(self) -> None:
        seat = self.to_move
        for k in self.marked:  # END 1 / OCT-24, OCT-26, OCT-27, OCT-51
            p = self.pods[k]
            self.supply[seat] += len(p.prongs)
            pool = "reserve" if (self.capture_to_reserve and k[0] == seat) else "captured"
            self.pods[k] = Pod(pool, None)
        self._occ = None
        self.turn += 1  # END 2
        self._reset_turn()
        self.phase = "MAIN"
        enemy = 1 - seat
        if self.variant == "x_classic":  # END 3 / OCT-43
            own_sqs = {self.pods[k].sq for k in self.on_board() if k[0] == seat}
            if all(b in own_sqs for b in self.bases[enemy]):
                self._finish(seat, why="OCT-43")
                return
        if not self.main_actions(enemy):  # END 4 / OCT-44
            self._finish(seat, why="OCT-44")
            return
        if self._count_position(enemy) >= 3 and self.repetition_draw:  # END 5 / OCT-52
            self._finish(None, why="OCT-52")
            return
        if self.turn >= self.max_turns:  # END 6 / OCT-45
            self._finish(None, truncated=True, why="max_turns")
            return
        self.to_move = enemy  # END 7: the game goes on; the mover stays recorded otherwise

    def _finish(self, winner: int | None, truncated: bool = False, why: str = "") -> None:
        self.over, self.winner, self.truncated, self.why = True, winner, truncated, why
        self.phase = "OVER"

    def rewards(self) -> list[int]:
        if self.winner is None:
            return [0, 0]
        return [1 if self.winner == 0 else -1, 1 if self.winner == 1 else -1]

    def snapshot(self) -> dict[str, Any]:
        board: dict[str, list[list[Any]]] = {}
        for k in self.on_board():
            p = self.pods[k]
            assert p.sq is not None
            board.setdefault(sq_name(p.sq), []).append([k[0], ",".join(d for d in DIRS if d in p.prongs)])
        count = [
            [sum(1 for (s, _), p in self.pods.items() if s == seat and p.status == st) for seat in (0, 1)]
            for st in ("reserve", "captured")
        ]
        return {
            "to_move": self.to_move,
            "phase": self.phase,
            "turn": self.turn,
            "supply": list(self.supply),
            "reserve": count[0],
            "captured": count[1],
            "board": board,
        }


# ---------------------------------------------------------------------------------------------
# Harness: drive the engine and the reference side by side
# ---------------------------------------------------------------------------------------------


def _engine(params: dict[str, Any]) -> State:
    return State(Config(**params), np.random.default_rng(0))


def _compare(st: State, ref: Ref, where: str) -> dict[str, int]:
    """Assert engine == reference (snapshot, legal set, end); return the engine's legal strings."""
    snap = st.snapshot()
    mine = ref.snapshot()
    assert snap == mine, f"{where}: state differs\nengine    {snap}\nreference {mine}"
    eng = legal_strings(st)
    mine_legal = ref.legal()
    assert len(eng) == len(st.legal_actions()), f"{where}: canonical strings not unique"
    assert len(set(mine_legal)) == len(mine_legal), f"{where}: reference strings not unique"
    assert set(eng) == set(mine_legal), (
        f"{where}: legal sets differ\nengine only    {sorted(set(eng) - set(mine_legal))}\n"
        f"reference only {sorted(set(mine_legal) - set(eng))}\nsnapshot {snap}"
    )
    assert st.is_terminal() == ref.over, where
    if ref.over:
        assert st.is_truncated() == ref.truncated, where
        assert list(st.returns()) == ref.rewards(), where
    return eng


def _lands_on_enemy_base(ref: Ref, action: str) -> bool:
    w = action.split()
    if w[0] not in ("step", "jump"):
        return False
    t = ref.nb(parse_sq(w[1].partition(".")[0]), w[2])
    if t is not None and w[0] == "jump":
        t = ref.nb(t, w[2])
    return t in ref.bases[1 - ref.to_move]


def _choose(rng: random.Random, acts: list[str], ref: Ref, policy: str) -> str:
    """Random policies: "uniform"; "kind" picks an action kind first (so moves are not drowned
    by `prong`); "long" is "kind" avoiding hops onto an enemy base (longer games, more stacks,
    captures, blocked players, repetitions and truncations)."""
    if policy == "uniform":
        return rng.choice(acts)
    if policy == "repeat" and ref.phase == "MAIN":  # undo the own last move: seeks OCT-52
        last = ref.last_main.get(ref.to_move, "")
        w = last.split()
        undo = ""
        if w and w[0] == "step":
            t = ref.nb(parse_sq(w[1].partition(".")[0]), w[2])
            undo = f"step {sq_name(t) if t else ''} {DIRS[(DIRS.index(w[2]) + 4) % 8]}"
        elif w and w[0] == "reposition":
            undo = f"reposition {w[1]} {w[3]} {w[2]}"
        choice = undo if undo in acts else ""
        if not choice:
            moves = [a for a in acts if a.split()[0] in ("step", "reposition") and "." not in a]
            choice = rng.choice(moves) if moves and rng.random() < 0.9 else rng.choice(acts)
        ref.last_main[ref.to_move] = choice
        return choice
    if policy == "stack":  # X: build and move stacks, declare co-movers, jump
        weights = {"with": 6, "jump": 6, "enter": 4, "liberate": 4, "stop": 1}
        own_sqs = {ref.pods[k].sq for k in ref.on_board() if k[0] == ref.to_move}
        wts: list[float] = []
        for a in acts:
            x = weights.get(a.split()[0], 1)
            if (
                a.startswith("step ")
                and ref.nb(parse_sq(a.split()[1].partition(".")[0]), a.split()[2]) in own_sqs
            ):
                x = 8
            wts.append(x)
        return rng.choices(acts, weights=wts)[0]
    if policy == "long" and ref.variant != "x_classic":
        acts = [a for a in acts if not _lands_on_enemy_base(ref, a)] or acts
    kinds = sorted({a.split()[0] for a in acts})
    kind = rng.choice(kinds)
    return rng.choice(sorted(a for a in acts if a.split()[0] == kind))


def _drive(
    st: State, ref: Ref, rng: random.Random, policy: str, max_decisions: int, label: str
) -> tuple[int, str]:
    """Play both sides in lockstep, comparing at every agent step; returns (decisions, ending)."""
    eng = _compare(st, ref, f"{label} start")
    for n in range(max_decisions):
        if ref.over:
            return n, ref.why
        action = _choose(rng, sorted(eng), ref, policy)
        where = f"{label} decision {n} phase {ref.phase} turn {ref.turn} action {action!r}"
        idx = eng[action]
        assert st.string_to_action(action.upper()) == idx, where  # §8: case-insensitive
        st.apply(idx)
        ref.apply(action)
        if rng.random() < 0.1:  # continue from a JSON round trip of the full state (any phase)
            st = State.from_dict(json.loads(json.dumps(st.to_dict())))
        eng = _compare(st, ref, where)
    return max_decisions, ref.why if ref.over else "running"


def playout(params: dict[str, Any], seed: int, max_decisions: int, policy: str = "kind") -> tuple[int, str]:
    """From the initial position (§2)."""
    return _drive(
        _engine(params), Ref(**params), random.Random(seed), policy, max_decisions, f"{params} seed {seed}"
    )


def ref_from_engine(d: dict[str, Any]) -> Ref:
    """A reference for an engine MAIN-phase position given as ``State.to_dict()`` (no history)."""
    cfg = d["config"]
    ref = Ref(**cfg)
    P = ref.P
    for g, sq in enumerate(d["pos"]):
        st = "board" if sq >= 0 else ("reserve" if sq == -1 else "captured")
        where = (sq % ref.W, sq // ref.W) if sq >= 0 else None
        ref.pods[(g // P, g % P)] = Pod(st, where, {DIRS[i] for i in range(8) if d["prongs"][g] >> i & 1})
    ref.supply = list(d["supply"])
    ref.turn, ref.to_move = d["turn"], d["to_move"]
    ref.history = {}
    ref._occ = None
    return ref


def random_position(params: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random MAIN position (dense, with stacks in X) as a ``State.to_dict()`` dict."""
    st = _engine(params)
    ref = Ref(**params)
    P, W, H = ref.P, ref.W, ref.H
    d = st.to_dict()
    # a random window of the board concentrates the pods so that they interact
    w, h = rng.randint(3, W), rng.randint(3, H)
    x0, y0 = rng.randint(0, W - w), rng.randint(0, H - h)
    owner: dict[int, int] = {}
    pos, prongs = [], []
    for g in range(2 * P):
        seat = g // P
        r = rng.random()
        sq = -2 if r < 0.15 else (-1 if r < 0.3 and ref.x else None)
        if sq is None and ref.variant == "x_classic" and rng.random() < 0.3:  # near OCT-43
            b = rng.choice(ref.bases[1 - seat])
            c = b[0] + b[1] * W
            sq = c if owner.get(c, seat) == seat else None
        if sq is None:
            for _ in range(50):
                c = (x0 + rng.randrange(w)) + (y0 + rng.randrange(h)) * W
                bad_base = ref.variant != "x_classic" and (c % W, c // W) in ref.bases[1 - seat]
                if owner.get(c, seat) == seat and not bad_base and (ref.x or c not in owner):
                    sq = c
                    break
            else:
                sq = -2
        if sq >= 0:
            owner[sq] = seat
        pos.append(sq)
        prongs.append(sum(1 << i for i in range(8) if rng.random() < 0.35) if sq >= 0 else 0)
    total = 2 * (25 if ref.x else 12)
    while sum(bin(m).count("1") for m in prongs) > total:
        g = rng.randrange(2 * P)
        prongs[g] &= prongs[g] - 1
    rest = total - sum(bin(m).count("1") for m in prongs)
    s0 = rng.choice([0, rest, rng.randint(0, rest)])
    d.update(pos=pos, prongs=prongs, supply=[s0, rest - s0], to_move=rng.randrange(2))
    d["turn"] = rng.choice([0, rng.randrange(ref.max_turns), rng.randrange(ref.max_turns), ref.max_turns - 1])
    return d


def position_playout(params: dict[str, Any], seed: int, max_decisions: int, policy: str) -> tuple[int, str]:
    rng = random.Random(seed)
    while True:
        d = random_position(params, rng)
        try:
            st = State.from_dict(d)
        except ValueError as exc:  # no legal action for the player to move: draw another
            assert "legal action" in str(exc), exc
            continue
        break
    ref = ref_from_engine(st.to_dict())
    return _drive(
        st, ref, rng, policy, max_decisions, f"{params} seed {seed} position {d['pos']} {d['prongs']}"
    )


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

VARIANTS = ("basic", "x_fast", "x_classic")
#: every optional rule (OCT-49..OCT-52) on and off, over every variant (§6)
OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"edgeless": True},
    {"allow_reposition": True},
    {"capture_to_reserve": True},
    {"repetition_draw": True, "max_turns": 120},
    {"edgeless": True, "allow_reposition": True, "capture_to_reserve": True, "repetition_draw": True},
)
CONFIGS = [{"variant": v, **o} for v in VARIANTS for o in OPTIONS]


def _id(c: dict[str, Any]) -> str:
    return "-".join(f"{k}={v}" if k in ("variant", "max_turns") else k for k, v in c.items())


@pytest.mark.parametrize("params", CONFIGS, ids=_id)
def test_playouts_from_setup_match_reference(params: dict[str, Any]) -> None:
    """From the §2 setup, random games under several policies: at every agent step the legal
    set (§3 phases MAIN/DECLARE/CHAIN/MOVER/CAPTURE; OCT-07..OCT-21 hops, OCT-12/13 prongs,
    OCT-30..OCT-35 stacks and co-movers, OCT-36..OCT-40 enter/liberate, OCT-49 reposition,
    OCT-50 torus, §8 pod names) and the snapshot after it (OCT-23..OCT-29 captures, OCT-51,
    turn counter) equal the reference; endings (OCT-42..OCT-45, OCT-52, §5) and returns too."""
    decisions = 0
    budget = 120 if params.get("allow_reposition") else 200
    for seed, policy in enumerate(("kind", "long", "stack", "uniform")):
        n, _ = playout(params, seed, budget, policy)
        decisions += n
    assert decisions > 50


@pytest.mark.parametrize("params", CONFIGS, ids=_id)
def test_random_positions_match_reference(params: dict[str, Any]) -> None:
    """Dense random MAIN positions (stacks, pods on enemy bases in classic, captured and reserve
    pods, any supply, turn counter near ``max_turns``) loaded with ``from_dict``: the engine and
    the reference agree at every agent step of short random continuations (same rules as
    above, plus OCT-43 three-base wins, OCT-44 blocked players and END's binding order)."""
    endings: set[str] = set()
    for seed in range(12):
        _, why = position_playout(params, 1000 + seed, 40, ("kind", "stack", "long")[seed % 3])
        endings.add(why)
    assert endings - {"running"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_threefold_repetition_matches_reference(variant: str) -> None:
    """OCT-52 / END step 5: players undoing their own moves repeat positions; the draw comes on
    the third occurrence (initial position included, pod ids ignored) in engine and reference."""
    endings = []
    for seed in range(6):
        params = {"variant": variant, "repetition_draw": True, "allow_reposition": seed % 2 == 1}
        endings.append(playout(params, seed, 300, "repeat")[1])
    assert "OCT-52" in endings


@pytest.mark.parametrize("variant", VARIANTS)
def test_env_agent_steps_and_rewards_match_reference(variant: str) -> None:
    """OCT-46 / §5 through ``env()``: ``agent_selection`` is the mover in every phase, the other
    agent's mask is all zero, rewards come only at the agent step that ends the game and the
    termination/truncation flags match the reference's ending."""
    from envs import octi_v0

    extras: tuple[dict[str, Any], ...] = ({}, {"max_turns": 30})
    for seed, extra in enumerate(extras):
        params: dict[str, Any] = {"variant": variant, **extra}
        env = octi_v0.env(**params)
        env.reset(seed=seed)
        raw = env.unwrapped
        ref = Ref(**params)
        rng = random.Random(seed)
        while not ref.over:
            me = f"player_{ref.to_move}"
            other = f"player_{1 - ref.to_move}"
            assert env.agent_selection == me
            mask = env.observe(me)["action_mask"]
            assert not env.observe(other)["action_mask"].any()
            strings = {raw.action_to_string(int(a)): int(a) for a in np.flatnonzero(mask)}
            assert set(strings) == set(ref.legal())
            action = _choose(rng, sorted(strings), ref, "long")
            env.step(strings[action])
            ref.apply(action)
            if not ref.over:
                assert all(r == 0 for r in env.rewards.values())
        assert [env.rewards["player_0"], env.rewards["player_1"]] == ref.rewards()
        flags = env.truncations if ref.truncated else env.terminations
        assert all(flags.values())
        assert raw.snapshot()["board"] == ref.snapshot()["board"]


def test_reference_reproduces_spec_scenarios() -> None:
    """Sanity of the reference itself against §9 (no engine involved): OCT-S04 (series of jumps
    back to the origin, capture order), OCT-S11 (co-mover lands on the vacated origin) and
    OCT-S13 (three-base win)."""

    def run(variant: str, text: str) -> Ref:
        ref = Ref(variant)
        for line in text.strip().splitlines():
            for half in line.partition(". ")[2].split("/"):
                for a in half.split(","):
                    if a.strip():
                        ref.apply(a.strip())
        return ref

    s04 = run(
        "basic",
        """
        1. prong b2 NW / prong b6 S
        2. step b2 NW / step b6 S
        3. prong c2 NW / step b5 S
        4. step c2 NW / prong c6 S
        5. prong a3 E / step c6 S
        6. prong a3 N / step c5 S
        7. prong a3 SW / prong e6 S
        8. jump a3 E, jump c3 N, jump c5 SW, spare b3, capture c4, capture b4""",
    )
    snap = s04.snapshot()
    assert snap["board"]["a3"] == [[0, "N,E,SW,NW"]]
    assert sorted(sq for sq, pods in snap["board"].items() if pods[0][0] == 1) == ["d6", "e6"]
    assert (snap["supply"], snap["turn"], snap["to_move"]) == ([9, 9], 15, 1)

    s11 = run(
        "x_fast",
        S11_MOVES
        + """
        11. jump e3.0 E, with e3, jump g3 N, jump g5 SW, step e3.1 S, spare f3, capture g4, spare f4""",
    )
    snap = s11.snapshot()
    assert snap["board"]["e3"] == [[0, "N,E,SW"]] and snap["board"]["e2"] == [[0, "S"]]
    assert "g4" not in snap["board"] and snap["supply"] == [20, 18]

    s13 = run(
        "x_classic",
        S13_MOVES
        + """
        10. jump e5.0 N, with e5.0, with e5.1, jump e5.0 NW, jump e5 NE, spare e6, spare d6, spare f6""",
    )
    assert s13.over and s13.why == "OCT-43" and s13.rewards() == [1, -1]


def _position(
    params: dict[str, Any], black: list[tuple[str, str]], red: list[tuple[str, str]], **kw: Any
) -> State:
    """An engine MAIN position: pods as (square, "N,E") in id order, the rest captured (basic) or
    in reserve (X); black's supply is what the conservation of prongs leaves after red's."""
    d = _engine(params).to_dict()
    ref = Ref(**params)
    pos, prongs = [], []
    for pods in (black, red):
        for i in range(ref.P):
            sq, pr = pods[i] if i < len(pods) else ("", "")
            pos.append(parse_sq(sq)[0] + parse_sq(sq)[1] * ref.W if sq else (-1 if ref.x else -2))
            prongs.append(sum(1 << DIRS.index(x) for x in pr.split(",") if x))
    rest = 2 * (25 if ref.x else 12) - sum(bin(m).count("1") for m in prongs)
    red_supply = kw.pop("red_supply", 0)
    d.update(pos=pos, prongs=prongs, supply=[rest - red_supply, red_supply], **kw)
    return State.from_dict(d)


@pytest.mark.parametrize(
    ("params", "black", "red", "kw", "moves", "why"),
    [
        # OCT-44 (END 4) before truncation (END 6): Red is blocked when the limit is reached
        ({"max_turns": 10}, [("c3", "N")], [("a1", "S,W")], {"turn": 9}, ["step c3 N"], "OCT-44"),
        # OCT-43 (END 3) before truncation, after the captures of that turn (END 1)
        (
            {"variant": "x_classic", "max_turns": 50},
            [("c7", ""), ("e7", ""), ("g5", "N")],
            [("g6", "S"), ("a1", "N")],
            {"turn": 49, "red_supply": 3},
            ["jump g5 N", "capture g6"],
            "OCT-43",
        ),
        # OCT-44 after END 1: capturing Red's last pod leaves Red without an action (FAQ #5)
        ({}, [("b3", "E")], [("c3", "")], {}, ["jump b3 E", "capture c3"], "OCT-44"),
        # OCT-42 beats everything, mid-series (x_fast): landing on g7 ends the game at once
        ({"variant": "x_fast"}, [("g5", "N")], [("g6", "")], {}, ["jump g5 N"], "OCT-42"),
        # END 6 truncation when nothing else applies
        ({"max_turns": 5}, [("c3", "N")], [("a1", "N")], {"turn": 4}, ["step c3 N"], "max_turns"),
    ],
)
def test_end_order_matches_reference(
    params: dict[str, Any],
    black: list[tuple[str, str]],
    red: list[tuple[str, str]],
    kw: dict[str, Any],
    moves: list[str],
    why: str,
) -> None:
    """§3 END binding order (captures, turn count, OCT-43, OCT-44, OCT-52, truncation) and
    OCT-42's immediate end, on crafted positions: engine and reference agree step by step."""
    st = _position(params, black, red, **kw)
    ref = ref_from_engine(st.to_dict())
    _compare(st, ref, "start")
    for m in moves:
        st.apply(st.string_to_action(m))
        ref.apply(m)
        _compare(st, ref, m)
    assert ref.over and ref.why == why


def test_series_over_the_origin_on_a_torus_matches_reference() -> None:
    """OCT-50 + OCT-19 + B' (§3, OCT-32/34): on the 9x9 torus a series can come back next to
    the origin (jumps keep the parity of the square only on a hard-edged board) and jump over it
    when its other pod was declared ``without`` (still in B'); that pod is then a capture
    candidate (OCT-23, OCT-25) after the eight other jumped pods, in first-jump order."""
    params = {"variant": "x_fast", "edgeless": True}
    black = [("e3", "N,NE,E"), ("e3", "N"), ("d1", "")]
    red = [(s, "") for s in ("f3", "h3", "a3", "c3", "d4", "d6", "d8")]
    st = _position(params, black, red, red_supply=25)
    ref = ref_from_engine(st.to_dict())
    moves = ["jump e3.0 E", "without e3", "jump g3 E", "jump i3 E", "jump b3 E"]
    moves += ["jump d3 N", "jump d5 N", "jump d7 N", "jump d9 N", "jump d2 NE"]
    _compare(st, ref, "start")
    for m in moves:
        st.apply(st.string_to_action(m))
        ref.apply(m)
        _compare(st, ref, m)
    assert ref.phase == "CAPTURE"
    assert [ref.name(k) for k in ref.capture_queue] == ["f3", "h3", "a3", "c3", "d4", "d6", "d8", "d1", "e3"]
    for _ in range(9):
        st.apply(st.string_to_action("capture " + ref.name(ref.capture_queue[0])))
        ref.apply("capture " + ref.name(ref.capture_queue[0]))
        _compare(st, ref, "capture")
    assert ref.over and ref.why == "OCT-44"  # Red has no pod, no reserve left
