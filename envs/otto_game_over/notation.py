"""The binding notation of spec §8: one canonical string per action index.

Built eagerly at import (a tuple and a dict); parsing is case-insensitive and collapses
runs of whitespace.
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import WordTable, canonical_text
from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import SQUARE_NAMES

GRAMMAR = (
    "'drawn|table <square> r<k>', 'no card', 'card <effect>', 'card joker as <effect>', "
    "'card infinity', 'card joker as infinity' or 'keep infinity' "
    "(square a1..e5, k 0..3, effect e.g. 'magnetic-inversion player_1', 'quantum-leap b1 e5 r0')"
)


def effect_string(e: int) -> str:
    kind = A.EFFECT_KIND[e]
    name = A.CARD_NAMES[kind]
    if kind in (A.MAGNETIC, A.ALIEN):
        return f"{name} player_{e - (A.E_MAGNETIC if kind == A.MAGNETIC else A.E_ALIEN)}"
    if kind == A.QUANTUM:
        f, rest = divmod(e - A.E_QUANTUM, 100)
        t, k = divmod(rest, 4)
        return f"{name} {SQUARE_NAMES[f]} {SQUARE_NAMES[t]} r{k}"
    return name


def _build() -> tuple[str, ...]:
    out = [
        f"{'drawn' if t == 0 else 'table'} {SQUARE_NAMES[s]} r{k}"
        for t in range(2)
        for s in range(25)
        for k in range(4)
    ]
    out.append("no card")
    out += [f"card {effect_string(e)}" for e in range(A.N_EFFECTS)]
    out += [f"card joker as {effect_string(e)}" for e in range(A.N_EFFECTS)]
    out += ["card infinity", "card joker as infinity", "keep infinity"]
    assert len(out) == A.N_ACTIONS
    return tuple(out)


ACTION_STRINGS: tuple[str, ...] = _build()
ACTION_OF_STRING: dict[str, int] = {s: i for i, s in enumerate(ACTION_STRINGS)}
_WORDS = WordTable(ACTION_STRINGS)


def action_to_string(action: int) -> str:
    # not operator.index: it reads a torch bool tensor as 1
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return f"illegal {action}"
    if not 0 <= action < A.N_ACTIONS:
        return f"illegal {action}"
    return ACTION_STRINGS[int(action)]


def string_to_action(text: str) -> int:
    if not isinstance(text, str):
        raise ValueError(f"an action string is expected, got {type(text).__name__}")
    key = canonical_text(text, GRAMMAR)
    if key not in ACTION_OF_STRING:
        raise ValueError(f"malformed action {text!r}: {_WORDS.hint(key)}; expected {GRAMMAR}")
    return ACTION_OF_STRING[key]
