"""Action codec and observation tensor of Otto the Octopus (layout: see ``env.py``).

Actions (``Discrete(1106)``, spec §7)::

    0    .. 1023  place <kind> <square>      64 * kind + square
    1024          pass
    1025          stop
    1026 .. 1041  return <kind>              1026 + kind
    1042 .. 1105  swap <kind> player_<j>     1042 + 4 * kind + j
"""

from __future__ import annotations

import numpy as np

from envs.core.notation import WordTable, canonical_text
from envs.otto_octopus.board import KINDS, NUM_KINDS, NUM_PLANES, OBS_VECTOR_SIZE, SQUARES, TILE_MIX
from envs.otto_octopus.rules import NUM_ACTIONS, PASS, RETURN_BASE, STOP, SWAP_BASE, State


def _build_strings() -> tuple[str, ...]:
    out = [f"place {KINDS[a >> 6]} {SQUARES[a & 63]}" for a in range(PASS)]
    out += ["pass", "stop"]
    out += [f"return {k}" for k in KINDS]
    out += [f"swap {KINDS[i >> 2]} player_{i & 3}" for i in range(4 * NUM_KINDS)]
    assert len(out) == NUM_ACTIONS
    return tuple(out)


ACTION_STRINGS: tuple[str, ...] = _build_strings()
ACTION_INDEX: dict[str, int] = {s: i for i, s in enumerate(ACTION_STRINGS)}
_WORDS = WordTable(ACTION_STRINGS)
_GRAMMAR = (
    "'place <kind> <square>', 'pass', 'stop', 'return <kind>' or 'swap <kind> player_<0-3>' "
    f"with kind in {list(KINDS)} and square a1..h8"
)


def action_to_string(action: int) -> str:
    """Canonical notation of an index (spec §8); ``"illegal <action>"`` when out of range."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < NUM_ACTIONS:
        return ACTION_STRINGS[int(action)]
    return f"illegal {action}"


def parse_action(text: str) -> int:
    """Index of a notation string, legal or not (case-insensitive, spaces collapsed)."""
    if not isinstance(text, str):
        raise ValueError(f"expected an action string, got {type(text).__name__}")
    key = canonical_text(text, _GRAMMAR)
    if key not in ACTION_INDEX:
        raise ValueError(f"malformed action {text!r}: {_WORDS.hint(key)}; expected {_GRAMMAR}")
    return ACTION_INDEX[key]


# ------------------------------------------------------------------ observation
BOARD_SIZE = NUM_PLANES * 64  # 1728
V_HAND = BOARD_SIZE  # 16: my hand, count per kind / 3
V_VISIBLE = V_HAND + 16  # 3 x 16: visible tiles of the next seats (open game) / 3
V_HAND_SIZES = V_VISIBLE + 48  # 4: hand sizes / 3, egocentric
V_PILE = V_HAND_SIZES + 4  # 1: pile size / 60
V_UNSEEN = V_PILE + 1  # 16: unseen tiles per kind (pile + hidden hands) / mix count
V_SCORES = V_UNSEEN + 16  # 4: running scores / 100, clipped to [-1, 1]
V_SKIPS = V_SCORES + 4  # 4: pending skips / 2, clipped
V_PASSED = V_SKIPS + 4  # 4: passed since the last placement
V_EXTRA = V_PASSED + 4  # 1: extra placements left / 3, clipped
V_PHASE = V_EXTRA + 1  # 4: phase one-hot main / extra / swap / return
V_TO_MOVE = V_PHASE + 4  # 4: seat to act, egocentric one-hot
OBS_SIZE = V_TO_MOVE + 4  # 1834
assert OBS_SIZE == BOARD_SIZE + OBS_VECTOR_SIZE  # the ocean's observation buffer (board.py)


def hidden_tiles(state: State, seat: int) -> list[int]:
    """Tiles of other hands that ``seat`` cannot see (their whole hand, or the newest one
    in the open game, OTP-41)."""
    out: list[int] = []
    for q in range(state.n):
        if q != seat and state.hands[q]:
            out.extend(state.hands[q][-1:] if state.config.open_game else state.hands[q])
    return out


def observe(state: State, seat: int) -> np.ndarray:
    """The egocentric observation of ``seat`` (never another seat's hidden tile)."""
    # the ocean keeps a whole observation buffer with current board planes and a zero
    # tail: one copy, then plain numpy scalar writes for the non-zero entries only
    out = state.ocean.obs.copy()
    n = state.n
    hands = state.hands
    mine = hands[seat]
    for k in set(mine):
        out[V_HAND + k] = mine.count(k) * THIRD_F
    open_game = state.config.open_game
    unseen = state.pile_counts[:]
    scores, skips, passed = state.scores, state.skips, state.passed
    for i in range(n):
        q = (seat + i) % n
        hand = hands[q]
        if hand:
            out[V_HAND_SIZES + i] = len(hand) * THIRD_F
            if i:
                if open_game:
                    base = V_VISIBLE + 16 * (i - 1)
                    visible = hand[:-1]
                    for k in set(visible):
                        out[base + k] = visible.count(k) * THIRD_F
                    unseen[hand[-1]] += 1
                else:
                    for k in hand:
                        unseen[k] += 1
        if scores[q]:
            sc = scores[q] / 100.0
            out[V_SCORES + i] = -1.0 if sc < -1.0 else 1.0 if sc > 1.0 else sc
        if skips[q]:
            out[V_SKIPS + i] = 1.0 if skips[q] >= 2 else 0.5
        if passed[q]:
            out[V_PASSED + i] = 1.0
    out[V_PILE] = min(len(state.pile) / 60.0, 1.0)  # a loaded position may hold more
    for k in range(NUM_KINDS):
        if unseen[k]:
            u = unseen[k] * INV_MIX[k]
            out[V_UNSEEN + k] = 1.0 if u > 1.0 else u
    if not state.over:
        if state.extra:
            out[V_EXTRA] = min(1.0, state.extra / 3.0)
        out[V_PHASE + state.phase] = 1.0
        out[V_TO_MOVE + (state.to_move - seat) % n] = 1.0
    return out


THIRD_F = 1.0 / 3.0
INV_MIX = tuple(1.0 / m for m in TILE_MIX)


__all__ = ["ACTION_INDEX", "ACTION_STRINGS", "OBS_SIZE", "action_to_string", "observe", "parse_action",
           "PASS", "STOP", "RETURN_BASE", "SWAP_BASE"]  # fmt: skip
