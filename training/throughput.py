"""Learner throughput: env steps/s during ``MaskablePPO.learn()`` on an eightfold game, and
on PettingZoo ``connect_four_v3`` with the *same* MaskablePPO settings, measured in the same
run (alternating, best of ``repeats``), so the ratio holds on a busy machine.

    eightfold bench --learner over_and_out --param num_players=2 --timesteps 20000
    python -m training.throughput over_and_out --param num_players=2

Both sides: the game's training config (``configs/<game>.yaml``: n_envs, n_steps, batch,
epochs, network), ``DummyVecEnv``, random opponents, no callbacks. Connect Four's
observation is given the same kind of network: planes ``(2, 6, 7)`` for a CNN config, a
flat vector of 84 for an MLP one.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from training.config import TrainConfig, default_config_path, merge, read_yaml
from training.params import parse_params


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


def _learn_rate(cfg: TrainConfig, make: Any, timesteps: int, obs_shape: tuple[int, ...]) -> float:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.policies import policy_kwargs

    vec = DummyVecEnv([make] * cfg.n_envs)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate,
        ent_coef=cfg.ent_coef,
        policy_kwargs=policy_kwargs(obs_shape, cfg.net_arch, cfg.cnn_channels, cfg.features_dim),
        seed=cfg.seed,
        device="cpu",
    )
    t0 = time.perf_counter()
    model.learn(timesteps)
    rate = model.num_timesteps / (time.perf_counter() - t0)
    vec.close()
    return rate


def run_learner_bench(
    env: str, params: dict[str, Any], timesteps: int = 20_000, repeats: int = 2
) -> dict[str, Any]:
    """Steps/s of ``learn()`` on ``env`` and on connect_four_v3 (best of ``repeats`` each)."""
    import torch

    from envs.core.registry import get_game
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    torch.set_num_threads(1)
    entry = get_game(env)
    cfg = TrainConfig(env=entry.name)
    path = default_config_path(entry.name)
    if path is not None:
        cfg = merge(cfg, read_yaml(path), str(path))
    params = {**cfg.params, **params}
    game = entry.game_class()(**params)

    def make_game_env() -> gym.Env[Any, Any]:
        from envs.core.bots import RandomBot

        pool = OpponentPool(fallback=RandomBot(game)) if game.num_players > 1 else None
        return SingleAgentEnv(game, pool)

    planes = len(game.observation_shape) == 3
    ref_shape = (2, 6, 7) if planes else (84,)
    rates: dict[str, list[float]] = {"game": [], "ref": []}
    for _ in range(repeats):
        rates["ref"].append(_learn_rate(cfg, lambda: ConnectFourView(planes), timesteps, ref_shape))
        rates["game"].append(_learn_rate(cfg, make_game_env, timesteps, tuple(game.observation_shape)))
    best = {k: max(v) for k, v in rates.items()}
    return {
        "env": entry.env_id,
        "params": params,
        "timesteps": timesteps,
        "n_envs": cfg.n_envs,
        "network": "CNN" if planes else "MLP",
        "game_steps_per_s": round(best["game"], 1),
        "connect_four_steps_per_s": round(best["ref"], 1),
        "ratio": round(best["game"] / best["ref"], 3),
        "all": rates,
    }


def format_result(r: dict[str, Any]) -> str:
    return (
        f"learner throughput (MaskablePPO.learn, {r['n_envs']} envs, {r['network']}, {r['timesteps']:,} steps, "
        f"best of {len(r['all']['game'])}):\n"
        f"  {r['env']} {r['params']}: {r['game_steps_per_s']:,.0f} steps/s\n"
        f"  pettingzoo connect_four_v3 (same settings): {r['connect_four_steps_per_s']:,.0f} steps/s\n"
        f"  ratio: {r['ratio']:.2f}x"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("env")
    p.add_argument("--param", action="append", default=[])
    p.add_argument("--timesteps", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args(argv)
    print(format_result(run_learner_bench(args.env, parse_params(args.param), args.timesteps, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
