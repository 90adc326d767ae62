"""Shared helpers for the Octi tests: build states, replay §9 move lists, read legal sets."""

from __future__ import annotations

import ast
import copy
from typing import Any

import numpy as np

from envs.octi.notation import legal_strings
from envs.octi.rules import Config, State


def new(variant: str = "basic", **params: Any) -> State:
    return State(Config(variant=variant, **params), np.random.default_rng(0))


def turns(text: str) -> list[str]:
    """Agent steps of a §9 move list: ``n. <Black turn> / <Red turn>``, turns comma-separated."""
    steps: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        _, _, body = line.partition(". ")
        for half in body.split("/"):
            steps += [s.strip() for s in half.split(",") if s.strip()]
    return steps


def play(state: State, text: str) -> State:
    state.play(*turns(text))
    return state


def legal(state: State) -> set[str]:
    return set(legal_strings(state))


def board(state: State) -> dict[str, list[list[Any]]]:
    b: dict[str, list[list[Any]]] = state.snapshot()["board"]
    return b


def diagram(state: State) -> str:
    """The §9 diagram of the position (``B``/``R``, ``B2`` stacks, ``+`` empty base, ``.``)."""
    geo = state.geo
    bases = set(geo.bases[0]) | set(geo.bases[1])
    rows = []
    for y in range(geo.height - 1, -1, -1):
        cells = []
        for x in range(geo.width):
            on = state.pods_on(y * geo.width + x)
            if on:
                cells.append("BR"[on[0] // state.P] + (str(len(on)) if len(on) > 1 else ""))
            else:
                cells.append("+" if y * geo.width + x in bases else ".")
        rows.append(f"{y + 1} " + "  ".join(cells))
    return "\n".join(rows)


def mirror_square(st: State, sq: int) -> int:
    """The square the left-right mirror takes ``sq`` to (file x <-> W-1-x, same rank), read off
    the square names."""
    name = st.geo.names[sq]
    files = "abcdefghi"[: st.geo.width]
    return st.geo.square(files[::-1][files.index(name[0])] + name[1:])


def mirror_prongs(m: int) -> int:
    """A prong mask with every direction mirrored: E <-> W, NE <-> NW, SE <-> SW (OCT-05)."""
    swap = {"N": "N", "NE": "NW", "E": "W", "SE": "SW", "S": "S", "SW": "SE", "W": "E", "NW": "NE"}
    names = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    return sum(1 << names.index(swap[n]) for d, n in enumerate(names) if m >> d & 1)


def mirrored(st: State) -> State:
    """``st`` with the board mirrored left to right, built from its own dict (``to_dict``), not
    from ``encode.symmetries``: every pod keeps its id and goes to the mirrored square with its
    prongs mirrored; the turn's origin, jumped squares (in the order jumped) and the repetition
    history's keys move alike; queues, movers, supplies, pools and the RNG stay."""
    d = copy.deepcopy(st.to_dict())

    def sq_of(sq: int) -> int:
        return mirror_square(st, sq) if sq >= 0 else sq

    d["pos"] = [sq_of(sq) for sq in d["pos"]]
    d["prongs"] = [mirror_prongs(m) for m in d["prongs"]]
    d["origin"] = sq_of(d["origin"])
    d["jumped"] = [sorted(sq_of(sq) for sq in squares) for squares in d["jumped"]]
    d["jumped_order"] = [sq_of(sq) for sq in d["jumped_order"]]
    history = {}
    for key, n in d["history"].items():  # "[(square, colour, prongs), ...]|supply|pools|to_move"
        pods, rest = key.split("|", 1)
        turned = sorted((sq_of(sq), c, mirror_prongs(m)) for sq, c, m in ast.literal_eval(pods))
        history[f"{turned}|{rest}"] = n
    d["history"] = history
    return State.from_dict(d)


def custom(
    variant: str = "basic",
    black: tuple[tuple[str, str], ...] = (),
    red: tuple[tuple[str, str], ...] = (),
    to_move: int = 0,
    **params: Any,
) -> State:
    """A MAIN-phase position: pods given as (square, "N,E" prongs) in id order; the other pods are
    in reserve (X) or captured (basic); each supply is the start supply minus its own prongs."""
    from envs.octi.board import DIR_INDEX
    from envs.octi.rules import CAPTURED, RESERVE

    st = new(variant, **params)
    P = st.P
    st.pos = [RESERVE if st.x else CAPTURED] * (2 * P)
    st.prongs = [0] * (2 * P)
    for seat, pods in ((0, black), (1, red)):
        for i, (sq, prongs) in enumerate(pods):
            st.pos[seat * P + i] = st.geo.square(sq)
            st.prongs[seat * P + i] = sum(1 << DIR_INDEX[d] for d in prongs.split(",") if d)
    st.supply = [
        st.config.start_supply - sum(bin(m).count("1") for m in st.prongs[s * P : (s + 1) * P])
        for s in (0, 1)
    ]
    st.to_move = to_move
    st.rebuild_board()
    st._legal = None
    st._ba = None
    return st


#: the rulebook's example game (spec S02), in the notation; black wins on move 5
S02_MOVES = """
1. prong c2 N / prong d6 S
2. step c2 N / prong c6 SE
3. prong b2 NE / step d6 S
4. prong b2 N / jump c6 SE, spare d5
5. jump b2 NE, jump d4 N
"""

#: spec OCT-S11 (Octi-X fast) up to the turn where the co-mover returns to the vacated origin
S11_MOVES = """
1. prong g3 W / prong g7 S
2. step g3 W / step g7 S
3. enter g3 / step g6 S
4. prong g3 NW / step g5 S
5. step g3 NW / prong e7 N
6. enter e3 / prong e7 NE
7. prong e3.0 E / prong c7 N
8. prong e3.0 N / prong c7 NW
9. prong e3.0 SW / prong e7 NW
10. prong e3.1 S / prong c7 NE
"""

#: spec OCT-S13 (Octi-X classic) up to the turn of the three-base win
S13_MOVES = """
1. enter e3 / prong c7 SE
2. enter e3 / step c7 SE
3. prong e3.0 N / prong e7 S
4. prong e3.1 N / step e7 S
5. prong e3.1 NW / prong g7 SW
6. prong e3.2 N / step g7 SW
7. prong e3.2 NE / prong d6 N
8. step e3.0 N, with e3.0, with e3.1, step e3.0 N, step e3 N / prong d6 NE
9. step e4.0 N, with e4.0, with e4.1, step e4.0 N, step e4 N / prong e6 N
"""
