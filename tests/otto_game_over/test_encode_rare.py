"""Observation slots of OTTO Game Over that mutation testing found unpinned (layout: the
module doc of ``envs/otto_game_over/env.py``, ``BLOCKS`` in ``encode.py``): the
``kidnapped`` one-hot for a kidnapped Time Travel card (kind 0, the first slot) and the
Time-Travel slots that follow it, and the misc block's ``unclaimed shapes / 8``.

Positions are set through the documented ``reset(options={"position": ...})`` hook."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.otto_game_over import actions as A
from envs.otto_game_over import encode
from envs.otto_game_over.geometry import SQUARE_NAMES
from envs.otto_game_over_v0 import env as make_env
from tests.otto_game_over.helpers import legal, shapes

#: (offset, size) of the blocks read here, from the env doc's table of the observation
#: (offset = the sum of the sizes before): written out, so that a slot moved in
#: ``encode.BLOCKS`` fails here too
LAYOUT = {"phase": (972, 4), "kidnapped": (976, 9), "flags": (985, 4), "to_move": (989, 4), "misc": (1005, 4)}


def _block(obs: np.ndarray, name: str) -> list[float]:
    start, size = LAYOUT[name]
    assert obs.shape == (encode.OBS_SIZE,) == (1013,)
    return [float(x) for x in obs[start : start + size]]


def _one_hot(size: int, k: int) -> list[float]:
    return [1.0 if i == k else 0.0 for i in range(size)]


def _obs(env: Any, agent: str) -> np.ndarray:
    obs: np.ndarray = env.observe(agent)["observation"]
    return obs


# ------------------------------------------------------------ a kidnapped Time Travel
def test_a_kidnapped_time_travel_card_fills_the_first_kidnapped_slot() -> None:
    """OGO-42/43/44: p0's Alien Kidnapping takes p1's only card, a Time Travel (kind 0), which
    is shown to all and must be played now: both seats observe phase KIDNAP and the
    ``kidnapped`` one-hot at slot 0 (kind 0 is the card a ``kidnapped > 0`` test would
    miss). Played, the slot empties and ``misc[0]`` (Time Travel pending, OGO-34) is set;
    after the placement p0's extra turn shows in ``flags[0]`` and the pending flag is gone."""
    env = make_env(num_players=2)
    env.reset(
        seed=0,
        options={
            "position": {
                "tables": ["A4", "B7"],
                "tower": ["E12", "F12"],
                "hands": [["alien-kidnapping"], ["time-travel"]],
            }
        },
    )
    st = env.unwrapped.state
    assert _block(_obs(env, "player_0"), "kidnapped") == [0.0] * 9
    env.step(st.string_to_action("card alien-kidnapping player_1"))
    assert st.kidnapped == A.TIME_TRAVEL == 0 and legal(st) == {"card time-travel"}
    for agent in ("player_0", "player_1"):  # public: the kidnapped card is shown (OGO-42)
        obs = _obs(env, agent)
        assert _block(obs, "kidnapped") == _one_hot(9, 0), agent
        assert _block(obs, "phase") == _one_hot(4, 1), agent  # card, kidnap, place, infinity
        assert _block(obs, "misc")[0] == 0.0 and _block(obs, "flags")[0] == 0.0, agent
    env.step(st.string_to_action("card time-travel"))
    obs = _obs(env, "player_0")
    assert _block(obs, "kidnapped") == [0.0] * 9 and _block(obs, "phase") == _one_hot(4, 2)
    assert _block(obs, "misc")[0] == 1.0 and _block(obs, "flags")[0] == 0.0
    env.step(next(a for a in st.legal_actions() if st.action_to_string(a).startswith("drawn ")))
    assert env.agent_selection == "player_0" and st.extra_turn  # OGO-34: the same player again
    obs = _obs(env, "player_0")
    assert _block(obs, "misc")[0] == 0.0 and _block(obs, "flags")[0] == 1.0
    assert _block(obs, "to_move") == _one_hot(4, 0) and _block(obs, "kidnapped") == [0.0] * 9


@pytest.mark.parametrize(
    ("card", "kind"), [("time-travel", A.TIME_TRAVEL), ("meteorite", A.METEORITE), ("joker", A.JOKER)]
)
def test_a_kidnap_position_observes_its_card_in_its_own_slot(card: str, kind: int) -> None:
    """OGO-43/44, set up directly: phase "kidnap" with ``kidnapped`` given; the one-hot sits
    at the card's kind (0 = Time Travel, first; 8 = joker, last) for every observer."""
    env = make_env(num_players=3)
    pos = {"tables": ["A4", "B7", "D10"], "tower": ["E12"], "phase": "kidnap", "kidnapped": card}
    env.reset(seed=0, options={"position": pos})
    for agent in env.agents:
        obs = _obs(env, agent)
        assert _block(obs, "kidnapped") == _one_hot(9, kind), agent
        assert _block(obs, "phase") == _one_hot(4, 1), agent


# ------------------------------------------------------------- unclaimed shapes / 8
#: A4 tiles (a quarter of a small circle in each corner) on every square but c3 (the fixed C8) and d5,
#: e4, e5 close these 18 small circles. Far beyond the game's four A4 tiles: the position
#: hook does not count copies, and this is the quickest board with more than 8 circles.
A4_BOARD = {name: "A4/0" for name in SQUARE_NAMES if name not in ("c3", "d5", "e4", "e5")}
CIRCLES = ["va1", "vb1", "ve1", "vf1", "va2", "vb2", "vc2", "vd2", "ve2",
           "vf2", "vb3", "ve3", "vb4", "va5", "vb5", "vc5", "va6", "vb6"]  # fmt: skip


def _unclaimed_position(unclaimed: int, mover_small: int = 0) -> dict[str, Any]:
    """``unclaimed`` unclaimed small circles and, after them, two claimed by team 1; team 0
    (p0, to move: OGO-22 runs at the start of its turn) has ``mover_small`` small markers."""
    ring: dict[str, int | None] = {f"small@{v}": None for v in CIRCLES[:unclaimed]}
    ring.update({f"small@{v}": 1 for v in CIRCLES[16:]})
    return {
        "board": A4_BOARD,
        "shapes": ring,
        "markers": [{"small": mover_small}, {"small": 2}],
        "tables": ["G16", "G16"],
        "tower": ["Z0"],
    }


@pytest.mark.parametrize(
    ("unclaimed", "value"), [(0, 0.0), (1, 0.125), (3, 0.375), (7, 0.875), (8, 1.0), (9, 1.0), (16, 1.0)]
)
def test_misc_counts_the_unclaimed_shapes_over_8_clipped_at_1(unclaimed: int, value: float) -> None:
    """OGO-21: a closed shape left without a marker is unclaimed; the observation's
    ``misc[3]`` is their number / 8, clipped at 1 (9 and 16 read 1, as 8 does), the same
    for every observer; claimed shapes (two of team 1 here) do not count. p0, to move, has
    no small marker, so its OGO-22 claims at the turn start leave them unclaimed."""
    env = make_env(num_players=2)
    env.reset(seed=0, options={"position": _unclaimed_position(unclaimed)})
    st = env.unwrapped.state
    assert env.agent_selection == "player_0" and st.phase == 2  # PLACE: no turn passed to p1
    assert list(shapes(st).values()).count(None) == unclaimed
    for agent in ("player_0", "player_1"):
        assert _block(_obs(env, agent), "misc")[3] == value, agent


@pytest.mark.parametrize(("mover_small", "left"), [(1, 4), (3, 2), (4, 1)])
def test_claims_at_the_turn_start_lower_the_unclaimed_count(mover_small: int, left: int) -> None:
    """OGO-22: with small markers, p0 claims the oldest unclaimed circles at the start of its
    turn (one marker each), and the observation counts only those left: 5 unclaimed minus
    the claims, / 8."""
    env = make_env(num_players=2)
    env.reset(seed=0, options={"position": _unclaimed_position(5, mover_small)})
    st = env.unwrapped.state
    assert [owner for owner in shapes(st).values()][:5] == [0] * mover_small + [None] * left
    assert _block(_obs(env, "player_0"), "misc")[3] == left / 8
