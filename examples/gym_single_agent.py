"""Your own MaskablePPO on an eightfold game through Gymnasium's registry, without
``eightfold train``: the single-agent view by its id, vectorised in worker processes,
then judged with sb3-contrib's masked ``evaluate_policy``.

    python examples/gym_single_agent.py                      # Otto the Octopus, 2 players
    python examples/gym_single_agent.py over_and_out 20000   # game, PPO steps
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import training  # noqa: F401  (registers eightfold/<game>-single-v0 in this process)


def main(game: str = "otto_octopus", steps: int = 4_096) -> None:
    params: dict[str, Any] = {} if game == "octi" else {"num_players": 2}
    kwargs = {"opponents": ["random"], **params}
    # "training:" makes each worker process import the registration before gymnasium.make
    venv = make_vec_env(
        f"training:eightfold/{game}-single-v0",
        n_envs=2,
        seed=0,
        env_kwargs=kwargs,
        vec_env_cls=SubprocVecEnv,
    )
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=128, seed=0, verbose=0)
    model.learn(steps)
    venv.close()

    # a seeded, monitored env; one learner episode is one game, its rewards sum to the final return
    env = make_vec_env(f"eightfold/{game}-single-v0", n_envs=1, seed=1, env_kwargs=kwargs)
    returns, _ = evaluate_policy(model, env, n_eval_episodes=40, return_episode_rewards=True)
    wins = int(np.sum(np.asarray(returns) > 0))
    print(f"{game}: {steps} PPO steps; against random over 40 games: win rate {wins / 40:.2f}")


if __name__ == "__main__":
    from envs.core.registry import get_game

    try:  # an unknown game or a bad step count is named, without a traceback (exit 2)
        if len(sys.argv) > 3:
            raise ValueError(f"expected [game] [steps], got {len(sys.argv) - 1} arguments")
        name = get_game(sys.argv[1] if len(sys.argv) > 1 else "otto_octopus").name
        text = sys.argv[2] if len(sys.argv) > 2 else "4096"
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            raise ValueError(f"steps must be an integer >= 1, got {text!r}")
    except ValueError as exc:
        print(f"gym_single_agent.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    main(name, int(text))
