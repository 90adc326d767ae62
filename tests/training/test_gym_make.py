"""``gymnasium.make("eightfold/<game>-single-v0", ...)``: the single-agent view registered with
Gymnasium by ``import training`` (``training.single_agent.make_env``)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import training  # noqa: F401  (registers the ids)
from envs.core.registry import GAMES, get_game
from training.players import OpponentPool, game_bots
from training.single_agent import SingleAgentEnv, make_env

TWO_PLAYERS: dict[str, dict[str, int]] = {
    "octi": {},
    "over_and_out": {"num_players": 2},
    "otto_game_over": {"num_players": 2},
    "otto_octopus": {"num_players": 2},
}


def _play(env: gym.Env, seed: int, steps: int) -> list[tuple[bytes, float, bool, bool]]:
    """Observations, rewards and ends of a seeded run taking the first legal move each step."""
    obs, _ = env.reset(seed=seed)
    out = [(obs.tobytes(), 0.0, False, False)]
    masks = env.get_wrapper_attr("action_masks")
    for _ in range(steps):
        obs, r, term, trunc, _ = env.step(int(np.flatnonzero(masks())[0]))
        out.append((obs.tobytes(), float(r), term, trunc))
        if term or trunc:
            obs, _ = env.reset()
    return out


def test_import_training_registers_every_game_with_gymnasium() -> None:
    import warnings

    ids = {f"eightfold/{name}-single-v0" for name in GAMES}
    assert ids <= set(gym.registry)
    specs = {i: gym.spec(i) for i in ids}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium warns "Overriding environment" on a re-registration
        training.single_agent.register_gymnasium()  # idempotent
    assert all(gym.spec(i) is specs[i] for i in ids)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_gym_make_gives_the_view_the_same_specs_would_build(name: str) -> None:
    """The made env passes Gymnasium's checker and plays move for move like a
    ``SingleAgentEnv`` built by hand from the same game, opponents and seed."""
    params = TWO_PLAYERS[name]
    made = gym.make(f"eightfold/{name}-single-v0", opponents=["random", "greedy"], **params)
    assert isinstance(made.unwrapped, SingleAgentEnv)
    check_env(made.unwrapped, skip_render_check=True)
    entry = get_game(name)
    game = entry.game_class()(**params)
    by_hand = SingleAgentEnv(game, OpponentPool.from_specs(game, ["random", "greedy"], game_bots(entry)))
    assert made.observation_space == by_hand.observation_space
    assert made.action_space == by_hand.action_space
    assert _play(made, 7, 60) == _play(by_hand, 7, 60)


def test_keywords_reach_the_game_the_pool_the_seat_and_the_shaping() -> None:
    env = make_env(
        "eightfold/otto_game_over-v0",
        num_players=4,
        teams=True,
        opponents={"greedy": 1.0},
        partner="heuristic",
        seat=2,
        shaping=0.5,
        gamma=0.9,
    )
    _, info = env.reset(seed=0)
    assert env.game.num_players == 4 and env.game.config.teams
    assert info["seat"] == 2
    assert env.opponents is not None and set(env.opponents.groups) == {"greedy"}
    assert env.partner is not None and env.shaping == 0.5 and env.gamma == 0.9
    octi = gym.make("eightfold/octi-single-v0", variant="x_fast", render_mode="ansi")
    octi.reset(seed=0)
    assert octi.unwrapped.game.config.variant == "x_fast"
    assert isinstance(octi.render(), str)


def test_a_solo_game_needs_no_opponents() -> None:
    env = gym.make("eightfold/otto_octopus-single-v0", num_players=1)
    _, info = env.reset(seed=1)
    assert info["opponents"] == {}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 9}, "num_players"),
        ({"num_players": 2, "opponents": ["nope"]}, "unknown bot 'nope'"),
        ({"num_players": 2, "opponents": "heuristic"}, "opponents must be a list"),
        ({"num_players": 2, "opponents": []}, "empty"),
        ({"num_players": 1, "opponents": ["random"]}, "solo"),
        ({"num_players": 2, "partner": 3}, "partner must be"),
        ({"num_players": 2, "partner": "heuristic"}, "2v2"),
        ({"num_players": 2, "seat": 5}, "seat"),
        ({"num_players": 2, "shaping": -1}, "shaping"),
        ({"num_players": 2, "colour": "red"}, "colour"),
    ],
)
def test_bad_keywords_are_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make("eightfold/otto_octopus-single-v0", **kwargs)


def test_an_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known"):
        make_env("chess")


def test_maskable_ppo_learns_through_the_made_env() -> None:
    """sb3-contrib reaches ``action_masks`` through Gymnasium's wrappers."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = gym.make("eightfold/over_and_out-single-v0", num_players=2, opponents=["heuristic"])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    masks = get_action_masks(model.get_env())
    assert masks.shape == (1, 12) and masks.any()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_view_renders_text_and_pictures(name: str) -> None:
    pytest.importorskip("PIL")
    for mode in ("ansi", "rgb_array"):
        env = gym.make(f"eightfold/{name}-single-v0", render_mode=mode, **TWO_PLAYERS[name])
        env.reset(seed=2)
        frame = env.render()
        if mode == "ansi":
            assert isinstance(frame, str) and frame
        else:
            assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
            assert frame.ndim == 3 and frame.shape[2] == 3
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'rgb_array'"):
        make_env(name, render_mode="human", **TWO_PLAYERS[name])
    # the id's entry point carries the view's metadata: Gymnasium wraps "human" itself
    env = gym.make(f"eightfold/{name}-single-v0", render_mode="human", **TWO_PLAYERS[name])
    assert type(env).__name__ == "HumanRendering" and env.unwrapped.render_mode == "rgb_array"


def test_sb3_make_vec_env_builds_the_view_in_worker_processes() -> None:
    """``make_vec_env(id, vec_env_cls=SubprocVecEnv)`` asks for ``render_mode="rgb_array"`` and
    makes the env in fresh processes, where the ``training:`` prefix imports the registration."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = make_vec_env(
        "training:eightfold/over_and_out-single-v0",
        n_envs=2,
        seed=0,
        env_kwargs={"num_players": 2, "opponents": ["heuristic"]},
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": "spawn"},
    )
    try:
        MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0).learn(64)
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (2, 12) and masks.any(axis=1).all()
    finally:
        venv.close()
