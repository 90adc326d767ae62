"""Differential test: an independent reference of the Otto the Octopus rules (spec
``rules/otto_octopus.md``) written straight from the spec, compared with the engine on random
playouts for every variant (OTP-01..OTP-49, §3, §5, §6).

The reference below was written from the spec alone, before reading the engine's rule logic.
Chance outcomes (deal, mulligans, pufferfish pick, seahorse insertion) are read from the engine's
state: the reference enumerates every possible outcome and checks that the engine's result is one
of them.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest

from envs.otto_octopus.encode import ACTION_STRINGS
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import State

# --------------------------------------------------------------------------------------------
# Reference model (spec §1, §2, §3, §4, §5)
# --------------------------------------------------------------------------------------------

KINDS = (
    "straight",
    "turn-in",
    "turn-out",
    "end",
    "end-shell",
    "clownfish",
    "butterflyfish",
    "jellyfish",
    "pufferfish",
    "starfish",
    "seahorse",
    "shark",
    "moray",
    "anglerfish",
    "minnow",
    "bubbles",
)  # §1.3 kind indices 0..15
TILE_COUNTS = {
    "straight": 12,
    "turn-in": 6,
    "turn-out": 6,
    "end": 4,
    "end-shell": 4,
    "clownfish": 2,
    "butterflyfish": 2,
    "jellyfish": 2,
    "pufferfish": 2,
    "starfish": 2,
    "seahorse": 2,
    "shark": 2,
    "moray": 2,
    "anglerfish": 2,
    "minnow": 3,
    "bubbles": 7,
}  # §1.1: 60 tiles
ARM_KINDS = ("straight", "turn-in", "turn-out")
END_KINDS = ("end", "end-shell")
FISH = KINDS[5:15]  # §1.3: clownfish..minnow are fish, bubbles are not
POINTS = {
    "clownfish": 1,
    "butterflyfish": 1,
    "jellyfish": 1,
    "pufferfish": 1,
    "starfish": 3,
    "seahorse": 2,
    "shark": 0,
    "moray": 2,
    "anglerfish": 3,
    "bubbles": 0,
}  # OTP-11, §1.3 (minnow: OTP-30; arm/end: OTP-11/12)

OTTO = ("d4", "e4", "d5", "e5")  # §1.1
ARM_STARTS = {"d6": "N", "e6": "N", "f5": "E", "f4": "E", "e3": "S", "d3": "S", "c4": "W", "c5": "W"}
CORAL = ("a1", "h1", "a8", "h8")
ALGAE = ("b7", "c6", "f6", "g7", "b2", "c3", "f3", "g2")
PERIMETER = tuple(f + r for f in "abcdefgh" for r in "12345678" if f in "ah" or r in "18")
SQUARES = tuple(f + r for r in "12345678" for f in "abcdefgh")

DELTA = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
RIGHT = {"N": "E", "E": "S", "S": "W", "W": "N"}  # clockwise (§1.2 turn-in)
LEFT = {v: k for k, v in RIGHT.items()}  # anticlockwise (§1.2 turn-out)


def _step(sq: str, d: str) -> str | None:
    f, r = ord(sq[0]) - 97 + DELTA[d][0], int(sq[1]) + DELTA[d][1]
    return chr(97 + f) + str(r) if 0 <= f < 8 and 1 <= r <= 8 else None


_STEP = {(sq, d): _step(sq, d) for sq in SQUARES for d in DELTA}
_NEIGHBOURS = {sq: [t for t in (_step(sq, d) for d in "NESW") if t is not None] for sq in SQUARES}


def step_sq(sq: str, d: str) -> str | None:
    """The square one step from ``sq`` in direction ``d``; None if off the board (§1.1)."""
    return _STEP[sq, d]


def neighbours(sq: str) -> list[str]:
    """Orthogonal neighbours (OTP-02)."""
    return _NEIGHBOURS[sq]


def turn(kind: str, heading: str) -> str:
    """OTP-05: straight keeps the direction, turn-in turns right, turn-out turns left."""
    return {"straight": heading, "turn-in": RIGHT[heading], "turn-out": LEFT[heading]}[kind]


@dataclass
class Arm:
    start: str
    heading: str  # direction in which the arm leaves its last tile (start: outward direction)
    tiles: list[str] = field(default_factory=list)  # squares of the arm tiles (arm order)
    finished: bool = False

    @property
    def started(self) -> bool:
        return bool(self.tiles)

    @property
    def tip(self) -> str | None:
        """§1.2: the square the last arm tile points to (None if off board / not applicable)."""
        if not self.tiles or self.finished:
            return None
        return step_sq(self.tiles[-1], self.heading)

    def open_tip(self) -> bool:
        return self.started and not self.finished

    def exits(self) -> list[str | None]:
        """§1.2: one step straight, right and left of the start square (unstarted arm)."""
        h = self.heading
        return [step_sq(self.start, h), step_sq(self.start, RIGHT[h]), step_sq(self.start, LEFT[h])]


EVENTS: Counter[str] = Counter()  # branches of the reference hit during the playouts


class Ref:
    """Reference state + rules. Hands are kept in acquisition order (OTP-41)."""

    def __init__(
        self,
        n: int,
        open_game: bool,
        simplified: bool,
        hands: list[list[str]],
        pile: list[str],
        start: bool = True,
    ):
        self.n, self.open_game, self.simplified = n, open_game, simplified
        self.board: dict[str, str] = {}  # square -> kind; Otto squares are occupied separately
        self.arms = {s: Arm(s, h) for s, h in ARM_STARTS.items()}
        self.hands = [list(h) for h in hands]
        self.pile = list(pile)  # top first
        self.scores = [0] * n
        self.skips = [0] * n
        self.passed: set[int] = set()
        self.extra = 0  # OTP-33 counter E
        self.phase = "main"
        self.cur = 0  # §2.1: player_0 starts
        self.over = False
        self.decisions = 0
        if start:
            self._start_turn()  # §3: automatic steps before the first decision

    @classmethod
    def from_position(cls, n: int, open_game: bool, simplified: bool, pos: dict) -> Ref:  # type: ignore[type-arg]
        """A settled decision point given as §9 position: placements in arm order, hands,
        pile top-first, scores, skips, passed, seat to move, phase, E."""
        r = cls(n, open_game, simplified, [[] for _ in range(n)], [], start=False)
        for pl in pos["placements"]:
            k, sq = pl.split()[-2:]
            h = r._hypo(k, sq)
            assert h is not None, pl
            r.board, r.arms = h
        r.hands = [list(h) for h in pos["hands"]]
        r.pile = list(pos["pile"])
        r.scores, r.skips = list(pos["scores"]), list(pos["skips"])
        r.passed = {p for p in range(n) if pos["passed"][p]}
        r.cur, r.phase, r.extra = pos["to_move"], pos["phase"], pos["extra"]
        return r

    # -- placement legality (OTP-01..OTP-10) ------------------------------------------------
    def occupied(self, sq: str) -> bool:
        return sq in OTTO or sq in self.board

    def arm_tiles_placed(self) -> int:
        return sum(1 for k in self.board.values() if k in ARM_KINDS)

    @staticmethod
    def constraints_ok(board: dict[str, str], arms: dict[str, Arm]) -> bool:
        """OTP-07: C1..C4 after the placement."""

        def occ(sq: str) -> bool:
            return sq in OTTO or sq in board

        tips = []
        for a in arms.values():
            if a.open_tip():
                t = a.tip
                # C1: the tip is on the board, empty and not an arm start square
                if t is None or occ(t) or t in ARM_STARTS:
                    return False
                tips.append(t)
        if len(set(tips)) != len(tips):  # C2
            return False
        unstarted = [a for a in arms.values() if not a.started]
        for a in unstarted:  # C3
            if occ(a.start):
                return False
            if not any(
                e is not None and not occ(e) and e not in ARM_STARTS and e not in tips for e in a.exits()
            ):
                return False
        placed = sum(1 for k in board.values() if k in ARM_KINDS)
        if 24 - placed < len(unstarted):  # C4
            EVENTS["C4 binds"] += 1
            return False
        return True

    def arm_for(self, sq: str) -> Arm | None:
        """The arm an arm/end tile on ``sq`` would extend: an unstarted arm's start square
        (OTP-03) or the tip of a started, unfinished arm (OTP-04/06)."""
        for a in self.arms.values():
            if not a.started and a.start == sq:
                return a
            if a.open_tip() and a.tip == sq:
                return a
        return None

    def _hypo(self, kind: str, sq: str) -> tuple[dict[str, str], dict[str, Arm]] | None:
        """Board and arms after placing ``kind`` on ``sq``, or None if the tile kind may not go
        there for arm reasons (OTP-03..06)."""
        board = dict(self.board)
        board[sq] = kind
        arms = self.arms
        if kind in ARM_KINDS or kind in END_KINDS:
            a = self.arm_for(sq)
            if a is None:
                return None  # OTP-04: no other square accepts arm tiles
            if kind in END_KINDS and not a.started:
                return None  # OTP-06: only on the tip of a started arm
            arms = dict(self.arms)
            b = Arm(a.start, a.heading, list(a.tiles), a.finished)
            if kind in END_KINDS:
                b.finished = True
            else:
                b.tiles.append(sq)
                b.heading = turn(kind, b.heading)
            arms[a.start] = b
        return board, arms

    def placement_ok(self, kind: str, sq: str) -> bool:
        if self.occupied(sq):
            return False
        if not any(self.occupied(s) for s in neighbours(sq)):  # OTP-01
            return False
        if not self.simplified:  # OTP-42 drops the moray / anglerfish limits
            if kind == "anglerfish" and sq not in PERIMETER:  # OTP-09
                return False
            if kind in FISH and any(self.board.get(s) == "moray" for s in neighbours(sq)):  # OTP-10
                return False
        h = self._hypo(kind, sq)
        return h is not None and self.constraints_ok(*h)

    def placements(self, p: int) -> set[tuple[str, str]]:
        return {(k, sq) for k in set(self.hands[p]) for sq in SQUARES if self.placement_ok(k, sq)}

    def has_placement(self, p: int) -> bool:
        return any(self.placement_ok(k, sq) for k in set(self.hands[p]) for sq in SQUARES)

    # -- decisions (§3) ------------------------------------------------------------------------
    def legal(self) -> set[str]:
        if self.over:
            return set()
        p = self.cur
        if self.phase in ("main", "extra"):
            acts = {f"place {k} {sq}" for k, sq in self.placements(p)}
            acts.add("pass" if self.phase == "main" else "stop")  # OTP-19, OTP-33
            return acts
        if self.phase == "swap":  # OTP-24
            return {
                f"swap {k} player_{j}"
                for k in set(self.hands[p])
                for j in range(self.n)
                if j != p and self.hands[j]
            }
        if self.phase == "return":  # OTP-26
            return {f"return {k}" for k in set(self.hands[p])}
        raise AssertionError(self.phase)

    def chance_options(self, action: str) -> int:
        """Number of chance outcomes the action resolves (1 if none)."""
        if self.phase == "swap":
            j = int(action.split()[2][len("player_") :])
            return len(self.hands[j])  # OTP-24: uniformly random tile of player j
        if self.phase == "return":
            return len(self.pile) + 1  # OTP-26: uniformly random insertion position
        return 1

    def apply(self, action: str, chance: int = 0) -> None:
        assert action in self.legal(), action
        self.decisions += 1
        p = self.cur
        words = action.split()
        if words[0] == "pass":  # OTP-19: draws nothing
            self._pass(p)
        elif words[0] == "stop":  # OTP-33: drop the remaining extra placements
            self.extra = 0
            self._end_turn(p)
        elif words[0] == "place":
            self._place(p, words[1], words[2])
        elif words[0] == "swap":  # OTP-24
            k, j = words[1], int(words[2][len("player_") :])
            taken = self.hands[j][chance]
            self.hands[j].remove(taken)
            self.hands[p].remove(k)
            self.hands[j].append(k)
            self.hands[p].append(taken)
            self._continue_turn(p)
        elif words[0] == "return":  # OTP-26: return, then draw a replacement
            self.hands[p].remove(words[1])
            self.pile.insert(chance, words[1])
            self._draw(p)
            self._continue_turn(p)

    # -- effects ---------------------------------------------------------------------------------
    def _draw(self, p: int) -> None:
        if self.pile:  # OTP-47
            self.hands[p].append(self.pile.pop(0))

    def _place(self, p: int, kind: str, sq: str) -> None:
        if self.phase == "extra":
            self.extra -= 1  # OTP-33: each place uses one
        h = self._hypo(kind, sq)
        assert h is not None
        arm = self.arm_for(sq) if kind in ARM_KINDS + END_KINDS else None
        n_arm_tiles = len(arm.tiles) if arm is not None else 0
        self.board, self.arms = h
        self.hands[p].remove(kind)
        self.passed.clear()  # OTP-37: passes count since the last placement
        # scoring OTP-11..OTP-15, OTP-30
        if kind in ARM_KINDS:
            pts = 1
        elif kind in END_KINDS:
            pts = 1 + n_arm_tiles  # OTP-12
            if kind == "end-shell":
                pts *= 2
        elif kind == "minnow":  # OTP-30: size of the connected minnow group
            group, todo = {sq}, [sq]
            while todo:
                for s in neighbours(todo.pop()):
                    if self.board.get(s) == "minnow" and s not in group:
                        group.add(s)
                        todo.append(s)
            pts = {1: 1, 2: 3, 3: 6}[len(group)]
        else:
            pts = POINTS[kind]
        if sq in CORAL:  # OTP-14
            pts *= 2
        if sq in ALGAE:  # OTP-13
            pts += 1
        self.scores[p] += pts
        # effects OTP-21..OTP-31 (OTP-39 solo, OTP-42 simplified)
        solo = self.n == 1
        if not self.simplified:
            if kind == "shark":  # OTP-27
                for j in range(self.n):
                    if j != p:
                        self.scores[j] -= 2
            if kind == "clownfish" and not solo:  # OTP-21, OTP-33: draw, then E += 1
                self._draw(p)
                self.extra += 1
            elif kind == "butterflyfish" and not solo:  # OTP-22
                self.extra += 2
            elif kind == "jellyfish" and not solo:  # OTP-23
                self.skips[(p + 1) % self.n] += 1
            elif kind == "pufferfish" and not solo:  # OTP-24
                if self.hands[p] and any(self.hands[j] for j in range(self.n) if j != p):
                    self.phase = "swap"
                    return
                EVENTS["pufferfish without swap"] += 1
            elif kind == "seahorse":  # OTP-26
                self._draw(p)
                if self.pile:
                    self.phase = "return"
                    return
                EVENTS["seahorse on an empty pile"] += 1
        self._continue_turn(p)

    # -- turn flow (§3, OTP-18, OTP-33, OTP-37) ----------------------------------------------------
    def _continue_turn(self, p: int) -> None:
        if self.extra > 0 and self.has_placement(p):
            self.phase = "extra"
        else:
            if self.extra > 0:
                EVENTS["extra placements left but none legal"] += 1
            self.extra = 0
            self._end_turn(p)

    def _end_turn(self, p: int) -> None:
        while len(self.hands[p]) < 3 and self.pile:  # OTP-18 refill
            self._draw(p)
        self.cur = (p + 1) % self.n
        self._start_turn()

    def _pass(self, p: int) -> None:
        self.passed.add(p)
        if len(self.passed) == self.n:  # OTP-37 / OTP-40
            self.over = True
            self.phase = "over"
            return
        self.cur = (p + 1) % self.n
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase = "main"
        self.extra = 0
        p = self.cur
        if self.skips[p] > 0:  # OTP-23: a skipped turn is neither a turn played nor a pass
            self.skips[p] -= 1
            EVENTS["skipped turn"] += 1
            self.cur = (p + 1) % self.n
            self._start_turn()
            return
        if not self.has_placement(p):  # OTP-19 automatic pass
            EVENTS["automatic pass"] += 1
            self._pass(p)

    # -- end of game (§5, OTP-38, OTP-40) --------------------------------------------------------
    def final_scores(self) -> list[int]:
        if self.n == 1:
            return [self.scores[0] - len(self.hands[0]) - len(self.pile)]
        return [s - len(h) for s, h in zip(self.scores, self.hands, strict=True)]

    def returns(self) -> list[float]:
        f = self.final_scores()
        if self.n == 1:
            return [f[0] / 100]
        top = max(f)
        k = sum(1 for x in f if x == top)
        n = self.n
        return [(n - k) / (k * (n - 1)) if x == top else -1 / (n - 1) for x in f]


# --------------------------------------------------------------------------------------------
# Connection to the engine (public interface only) and the differential playouts
# --------------------------------------------------------------------------------------------


def ref_action_string(a: int) -> str:
    """Spec §7 codec, written independently: S(sq) = (rank-1)*8 + file."""
    if a < 1024:
        k, s = divmod(a, 64)
        return f"place {KINDS[k]} {'abcdefgh'[s % 8]}{s // 8 + 1}"
    if a == 1024:
        return "pass"
    if a == 1025:
        return "stop"
    if a < 1042:
        return f"return {KINDS[a - 1026]}"
    k, j = divmod(a - 1042, 4)
    return f"swap {KINDS[k]} player_{j}"


def engine_legal(st: State) -> set[str]:
    return {ACTION_STRINGS[int(a)] for a in np.flatnonzero(st.legal_mask())}


def ref_view(r: Ref) -> dict[str, object]:
    """The spec-determined part of the state, in the engine snapshot's vocabulary."""
    return {
        "board": dict(r.board),
        "hands": [sorted(h) for h in r.hands],
        "pile": list(r.pile),
        "scores": list(r.scores),
        "skips": list(r.skips),
        "passed": [p in r.passed for p in range(r.n)],
        "to_move": None if r.over else r.cur,
        "phase": None if r.over else r.phase,
        "extra": None if r.over else r.extra,
        "over": r.over,
    }


def engine_view(st: State) -> dict[str, object]:
    pos = st.snapshot()
    board = {}
    for pl in pos["placements"]:
        k, sq = pl.split()
        board[sq] = k
    over = st.is_terminal() and not st.is_truncated()
    return {
        "board": board,
        "hands": [sorted(h) for h in pos["hands"]],
        "pile": list(pos["pile"]),
        "scores": list(pos["scores"]),
        "skips": list(pos["skips"]),
        "passed": list(pos["passed"]),
        "to_move": None if over else pos["to_move"],
        "phase": None if over else pos["phase"],
        "extra": None if over else pos["extra"],
        "over": over,
    }


CONFIGS = [
    dict(num_players=n, open_game=o, simplified=s)
    for n in (1, 2, 3, 4)
    for o in (False, True)
    for s in (False, True)
]


FLOW = ("to_move", "phase", "extra", "over")


def _agree(r: Ref, got: dict[str, object], truncated: bool) -> bool:
    want = ref_view(r)
    if truncated:  # the game was cut: whose turn it would have been is moot
        return all(want[k] == got[k] for k in want if k not in FLOW)
    return want == got


def _branches(ref: Ref, act: str) -> list[Ref]:
    out = []
    for c in range(ref.chance_options(act)):
        r2 = copy.deepcopy(ref)
        r2.apply(act, c)
        out.append(r2)
    return out


def _reload(game: OttoOctopusGame, st: State, ref: Ref, seed: int) -> tuple[State, Ref]:
    """to_dict/from_dict round trip and reset(options={"position": ...}) (§9 hook) at a
    decision point: both give the same state and legal moves as the live one; play goes on
    from the loaded position with a reference rebuilt from the snapshot."""
    st2 = State.from_dict(st.to_dict())
    assert engine_view(st2) == engine_view(st) and engine_legal(st2) == engine_legal(st)
    snap = st.snapshot()
    st3 = game.new_initial_state(np.random.default_rng(seed + 1), {"position": snap})
    assert st3.snapshot() == snap and engine_legal(st3) == engine_legal(st)
    ref2 = Ref.from_position(ref.n, ref.open_game, ref.simplified, snap)
    assert ref_view(ref2) == ref_view(ref) and ref2.legal() == ref.legal()
    return st3, ref2


def _choose(ref: Ref, acts: list[str], rnd: random.Random, policy: str, pass_p: float) -> str:
    places = [a for a in acts if a.startswith("place")]
    if not places or rnd.random() < pass_p:
        return rnd.choice(acts)
    if policy == "extend":
        # grow started arms, start or finish arms only when forced: drives C4 (arm tiles run out)
        starts = {a.start for a in ref.arms.values() if not a.started}

        def rank(act: str) -> int:
            _, k, sq = act.split()
            if k in ARM_KINDS:
                return 2 if sq in starts else 0
            return 3 if k in END_KINDS else 1

        best = min(rank(a) for a in places)
        places = [a for a in places if rank(a) == best]
    return rnd.choice(places)


def _playout(cfg: dict[str, object], seed: int, pass_p: float = 0.04, policy: str = "random") -> int:
    game = OttoOctopusGame(**cfg)
    st = game.new_initial_state(np.random.default_rng(seed))
    pos = st.snapshot()
    n = game.num_players
    # §2 / OTP-36: 3 tiles each, 60 tiles in all, every hand playable (holds an arm tile)
    assert all(len(h) == 3 for h in pos["hands"])
    assert Counter(k for h in pos["hands"] for k in h) + Counter(pos["pile"]) == Counter(TILE_COUNTS)
    assert all(any(k in ARM_KINDS for k in h) for h in pos["hands"])
    ref = Ref(n, bool(cfg.get("open_game")), bool(cfg.get("simplified")), pos["hands"], pos["pile"])
    assert engine_view(st) == ref_view(ref)
    rnd = random.Random(seed)
    max_steps = int(cfg.get("max_steps", 1000))  # type: ignore[call-overload]
    decisions = 0
    while not ref.over:
        legal = ref.legal()
        assert engine_legal(st) == legal, (decisions, ref.phase)
        act = _choose(ref, sorted(legal), rnd, policy, pass_p)
        st.apply(ACTION_STRINGS.index(act))
        decisions += 1
        got = engine_view(st)
        cut = decisions >= max_steps  # §5: the engine truncates after max_steps decisions
        if ref.chance_options(act) == 1:
            ref.apply(act)
            candidates = [ref]
        else:  # the engine's chance outcome must be one of the reference's
            candidates = _branches(ref, act)
        matches = [r for r in candidates if _agree(r, got, cut and not r.over)]
        assert matches, (decisions, act, got, [ref_view(r) for r in candidates][:2])
        ref = matches[0]
        if cut and not ref.over:
            assert st.is_truncated() and st.is_terminal()
            assert list(st.returns()) == [0.0] * n  # truncation: reward 0 for all
            return decisions
        assert not st.is_truncated()
        if decisions % 23 == 0 and not ref.over and max_steps == 1000:
            st, ref = _reload(game, st, ref, seed)
    # end of game: OTP-37/38/40, §5 rewards
    assert st.is_terminal() and not st.is_truncated()
    assert st.final_scores() == ref.final_scores()
    assert list(st.returns()) == pytest.approx(ref.returns())
    if n > 1:
        assert abs(sum(ref.returns())) < 1e-9  # zero-sum
    return decisions


def test_codec_matches_spec_section_7() -> None:
    """§7/§8: every index has the canonical string of the recommended encoding."""
    assert [ref_action_string(a) for a in range(1106)] == list(ACTION_STRINGS)


@pytest.mark.parametrize(
    "cfg", CONFIGS, ids=lambda c: "n{num_players}-o{open_game:d}-s{simplified:d}".format(**c)
)
def test_differential_playouts(cfg: dict[str, object]) -> None:
    """OTP-01..OTP-49, §3, §5: legal sets, states and returns agree with the reference."""
    for seed in range(3):
        _playout(cfg, seed, pass_p=(0.02, 0.04, 0.3)[seed])
    _playout(cfg, 100, pass_p=0.0, policy="extend")  # arms grown first: C4 binds


@pytest.mark.parametrize("n,max_steps", [(1, 9), (2, 25), (3, 40), (4, 7)])
def test_truncated_playouts(n: int, max_steps: int) -> None:
    """§5: after ``max_steps`` decisions the game is cut (reward 0 for all), the position
    up to there agreeing with the reference."""
    assert _playout(dict(num_players=n, max_steps=max_steps), 5) == max_steps


@pytest.mark.parametrize("simplified", [False, True])
def test_every_kind_on_played_boards(simplified: bool) -> None:
    """OTP-01..OTP-10 for all 16 kinds: at boards reached in play, the mover holding a single
    kind (loaded via the position hook) has the same legal placements in engine and reference."""
    game = OttoOctopusGame(num_players=2, simplified=simplified)
    for seed in range(2):
        st = game.new_initial_state(np.random.default_rng(seed))
        rnd = random.Random(seed)
        while not st.is_terminal():
            snap = st.snapshot()
            if snap["phase"] in ("main", "extra") and rnd.random() < 0.5:
                for kind in KINDS:
                    pos = dict(snap, hands=[[kind], ["bubbles"]], phase="main", extra=0, to_move=0)
                    pos["passed"], pos["skips"] = [False, False], [0, 0]
                    eng = game.new_initial_state(np.random.default_rng(0), {"position": pos})
                    ref = Ref.from_position(2, False, simplified, dict(pos, to_move=0))
                    want = {a for a in ref.legal() if a.startswith("place")}
                    got = engine_legal(eng) if eng.current_player() == 0 else set()
                    assert {a for a in got if a.startswith("place")} == want, kind
            mask = st.legal_mask()
            acts = [int(a) for a in np.flatnonzero(mask)]
            places = [a for a in acts if a < 1024]
            st.apply(rnd.choice(places or acts))


def test_rare_branches_are_compared() -> None:
    """The playouts reach the rare rules: C4 of OTP-07, a pufferfish with nobody to swap with
    (OTP-24), a seahorse on an empty pile (OTP-26), extra placements with none legal (OTP-33),
    skipped turns (OTP-23) and automatic passes (OTP-19)."""
    before = Counter(EVENTS)
    _playout(dict(num_players=2), 103, pass_p=0.02)
    _playout(dict(num_players=4), 101, pass_p=0.0, policy="extend")
    _playout(dict(num_players=4), 106, pass_p=0.0, policy="extend")
    hit = EVENTS - before
    assert set(hit) == {
        "C4 binds",
        "pufferfish without swap",
        "seahorse on an empty pile",
        "extra placements left but none legal",
        "skipped turn",
        "automatic pass",
    }, hit


def test_chance_is_uniform() -> None:
    """OTP-26: the returned tile goes to a uniformly random pile position; OTP-24: the taken
    tile is uniformly random among the opponent's (OTP-45: from the reset generator)."""
    from tests.otto_octopus.helpers import P1, make, play

    where: Counter[object] = Counter()
    taken: Counter[str] = Counter()
    for seed in range(400):
        st = make(P1, [["seahorse", "starfish", "bubbles"]], seed=seed, pile=["minnow"] + ["bubbles"] * 4)
        play(st, "place seahorse c7")
        play(st, "return starfish")  # 5 positions in a pile of 4; the top one is drawn back
        pos = st.snapshot()
        where["hand" if "starfish" in pos["hands"][0] else pos["pile"].index("starfish")] += 1
        st = make(P1, [["pufferfish", "straight", "end"], ["shark", "starfish", "minnow"]], seed=seed)
        play(st, "place pufferfish c7")
        play(st, "swap end player_1")
        taken.update(k for k in st.snapshot()["hands"][0] if k in ("shark", "starfish", "minnow"))
    assert set(where) == {"hand", 0, 1, 2, 3} and all(50 <= v <= 110 for v in where.values()), where
    assert set(taken) == {"shark", "starfish", "minnow"} and all(95 <= v <= 175 for v in taken.values()), (
        taken
    )


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_env_masks_rewards_and_notation(n: int) -> None:
    """§3 (only the acting agent has a non-zero mask), §5 (terminal rewards), §8 (notation
    through ``env.unwrapped``): an AEC playout checked against the reference."""
    from envs.otto_octopus_v0 import env as make_env

    e = make_env(num_players=n, open_game=n == 3)
    e.reset(seed=7 + n)
    u = e.unwrapped
    pos = u.state.snapshot()
    ref = Ref(n, n == 3, False, pos["hands"], pos["pile"])
    rnd = random.Random(n)
    final: dict[str, float] = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert term and not trunc
            final[agent] = float(reward)
            e.step(None)
            continue
        assert agent == f"player_{ref.cur}"
        for other in e.agents:
            mask = e.observe(other)["action_mask"]
            want = ref.legal() if other == agent else set()
            assert {u.action_to_string(int(a)) for a in np.flatnonzero(mask)} == want
        act = _choose(ref, sorted(ref.legal()), rnd, "random", 0.02)
        e.step(u.string_to_action("  " + act.upper().replace(" ", "   ") + " "))
        got = engine_view(u.state)
        ref = next(r for r in _branches(ref, act) if ref_view(r) == got)
    assert ref.over
    assert [final[f"player_{p}"] for p in range(n)] == pytest.approx(ref.returns())


@pytest.mark.parametrize("n", [1, 2, 4])
def test_env_truncation_and_illegal(n: int) -> None:
    """§5 truncation (``max_steps`` decisions, reward 0 for all) and OTP-44 (an illegal action
    ends the episode: the mover -1, the others 0)."""
    from envs.otto_octopus_v0 import env as make_env

    e = make_env(num_players=n, max_steps=5)
    e.reset(seed=3)
    steps, final = 0, {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term
            final[agent] = reward
            e.step(None)
            continue
        mask = e.observe(agent)["action_mask"]
        e.step(int(np.flatnonzero(mask)[0]))
        steps += 1
    assert steps == 5 and final == {f"player_{p}": 0 for p in range(n)}

    e = make_env(num_players=n)
    e.reset(seed=3)
    e.step(e.unwrapped.string_to_action("place moray d4"))  # never legal (§8)
    assert e._cumulative_rewards["player_0"] == -1
    assert all(v == 0 for a, v in e._cumulative_rewards.items() if a != "player_0")
    assert all(e.terminations.values()) or all(e.truncations.values())
    st = OttoOctopusGame(num_players=n).new_initial_state(np.random.default_rng(3))
    with pytest.raises(ValueError, match=r"illegal action"):  # OTP-44: the raw engine raises
        st.apply(ACTION_STRINGS.index("stop"))  # never legal in MAIN
