"""The envs inside the research ecosystem's own wrappers and vector envs (README "Use in
research code"): Gymnasium's wrappers and vector envs on the single-agent view
(``gymnasium.make("eightfold/<game>-single-v0")``), Stable-Baselines3's vector envs with
sb3-contrib's ``ActionMasker``, ``MaskablePPO``, its masked ``evaluate_policy`` and
``MaskableEvalCallback``, and PettingZoo's wrappers and conversions on the AEC envs, for
every game in its default config and one other declared config.

A bounded, seeded fuzz: random legal play (and, through ``env()``, a few illegal moves) with
the real libraries, no mocks. Each run checks what the libraries document for any env:
episode statistics that sum the rewards, the same seed giving the same episode through every
wrapper, ``env.unwrapped`` reaching the env, copies (``copy.deepcopy``, ``pickle``) taken
mid-game playing on identically and independently of their original, action masks reachable
through ``call("action_masks")`` / ``env_method("action_masks")``, ``env()`` playing exactly
like PettingZoo's three classic wrappers stacked on ``raw_env``, and ``aec_to_parallel``
refusing the envs that declare ``is_parallelizable=False`` before anything is built.

The tests at the end pin the defects this round found, fixed since: ``envs.<game>_v0.env``
could not be pickled (a spawned process pool pickles it), ``info["opponents"]`` was keyed by
int seats (Gymnasium's ``DictInfoToList`` crashed on them), ``gymnasium.make(...,
render_mode="rgb_array_list")`` was refused (the ids' entry point carried no ``metadata``),
and ``gymnasium.make(id, game=other)`` silently built the other game under the id.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import io
import pickle
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import FlattenObservation, NormalizeObservation, RecordEpisodeStatistics, TimeLimit
from pettingzoo.utils import wrappers as pz_wrappers
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import training  # noqa: F401  (registers eightfold/<game>-single-v0 with Gymnasium)
from training.single_agent import SingleAgentEnv

#: each game's default config and one other declared config
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("octi", {}),
    ("octi", {"variant": "x_fast"}),
    ("over_and_out", {}),
    ("over_and_out", {"num_players": 3, "reward_mode": "winner_only"}),
    ("otto_game_over", {}),
    ("otto_game_over", {"num_players": 4, "teams": True}),
    ("otto_octopus", {}),
    ("otto_octopus", {"num_players": 3, "open_game": True}),
]
IDS = [f"{g}-{'-'.join(f'{k}={v}' for k, v in c.items()) or 'default'}" for g, c in CONFIGS]


def _single(game: str) -> str:
    return f"eightfold/{game}-single-v0"


def _aec_module(game: str) -> Any:
    return importlib.import_module(f"envs.{game}_v0")


def _masks(env: gym.Env) -> np.ndarray:
    return np.asarray(env.get_wrapper_attr("action_masks")())


def _info(info: dict[str, Any]) -> str:
    """``info`` for comparing runs: RecordEpisodeStatistics' wall-clock time ``t`` left out."""
    if "episode" in info:
        info = {**info, "episode": {k: v for k, v in info["episode"].items() if k != "t"}}
    return repr(sorted(info.items()))


def _play_single(env: gym.Env, seed: int, steps: int, policy_seed: int = 1) -> list[Any]:
    """A seeded run of random legal moves, resetting (unseeded) after each episode."""
    rng = np.random.default_rng([policy_seed, 7])
    obs, info = env.reset(seed=seed)
    out: list[Any] = [(obs.tobytes(), _info(info))]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(_masks(env)))))
        out.append((obs.tobytes(), float(r), term, trunc, _info(info)))
        if term or trunc:
            obs, info = env.reset()
            out.append((obs.tobytes(), _info(info)))
    return out


def _play_aec(env: Any, policy_seed: int, cycles: int, illegal_p: float = 0.0) -> list[Any]:
    """Play on from where ``env`` is (random legal moves, a few illegal ones with ``illegal_p``),
    then one unseeded ``reset()``; everything observed along the way."""
    rng = np.random.default_rng([policy_seed, 11])
    out: list[Any] = []
    for agent in env.agent_iter(cycles):
        obs, reward, term, trunc, info = env.last()
        mask = obs["action_mask"]
        if term or trunc:
            action = None
        elif illegal_p and rng.random() < illegal_p and (mask == 0).any():
            action = int(rng.choice(np.flatnonzero(mask == 0)))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        out.append(
            (agent, obs["observation"].tobytes(), mask.tobytes(), reward, term, trunc, repr(info), action)
        )
        env.step(action)
    env.reset()
    obs, *_ = env.last()
    out.append(obs["observation"].tobytes())
    return out


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    from pettingzoo.utils.env_logger import EnvLogger

    was = EnvLogger._output
    EnvLogger.suppress_output()  # the illegal moves' warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        EnvLogger._output = was
        EnvLogger.flush()


# ------------------------------------------------------------------ Gymnasium, single-agent view


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_gymnasium_wrappers_fuzz(game: str, params: dict[str, Any]) -> None:
    """RecordEpisodeStatistics sums the view's rewards to its ``info["return"]``; TimeLimit,
    FlattenObservation and NormalizeObservation keep the view playing; the same seed gives the
    same run through the stack; ``unwrapped`` is the view; rgb_array frames keep one shape."""
    for seed in range(3):
        env = RecordEpisodeStatistics(gym.make(_single(game), **params))
        assert isinstance(env.unwrapped, SingleAgentEnv)
        rng = np.random.default_rng([seed, 3])
        env.reset(seed=seed)
        total, length = 0.0, 0
        for _ in range(3000):
            _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(_masks(env)))))
            total, length = total + float(r), length + 1
            if term or trunc:
                assert not (term and trunc)
                assert float(info["episode"]["r"]) == pytest.approx(total, abs=1e-6)
                assert int(info["episode"]["l"]) == length
                assert info["return"] == pytest.approx(total, abs=1e-5)
                assert info["outcome"] in ("win", "draw", "loss")
                break
        else:
            pytest.fail("no episode ended in 3000 learner steps")

    def stack() -> gym.Env:
        inner = gym.make(_single(game), render_mode="rgb_array", **params)
        return NormalizeObservation(FlattenObservation(TimeLimit(RecordEpisodeStatistics(inner), 25)))

    a, b = stack(), stack()
    size = int(np.prod(a.unwrapped.observation_space.shape))
    assert a.observation_space.shape == (size,)
    assert isinstance(a.unwrapped, SingleAgentEnv)
    run = _play_single(a, 11, 70)
    assert run == _play_single(b, 11, 70)
    assert a.observation_space.contains(a.reset(seed=1)[0].astype(a.observation_space.dtype))
    frames = {a.render().shape}
    for _ in range(5):
        a.step(int(np.flatnonzero(_masks(a))[0]))
        frames.add(a.render().shape)
        a.reset()
    assert len(frames) == 1 and next(iter(frames))[2] == 3


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_single_agent_copies_mid_game_play_on_identically_and_independently(
    game: str, params: dict[str, Any]
) -> None:
    env = TimeLimit(gym.make(_single(game), opponents=["random", "greedy"], **params), 500)
    _play_single(env, 5, 9)
    state = env.unwrapped.state.to_dict()
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    runs = []
    for c in copies:
        assert c.unwrapped is not env.unwrapped
        rng = np.random.default_rng(9)
        run = []
        for _ in range(50):
            obs, r, term, trunc, info = c.step(int(rng.choice(np.flatnonzero(_masks(c)))))
            run.append((obs.tobytes(), r, term, trunc, repr(sorted(info.items()))))
            if term or trunc:
                run.append(c.reset()[0].tobytes())
        runs.append(run)
    assert env.unwrapped.state.to_dict() == state  # the original did not move
    rng = np.random.default_rng(9)
    mine = []
    for _ in range(50):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(_masks(env)))))
        mine.append((obs.tobytes(), r, term, trunc, repr(sorted(info.items()))))
        if term or trunc:
            mine.append(env.reset()[0].tobytes())
    assert runs[0] == runs[1] == mine


def _vector_run(venv: Any, seed: int, steps: int) -> list[Any]:
    rng = np.random.default_rng([seed, 5])
    obs, _ = venv.reset(seed=seed)
    out: list[Any] = [obs.tobytes()]
    for _ in range(steps):
        masks = np.stack(venv.call("action_masks"))
        assert masks.shape == (venv.num_envs, venv.single_action_space.n) and masks.any(axis=1).all()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        obs, r, term, trunc, _ = venv.step(actions)
        out.append((obs.tobytes(), r.tobytes(), term.tobytes(), trunc.tobytes()))
    venv.close()
    return out


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_sync_vector_env_reaches_masks_and_repeats_with_its_seed(game: str, params: dict[str, Any]) -> None:
    fns = [functools.partial(gym.make, _single(game), **params) for _ in range(2)]
    first = _vector_run(gym.vector.SyncVectorEnv(fns), 4, 40)
    assert first == _vector_run(gym.vector.SyncVectorEnv(fns), 4, 40)


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_async_vector_env_factories_pickle_and_play_like_sync(context: str) -> None:
    """The factory travels to the workers (``spawn``: pickled, with ``training:`` importing
    the registration there); the workers play exactly what SyncVectorEnv plays."""
    game, params = (
        ("over_and_out", {"num_players": 3}) if context == "fork" else ("octi", {"variant": "x_fast"})
    )
    fns = [functools.partial(gym.make, "training:" + _single(game), **params) for _ in range(2)]
    sync = _vector_run(gym.vector.SyncVectorEnv(fns), 2, 30)
    assert _vector_run(gym.vector.AsyncVectorEnv(fns, context=context), 2, 30) == sync


# ------------------------------------------------------------------------ Stable-Baselines3


def _masked_monitor(env_id: str, **params: Any) -> gym.Env:
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.monitor import Monitor

    return ActionMasker(Monitor(gym.make(env_id, **params)), lambda e: e.unwrapped.action_masks())


def _sb3_pipeline(
    game: str, params: dict[str, Any], vec_cls: Any, masker: bool, **vec_kwargs: Any
) -> list[float]:
    """MaskablePPO (128 steps) on ``VecNormalize(VecMonitor(vec_cls(2 envs)))`` with a
    ``MaskableEvalCallback``, then sb3-contrib's ``evaluate_policy(use_masking=True)``; the
    weights. Without ``masker`` the workers' factory is ``gym.make`` alone (sb3-contrib then
    finds ``action_masks`` through Gymnasium's wrappers)."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor, VecNormalize

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small networks (README); put back in the end
    env_id = "training:" + _single(game)
    make = _masked_monitor if masker else gym.make
    venv = VecNormalize(
        VecMonitor(vec_cls([functools.partial(make, env_id, **params) for _ in range(2)], **vec_kwargs)),
        norm_reward=False,
    )
    eval_env = VecNormalize(
        VecMonitor(DummyVecEnv([functools.partial(_masked_monitor, env_id, **params)])),
        training=False,
        norm_reward=False,
    )
    try:
        venv.seed(0)
        model = MaskablePPO(
            "MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [16]}
        )
        callback = MaskableEvalCallback(eval_env, n_eval_episodes=1, eval_freq=64, warn=False)
        model.learn(128, callback=callback)
        masks = get_action_masks(venv)
        assert masks.shape == (2, venv.action_space.n) and masks.any(axis=1).all()
        assert callback.n_calls > 0 and np.isfinite(callback.last_mean_reward)
        rewards, lengths = evaluate_policy(
            model, eval_env, n_eval_episodes=2, use_masking=True, return_episode_rewards=True
        )
        assert len(rewards) == len(lengths) == 2
        assert all(-1.0 - 1e-6 <= r <= 1.0 + 1e-6 for r in rewards)
        return [float(p.detach().abs().sum()) for p in model.policy.parameters()]
    finally:
        venv.close()
        eval_env.close()
        torch.set_num_threads(threads)


@pytest.mark.parametrize(("game", "params"), CONFIGS[::2], ids=IDS[::2])
def test_sb3_dummy_vec_env_masked_ppo_eval_and_callback(game: str, params: dict[str, Any]) -> None:
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.vec_env import DummyVecEnv

    assert all(np.isfinite(_sb3_pipeline(game, params, DummyVecEnv, masker=True)))


def test_sb3_subproc_vec_env_spawn_trains_like_dummy() -> None:
    """The same seed, the same weights: in worker processes (``spawn``) as in this one."""
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    params = {"num_players": 3, "reward_mode": "winner_only"}
    subproc = _sb3_pipeline("over_and_out", params, SubprocVecEnv, masker=False, start_method="spawn")
    assert subproc == _sb3_pipeline("over_and_out", params, DummyVecEnv, masker=True)


# ----------------------------------------------------------------------- PettingZoo, AEC env


def _pz_stack(module: Any, params: dict[str, Any]) -> Any:
    raw = module.raw_env(**params)
    return pz_wrappers.OrderEnforcingWrapper(
        pz_wrappers.AssertOutOfBoundsWrapper(pz_wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1))
    )


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_pettingzoo_wrappers_fuzz(game: str, params: dict[str, Any]) -> None:
    """``env()`` plays exactly like PettingZoo's three classic wrappers on ``raw_env``, also
    wrapped again in ``BaseWrapper`` / ``TerminateIllegalWrapper`` / ``OrderEnforcingWrapper``,
    illegal moves included (README: an illegal action ends the game, -1 to the mover); the same
    seed gives the same game; ``unwrapped`` is the raw env through every layer."""
    module = _aec_module(game)
    layers = [
        lambda e: e,
        pz_wrappers.BaseWrapper,
        lambda e: pz_wrappers.TerminateIllegalWrapper(e, illegal_reward=-1),
        pz_wrappers.OrderEnforcingWrapper,
    ]
    for seed in range(4):
        ref = _pz_stack(module, params)
        ref.reset(seed=seed)
        expected = _play_aec(ref, seed, 400, illegal_p=0.03)
        wrapped = layers[seed](module.env(**params))
        assert isinstance(wrapped.unwrapped, module.raw_env)
        wrapped.reset(seed=seed)
        assert _play_aec(wrapped, seed, 400, illegal_p=0.03) == expected


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_aec_copies_mid_game_play_on_identically_and_independently(game: str, params: dict[str, Any]) -> None:
    module = _aec_module(game)
    for make in (module.env, module.raw_env, lambda **p: _pz_stack(module, p)):
        env = make(**params)
        env.reset(seed=9)
        rng = np.random.default_rng(3)
        for _ in range(12):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if not env.agents:
                break
        state = env.unwrapped.state.to_dict()
        twin = copy.deepcopy(env)
        runs = [_play_aec(c, 4, 300) for c in (copy.deepcopy(env), pickle.loads(pickle.dumps(env)))]
        assert env.unwrapped.state.to_dict() == state  # the original did not move
        assert runs[0] == runs[1] == _play_aec(twin, 4, 300)


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=IDS)
def test_capture_stdout_and_the_parallel_conversions(game: str, params: dict[str, Any]) -> None:
    module = _aec_module(game)
    modes = module.raw_env.metadata["render_modes"]
    kept = list(modes)
    try:
        # PettingZoo's wrapper appends "ansi" to the env's metadata, which is the class's dict
        # (PettingZoo's own envs alike): put it back for the other tests of this process
        captured = pz_wrappers.CaptureStdoutWrapper(module.env(render_mode="human", **params))
    finally:
        modes[:] = kept
    with contextlib.redirect_stdout(io.StringIO()):
        captured.reset(seed=0)
    text = captured.render()
    reference = module.env(render_mode="ansi", **params)
    reference.reset(seed=0)
    assert captured.render_mode == "ansi"
    assert isinstance(text, str) and text.rstrip("\n") == reference.render().rstrip("\n")
    # declared not parallelizable: aec_to_parallel refuses at once
    assert module.raw_env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(module.env(**params))
    # the turn-based conversion (README's recipe for the seat to move) plays a game
    par = turn_based_aec_to_parallel(module.env(**params))
    par.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(150):
        if not par.agents:
            break
        mover = par.aec_env.agent_selection
        mask = par.aec_env.observe(mover)["action_mask"]
        actions = dict.fromkeys(par.agents, 0)
        if mask.any():
            actions[mover] = int(rng.choice(np.flatnonzero(mask)))
        par.step(actions)
    assert isinstance(par.unwrapped, module.raw_env)


# ------------------------------------------------------------------------------------ defects


@pytest.mark.parametrize("game", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
def test_the_aec_env_factory_pickles_like_pettingzoos_own(game: str) -> None:
    """PettingZoo's classic envs expose ``env`` as a module-level function, so
    ``ProcessPoolExecutor(mp_context=spawn).submit(play, connect_four_v3.env)`` works; the
    README's ``from envs import octi_v0; env = octi_v0.env(...)`` factory should travel the
    same way (``raw_env``, a module-level class, does)."""
    module = _aec_module(game)
    assert pickle.loads(pickle.dumps(module.raw_env)) is module.raw_env
    factory = pickle.loads(pickle.dumps(functools.partial(module.env)))
    env = factory()
    env.reset(seed=0)
    assert isinstance(env.unwrapped, module.raw_env)


@pytest.mark.parametrize(("game", "params"), CONFIGS[::2], ids=IDS[::2])
def test_gymnasium_dict_info_to_list_reads_the_views_infos(game: str, params: dict[str, Any]) -> None:
    """docs/CHECKS.md lists "the vector wrappers on the single-agent view" as working; Gymnasium's
    ``DictInfoToList`` (``gymnasium.wrappers.vector``) turns the batched infos back into one dict
    per env, and every key of an info (nested ones included) should be a string."""
    from gymnasium.wrappers.vector import DictInfoToList

    venv = DictInfoToList(gym.make_vec(_single(game), num_envs=2, vectorization_mode="sync", **params))
    _, infos = venv.reset(seed=0)
    assert len(infos) == 2
    players = venv.unwrapped.envs[0].unwrapped.game.num_players
    for info in infos:
        assert len(info["opponents"]) == players - 1  # every other seat named
        assert all(isinstance(k, str) for k in info["opponents"])
    venv.close()


@pytest.mark.parametrize(("game", "params"), CONFIGS[1::2], ids=IDS[1::2])
def test_gymnasium_make_applies_render_collection_for_rgb_array_list(
    game: str, params: dict[str, Any]
) -> None:
    """Gymnasium (``Env.render``'s doc): "rgb_array_list" and "ansi_list" ... through the wrapper
    RenderCollection that is automatically applied during gymnasium.make(...,
    render_mode="rgb_array_list")". The view renders "rgb_array" (README)."""
    pytest.importorskip("PIL")
    env = gym.make(_single(game), render_mode="rgb_array_list", **params)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(_masks(env))[0]))
    frames = env.render()
    assert isinstance(frames, list) and len(frames) == 2
    assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)


@pytest.mark.parametrize(("game", "other"), [("octi", "over_and_out"), ("otto_octopus", "otto_game_over")])
def test_a_single_agent_id_keeps_its_game(game: str, other: str) -> None:
    """README: the ids' keywords are "the opponents' specs ..., ``seat``, ``partner``,
    ``shaping`` and the game's parameters"; any other keyword is refused by name
    (``tests/training/test_gym_make.py``). ``game`` is none of them: it must not turn the
    id into another game."""
    try:
        env = gym.make(_single(game), game=other)
    except ValueError as err:
        assert "game" in str(err)
    else:
        assert env.unwrapped.game.name == game, (env.spec.id, env.unwrapped.game.name)
