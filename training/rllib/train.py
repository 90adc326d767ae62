"""``eightfold train <env> --backend rllib``: PPO with action masking through RLlib's
multi-agent API, on a local Ray instance or a cluster (``--address``).

Seats map to modules by agent id (see :mod:`training.rllib.env`); ``opponents`` is a
``{spec: weight}`` pool as for SB3 (``--opponents random,heuristic,self``) of bots of the
game's table and ``self`` (saved models are refused: that is the SB3 backend), one drawn per
episode:

* a bot spec: the bots move inside the env, one seat per episode plays ``main``;
* ``self`` with ``--self-play shared`` (default): every seat plays the learning module
  ``main`` (parameter sharing: every seat's transitions train it);
* ``self`` with ``--self-play frozen``: one seat plays ``main``, the others ``opponent``, a
  module that never trains: it starts as a copy of ``main``'s first network and takes a copy
  of ``main``'s weights every ``snapshot_every`` env steps (at the end of an iteration; the
  EnvRunners play it from the next sample on).

Hyper-parameters come from the same resolved training config as the SB3 trainer
(``configs/<game>.yaml`` < flags; SB3 names translated: ``learning_rate``, ``n_steps`` x
``n_envs`` (the rollout size), ``batch_size``, ``n_epochs``, ``gamma``, ``gae_lambda``,
``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm``, ``net_arch``); an optional
``rllib:`` mapping (``--set 'rllib={"lambda_": 0.95}'`` or a YAML key) is passed to
``PPOConfig.training`` after checks of its keys (old-API keys that the new stack never reads,
``train_batch_size``, ``model``, ..., are refused with what does their work) and of the
numeric ones' ranges (a number YAML read as text, ``lr: 1e-3``, is read as the number, as
for the top-level options); what none of these sets keeps RLlib's default. The SB3-only
settings (``seat``, ``partner``, the evaluation options, ``pool_size``, ``latest_prob``,
``policy``, ``vec_env``, the CNN settings, ``progress_bar``) are not used when they come from a config file
(``checkpoint_every`` and ``snapshot_every`` are); given on the command line (``--set
seat=1``, :data:`SB3_ONLY_SETTINGS`; ``seat=null``, ``eval_every=0`` and the like ask for
nothing and pass) they are a usage error, as is ``--self-play frozen``
without ``self`` among the opponents; ``shaping``, ``vf_arch`` and ``pretrain_samples`` are
refused by name. The network is RLlib's default PPO module: one
shared encoder of ``net_arch`` under the policy and value heads (SB3's policy has two separate
MLPs). ``--iterations N`` stops after N iterations or at ``timesteps``, whichever comes
first. The run directory (``eightfold train``'s default ``runs/<game>``, as SB3's;
``train_rllib`` called from Python without ``out`` makes ``runs/<game>-rllib-<date-time>``)
holds ``eightfold_rllib.json`` (game, parameters, opponents, module id), ``progress.json`` (one row per iteration: env
steps, seconds, steps/s, ``main_return_mean``, episode length; strict JSON, ``null`` where an
iteration finished no episode), ``config.yaml`` (the resolved training config) and the RLlib
checkpoint ``checkpoint/``, loadable with :class:`training.rllib.policy.RLlibPolicy` (from the
run directory or ``checkpoint/``, relative or absolute). All four are saved every
``checkpoint_every`` env steps (the config's, default 50,000) and at the end. A checkpoint is
written to ``checkpoint.new/`` with its own record of the metadata, progress and config
(:data:`RUN_RECORD`) and then swapped in, and the files beside it are each replaced in one
step, so a run killed at any point keeps a whole checkpoint that agrees with its record (killed
between the two renames of a swap, it is ``checkpoint.old/``, which the next save or resume
puts back). A new run in a folder that holds a run (of either backend) replaces it.

``--resume`` (``args.resume``) continues the run in ``--out`` from its checkpoint: learner
weights and optimizer, connector states, the iteration and env-step counters and the frozen
opponent's last snapshot step come back, ``progress.json`` goes on from its last row (its
``seconds`` add up the parts), and the resumed part is seeded from the run's seed and the steps
done (:func:`training.config.resume_seed`), so it deals new games rather than the ones the run
began with. The game, its parameters, the opponents, the seed, ``--self-play`` and the
settings of :data:`FIXED_OPTIONS` (network, PPO settings) must be the run's (a change is a usage
error that names it); ``--timesteps`` must go beyond the steps done; ``--iterations`` counts
this command's iterations; ``checkpoint_every``, ``snapshot_every``, ``torch_threads`` and the
Ray resources (``--num-env-runners``, ``--envs-per-runner``, ``--num-cpus``, ``--address``) may
change. A resumed run is not bit for bit the uninterrupted one: its second part deals other games.

``main_return_mean`` is RLlib's per-episode return of the module ``main``: the sum over every
seat it played. Against bots (one seat) it is the learner's return; in shared self-play of a
zero-sum game it is 0 by construction, so ``eightfold eval --players <run dir> random
heuristic`` measures such a run. Reproducibility: the same ``--seed`` repeats a run bit for bit
in one process set-up, except that RLlib batches an episode's agents in the order of a ``set``
of their ids, which follows Python's string hashing, so shared self-play (several seats on
``main``) repeats across processes only with a fixed ``PYTHONHASHSEED`` (``PYTHONHASHSEED=0
eightfold train ... --backend rllib``). Ctrl-C during a run finishes the iteration under way,
saves the run and ends the command as interrupted (status 130); a second Ctrl-C stops at once,
leaving the run as its last save left it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from envs.core.files import write_text
from training.config import TrainConfig
from training.interrupt import GracefulInterrupt, StopNow
from training.params import int_at_least
from training.rllib.common import (
    CHECKPOINT_DIR,
    EVAL_AFTERWARDS,
    FROZEN_PREFIX,
    MAIN,
    META_FILE,
    OPPONENT,
    parse_opponents,
    require_rllib,
)

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
        "--num-env-runners",
        type=int_at_least(0),
        default=0,
        help="remote EnvRunner actors (0 = sample in the driver)",
    )
    g.add_argument(
        "--envs-per-runner",
        type=int_at_least(1),
        default=None,
        help="env copies per EnvRunner (default: n_envs of the config)",
    )
    g.add_argument(
        "--address", default=None, help="Ray cluster address (e.g. auto or ray://host:10001); default: local"
    )
    g.add_argument(
        "--num-cpus", type=int_at_least(1), default=None, help="CPUs of a local Ray instance (default: all)"
    )
    g.add_argument(
        "--self-play",
        choices=["shared", "frozen"],
        default=None,
        help="what the 'self' opponent is: the learning module on every seat (shared, the default), "
        "or a frozen copy (a resumed run keeps its own)",
    )
    g.add_argument(
        "--iterations",
        type=int_at_least(1),
        default=None,
        help="stop after N iterations (of this command, with --resume) or at --timesteps, whichever "
        "comes first (default: by timesteps)",
    )


def _ppo_section(config: dict[str, Any]) -> dict[str, Any]:
    """The SB3 hyper-parameters: top level (``TrainConfig``) or under ``ppo:``."""
    ppo = config.get("ppo")
    nested: dict[str, Any] = ppo if isinstance(ppo, dict) else {}
    return {**config, **nested}


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
    rllib = config.get("rllib") or {}
    out.update(rllib)
    if "minibatch_size" not in rllib:  # the SB3 batch_size (or the default) fits the rollout
        out["minibatch_size"] = min(out["minibatch_size"], out["train_batch_size_per_learner"])
    elif out["minibatch_size"] > out["train_batch_size_per_learner"]:
        raise ValueError(
            f"rllib: minibatch_size {out['minibatch_size']} is more than the rollout "
            f"(train_batch_size_per_learner {out['train_batch_size_per_learner']}): lower it or "
            "raise the rollout"
        )
    out.pop("n_envs", None)
    return out


def net_arch(config: dict[str, Any]) -> list[int]:
    """Hidden layer sizes: ``ppo.policy_kwargs.net_arch`` (a list, or dict with ``pi``), default [256, 256]."""
    ppo = _ppo_section(config)
    arch = (ppo.get("policy_kwargs") or {}).get("net_arch", ppo.get("net_arch"))
    if isinstance(arch, dict):
        arch = arch.get("pi")
    if isinstance(arch, list) and all(isinstance(x, int) for x in arch):
        return list(arch)
    return [256, 256]


def module_for(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: ``frozen_<seat>`` agents play the frozen copy, every other one ``main``."""
    return OPPONENT if str(agent_id).startswith(FROZEN_PREFIX) else MAIN


def build_config(
    env_config: dict[str, Any],
    config: dict[str, Any],
    args: argparse.Namespace,
    snapshot_steps: list[int] | None = None,
    seed: int | None = None,
) -> Any:
    """The ``PPOConfig`` of one run. ``snapshot_steps``: a one-item list, the env steps of the
    frozen opponent's last snapshot (read and advanced by the snapshot callback; a resumed run
    passes its saved value); ``seed``: RLlib's seed if not the run's (a resumed part's,
    :func:`training.config.resume_seed`)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.env import EightfoldMultiAgentEnv
    from training.rllib.module import MaskedPPOTorchRLModule

    frozen = env_config["self_play"] == "frozen" and "self" in env_config["opponents"]
    modules = [MAIN, OPPONENT] if frozen else [MAIN]
    model = DefaultModelConfig(fcnet_hiddens=net_arch(config), head_fcnet_hiddens=[64])
    specs = {m: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model) for m in modules}
    num_envs = max(1, args.num_env_runners) * args.envs_per_runner
    ppo = (
        PPOConfig()
        # The env checker steps random *unmasked* actions, which the engine rejects: disabled.
        .environment(EightfoldMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(policies=set(modules), policy_mapping_fn=module_for, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(**training_kwargs(config, num_envs))
        .debugging(seed=int(env_config.get("seed", 0)) if seed is None else seed, log_level="ERROR")
    )
    if frozen:
        every = int(config.get("snapshot_every", TrainConfig.snapshot_every))
        ppo = ppo.callbacks(on_train_result=_snapshot_callback(every, snapshot_steps))
    return ppo


def _snapshot_callback(every_steps: int, last: list[int] | None = None) -> Any:
    """Refresh the frozen opponent each time ``every_steps`` more env steps were sampled since
    ``last[0]`` (the steps of the last snapshot, kept up to date in that list)."""
    last = [0] if last is None else last

    def on_train_result(*, algorithm: Any, result: dict[str, Any], **kwargs: Any) -> None:
        steps = int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))
        if steps - last[0] >= every_steps:
            copy_main_to_opponent(algorithm)
            last[0] = steps

    return on_train_result


def copy_main_to_opponent(algorithm: Any) -> None:
    """Freeze the current ``main`` weights into ``opponent`` (learner and every EnvRunner).

    The EnvRunners get the copy at once, for the next sample: ``Algorithm.set_state`` syncs
    them with the learner's weights sequence number, which a copy does not advance, so they
    skipped it, and PPO's own sync after an update covers the trained module only."""
    path = f"learner/rl_module/{MAIN}"
    weights = algorithm.learner_group.get_state(components=path)["learner"]["rl_module"][MAIN]
    algorithm.learner_group.set_state({"learner": {"rl_module": {OPPONENT: weights}}})
    frozen = algorithm.learner_group.get_state(
        components=f"learner/rl_module/{OPPONENT}", inference_only=True
    )["learner"]["rl_module"]
    # no sequence number in the state: an EnvRunner then always takes it
    algorithm.env_runner_group.foreach_env_runner(
        lambda runner: runner.set_state({"rl_module": frozen}), local_env_runner=True
    )


def training_settings() -> set[str]:
    """The keywords ``PPOConfig.training`` takes (its own and those of its base classes)."""
    import inspect

    from ray.rllib.algorithms.ppo import PPOConfig

    names: set[str] = set()
    for klass in PPOConfig.__mro__:
        if "training" in vars(klass):
            for p in inspect.signature(vars(klass)["training"]).parameters.values():
                if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self":
                    names.add(p.name)
    return names


#: keys ``PPOConfig.training`` still takes that RLlib's new API stack (the one used here) never
#: reads, with what does their work
UNUSED_SETTINGS = {
    "train_batch_size": "train_batch_size_per_learner",
    "sgd_minibatch_size": "minibatch_size",
    "num_sgd_iter": "num_epochs",
    "model": "the config's net_arch (--set 'net_arch=[...]')",
    "optimizer": "lr and grad_clip",
}
#: the numeric settings checked here, as RLlib does not: (lowest, highest, lowest included)
NUMERIC_SETTINGS: dict[str, tuple[float, float, bool]] = {
    "lr": (0.0, math.inf, False),
    "gamma": (0.0, 1.0, False),
    "lambda_": (0.0, 1.0, True),
    "clip_param": (0.0, math.inf, False),
    "vf_clip_param": (0.0, math.inf, False),
    "entropy_coeff": (0.0, math.inf, True),
    "vf_loss_coeff": (0.0, math.inf, True),
    "kl_coeff": (0.0, math.inf, True),
    "grad_clip": (0.0, math.inf, False),
}
#: the settings that must be ints >= 1
COUNT_SETTINGS = ("train_batch_size_per_learner", "minibatch_size", "num_epochs")


def numbers_in_settings(settings: Any) -> Any:
    """``settings`` (the ``rllib:`` mapping) with each numeric setting (:data:`NUMERIC_SETTINGS`)
    that is a string read as a number, as :func:`training.config.merge` reads the top-level
    float options: YAML 1.1 reads ``lr: 1e-3`` (no dot) as the string ``'1e-3'``. A string that
    is no number stays, for :func:`check_training_settings` to name."""
    if not isinstance(settings, dict):
        return settings
    out = dict(settings)
    for key in NUMERIC_SETTINGS:
        value = out.get(key)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                out[key] = float(value)
    return out


#: SB3-only training options that the RLlib backend does not use, with why: one given on the
#: command line (``--set seat=1``) is a usage error (from a config file it is not used)
SB3_ONLY_SETTINGS = {
    "seat": "RLlib draws the learner's seat per episode",
    "partner": "the RLlib env has no partner seat: the learning module or the bots play every seat",
    "policy": "RLlib trains its own masked PPO module",
    "vec_env": "RLlib steps its env copies in its EnvRunners: --num-env-runners, --envs-per-runner",
    "pool_size": "RLlib's frozen opponent is one snapshot of main (snapshot_every), no pool",
    "latest_prob": "RLlib's frozen opponent is one snapshot of main (snapshot_every), no pool",
    "cnn_channels": "RLlib's module is an MLP of net_arch over the flattened observation",
    "features_dim": "RLlib's module is an MLP of net_arch over the flattened observation",
    **dict.fromkeys(
        ("eval_every", "eval_games", "eval_opponents", "eval_workers", "final_eval_games"),
        f"an RLlib run is evaluated afterwards: {EVAL_AFTERWARDS}",
    ),
    "progress_bar": "RLlib prints a line per iteration, no progress bar",
}
#: the values of :data:`SB3_ONLY_SETTINGS` that ask for nothing (no seat, no evaluation)
_UNSET: dict[str, Any] = {
    "seat": None,
    "partner": None,
    "eval_every": 0,
    "eval_games": 0,
    "final_eval_games": 0,
}


def _asks_for_nothing(key: str, value: Any) -> bool:
    """``value`` of the SB3-only ``key`` is its "none" (``seat=null``, ``eval_every=0``)."""
    if key not in _UNSET:
        return False
    unset = _UNSET[key]
    return value is unset or (type(value) is type(unset) and value == unset)


def check_command_line_settings(args: argparse.Namespace) -> None:
    """An SB3-only setting given on the command line (``--set seat=1``) would have no effect
    under RLlib: a usage error naming it (README: an option that would have no effect is
    refused). The same settings from a config file are not used, and not refused."""
    from training.params import parse_params

    items = getattr(args, "set", None) or []
    given = parse_params(items, flag="--set")
    bad = [k for k in SB3_ONLY_SETTINGS if k in given and not _asks_for_nothing(k, given[k])]
    if bad:
        typed = {item.partition("=")[0].strip(): item for item in items}  # the last of a key, as typed
        why = "; ".join(f"{k}: {SB3_ONLY_SETTINGS[k]}" for k in bad)
        raise ValueError(f"--set {', --set '.join(typed[k] for k in bad)}: for --backend sb3 only ({why})")


def check_training_settings(settings: dict[str, Any]) -> None:
    """An ``rllib:`` key that ``PPOConfig.training`` does not take, or that RLlib's new API
    stack never reads, and a value out of range are usage errors before Ray starts (they were a
    ``TypeError`` traceback from inside RLlib, a silent no-op, or a crash after Ray started)."""
    allowed = training_settings()
    unknown = sorted(set(settings) - allowed)
    if unknown:
        raise ValueError(
            f"rllib: unknown PPOConfig.training setting(s) {unknown}; allowed: {sorted(allowed - set(UNUSED_SETTINGS))}"
        )
    unused = sorted(k for k in settings if k in UNUSED_SETTINGS)
    if unused:
        instead = "; ".join(f"{k}: {UNUSED_SETTINGS[k]}" for k in unused)
        raise ValueError(f"rllib: {unused} are not read by RLlib's new API stack (instead, {instead})")
    for key in COUNT_SETTINGS:
        value = settings.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"rllib: {key} must be an int >= 1, got {value!r}")
    for key, (low, high, closed) in NUMERIC_SETTINGS.items():
        value = settings.get(key)
        if value is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not number or not (low <= value if closed else low < value) or value > high:
            bound = (
                f"{'[' if closed else '('}{low:g}, {high:g}]"
                if high < math.inf
                else f"{'>=' if closed else '>'} {low:g}"
            )
            raise ValueError(f"rllib: {key} must be a finite number {bound}, got {value!r}")


def _check_address(address: str | None, timeout: float = 5.0) -> None:
    """A ``host:port`` (or ``ray://host:port``) that accepts no connection is a usage error at
    once: ``ray.init`` waits for it forever. ``auto``, ``local`` and other forms go to Ray."""
    import socket

    if not address:
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ValueError(f"--address {address!r}: no Ray cluster reached ({exc})") from None


def _init_ray(args: argparse.Namespace) -> None:
    import ray

    if ray.is_initialized():
        return
    if args.address:
        try:
            ray.init(address=args.address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:  # no cluster there: a usage error
            raise ValueError(f"--address {args.address!r}: no Ray cluster reached ({exc})") from None
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)


def _option(args: argparse.Namespace, config: dict[str, Any], name: str, default: Any) -> Any:
    """A flag of ``eightfold train`` if given, else the training config's value, else ``default``."""
    value = getattr(args, name, None)
    if value is None:
        value = config.get(name)
    return default if value is None else value


def make_env_config(
    args: argparse.Namespace, params: dict[str, Any], config: dict[str, Any]
) -> dict[str, Any]:
    """The ``env_config`` of :class:`~training.rllib.env.EightfoldMultiAgentEnv` for a run."""
    from envs.core.registry import get_game

    return {
        "game": get_game(args.env).name,
        "params": dict(params),
        "opponents": parse_opponents(_option(args, config, "opponents", "self")),
        "self_play": args.self_play or "shared",
        "seed": int(_option(args, config, "seed", 0)),
    }


#: training options a resumed run keeps: what RLlib builds the learner and the games from (the
#: game, its opponents and seed, the network and the PPO settings; ``ppo`` / ``policy_kwargs`` /
#: ``rllib`` hold them too). The others may change: ``timesteps``, ``checkpoint_every``,
#: ``snapshot_every``, ``torch_threads``, and the settings RLlib does not read.
FIXED_OPTIONS = (
    "params", "opponents", "seed", *_SB3_TO_RLLIB, "n_steps", "n_envs", "net_arch", "policy_kwargs", "ppo", "rllib",
)  # fmt: skip
PROGRESS_FILE = "progress.json"
CONFIG_FILE = "config.yaml"


def train_rllib(args: argparse.Namespace, params: dict[str, Any], config: dict[str, Any]) -> Path:
    """Train (or with ``args.resume`` continue) a run: the checkpoint, ``eightfold_rllib.json``,
    ``progress.json`` and ``config.yaml`` are saved every ``checkpoint_every`` env steps and at
    the end; returns the run directory.

    ``args``: the parsed ``eightfold train`` flags (``env``, and optionally ``out``,
    ``timesteps``, ``seed``, ``opponents``, ``resume``) plus :func:`add_backend_args`;
    ``params``: the game parameters; ``config``: the resolved training config as a dict.
    """
    if float(config.get("shaping") or 0.0) > 0:  # the RLlib env pays the true returns only
        raise ValueError(
            f"shaping={config['shaping']} is implemented by the SB3 single-agent view only; "
            "train with --backend sb3, or add --set shaping=0 for RLlib"
        )
    if config.get("vf_arch") is not None:  # RLlib's module shares one encoder (net_arch)
        raise ValueError(
            f"vf_arch={config['vf_arch']} (a critic of its own) is for the SB3 policy's separate MLPs; "
            "RLlib's module shares one encoder of net_arch: train with --backend sb3, or add --set vf_arch=null"
        )
    check_command_line_settings(args)
    explicit_frozen = getattr(args, "self_play", None) == "frozen"  # before a resume sets it
    if "rllib" in config:  # YAML's '1e-3' text read as the number it is
        config = {**config, "rllib": numbers_in_settings(config["rllib"])}
    if int(config.get("pretrain_samples") or 0) > 0:  # behaviour cloning fits an SB3 policy
        raise ValueError(
            f"pretrain_samples={config['pretrain_samples']} (behaviour-cloning warm start) is "
            "implemented for the SB3 backend only; train with --backend sb3, or add "
            "--set pretrain_samples=0 for RLlib"
        )
    from envs.core.registry import get_game

    name = get_game(args.env).name
    default_out = f"runs/{name}-rllib-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = Path(_option(args, config, "out", default_out)).resolve()
    try:  # what config.yaml will hold: checked now, not at the first save after training
        _plain(config)
    except Exception as exc:  # yaml's RepresenterError and friends
        raise ValueError(f"the training config must hold plain values that YAML can write ({exc})") from None
    resume = bool(getattr(args, "resume", False))
    max_steps = int(_option(args, config, "timesteps", TrainConfig.timesteps))
    if max_steps < 1:  # checked before a fresh run clears `out` (the CLI's config refuses it too)
        raise ValueError(f"timesteps must be >= 1, got {max_steps}")
    done: list[dict[str, Any]] = []
    meta_before: dict[str, Any] = {}
    if resume:
        meta_before, done = check_rllib_resume(run_dir, args, params, config, max_steps)
    env_config = make_env_config(args, params, config)
    if explicit_frozen and "self" not in env_config["opponents"]:  # no frozen seat to play
        raise ValueError(
            f"--self-play frozen: no 'self' among the opponents {env_config['opponents']}, so it has no "
            "effect; add self to --opponents, or drop --self-play"
        )
    from training.players import is_model_spec
    from training.rllib.common import is_rllib_spec

    saved = [s for s in env_config["opponents"] if s != "self" and (is_model_spec(s) or is_rllib_spec(s))]
    if saved:  # the RLlib env builds its opponents from the game's bot table
        raise ValueError(
            f"opponents {saved}: the RLlib backend plays bots of the game's table and 'self'; "
            "saved models as opponents need --backend sb3"
        )
    require_rllib("--backend rllib")  # before the first import of Ray (the env's module)
    from training.rllib.env import env_bot

    game = get_game(name).game_class()(**params)
    for spec in env_config["opponents"]:  # a bad bot spec is named here, before Ray starts
        if spec != "self":  # the env's own table (random and mcts before a game's bots.py lands)
            env_bot(game, env_config, spec)
    if not args.address:  # a local Ray instance: each EnvRunner actor takes a CPU of its own
        cpus = int(args.num_cpus or os.cpu_count() or 1)
        if int(args.num_env_runners or 0) > cpus:
            raise ValueError(
                f"--num-env-runners {args.num_env_runners} is more than the {cpus} CPU(s) of the local Ray "
                "instance (--num-cpus): Ray would wait for CPUs forever"
            )
    if args.envs_per_runner is None:  # batched inference over n_envs copies, like SB3's VecEnv
        args.envs_per_runner = max(1, int(config.get("n_envs", 1)))
    check_training_settings(config.get("rllib") or {})
    training_kwargs(config, max(1, int(args.num_env_runners or 0)) * args.envs_per_runner)  # before Ray
    _check_address(args.address)
    import torch

    # The driver samples (0 runners) and learns: more torch threads than cores make each
    # small forward pass 10-100x slower (OpenMP spinning); Ray sets 1 thread in its actors.
    torch.set_num_threads(int(_option(args, config, "torch_threads", 1)))
    _init_ray(args)
    frozen = env_config["self_play"] == "frozen" and "self" in env_config["opponents"]
    snapshot_steps = [int(meta_before.get("snapshot_steps", 0))]
    from training.config import resume_seed

    steps_done = int(done[-1]["env_steps"]) if done else 0
    session_seed = resume_seed(env_config["seed"], steps_done)  # new games after a resume
    algo = build_config(env_config, config, args, snapshot_steps, session_seed).build_algo()
    meta = {
        "format": 1,
        "module": MAIN,
        **{k: env_config[k] for k in ("game", "params", "opponents", "self_play", "seed")},
    }
    every = max(1, int(config.get("checkpoint_every") or TrainConfig.checkpoint_every))

    def save(log: list[dict[str, Any]]) -> None:
        meta["snapshot_steps"] = snapshot_steps[0]
        save_run(algo, run_dir, meta, config, done + log)

    try:
        if resume:
            algo.restore_from_path(str(run_dir / CHECKPOINT_DIR))
            print(f"resuming {run_dir} at {steps_done:,} env steps", flush=True)
        else:
            from training.train import clear_run

            clear_run(run_dir)  # an earlier run's files, of either backend
            if frozen:
                copy_main_to_opponent(algo)  # the first opponent is main itself, not another random net
        print(
            f"training {name}{f' {params}' if params else ''} with RLlib PPO vs {env_config['opponents']}",
            flush=True,
        )
        shared = env_config["self_play"] == "shared" and "self" in env_config["opponents"]
        if shared and os.environ.get("PYTHONHASHSEED", "random") == "random":
            print(
                "note: shared self-play repeats across processes only with a fixed PYTHONHASHSEED "
                "(RLlib batches an episode's agents in set order): PYTHONHASHSEED=0 eightfold train ...",
                file=sys.stderr,
                flush=True,
            )
        log: list[dict[str, Any]] = []
        interrupted = False
        try:
            _train_loop(algo, args, max_steps, log, done[-1] if done else None, every, save)
        except StopNow:  # a second Ctrl-C: the algorithm may be mid-update, so nothing is saved
            print("\nstopped: the run stays as its last save left it", file=sys.stderr, flush=True)
            raise KeyboardInterrupt from None
        except KeyboardInterrupt:  # Ctrl-C between iterations: keep what the finished ones learned
            if not log:
                raise
            interrupted = True
            print(f"\ninterrupted after {len(log)} iteration(s): saving them", file=sys.stderr, flush=True)
        if log:  # nothing new when a resume's first iteration was interrupted (the run is as it was)
            save(log)
    finally:
        algo.stop()
    flags = "".join(
        f" --param {shlex.quote(f'{k}={json.dumps(v)}')}" for k, v in sorted(env_config["params"].items())
    )
    solo = get_game(name).game_class()(**env_config["params"]).num_players == 1  # no seat to play against
    how = f"--watch {run_dir}" if solo else f"--vs {run_dir}"
    print(f"saved {run_dir / CHECKPOINT_DIR} (play it with: eightfold play {name}{flags} {how})")
    if interrupted:
        raise KeyboardInterrupt  # the command still ends as interrupted (status 130)
    return run_dir


def _plain(value: Any) -> Any:
    """``value`` as YAML writes and reads it back (tuples as lists, numpy scalars refused)."""
    import yaml

    return yaml.safe_load(yaml.safe_dump(value, sort_keys=False))


#: the run's metadata, progress rows and config as of a checkpoint, saved inside it: a resume
#: reads them from there, so they always match the weights (the copies beside the checkpoint are
#: for people and tools, and may lag if the process died between the two writes)
RUN_RECORD = "eightfold_run.json"


def recover_checkpoint(run_dir: Path) -> None:
    """A save stopped between its two renames leaves ``checkpoint.old`` (whole) and no
    ``checkpoint``: put it back."""
    old = run_dir / f"{CHECKPOINT_DIR}.old"
    if not (run_dir / CHECKPOINT_DIR).is_dir() and old.is_dir():
        old.rename(run_dir / CHECKPOINT_DIR)


def save_run(
    algo: Any, run_dir: Path, meta: dict[str, Any], config: dict[str, Any], log: list[dict[str, Any]]
) -> None:
    """The checkpoint, with the metadata, progress rows and config it goes with inside it
    (:data:`RUN_RECORD`), written beside the old one and then swapped in, so a save stopped at
    any point leaves a whole checkpoint with its own record; then ``eightfold_rllib.json``,
    ``progress.json`` and ``config.yaml`` beside it, each replaced in one step."""
    import shutil

    import yaml

    run_dir.mkdir(parents=True, exist_ok=True)
    recover_checkpoint(run_dir)
    new, old = run_dir / f"{CHECKPOINT_DIR}.new", run_dir / f"{CHECKPOINT_DIR}.old"
    for leftover in (new, old):
        if leftover.exists():
            shutil.rmtree(leftover)
    # strict JSON: an iteration that finished no episode has no mean (null, not NaN)
    strict = [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()} for row in log
    ]
    plain = _plain(config)
    algo.save_to_path(str(new))
    record = {"meta": meta, "progress": strict, "config": plain}
    (new / RUN_RECORD).write_text(json.dumps(record, indent=2, allow_nan=False), encoding="utf-8")
    current = run_dir / CHECKPOINT_DIR
    if current.exists():
        current.rename(old)
    new.rename(current)
    if old.exists():
        shutil.rmtree(old)
    write_text(run_dir / META_FILE, json.dumps(meta, indent=2))
    write_text(run_dir / PROGRESS_FILE, json.dumps(strict, indent=2, allow_nan=False))
    write_text(run_dir / CONFIG_FILE, yaml.safe_dump(plain, sort_keys=False))


def check_rllib_resume(
    run_dir: Path, args: argparse.Namespace, params: dict[str, Any], config: dict[str, Any], max_steps: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What a resume continues from (the run's metadata and progress rows), after checking that
    the run is there and that nothing it was trained with changes: the game and its parameters,
    the opponents, the self-play mode, the seed and the :data:`FIXED_OPTIONS`. The metadata,
    progress and config come from the checkpoint's own record (:data:`RUN_RECORD`). Sets
    ``args.self_play`` to the run's when not given."""
    from envs.core.registry import get_game

    if not (run_dir / META_FILE).is_file():
        raise ValueError(
            f"--resume: no RLlib run to continue in {str(run_dir)!r} (no {META_FILE} there); drop --resume to start one"
        )
    recover_checkpoint(run_dir)
    record_file = run_dir / CHECKPOINT_DIR / RUN_RECORD
    if not (run_dir / CHECKPOINT_DIR).is_dir():
        raise ValueError(
            f"--resume: {str(run_dir)!r} has no {CHECKPOINT_DIR}/ to continue from: start a new run"
        )
    if not record_file.is_file():
        raise ValueError(
            f"--resume: {str(run_dir / CHECKPOINT_DIR)!r} holds no {RUN_RECORD} (a run saved before RLlib "
            "runs could resume): start a new run"
        )
    try:
        record = json.loads(record_file.read_text(encoding="utf-8"))
        meta, done, saved = dict(record["meta"]), list(record["progress"]), dict(record["config"])
        steps = int(done[-1]["env_steps"])
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ValueError(
            f"--resume: {str(record_file)!r} is not a run record eightfold wrote ({exc})"
        ) from None
    name = get_game(args.env).name
    if meta.get("game") != name:
        raise ValueError(
            f"--resume continues the run in {str(run_dir)!r}, a run of {meta.get('game')}, not {name}"
        )
    if args.self_play is None:
        args.self_play = meta.get("self_play", "shared")
    game_class = get_game(name).game_class()
    before = dict(meta.get("params") or {})
    if game_class(**params).config != game_class(**before).config:
        raise ValueError(
            f"--resume continues the run's game {before or '(defaults)'}; the parameters {params} would change it"
        )
    now = make_env_config(args, params, config)
    changed = [
        k for k in ("opponents", "self_play", "seed") if k in meta and _plain(meta[k]) != _plain(now[k])
    ]
    given = _plain(config)
    changed += sorted(
        k
        for k in set(saved) | set(given)
        if k in FIXED_OPTIONS and k not in changed and saved.get(k) != given.get(k)
    )
    if changed:
        was = {k: meta[k] if k in meta else saved.get(k) for k in changed}
        raise ValueError(
            f"--resume: {', '.join(changed)} cannot change (the run was trained with {was}); an RLlib "
            "run continues with the game, opponents, seed, self-play mode, network and PPO settings it "
            "began with (--timesteps, --iterations, checkpoint_every, snapshot_every, torch_threads and "
            "the Ray resources may change): start a new run instead"
        )
    if max_steps <= steps:
        raise ValueError(f"--resume: the run is at {steps:,} env steps already; give --timesteps above that")
    return meta, done


def _train_loop(
    algo: Any,
    args: argparse.Namespace,
    max_steps: int,
    log: list[dict[str, Any]],
    last: dict[str, Any] | None = None,
    every: int = 0,
    save: Any = None,
) -> None:
    """``algo.train()`` until the step or iteration budget; one row per iteration appended to
    ``log`` (kept by the caller if the loop is interrupted) and printed. ``last``: the last row
    of the run resumed (its iteration, steps and seconds go on from there); ``save(log)`` runs
    each time the env steps pass a multiple of ``every``. A Ctrl-C ends the loop after the
    iteration under way with ``KeyboardInterrupt`` (a second one at once: :class:`StopNow`)."""
    with GracefulInterrupt("finishing the iteration under way, then saving") as ctrl_c:
        _iterations(algo, args, max_steps, log, last, every, save, ctrl_c)
    if ctrl_c.requested:
        raise KeyboardInterrupt


def _iterations(
    algo: Any,
    args: argparse.Namespace,
    max_steps: int,
    log: list[dict[str, Any]],
    last: dict[str, Any] | None,
    every: int,
    save: Any,
    ctrl_c: GracefulInterrupt,
) -> None:
    base_iter = int(last["iteration"]) if last else 0
    base_seconds = float(last["seconds"]) if last else 0.0
    steps = int(last["env_steps"]) if last else 0
    start = time.perf_counter()

    def more() -> bool:
        return steps < max_steps and (args.iterations is None or len(log) < args.iterations)

    while more() and not ctrl_c.requested:
        before = steps
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
        elapsed = base_seconds + time.perf_counter() - start
        row = {
            "iteration": float(base_iter + len(log) + 1),
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
            f"iter {int(row['iteration']):4d}  steps {steps:9d}  {row['env_steps_per_s']:8.0f} steps/s  "
            f"main's summed return {row['main_return_mean']:+.3f}  episode length {row['episode_len_mean']:.1f}",
            flush=True,
        )
        if (
            save is not None
            and every > 0
            and steps // every > before // every
            and more()
            and not ctrl_c.requested
        ):
            save(log)  # the end of the run (or of an interrupted one) saves anyway
