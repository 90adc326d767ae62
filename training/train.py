"""``eightfold train``: MaskablePPO on the single-agent view of any eightfold game.

    eightfold train over_and_out --param num_players=2 --timesteps 300000 --out runs/demo --eval-games 400

Options are resolved as defaults < ``configs/<game>.yaml`` (or ``--config``) < flags, and
written to ``<out>/config.yaml``. A run directory holds::

    config.yaml        the resolved configuration (``--resume`` reads it)
    model.zip          the final model (``best_model.zip``: best periodic evaluation, which
                       ``best_model.json`` names)
    checkpoints/       periodic checkpoints;  pool/  self-play snapshots
    tb/                TensorBoard logs (``tensorboard --logdir runs``)
    monitor/           per-env episode logs (rewards, lengths, outcome, placement; a resume adds resume<k>-*)
    eval.jsonl         periodic evaluation against the baselines
    pretrain.json      the behaviour-cloning warm start (demonstrations, fit per epoch), if any
    train_summary.json steps, wall time, throughput;  final_eval.json/.png with --eval-games
    learning_curve.png episode return and win rates against the timesteps (drawn by the command)
    lost/              what a resume from an earlier model set aside (below)

A new run in a directory that holds one replaces that run's files (``tb/`` aside, where
TensorBoard keeps runs apart); ``--resume`` (the game may be left out: the run's is read from
its ``config.yaml``) continues the run from its furthest model
(``model.zip``, or a later checkpoint of an interrupted run; a model file cut short by a kill
is passed over) with its ``config.yaml``: the game,
the network, the seed and the warm start (``pretrain_*``, run once before the first PPO step)
cannot change, the PPO settings and the other options can (``--set``, ``--opponents``), and
``--timesteps`` must go beyond the steps already trained. An RLlib run (``--backend rllib``)
resumes from its ``checkpoint/`` with the game, opponents, seed, self-play mode, network and
PPO settings it began with (``training.rllib.train``).

Interruptions: the first Ctrl-C during PPO ends ``learn()`` at the next env step and saves a checkpoint
there (not ``model.zip``: the run is unfinished), printing the ``--resume`` command; a second
one stops at once (during the warm start, Ctrl-C ends the run, which then starts again without
``--resume``). Every model file is written in one step (a hidden file, then renamed), so
a kill leaves whole files. A run killed between checkpoints resumes from its last one, at S
steps, and the logs it wrote after that model are set aside in ``lost/after_<S>_steps/``:
evaluation rows of later steps, self-play snapshots of later steps (they would come back as
opponents from the run's own future), a ``best_model.zip`` from a later evaluation (the next
evaluation then saves one) and the ``monitor/`` episodes that ended after the model was saved
(the learning curve would count their steps twice; the time of the save is recorded in the
model file itself, so a copy of the run folder that resets file times rolls back the same). ``tb/`` is not rolled back: a resumed part
logs to a TensorBoard run of its own, ``ppo_resumed_at_<S>_0``, beside the earlier part's run
(which keeps its stretch after S).

Same seed, same run: torch, numpy and every env are seeded from ``--seed``, and torch uses
the config's fixed number of threads. With ``torch_threads: 1`` a run repeats bit for bit; on
two or more threads torch's CPU kernels may round differently in another process, and the
run then drifts like one at another seed (docs/results/SPEED.md, "Training on two threads").
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import platform
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from envs.core.config import is_real
from envs.core.files import write_text
from envs.core.registry import GAMES, get_game
from training.config import (
    TrainConfig,
    default_config_path,
    merge,
    parse_opponents,
    read_yaml,
    resume_seed,
    save_config,
)
from training.params import int_at_least, parse_params
from training.players import game_bots
from training.rllib.common import CHECKPOINT_DIR as RLLIB_CHECKPOINT_DIR
from training.rllib.common import META_FILE as RLLIB_META_FILE


def add_parser(sub: Any) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent (self-play, baselines, TensorBoard)")
    p.add_argument(
        "env",
        nargs="?",
        default=None,
        help="game name or env id, e.g. over_and_out (with --resume --out DIR: the run's, if left out)",
    )
    p.add_argument("--variant", default=None, help="shorthand for --param variant=<v> (Octi)")
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="game parameter (repeatable), JSON values"
    )
    p.add_argument("--config", default=None, help="YAML of training options (default configs/<game>.yaml)")
    p.add_argument(
        "--timesteps",
        type=int_at_least(1),
        default=None,
        help="total learner steps (PPO collects whole rollouts of n_steps x n_envs, so the run may end a little past it)",
    )
    p.add_argument(
        "--opponents",
        default=None,
        help="comma list, e.g. random,heuristic,self or random,mcts:sims=50,c=0.5",
    )
    p.add_argument(
        "--seed",
        type=int_at_least(0),
        default=None,
        help="the run's seed: games, opponents, network (default: the config's, 0; --resume keeps the run's)",
    )
    p.add_argument("--n-envs", type=int_at_least(1), default=None, help="parallel envs")
    p.add_argument(
        "--vec-env",
        choices=["dummy", "subproc"],
        default=None,
        help="dummy: the envs step in this process; subproc: a process each (sb3 backend)",
    )
    p.add_argument("--out", default=None, help="run directory (default runs/<game>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out up to --timesteps")
    p.add_argument(
        "--eval-every",
        type=int_at_least(0),
        default=None,
        help="steps between evaluations (0 = never; sb3 backend)",
    )
    p.add_argument(
        "--eval-games",
        type=int_at_least(0),
        default=None,
        help="final evaluation: games per baseline (0 = none; a --resume plays the run's again unless 0; sb3 backend)",
    )
    p.add_argument("--set", action="append", default=[], metavar="K=V", help="any training option")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (sb3 backend)")
    p.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="trainer (rllib: pip install 'eightfold[rllib]')",
    )
    from training.rllib.train import add_backend_args  # Ray-free import

    add_backend_args(p)
    p.set_defaults(func=cmd_train)


def resolve_config(args: argparse.Namespace) -> TrainConfig:
    if args.env is None:  # the run's own game, read from the run it resumes
        args.env = _resumed_game(args)
    name = get_game(args.env).name
    out = Path(args.out or f"runs/{name}")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; a run directory is needed")
    cfg = TrainConfig(env=name, out=str(out))
    rllib = getattr(args, "backend", "sb3") == "rllib"
    if args.resume and not rllib and (out / RLLIB_META_FILE).is_file():
        raise ValueError(f"--resume: {str(out)!r} holds an RLlib run; continue it with --backend rllib")
    if args.resume and rllib and not (out / RLLIB_META_FILE).is_file():
        raise ValueError(
            f"--resume --backend rllib: no RLlib run to continue in {str(out)!r} (no {RLLIB_META_FILE} there); "
            "drop --resume to start one"
        )
    if args.resume and not (out / "config.yaml").exists():
        if rllib:
            raise ValueError(
                f"--resume: the RLlib run in {str(out)!r} has no config.yaml (runs saved before RLlib "
                "runs could resume); start a new run"
            )
        raise ValueError(
            f"--resume: no run to continue in {str(out)!r} (no config.yaml there); drop --resume to start one"
        )
    if args.resume:
        if args.config is not None:
            raise ValueError(
                f"--config is not read with --resume: the run continues with {str(out / 'config.yaml')!r} "
                "(change its options with --set K=V)"
            )
        saved = read_yaml(out / "config.yaml")
        saved_env = get_game(str(saved.get("env", name))).name
        if saved_env != name:
            raise ValueError(
                f"--resume continues the run in {str(out)!r}, a run of {saved_env}, not {name}: "
                f"name {saved_env}, or start a new run in another --out"
            )
        cfg = merge(cfg, saved, str(out / "config.yaml"))
    else:
        path = args.config or default_config_path(name)
        if args.config is not None and (not args.config or Path(args.config).is_dir()):
            what = "is a directory" if args.config else "names no file"
            raise ValueError(f"--config {str(args.config)!r} {what}; give a YAML file")
        if path is not None:
            data = read_yaml(path)
            _check_run_keys(data, str(path), name, out)
            cfg = merge(cfg, data, str(path))
    flags: dict[str, Any] = {"params": parse_params(args.param, args.variant)}
    for key in ("timesteps", "seed", "n_envs", "vec_env", "eval_every"):
        if getattr(args, key) is not None:
            flags[key] = getattr(args, key)
    if args.opponents is not None:
        flags["opponents"] = parse_opponents(args.opponents)
    if args.eval_games is not None:
        flags["final_eval_games"] = args.eval_games
    if args.no_progress:
        flags["progress_bar"] = False
    given = parse_params(args.set, flag="--set")
    for key, how in (("env", "the game is the command's first argument"), ("out", "give --out DIR")):
        if key in given:
            raise ValueError(f"--set {key}: not a setting of --set ({how})")
    _check_set_agrees(flags, given)
    flags.update(given)
    cfg = merge(cfg, flags, "command line")
    cfg.env, cfg.out = name, str(out)
    cfg.validate()
    if given.get("partner") is not None and not rllib:  # (an RLlib run refuses partner itself: sb3 only)
        _check_partner_seat(cfg)
    if args.resume:
        game_class = get_game(name).game_class()
        before = dict(saved.get("params") or {})
        if game_class(**cfg.params).config != game_class(**before).config:
            changed = {k: v for k, v in cfg.params.items() if before.get(k) != v}
            raise ValueError(
                f"--resume continues the run's game {before or '(defaults)'}; --param/--variant/--set "
                f"params {changed} would change it: start a new run in another --out instead"
            )
        if not rllib:  # an RLlib run checks its checkpoint and settings itself (train_rllib)
            check_resume(cfg, saved, out)
    return cfg


def _resumed_game(args: argparse.Namespace) -> str:
    """The game of the run ``--resume --out DIR`` continues, from its ``config.yaml``; without
    ``--resume`` and ``--out`` the game must be named."""
    if not (args.resume and args.out):
        raise ValueError(
            "name the game to train (eightfold train <game>, one of "
            f"{', '.join(sorted(GAMES))}); only --resume --out DIR reads it from the run"
        )
    path = Path(args.out) / "config.yaml"
    if not path.is_file():
        raise ValueError(
            f"--resume: no run to continue in {args.out!r} (no config.yaml there); drop --resume and name the game to start one"
        )
    env = read_yaml(path).get("env")
    if not isinstance(env, str):
        raise ValueError(
            f"{path}: no game named (env); name it: eightfold train <game> --resume --out {args.out}"
        )
    return env


def _check_partner_seat(cfg: TrainConfig) -> None:
    """``--set partner=...`` names the partner seat of a 2v2 game: for a game without one it is
    refused by name, not ignored (a config file's ``partner`` is kept for the 2v2 runs of its
    game: ``configs/otto_game_over.yaml`` names one for ``--param num_players=4 --param teams=true``)."""
    game = get_game(cfg.env).game_class()(**cfg.params)
    if not has_partner(game):
        raise ValueError(
            f"--set partner={cfg.partner!r}: partner is for 2v2 games only (teams with 4 players); this "
            f"{cfg.env} game ({game.num_players} player{'' if game.num_players == 1 else 's'}) has no "
            "partner seat"
        )


#: the option each dedicated flag sets, for the messages of :func:`_check_set_agrees`
FLAG_OF = {"params": "--param/--variant", "final_eval_games": "--eval-games", "progress_bar": "--no-progress"}


def _check_set_agrees(flags: dict[str, Any], given: dict[str, Any]) -> None:
    """An option given both by its own flag and by ``--set`` must agree: neither silently wins.
    The game's parameters given both ways are refused outright (they would merge key by key)."""
    for key, value in given.items():
        if key not in flags or (key == "params" and not flags["params"]):
            continue
        mine = flags[key]
        theirs = parse_opponents(value) if key == "opponents" else value
        if key == "params" or theirs != mine:
            flag = FLAG_OF.get(key, "--" + key.replace("_", "-"))
            raise ValueError(f"{flag} and --set {key}={value!r} both set {key}; give it once")


def _check_run_keys(data: dict[str, Any], source: str, name: str, out: Path) -> None:
    """A ``--config`` file names the run's game and folder only as the command line does: an
    ``env`` of another game is an error, and an ``out`` other than the run's is named (a run's
    saved ``config.yaml`` holds both, and may start a new run elsewhere)."""
    if "env" in data and get_game(str(data["env"])).name != name:
        raise ValueError(
            f"{source}: env {data['env']!r} is not the game this command trains ({name}); the game "
            "is the command's first argument"
        )
    if "out" in data and Path(str(data["out"])) != out:
        print(
            f"note: {source} names out {data['out']!r}; this run goes to {str(out)!r} (--out)",
            file=sys.stderr,
        )


#: options fixed by the saved model's network: a resume cannot change them
NETWORK_OPTIONS = ("policy", "net_arch", "vf_arch", "cnn_channels", "features_dim")
#: the behaviour-cloning warm start's options: it ran (or not) when the run began
PRETRAIN_OPTIONS = tuple(f.name for f in dataclasses.fields(TrainConfig) if f.name.startswith("pretrain_"))


def check_resume(cfg: TrainConfig, saved: dict[str, Any], out: Path) -> None:
    """A resume keeps the saved network, the seed and the warm start the run began with, and
    goes beyond the steps already trained."""
    defaults = TrainConfig(env=cfg.env)

    def changed_of(names: Sequence[str]) -> list[str]:
        return [k for k in names if getattr(cfg, k) != saved.get(k, getattr(defaults, k))]

    changed = changed_of(NETWORK_OPTIONS)
    if changed:
        raise ValueError(
            f"--resume: {', '.join(changed)} cannot change (the saved model's network has "
            f"{ {k: saved.get(k, getattr(defaults, k)) for k in changed} }); start a new run instead"
        )
    if cfg.seed != saved.get("seed", defaults.seed):
        raise ValueError(
            f"--resume: seed cannot change (the run began with seed {saved.get('seed', defaults.seed)!r}: "
            f"its first part and warm start used it, and the resumed part's seed is drawn from it); "
            f"give --seed {saved.get('seed', defaults.seed)!r} or none, or start a new run instead"
        )
    changed = changed_of(PRETRAIN_OPTIONS)
    if changed:
        raise ValueError(
            f"--resume: {', '.join(changed)} cannot change (the warm start ran once, before the run's "
            f"first PPO step, with { {k: saved.get(k, getattr(defaults, k)) for k in changed} }); "
            "start a new run instead"
        )
    path, steps = latest_model_steps(out)
    if path is None:
        raise ValueError(
            f"--resume: no model in {str(out)!r} to continue (no model.zip or checkpoint: the run stopped "
            "before its first); drop --resume to start it again"
        )
    if cfg.timesteps <= steps:
        raise ValueError(
            f"--resume: the run is at {steps:,} steps already ({path.name}); give --timesteps above that"
        )


# ------------------------------------------------------------------------ envs
def build_single_env(cfg_dict: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """The learner's single-agent env of a config (no monitor), with its game and bot table."""
    from training.players import OpponentPool, make_player
    from training.single_agent import SingleAgentEnv

    cfg = TrainConfig(**cfg_dict)
    entry = get_game(cfg.env)
    game = entry.game_class()(**cfg.params)
    bots = game_bots(entry)
    pool_kw: dict[str, Any] = {"latest_prob": cfg.latest_prob, "max_size": cfg.pool_size}
    pool = OpponentPool.from_specs(game, cfg.opponents, bots, **pool_kw) if game.num_players > 1 else None
    partner: Any = None  # the config's partner is for 2v2 only
    if cfg.partner == "self" and has_partner(game):
        partner = OpponentPool(fallback=make_player(game, "random", bots), **pool_kw)
    elif cfg.partner and has_partner(game):
        partner = make_player(game, cfg.partner, bots)
    env = SingleAgentEnv(game, pool, seat=cfg.seat, partner=partner, shaping=cfg.shaping, gamma=cfg.gamma)
    return env, game, bots


def make_env(cfg_dict: dict[str, Any], rank: int | str, monitor_dir: str, in_subprocess: bool = False) -> Any:
    """One monitored single-agent env (top level, so SubprocVecEnv can pickle it). In a
    SubprocVecEnv worker (``in_subprocess``) torch gets one thread for the frozen opponents'
    moves; in the learner's own process the thread count stays ``torch_threads``."""
    from stable_baselines3.common.monitor import Monitor

    if in_subprocess:
        import torch

        from training.interrupt import worker_init

        torch.set_num_threads(1)
        worker_init()  # the learner winds the run down on Ctrl-C and closes these workers
    env, _game, _bots = build_single_env(cfg_dict)
    env = RunSeeded(env, int(cfg_dict.get("seed") or 0))
    return Monitor(env, f"{monitor_dir}/{rank}", info_keywords=("outcome", "placement", "return"))


def run_seeded(seed: int, run_seed: int) -> int:
    """The seed env copy gets from SB3's ``seed + i``, folded with the run's own seed: SB3
    seeds copy i of a run at ``--seed S`` with S + i, the same number as copy i - 1 of the run at
    S + 1, and those two copies then dealt the same games (15% of their games alike, over
    thousands), so runs at neighbouring seeds were not independent replicates."""
    return (
        int(np.random.SeedSequence([int(seed), int(run_seed)]).generate_state(1, np.uint64)[0]) >> 1
    )  # numpy 1.x: no uint64 >> int


class RunSeeded(gym.Wrapper[Any, Any, Any, Any]):
    """``reset(seed=s)`` seeds the env with :func:`run_seeded` ``(s, run_seed)``."""

    def __init__(self, env: Any, run_seed: int) -> None:
        super().__init__(env)
        self.run_seed = run_seed

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        return self.env.reset(seed=None if seed is None else run_seeded(seed, self.run_seed), options=options)


def build_vec_env(cfg: TrainConfig, out: Path, resume: bool = False) -> Any:
    """The run's vectorised envs, each logging its episodes to ``monitor/<rank>.monitor.csv``
    (a resumed run to ``monitor/resume<k>-<rank>.monitor.csv``, so earlier episodes stay)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    monitor_dir = out / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)
    prefix = ""
    if resume:
        k = 1
        while any(monitor_dir.glob(f"resume{k}-*.monitor.csv")):
            k += 1
        prefix = f"resume{k}-"
    sub = cfg.vec_env == "subproc"
    fns: list[Any] = [
        functools.partial(make_env, cfg.to_dict(), f"{prefix}{i}", str(monitor_dir), sub)
        for i in range(cfg.n_envs)
    ]
    if sub:
        from training.interrupt import sigint_deferred, start_forkserver, start_method

        start_forkserver()  # its workers start with Ctrl-C ignored (the learner ends them)
        with sigint_deferred():  # a Ctrl-C while they start is raised once they are up
            return SubprocVecEnv(fns, start_method=start_method())
    return DummyVecEnv(fns)


# ----------------------------------------------------------------------- model
def build_model(cfg: TrainConfig, vec: Any, out: Path) -> Any:
    from sb3_contrib import MaskablePPO

    from training.policies import algorithm_kwargs, policy_class, policy_kwargs

    return MaskablePPO(
        policy_class(cfg.policy),
        vec,
        **cfg.ppo_kwargs(),
        **algorithm_kwargs(cfg.policy),
        policy_kwargs=policy_kwargs(
            vec.observation_space.shape, cfg.net_arch, cfg.cnn_channels, cfg.features_dim, cfg.vf_arch
        ),
        tensorboard_log=str(out / "tb"),
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )


#: what a run writes into its directory (``tb/`` aside): a fresh run there replaces them
RUN_FILES = (
    "config.yaml", "model.zip", "best_model.zip", "eval.jsonl", "pretrain.json", "train_summary.json",
    "final_eval.json", "final_eval.png", "learning_curve.png",
    RLLIB_META_FILE, "progress.json",  # an RLlib run's (its checkpoint folders: RUN_DIRS)
    "best_model.json",
)  # fmt: skip
RUN_GLOBS = ("monitor/*.monitor.csv", "checkpoints/model_*_steps.zip", "pool/snap_*.zip")
RUN_DIRS = (RLLIB_CHECKPOINT_DIR, f"{RLLIB_CHECKPOINT_DIR}.new", f"{RLLIB_CHECKPOINT_DIR}.old", "lost")


def clear_run(out: Path) -> None:
    """A new run in a directory that holds one starts clean: the earlier run's files (not
    ``tb/``, where TensorBoard keeps each run apart), of either backend, are removed, so no
    log mixes two runs and no folder reads as a run of the other backend."""
    import shutil

    old = [out / name for name in RUN_FILES if (out / name).is_file()]
    old += [p for pattern in RUN_GLOBS for p in out.glob(pattern)]
    dirs = [out / name for name in RUN_DIRS if (out / name).is_dir()]
    if not old and not dirs:
        return
    print(
        f"note: {out} holds an earlier run; starting a new one there (its {len(old) + len(dirs)} files "
        "and folders are replaced; --resume continues a run instead)",
        flush=True,
    )
    for path in old:
        path.unlink()
    for path in dirs:
        shutil.rmtree(path)


def latest_model(out: Path) -> Path | None:
    """The furthest-trained model of a run directory: ``model.zip`` (at the steps it holds) or
    a later checkpoint (a run stopped before its end, e.g. an interrupted resume, leaves its
    progress there only)."""
    return latest_model_steps(out)[0]


def model_steps(path: Path) -> int | None:
    """The learner steps a saved model holds (``num_timesteps`` in the ``data`` entry of SB3's
    zip), None when the file does not say. Read from the file itself: ``train_summary.json``,
    written after ``model.zip``, still holds the previous part's steps when a resumed run is
    killed between the two."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            steps = json.loads(z.read("data"))["num_timesteps"]
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        return None
    return steps if isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0 else None


def saved_time(path: Path) -> float:
    """When the run saved a model file: the time :func:`training.callbacks.save_model` recorded in
    it, or, for a file saved before models recorded it, the file's modification time (which a
    copy by ``cp -r``, ``rsync`` without ``-t`` or a download resets)."""
    import zipfile

    from training.callbacks import SAVED_AT

    try:
        with zipfile.ZipFile(path) as z:
            saved = json.loads(z.read("data"))[SAVED_AT]
        if is_real(saved) and np.isfinite(saved):
            return float(saved)
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        pass
    return path.stat().st_mtime


def _whole_zip(path: Path) -> bool:
    """A model file written to the end (a run killed while sb3 wrote a checkpoint leaves a
    truncated zip, which the resume passes over for the one before)."""
    import zipfile

    return zipfile.is_zipfile(path)


def latest_model_steps(out: Path) -> tuple[Path | None, int]:
    """:func:`latest_model` and its learner steps (0 when there is none or they are unknown); a
    model file cut short by a kill is passed over."""
    path, steps = furthest_model(out)
    return path, max(steps or 0, 0)


def furthest_model(out: Path) -> tuple[Path | None, int | None]:
    """:func:`latest_model` and its learner steps (None: a ``model.zip`` that does not say,
    steps unknown)."""
    best: tuple[Path | None, int] = (None, 0)
    if (out / "model.zip").exists() and _whole_zip(out / "model.zip"):
        steps = model_steps(out / "model.zip")
        # unknown: a checkpoint wins only if there is no model.zip
        best = (out / "model.zip", -1 if steps is None else steps)
    for ckpt in (out / "checkpoints").glob("model_*_steps.zip"):
        try:
            steps = int(ckpt.stem.split("_")[1])
        except (IndexError, ValueError):
            continue
        if (best[0] is None or (best[1] >= 0 and steps > best[1])) and _whole_zip(ckpt):
            best = (ckpt, steps)
    return best[0], (None if best[1] < 0 else best[1])


def rollback_run(out: Path, steps: int, model_path: Path) -> dict[str, int]:
    """Before a resume from ``model_path`` (at ``steps``): set aside, in
    ``lost/after_<steps>_steps/``, what the run logged after that model was saved, since the
    resumed run trains that stretch again: the evaluations of later steps (``eval.jsonl``
    rows), the self-play snapshots of later steps (they would come back as opponents from the
    run's own future), a ``best_model.zip`` from a later evaluation, later (broken) checkpoints,
    and the training episodes that ended after the model was saved (``monitor/`` rows, which
    the learning curve would count twice). Returns what was moved, by kind."""
    from training.callbacks import BEST_MODEL_INFO

    lost = out / "lost" / f"after_{steps}_steps"
    moved = {"evaluations": 0, "snapshots": 0, "best model": 0, "checkpoints": 0, "episodes": 0}

    def set_aside(path: Path, sub: str = "") -> None:
        (lost / sub).mkdir(parents=True, exist_ok=True)
        os.replace(path, lost / sub / path.name)

    evals = out / "eval.jsonl"
    if evals.is_file():
        kept: list[str] = []
        gone: list[str] = []
        for line in evals.read_text(encoding="utf-8").splitlines():
            try:
                late = int(json.loads(line)["timesteps"]) > steps
            except (ValueError, KeyError, TypeError):
                late = False
            (gone if late else kept).append(line)
        if gone:
            lost.mkdir(parents=True, exist_ok=True)
            with (lost / "eval.jsonl").open("a", encoding="utf-8") as f:
                f.write("".join(f"{line}\n" for line in gone))
            write_text(evals, "".join(f"{line}\n" for line in kept))
            moved["evaluations"] = len(gone)
    for kind, folder, pattern, index in (
        ("snapshots", "pool", "snap_*.zip", 1),
        ("checkpoints", "checkpoints", "model_*_steps.zip", 1),
    ):
        for path in sorted((out / folder).glob(pattern)):
            try:
                later = int(path.stem.split("_")[index]) > steps
            except (IndexError, ValueError):
                continue
            if later and path != model_path:
                set_aside(path, folder)
                moved[kind] += 1
    best = out / "best_model.zip"
    if best.is_file():
        try:  # the evaluation it came from; a run from before best_model.json: its file time
            late = int(json.loads((out / BEST_MODEL_INFO).read_text(encoding="utf-8"))["timesteps"]) > steps
        except (OSError, ValueError, KeyError, TypeError):
            late = saved_time(best) > saved_time(model_path)
        if late:
            set_aside(best)
            if (out / BEST_MODEL_INFO).is_file():
                set_aside(out / BEST_MODEL_INFO)
            moved["best model"] = 1
    saved_at = saved_time(model_path)  # the episodes that ended later are trained again
    for path in sorted((out / "monitor").glob("*.monitor.csv")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) < 2:
            continue
        try:
            t_start = float(json.loads(lines[0].lstrip("#")).get("t_start", 0.0))
            t_col = lines[1].split(",").index("t")
        except (ValueError, AttributeError):
            continue
        kept, gone = lines[:2], []
        for line in lines[2:]:
            try:
                late = t_start + float(line.split(",")[t_col]) > saved_at
            except (IndexError, ValueError):
                late = False
            (gone if late else kept).append(line)
        if gone:
            (lost / "monitor").mkdir(parents=True, exist_ok=True)
            (lost / "monitor" / path.name).write_text("\n".join(lines[:2] + gone) + "\n", encoding="utf-8")
            write_text(path, "\n".join(kept) + "\n")
            moved["episodes"] += len(gone)
    if any(moved.values()):
        what = ", ".join(f"{n} {kind}" for kind, n in moved.items() if n)
        print(
            f"note: resuming at {steps:,} steps from {model_path.name}: what the run logged after it ({what}) "
            f"is set aside in {lost}",
            flush=True,
        )
    return moved


def build_callbacks(cfg: TrainConfig, out: Path, game: Any, bots: Any, pretrained: bool = False) -> list[Any]:
    from training.callbacks import BaselineEvalCallback, CheckpointEvery, SelfPlayCallback

    cbs: list[Any] = [CheckpointEvery(cfg.checkpoint_every, out / "checkpoints")]
    if cfg.eval_every > 0 and cfg.eval_games > 0:
        cbs.append(
            BaselineEvalCallback(
                game,
                bots,
                cfg.eval_opponents,
                cfg.eval_every,
                cfg.eval_games,
                out,
                seed=cfg.seed + 7919,
                at_start=pretrained,
            )
        )
    groups = selfplay_groups(cfg, game)
    if groups:
        cbs.append(SelfPlayCallback(out / "pool", cfg.snapshot_every, groups))
    return cbs


def selfplay_groups(cfg: TrainConfig, game: Any) -> list[str]:
    """The pools that receive the learner's frozen snapshots: ``self`` (opponents) when the
    config names it and the game has opponents (a solo game has none: its ``opponents`` are
    ignored), ``partner`` when the 2v2 partner is played by past selves."""
    groups = ["self"] if "self" in cfg.opponents and game.num_players > 1 else []
    return groups + (["partner"] if cfg.partner == "self" and has_partner(game) else [])


def has_partner(game: Any) -> bool:
    """Whether the game seats a partner beside the learner (2v2); ``partner`` is ignored otherwise."""
    from envs.core.game import team_seats

    return len(team_seats(game, 0)) > 1


def train(cfg: TrainConfig, resume: bool = False) -> Path:
    """Run (or continue) the training described by ``cfg``; returns the run directory."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed

    from training.callbacks import load_pool
    from training.policies import algorithm_kwargs, describe

    cfg.validate()  # before anything is written: a bad option leaves no half-made run behind
    out = Path(cfg.out)
    if not resume:
        clear_run(out)
        save_config(cfg, out)  # a resume rewrites it once the saved model has loaded
    torch.set_num_threads(cfg.torch_threads)
    set_random_seed(cfg.seed)
    entry = get_game(cfg.env)
    game = entry.game_class()(**cfg.params)
    start_from, at_steps = furthest_model(out) if resume else (None, None)
    if start_from is not None and at_steps is not None:  # an interrupted run logged past its model
        rollback_run(out, at_steps, start_from)
    vec = build_vec_env(cfg, out, resume=resume)
    if start_from is not None:  # the config's PPO settings and seed apply to the loaded model too
        ppo = {**cfg.ppo_kwargs(), **algorithm_kwargs(cfg.policy), "seed": cfg.seed}
        model = MaskablePPO.load(start_from, env=vec, device="cpu", tensorboard_log=str(out / "tb"), **ppo)
        # new games from here on: the config's seed alone would deal the run's first games again
        model.set_random_seed(resume_seed(cfg.seed, model.num_timesteps))
        load_pool(vec, out / "pool", selfplay_groups(cfg, game), cfg.pool_size)
        print(f"resuming from {start_from} at {model.num_timesteps:,} steps")
    else:
        model = build_model(cfg, vec, out)
    if resume:
        save_config(cfg, out)
    pretrain_s = 0.0
    pretrained = start_from is None and cfg.pretrain_samples > 0
    if pretrained:
        from training.pretrain import pretrain

        t_pre = time.time()
        try:
            pretrain(model, cfg.to_dict(), out)
        except KeyboardInterrupt:  # nothing saved yet: --resume would find no model
            print(
                "\ninterrupted during the warm start (before PPO), so nothing was saved to resume "
                "from: run the command again without --resume to start over",
                file=sys.stderr,
                flush=True,
            )
            raise
        pretrain_s = time.time() - t_pre
    partner = partner_of(cfg, game)
    print(
        f"training {entry.env_id}{f' {cfg.params}' if cfg.params else ''} on {cfg.n_envs} {cfg.vec_env} envs "
        + ("solo (no opponents)" if game.num_players == 1 else f"vs {dict(cfg.opponents)}")
        + (f", partner {partner}" if partner is not None else "")
        + f"; {describe(game.observation_shape, cfg.net_arch, cfg.cnn_channels, cfg.vf_arch)}",
        flush=True,
    )
    remaining = max(0, cfg.timesteps - model.num_timesteps)
    # PPO collects whole rollouts: asking learn() for the rounded-up count trains the same steps
    # (the configs' schedules are constant) and lets the progress bar end at its own total
    rollout = cfg.n_steps * cfg.n_envs
    if remaining % rollout:
        rounded = -(-remaining // rollout) * rollout
        print(
            f"PPO trains in whole rollouts of {rollout:,} steps (n_steps {cfg.n_steps} x n_envs "
            f"{cfg.n_envs}): {remaining:,} steps to go round up to {rounded:,}",
            flush=True,
        )
        remaining = rounded
    start_steps, t0 = model.num_timesteps, time.time()
    from training.callbacks import StopWhenAsked, save_model
    from training.interrupt import GracefulInterrupt

    with GracefulInterrupt("stopping at the next step and saving a checkpoint") as ctrl_c:
        model.learn(
            remaining,
            callback=[
                *build_callbacks(cfg, out, game, game_bots(entry), pretrained=pretrained),
                StopWhenAsked(ctrl_c),
            ],
            progress_bar=cfg.progress_bar,
            reset_num_timesteps=start_from is None,
            # a resumed part is a TensorBoard run of its own (sb3 would write into the earlier
            # part's, where the stretch a resume sets aside stays)
            tb_log_name="ppo" if start_from is None else f"ppo_resumed_at_{start_steps}",
        )
    wall = time.time() - t0
    if ctrl_c.requested:  # an unfinished run: a checkpoint, not model.zip
        path = save_model(model, out / "checkpoints" / f"model_{model.num_timesteps}_steps.zip")
        vec.close()
        print(
            f"interrupted at {model.num_timesteps:,} steps: saved {path}; continue with: eightfold train "
            f"{cfg.env} --out {shlex.quote(str(out))} --resume --timesteps {cfg.timesteps}",
            file=sys.stderr,
            flush=True,
        )
        raise KeyboardInterrupt
    save_model(model, out / "model.zip")
    vec.close()
    write_summary(
        cfg, out, model.num_timesteps, model.num_timesteps - start_steps, wall, pretrain_s, partner=partner
    )
    return out


def partner_of(cfg: TrainConfig, game: Any) -> str | None:
    """Who plays the learner's partner seat, in words (None: the game has none): the config's
    ``partner`` spec (``self``: the learner's frozen snapshots), or the opponents' pool."""
    if not has_partner(game):
        return None
    return cfg.partner if cfg.partner is not None else "drawn from the opponents"


def write_summary(
    cfg: TrainConfig,
    out: Path,
    total: int,
    steps: int,
    wall: float,
    pretrain_s: float = 0.0,
    partner: str | None = None,
) -> None:
    """``train_summary.json``: steps, wall times, throughput, the machine, and ``partner``
    (:func:`partner_of`) in a 2v2 run."""
    import os

    summary: dict[str, Any] = {
        "env": cfg.env,
        "params": cfg.params,
        "timesteps": total,
        "steps_this_run": steps,
        "wall_s": round(wall, 1),
        "steps_per_s": round(steps / max(wall, 1e-9), 1),
        "pretrain_s": round(pretrain_s, 1),
        "total_wall_s": round(wall + pretrain_s, 1),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "n_envs": cfg.n_envs,
        "vec_env": cfg.vec_env,
        **({"partner": partner} if partner is not None else {}),
    }
    write_text(out / "train_summary.json", json.dumps(summary, indent=2))
    print(
        f"trained {steps:,} steps in {wall:.0f}s ({summary['steps_per_s']:,} steps/s); "
        f"model: {out / 'model.zip'}",
        flush=True,
    )


def check_backend_flags(args: argparse.Namespace) -> None:
    """A flag of the other backend is an error, not ignored."""
    if getattr(args, "backend", "sb3") == "rllib":
        from training.rllib.common import EVAL_AFTERWARDS

        sb3_only = {  # 0 (no evaluation) asks for nothing, as --set eval_every=0 does
            "--eval-every": args.eval_every not in (None, 0),
            "--eval-games": args.eval_games not in (None, 0),
            "--vec-env": args.vec_env is not None,
            "--no-progress": args.no_progress,
        }
        given = [flag for flag, set_ in sb3_only.items() if set_]
        if given:
            raise ValueError(
                f"{', '.join(given)}: for --backend sb3 only (an RLlib run prints a line per iteration "
                f"and is evaluated afterwards: {EVAL_AFTERWARDS})"
            )
        return
    rllib_only = {
        "--num-env-runners": args.num_env_runners != 0,
        "--envs-per-runner": args.envs_per_runner is not None,
        "--address": args.address is not None,
        "--num-cpus": args.num_cpus is not None,
        "--self-play": args.self_play is not None,
        "--iterations": args.iterations is not None,
    }
    given = [flag for flag, set_ in rllib_only.items() if set_]
    if given:
        raise ValueError(f"{', '.join(given)}: for --backend rllib only")


def note_opponent_params(cfg: TrainConfig) -> None:
    """A saved model among the opponents (or the partner) trained with other game parameters
    gets the note ``eval`` and ``play`` print: its spaces may fit all the same."""
    from training.players import params_note

    game = get_game(cfg.env).game_class()(**cfg.params)
    for spec in [*cfg.opponents, *([cfg.partner] if cfg.partner else [])]:
        note = params_note(str(spec), game)
        if note:
            print(note, file=sys.stderr)


def cmd_train(args: argparse.Namespace) -> int:
    check_backend_flags(args)
    cfg = resolve_config(args)
    if args.backend != "rllib" and cfg.rllib:
        raise ValueError(f"rllib {cfg.rllib}: settings of --backend rllib only (this run is --backend sb3)")
    note_opponent_params(cfg)
    if args.backend == "rllib":
        from training.rllib.train import train_rllib

        train_rllib(args, cfg.params, cfg.to_dict())
        return 0
    out = train(cfg, resume=args.resume)
    from training.plots import learning_curve

    print(f"learning curve: {learning_curve(out, out / 'learning_curve.png')}")
    if cfg.final_eval_games > 0:
        from training.evaluate import evaluate_model_vs_baselines

        evaluate_model_vs_baselines(cfg, out / "model.zip", out)
    return 0
