"""New games, the position schema (``reset(options={"position": ...})``, ``snapshot()``)
and ``State.from_dict``.

Position schema (every key but ``hands`` optional)::

    {
      "placements": ["straight d6", "straight d7", ...],  # play order; arm tiles in arm order
      "hands":  [["straight", "turn-in", "starfish"], [...]],  # per seat, oldest first
      "pile":   ["bubbles", ...],       # top first; default: the rest of the 60-tile mix, shuffled
      "scores": [0, 0],                 # running scores (default 0)
      "skips":  [0, 0],                 # pending skipped turns (jellyfish)
      "passed": [false, false],         # passed since the last placement (OTP-37)
      "to_move": 0,                     # seat to act; -1 = the game is over
      "phase":  "main",                 # main | extra | swap | return
      "extra":  0                       # extra placements left (OTP-33); 0 in main
    }

Placements are replayed through the placement rules (OTP-01..10, C1-C4 of OTP-07), so a
position is always one the engine can continue. After loading, the automatic steps of
spec §3 run (a pending skip of the seat to move, an automatic pass, the end of the game),
which changes nothing for a position taken from ``snapshot()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envs.core.config import make_config
from envs.core.game import TERMINAL, rng_from_dict
from envs.otto_octopus.board import (
    KIND_INDEX,
    KINDS,
    NUM_KINDS,
    NUM_TILES,
    SQUARE_INDEX,
    SQUARES,
    TILE_MIX,
)
from envs.otto_octopus.rules import EXTRA, MAIN, PHASES, RETURN, SWAP, Config, State

POSITION_KEYS = ("placements", "hands", "pile", "scores", "skips", "passed", "to_move", "phase", "extra")


def new_game(config: Config, rng: np.random.Generator) -> State:
    """Spec §2: shuffle the 60 tiles, deal 3 each, mulligans in seat order (OTP-35/36)."""
    st = State(config, rng)
    tiles = [k for k in range(NUM_KINDS) for _ in range(TILE_MIX[k])]
    st.pile = [int(x) for x in rng.permutation(tiles)]
    st.recount_pile()
    for p in range(st.n):
        for _ in range(3):
            st._draw(p)
    for p in range(st.n):
        for _ in range(1000):  # the real mix always ends this loop at once or soon
            if st.ocean.can_place(st.hands[p], config.fish_rules) or len(st.pile) < 3:
                break
            rejected = st.hands[p]
            st.hands[p] = [st.pile.pop() for _ in range(3)]
            st.pile.extend(rejected)
            st.pile = [int(x) for x in rng.permutation(st.pile)]
            st.recount_pile()
    st._next_turn(0)
    return st


def dump_position(st: State) -> dict[str, Any]:
    """The full position in the schema above (hidden hands and pile order included)."""
    return {
        "placements": [f"{KINDS[k]} {SQUARES[sq]}" for k, sq in st.ocean.placements],
        "hands": [[KINDS[k] for k in h] for h in st.hands],
        "pile": [KINDS[k] for k in reversed(st.pile)],
        "scores": st.scores[:],
        "skips": st.skips[:],
        "passed": st.passed[:],
        "to_move": st.current_player(),
        "phase": PHASES[st.phase],
        "extra": st.extra,
    }


# ------------------------------------------------------------------ validation
def _kind(x: object, where: str) -> int:
    if not isinstance(x, str) or x.strip().lower() not in KIND_INDEX:
        raise ValueError(f"{where}: unknown tile kind {x!r}; expected one of {list(KINDS)}")
    return KIND_INDEX[x.strip().lower()]


def _kinds(x: object, where: str) -> list[int]:
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"{where} must be a list of tile kinds, got {x!r}")
    return [_kind(k, f"{where}[{i}]") for i, k in enumerate(x)]


def _ints(x: object, n: int, where: str, lo: int | None = None, hi: int | None = None) -> list[int]:
    if not isinstance(x, (list, tuple)) or len(x) != n:
        raise ValueError(f"{where} must be a list of {n} ints, got {x!r}")
    for v in x:
        bad = not isinstance(v, int) or isinstance(v, bool)
        if bad or (lo is not None and v < lo) or (hi is not None and v > hi):
            bounds = f" in [{lo}, {hi}]" if hi is not None else "" if lo is None else f" >= {lo}"
            raise ValueError(f"{where} must hold ints{bounds}, got {v!r}")
    return [int(v) for v in x]


def _placement(x: object, where: str) -> tuple[int, int]:
    parts = x.split() if isinstance(x, str) else list(x) if isinstance(x, (list, tuple)) else []
    if len(parts) == 3 and isinstance(parts[0], str) and parts[0].lower() == "place":
        parts = parts[1:]  # the action notation 'place <kind> <square>' is accepted too
    if len(parts) != 2 or not isinstance(parts[1], str) or parts[1].strip().lower() not in SQUARE_INDEX:
        raise ValueError(
            f"{where} must be '<kind> <square>' like 'straight d6' (or 'place straight d6'), got {x!r}"
        )
    return _kind(parts[0], where), SQUARE_INDEX[parts[1].strip().lower()]


def _replay(st: State, placements: object) -> None:
    if not isinstance(placements, (list, tuple)):
        raise ValueError(f"position['placements'] must be a list, got {placements!r}")
    fish_rules = st.config.fish_rules
    for i, x in enumerate(placements):
        kind, sq = _placement(x, f"position['placements'][{i}]")
        why = st.ocean.explain(kind, sq, fish_rules)
        if why is not None:
            raise ValueError(f"position['placements'][{i}] {x!r} is not a legal placement: {why}")
        st.ocean.place(kind, sq, fish_rules)


def _default_pile(st: State, rng: np.random.Generator) -> list[int]:
    left = list(TILE_MIX)
    for k, _ in st.ocean.placements:
        left[k] -= 1
    for h in st.hands:
        for k in h:
            left[k] -= 1
    tiles = [k for k in range(NUM_KINDS) for _ in range(max(0, left[k]))]
    return [int(x) for x in rng.permutation(tiles)] if tiles else []


def load_position(config: Config, pos: object, rng: np.random.Generator) -> State:
    """A state from the position schema; ``ValueError`` naming the problem."""
    if not isinstance(pos, Mapping):
        raise ValueError(f"position must be a dict, got {type(pos).__name__}")
    unknown = sorted(set(pos) - set(POSITION_KEYS), key=repr)  # keys of any type, mixed too
    if unknown:
        raise ValueError(f"unknown position key(s) {unknown}; allowed: {list(POSITION_KEYS)}")
    if "hands" not in pos:
        raise ValueError("position['hands'] is required (one list of tile kinds per seat)")
    st = State(config, rng)
    n = st.n
    _replay(st, pos.get("placements", []))
    hands = pos["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"position['hands'] must be a list of {n} hands, got {hands!r}")
    st.hands = [_kinds(h, f"position['hands'][{p}]") for p, h in enumerate(hands)]
    for p, h in enumerate(st.hands):
        if len(h) > 3:
            raise ValueError(f"position['hands'][{p}] holds {len(h)} tiles; a hand holds at most 3 (OTP-48)")
    if "pile" in pos:
        st.pile = _kinds(pos["pile"], "position['pile']")[::-1]
    else:
        st.pile = _default_pile(st, rng)
    st.recount_pile()
    st.scores = _ints(pos.get("scores", [0] * n), n, "position['scores']")
    # each pending skip comes from a jellyfish (OTP-23): never more than the game's tiles
    st.skips = _ints(pos.get("skips", [0] * n), n, "position['skips']", lo=0, hi=NUM_TILES)
    if any(st.skips) and (config.simplified or n == 1):  # OTP-39/42: the jellyfish has no effect
        raise ValueError(
            "position['skips'] must be all 0 in the simplified game and in solo, where the "
            "jellyfish skips no one (OTP-39, OTP-42)"
        )
    passed = pos.get("passed", [False] * n)
    if (
        not isinstance(passed, (list, tuple))
        or len(passed) != n
        or not all(isinstance(b, bool) for b in passed)
    ):
        raise ValueError(f"position['passed'] must be a list of {n} bools, got {passed!r}")
    st.passed = list(passed)
    _load_flow(st, pos)
    return st


def _load_flow(st: State, pos: Mapping[str, Any]) -> None:
    n = st.n
    to_move = pos.get("to_move", 0)
    if isinstance(to_move, str) and to_move.strip().lower() in [f"player_{p}" for p in range(n)]:
        to_move = int(to_move.strip()[7:])  # an agent name
    if not isinstance(to_move, int) or isinstance(to_move, bool) or not -1 <= to_move < n:
        raise ValueError(
            f"position['to_move'] must be a seat in [0, {n - 1}] (or 'player_<seat>') or -1 (over), got {to_move!r}"
        )
    phase = pos.get("phase", "main")
    if phase not in PHASES:
        raise ValueError(f"position['phase'] must be one of {list(PHASES)}, got {phase!r}")
    extra = pos.get("extra", 0)
    if not isinstance(extra, int) or isinstance(extra, bool) or not 0 <= extra <= 60:
        raise ValueError(f"position['extra'] must be an int in [0, 60], got {extra!r}")
    st.phase, st.extra = PHASES.index(phase), extra
    if to_move == TERMINAL:
        if st.phase != MAIN or extra:
            raise ValueError("a finished position (to_move -1) has phase 'main' and extra 0")
        st._finish()
        return
    st.to_move = to_move
    if st.phase != MAIN:
        _check_mid_turn(st, phase)
    hand = st.hands[to_move]
    if st.phase == MAIN and extra:
        raise ValueError("position['extra'] must be 0 in phase 'main' (extra placements follow a fish)")
    if st.phase == EXTRA and not extra:
        raise ValueError("phase 'extra' needs position['extra'] >= 1")
    if st.phase == SWAP and not (hand and any(st.hands[q] for q in range(n) if q != to_move)):
        raise ValueError("phase 'swap' needs a tile in the mover's hand and in an opponent's (OTP-24)")
    if st.phase == RETURN and not hand:
        raise ValueError("phase 'return' needs a tile in the mover's hand (OTP-26)")
    if st.phase == RETURN and not st.pile:
        raise ValueError(
            "phase 'return' needs a tile in the pile (OTP-26: with the pile empty the return is skipped)"
        )
    _settle(st)


def _check_mid_turn(st: State, phase: str) -> None:
    """A phase after a placement (``extra``, ``swap``, ``return``) is one this game's rules reach."""
    if st.config.simplified:
        raise ValueError(
            f"position['phase'] {phase!r} cannot occur in the simplified game, which ignores the "
            "fish effects that lead there (OTP-42); use 'main'"
        )
    if st.n == 1 and st.phase != RETURN:
        raise ValueError(
            f"position['phase'] {phase!r} cannot occur in solo, which ignores the clownfish, "
            "butterflyfish and pufferfish (OTP-39); use 'main' or 'return'"
        )
    if any(st.passed):
        raise ValueError(
            f"position['passed'] must be all false in phase {phase!r}: the mover has just placed "
            "a tile, and a placement clears the passes (OTP-37)"
        )
    if st.skips[st.to_move]:  # served before the seat's turn began (OTP-23)
        raise ValueError(
            f"position['skips'] of the seat to move must be 0 in phase {phase!r}: a pending skip "
            "is served before the seat's turn begins (OTP-23)"
        )


def _settle(st: State) -> None:
    """The automatic steps of spec §3 for a freshly loaded position."""
    if all(st.passed):
        st._finish()
    elif st.phase == MAIN:
        st._next_turn(st.to_move)
    elif st.phase == EXTRA:
        st._continue_turn()


def state_from_dict(d: Mapping[str, Any]) -> State:
    """Inverse of ``State.to_dict``; ``ValueError`` for anything malformed."""
    if not isinstance(d, Mapping):
        raise ValueError(f"state dict must be a dict, got {type(d).__name__}")
    missing = [k for k in ("config", "position", "steps", "truncated", "rng") if k not in d]
    if missing:
        raise ValueError(f"state dict lacks key(s) {missing}")
    if not isinstance(d["config"], Mapping):
        raise ValueError(f"state dict 'config' must be a dict, got {d['config']!r}")
    try:
        config = make_config(Config, d["config"])
    except TypeError as exc:
        raise ValueError(f"malformed config: {exc}") from exc
    if not isinstance(d["rng"], Mapping):
        raise ValueError("state dict 'rng' must be a dict")
    try:
        rng = rng_from_dict(d["rng"])
    except (OverflowError, TypeError, KeyError) as exc:  # numpy's own errors for odd values
        raise ValueError(f"malformed rng state: {exc}") from exc
    steps, truncated = d["steps"], d["truncated"]
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"state dict 'steps' must be an int >= 0, got {steps!r}")
    if not isinstance(truncated, bool):
        raise ValueError(f"state dict 'truncated' must be a bool, got {truncated!r}")
    try:
        st = load_position(config, d["position"], rng)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"malformed position: {exc!r}") from exc
    if truncated and not st.over:
        raise ValueError("a truncated state must be over (position['to_move'] == -1)")
    if not st.over and steps >= config.max_steps:  # a running game is truncated at max_steps
        raise ValueError(
            f"state dict 'steps' = {steps} reaches max_steps = {config.max_steps} in a game still running"
        )
    st.steps, st.truncated = steps, truncated
    return st
