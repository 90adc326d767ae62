"""``State.to_dict`` / ``State.from_dict``: JSON form with strict validation."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from envs.core.config import make_config
from envs.core.game import rng_from_dict, rng_to_dict
from envs.octi.turn import (
    CAPTURE,
    CAPTURED,
    CHAIN,
    DECLARE,
    MAIN,
    MOVER,
    OVER,
    PHASE_NAMES,
    POPCOUNT,
    RESERVE,
    first_hops,
    further_jumps,
    legal_actions,
)

if TYPE_CHECKING:
    from envs.octi.rules import State

_TURN_KEYS = (
    "origin",
    "movers",
    "finished",
    "pending",
    "declare_queue",
    "active",
    "last_jump",
    "jumped",
    "jumped_order",
    "capture_queue",
    "capture_marks",
)


def state_to_dict(st: State) -> dict[str, Any]:
    P = st.P
    return {
        "config": dataclasses.asdict(st.config),
        "to_move": st.to_move,
        "turn": st.turn,
        "phase": PHASE_NAMES[st.phase],
        "pos": list(st.pos),
        "prongs": list(st.prongs),
        "supply": list(st.supply),
        "result": list(st.result),
        "truncated": st.truncated,
        "history": dict(st.history),
        "origin": st.origin,
        "movers": list(st.movers),
        "finished": list(st.finished),
        "pending": list(st.pending),
        "declare_queue": list(st.dqueue),
        "active": st.active,
        "last_jump": st.last_jump,
        "jumped": [[sq for sq in range(st.geo.size) if st.jumped[p] >> sq & 1] for p in range(P)],
        "jumped_order": list(st.jorder),
        "capture_queue": list(st.cqueue),
        "capture_marks": list(st.cmarks),
        "rng": rng_to_dict(st.peek_rng()),
    }


def _int(v: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"{name} must be an int in [{lo}, {hi}], got {v!r}")
    return v


def _ints(v: Any, name: str, lo: int, hi: int, n: int | None = None, distinct: bool = False) -> list[int]:
    if not isinstance(v, list):
        raise ValueError(f"{name} must be a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise ValueError(f"{name} must have {n} entries, got {len(v)}")
    out = [_int(x, f"{name}[{i}]", lo, hi) for i, x in enumerate(v)]
    if distinct and len(set(out)) != len(out):
        raise ValueError(f"{name} has repeated entries: {out}")
    return out


def _bool(v: Any, name: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{name} must be a bool, got {v!r}")
    return v


def state_from_dict(d: Mapping[str, Any]) -> State:
    try:
        return _from_dict(d)
    except (KeyError, TypeError, IndexError, AttributeError, OverflowError) as exc:
        raise ValueError(f"malformed Octi state dict: {type(exc).__name__}: {exc}") from exc


def _from_dict(d: Mapping[str, Any]) -> State:
    from envs.octi.rules import Config, State

    if not isinstance(d, Mapping):
        raise ValueError(f"state must be a dict, got {type(d).__name__}")
    missing = {
        "config",
        "to_move",
        "turn",
        "phase",
        "pos",
        "prongs",
        "supply",
        "result",
        "truncated",
        "history",
        "rng",
        *_TURN_KEYS,
    } - set(d)
    if missing:
        raise ValueError(f"state dict misses keys {sorted(missing)}")
    if not isinstance(d["config"], Mapping):
        raise ValueError("config must be a dict")
    cfg = make_config(Config, dict(d["config"]))
    st = State.__new__(State)
    st._setup_static(cfg)
    size, P = st.geo.size, st.P
    st.to_move = _int(d["to_move"], "to_move", 0, 1)
    st.turn = _int(d["turn"], "turn", 0, cfg.turn_limit)
    if d["phase"] not in PHASE_NAMES:
        raise ValueError(f"phase must be one of {PHASE_NAMES}, got {d['phase']!r}")
    st.phase = PHASE_NAMES.index(d["phase"])
    st.pos = _ints(d["pos"], "pos", CAPTURED, size - 1, 2 * P)
    st.prongs = _ints(d["prongs"], "prongs", 0, 255, 2 * P)
    st.supply = _ints(d["supply"], "supply", 0, 2 * cfg.start_supply, 2)
    _check_pieces(st)
    res = d["result"]
    if res not in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0]) or (res != [0.0, 0.0] and st.phase != OVER):
        raise ValueError(f"result must be [0, 0], [1, -1] or [-1, 1] (non-zero only when over), got {res!r}")
    st.result = [float(res[0]), float(res[1])]
    st.truncated = _bool(d["truncated"], "truncated")
    if st.truncated and (st.phase != OVER or res != [0.0, 0.0]):
        raise ValueError(
            "truncated is True only for a game over by the turn limit (phase OVER, result [0, 0])"
        )
    hist = d["history"]
    if not isinstance(hist, Mapping) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 3
        for k, v in hist.items()
    ):
        raise ValueError("history must map position strings to counts 1..3")
    if hist and not cfg.repetition_draw:
        raise ValueError("history is kept only with repetition_draw=True; it must be {} here")
    st.history = dict(hist)
    if not isinstance(d["rng"], Mapping):
        raise ValueError("rng must be a dict")
    st.rng = rng_from_dict(d["rng"])
    _read_turn(st, d)
    st.rebuild_board()
    _check_phase(st)
    return st


def _check_pieces(st: State) -> None:
    P, cfg = st.P, st.config
    on_board = 0
    owner: dict[int, int] = {}
    for g, sq in enumerate(st.pos):
        if sq < 0:
            if st.prongs[g]:
                raise ValueError(f"pod {g} is off the board but has prongs")
            if sq == RESERVE and not st.x:
                raise ValueError("basic has no reserve")
            continue
        on_board += POPCOUNT[st.prongs[g]]
        if owner.setdefault(sq, g // P) != g // P:
            raise ValueError(f"square {st.geo.names[sq]} holds pods of both colours (OCT-09)")
        if not st.x and list(st.pos).count(sq) > 1:
            raise ValueError(f"basic has no stacks ({st.geo.names[sq]})")
    if on_board + sum(st.supply) != 2 * cfg.start_supply:
        raise ValueError(
            f"prongs are not conserved: {on_board} on pods + supplies {st.supply} != {2 * cfg.start_supply}"
        )


def _read_turn(st: State, d: Mapping[str, Any]) -> None:
    P, size = st.P, st.geo.size
    st.origin = _int(d["origin"], "origin", -1, size - 1)
    st.movers = _ints(d["movers"], "movers", 0, P - 1, distinct=True)
    st.finished = _ints(d["finished"], "finished", 0, P - 1, distinct=True)
    st.pending = _ints(d["pending"], "pending", 0, P - 1, distinct=True)
    st.dqueue = _ints(d["declare_queue"], "declare_queue", 0, P - 1, distinct=True)
    st.active = _int(d["active"], "active", -1, P - 1)
    st.last_jump = _bool(d["last_jump"], "last_jump")
    jumped = d["jumped"]
    if not isinstance(jumped, list) or len(jumped) != P:
        raise ValueError(f"jumped must be a list of {P} square lists")
    st.jumped = [sum(1 << sq for sq in _ints(j, "jumped", 0, size - 1, distinct=True)) for j in jumped]
    st.jorder = _ints(d["jumped_order"], "jumped_order", 0, size - 1, distinct=True)
    st.cqueue = _ints(d["capture_queue"], "capture_queue", 0, 2 * P - 1, distinct=True)
    st.cmarks = _ints(d["capture_marks"], "capture_marks", 0, 2 * P - 1, distinct=True)
    s = st.to_move
    for p in st.movers + st.dqueue:
        if st.pos[s * P + p] < 0:
            raise ValueError(f"mover/declared pod {p} is not on the board")
    for g in st.cqueue + st.cmarks:
        if st.pos[g] < 0 or st.pos[g] not in st.jorder:
            raise ValueError(f"capture candidate {g} is not on a jumped square")
    if not set(st.pending) <= set(st.movers) or not set(st.finished) <= set(st.movers):
        raise ValueError("pending and finished pods must be movers")
    if set(st.dqueue) & set(st.movers):
        raise ValueError("a declared pod cannot already be a mover")
    if set(st.cqueue) & set(st.cmarks):  # OCT-29: a jumped pod is decided once
        raise ValueError("a pod is either in capture_queue or decided in capture_marks, not both (OCT-29)")
    if set(st.jorder) != {sq for sq in range(size) if any(j >> sq & 1 for j in st.jumped)}:
        raise ValueError("jumped_order must list each square of jumped once")


def _check_phase(st: State) -> None:
    ph = st.phase
    in_turn = bool(st.movers or st.dqueue or st.jorder or st.cqueue or st.cmarks or st.origin >= 0)
    cfg = st.config
    if ph == OVER:
        # a base win (OCT-42) ends the game mid-turn: the turn state stays as it was
        if st.result == [0.0, 0.0] and in_turn:
            raise ValueError("only a base win ends the game in the middle of a turn")
        if st.result != [0.0, 0.0] and st.result[st.to_move] != 1.0:  # OCT-42..45
            raise ValueError("only the player who made the last move wins: result must give to_move +1")
        if st.truncated and st.turn < cfg.turn_limit:  # OCT-45
            raise ValueError(f"a truncated game is at the turn limit {cfg.turn_limit}, got turn {st.turn}")
        if st.result == [0.0, 0.0] and not st.truncated and 3 not in st.history.values():
            raise ValueError(
                "a drawn game ended at the turn limit (truncated, OCT-45) or on a third repetition "
                "(a history count of 3, OCT-52)"
            )
        return
    if 3 in st.history.values():  # OCT-52: the third occurrence ends the game
        raise ValueError(
            "a running game holds no history count of 3 (OCT-52: the third occurrence is a draw)"
        )
    if st.turn >= st.config.turn_limit:  # OCT-45: the game ended as a draw at the limit
        raise ValueError(
            f"turn {st.turn} of a running game must be below the turn limit {st.config.turn_limit} "
            "(OCT-45: at the limit the game is over, a draw)"
        )
    if ph == MAIN:
        if in_turn or st.pending or st.finished or st.active != -1 or st.last_jump or any(st.jumped):
            raise ValueError(f"phase {PHASE_NAMES[ph]} cannot carry turn state")
        if not legal_actions(st):
            raise ValueError("a running game needs a legal action for the player to move")
        return
    if not st.movers or st.origin < 0:
        raise ValueError(f"phase {PHASE_NAMES[ph]} needs a first mover and an origin")
    jumper = st.jumped[st.active] if st.active >= 0 else any(st.jumped)
    if st.last_jump and not jumper:  # OCT-16: a step ends the pod's movement
        raise ValueError("last_jump needs a pod that has jumped this turn (the active one, if any; OCT-16)")
    if any(st.pos[st.to_move * st.P + q] != st.origin for q in st.dqueue):
        raise ValueError("declare queue pods must stand on the origin")
    ok = {
        DECLARE: bool(st.dqueue),
        CHAIN: st.active in st.movers
        and st.last_jump
        and not st.dqueue
        and bool(further_jumps(st, st.active)),
        MOVER: bool(st.pending)
        and st.active == st.pending[0]
        and not st.last_jump
        and bool(first_hops(st, st.active)),
        CAPTURE: bool(st.cqueue) and not st.pending and set(st.finished) == set(st.movers),
    }[ph]
    if not ok:
        raise ValueError(f"inconsistent turn state for phase {PHASE_NAMES[ph]}")
