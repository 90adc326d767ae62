"""``eightfold train <env> --backend rllib``: PPO with action masking through RLlib's
multi-agent API, on a local Ray instance or a cluster (``--address``).

Seats map to modules by the policy mapping function:

* ``--rllib-opponent self`` (default): every seat plays the learning module ``main``
  (parameter sharing; every transition of every seat trains it).
* ``--rllib-opponent frozen``: one seat per episode (drawn from the episode id) plays
  ``main``, the others play ``opponent``, a frozen copy of ``main`` refreshed every
  ``--snapshot-every`` iterations (only ``main`` trains).
* ``--rllib-opponent <bot spec>`` (``random``, ``heuristic``, ``mcts:sims=50``): the bots
  move inside the env; one seat per episode is ``main``.

Hyper-parameters come from the same ``configs/<game>.yaml`` as the SB3 trainer where they
apply (``ppo:`` SB3 names are translated; an ``rllib:`` section is passed to
``PPOConfig.training`` as is). The run directory holds ``eightfold_rllib.json`` (game,
parameters, module id) and the RLlib checkpoint ``checkpoint/``, loadable with
:class:`training.rllib.policy.RLlibPolicy`.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from pathlib import Path
from typing import Any

META_FILE = "eightfold_rllib.json"
CHECKPOINT_DIR = "checkpoint"
MAIN = "main"
OPPONENT = "opponent"

# SB3 MaskablePPO keyword -> PPOConfig.training keyword (same meaning).
_SB3_TO_RLLIB = {
    "learning_rate": "lr",
    "batch_size": "minibatch_size",
    "n_epochs": "num_epochs",
    "gamma": "gamma",
    "gae_lambda": "lambda_",
    "clip_range": "clip_param",
    "ent_coef": "entropy_coeff",
    "vf_coef": "vf_loss_coeff",
    "max_grad_norm": "grad_clip",
}
_DEFAULTS = {"lr": 3e-4, "train_batch_size_per_learner": 2048, "minibatch_size": 256, "num_epochs": 4}


def add_backend_args(parser: argparse.ArgumentParser) -> None:
    """The RLlib options of ``eightfold train`` (ignored by the SB3 backend)."""
    g = parser.add_argument_group("rllib backend (--backend rllib)")
    g.add_argument(
        "--num-env-runners", type=int, default=0, help="remote EnvRunner actors (0 = sample in the driver)"
    )
    g.add_argument("--envs-per-runner", type=int, default=1, help="env copies per EnvRunner")
    g.add_argument(
        "--address", default=None, help="Ray cluster address (e.g. auto or ray://host:10001); default: local"
    )
    g.add_argument("--num-cpus", type=int, default=None, help="CPUs of a local Ray instance (default: all)")
    g.add_argument(
        "--rllib-opponent",
        default=None,
        help="self (shared policy, default), frozen, or a bot spec (random, heuristic ...)",
    )
    g.add_argument(
        "--snapshot-every", type=int, default=5, help="iterations between opponent refreshes (frozen)"
    )
    g.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="stop after N training iterations (default: by timesteps)",
    )


def _ppo_section(config: dict[str, Any]) -> dict[str, Any]:
    for key in ("ppo", "algo", "hyperparams"):
        if isinstance(config.get(key), dict):
            return dict(config[key])
    return {}


def training_kwargs(config: dict[str, Any], num_envs: int) -> dict[str, Any]:
    """``PPOConfig.training`` keywords from an eightfold YAML config (SB3 names translated)."""
    ppo = _ppo_section(config)
    out = dict(_DEFAULTS)
    for sb3, rl in _SB3_TO_RLLIB.items():
        value = ppo.get(sb3)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[rl] = value
    if isinstance(ppo.get("n_steps"), int):
        out["train_batch_size_per_learner"] = ppo["n_steps"] * max(1, int(ppo.get("n_envs", num_envs)))
    out["minibatch_size"] = min(out["minibatch_size"], out["train_batch_size_per_learner"])
    out.update(config.get("rllib") or {})
    return out


def net_arch(config: dict[str, Any]) -> list[int]:
    """Hidden layer sizes: ``ppo.policy_kwargs.net_arch`` (a list, or dict with ``pi``), default [256, 256]."""
    arch = (_ppo_section(config).get("policy_kwargs") or {}).get("net_arch", config.get("net_arch"))
    if isinstance(arch, dict):
        arch = arch.get("pi")
    if isinstance(arch, list) and all(isinstance(x, int) for x in arch):
        return list(arch)
    return [256, 256]


def seat_of(agent_id: Any) -> int:
    return int(str(agent_id).rsplit("_", 1)[-1])


def mapping_fn(mode: str, num_players: int) -> Any:
    """The agent -> module mapping: all ``main``, or ``main`` on one seat per episode."""

    def shared(agent_id: Any, episode: Any, **kwargs: Any) -> str:
        return MAIN

    def one_main(agent_id: Any, episode: Any, **kwargs: Any) -> str:
        main_seat = zlib.crc32(str(episode.id_).encode()) % num_players
        return MAIN if seat_of(agent_id) == main_seat else OPPONENT

    return one_main if mode == "frozen" else shared


def build_config(
    env_config: dict[str, Any], config: dict[str, Any], args: argparse.Namespace, num_players: int
) -> Any:
    """The ``PPOConfig`` of one run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.env import EightfoldMultiAgentEnv
    from training.rllib.module import MaskedPPOTorchRLModule

    # The env checker steps random *unmasked* actions, which the engine rejects: disabled.
    mode = "frozen" if env_config["opponent"] == "frozen" else "self"
    modules = [MAIN, OPPONENT] if mode == "frozen" else [MAIN]
    model = DefaultModelConfig(fcnet_hiddens=net_arch(config), head_fcnet_hiddens=[64])
    specs = {m: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model) for m in modules}
    env_config = dict(env_config, opponent="self" if mode == "frozen" else env_config["opponent"])
    num_envs = max(1, args.num_env_runners) * args.envs_per_runner
    ppo = (
        PPOConfig()
        .environment(EightfoldMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(
            policies=set(modules), policy_mapping_fn=mapping_fn(mode, num_players), policies_to_train=[MAIN]
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**training_kwargs(config, num_envs))
        .debugging(seed=int(env_config.get("seed", 0)), log_level="ERROR")
    )
    if mode == "frozen":
        ppo = ppo.callbacks(on_train_result=_snapshot_callback(args.snapshot_every))
    return ppo


def _snapshot_callback(every: int) -> Any:
    def on_train_result(*, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
        if algorithm.iteration % max(1, every) == 0:
            copy_main_to_opponent(algorithm)

    return on_train_result


def copy_main_to_opponent(algorithm: Any) -> None:
    """Freeze the current ``main`` weights into ``opponent`` (learner and every EnvRunner)."""
    path = f"learner/rl_module/{MAIN}"
    weights = algorithm.learner_group.get_state(components=path)["learner"]["rl_module"][MAIN]
    algorithm.set_state({"learner_group": {"learner": {"rl_module": {OPPONENT: weights}}}})


def _init_ray(args: argparse.Namespace) -> None:
    import ray

    if ray.is_initialized():
        return
    if args.address:
        ray.init(address=args.address, log_to_driver=False)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)


def _run_dir(args: argparse.Namespace, game: str) -> Path:
    for attr in ("run_dir", "out", "output"):
        value = getattr(args, attr, None)
        if value:
            return Path(value)
    return Path("runs") / f"{game}-rllib-{time.strftime('%Y%m%d-%H%M%S')}"


def _steps_limit(args: argparse.Namespace, config: dict[str, Any]) -> int:
    for value in (getattr(args, "timesteps", None), config.get("timesteps"), config.get("total_timesteps")):
        if isinstance(value, int) and value > 0:
            return value
    return 100_000


def train_rllib(args: argparse.Namespace, params: dict[str, Any], config: dict[str, Any]) -> Path:
    """Train, save the checkpoint and ``eightfold_rllib.json``; returns the run directory."""
    from envs.core.registry import get_game

    entry = get_game(args.env)
    game = entry.game_class()(**params)
    opponent = args.rllib_opponent or str(config.get("rllib_opponent", "self"))
    env_config = {
        "game": entry.name,
        "params": params,
        "opponent": opponent,
        "seed": int(getattr(args, "seed", 0)),
    }
    run_dir = _run_dir(args, entry.name).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    _init_ray(args)
    algo = build_config(env_config, config, args, game.num_players).build_algo()
    try:
        log = _train_loop(algo, args, _steps_limit(args, config))
        algo.save_to_path(str(run_dir / CHECKPOINT_DIR))
    finally:
        algo.stop()
    meta = {"format": 1, "game": entry.name, "params": params, "opponent": opponent, "module": MAIN}
    (run_dir / META_FILE).write_text(json.dumps(meta, indent=2))
    (run_dir / "progress.json").write_text(json.dumps(log, indent=2))
    print(f"saved {run_dir / CHECKPOINT_DIR} (load with --vs {run_dir})")
    return run_dir


def _train_loop(algo: Any, args: argparse.Namespace, max_steps: int) -> list[dict[str, float]]:
    """``algo.train()`` until the step or iteration budget; one printed line per iteration."""
    log: list[dict[str, float]] = []
    start = time.perf_counter()
    steps = 0
    while steps < max_steps and (args.iterations is None or len(log) < args.iterations):
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
        elapsed = time.perf_counter() - start
        row = {
            "iteration": float(len(log) + 1),
            "env_steps": float(steps),
            "seconds": elapsed,
            "env_steps_per_s": steps / max(elapsed, 1e-9),
            "main_return_mean": float(
                (runners.get("module_episode_returns_mean") or {}).get(MAIN, float("nan"))
            ),
            "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
        }
        log.append(row)
        print(
            f"iter {len(log):4d}  steps {steps:9d}  {row['env_steps_per_s']:8.0f} steps/s  "
            f"main return {row['main_return_mean']:+.3f}  episode length {row['episode_len_mean']:.1f}",
            flush=True,
        )
    return log
