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


def test_rgb_stack_height_clear_of_the_pods() -> None:
    """A stack's height is written where no pod is drawn (it once sat on the top-right pod of a
    stack of 3 or more), for every stack height; the text names stacked pods ``c3.k``."""
    pytest.importorskip("PIL")
    from envs.octi.render import CELL, FILL, MARGIN, render_ansi, render_rgb

    for n in range(2, 8):
        st = custom("x_fast", black=(("c3", "N,E,S,W,NE,SE,SW,NW"),) * n, red=(("h8", "S"),))
        img = render_rgb(st)
        x0, y0 = MARGIN + 2 * CELL, MARGIN + 6 * CELL  # square c3
        square = img[y0 + 1 : y0 + CELL, x0 + 1 : x0 + CELL]
        r, g, b = (square[..., c].astype(int) for c in range(3))
        ys, xs = np.nonzero((b > r + 60) & (b > g + 60))  # the height's blue ink
        assert ys.size, n  # the height is drawn
        box = square[ys.min() - 1 : ys.max() + 2, xs.min() - 1 : xs.max() + 2].reshape(-1, 3)
        for colour in (FILL[0], (230, 170, 0), (255, 255, 255)):  # pod, prong, outline
            assert not (box == np.array(colour, dtype=np.uint8)).all(axis=1).any(), (n, colour)
    assert "c3.0[N,NE,E,SE,S,SW,W,NW] c3.1[" in render_ansi(st) and "c3.6[" in render_ansi(st)


def test_render_shows_capture_marks_focus_and_rules() -> None:
    """Mid-turn, both pictures show the pods already marked ``capture`` and the pod the next
    action is about; the panel and the text name the rules and the turn limit, and a draw
    by repetition says so."""
    pytest.importorskip("PIL")
    from envs.octi.render import FOCUS, MARK, render_ansi, render_rgb

    st = custom(black=(("c3", "N"),), red=(("c4", ""), ("c6", ""), ("a1", "")), edgeless=True)
    st.play("jump c3 N", "jump c5 N", "capture c4")  # CAPTURE: c4 marked, c6 still to decide
    text = render_ansi(st)
    assert "origin c3  jumped c4 c6" in text and "focus c6  marked capture c4" in text
    assert "turn 1 of 300:" in text and "rules: basic, edgeless" in text
    img = render_rgb(st).reshape(-1, 3)
    for colour in (MARK, FOCUS):
        assert (img == np.array(colour, dtype=np.uint8)).all(axis=1).sum() > 20, colour
    st.play("spare c6")
    assert (render_rgb(st).reshape(-1, 3) != np.array(MARK, dtype=np.uint8)).any(axis=1).all()
    rep = custom(black=(("b2", "N,S"),), red=(("e6", "N,S"),), repetition_draw=True)
    moves = ["step b2 N", "step e6 S", "step b3 S", "step e5 N"] * 3  # the same positions again
    while not rep.is_terminal():
        rep.play(moves.pop(0))
    assert not rep.is_truncated() and "draw (repetition)" in render_ansi(rep)


def test_a_finished_game_says_how_it_ended() -> None:
    """The text and the picture name the way a game ended, read off the final position and
    checked here against the rules: a pod on an enemy base (OCT-42), all three enemy bases held
    (OCT-43, x_classic), the loser without a legal action (OCT-44), the turn limit (OCT-45) or a
    threefold repetition (OCT-52). Random games of each variant reach every one of them."""
    from envs.octi.game import OctiGame
    from envs.octi.render import _end, _panel_lines, render_ansi
    from envs.octi.turn import main_actions

    seen = set()
    for variant in ("basic", "x_fast", "x_classic"):
        for seed in range(40):
            game = OctiGame(variant=variant, repetition_draw=bool(seed % 2))
            st = game.new_initial_state(np.random.default_rng(seed))
            rng = np.random.default_rng(seed)
            while not st.is_terminal():
                last_turn = st.turn + 1  # the turn (1-based) of the action about to be played
                st.apply(int(rng.choice(np.flatnonzero(st.legal_mask()))))
            result, how = _end(st)
            # a base win comes inside its turn; every other end once the turn is complete
            when = f"in turn {last_turn}" if how == "reached an enemy base" else f"after {last_turn} turns"
            assert f"game over {when}: " in render_ansi(st)
            assert when in _panel_lines(st)  # the picture's panel says the same (it said "after 8 turns")
            r = st.returns()
            w = 0 if r[0] > 0 else 1
            own = {st.pos[w * st.P + p] for p in range(st.P)}
            if st.truncated:
                assert (result, how) == ("draw (truncated)", f"turn limit {st.config.turn_limit}")
                assert st.turn == st.config.turn_limit
            elif r[0] == r[1]:
                assert (result, how) == ("draw (repetition)", "threefold repetition")
            elif how == "reached an enemy base":
                assert variant != "x_classic" and own & st.geo.enemy_base_set[w]
            elif how == "holds all 3 enemy bases":
                assert variant == "x_classic" and set(st.geo.bases[1 - w]) <= own
            else:
                assert how == f"{('Black', 'Red')[1 - w]} cannot move" and not main_actions(st, 1 - w)
            if not result.startswith("draw"):
                assert result == f"{('Black', 'Red')[w]} wins" and f"{result} ({how})" in render_ansi(st)
            assert _panel_lines(st)[1:3] == [result, how]
            seen.add(how if "cannot" not in how else "cannot move")
    assert {"reached an enemy base", "holds all 3 enemy bases", "cannot move", "threefold repetition"} <= seen
    assert any(h.startswith("turn limit") for h in seen)
