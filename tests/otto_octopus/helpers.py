"""Shared helpers: build spec §9 positions and read legal moves as notation strings."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.otto_octopus.encode import ACTION_STRINGS, parse_action
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import State

# base positions of spec §9 (placements in arm order)
P0: list[str] = []
P_D6 = ["straight d6"]
P1 = ["straight d6", "straight d7"]
P2 = [*P1, "turn-out d8"]
P_ARM = [*P2, "straight c8", "straight b8"]


def make(placements: list[str], hands: list[list[str]] | None = None, seed: int = 0, **kw: Any) -> State:
    """A position with the §9 defaults: 2 players, p1 holds 3 bubbles, pile 10 bubbles."""
    params = {k: kw.pop(k) for k in ("num_players", "open_game", "simplified", "max_steps") if k in kw}
    game = OttoOctopusGame(**params)
    n = game.num_players
    if hands is None:
        hands = [["bubbles"] * 3 for _ in range(n)]
    elif len(hands) < n:
        hands = hands + [["bubbles"] * 3 for _ in range(n - len(hands))]
    pos: dict[str, Any] = {"placements": placements, "hands": hands, "pile": ["bubbles"] * 10}
    pos.update(kw)
    return game.new_initial_state(np.random.default_rng(seed), {"position": pos})


def legal(st: State) -> set[str]:
    return {ACTION_STRINGS[a] for a in st.legal_actions()}


def is_legal(st: State, text: str) -> bool:
    return bool(st.legal_mask()[parse_action(text)])


def play(st: State, text: str) -> int:
    """Play ``text`` for the player to act; returns the mover's score change."""
    p = st.current_player()
    before = st.scores[p]
    st.apply(parse_action(text))
    return st.scores[p] - before


def hand(st: State, seat: int) -> list[str]:
    from envs.otto_octopus.board import KINDS

    return sorted(KINDS[k] for k in st.hands[seat])
