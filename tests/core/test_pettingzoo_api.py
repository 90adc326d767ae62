"""PettingZoo's own checkers and the AEC conventions, for every game and test config."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs  # noqa: F401  (registers the ids)
from envs.core.registry import GAMES


def test_pettingzoo_api(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    api_test(GAMES[name].env(**params), num_cycles=200, verbose_progress=False)


def test_pettingzoo_seed(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    seed_test(lambda: GAMES[name].env(**params), num_cycles=100)


def test_pettingzoo_render(
    game_config: tuple[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """PettingZoo's render checker: every mode of ``metadata["render_modes"]`` over a game."""
    name, params = game_config
    render_test(lambda render_mode=None: GAMES[name].env(render_mode=render_mode, **params))
    assert capsys.readouterr().out  # "human" prints the board


def _trajectory(name: str, params: dict[str, Any], seed: int) -> list[Any]:
    env = GAMES[name].env(**params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    return out


@pytest.mark.parametrize("seed", [0, 1, 123456789])
def test_same_seed_same_game(game_config: tuple[str, dict[str, Any]], seed: int) -> None:
    name, params = game_config
    assert _trajectory(name, params, seed) == _trajectory(name, params, seed)


def test_different_seeds_differ(game_name: str) -> None:
    """Seeding reaches the game: in a game of chance each of four seeds deals another first
    position (the generator aside); a game without chance (Octi) starts the same whatever the
    seed. (Trajectories with a move picker seeded alike differed even when the env ignored the
    seed.)"""
    from envs.core.game import hides_nothing
    from tests.core.helpers import position_json

    env = GAMES[game_name].env()
    starts = set()
    for s in range(4):
        env.reset(seed=s)
        starts.add(position_json(env.unwrapped.state))
    assert len(starts) == (1 if hides_nothing(env.unwrapped.game) else 4)


def test_registry_make(game_name: str) -> None:
    env = pettingzoo.make("aec", GAMES[game_name].env_id)
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents


def test_pickle_mid_game(game_config: tuple[str, dict[str, Any]]) -> None:
    """A pickled mid-game env continues exactly like the original."""
    name, params = game_config
    env = GAMES[name].env(**params)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(15):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(40):
        if not env.agents:
            break
        o1, r1, t1, u1, _ = env.last()
        o2, r2, t2, u2, _ = copy.last()
        assert env.agent_selection == copy.agent_selection
        assert np.array_equal(o1["observation"], o2["observation"])
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
        assert (r1, t1, u1) == (r2, t2, u2)
        if t1 or u1:
            env.step(None)
            copy.step(None)
            continue
        legal = np.flatnonzero(o1["action_mask"])
        a = int(legal[rng.integers(legal.size)])
        env.step(a)
        copy.step(a)


def test_illegal_action_ends_game(game_config: tuple[str, dict[str, Any]]) -> None:
    """env(): an illegal action ends the game, -1 to the mover, 0 to the others."""
    name, params = game_config
    env = GAMES[name].env(**params)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while True:  # the first decision with an illegal action, along a random game
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            pytest.skip("every action was legal at every decision of this random game")
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        if illegal.size:
            break
        env.step(int(rng.integers(obs["action_mask"].size)))
    mover = env.agent_selection
    before = env.unwrapped.state.to_dict()
    seen = {a: env.observe(a)["observation"].copy() for a in env.agents}
    env.step(int(illegal[0]))
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
    assert env.rewards[mover] == -1
    assert all(env.rewards[a] == 0 for a in env.agents if a != mover)
    # the doc pages: only the AEC dicts end; the position stays the one before the action
    assert env.unwrapped.state.to_dict() == before
    for a in env.agents:
        o = env.observe(a)
        np.testing.assert_array_equal(o["observation"], seen[a])
        assert not o["action_mask"].any()


def test_out_of_bounds_action_asserts(game_name: str) -> None:
    env = GAMES[game_name].env()
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    before = env.unwrapped.state.to_dict()
    with pytest.raises(AssertionError):
        env.step(n)
    for flag in (True, False, np.True_):  # Discrete.contains(True) holds; a bool is no index
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(flag)
    assert env.unwrapped.state.to_dict() == before  # nothing played


def test_spaces_are_cached(game_name: str) -> None:
    env = GAMES[game_name].env()
    a = env.possible_agents[0]
    assert env.observation_space(a) is env.observation_space(a)
    assert env.action_space(a) is env.action_space(a)


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes(game_name: str, mode: str) -> None:
    env = GAMES[game_name].env(render_mode=mode)
    env.reset(seed=0)
    out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and out.strip()
    else:
        assert isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
        assert out.std() > 0, "blank image"


def test_human_mode_prints_the_start_and_every_step(
    game_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"human"`` prints the ansi text at the reset (the starting position, as Gymnasium's
    envs do) and after every step."""
    env = GAMES[game_name].env(render_mode="human")
    env.reset(seed=0)
    start = capsys.readouterr().out
    assert (
        start.strip()
        and start.strip()
        == str(
            GAMES[game_name].env(render_mode="ansi").unwrapped.game.render_ansi(env.unwrapped.state)
        ).strip()
    )
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    assert capsys.readouterr().out.strip()


def test_text_needs_no_pillow(game_name: str) -> None:
    """Pillow is the ``render`` extra, for images: without it ``ansi`` and ``human`` work in
    every game, and ``rgb_array`` says what to install."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['PIL'] = None\n"
        "import numpy as np\n"
        "from envs.core.registry import GAMES\n"
        f"g = GAMES[{game_name!r}]\n"
        "e = g.env(render_mode='ansi'); e.reset(seed=0); assert e.render().strip()\n"
        "e = g.env(render_mode='human'); e.reset(seed=0)\n"
        "e.step(int(np.flatnonzero(e.last()[0]['action_mask'])[0]))\n"
        "e = g.env(render_mode='rgb_array'); e.reset(seed=0)\n"
        "try:\n    e.render()\nexcept ImportError as exc:\n    print('IMPORT', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "IMPORT rgb_array rendering needs Pillow: pip install 'eightfold[render]'" in out.stdout


def test_bad_render_mode(game_name: str) -> None:
    with pytest.raises(ValueError, match="render_mode"):
        GAMES[game_name].env(render_mode="video")


def test_observations_are_new_arrays_at_every_call(game_name: str) -> None:
    """The README: ``last()`` and ``observe()`` return new arrays, safe to store and modify."""
    env = GAMES[game_name].env()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(max_iter=120):
        obs, _r, term, trunc, _i = env.last()
        for other in env.agents:
            first, again = env.observe(other), env.observe(other)
            for key in ("observation", "action_mask"):
                assert not np.shares_memory(first[key], again[key])
                assert not np.shares_memory(first[key], obs[key])
                first[key][...] = 3
                np.testing.assert_array_equal(env.observe(other)[key], again[key])
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
