"""Metamorphic checks of the board rules: symmetries of the board.

Each symmetry is written here from the rules specs' geometry (not from the engine's own
``symmetries()`` tables) as a map on positions, fed through the documented position hook
(``reset(options={"position": ...})``, schema of ``snapshot()``), and a map on notation strings.
Contract, along seeded games of random / greedy / heuristic moves in every variant and optional
rule: the image position's legal notation set is the image of the original's, playing a move and
its image keeps the two games images of each other, and returns / results at the end agree.

* Octi (rules/octi.md): the left-right mirror (bases b2-e2/b6-e6 and c3 e3 g3/c7 e7 g7 are
  mirror-symmetric, OCT-01/OCT-02; directions are absolute, OCT-05: E<->W, NE<->NW, SE<->SW), and
  the seat symmetry: the board turned 180 degrees with the seats swapped (OCT-47's frame), and its
  composition with the mirror, the up-down reflection with the seats swapped. Pod ids follow each
  side's own left-to-right reading order (§1, OCT-04), which a mirror reverses, so stacks'
  ``.k`` suffixes (§8) and the declaration order (OCT-34) are compared with the mirrored side
  loaded afresh at each turn start in X (a stack keeps the order it is listed in); the
  180-degree turn keeps the reading order and is checked move by move with no reload.
* OTTO Game Over (rules/otto_game_over.md §1): the 5x5 board, its centre C8 r0 and the frame
  (s/Q half-shapes, joins) are invariant under all 8 maps of the square; a tile in
  orientation r<k> maps to the orientation of the same design whose strokes are the image of its
  ports (§1.2: port p -> p + 2 under a clockwise quarter turn, p -> 1 - p under the left-right
  mirror). The one rule that is not geometric is OGO-20/OGO-22's vertex order (which of several
  shapes of one kind gets a team's last marker): games that reach it are set aside, and the
  order itself is pinned below.
* Otto the Octopus (rules/otto_octopus.md §1.1): Otto, the arm starts, coral, algae and the
  perimeter are invariant under the 8 maps of the square. Turns keep every arm right-handed
  (§1.2); a reflection makes right turns left turns, so it maps ``turn-in`` <-> ``turn-out``
  (OTP-05; 6 of each in the mix) and keeps every other kind.
* Seats: Otto the Octopus (any game) and OTTO Game Over (one match, free-for-all) treat seats
  cyclically (OTP-18/OTP-23 "the player on the left", OGO-10/OGO-36/OGO-37/OGO-46 clockwise),
  so a cyclic relabelling of a set-up position's seats gives the relabelled game.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

from envs import octi_v0, otto_game_over_v0, otto_octopus_v0
from envs.octi.bots import BOTS as OCTI_BOTS
from envs.otto_game_over.bots import BOTS as OGO_BOTS
from envs.otto_octopus.bots import BOTS as OTP_BOTS

POLICIES = [("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random"), ("greedy", "random")]


def legal(env) -> dict[str, int]:
    u = env.unwrapped
    return {u.action_to_string(int(a)): int(a) for a in np.flatnonzero(u.state.legal_mask())}


def seat_perm(values, shift):
    out = [None] * len(values)
    for i, v in enumerate(values):
        out[(i + shift) % len(values)] = v
    return out


# --------------------------------------------------------------------------------------- Octi

DIRS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


class OctiSym:
    """lr: file x -> W+1-x; rot: the board turned 180 degrees + seats swapped; ud: rank r ->
    H+1-r + seats swapped (spec §2 diagram, OCT-05 directions, OCT-47)."""

    def __init__(self, name: str, variant: str):
        self.name = name
        self.W, self.H = (6, 7) if variant == "basic" else (9, 9)
        self.swap = name in ("rot", "ud")
        self.dshift = {
            "lr": lambda i: (8 - i) % 8,
            "rot": lambda i: (i + 4) % 8,
            "ud": lambda i: (4 - i) % 8,
        }[name]

    def sq(self, s: str) -> str:
        x, r = "abcdefghi".index(s[0]) + 1, int(s[1:])
        if self.name in ("lr", "rot"):
            x = self.W + 1 - x
        if self.name in ("rot", "ud"):
            r = self.H + 1 - r
        return f"{'abcdefghi'[x - 1]}{r}"

    def dir(self, d: str) -> str:
        return DIRS[self.dshift(DIRS.index(d))]

    def prongs(self, p: str) -> str:
        image = {self.dir(d) for d in p.split(",")} if p else set()
        return ",".join(d for d in DIRS if d in image)

    def position(self, snap: dict) -> dict:
        out = dict(snap)
        seat = (lambda s: 1 - s) if self.swap else (lambda s: s)
        out["board"] = {
            self.sq(q): [[seat(s), self.prongs(p)] for s, p in pods] for q, pods in snap["board"].items()
        }
        if self.swap:
            for key in ("supply", "reserve", "captured"):
                if key in snap:
                    out[key] = snap[key][::-1]
            out["to_move"] = 1 - snap["to_move"]
        return out

    def move(self, m: str) -> str:
        words = m.split(" ")
        out = [words[0]]
        for w in words[1:]:
            if w in DIRS:
                out.append(self.dir(w))
            else:
                square, dot, k = w.partition(".")
                out.append(self.sq(square) + dot + k)
        return " ".join(out)


def octi_key(snap: dict) -> dict:
    s = dict(snap)
    s["board"] = {q: sorted(map(tuple, pods)) for q, pods in sorted(snap["board"].items())}
    return s


def octi_lockstep(params: dict, sym: OctiSym, seed: int, policy, start: dict | None = None) -> int:
    a, b = octi_v0.raw_env(**params), octi_v0.raw_env(**params)
    a.reset(seed=seed)
    start = start or a.snapshot()
    a.reset(seed=seed, options={"position": start})
    b.reset(seed=seed, options={"position": sym.position(start)})
    reload = sym.name != "rot" and params["variant"] != "basic"  # pod ids: see the module docstring
    rng = np.random.default_rng(seed)
    bots = [OCTI_BOTS[p](a.game) for p in policy]
    steps = 0
    while True:
        sa, sb = a.snapshot(), b.snapshot()
        assert octi_key(sym.position(sa)) == octi_key(sb), (steps, sa, sb)
        if a.state.is_terminal() or b.state.is_terminal():
            assert a.state.is_terminal() and b.state.is_terminal()
            ra, rb = list(a.state.returns()), list(b.state.returns())
            assert ra == (rb[::-1] if sym.swap else rb), (ra, rb)  # OCT-42..OCT-45, OCT-52
            return steps
        if reload and sa["phase"] == "MAIN":
            a.reset(seed=seed, options={"position": sa})
            b.reset(seed=seed, options={"position": sym.position(sa)})
        la, lb = legal(a), legal(b)
        assert {sym.move(m) for m in la} == set(lb), (steps, sa["phase"], sorted(la), sorted(lb))
        seat = a.state.current_player()
        act = bots[seat % 2].act(a.state, seat, rng)
        mb = sym.move(a.action_to_string(act))
        a.step(act)
        b.step(lb[mb])
        steps += 1


OCTI_CASES = [
    (variant, opts, name)
    for variant in ("basic", "x_fast", "x_classic")
    for opts in (
        {},
        {"allow_reposition": True},
        {"edgeless": True},
        {"capture_to_reserve": True},
        {"repetition_draw": True},
    )
    for name in ("lr", "rot", "ud")
    # with repetition_draw the X mirrors cannot reload (it resets the history, OCT-52)
    if not (opts.get("repetition_draw") and variant != "basic" and name != "rot")
    if not (opts.get("capture_to_reserve") and variant == "basic")
]


@pytest.mark.parametrize(("variant", "opts", "name"), OCTI_CASES)
def test_octi_board_symmetry_games(variant, opts, name):
    """OCT-01/02 bases, OCT-05 absolute directions, OCT-06/OCT-50 edges, OCT-07..OCT-22 moves,
    OCT-23..OCT-29 captures, OCT-30..OCT-41 stacks/reserve/liberation, OCT-42..OCT-45 ends,
    OCT-47 seat frame, OCT-49..OCT-52 optional rules."""
    params = dict(variant=variant, max_turns=24, **opts)
    seed = len(variant) * 7 + len(name) + len(opts) * 3 + sum(map(len, opts))
    steps = octi_lockstep(params, OctiSym(name, variant), seed, POLICIES[seed % 4])
    assert steps > 0


def test_octi_random_positions_and_their_images():
    """Random positions through the position hook: a position and its images are accepted or
    refused alike (OCT-09, OCT-42..OCT-44 set-up checks), then play on in step."""
    bases = {
        "basic": (("b2", "c2", "d2", "e2"), ("b6", "c6", "d6", "e6")),
        "x": (("c3", "e3", "g3"), ("c7", "e7", "g7")),
    }
    checked = 0
    for i in range(18):
        rng = np.random.default_rng(40_000 + i)
        variant = ("basic", "x_fast", "x_classic")[i % 3]
        params = dict(variant=variant, max_turns=16, edgeless=bool(i % 2))
        W, H = (6, 7) if variant == "basic" else (9, 9)
        P, T = (4, 24) if variant == "basic" else (7, 50)
        board, count, used = {}, [0, 0], 0
        for seat in (0, 1):
            for _ in range(int(rng.integers(1, P + 1))):
                sq = f"{'abcdefghi'[int(rng.integers(W))]}{int(rng.integers(H)) + 1}"
                if sq in bases["basic" if variant == "basic" else "x"][1 - seat] and variant != "x_classic":
                    continue
                if sq in board and (variant == "basic" or board[sq][0][0] != seat):
                    continue
                dirs = sorted(rng.choice(8, size=int(rng.integers(0, 5)), replace=False).tolist())
                if used + len(dirs) > T:
                    dirs = []
                used += len(dirs)
                board.setdefault(sq, []).append([seat, ",".join(DIRS[d] for d in dirs)])
                count[seat] += 1
        s0 = int(rng.integers(0, T - used + 1))
        pos = {
            "board": board,
            "to_move": int(rng.integers(2)),
            "turn": int(rng.integers(10)),
            "supply": [s0, T - used - s0],
        }
        if variant != "basic":
            pos["reserve"] = [int(rng.integers(0, P - count[s] + 1)) for s in (0, 1)]
            pos["captured"] = [P - count[s] - pos["reserve"][s] for s in (0, 1)]
        for name in ("lr", "rot", "ud"):
            sym = OctiSym(name, variant)
            outcome = []
            for p in (pos, sym.position(pos)):
                try:
                    octi_v0.raw_env(**params).reset(seed=0, options={"position": p})
                    outcome.append(None)
                except ValueError as exc:
                    outcome.append(str(exc))
            assert (outcome[0] is None) == (outcome[1] is None), (pos, name, outcome)
            if outcome[0] is None:
                e = octi_v0.raw_env(**params)
                e.reset(seed=0, options={"position": pos})
                octi_lockstep(params, sym, i, ("random", "random"), start=e.snapshot())
                checked += 1
    assert checked >= 20


def _octi_turns(text: str) -> list[str]:
    return [
        m.strip()
        for line in text.strip().splitlines()
        for half in line.split(". ", 1)[1].split(" / ")
        for m in half.split(",")
    ]


OCTI_SCENARIOS = {  # spec §9, played with the image moves from the (symmetric) initial position
    "S02": (
        "basic",
        {},
        "1. prong c2 N / prong d6 S\n2. step c2 N / prong c6 SE\n3. prong b2 NE / step d6 S\n"
        "4. prong b2 N / jump c6 SE, spare d5\n5. jump b2 NE, jump d4 N",
        [1, -1],
    ),
    "S07": (
        "basic",
        {"repetition_draw": True},
        "1. prong b2 N / prong e6 S\n2. prong b2 S / prong e6 N\n"
        "3. step b2 N / step e6 S\n4. step b3 S / step e5 N\n5. step b2 N / step e6 S\n6. step b3 S / step e5 N",
        [0, 0],
    ),
    "S12": (
        "x_fast",
        {},
        "1. prong e3 N / prong e7 SE\n2. step e3 N / step e7 SE\n3. enter e3 / prong g7 N\n"
        "4. prong e3 N / prong g7 NE\n5. jump e3 N, capture e4 / prong c7 N\n6. step e5 N / prong c7 NW\n7. step e6 N",
        [1, -1],
    ),
    "S13": (
        "x_classic",
        {},
        "1. enter e3 / prong c7 SE\n2. enter e3 / step c7 SE\n3. prong e3.0 N / prong e7 S\n"
        "4. prong e3.1 N / step e7 S\n5. prong e3.1 NW / prong g7 SW\n6. prong e3.2 N / step g7 SW\n"
        "7. prong e3.2 NE / prong d6 N\n8. step e3.0 N, with e3.0, with e3.1, step e3.0 N, step e3 N / prong d6 NE\n"
        "9. step e4.0 N, with e4.0, with e4.1, step e4.0 N, step e4 N / prong e6 N\n"
        "10. jump e5.0 N, with e5.0, with e5.1, jump e5.0 NW, jump e5 NE, spare e6, spare d6, spare f6",
        [1, -1],
    ),
}


@pytest.mark.parametrize("scenario", sorted(OCTI_SCENARIOS))
@pytest.mark.parametrize("name", ["lr", "rot", "ud"])
def test_octi_spec_scenarios_under_symmetries(scenario, name):
    """OCT-S02 base win (OCT-42), OCT-S07 repetition (OCT-52), OCT-S12 x_fast base win,
    OCT-S13 three-base win (OCT-43) with declarations (OCT-34): the image moves give the image
    game and the same result with the seats swapped where the map swaps them."""
    variant, opts, text, result = OCTI_SCENARIOS[scenario]
    sym = OctiSym(name, variant)
    a, b = octi_v0.raw_env(variant=variant, **opts), octi_v0.raw_env(variant=variant, **opts)
    a.reset(seed=0)
    b.reset(seed=0, options={"position": sym.position(a.snapshot())})
    for m in _octi_turns(text):
        assert {sym.move(x) for x in legal(a)} == set(legal(b)), m
        a.step(a.string_to_action(m))
        b.step(b.string_to_action(sym.move(m)))
    assert a.state.is_terminal() and b.state.is_terminal()
    rb = list(b.state.returns())
    assert list(a.state.returns()) == result == (rb[::-1] if sym.swap else rb)


# --------------------------------------------------------------------------- OTTO Game Over

DESIGNS = {  # spec §1.4 (binding): strokes in orientation r0
    "Z0": ((0, 5, "L"), (1, 4, "L"), (3, 6, "L"), (2, 7, "L")),
    "A4": ((1, 2, "s"), (3, 4, "s"), (5, 6, "s"), (7, 0, "s")),
    "B7": ((5, 6, "Q"), (4, 7, "B"), (1, 2, "s"), (0, 3, "L")),
    "C8": ((0, 3, "B"), (2, 5, "B"), (4, 7, "B"), (6, 1, "B")),
    "D10": ((4, 6, "X"), (3, 5, "X"), (1, 2, "s"), (7, 0, "s")),
    "E12": ((5, 6, "Q"), (4, 7, "B"), (1, 2, "Q"), (0, 3, "B")),
    "F12": ((1, 5, "X"), (2, 6, "X"), (4, 7, "B"), (0, 3, "B")),
    "G16": ((1, 2, "Q"), (3, 4, "Q"), (5, 6, "Q"), (7, 0, "Q")),
}


def strokes(design: str, k: int, port=lambda p: p) -> frozenset:
    """§1.2: orientation r<k> moves port p to (p + 2k) mod 8."""
    return frozenset(
        (frozenset({port((a + 2 * k) % 8), port((b + 2 * k) % 8)}), kind) for a, b, kind in DESIGNS[design]
    )


class SquareSym:
    """One of the 8 maps of a square board: an optional left-right mirror, then ``rot``
    clockwise quarter turns. ``files``: the board's files; points are doubled coordinates about
    the centre so squares and grid vertices map alike."""

    def __init__(self, mirror: bool, rot: int, files: str):
        self.mirror, self.rot, self.files = mirror, rot, files
        self.name = ("m" if mirror else "") + f"r{rot}"

    def __repr__(self) -> str:
        return self.name

    def point(self, X: int, Y: int) -> tuple[int, int]:
        if self.mirror:
            X = -X
        for _ in range(self.rot):
            X, Y = Y, -X
        return X, Y

    def sq(self, s: str) -> str:
        n = len(self.files) - 1
        X, Y = self.point(2 * self.files.index(s[0]) - n, 2 * (int(s[1]) - 1) - n)
        return f"{self.files[(X + n) // 2]}{(Y + n) // 2 + 1}"

    def vertex(self, v: str) -> str:  # OTTO Game Over grid points va1..vf6
        X, Y = self.point(2 * "abcdef".index(v[1]) - 5, 2 * (int(v[2]) - 1) - 5)
        return f"v{'abcdef'[(X + 5) // 2]}{(Y + 5) // 2 + 1}"

    def port(self, p: int) -> int:  # §1.2 ports: the mirror x -> 4 - x swaps N1/N2, E1/W2, ...
        return ((1 - p) % 8 if self.mirror else p) + 2 * self.rot

    def orients(self, design: str, k: int) -> list[int]:
        image = strokes(design, k, lambda p: self.port(p) % 8)
        found = [k2 for k2 in range(4) if strokes(design, k2) == image]
        assert found, (design, k, self.name)  # every design's mirror is the same design turned
        return found


OGO_SYMS = [SquareSym(m, r, "abcde") for m in (False, True) for r in range(4) if m or r]


def ogo_position(snap: dict, g: SquareSym | None, shift: int = 0) -> dict:
    out = dict(snap)
    out.pop("result", None)
    if g is not None:
        out["board"] = {}
        for sq, tile in snap["board"].items():
            design, k = tile.split("/")
            out["board"][g.sq(sq)] = f"{design}/{g.orients(design, int(k))[0]}"
        out["shapes"] = {
            f"{n.split('@')[0]}@{g.vertex(n.split('@')[1])}": o for n, o in snap["shapes"].items()
        }
    if shift:
        n = len(snap["tables"])
        for key in ("tables", "hands", "markers", "totals", "match_scores"):
            out[key] = seat_perm(out[key], shift)
        out["shapes"] = {k: None if v is None else (v + shift) % n for k, v in out["shapes"].items()}
        out["to_move"] = (snap["to_move"] + shift) % n
        out["actor"] = (snap["actor"] + shift) % n
        if snap.get("infinity"):
            inf = dict(snap["infinity"])
            inf["creator"] = (inf["creator"] + shift) % n
            inf["saved"] = seat_perm(inf["saved"], shift)
            out["infinity"] = inf
    return out


def ogo_key(snap: dict) -> dict:
    s = dict(snap)
    s.pop("result", None)
    s["board"] = {
        q: (t.split("/")[0], strokes(t.split("/")[0], int(t.split("/")[1]))) for q, t in snap["board"].items()
    }
    s["shapes"] = dict(sorted(snap["shapes"].items()))
    s["discarded"] = sorted(
        snap["discarded"]
    )  # a set of tiles out of the match; meteorite lists them by seat
    return s


def ogo_moves(m: str, g: SquareSym | None, snap: dict, shift: int = 0, n: int = 2) -> set[str]:
    """Every image of notation ``m`` (equivalent orientations of a symmetric design included)."""
    images = {m}
    w = m.split(" ")
    if g is not None and w[0] in ("drawn", "table"):
        design = snap["drawn"] if w[0] == "drawn" else snap["tables"][snap["to_move"]]
        images = {f"{w[0]} {g.sq(w[1])} r{k}" for k in g.orients(design, int(w[2][1]))}
    elif g is not None and "quantum-leap" in w:
        i = w.index("quantum-leap")
        design = snap["board"][w[i + 1]].split("/")[0]
        head = " ".join(w[: i + 1])
        images = {
            f"{head} {g.sq(w[i + 1])} {g.sq(w[i + 2])} r{k}" for k in g.orients(design, int(w[i + 3][1]))
        }
    if not shift:
        return images
    return {re.sub(r"player_(\d)", lambda mo: f"player_{(int(mo.group(1)) + shift) % n}", x) for x in images}


class VertexOrder(Exception):
    """OGO-20/OGO-22: the vertex order chose between shapes of one kind (not geometric)."""


def ogo_lockstep(params: dict, g: SquareSym | None, seed: int, policy, start=None, shift: int = 0) -> int:
    n = params.get("num_players", 2)
    a, b = otto_game_over_v0.raw_env(**params), otto_game_over_v0.raw_env(**params)
    a.reset(seed=seed)
    start = start or a.snapshot()
    a.reset(seed=seed, options={"position": start})
    b.reset(seed=seed, options={"position": ogo_position(start, g, shift)})
    rng = np.random.default_rng([seed, 7])
    bots = [OGO_BOTS[p](a.game) for p in policy]
    steps = 0
    while True:
        sa, sb = a.snapshot(), b.snapshot()
        ka, kb = ogo_key(ogo_position(sa, g, shift)), ogo_key(sb)
        if ka != kb:
            rest = ("shapes", "markers", "match_scores", "totals")
            if {k: v for k, v in ka.items() if k not in rest} == {
                k: v for k, v in kb.items() if k not in rest
            } and set(ka["shapes"]) == set(kb["shapes"]):
                raise VertexOrder
            raise AssertionError((steps, {k: (ka[k], kb.get(k)) for k in ka if ka[k] != kb.get(k)}))
        if a.state.is_terminal() or b.state.is_terminal():
            assert a.state.is_terminal() and b.state.is_terminal()
            ra, rb = list(a.state.returns()), list(b.state.returns())
            assert np.allclose(seat_perm(ra, shift), rb), (ra, rb)
            if not shift:
                assert sa["result"] == sb["result"]
            return steps
        la, lb = legal(a), legal(b)
        image = set().union(*(ogo_moves(m, g, sa, shift, n) for m in la))
        assert image == set(lb), (steps, sa["phase"], sorted(image ^ set(lb))[:10])
        seat = a.state.current_player()
        act = bots[seat % len(bots)].act(a.state, seat, rng)
        mb = min(ogo_moves(a.action_to_string(act), g, sa, shift, n))
        a.step(act)
        b.step(lb[mb])
        steps += 1


OGO_CONFIGS = [
    dict(),
    dict(num_players=3),
    dict(num_players=4, teams=True),
    dict(secret_cards=False, head_in_the_clouds=True),
    dict(blind=True),
    dict(episode="match", num_players=4),
    dict(eight_lobes="round_or_square"),
    dict(num_players=1),
]


@pytest.mark.parametrize("ci", range(len(OGO_CONFIGS)))
def test_otto_game_over_board_symmetry_games(ci):
    """§1.2 ports and orientations, §1.4 frame, OGO-01/02 placement, OGO-05..OGO-08 tracing and
    shapes, OGO-11/12/14 forced placements, OGO-19/21/22 markers, OGO-24 8-nil, OGO-38..OGO-41
    Quantum Leap, OGO-46 Infinity, OGO-50/51 match end, OGO-52..OGO-56 game end, OGO-60..OGO-62
    solo: all 7 non-trivial maps of the square, one game each."""
    params = dict(OGO_CONFIGS[ci])
    if params.get("num_players") != 1 and params.get("episode") != "match":
        params.update(target_score=8, max_matches=2)
    done = 0
    for gi, g in enumerate(OGO_SYMS):
        seed = 100 * ci + gi
        try:
            ogo_lockstep(params, g, seed, [("random",), ("heuristic",), ("greedy", "random")][seed % 3])
            done += 1
        except VertexOrder:
            pass
    assert done >= 5


def test_otto_game_over_random_boards_under_d4():
    """Random (dense) boards set up through the position hook: tracing through tiles and frame
    (OGO-05/06, §1.4), must-score / must-8 (OGO-11/12) and scoring agree on every image."""
    designs = list(DESIGNS)
    squares = [f"{f}{r}" for f in "abcde" for r in range(1, 6) if f"{f}{r}" != "c3"]
    for i in range(10):
        rng = np.random.default_rng(70_000 + i)
        chosen = rng.choice(len(squares), size=int(rng.integers(12, 24)), replace=False)
        board = {squares[j]: f"{designs[int(rng.integers(8))]}/{int(rng.integers(4))}" for j in chosen}
        params = dict(secret_cards=False, episode="match") if i % 2 else dict(num_players=1)
        pos = {"board": board}
        if i % 2:
            pos["tables"] = [designs[int(rng.integers(8))] for _ in range(2)]
        e = otto_game_over_v0.raw_env(**params)
        e.reset(seed=i, options={"position": pos})
        if e.state.is_terminal():
            continue
        for g in OGO_SYMS[i % 7 :: 3]:
            with contextlib.suppress(VertexOrder):
                ogo_lockstep(params, g, i, ("random",), start=e.snapshot())


def test_otto_game_over_marker_vertex_order_ogo_20():
    """The one non-geometric rule: OGO-20 gives a team's last marker to the shape first in
    vertex order (rank line, then file line), so small@vc2 (rank 2) beats small@vb3 (rank 3,
    file b); OGO-22: the other team claims the unclaimed one at its turn start. A mirror of this
    position legitimately ends with the other vertex marked."""
    env = otto_game_over_v0.raw_env(secret_cards=False)
    board = {sq: "A4/0" for sq in ("b1", "c1", "c2", "a2", "a3", "b3")}
    env.reset(
        seed=0,
        options={
            "position": {
                "board": board,
                "tables": ["G16", "G16"],
                "tower": ["A4"],
                "markers": [{"small": 1}, {"small": 4}],
            }
        },
    )
    env.step(env.string_to_action("drawn b2 r0"))
    assert env.snapshot()["shapes"] == {"small@vc2": 0, "small@vb3": 1}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_otto_game_over_cyclic_seats_one_match(num_players):
    """One match, free-for-all: turn order (OGO-10), Revolution (OGO-36), Meteorite (OGO-37),
    Infinity order (OGO-46) and scoring (OGO-50/51, §5 "match" rewards) are cyclic in the seats."""
    params = dict(num_players=num_players, episode="match")
    for seed in range(3):
        shift = 1 + seed % (num_players - 1)
        g = OGO_SYMS[seed * 2] if seed else None
        with contextlib.suppress(VertexOrder):
            ogo_lockstep(params, g, 500 + 10 * num_players + seed, ("random",), shift=shift)


# ------------------------------------------------------------------------- Otto the Octopus

OTP_SYMS = [SquareSym(m, r, "abcdefgh") for m in (False, True) for r in range(4) if m or r]
HANDED = {"turn-in": "turn-out", "turn-out": "turn-in"}


def otp_kind(g: SquareSym, k: str) -> str:
    return HANDED.get(k, k) if g.mirror else k


def otp_position(snap: dict, g: SquareSym, shift: int = 0) -> dict:
    out = dict(snap)
    out["placements"] = [
        f"{otp_kind(g, p.split(' ')[0])} {g.sq(p.split(' ')[1])}" for p in snap["placements"]
    ]
    out["hands"] = [[otp_kind(g, k) for k in h] for h in snap["hands"]]
    out["pile"] = [otp_kind(g, k) for k in snap["pile"]]
    if shift:
        for key in ("hands", "scores", "skips", "passed"):
            out[key] = seat_perm(out[key], shift)
        if snap["to_move"] >= 0:
            out["to_move"] = (snap["to_move"] + shift) % len(snap["hands"])
    return out


def otp_move(m: str, g: SquareSym, shift: int = 0, n: int = 2) -> str:
    w = m.split(" ")
    if w[0] == "place":
        m = f"place {otp_kind(g, w[1])} {g.sq(w[2])}"
    elif w[0] in ("return", "swap"):
        m = " ".join([w[0], otp_kind(g, w[1]), *w[2:]])
    if not shift:
        return m
    return re.sub(r"player_(\d)", lambda mo: f"player_{(int(mo.group(1)) + shift) % n}", m)


def otp_key(snap: dict) -> dict:
    s = dict(snap)
    s["placements"] = sorted(snap["placements"], key=lambda p: p.split(" ")[1])
    return s


def otp_lockstep(params: dict, g: SquareSym, seed: int, policy, start=None, shift: int = 0) -> int:
    n = params.get("num_players", 2)
    a, b = otto_octopus_v0.raw_env(**params), otto_octopus_v0.raw_env(**params)
    a.reset(seed=seed)
    start = start or a.snapshot()
    a.reset(seed=seed, options={"position": start})
    b.reset(seed=seed, options={"position": otp_position(start, g, shift)})
    rng = np.random.default_rng([seed, 9])
    bots = [OTP_BOTS[p](a.game) for p in policy]
    steps = 0
    while True:
        sa, sb = a.snapshot(), b.snapshot()
        assert otp_key(otp_position(sa, g, shift)) == otp_key(sb), (steps, sa, sb)
        if a.state.is_terminal() or b.state.is_terminal():
            assert a.state.is_terminal() and b.state.is_terminal()
            ra, rb = list(a.state.returns()), list(b.state.returns())
            assert np.allclose(seat_perm(ra, shift), rb), (ra, rb)  # OTP-37/38, §5
            return steps
        la, lb = legal(a), legal(b)
        assert {otp_move(m, g, shift, n) for m in la} == set(lb), (steps, sa["phase"], sorted(la), sorted(lb))
        seat = a.state.current_player()
        act = bots[seat % len(bots)].act(a.state, seat, rng)
        mb = otp_move(a.action_to_string(act), g, shift, n)
        a.step(act)
        b.step(lb[mb])
        steps += 1


OTP_CONFIGS = [
    dict(),
    dict(num_players=1),
    dict(num_players=3),
    dict(num_players=4, open_game=True),
    dict(simplified=True),
    dict(max_steps=30),
]


@pytest.mark.parametrize("ci", range(len(OTP_CONFIGS)))
def test_otto_octopus_board_symmetry_games(ci):
    """§1.1 ocean, §1.2 right-handed arms (a reflection swaps turn-in/turn-out), OTP-01..OTP-08
    placement and arms, OTP-09 anglerfish, OTP-10 moray, OTP-11..OTP-17 scoring (coral, algae,
    shells), OTP-21..OTP-31 fish, OTP-37/38 end, OTP-39/40 solo, OTP-42 simplified, §5 truncation."""
    params = OTP_CONFIGS[ci]
    for gi, g in enumerate(OTP_SYMS):
        for k in range(2):
            seed = 1000 * ci + 10 * gi + k
            assert (
                otp_lockstep(params, g, seed, [("random",), ("heuristic",), ("greedy", "random")][seed % 3])
                > 0
            )


def test_otto_octopus_midgame_phases_and_seats():
    """Positions taken mid-game (phases main, extra, swap, return) and their images under the
    square's maps combined with a cyclic seat shift (OTP-18, OTP-23 next seat, OTP-24 swap
    targets) give the image game."""
    phases = set()
    for i in range(40):
        n = (2, 3, 4)[i % 3]
        params = dict(num_players=n, open_game=bool(i % 2))
        e = otto_octopus_v0.raw_env(**params)
        e.reset(seed=i)
        rng = np.random.default_rng([i, 5])
        bot = OTP_BOTS["random"](e.game)
        for _ in range(int(rng.integers(1, 60))):
            e.step(bot.act(e.state, e.state.current_player(), rng))
            if e.state.is_terminal() or (e.snapshot()["phase"] != "main" and rng.random() < 0.7):
                break
        if e.state.is_terminal():
            continue
        phases.add(e.snapshot()["phase"])
        otp_lockstep(params, OTP_SYMS[i % 7], i, ("random",), start=e.snapshot(), shift=1 + i % (n - 1))
    assert phases >= {"main", "extra", "swap", "return"}


def image_position(kind, g, snap):
    if kind == "octi":
        return g.position(snap)
    return ogo_position(snap, g) if kind == "ogo" else otp_position(snap, g)


def image_move(kind, g, m, snap):
    if kind == "octi":
        return g.move(m)
    return min(ogo_moves(m, g, snap)) if kind == "ogo" else otp_move(m, g)


def test_aec_rewards_agree_under_symmetries():
    """Through ``env()`` too: per-step rewards and episode ends of a game and its image agree
    (OCT-46/§5, OGO §5, OTP §5), seats swapped where the map swaps them."""
    cases = [
        (octi_v0, dict(variant="basic", max_turns=40), OctiSym("lr", "basic"), "octi"),
        (octi_v0, dict(variant="x_fast", max_turns=40), OctiSym("rot", "x_fast"), "octi"),
        (otto_game_over_v0, dict(num_players=3, episode="match"), OGO_SYMS[4], "ogo"),
        (otto_octopus_v0, dict(num_players=3), OTP_SYMS[5], "otp"),
    ]
    for mod, params, g, kind in cases:
        a, b = mod.env(**params), mod.env(**params)
        a.reset(seed=3)
        start = a.unwrapped.snapshot()
        a.reset(seed=3, options={"position": start})
        b.reset(seed=3, options={"position": image_position(kind, g, start)})
        swap = getattr(g, "swap", False)
        other = (lambda ag: f"player_{1 - int(ag[-1])}") if swap else (lambda ag: ag)
        rng = np.random.default_rng(3)
        while a.agents and b.agents:
            ag = a.agent_selection
            if a.terminations[ag] or a.truncations[ag]:
                assert all(b.terminations[x] or b.truncations[x] for x in b.agents)
                break
            assert b.agent_selection == other(ag)
            sa = a.unwrapped.snapshot()
            mask = a.observe(ag)["action_mask"]
            act = int(rng.choice(np.flatnonzero(mask)))
            m = a.unwrapped.action_to_string(act)
            mb = image_move(kind, g, m, sa)
            a.step(act)
            b.step(b.unwrapped.string_to_action(mb))
        for ag in list(a.rewards):
            assert a.rewards[ag] == b.rewards[other(ag)]
            assert (
                a.terminations[ag] == b.terminations[other(ag)]
                and a.truncations[ag] == b.truncations[other(ag)]
            )
