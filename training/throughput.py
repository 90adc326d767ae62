"""Learner throughput: env steps/s during ``MaskablePPO.learn()`` on an eightfold game, and
on PettingZoo ``connect_four_v3`` with the *same* MaskablePPO settings, measured in the same
run (alternating, best of ``repeats``), so the ratio holds on a busy machine.

Two more numbers say whether the env or the network limits a game's rate:

- **env share**: the fraction of ``learn()`` wall time spent inside the env (``reset``,
  ``step`` with the opponents' moves, ``action_masks``), timed by a wrapper on each side;
- **null-env ceiling**: ``learn()`` on an env that costs nothing (it replays
  ``NULL_RECORDED`` observations and masks recorded from random play in the game, episodes of
  ``NULL_EPISODE`` steps) with the game's own observation and action spaces, i.e. the rate the
  network and PPO alone allow. ``game / ceiling`` is the part of that rate the env keeps. A
  game with wide observations or a wide action head (OTTO Game Over: 1,013 inputs, 5,228
  logits) is slower than Connect Four's 84 and 7 whatever the env costs.

    eightfold bench --learner over_and_out --param num_players=2 --timesteps 20000
    python -m training.throughput over_and_out --param num_players=2

Both sides: the game's training config (``configs/<game>.yaml``: n_envs, the PPO settings,
network, ``policy``: :class:`training.policies.MaskedPolicy` unless ``--policy sb3``,
``torch_threads``), ``DummyVecEnv``, random opponents, no callbacks; ``--set`` changes any of
these (:data:`BENCH_OPTIONS`) and refuses the options the benchmark does not use. Connect Four's
observation is given the same kind of network: planes ``(2, 6, 7)`` for a CNN config, a
flat vector of 84 for an MLP one.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from training.config import PPO_KWARGS, TrainConfig, default_config_path, merge, read_yaml
from training.params import int_at_least, parse_params


class ConnectFourView(gym.Env[np.ndarray, np.int64]):
    """connect_four_v3 for one learner seat against a uniformly random opponent."""

    def __init__(self, planes: bool) -> None:
        from pettingzoo.classic import connect_four_v3

        self.aec = connect_four_v3.env()
        self.planes = planes
        shape = (2, 6, 7) if planes else (84,)
        self.observation_space = spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)
        self.action_space = spaces.Discrete(7)
        self._rng = np.random.default_rng()
        self.me = "player_0"

    def _obs(self) -> np.ndarray:
        raw: np.ndarray = self.aec.observe(self.me)["observation"].astype(np.float32)
        return raw.transpose(2, 0, 1).copy() if self.planes else raw.reshape(-1)

    def action_masks(self) -> np.ndarray:
        mask: np.ndarray = self.aec.observe(self.me)["action_mask"].astype(bool)
        return mask

    def _opponent(self) -> None:
        while self.aec.agents and self.aec.agent_selection != self.me:
            _o, _r, term, trunc, _i = self.aec.last()
            if term or trunc:
                return
            legal = np.flatnonzero(self.aec.observe(self.aec.agent_selection)["action_mask"])
            self.aec.step(int(legal[self._rng.integers(legal.size)]))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.aec.reset(seed=int(self._rng.integers(2**31)))
        self.me = self.aec.possible_agents[int(self._rng.integers(2))]
        self._opponent()
        return self._obs(), {}

    def step(self, action: Any) -> Any:
        self.aec.step(int(action))
        self._opponent()
        done = any(self.aec.terminations.values()) or any(self.aec.truncations.values())
        reward = float(self.aec._cumulative_rewards.get(self.me, 0.0)) if done else 0.0
        return self._obs(), reward, done, False, {}


#: the options of a training config the benchmark uses (``--set`` takes these only)
BENCH_OPTIONS = (
    *PPO_KWARGS,
    "n_envs",
    "net_arch",
    "vf_arch",
    "cnn_channels",
    "features_dim",
    "policy",
    "seed",
    "torch_threads",
    "params",
)

#: decisions of random play the null env replays (the game's own observations and masks)
NULL_RECORDED = 1024

#: episode length of :class:`NullView`
NULL_EPISODE = 100


class NullView(gym.Env[np.ndarray, np.int64]):
    """An env that costs nothing, with a game's spaces. Given one observation and mask it
    repeats them; given lists (recorded from the game) it replays them in turn, one pair per
    step and cycling, so the network sees the game's real masks (how many actions are legal
    matters to :class:`~training.policies.MaskedPolicy`) at no cost. A seeded reset starts at
    a place drawn from the seed: the vectorised copies (seeds ``s``, ``s + 1``, ...) replay
    different stretches, as independent games would, not neighbouring decisions of one game."""

    def __init__(
        self, obs: np.ndarray | Sequence[np.ndarray], mask: np.ndarray | Sequence[np.ndarray], n_actions: int
    ) -> None:
        many = isinstance(obs, (list, tuple))
        self._obs = np.stack(list(obs)) if many else np.asarray(obs)[None]
        self._obs = self._obs.astype(np.float32)
        self._masks = (np.stack(list(mask)) if many else np.asarray(mask)[None]).astype(bool)
        if len(self._obs) != len(self._masks) or len(self._obs) == 0:
            raise ValueError(
                f"NullView needs as many observations as masks (>= 1), got {len(self._obs)} and {len(self._masks)}"
            )
        # bounded by what it replays (the network never reads the bounds of a flat Box)
        lo, hi = float(self._obs.min()), float(self._obs.max())
        self.observation_space = spaces.Box(lo, hi, shape=self._obs.shape[1:], dtype=np.float32)
        self.action_space = spaces.Discrete(n_actions)
        self._t = 0
        self._i = 0

    def action_masks(self) -> np.ndarray:
        out: np.ndarray = self._masks[self._i]
        return out

    def _next(self) -> np.ndarray:
        self._i = (self._i + 1) % len(self._obs)
        return self._observation()

    def _observation(self) -> np.ndarray:
        # a fresh array per call, as an env must return (gymnasium >= 1.4's check_env tests that
        # two calls share no data): the least a real env's observation costs too
        out: np.ndarray = self._obs[self._i].copy()
        return out

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self._t = 0
        if seed is not None:  # a seeded reset starts at a place drawn from the seed
            self._i = int(self.np_random.integers(len(self._obs)))
            return self._observation(), {}
        return self._next(), {}

    def step(self, action: Any) -> Any:
        self._t += 1
        done = self._t >= NULL_EPISODE
        return self._next(), (1.0 if done else 0.0), done, False, {}


def record_decisions(env: Any, count: int, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``count`` (observation, mask) pairs of the learner's decisions in ``env`` (a
    single-agent view) under uniformly random legal play, for :class:`NullView`."""
    rng = np.random.default_rng(seed)
    obs_list: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    obs, _ = env.reset(seed=seed)
    while len(obs_list) < count:
        mask = np.asarray(env.action_masks(), dtype=bool)
        obs_list.append(np.asarray(obs))
        masks.append(mask)
        obs, _r, term, trunc, _i = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset()
    return obs_list, masks


class Timed(gym.Wrapper[Any, Any, Any, Any]):
    """Adds the wall time spent in ``reset``, ``step`` and ``action_masks`` to ``clock[0]``."""

    def __init__(self, env: gym.Env[Any, Any], clock: list[float]) -> None:
        super().__init__(env)
        self.clock = clock

    def action_masks(self) -> np.ndarray:
        t = time.perf_counter()
        mask: np.ndarray = self.env.action_masks()  # type: ignore[attr-defined]
        self.clock[0] += time.perf_counter() - t
        return mask

    def reset(self, **kwargs: Any) -> Any:
        t = time.perf_counter()
        out = self.env.reset(**kwargs)
        self.clock[0] += time.perf_counter() - t
        return out

    def step(self, action: Any) -> Any:
        t = time.perf_counter()
        out = self.env.step(action)
        self.clock[0] += time.perf_counter() - t
        return out


def _learn_rate(
    cfg: TrainConfig, make: Any, timesteps: int, obs_shape: tuple[int, ...]
) -> tuple[float, float]:
    """(steps/s of ``learn()``, fraction of its wall time spent in the envs)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.policies import algorithm_kwargs, policy_class, policy_kwargs

    clock = [0.0]
    vec = DummyVecEnv([lambda: Timed(make(), clock)] * cfg.n_envs)
    model = MaskablePPO(
        policy_class(cfg.policy),
        vec,
        **cfg.ppo_kwargs(),
        **algorithm_kwargs(cfg.policy),
        policy_kwargs=policy_kwargs(obs_shape, cfg.net_arch, cfg.cnn_channels, cfg.features_dim, cfg.vf_arch),
        seed=cfg.seed,
        device="cpu",
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-<time> folder in /tmp
    clock[0] = 0.0
    t0 = time.perf_counter()
    model.learn(timesteps)
    wall = time.perf_counter() - t0
    vec.close()
    return model.num_timesteps / wall, clock[0] / wall


def run_learner_bench(
    env: str,
    params: dict[str, Any],
    timesteps: int = 20_000,
    repeats: int = 2,
    policy: str | None = None,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Steps/s of ``learn()`` on ``env`` and on connect_four_v3 (best of ``repeats`` each);
    ``policy`` (``"masked"`` or ``"sb3"``) replaces the config's, and ``settings`` (``--set``)
    any of its training options (``net_arch``, ``n_envs``, ...) for both rows."""
    from training.bench import check_count

    check_count("timesteps", timesteps, 1)
    check_count("repeats", repeats, 1)
    for name, value in (("params", params), ("settings", settings)):
        if value is not None and not isinstance(value, dict):
            raise ValueError(
                f"{name} must be a dict of option=value (parse_params(['k=v', ...]) builds one), got {value!r}"
            )
    import torch

    from envs.core.registry import get_game
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    entry = get_game(env)
    cfg = TrainConfig(env=entry.name)
    path = default_config_path(entry.name)
    if path is not None:
        cfg = merge(cfg, read_yaml(path), str(path))
    if policy is not None:
        cfg = merge(cfg, {"policy": policy}, "--policy")
    if settings:
        cfg = merge(cfg, settings, "--set")  # an unknown option is refused here
        unused = sorted(set(settings) - set(BENCH_OPTIONS))
        if unused:
            raise ValueError(
                f"--set {', '.join(unused)}: not used by the learner benchmark (random opponents, DummyVecEnv, "
                f"no warm start, evaluation or checkpoints); it takes {list(BENCH_OPTIONS)}"
            )
    cfg.validate()
    torch.set_num_threads(cfg.torch_threads)  # the config's, as eightfold train sets it
    params = {**cfg.params, **params}
    game = entry.game_class()(**params)
    from training.bench import reference_runner

    if reference_runner() is None:  # the reference row: PettingZoo classic imports pygame
        raise ValueError(
            "--learner measures against PettingZoo's connect_four_v3, which needs pygame (not importable here): "
            "pip install pygame (or eightfold[train])"
        )

    def make_game_env() -> gym.Env[Any, Any]:
        from envs.core.bots import RandomBot

        pool = OpponentPool(fallback=RandomBot(game)) if game.num_players > 1 else None
        return SingleAgentEnv(game, pool)

    probe = make_game_env()
    n_actions = int(probe.action_space.n)  # type: ignore[attr-defined]
    recorded = record_decisions(probe, NULL_RECORDED)

    def make_null_env() -> gym.Env[Any, Any]:
        return NullView(*recorded, n_actions)

    planes = len(game.observation_shape) == 3
    ref_shape = (2, 6, 7) if planes else (84,)
    shape = tuple(game.observation_shape)
    rates: dict[str, list[float]] = {"game": [], "ref": [], "null": []}
    shares: dict[str, list[float]] = {"game": [], "ref": [], "null": []}
    for _ in range(repeats):
        for key, make, obs_shape in (
            ("ref", lambda: ConnectFourView(planes), ref_shape),
            ("game", make_game_env, shape),
            ("null", make_null_env, shape),
        ):
            rate, share = _learn_rate(cfg, make, timesteps, obs_shape)
            rates[key].append(rate)
            shares[key].append(share)
    best = {k: max(v) for k, v in rates.items()}
    # the env share of the repeat whose rate is reported
    share_of_best = {k: shares[k][rates[k].index(best[k])] for k in rates}
    return {
        "env": entry.env_id,
        "params": params,
        "timesteps": timesteps,
        # learn() runs whole rollouts: the steps each measurement ran
        "steps_run": -(-timesteps // (cfg.n_steps * cfg.n_envs)) * cfg.n_steps * cfg.n_envs,
        "n_envs": cfg.n_envs,
        "network": "CNN" if planes else "MLP",
        "cnn_channels": list(cfg.cnn_channels) if planes else None,
        "policy": cfg.policy,
        "net_arch": list(cfg.net_arch),
        "vf_arch": None if cfg.vf_arch is None else list(cfg.vf_arch),
        "game_steps_per_s": round(best["game"], 1),
        "connect_four_steps_per_s": round(best["ref"], 1),
        "ratio": round(best["game"] / best["ref"], 3),
        "null_env_steps_per_s": round(best["null"], 1),
        "ratio_to_null_env": round(best["game"] / best["null"], 3),
        "game_env_share": round(share_of_best["game"], 3),
        "connect_four_env_share": round(share_of_best["ref"], 3),
        "n_actions": n_actions,
        "all": rates,
        "env_shares": shares,
    }


def format_result(r: dict[str, Any]) -> str:
    return (
        f"learner throughput (MaskablePPO.learn, {r['policy']} policy, {r['n_envs']} envs, "
        + (f"CNN {r['cnn_channels']} then " if r.get("cnn_channels") else "")
        + f"{'MLP ' if not r.get('cnn_channels') else 'head '}{'x'.join(map(str, r['net_arch'])) or '(no hidden layers)'}"
        + (
            f" (critic {'x'.join(map(str, r['vf_arch'])) or 'linear'})"
            if r.get("vf_arch") is not None
            else ""
        )
        + ", "
        f"{r.get('steps_run', r['timesteps']):,} steps, "
        f"best of {len(r['all']['game'])}):\n"
        f"  {r['env']} {r['params']}: {r['game_steps_per_s']:,.0f} steps/s "
        f"({r['game_env_share']:.0%} of learn() time in the env)\n"
        f"  pettingzoo connect_four_v3 (same settings): {r['connect_four_steps_per_s']:,.0f} steps/s "
        f"({r['connect_four_env_share']:.0%} in the env)\n"
        f"  ratio: {r['ratio']:.2f}x\n"
        f"  null-env ceiling (same spaces: {r['n_actions']:,} actions, an env that costs nothing): "
        f"{r['null_env_steps_per_s']:,.0f} steps/s; the game keeps {r['ratio_to_null_env']:.2f}x of it"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("env")
    p.add_argument("--param", action="append", default=[])
    p.add_argument("--timesteps", type=int_at_least(1), default=20_000)
    p.add_argument("--repeats", type=int_at_least(1), default=2)
    p.add_argument("--policy", default=None, help="masked or sb3 (default: the config's)")
    p.add_argument("--set", action="append", default=[], metavar="K=V", help="any training option")
    args = p.parse_args(argv)
    try:
        result = run_learner_bench(
            args.env,
            parse_params(args.param),
            args.timesteps,
            args.repeats,
            args.policy,
            parse_params(args.set, flag="--set"),
        )
    except ValueError as exc:
        print(f"training.throughput: error: {exc}", file=sys.stderr)
        return 2
    print(format_result(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
