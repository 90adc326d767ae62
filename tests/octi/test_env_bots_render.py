"""Env facts, observations, rendering and bots."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.arena import play_match
from envs.octi.bots import BOTS, can_reach_base
from envs.octi.game import OctiGame
from envs.octi_v0 import env, raw_env
from tests.octi.helpers import custom, play


@pytest.mark.parametrize(
    "params,actions,shape",
    [
        ({}, 117, (84, 7, 6)),
        ({"allow_reposition": True}, 373, (84, 7, 6)),
        ({"variant": "x_fast"}, 185, (111, 9, 9)),
        ({"variant": "x_classic", "allow_reposition": True}, 633, (111, 9, 9)),
    ],
)
def test_spaces(params: dict[str, object], actions: int, shape: tuple[int, ...]) -> None:
    """§7: Discrete(117) basic / 185 X (373 / 633 with reposition); C x H x W planes."""
    e = raw_env(**params)  # type: ignore[arg-type]
    assert e.action_space("player_0").n == actions
    assert e.observation_space("player_1")["observation"].shape == shape


@pytest.mark.parametrize("variant", ["basic", "x_fast", "x_classic"])
def test_observations_in_bounds_during_play(variant: str) -> None:
    """OCT-47: float32 planes in [0, 1] from both seats in every phase."""
    game = OctiGame(variant=variant, max_turns=80)
    rng = np.random.default_rng(3)
    st = game.new_initial_state(rng)
    while not st.is_terminal():
        for seat in (0, 1):
            o = game.observe(st, seat)
            assert o.dtype == np.float32 and o.shape == game.observation_shape
            assert o.min() >= 0.0 and o.max() <= 1.0
        legal = np.flatnonzero(st.legal_mask())
        st.apply(int(legal[rng.integers(legal.size)]))


def test_observation_marks_turn_state() -> None:
    """Planes 20-23 and the phase one-hot follow the turn (origin, focus, jumped squares)."""
    game = OctiGame()
    st = custom(black=(("c3", "N,E"),), red=(("c4", ""), ("d5", ""), ("a1", "")))
    st.play("jump c3 N")
    o = game.observe(st, 0)
    assert o[20, 2, 2] == 1 and o[21, 4, 2] == 1 and o[22, 3, 2] == 1 and o[23, 3, 2] == 1
    assert o[29].all() and not o[27].any()  # CHAIN
    o1 = game.observe(st, 1)  # Red sees the same squares rotated: c3 -> d5 (row 4, column 3)
    assert o1[20, 4, 3] == 1


def test_render_modes() -> None:
    e = env(variant="x_classic", render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "a  b  c" in text and "Black" in text and "reserve 4" in text
    e = env(render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_render_mid_turn_stack() -> None:
    game = OctiGame(variant="x_fast")
    st = play(
        game.new_initial_state(np.random.default_rng(0)),
        "1. enter c3 / prong c7 S\n2. prong c3.0 N / step c7 S\n3. prong c3.1 N / step c6 S\n"
        "4. prong e3 N / step c5 S\n5. jump c3.0 N, with c3",
    )
    assert "B2" not in game.render_ansi(st)  # pod 0 already on c5, pod 3 still on c3
    assert game.render_rgb(st).shape[2] == 3


def test_threat_detection() -> None:
    """The heuristic sees steps and jump series that reach a base."""
    blocked = custom(black=(("c3", "N"),), red=(("c4", ""), ("c5", "N,S"), ("a1", "")))
    assert not can_reach_base(blocked, 0)  # c4 occupied, the landing c5 too
    series = custom(black=(("c2", "N,NE"),), red=(("c3", ""), ("d5", ""), ("a1", "")))
    assert can_reach_base(series, 0)  # c2 -> c4 over c3, c4 -> e6 over d5
    assert can_reach_base(custom(black=(("b5", "NE"),), red=(("a1", ""),)), 0)


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bots_play_legal_actions(name: str) -> None:
    game = OctiGame(variant="x_fast", max_turns=40)
    bots = [BOTS[name](game), BOTS["random"](game)]
    res = play_match(game, bots, games=2, seed=1)
    assert res.games == 2


def test_heuristic_beats_random_quick() -> None:
    game = OctiGame()
    res = play_match(game, [BOTS["heuristic"](game), BOTS["random"](game)], games=12, seed=2)
    assert res.wins >= 10


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("variant", ["basic", "x_fast"])
def test_heuristic_beats_random_500(variant: str) -> None:
    game = OctiGame(variant=variant)
    res = play_match(game, [BOTS["heuristic"](game), BOTS["random"](game)], games=500, seed=1)
    assert res.win_rate > 0.9
