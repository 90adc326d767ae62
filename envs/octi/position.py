"""The reset option ``position``: an Octi position at the start of a turn, in the schema of
``snapshot()`` (spec §8), so a snapshot taken in phase MAIN can be fed back.

Keys (only ``board`` is required), here an Octi-X position (``variant="x_fast"`` or
``"x_classic"``: e2 holds a stack of two pods) with every key at the value its default gives::

    {"board": {"c3": [[0, "N,NE"]], "d6": [[1, "S"]], "e2": [[0, ""], [0, "N"]]},
     "to_move": 0,            # 0, 1 or "player_0" / "player_1" (default 0)
     "turn": 0,               # completed turns (default 0)
     "supply": [22, 24],      # default: each side's start supply minus the prongs on its pods
     "reserve": [4, 6],       # X only; default: the pods neither on the board nor captured
     "captured": [0, 0],      # default: basic: the pods not on the board; X: 0
     "phase": "MAIN"}         # the only phase a position can start in (default)

``board`` maps a square to its pods, each ``[seat, prongs]`` with prongs as ``snapshot()``
writes them (absolute directions joined by ``","``; ``""`` for none; any case, any order).
Pod ids (which name the pods in the action index, in the observation's pod-id planes and, as
``.k``, in a stack) go to each side's board pods in that side's own reading order of the
squares (its left to right, rank by rank from its own edge: player_0 a1, b1, ...; player_1,
the board turned around, f7, e7, ... on the basic board), the pods of one square in the
order listed, then to its reserve pods, then to its captured ones. This is how the setup
numbers them (OCT-03), so the initial snapshot loads to the initial state exactly; a later
snapshot loads to the same position and legal moves, with pods numbered afresh by that rule
(the game's own ids follow where each pod started, which ``snapshot()`` does not hold). The
``state`` option restores a state with its ids.

Everything ``State.from_dict`` checks holds here too (a square of one colour, OCT-09; basic
has no stacks and no reserve; prongs conserved, ``supply`` included; the side to move has a
legal action). A finished game cannot be set up: a pod on an enemy base (basic, x_fast: it
won on landing, OCT-42), a side on all three enemy bases (x_classic, OCT-43) or ``turn`` at
the turn limit each raise ``ValueError``, as every other problem does, naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.octi.board import DIR_INDEX
from envs.octi.turn import CAPTURED, MAIN, PHASE_NAMES, RESERVE, position_key

if TYPE_CHECKING:
    from envs.octi.board import Geometry
    from envs.octi.rules import Config, State

POSITION_KEYS = ("board", "to_move", "turn", "supply", "reserve", "captured", "phase")


def _prongs(value: Any, where: str) -> int:
    if not isinstance(value, str):
        raise ValueError(
            f"position board {where}: prongs must be a string like 'N,NE' ('' for none), got {value!r}"
        )
    mask = 0
    for word in (w.strip().upper() for w in value.split(",")) if value.strip() else ():
        if word not in DIR_INDEX:
            raise ValueError(f"position board {where}: {word!r} is not a direction of N NE E SE S SW W NW")
        bit = 1 << DIR_INDEX[word]
        if mask & bit:
            raise ValueError(
                f"position board {where}: direction {word} is given twice (one prong per socket, OCT-08)"
            )
        mask |= bit
    return mask


def _pair(value: Any, key: str) -> list[int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in value)
    ):
        raise ValueError(f"position {key} must be a pair of ints [player_0, player_1], got {value!r}")
    return [int(v) for v in value]


def _is_seat(value: Any) -> bool:
    """0 or 1 as an int (numpy ints too; no bool, no float)."""
    return (
        isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value in (0, 1)
    )


def _seat(value: Any) -> int:
    if _is_seat(value):
        return int(value)
    if value in ("player_0", "player_1"):
        return int(value[-1])
    raise ValueError(f"position to_move must be 0, 1, 'player_0' or 'player_1', got {value!r}")


Pods = list[list[tuple[int, int]]]  # per seat: (square, prongs) in id order


def _board(geo: Geometry, P: int, board: Any) -> Pods:
    """``board``'s pods per seat, in id order (each side's own reading order of the squares,
    player_1's turned around; a stack's pods as listed)."""
    if not isinstance(board, Mapping):
        raise ValueError(
            f"position board must map squares to lists of [seat, prongs], got {type(board).__name__}"
        )
    pods: Pods = [[], []]
    for name, stack in board.items():
        sq = geo.square(str(name).strip().lower()) if isinstance(name, str) else -1
        if sq < 0:
            raise ValueError(f"position board: {name!r} is not a square name")
        if not isinstance(stack, (list, tuple)) or not stack:
            raise ValueError(
                f"position board {name}: expected a non-empty list of [seat, prongs], got {stack!r}"
            )
        for pod in stack:
            if not isinstance(pod, (list, tuple)) or len(pod) != 2:
                raise ValueError(f"position board {name}: a pod is [seat, prongs], got {pod!r}")
            seat = pod[0]
            if not _is_seat(seat):
                raise ValueError(f"position board {name}: a pod's seat must be 0 or 1, got {seat!r}")
            pods[int(seat)].append((sq, _prongs(pod[1], name)))
    for s in (0, 1):
        order = geo.rot if s else range(geo.size)
        pods[s].sort(key=lambda pod: order[pod[0]])  # stable: a stack keeps its listed order
        if len(pods[s]) > P:
            raise ValueError(f"position board holds {len(pods[s])} pods of player_{s}; a side has {P}")
    return pods


def _pools(config: Config, P: int, position: Mapping[str, Any], pods: Pods) -> tuple[list[int], list[int]]:
    """``(reserve, captured)`` per seat, given or by default (basic: off-board pods are captured;
    X: captured 0, the rest in reserve); each side's pods must add up to ``P``."""
    off = [P - len(pods[0]), P - len(pods[1])]
    if config.is_x:
        captured = _pair(position["captured"], "captured") if "captured" in position else [0, 0]
        reserve = (
            _pair(position["reserve"], "reserve")
            if "reserve" in position
            else [o - c for o, c in zip(off, captured, strict=True)]
        )
    else:
        if "reserve" in position and _pair(position["reserve"], "reserve") != [0, 0]:
            raise ValueError("position reserve must be [0, 0] in basic: it has no reserve")
        reserve = [0, 0]
        captured = _pair(position["captured"], "captured") if "captured" in position else off
    for name, pool in (("reserve", reserve), ("captured", captured)):
        if min(pool) < 0:
            why = "" if name in position else ", by default the pods neither on the board nor captured"
            raise ValueError(f"position {name} must hold counts >= 0, got {pool}{why}")
    for s in (0, 1):
        if len(pods[s]) + reserve[s] + captured[s] != P:
            raise ValueError(
                f"position: player_{s} has {P} pods: {len(pods[s])} on the board + reserve {reserve[s]} + "
                f"captured {captured[s]} must make {P}"
            )
    return reserve, captured


def _check_not_won(config: Config, geo: Geometry, pods: Pods) -> None:
    """A base win ends the game: no such position can start a turn (OCT-42, OCT-43)."""
    for s in (0, 1):
        on = {sq for sq, _ in pods[s]}
        enemy = geo.enemy_base_set[s]
        if config.variant != "x_classic" and on & enemy:
            first = geo.names[min(on & enemy)]
            raise ValueError(
                f"position: player_{s} has a pod on the enemy base {first}; the game ended when it landed (OCT-42)"
            )
        if config.variant == "x_classic" and enemy <= on:
            raise ValueError(f"position: player_{s} holds all three enemy bases; the game is over (OCT-43)")


def load(config: Config, rng: np.random.Generator, position: Any) -> State:
    """The state of ``position`` (see the module docstring); ``ValueError`` naming the problem."""
    from envs.octi.rules import State

    if not isinstance(position, Mapping):
        raise ValueError(
            f"option 'position' must be a dict in the schema of snapshot(), got {type(position).__name__}"
        )
    unknown = sorted(str(k) for k in position if k not in POSITION_KEYS)
    if unknown:
        raise ValueError(f"position has unknown key(s) {unknown}; allowed: {list(POSITION_KEYS)}")
    if "board" not in position:
        raise ValueError("position needs 'board' (square -> [[seat, prongs], ...])")
    phase = position.get("phase", "MAIN")
    if not isinstance(phase, str) or phase.upper() != PHASE_NAMES[MAIN]:
        raise ValueError(
            f"position phase must be 'MAIN' (a position starts a turn; the 'state' option restores a "
            f"state in the middle of one), got {phase!r}"
        )
    base = State(config, rng)
    geo, P = base.geo, base.P
    pods = _board(geo, P, position["board"])
    reserve, captured = _pools(config, P, position, pods)
    if "supply" in position:
        supply = _pair(position["supply"], "supply")
    else:
        supply = [config.start_supply - sum(bin(m).count("1") for _, m in pods[s]) for s in (0, 1)]
    to_move = _seat(position.get("to_move", 0))
    turn = position.get("turn", 0)
    if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) or not 0 <= turn < config.turn_limit:
        raise ValueError(
            f"position turn must be an int in [0, {config.turn_limit - 1}] (at {config.turn_limit} the game "
            f"is over by the turn limit, OCT-45), got {turn!r}"
        )
    _check_not_won(config, geo, pods)
    pos: list[int] = []
    prongs: list[int] = []
    for s in (0, 1):
        pos += [sq for sq, _ in pods[s]] + [RESERVE] * reserve[s] + [CAPTURED] * captured[s]
        prongs += [m for _, m in pods[s]] + [0] * (P - len(pods[s]))
    d = base.to_dict()
    d.update(to_move=to_move, turn=int(turn), pos=pos, prongs=prongs, supply=supply, history={})
    try:
        state = State.from_dict(d)
    except ValueError as exc:
        if "legal action" in str(exc):
            raise ValueError(
                f"position: player_{to_move} to move has no legal action; the game is over (OCT-44)"
            ) from None
        raise ValueError(f"position: {exc}") from None
    if config.repetition_draw:  # the position has occurred once (OCT-52)
        state.history = {position_key(state, to_move): 1}
    return state
