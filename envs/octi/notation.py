"""Binding notation (spec §8): action strings and the ``snapshot()`` inspection hook."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.notation import canonical_text
from envs.octi.actions import (
    ADD,
    CAPTURE,
    ENTER,
    JUMP,
    KIND_NAMES,
    LIBERATE,
    REPOSITION,
    SPARE,
    STEP,
    STOP,
    WITH,
    WITHOUT,
)
from envs.octi.board import DIR_NAMES, SET_BITS
from envs.octi.turn import CAPTURED, PHASE_NAMES, RESERVE

if TYPE_CHECKING:
    from envs.octi.rules import State

_POD = r"[a-z]\d+(?:\.\d+)?"
_DIR = r"(?:n|ne|e|se|s|sw|w|nw)"
_GRAMMAR = re.compile(
    rf"^(?:(?:prong|step|jump) {_POD} {_DIR}|stop|(?:with|without|capture|spare) {_POD}"
    rf"|(?:enter|liberate) [a-z]\d+|reposition {_POD} {_DIR} {_DIR})$"
)
EXPECTED = (
    "'prong|step|jump <pod> <dir>', 'stop', 'with|without|capture|spare <pod>', "
    "'enter|liberate <square>' or 'reposition <pod> <dir> <dir>' (pod = square[.k], dir = N NE E SE S SW W NW)"
)


def pod_name(st: State, g: int) -> str:
    """A pod by its current square, with ``.k`` when the square holds a stack (spec §8)."""
    sq = st.pos[g]
    name = st.geo.names[sq]
    on = st.pods_on(sq)
    return f"{name}.{on.index(g)}" if len(on) > 1 else name


def action_to_string(st: State, action: int) -> str:
    """Canonical string of a legal action; ``"illegal <index>"`` otherwise (a bool, a float or a
    string is no index: ``True`` is not read as 1)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return f"illegal {action!r}"  # not operator.index: it reads a torch bool tensor as 1
    a = int(action)
    if not 0 <= a < st.lay.size or not st._legal_bytes()[a]:
        return f"illegal {a}"
    kind, x, y, z = st.lay.decode[a]
    s = st.to_move
    E = 4 * s
    name = KIND_NAMES[kind]
    if kind in (ADD, STEP, JUMP):
        return f"{name} {pod_name(st, s * st.P + x)} {DIR_NAMES[y ^ E]}"
    if kind == REPOSITION:
        return f"{name} {pod_name(st, s * st.P + x)} {DIR_NAMES[y ^ E]} {DIR_NAMES[z ^ E]}"
    if kind in (ENTER, LIBERATE):
        return f"{name} {st.geo.names[st.geo.ego_bases[s][x]]}"
    if kind in (WITH, WITHOUT):
        return f"{name} {pod_name(st, s * st.P + st.dqueue[0])}"
    if kind in (CAPTURE, SPARE):
        return f"{name} {pod_name(st, st.cqueue[0])}"
    assert kind == STOP
    return name


def legal_strings(st: State) -> dict[str, int]:
    """Canonical string -> index for every legal action."""
    return {action_to_string(st, a): a for a in st.legal_actions()}


def string_to_action(st: State, text: str) -> int:
    """Index of the legal action written ``text`` (case-insensitive, spaces collapsed)."""
    if not isinstance(text, str):
        raise ValueError(f"expected a notation string, got {type(text).__name__}")
    norm = canonical_text(text, EXPECTED)
    table = {k.lower(): a for k, a in legal_strings(st).items()}
    if norm in table:
        return table[norm]
    if not _GRAMMAR.match(norm):
        raise ValueError(f"malformed Octi action {text!r}; expected {EXPECTED}")
    words = norm.split()
    square = words[1].split(".")[0] if len(words) > 1 else None
    if square is not None and square not in st.geo.names:
        raise ValueError(
            f"{text!r}: there is no square {square!r} on the {st.config.variant} board "
            f"(files a-{st.geo.names[-1][0]}, ranks 1-{st.geo.names[-1][1:]})"
        )
    if not table:
        raise ValueError(f"{text!r}: the game is over, no action is legal")
    raise ValueError(
        f"{text!r} is not a legal action for player_{st.to_move} in phase {PHASE_NAMES[st.phase]}; "
        f"legal: {sorted(legal_strings(st))}"
    )


def prong_string(mask: int) -> str:
    """Absolute directions of a prong mask, ``"N,E"`` style (spec §8)."""
    return ",".join(DIR_NAMES[d] for d in SET_BITS[mask])


def snapshot(st: State) -> dict[str, Any]:
    """The spec §8 inspection hook."""
    board: dict[str, list[list[Any]]] = {}
    P = st.P
    for sq in sorted({sq for sq in st.pos if sq >= 0}):
        board[st.geo.names[sq]] = [[g // P, prong_string(st.prongs[g])] for g in st.pods_on(sq)]
    return {
        "to_move": st.to_move,
        "phase": PHASE_NAMES[st.phase],
        "turn": st.turn,
        "supply": list(st.supply),
        "reserve": [st.count(0, RESERVE), st.count(1, RESERVE)],
        "captured": [st.count(0, CAPTURED), st.count(1, CAPTURED)],
        "board": board,
    }
