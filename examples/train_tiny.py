"""Train a tiny MaskablePPO agent on Over and Out (2 players) in about a minute, then
measure it against the random bot - the training layer used as a library.

    python examples/train_tiny.py            # writes runs/tiny/
"""

from __future__ import annotations

import argparse

from training.config import TrainConfig
from training.evaluate import format_table, run_tournament
from training.train import train


def main() -> None:
    cfg = TrainConfig(
        env="over_and_out",
        params={"num_players": 2},
        timesteps=30_000,
        out="runs/tiny",
        n_envs=4,
        opponents={"random": 1.0, "self": 1.0},
        net_arch=[64, 64],
        eval_every=10_000,
        eval_games=20,
        eval_opponents=["random"],
        snapshot_every=10_000,
    )
    out = train(cfg)
    result = run_tournament(cfg.env, cfg.params, [str(out / "model.zip"), "random"], games=200, workers=1)
    print(format_table(result))


if __name__ == "__main__":
    # no options: --help prints this, anything else is a usage error (exit 2), not a minute of training
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
