"""The training configuration: defaults < ``configs/<game>.yaml`` (or ``--config``) < flags.

The resolved configuration is written to ``<out>/config.yaml`` with every run, and
``--resume`` reads it back from there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envs.core.config import is_real
from envs.core.files import write_text


def find_config_dir(package_dir: Path) -> Path:
    """Where the per-game YAMLs are: ``training/configs/`` in an installed wheel (``setup.py``
    copies them there), else the source checkout's top-level ``configs/``."""
    packaged = package_dir / "configs"
    return packaged if packaged.is_dir() else package_dir.parent / "configs"


CONFIG_DIR = find_config_dir(Path(__file__).resolve().parent)

#: values of the ``policy`` option (``training.policies.policy_class``): ``masked`` is
#: ``MaskedPolicy``, ``sb3`` sb3-contrib's ``MaskableActorCriticPolicy`` (the runs before 2026-12-01)
POLICIES = ("masked", "sb3")


#: the options that are ``MaskablePPO`` constructor arguments of the same name
PPO_KWARGS = (
    "learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
    "ent_coef", "vf_coef", "max_grad_norm",
)  # fmt: skip


@dataclass
class TrainConfig:
    """Everything a training run depends on (see ``configs/*.yaml`` for the explanations)."""

    env: str = "over_and_out"
    params: dict[str, Any] = field(default_factory=dict)
    timesteps: int = 200_000
    seed: int = 0
    out: str = "runs/default"
    # environments
    n_envs: int = 8
    vec_env: str = "dummy"
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 1.0, "heuristic": 1.0})
    partner: str | None = None
    seat: int | None = None
    shaping: float = 0.0
    # MaskablePPO
    learning_rate: float = 3e-4
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # network
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    vf_arch: list[int] | None = None  # the critic's hidden layers (None: net_arch, as the actor's)
    cnn_channels: list[int] = field(default_factory=lambda: [64, 64])
    features_dim: int = 256
    policy: str = "masked"  # "masked": training.policies.MaskedPolicy; "sb3": sb3-contrib's own
    # behaviour-cloning warm start (training/pretrain.py)
    pretrain_teacher: str = "heuristic"
    pretrain_samples: int = 0
    pretrain_opponents: dict[str, float] | None = None  # whom the teacher's decisions meet (None: opponents)
    pretrain_epochs: int = 5
    pretrain_learning_rate: float | None = None  # None: learning_rate
    pretrain_batch_size: int | None = None  # None: batch_size
    pretrain_symmetries: bool = False  # augment the fit with the game's symmetries
    pretrain_temperature: float = 0.0  # > 0: fit the softmax of the teacher's scores, or an mcts teacher's visits ** (1/T) (0: its best set)
    pretrain_rounds: int = 0
    pretrain_workers: int = 2
    # self-play
    snapshot_every: int = 25_000
    pool_size: int = 8
    latest_prob: float = 0.5
    # evaluation and checkpoints
    eval_every: int = 25_000
    eval_games: int = 40
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    final_eval_games: int = 0
    eval_workers: int = 2
    checkpoint_every: int = 50_000
    # machine
    torch_threads: int = 1
    progress_bar: bool = True
    # RLlib backend only: passed to PPOConfig.training as is (e.g. {"lambda_": 0.95})
    rllib: dict[str, Any] = field(default_factory=dict)

    def ppo_kwargs(self) -> dict[str, Any]:
        """The settings of ``MaskablePPO(...)`` this config fixes (``eightfold train`` and the
        learner benchmark build the model from the same ones)."""
        return {name: getattr(self, name) for name in PPO_KWARGS}

    def validate(self) -> None:
        for f in dataclasses.fields(self):
            _check_type(f, getattr(self, f.name))
        if not isinstance(self.params, Mapping):
            raise ValueError(
                f"params must be a dict of game parameters (e.g. {{'num_players': 3}}; {{}} for the "
                f"defaults), got {self.params!r}"
            )
        keys = [k for k in self.params if not isinstance(k, str)]
        if keys:
            raise ValueError(f"params names parameters by strings, got the key(s) {keys}")
        if self.vec_env not in ("dummy", "subproc"):
            raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {self.vec_env!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {list(POLICIES)}, got {self.policy!r}")
        at_least_one: tuple[str, ...] = (
            "timesteps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "torch_threads",
        )
        at_least_one += ("features_dim", "snapshot_every", "pool_size", "eval_workers", "checkpoint_every")
        for name in at_least_one:
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        for name in ("eval_every", "eval_games", "final_eval_games"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"{name} must be >= 0 (0 = none), got {getattr(self, name)!r}")
        if not 0 <= int(self.seed) < 2**32:
            raise ValueError(f"seed must be in [0, 2**32 - 1], got {self.seed!r}")
        for name, least in (("net_arch", 0), ("vf_arch", 0), ("cnn_channels", 1)):
            widths = getattr(self, name)
            if widths is None and name == "vf_arch":
                continue
            ok = isinstance(widths, list) and len(widths) >= least
            if not ok or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in widths):
                kind = "a list" if least == 0 else "a non-empty list"
                null = " (or null: net_arch)" if name == "vf_arch" else ""
                raise ValueError(f"{name} must be {kind} of integer widths >= 1{null}, got {widths!r}")
        if not 0 < float(self.gamma) <= 1:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma!r}")
        for name, low, high in (("gae_lambda", 0.0, 1.0), ("latest_prob", 0.0, 1.0)):
            if not low <= float(getattr(self, name)) <= high:
                raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {getattr(self, name)!r}")
        for name in ("learning_rate", "clip_range", "max_grad_norm"):
            if not 0 < float(getattr(self, name)) < math.inf:
                raise ValueError(f"{name} must be a finite number > 0, got {getattr(self, name)!r}")
        for name in ("shaping", "ent_coef", "vf_coef"):
            if not 0 <= float(getattr(self, name)) < math.inf:
                raise ValueError(f"{name} must be a finite number >= 0, got {getattr(self, name)!r}")
        for name in ("pretrain_samples", "pretrain_epochs", "pretrain_rounds"):
            if int(getattr(self, name)) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.pretrain_learning_rate is not None and not 0 < float(self.pretrain_learning_rate) < math.inf:
            raise ValueError(
                f"pretrain_learning_rate must be a finite number > 0 or null, got {self.pretrain_learning_rate!r}"
            )
        if self.pretrain_batch_size is not None and int(self.pretrain_batch_size) < 1:
            raise ValueError(f"pretrain_batch_size must be >= 1 or null, got {self.pretrain_batch_size!r}")
        if not 0 <= float(self.pretrain_temperature) < math.inf:
            raise ValueError(
                f"pretrain_temperature must be a finite number >= 0, got {self.pretrain_temperature!r}"
            )
        if int(self.pretrain_workers) < 1:
            raise ValueError(f"pretrain_workers must be >= 1, got {self.pretrain_workers!r}")
        rollout = int(self.n_steps) * int(self.n_envs)
        if int(self.batch_size) > rollout:
            raise ValueError(
                f"batch_size must be <= n_steps x n_envs (the rollout PPO splits into minibatches: "
                f"{self.n_steps} x {self.n_envs} = {rollout}), got {self.batch_size!r}"
            )
        # PPO divides each minibatch's advantages by their standard deviation: NaN for one sample,
        # and the weights turn NaN with it (sb3-contrib's MaskablePPO does not check this)
        one = " (NaN for one sample, and the weights turn NaN with it)"
        if int(self.batch_size) < 2:
            raise ValueError(
                f"batch_size must be >= 2: PPO scales each minibatch's advantages by their standard "
                f"deviation{one}; got {self.batch_size!r}"
            )
        if rollout % int(self.batch_size) == 1:
            raise ValueError(
                f"batch_size {self.batch_size!r} leaves one sample in the last minibatch of the rollout "
                f"({self.n_steps} x {self.n_envs} = {rollout}): PPO scales a minibatch's advantages by "
                f"their standard deviation{one}; take a batch_size that divides {rollout} or leaves more"
            )
        for name in ("opponents", "pretrain_opponents"):
            weights = getattr(self, name)
            if weights is None and name == "pretrain_opponents":
                continue
            if not isinstance(weights, Mapping):  # merge() reads lists and comma strings into one
                raise ValueError(f"{name} must be a mapping of bot spec -> weight here, got {weights!r}")
            if not weights:
                raise ValueError(f"{name} must name at least one opponent")
            if not all(is_real(w) and 0 < float(w) < math.inf for w in weights.values()):
                raise ValueError(f"{name}: opponent weights must be finite numbers > 0, got {weights}")
        if not isinstance(self.rllib, dict):
            raise ValueError(f"rllib must be a mapping of PPOConfig.training settings, got {self.rllib!r}")
        if not isinstance(self.eval_opponents, list):
            raise ValueError(
                f"eval_opponents must be a list of bot specs (a YAML list, or a comma list: --set "
                f"eval_opponents=random,heuristic), got {self.eval_opponents!r}"
            )
        twice = sorted({str(s) for s in self.eval_opponents if self.eval_opponents.count(s) > 1})
        if twice:
            raise ValueError(
                f"eval_opponents must name each baseline once (each is played eval_games games), got "
                f"{', '.join(map(repr, twice))} twice or more in {self.eval_opponents!r}"
            )
        periodic = int(self.eval_every) > 0 and int(self.eval_games) > 0
        if not self.eval_opponents and (periodic or int(self.final_eval_games) > 0):
            raise ValueError(
                "eval_opponents must name at least one bot while the run evaluates (eval_every "
                f"{self.eval_every} with eval_games {self.eval_games}, final_eval_games "
                f"{self.final_eval_games}; eval_games 0 and final_eval_games 0 evaluate nothing)"
            )
        self._validate_for_game()

    def _validate_for_game(self) -> None:
        """The options that depend on the game: ``env`` and ``params`` (the game's own checks),
        ``seat``, and every player named (``opponents``, ``partner``, ``eval_opponents``,
        ``pretrain_teacher``): a bot spec of the game's table, a saved model that exists, an
        RLlib run, or ``self`` where past selves may play."""
        from envs.core.registry import get_game
        from training.players import PolicyPlayer, game_bots, is_model_spec, make_bot_of, params_note
        from training.rllib.common import is_rllib_spec

        entry = get_game(self.env)
        game = entry.game_class()(**self.params)
        bots = game_bots(entry)
        n = game.num_players
        if self.seat is not None and not 0 <= int(self.seat) < n:
            raise ValueError(
                f"seat must be in [0, {n - 1}] for {n} player(s), or null (drawn), got {self.seat!r}"
            )

        def check(option: str, spec: Any, allow_self: bool = False) -> None:
            if not isinstance(spec, str) or not spec.strip():
                raise ValueError(f"{option}: expected a bot spec or a model path, got {spec!r}")
            if (allow_self and spec == "self") or is_rllib_spec(spec):
                return
            if is_model_spec(spec):
                if not Path(spec.strip()).is_file():
                    raise ValueError(f"{option}: no model at {spec!r}")
                try:  # another game's model is named as such; then its spaces must be this game config's
                    params_note(spec.strip(), game)
                    PolicyPlayer.load(spec.strip(), game)
                except ValueError as exc:
                    raise ValueError(f"{option}: {exc}") from None
                return
            try:
                make_bot_of(game, spec, bots)
            except ValueError as exc:
                raise ValueError(f"{option}: {exc}") from None

        for spec in self.opponents:
            check("opponents", spec, allow_self=True)
        for spec in self.pretrain_opponents or {}:
            check("pretrain_opponents", spec, allow_self=True)
        if self.partner is not None:
            check("partner", self.partner, allow_self=True)
        for spec in self.eval_opponents:
            check("eval_opponents", spec)
        check("pretrain_teacher", self.pretrain_teacher)
        if int(self.pretrain_samples) > 0:
            from training.players import make_player
            from training.pretrain import check_pretrain_options

            teacher = make_player(game, str(self.pretrain_teacher), bots)
            check_pretrain_options(game, self.to_dict(), teacher)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_SCALARS: dict[str, tuple[type, ...]] = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,)}
_KIND = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false"}


def _annotation(f: dataclasses.Field[Any]) -> tuple[str, str]:
    """``("float", "None")`` for an option annotated ``float | None``, ``("int", "")`` for ``int``."""
    base, _, rest = str(f.type).partition(" | ")
    return base, rest


def _check_type(f: dataclasses.Field[Any], value: Any) -> None:
    """A scalar option (``int``, ``float``, ``str``, ``bool``, or one of them ``| None``) holds a
    value of that type (a bool is not a number here); the error names the option."""
    name = f.name
    base, rest = _annotation(f)
    if base not in _SCALARS or rest not in ("", "None"):
        return  # lists and mappings are checked where they are used
    if value is None and rest == "None":
        return
    ok = isinstance(value, _SCALARS[base]) and (base == "bool" or not isinstance(value, bool))
    if not ok:
        null = " or null" if rest == "None" else ""
        raise ValueError(f"{name} must be {_KIND[base]}{null}, got {value!r}")


def split_specs(value: str, option: str) -> list[str]:
    """A comma list of player specs -> the specs: a ``k=v`` item continues the bot spec before
    it (``"random,mcts:sims=50,c=0.5"`` is ``random`` and ``mcts:sims=50,c=0.5``), and an item
    that names no bot or model among several is refused (a path split at its own comma). Errors
    name ``option``."""
    items: list[str] = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        if items and ":" in items[-1] and "=" in part and ":" not in part:
            items[-1] += "," + part
        else:
            items.append(part)
    if len(items) > 1:  # a path split at its own comma would read as an unknown bot
        from training.players import NOT_A_MODEL, names_no_player

        for item in items:
            if names_no_player(item):
                raise ValueError(
                    f"{option}: no bot or model {item!r} ({NOT_A_MODEL}); a comma separates the "
                    f"specs, so a path with a comma in it goes in a list: "
                    f"--set '{option}=[\"runs/a,b/model.zip\"]'"
                )
    return items


#: how a Python player of one's own joins the single-agent view's opponents (specs are strings)
PLAYER_HINT = (
    " (bot specs and model paths); a player object of your own (with act(state, seat, rng) -> int) "
    "joins the view's opponents through env.unwrapped.add_opponent(group, name, player)"
)


def parse_opponents(value: Any, option: str = "opponents") -> dict[str, float]:
    """``"random,heuristic,self"``, a list, or a ``{spec: weight}`` mapping -> weights. In a
    comma list a ``k=v`` item continues the bot spec before it, so a spec keeps all its
    parameters: ``"random,mcts:sims=50,c=0.5"`` is ``random`` and ``mcts:sims=50,c=0.5``.
    In a list each item weighs 1, so ``"random,random,heuristic"`` is ``{random: 2, heuristic: 1}``.
    Errors name ``option``."""
    if isinstance(value, str):
        value = split_specs(value, option)
    if isinstance(value, Mapping):
        weights = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(
                    f"{option}: the key {k!r} is a {type(k).__name__}, not a spec string{PLAYER_HINT}"
                )
            try:
                if isinstance(v, bool):  # `true` is no weight (validate refuses bools everywhere)
                    raise TypeError
                weights[str(k)] = float(v)
            except (TypeError, ValueError):
                raise ValueError(f"{option}: the weight of {k!r} must be a number, got {v!r}") from None
        return weights
    if isinstance(value, (list, tuple)):  # weight 1 per item: a spec named twice is drawn twice as often
        counts: dict[str, float] = {}
        for i, v in enumerate(value, start=1):
            if v is None or (isinstance(v, str) and not v.strip()):  # a YAML `-` with nothing after it
                raise ValueError(f"{option}: item {i} of the list is blank; give a bot spec or `self`")
            if not isinstance(v, str):  # a Python player, a function, a torch module: no spec
                raise ValueError(
                    f"{option}: item {i} is a {type(v).__name__}, not a spec string{PLAYER_HINT}"
                )
            counts[v] = counts.get(v, 0.0) + 1.0
        return counts
    raise ValueError(f"{option} must be a comma list, a list or a mapping, got {value!r}")


def default_config_path(env: str) -> Path | None:
    path = CONFIG_DIR / f"{env}.yaml"
    return path if path.exists() else None


def read_yaml(path: str | Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:  # whatever the locale: YAML files are UTF-8
            data = yaml.safe_load(f)
    except FileNotFoundError as exc:
        raise ValueError(f"no config file {str(path)!r}") from exc
    except IsADirectoryError:
        raise ValueError(f"config file {str(path)!r} is a directory; give a YAML file") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or "malformed"
        raise ValueError(f"{path}: not valid YAML{at} ({problem})") from None
    if data is None:  # an empty file (or only comments): no options
        return {}
    if not isinstance(data, dict):  # `[]`, `false` or `0` too: not read as no options
        raise ValueError(f"{path}: expected a mapping at the top level, got {type(data).__name__}")
    return data


def merge(cfg: TrainConfig, data: dict[str, Any], source: str) -> TrainConfig:
    """``cfg`` updated with ``data`` (unknown keys are an error naming ``source``)."""
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - known, key=repr)  # keys of any type, mixed too
    if unknown:
        raise ValueError(f"{source}: unknown training option(s) {unknown}; known: {sorted(known)}")
    values = dict(data)
    for f in dataclasses.fields(TrainConfig):  # YAML 1.1 reads 3e-4 (no dot) as a string
        v = values.get(f.name)
        if _annotation(f)[0] == "float" and isinstance(v, str):
            with contextlib.suppress(ValueError):  # not a number: validate() names the option
                values[f.name] = float(v)
    if "opponents" in values:
        values["opponents"] = parse_opponents(values["opponents"])
    if isinstance(values.get("eval_opponents"), str):  # a comma list, read as opponents' is
        values["eval_opponents"] = split_specs(values["eval_opponents"], "eval_opponents")
    if values.get("pretrain_opponents") is not None:
        values["pretrain_opponents"] = parse_opponents(values["pretrain_opponents"], "pretrain_opponents")
    if "params" in values:
        if values["params"] is not None and not isinstance(values["params"], dict):
            raise ValueError(
                f"{source}: params must be a mapping of game parameters (e.g. {{num_players: 3}}), "
                f"got {values['params']!r}"
            )
        keys = [k for k in values["params"] or {} if not isinstance(k, str)]
        if keys:  # a YAML `1:` or `null:` key is no parameter name
            raise ValueError(f"{source}: params names parameters by strings, got the key(s) {keys}")
        values["params"] = {**cfg.params, **(values["params"] or {})}
    return dataclasses.replace(cfg, **values)


def save_config(cfg: TrainConfig, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "config.yaml"
    write_text(path, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return path


def resume_seed(seed: int, steps: int) -> int:
    """The seed of a run's part that resumes at ``steps`` env steps: ``seed`` itself for a
    fresh run (``steps`` 0), else a seed drawn from both, so a resumed run deals new games
    instead of replaying those its first part began with (both backends seed their envs,
    opponents and action sampling from it), and the same resume repeats."""
    if steps <= 0:
        return int(seed)
    import numpy as np

    return int(np.random.SeedSequence([int(seed), int(steps)]).generate_state(1)[0] & 0x7FFFFFFF)
