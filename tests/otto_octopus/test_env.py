"""The PettingZoo adapter: positions through reset, notation, rendering, bots."""

from __future__ import annotations

import numpy as np

from envs.core.arena import play_match
from envs.otto_octopus.bots import BOTS
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus_v0 import env, raw_env
from tests.otto_octopus.helpers import P1


def test_reset_with_position_and_snapshot() -> None:
    e = env()
    pos = {
        "placements": P1,
        "hands": [["starfish", "bubbles", "end"], ["bubbles"] * 3],
        "pile": ["minnow"] * 4,
    }
    e.reset(seed=3, options={"position": pos})
    snap = e.unwrapped.snapshot()
    assert snap["placements"] == P1 and snap["pile"] == ["minnow"] * 4
    a = e.unwrapped.string_to_action("place end d8")
    assert e.unwrapped.action_to_string(a) == "place end d8"
    e.step(a)
    assert e.unwrapped.state.scores == [3, 0]
    assert e.agent_selection == "player_1"
    assert e.infos["player_0"]["scores"] == [3, 0]


def test_render_modes() -> None:
    e = raw_env(render_mode="ansi", num_players=3)
    e.reset(seed=1)
    text = e.render()
    assert "OO" in text and "player_0 to act" in text
    e = raw_env(render_mode="rgb_array")
    e.reset(seed=1)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_full_episode_rewards_sum_to_zero() -> None:
    e = env(num_players=4)
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    assert abs(sum(total.values())) < 1e-9
    assert max(total.values()) > 0


def test_heuristic_beats_random() -> None:
    """A short match (the 1000-game measurement is in the env docstring)."""
    game = OttoOctopusGame()
    res = play_match(game, [BOTS["heuristic"](game), BOTS["random"](game)], games=40, seed=3)
    assert res.win_rate > 0.75


def test_observation_stays_in_its_box_with_an_oversized_pile() -> None:
    """A loaded position may hold more than the 60-tile mix in its pile (not checked, see the
    doc page); the pile entry is clipped so the observation stays in its declared box."""
    from envs.otto_octopus.encode import V_PILE

    e = env()
    e.reset(
        seed=0,
        options={
            "position": {
                "placements": ["straight d6"],
                "hands": [["bubbles"] * 3, ["bubbles"] * 3],
                "pile": ["bubbles"] * 61,
            }
        },
    )
    obs = e.observe(e.agent_selection)
    assert obs["observation"][V_PILE] == 1.0
    assert e.observation_space(e.agent_selection).contains(obs)


def test_solo_heuristic_scores_arms_by_their_points() -> None:
    """OTP-39/40 solo: no opponent takes an arm, so the heuristic drops its arm outlook (which
    cost it about 3 points a game, doc page) and values an arm placement by its points; with
    two players the outlook still moves some arm placements' values."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.bots import immediate_gain
    from envs.otto_octopus.rules import PASS

    seen = {1: 0, 2: 0}
    moved = 0
    for n in (1, 2):
        game = OttoOctopusGame(num_players=n)
        bot = BOTS["heuristic"](game)
        rng = np.random.default_rng(4)
        st = game.new_initial_state(np.random.default_rng(5))
        while not st.is_terminal():
            p = st.current_player()
            for a in np.flatnonzero(st.legal_mask()):
                a = int(a)
                if a < PASS and (a >> 6) in B.ARM_KINDS:
                    value = bot.score(st, p, a, rng)
                    gain = immediate_gain(st, p, a >> 6, a & 63)
                    seen[n] += 1
                    if n == 1:
                        assert value == gain
                    else:
                        moved += value != gain
            st.apply(bot.act(st, p, rng))
    assert seen[1] > 20 and seen[2] > 20 and moved > 0


def test_render_open_game_shows_the_visible_tiles_and_dark_fish_labels() -> None:
    """OTP-41: in the open game every hand but the newest tile is public, so both pictures
    list the visible tiles of the seats not to act; the anglerfish's label is white (dark
    ink on its dark body was unreadable)."""
    from envs.otto_octopus.board import SQUARE_INDEX
    from envs.otto_octopus.render import _origin, render_ansi, render_rgb

    pos = {
        "placements": [*P1, "turn-out d8", "anglerfish e8"],
        "hands": [["straight", "end", "bubbles"], ["shark", "minnow", "turn-in"], ["end"]],
    }
    st = OttoOctopusGame(num_players=3, open_game=True).new_initial_state(
        np.random.default_rng(0), {"position": pos}
    )
    text = render_ansi(st)
    assert "player_1 shows: shark, minnow" in text and "player_2 shows: -" in text
    assert "player_0 shows" not in text  # the seat to act: its whole hand is listed
    closed = OttoOctopusGame(num_players=3).new_initial_state(np.random.default_rng(0), {"position": pos})
    assert "shows" not in render_ansi(closed)
    img = render_rgb(st)
    x0, y0 = _origin(SQUARE_INDEX["e8"])
    label = img[y0 + 26 : y0 + 39, x0 + 20 : x0 + 38].reshape(-1, 3)
    assert (label.min(axis=1) > 230).any()  # white strokes of "an"


def test_render_game_over_names_the_winners() -> None:
    """At the end the text and the picture name the winner(s) beside the final scores (OTP-38:
    the highest final score wins, ties share); a truncated game and a solo game name none."""
    from envs.otto_octopus.render import render_ansi, render_rgb

    for seed in range(6):
        st = OttoOctopusGame(num_players=3).new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while not st.is_terminal():
            st.apply(int(rng.choice(np.flatnonzero(st.legal_mask()))))
        fs = st.final_scores()
        won = [p for p in range(3) if fs[p] == max(fs)]
        label = ("winner: " if len(won) == 1 else "winners: ") + ", ".join(f"player_{w}" for w in won)
        assert render_ansi(st).endswith(label)
        other = st.clone()
        others = [w for w in range(3) if w not in won]
        other.winners = lambda others=others: others  # type: ignore[method-assign]
        assert (render_rgb(st) != render_rgb(other)).any()  # the picture draws the line too
        truncated = st.clone()
        truncated.truncated = True
        assert "winner" not in render_ansi(truncated)
    solo = OttoOctopusGame(num_players=1).new_initial_state(np.random.default_rng(0))
    while not solo.is_terminal():
        solo.apply(int(np.flatnonzero(solo.legal_mask())[0]))
    assert "winner" not in render_ansi(solo)


def test_render_seat_lines_are_written_in_readable_seat_colours() -> None:
    """The picture writes each seat's status line in that seat's colour, darkened where the
    plain seat colour reads poorly on the background (seat 3's orange was 1.95:1): every
    text colour reaches WCAG's 4.5:1 for body text, and 4 players' lines use them."""
    from envs.core import draw
    from envs.otto_octopus.render import render_rgb

    assert all(draw.contrast(c, draw.BACKGROUND) >= 4.5 for c in draw.TEXT_COLORS)
    assert (
        draw.TEXT_COLORS[3] != draw.SEAT_COLORS[3] and draw.contrast(draw.SEAT_COLORS[3], draw.BACKGROUND) < 3
    )
    img = render_rgb(OttoOctopusGame(num_players=4).new_initial_state(np.random.default_rng(0)))
    colours = {tuple(int(v) for v in px) for px in img.reshape(-1, 3)}
    assert all(c in colours for c in draw.TEXT_COLORS[:4])
    assert draw.SEAT_COLORS[3] not in colours
