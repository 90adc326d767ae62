"""Helpers of the OTTO Game Over scenario tests: positions from ASCII boards."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import CENTRE, SQUARE_NAMES, SQUARE_OF_NAME, VERTEX_NAMES, VERTEX_OF_NAME
from envs.otto_game_over.rules import State

P_EIGHT = """
     a      b      c      d      e
5  A4/0   B7/0   E12/0  .      .
4  .      .      Z0/0   .      .
3  .      .      C8/0   G16/0  Z0/0
2  .      .      Z0/0   .      F12/0
1  .      A4/0   Z0/0   .      A4/0
"""


def board(text: str) -> dict[str, str]:
    """``{"a5": "A4/0", ...}`` from a spec §9 style ASCII board."""
    out: dict[str, str] = {}
    for line in text.strip().splitlines()[1:]:
        rank, *cells = line.split()
        for file, cell in zip("abcde", cells, strict=True):
            if cell != ".":
                out[f"{file}{rank}"] = cell
    return out


def p_eight(**extra: Any) -> dict[str, Any]:
    """The P-EIGHT position of spec §9 (plus ``extra`` keys)."""
    pos: dict[str, Any] = {
        "board": board(P_EIGHT),
        "shapes": {"small@vf1": 0, "small@va6": 1},
        "tables": ["D10", "G16"],
    }
    pos.update(extra)
    return pos


def make(position: dict[str, Any], seed: int = 0, **params: Any) -> State:
    game = OttoGameOverGame(**params)
    return game.new_initial_state(np.random.default_rng(seed), {"position": position})


def legal(state: State) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def play(state: State, *moves: str) -> State:
    for m in moves:
        state.apply(state.string_to_action(m))
    return state


def points(state: State) -> list[int]:
    return [state.marker_points(t) for t in range(state.n_teams)]


def shapes(state: State) -> dict[str, int | None]:
    """The closed shapes as in the position schema: ``{"big@ve4": 0, ...}``."""
    return dict(state.snapshot()["shapes"])


def _turn(s: int) -> int:
    """Clockwise quarter turn of square ``s``: (file, rank) -> (rank, 4 - file)."""
    return (4 - s % 5) * 5 + s // 5


def _turn_v(v: int) -> int:
    """Clockwise quarter turn of vertex ``v``: (x, y) -> (y, 5 - x)."""
    return (5 - v % 6) * 6 + v // 6


def turned(st: State, quarters: int) -> State:
    """``st`` with the board turned clockwise ``quarters`` times (cards, tiles in hand and
    the RNG unchanged)."""
    d = copy.deepcopy(st.to_dict())
    pos = d["position"]
    for _ in range(quarters):
        board = {}
        for name, text in pos["board"].items():
            s = SQUARE_OF_NAME[name]
            design, k = text.split("/")
            k2 = int(k) if s == CENTRE else (int(k) + 1) % 4  # the fixed centre stays C8/0
            board[SQUARE_NAMES[_turn(s)]] = f"{design}/{k2}"
        pos["board"] = board
        shapes = {}
        for key, owner in pos["shapes"].items():  # insertion order = the order closed
            kind, _, v = key.partition("@")
            shapes[f"{kind}@{VERTEX_NAMES[_turn_v(VERTEX_OF_NAME[v])]}"] = owner
        pos["shapes"] = shapes
    return State.from_dict(d)
