"""``eightfold train`` over its option matrix, actually running (README "Command line",
``configs/<game>.yaml``, ``training/train.py``'s docstring).

A seeded draw of tiny runs (one or two PPO rollouts of 32 steps per env, a network of 8 units)
over every game, variant and player count (2v2, solo, 3-8 players), the opponents (bots,
``self``, weighted mixes, ``mcts`` with a few simulations, a saved model of an earlier run),
``--n-envs`` 1-3, ``vec_env`` dummy/subproc, ``--config`` files, ``--resume`` after a
finished run, and ``--set`` of the documented fields. Each run must exit 0 and leave what
``training/train.py``'s docstring lists (``config.yaml``, ``model.zip``, ``monitor/``,
``eval.jsonl``, ``checkpoints/``, ``pool/``, ``tb/``, ``final_eval.json``/``.png``, ...); the
saved model must play ``eightfold eval --players <model> random --games 2``; the resolved
``config.yaml`` must read back to itself; ``--resume`` must reach the new ``--timesteps``.

The fuzzing round behind it (about 100 runs in subprocesses, SIGINT and SIGKILL included) found
no defect; the wider matrix is ``test_train_matrix_wide`` (``@pytest.mark.slow``).
"""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from training.cli import main
from training.config import TrainConfig, merge, read_yaml

#: one rollout of n_envs x 32 steps, a network of 8 units, 2-game evaluations against random
TINY = [
    "--no-progress", "--set", "n_steps=32", "--set", "batch_size=32", "--set", "n_epochs=1",
    "--set", "net_arch=[8]", "--set", "eval_workers=1", "--set", "torch_threads=1",
    "--set", "pretrain_samples=0", "--set", 'eval_opponents=["random"]', "--set", "eval_games=2",
]  # fmt: skip
#: Octi's CNN made small too
OCTI_NET = ["--set", "cnn_channels=[4]", "--set", "features_dim=16"]

#: game -> the parameter sets drawn (variants, player counts, 2v2, solo), each cheap to play
CONFIGS: dict[str, list[list[str]]] = {
    "octi": [
        ["--variant", "basic", "--param", "max_turns=20"],
        ["--variant", "x_fast", "--param", "max_turns=15"],
        ["--variant", "x_classic", "--param", "max_turns=15", "--param", "allow_reposition=true"],
    ],
    "over_and_out": [
        ["--param", "num_players=2"],
        ["--param", "num_players=3", "--param", "minus10_rule=lose_below_zero"],
        ["--param", "num_players=6", "--param", "reward_mode=winner_only"],
    ],
    "otto_game_over": [
        ["--param", "num_players=2", "--param", "episode=match"],
        ["--param", "num_players=4", "--param", "teams=true", "--param", "episode=match"],
        ["--param", "num_players=1"],
    ],
    "otto_octopus": [
        ["--param", "num_players=1"],
        ["--param", "num_players=3", "--param", "open_game=true"],
        ["--param", "num_players=4", "--param", "simplified=true", "--param", "max_steps=80"],
    ],
}
#: opponents as the command line gives them (a flag, or a --set mapping of weights)
OPPONENTS = [
    ["--opponents", "random"],
    ["--opponents", "random,self"],
    ["--opponents", "random,mcts:sims=2,c=0.5"],
    ["--opponents", "random,random,greedy"],
    ["--set", 'opponents={"random": 1, "self": 3}'],
    ["--set", 'opponents={"greedy": 0.5, "random": 2}'],
]
#: documented fields with valid values (one or two drawn per run)
SETTINGS = [
    "snapshot_every=32", "pool_size=1", "latest_prob=1.0", "shaping=0.5", "vf_arch=[4,4]", "net_arch=[]",
    "policy=sb3", "gamma=1.0", "gae_lambda=0.0", "ent_coef=0", "clip_range=0.1", "learning_rate=0.001",
    "seed=4294967295", "n_epochs=2", "batch_size=16", "max_grad_norm=1.0", "vf_coef=0",
]  # fmt: skip


def _players(params: list[str]) -> int:
    for item in params:
        if item.startswith("num_players="):
            return int(item.split("=")[1])
    return 2


def draw_run(rng: random.Random, game: str | None = None) -> dict[str, Any]:
    """One seeded run of the matrix: the command's arguments and what its folder must hold."""
    game = game or rng.choice(sorted(CONFIGS))
    params = rng.choice(CONFIGS[game])
    n = _players(params)
    steps = rng.choice([64, 128])
    n_envs = rng.choice([1, 2])
    opponents = rng.choice(OPPONENTS)
    every = rng.choice([32, 64, 0])
    args = [game, *params, "--timesteps", str(steps), "--n-envs", str(n_envs), *TINY, *opponents]
    args += OCTI_NET if game == "octi" else []
    args += [
        "--eval-every",
        str(every),
        "--set",
        "checkpoint_every=32",
        "--eval-games",
        rng.choice(["0", "2"]),
    ]
    settings = rng.sample(SETTINGS, rng.randint(1, 2))
    if n > 1:
        settings.append(f"seat={rng.randrange(n)}")
    if n == 4 and "teams=true" in params:
        settings.append(f"partner={rng.choice(['self', 'random', 'heuristic'])}")
    for item in settings:
        args += ["--set", item]
    return {
        "game": game,
        "params": params,
        "args": args,
        "steps": steps,
        "every": every,
        "settings": settings,
    }


def model_steps(path: Path) -> int:
    with zipfile.ZipFile(path) as z:
        return int(json.loads(z.read("data"))["num_timesteps"])


def check_run(run: dict[str, Any], out: Path) -> None:
    """What ``training/train.py``'s docstring says a run directory holds, the config's round
    trip, the settings given, and the saved model playing ``eightfold eval``."""
    args = run["args"]
    final = args[args.index("--eval-games") + 1] != "0"
    for name in ("config.yaml", "model.zip", "train_summary.json", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert list((out / "monitor").glob("*.monitor.csv")), "monitor/"
    assert (out / "tb").is_dir(), "tb/"
    assert list((out / "checkpoints").glob("model_*_steps.zip")), "checkpoints/"
    if final:
        assert (out / "final_eval.json").is_file() and (out / "final_eval.png").is_file()
        assert json.loads((out / "final_eval.json").read_text())["pairs"]
    if run["every"]:
        rows = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
        assert rows and all(r["timesteps"] <= model_steps(out / "model.zip") for r in rows)
        assert (out / "best_model.zip").is_file()
    assert model_steps(out / "model.zip") >= run["steps"]
    saved = read_yaml(out / "config.yaml")
    again = merge(TrainConfig(), saved, "config.yaml")
    again.validate()
    assert again.to_dict() == saved  # the resolved config round-trips
    assert saved["timesteps"] == run["steps"]
    for item in run["settings"]:
        key, _, value = item.partition("=")
        assert saved[key] == yaml.safe_load(value), (key, saved[key], value)
    game = Path(run["game"]).name
    assert (
        main(["eval", game, *run["params"], "--players", str(out / "model.zip"), "random", "--games", "2"])
        == 0
    )


def test_train_matrix_fuzz(tmp_path: Path) -> None:
    """A seeded draw: one run per game (every game, its own variant or player count), then a
    ``--resume`` of one of them past its steps, a run against the first run's saved model and a
    run from a saved ``config.yaml`` as ``--config``."""
    rng = random.Random(20261207)
    runs = [draw_run(rng, game) for game in sorted(CONFIGS)]
    for i, run in enumerate(runs):
        out = tmp_path / f"run{i}"
        assert main(["train", *run["args"], "--out", str(out)]) == 0, run["args"]
        check_run(run, out)

    # --resume after a finished run continues to the new --timesteps, with other opponents
    first = runs[1]
    out = tmp_path / "run1"
    target = first["steps"] + 64
    code = main(
        [
            "train",
            first["game"],
            "--out",
            str(out),
            "--resume",
            "--timesteps",
            str(target),
            "--opponents",
            "greedy",
        ]
    )
    assert code == 0
    assert model_steps(out / "model.zip") >= target
    assert list((out / "monitor").glob("resume1-*.monitor.csv"))
    assert read_yaml(out / "config.yaml")["timesteps"] == target
    assert json.loads((out / "train_summary.json").read_text())["timesteps"] == model_steps(out / "model.zip")

    # a saved model of an earlier run as an opponent (Over and Out, 2 players, as the source)
    src = tmp_path / "src"
    oao = ["over_and_out", "--param", "num_players=2", *TINY, "--n-envs", "2", "--eval-every", "0"]
    assert main(["train", *oao, "--timesteps", "64", "--opponents", "random", "--out", str(src)]) == 0
    model = str(src / "model.zip")
    vs = tmp_path / "vs_model"
    assert main(["train", *oao, "--timesteps", "64", "--opponents", f"random,{model}", "--out", str(vs)]) == 0
    assert read_yaml(vs / "config.yaml")["opponents"] == {"random": 1.0, model: 1.0}

    # a run's saved config.yaml starts a new run elsewhere with the same options (--config)
    again = tmp_path / "again"
    assert main(["train", "over_and_out", "--config", str(vs / "config.yaml"), "--out", str(again)]) == 0
    a, b = read_yaml(vs / "config.yaml"), read_yaml(again / "config.yaml")
    assert {k: v for k, v in a.items() if k != "out"} == {k: v for k, v in b.items() if k != "out"}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_train_matrix_wide(tmp_path: Path, seed: int) -> None:
    """The wider matrix (CI skips it): any game, a ``SubprocVecEnv`` now and then, three envs."""
    rng = random.Random(seed)
    run = draw_run(rng)
    if rng.random() < 0.4:
        run["args"] += ["--vec-env", "subproc"]
    if rng.random() < 0.3:
        run["args"] += ["--n-envs", "3"]
    out = tmp_path / "run"
    assert main(["train", *run["args"], "--out", str(out)]) == 0, run["args"]
    check_run(run, out)
