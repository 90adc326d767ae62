"""Players for the training layer: scripted bots and frozen MaskablePPO policies behind
one interface, ``player.act(state, seat, rng) -> int`` (the :class:`envs.core.bots.Bot`
interface), plus the opponent pool the single-agent view samples from.

    player = make_player(game, "heuristic", bots)          # a bot spec
    player = make_player(game, "runs/demo/model.zip", bots)  # a trained agent
    pool = OpponentPool.from_specs(game, ["random", "heuristic"], bots)
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.core.bots import make_bot
from envs.core.config import is_real
from envs.core.game import Game, GameState


@runtime_checkable
class Player(Protocol):
    """Anything that picks a legal action for ``seat`` (the seat to act)."""

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int: ...


class ProbabilityPlayer:
    """A player defined by ``probabilities(state, seat)`` over the legal actions: it plays the
    most likely action (``deterministic``) or samples with the caller's ``rng``."""

    deterministic: bool
    name: str

    def probabilities(self, state: GameState, seat: int) -> np.ndarray:
        raise NotImplementedError

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        probs = self.probabilities(state, player)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(probs.size, p=probs))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


#: Policies loaded in this process, by file identity (real path, modification time, size): the
#: n_envs in-process envs of a ``dummy`` run each add every self-play snapshot to their pool,
#: and load it once between them (0.4 s and ~32 MB per copy of OTTO Game Over's [512, 512]
#: network). Weak: a policy no pool holds any more is freed; a rewritten file loads anew.
_LOADED: weakref.WeakValueDictionary[tuple[str, int, int], Any] = weakref.WeakValueDictionary()
#: Loads in several threads take turns (the generators each load puts back are the process's).
_LOAD_LOCK = threading.Lock()


class PolicyPlayer(ProbabilityPlayer):
    """A frozen (Maskable) actor-critic policy playing from the engine state.

    It sees exactly what the learner saw in training: ``game.observe(state, seat)`` and
    the legal mask. Sampling uses the caller's numpy ``rng`` (never torch's generator),
    so a frozen opponent does not disturb the reproducibility of the training run.
    """

    def __init__(self, policy: Any, game: Game[Any, Any], deterministic: bool = False, name: str = "policy"):
        space, actions = policy.observation_space, getattr(policy.action_space, "n", None)
        if space.shape is None or actions is None:  # a Dict observation (MultiInputPolicy), no Discrete
            raise ValueError(
                f"policy {name!r} was trained on {type(space).__name__} observations and "
                f"{type(policy.action_space).__name__} actions; a player is fed the single-agent "
                f"view's observation, a Box of {game.observation_shape}, and picks one of "
                f"Discrete({game.num_actions}): train on the view's observation (MlpPolicy/CnnPolicy)"
            )
        shape = tuple(space.shape)
        if shape != tuple(game.observation_shape) or int(actions) != game.num_actions:
            if (
                int(np.prod(shape)) == int(np.prod(game.observation_shape))
                and int(actions) == game.num_actions
            ):
                hint = (
                    "the same numbers in another shape: a player is fed the view's observation "
                    "unchanged, so a model trained through an observation wrapper (such as "
                    "FlattenObservation) does not fit"
                )
            else:
                hint = (
                    "a model of another game, variant or player count (name the env and the --param "
                    "values it was trained with), or trained through an observation wrapper"
                )
            raise ValueError(
                f"policy {name!r} was trained on observations {shape} / {actions} actions, "
                f"but this game config has {game.observation_shape} / {game.num_actions}: {hint}"
            )
        self.policy = policy
        self.game = game
        self.deterministic = deterministic
        self.name = name
        policy.set_training_mode(False)

    @classmethod
    def load(cls, path: str, game: Game[Any, Any], deterministic: bool = False) -> PolicyPlayer:
        """Load a saved model. sb3's ``load`` re-seeds the process-wide ``random``, numpy and
        torch generators with the model's seed; their states are put back afterwards, so a
        snapshot loaded into the learner's own process (``vec_env: dummy``) leaves the run's
        random stream where it was (as in ``subproc``, where the load happens elsewhere);
        loads in several threads take turns, so each finds and puts back the run's states.
        A file already loaded in this process (unchanged since) shares that policy: the players
        only read it."""
        import random

        import torch
        from sb3_contrib import MaskablePPO

        # an overlapping load in another thread would put back a model's seed, not the run's
        with _LOAD_LOCK:
            key = file_identity(path)  # None: the load below names the problem
            policy = None if key is None else _LOADED.get(key)
            if policy is not None:
                return cls(policy, game, deterministic=deterministic, name=path)
            kept = (random.getstate(), np.random.get_state(), torch.get_rng_state())
            try:
                model = MaskablePPO.load(path, device="cpu")
            except FileNotFoundError as exc:
                raise ValueError(f"no model at {path!r}") from exc
            # a zip without sb3's data or with data of another shape, or another algorithm's model
            except (AssertionError, AttributeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(
                    f"{path!r} is not a MaskablePPO model (what eightfold train saves): {type(exc).__name__}: {exc}"
                ) from exc
            finally:
                random.setstate(kept[0])
                np.random.set_state(kept[1])
                torch.set_rng_state(kept[2])
            broken = sum(int((~torch.isfinite(t)).sum()) for t in model.policy.state_dict().values())
            if broken:  # such a policy plays without error, but its choices are no policy's
                raise ValueError(
                    f"{path!r}: {broken} of the model's weights are NaN or infinite (its training "
                    "diverged); it cannot play"
                )
            player = cls(model.policy, game, deterministic=deterministic, name=path)
            if key is not None:
                _LOADED[key] = model.policy
        return player

    def probabilities(self, state: GameState, seat: int) -> np.ndarray:
        """Masked action probabilities of the policy for ``seat``."""
        import torch

        obs = torch.as_tensor(self.game.observe(state, seat)[None])
        mask = state.legal_mask().astype(bool)
        with torch.no_grad():
            dist = self.policy.get_distribution(obs, action_masks=mask[None])
            probs = dist.distribution.probs[0].numpy().astype(np.float64)
        probs[~mask] = 0.0
        total = probs.sum()
        out: np.ndarray = probs / total if total > 0 else mask / mask.sum()
        return out


def game_bots(entry: Any) -> dict[str, Any]:
    """A registry entry's ``BOTS`` table; just ``random`` while a game has no ``bots.py`` yet."""
    try:
        return dict(entry.bots())
    except ModuleNotFoundError:
        from envs.core.bots import RandomBot

        return {"random": RandomBot}


def file_identity(path: str | Path) -> tuple[str, int, int] | None:
    """(real path, mtime, size) of a file, None when it cannot be read: a file rewritten since
    has another, so a cache keyed by it loads the new content."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), info.st_mtime_ns, info.st_size)


def is_model_spec(spec: str) -> bool:
    return spec.strip().endswith(".zip")


#: what a path among the player specs must be
NOT_A_MODEL = "a saved model is a .zip file, an RLlib run a directory holding eightfold_rllib.json"


def names_no_player(spec: str) -> bool:
    """``spec`` is a path (a ``/`` or ``\\`` and no bot parameters; a Windows drive letter,
    ``C:\\runs\\x``, is no bot's parameters) that is neither a saved model nor an RLlib run: no
    bot is named so either."""
    import re

    from training.rllib.common import is_rllib_spec

    spec = spec.strip()
    return (
        (":" not in spec or re.match(r"[A-Za-z]:[\\/]", spec) is not None)
        and ("/" in spec or "\\" in spec)
        and not is_model_spec(spec)
        and not is_rllib_spec(spec)
    )


def refuse_a_path(spec: str) -> None:
    """``ValueError`` when ``spec`` is a path that is neither a saved model nor an RLlib run
    (it would read as an unknown bot)."""
    if names_no_player(spec):
        raise ValueError(_no_player(spec))


def make_bot_of(game: Game[Any, Any], spec: str, bots: Mapping[str, Any]) -> Player:
    """:func:`make_bot`, and a folder named as if it were a bot (an SB3 run's ``runs/x``) is
    named as a folder that holds no player, with its ``model.zip`` where it has one."""
    refuse_a_path(spec)
    try:
        return make_bot(game, spec, dict(bots))
    except ValueError as exc:
        if str(exc).startswith("unknown bot") and Path(spec.strip()).is_dir():
            raise ValueError(_no_player(spec)) from None
        raise


def _no_player(spec: str) -> str:
    spec = spec.strip()
    model = Path(spec) / "model.zip"
    hint = f"; {spec!r} is a folder: its model is {str(model)!r}" if model.is_file() else ""
    return f"no bot or model {spec!r} ({NOT_A_MODEL}{hint})"


def trained_with(spec: str) -> tuple[str, dict[str, Any]] | None:
    """(game, parameters) a saved model (the ``config.yaml`` of its run) or an RLlib run (its
    ``eightfold_rllib.json``) was trained with; ``None`` for a bot or when unknown."""
    from training.rllib.common import is_rllib_spec, read_meta

    spec = spec.strip()
    if is_rllib_spec(spec):
        meta = read_meta(spec)
        return str(meta["game"]), dict(meta.get("params") or {})
    if not is_model_spec(spec):
        return None
    from envs.core.registry import get_game
    from training.config import read_yaml  # a model's run: yaml (the train extra) from here on

    path = Path(spec)
    # the run's own folder, or the run above its checkpoints/ or pool/ folder (not any folder
    # two up: a model of one's own script kept in a project's models/ is no run's)
    folder = path.parent.parent if path.parent.name in ("checkpoints", "pool") else path.parent
    if not (folder / "config.yaml").exists():
        return None
    data = read_yaml(folder / "config.yaml")  # a mapping, or a ValueError naming the file
    env, params = data.get("env"), data.get("params", {})
    params = {} if params is None else params  # `params:` left empty
    if not isinstance(env, str):  # no env name (wandb's config.yaml, a Hydra mapping): no run's
        return None
    try:
        get_game(env)
    except ValueError:  # another library's config (an env such as CartPole-v1): no eightfold run
        return None
    if not isinstance(params, Mapping):
        raise ValueError(
            f"{folder / 'config.yaml'} is not a run's config (an 'env' name and a 'params' "
            f"mapping, as eightfold train writes it): env={env!r}, params={params!r}"
        )
    return env, dict(params)


def params_note(spec: str, game: Game[Any, Any]) -> str:
    """A note when ``spec`` (a model or run) was trained with other game parameters than
    ``game`` has: it may still fit the spaces (Over and Out's observation is padded to 8 seats,
    a 2v2 or solo config keeps its game's spaces), so nothing else would say so."""
    from envs.core.config import make_config
    from envs.core.registry import get_game

    found = trained_with(spec)
    if found is None and is_model_spec(spec):  # a model of one's own script: nothing to compare
        default = make_config(type(game.config), {})
        given = {f.name: getattr(game.config, f.name) for f in fields(game.config)}
        given = {k: v for k, v in given.items() if v != getattr(default, k)}
        return (
            f"note: {spec.strip()} has no eightfold run around it (no run's config.yaml): it plays "
            f"{game.name} {given or '(defaults)'} as named, and nothing checks that it was trained on that"
        )
    if found is not None and get_game(found[0]).name != game.name:
        raise ValueError(
            f"{spec.strip()} was trained on {get_game(found[0]).name}, not {game.name}: "
            f"name {get_game(found[0]).name} as the env"
        )
    trained = (found or ("", {}))[1]

    try:  # compare complete configs: a partial deck_counts is completed as the game does
        filled = vars(make_config(type(game.config), trained))
    except ValueError:
        filled = trained
    differ = {k: v for k, v in trained.items() if getattr(game.config, k, None) != filled.get(k, v)}
    if not differ:
        return ""
    names = {f.name for f in fields(game.config)}  # the parameters, not values a config caches
    now = {k: getattr(game.config, k) for k in differ if k in names}
    unknown = [k for k in differ if k not in names]
    has = f"this game has {now} (set them with --param)" if now else ""
    lacks = f"{game.name} has no parameter {', '.join(map(repr, unknown))}" if unknown else ""
    return f"note: {spec} was trained with {differ}; " + "; ".join(x for x in (has, lacks) if x)


def make_player(
    game: Game[Any, Any], spec: str, bots: Mapping[str, Any], deterministic: bool = False
) -> Player:
    """A bot (``random``, ``heuristic``, ``mcts:sims=100`` ...) or a saved model (``x.zip``)."""
    if not isinstance(spec, str):
        own = hasattr(spec, "act") or callable(spec)  # a player of one's own: where it goes
        raise ValueError(
            f"a player spec is a string: a bot ('heuristic', 'mcts:sims=200'), a model .zip or an RLlib "
            f"run directory; got {spec!r}"
            + (
                "; a player object of your own (with act(state, seat, rng) -> int) joins the "
                "single-agent view's opponents through env.unwrapped.add_opponent(group, name, player)"
                if own
                else ""
            )
        )
    if is_model_spec(spec):
        return PolicyPlayer.load(spec.strip(), game, deterministic=deterministic)
    from training.rllib.common import is_rllib_spec, require_rllib

    if is_rllib_spec(spec):
        require_rllib(f"the RLlib run {spec.strip()!r}")
        from training.rllib.policy import RLlibPolicy

        return RLlibPolicy.load(spec.strip(), game, deterministic=deterministic)
    return make_bot_of(game, spec, bots)


def _is_weight(weight: Any) -> bool:
    """A group's weight: a finite number > 0 (a Python or numpy int or float; not a bool)."""
    return is_real(weight) and 0 < float(weight) < math.inf


def _check_player(what: str, player: Any) -> None:
    """``ValueError`` unless ``player`` has a callable ``act`` (a spec string is no player)."""
    if not callable(getattr(player, "act", None)):
        hint = " (make_player(game, spec, bots) builds one from a spec)" if isinstance(player, str) else ""
        raise ValueError(f"{what} must be a player with act(state, seat, rng){hint}, got {player!r}")


@dataclass
class _Group:
    weight: float
    players: list[tuple[str, Player]] = field(default_factory=list)


class OpponentPool:
    """Weighted groups of players; :meth:`sample` draws a group by weight, then a member.

    A group may be empty (the ``self`` group before the first snapshot); it is skipped,
    and while every group is empty ``fallback`` plays (``from_specs``: the random bot).
    In the ``self`` group the newest snapshot is drawn with probability ``latest_prob``,
    otherwise a uniform one among all kept snapshots (at most ``max_size``).
    """

    def __init__(self, latest_prob: float = 0.5, max_size: int = 10, fallback: Player | None = None) -> None:
        if (
            not isinstance(max_size, (int, np.integer))
            or isinstance(max_size, (bool, np.bool_))
            or max_size < 1
        ):
            raise ValueError(f"max_size must be an int >= 1 (snapshots kept per group), got {max_size!r}")
        if not is_real(latest_prob) or not 0 <= latest_prob <= 1:  # NaN fails both
            raise ValueError(f"latest_prob must be a number in [0, 1], got {latest_prob!r}")
        if fallback is not None:
            _check_player("fallback", fallback)
        self.groups: dict[str, _Group] = {}
        self.fallback = fallback
        self.latest_prob = latest_prob
        self.max_size = max_size

    @classmethod
    def from_specs(
        cls,
        game: Game[Any, Any],
        specs: Sequence[str] | Mapping[str, float],
        bots: Mapping[str, Any],
        **kwargs: Any,
    ) -> OpponentPool:
        """``["random", "heuristic", "self"]`` (weight 1 per item: a spec named twice weighs 2)
        or ``{"random": 1, "self": 3}``."""
        if isinstance(specs, str):
            raise ValueError(
                f"opponent specs must be a list or a mapping of weights, got the string {specs!r}"
            )
        from training.config import parse_opponents  # the config's reading of a list

        weights: dict[str, Any] = dict(specs) if isinstance(specs, Mapping) else parse_opponents(list(specs))
        kwargs.setdefault("fallback", make_bot(game, "random", dict(bots)))
        pool = cls(**kwargs)
        for spec, weight in weights.items():
            if not _is_weight(weight):
                raise ValueError(f"opponent weight must be a finite number > 0, got {spec}={weight!r}")
            pool.groups[spec] = _Group(float(weight))
            if spec != "self":
                pool.groups[spec].players.append((spec, make_player(game, spec, bots)))
        if not pool.groups:
            raise ValueError("the opponent pool is empty")
        return pool

    def add(self, group: str, name: str, player: Player, weight: float = 1.0) -> None:
        """Add a member (e.g. a frozen snapshot to ``self``), dropping the oldest beyond ``max_size``.
        ``weight`` (a finite number > 0) is the group's when this call creates it."""
        if not _is_weight(weight):
            raise ValueError(f"weight must be a finite number > 0, got {weight!r} (group {group!r})")
        _check_player(f"member {name!r} of group {group!r}", player)
        g = self.groups.setdefault(group, _Group(float(weight)))
        g.players.append((name, player))
        del g.players[: max(0, len(g.players) - self.max_size)]

    def sample(self, rng: np.random.Generator) -> tuple[str, Player]:
        groups = [g for g in self.groups.values() if g.players]
        if not groups:
            if self.fallback is not None:
                return ("fallback", self.fallback)
            raise RuntimeError("no opponent available yet (only an empty 'self' group)")
        w = np.array([g.weight for g in groups])
        with np.errstate(over="ignore"):  # finite weights whose sum overflows (1e308 twice)
            total = w.sum()
        if not math.isfinite(total):
            w = w / w.max()
            total = w.sum()
        g = groups[int(rng.choice(len(groups), p=w / total))]
        if len(g.players) > 1 and rng.random() >= self.latest_prob:
            return g.players[int(rng.integers(len(g.players)))]
        return g.players[-1]

    def __len__(self) -> int:
        return sum(len(g.players) for g in self.groups.values())
