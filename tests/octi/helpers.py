"""Shared helpers for the Octi tests: build states, replay §9 move lists, read legal sets."""

from __future__ import annotations

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
