"""Train a masked PPO agent with Ray RLlib and measure env-steps/s (needs the ``rllib`` extra).

    python examples/rllib_train.py                                  # local, sampling in the driver
    python examples/rllib_train.py --num-env-runners 2              # two EnvRunner actors
    python examples/rllib_train.py --out runs/rl --resume --timesteps 40000   # continue a run
    ray start --head && python examples/rllib_train.py --address auto --num-env-runners 8

Like ``eightfold train over_and_out --backend rllib --param num_players=2 --opponents random``,
but with the SB3 trainer's default hyper-parameters (rollout 256 x 8 envs, minibatch 512, 4
epochs, MLP 256 x 256) instead of ``configs/over_and_out.yaml``; what it leaves unset keeps
RLlib's defaults (e.g. ``lambda_`` 1.0, ``clip_param`` 0.3, no entropy bonus). The README's
RLlib throughput numbers come from this script. The trained run is then played with ``eightfold play over_and_out --param num_players=2 --vs <run dir>``
(name the parameters it was trained with: ``play`` sets the game up from its own flags).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from envs.core.bots import RandomBot
from envs.core.registry import get_game
from training.params import int_at_least
from training.rllib.policy import RLlibPolicy
from training.rllib.train import add_backend_args, train_rllib


def win_rate_vs_random(run_dir: str, games: int, seed: int = 0) -> float:
    """Share of 2-player games the trained policy wins against random, seats alternating."""
    policy = RLlibPolicy.load(run_dir, deterministic=True)
    game, rng, wins = policy.game, np.random.default_rng(seed), 0
    opponent = RandomBot(game)
    for i in range(games):
        state, me = game.new_initial_state(rng), i % 2
        while not state.is_terminal():
            seat = state.current_player()
            player = policy if seat == me else opponent
            state.apply(player.act(state, seat, rng))
        wins += state.returns()[me] > 0
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("env", nargs="?", default="over_and_out")
    parser.add_argument("--timesteps", type=int_at_least(1), default=20_000)
    parser.add_argument("--opponents", default="random")
    parser.add_argument("--out", default=None)
    parser.add_argument(
        "--resume", action="store_true", help="continue the run in --out up to --timesteps (its own settings)"
    )
    parser.add_argument("--seed", type=int_at_least(0), default=0)
    parser.add_argument(
        "--games", type=int_at_least(0), default=200, help="evaluation games vs random (0 = none)"
    )
    add_backend_args(parser)
    args = parser.parse_args()
    if args.resume and args.out is None:
        parser.error("--resume continues the run in --out: name it")
    try:
        name = get_game(args.env).name
    except ValueError as exc:
        parser.error(str(exc))
    params = {"num_players": 2} if name == "over_and_out" else {}
    # The SB3 defaults of training/config.py: rollout 256 x 8 envs, minibatch 512, 4 epochs.
    config = {"n_steps": 256, "n_envs": 8, "batch_size": 512, "n_epochs": 4, "net_arch": [256, 256]}
    try:  # a bad setting (an unknown bot, too many runners) is named before Ray starts
        run_dir = train_rllib(args, params, config)
    except ValueError as exc:
        parser.error(str(exc))
    progress = json.loads((run_dir / "progress.json").read_text())
    print(f"env steps/s over the run: {progress[-1]['env_steps_per_s']:.0f}")
    if args.games and get_game(name).game_class()(**params).num_players == 2:
        rate = win_rate_vs_random(str(run_dir), args.games, seed=args.seed)  # the run's own seed
        print(f"win rate vs random: {rate:.1%} ({args.games} games)")


if __name__ == "__main__":
    main()
