"""Pins found by a mutation round on ``training/config.py`` and ``envs/core/config.py``: the
training config's defaults, the PPO settings it hands over, every range check and its message,
YAML reading and merging (``params`` layered, unknown options named), the resolved
``config.yaml`` a run saves, the seed of a resumed run, and the game-parameter helpers."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from envs.core.config import config_to_dict, describe_params, make_config, plain_fields
from training.config import (
    PPO_KWARGS,
    TrainConfig,
    default_config_path,
    merge,
    parse_opponents,
    read_yaml,
    resume_seed,
    save_config,
)

OAO2: dict[str, Any] = {"env": "over_and_out", "params": {"num_players": 2}}


def _validated(**options: Any) -> TrainConfig:
    """A two-player Over and Out config with ``options`` merged in, validated."""
    cfg = merge(TrainConfig(), {**OAO2, **options}, "test")
    cfg.validate()
    return cfg


# ----------------------------------------------------------------------- defaults
def test_the_defaults_a_game_without_a_yaml_trains_with() -> None:
    """``eightfold train`` on a game with no ``configs/<game>.yaml`` runs on ``TrainConfig``'s
    defaults (docs/GAME_GUIDE.md); a changed default silently changes every such run (200,000
    steps per docs/CHECKS.md, sb3's PPO learning rate, both scripted opponents)."""
    cfg = TrainConfig()
    assert cfg.timesteps == 200_000 and cfg.seed == 0 and cfg.n_envs == 8 and cfg.vec_env == "dummy"
    assert cfg.opponents == {"random": 1.0, "heuristic": 1.0}
    assert cfg.eval_opponents == ["random", "greedy", "heuristic"]
    assert cfg.ppo_kwargs() == {
        "learning_rate": 3e-4, "n_steps": 256, "batch_size": 512, "n_epochs": 4, "gamma": 0.99,
        "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
    }  # fmt: skip
    assert cfg.partner is None and cfg.seat is None and cfg.shaping == 0.0
    assert cfg.policy == "masked" and cfg.net_arch == [256, 256] and cfg.vf_arch is None
    assert cfg.pretrain_samples == 0 and cfg.pretrain_teacher == "heuristic"
    assert default_config_path("no_such_game") is None  # no YAML: the defaults, not an error
    assert default_config_path("octi") is not None


def test_ppo_kwargs_hand_over_every_ppo_setting_of_the_config() -> None:
    """``ppo_kwargs`` is what ``MaskablePPO(...)`` gets: each of the ten PPO options, by its own
    name and with the config's value (a dropped one would train with sb3's default instead)."""
    from sb3_contrib import MaskablePPO

    values = {
        "learning_rate": 1e-3, "n_steps": 64, "batch_size": 32, "n_epochs": 3, "gamma": 0.9,
        "gae_lambda": 0.8, "clip_range": 0.3, "ent_coef": 0.02, "vf_coef": 0.7, "max_grad_norm": 0.9,
    }  # fmt: skip
    assert set(PPO_KWARGS) == set(values)
    assert set(PPO_KWARGS) <= set(inspect.signature(MaskablePPO.__init__).parameters)
    assert merge(TrainConfig(), values, "t").ppo_kwargs() == values


# --------------------------------------------------------------- range checks
@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("policy", "nope", r"^policy must be one of \['masked', 'sb3'\], got 'nope'$"),
        ("pool_size", 0, r"^pool_size must be >= 1, got 0$"),
        ("net_arch", [True], r"^net_arch must be a list of integer widths >= 1, got \[True\]$"),
        ("pretrain_epochs", -1, r"^pretrain_epochs must be >= 0, got -1$"),
        (
            "pretrain_learning_rate",
            0.0,
            r"^pretrain_learning_rate must be a finite number > 0 or null, got 0.0$",
        ),
        ("pretrain_batch_size", 0, r"^pretrain_batch_size must be >= 1 or null, got 0$"),
        ("pretrain_temperature", -0.5, r"^pretrain_temperature must be a finite number >= 0, got -0.5$"),
        ("pretrain_workers", 0, r"^pretrain_workers must be >= 1, got 0$"),
        (
            "rllib",
            "lambda_=0.9",
            r"^rllib must be a mapping of PPOConfig.training settings, got 'lambda_=0.9'$",
        ),
        ("opponents", {}, r"^opponents must name at least one opponent$"),
        ("pretrain_opponents", {}, r"^pretrain_opponents must name at least one opponent$"),
        ("seat", -1, r"^seat must be in \[0, 1\] for 2 player\(s\), or null \(drawn\), got -1$"),
        ("eval_opponents", ["self"], r"^eval_opponents: unknown bot 'self'"),
        ("pretrain_opponents", "random,nonsense", r"^pretrain_opponents: unknown bot 'nonsense'"),
    ],
)
def test_each_bad_option_is_refused_by_name(key: str, value: Any, message: str) -> None:
    """Options no other test sends out of range: each is refused before a run starts, the
    message naming the option and the bad value (a past self cannot be an evaluation baseline;
    the warm start's opponents are bots of the game too)."""
    with pytest.raises(ValueError, match=message):
        _validated(**{key: value})


def test_batch_size_is_checked_against_the_whole_rollout() -> None:
    """The rollout is ``n_steps x n_envs``: a batch of exactly that passes, one more is refused
    with the sum spelled out and the bad batch size named."""
    _validated(n_steps=64, n_envs=2, batch_size=128)
    with pytest.raises(
        ValueError,
        match=r"^batch_size must be <= n_steps x n_envs \(the rollout PPO splits into minibatches: "
        r"64 x 2 = 128\), got 129$",
    ):
        _validated(n_steps=64, n_envs=2, batch_size=129)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"batch_size": 1},
            "batch_size must be >= 2: PPO scales each minibatch's advantages by their standard deviation",
        ),
        (
            {"n_envs": 3, "n_steps": 171, "batch_size": 256},
            "batch_size 256 leaves one sample in the last minibatch of the rollout (171 x 3 = 513): ",
        ),
    ],
)
def test_a_minibatch_of_one_sample_is_refused(options: dict[str, Any], message: str) -> None:
    """A minibatch of one sample makes PPO's advantage normalisation NaN, and the trained weights
    all NaN, with only a torch warning; sb3-contrib's MaskablePPO does not check it. Old: both
    runs trained and saved an all-NaN model. A remainder of two or more trains."""
    with pytest.raises(ValueError, match=re.escape(message)):
        _validated(**options)
    _validated(n_envs=3, n_steps=171, batch_size=255)  # 513 = 2 x 255 + 3


def test_the_edges_of_each_range_are_allowed() -> None:
    """The inclusive ends: an undiscounted ``gamma: 1``, the largest 32-bit seed, the last seat,
    zero-weighted losses and shaping, integers where numbers are asked (YAML ``ent_coef: 0``)."""
    cfg = _validated(
        gamma=1, seed=2**32 - 1, seat=1, gae_lambda=0, latest_prob=1, shaping=0, ent_coef=0, vf_coef=0,
        learning_rate=1, pretrain_temperature=0, pretrain_learning_rate=1, pretrain_batch_size=1,
        pretrain_epochs=0, pretrain_rounds=0, pretrain_opponents={"random": 1, "self": 0.5},
    )  # fmt: skip
    assert cfg.gamma == 1 and cfg.seed == 2**32 - 1 and cfg.pretrain_opponents == {"random": 1.0, "self": 0.5}


def test_the_warm_starts_game_checks_run_for_any_number_of_samples() -> None:
    """``pretrain_samples: 1`` warm-starts too, so its game-dependent checks (symmetries the game
    declares, a teacher with scores for soft targets) run before the run, as for more."""
    with pytest.raises(ValueError, match=r"^pretrain_symmetries: over_and_out declares no symmetries"):
        _validated(pretrain_samples=1, pretrain_symmetries=True)
    with pytest.raises(ValueError, match=r"^pretrain_temperature > 0 needs a teacher with scores"):
        _validated(pretrain_samples=1, pretrain_temperature=0.5, pretrain_teacher="random")
    _validated(pretrain_samples=0, pretrain_symmetries=True)  # no warm start: nothing to check


# ------------------------------------------------------------- YAML and merging
def test_yaml_files_empty_missing_or_not_a_mapping(tmp_path: Path) -> None:
    """An empty (or all-comment) config is no options at all; a missing file and a top-level list
    are errors naming the file."""
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing set yet\n")
    assert read_yaml(empty) == {}
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ValueError, match=rf"^no config file '{re.escape(str(missing))}'$"):
        read_yaml(missing)
    listed = tmp_path / "list.yaml"
    listed.write_text("- timesteps: 10\n")
    with pytest.raises(
        ValueError, match=rf"^{re.escape(str(listed))}: expected a mapping at the top level, got list$"
    ):
        read_yaml(listed)
    for text, kind in (("[]\n", "list"), ("false\n", "bool"), ("0\n", "int"), ("''\n", "str")):
        listed.write_text(text)  # falsy, yet not empty: an error, never read as no options
        with pytest.raises(ValueError, match=rf"expected a mapping at the top level, got {kind}$"):
            read_yaml(listed)


def test_a_config_is_read_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """A config with an accented comment reads the same under a C locale (``open`` without an
    encoding took the locale's ASCII and raised ``UnicodeDecodeError``); a file that is not
    UTF-8 is an error naming the file, not a bare codec message."""
    import os
    import subprocess
    import sys

    accented = tmp_path / "accented.yaml"
    accented.write_bytes("# réglages\ntimesteps: 5\n".encode())
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    code = f"from training.config import read_yaml; print(read_yaml({str(accented)!r}))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert (out.returncode, out.stdout) == (0, "{'timesteps': 5}\n"), out.stderr
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes("# r\xe9glages\ntimesteps: 5\n".encode("latin-1"))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(latin))}: not UTF-8 text \(byte 3: invalid"):
        read_yaml(latin)


def test_an_unknown_option_is_named_with_its_source() -> None:
    """A misspelt option (``learning_rte``) is an error naming it and the file or flag it came
    from, never dropped or passed through."""
    with pytest.raises(
        ValueError, match=r"^c\.yaml: unknown training option\(s\) \['learning_rte'\]; known: \["
    ):
        merge(TrainConfig(), {"learning_rte": 0.1, "gamma": 0.9}, "c.yaml")


def test_params_layer_key_by_key() -> None:
    """``params`` of a later source (the command line over a YAML) add to and override the
    earlier ones key by key; the rest keep the earlier values."""
    cfg = merge(TrainConfig(), {"params": {"num_players": 3, "reward_mode": "winner_only"}}, "c.yaml")
    cfg = merge(cfg, {"params": {"num_players": 4}}, "command line")
    assert cfg.params == {"num_players": 4, "reward_mode": "winner_only"}
    assert merge(cfg, {"params": None}, "command line").params == cfg.params


def test_opponent_lists_skip_empty_items() -> None:
    """A doubled or trailing comma adds no empty spec."""
    assert parse_opponents("random,,self,") == {"random": 1.0, "self": 1.0}


def test_a_blank_item_of_a_yaml_list_is_named(tmp_path: Path) -> None:
    """A YAML ``-`` with nothing after it (``None``) or a blank string is a mistake the message
    names by its place in the list; it used to be read as an unknown bot called ``'None'``."""
    path = tmp_path / "c.yaml"
    path.write_text("opponents:\n  - random\n  -\n  - heuristic\n", encoding="utf-8")
    value = read_yaml(path)["opponents"]
    with pytest.raises(
        ValueError, match=r"^opponents: item 2 of the list is blank; give a bot spec or `self`$"
    ):
        parse_opponents(value)
    with pytest.raises(ValueError, match=r"^pretrain_opponents: item 1 of the list is blank"):
        parse_opponents(["  ", "random"], "pretrain_opponents")


def test_a_path_split_at_its_own_comma_is_named_with_the_way_out(tmp_path: Path) -> None:
    """A comma separates the specs of ``--opponents``, so a model path holding one splits; the
    piece that names no bot and no model is refused with the list form that keeps the path
    whole, which then works. Old: ``unknown bot '<first piece>'``, with no way out named."""
    run = tmp_path / "a dir" / "run,2"
    run.mkdir(parents=True)
    model = run / "model.zip"
    model.write_bytes(b"")
    first = str(tmp_path / "a dir" / "run")
    with pytest.raises(ValueError, match=r"^opponents: no bot or model ") as info:
        parse_opponents(f"random,{model}")
    assert str(info.value) == (
        f"opponents: no bot or model {first!r} (a saved model is a .zip file, an RLlib run a "
        "directory holding eightfold_rllib.json); a comma separates the specs, so a path with a "
        """comma in it goes in a list: --set 'opponents=["runs/a,b/model.zip"]'"""
    )
    assert parse_opponents(["random", str(model)]) == {"random": 1.0, str(model): 1.0}
    assert parse_opponents("random,mcts:sims=5,c=0.5") == {"random": 1.0, "mcts:sims=5,c=0.5": 1.0}
    assert parse_opponents(str(tmp_path / "a dir")) == {str(tmp_path / "a dir"): 1.0}, "one spec: no split"


@pytest.mark.parametrize("option", ["opponents", "partner", "eval_opponents"])
def test_a_path_that_is_no_model_is_named_as_such(tmp_path: Path, option: str) -> None:
    """A path (an existing folder too) that is neither a saved model nor an RLlib run is refused
    as such, not as an unknown bot. Old: ``unknown bot 'runs/oao'; available: [...]``."""
    value: Any = [str(tmp_path)] if option != "partner" else str(tmp_path)
    with pytest.raises(ValueError, match=r"no bot or model ") as info:
        _validated(**{option: value})
    assert str(info.value) == (
        f"{option}: no bot or model {str(tmp_path)!r} (a saved model is a .zip file, an RLlib run a "
        "directory holding eightfold_rllib.json)"
    )


def test_make_player_names_a_path_that_is_no_model() -> None:
    """``eval --players`` and ``play --vs`` build players with ``make_player``: a path that is
    no model says so."""
    from envs.core.registry import GAMES
    from training.players import game_bots, make_player

    game = GAMES["octi"].game_class()()
    with pytest.raises(ValueError, match=r"^no bot or model 'runs/nothing' \(a saved model is a \.zip"):
        make_player(game, "runs/nothing", game_bots(GAMES["octi"]))
    assert type(make_player(game, "random", game_bots(GAMES["octi"]))).__name__ == "RandomBot"


def test_a_spec_named_twice_weighs_twice_and_a_bool_is_no_weight() -> None:
    """Each item of a list weighs 1, so ``random,random,heuristic`` draws ``random`` two games
    in three (it collapsed to 1:1); ``{random: true}`` is refused, as bools are everywhere."""
    assert parse_opponents("random,random,heuristic") == {"random": 2.0, "heuristic": 1.0}
    assert parse_opponents(["self", "mcts:sims=5", "self"]) == {"self": 2.0, "mcts:sims=5": 1.0}
    with pytest.raises(ValueError, match=r"^opponents: the weight of 'random' must be a number, got True$"):
        parse_opponents({"random": True})


def test_the_opponent_pool_weighs_a_list_as_the_config_does() -> None:
    """``OpponentPool.from_specs`` (the Python API behind ``opponents``) counts a repeated spec
    twice as the config does, and a bare string is refused rather than read letter by letter."""
    from envs.core.registry import get_game
    from training.players import OpponentPool

    info = get_game("over_and_out")
    game = info.game_class()(num_players=2)
    pool = OpponentPool.from_specs(game, ["random", "heuristic", "random"], info.bots())
    assert {spec: group.weight for spec, group in pool.groups.items()} == {"random": 2.0, "heuristic": 1.0}
    with pytest.raises(ValueError, match=r"^opponent specs must be a list or a mapping of weights, got"):
        OpponentPool.from_specs(game, "random", info.bots())


# ----------------------------------------------------- the saved config, resumes
def test_the_saved_config_holds_every_resolved_option(tmp_path: Path) -> None:
    """``<out>/config.yaml`` is the resolved config, every option included (defaults too), and
    reads back as the same config (``--resume`` and model notes read it)."""
    cfg = merge(TrainConfig(), {**OAO2, "timesteps": 1234, "opponents": "random,self"}, "t")
    assert cfg.opponents == {"random": 1.0, "self": 1.0}  # --set opponents=random,self: weights
    path = save_config(cfg, tmp_path / "runs" / "oao")  # runs/ made too
    assert path == tmp_path / "runs" / "oao" / "config.yaml"
    data = yaml.safe_load(path.read_text())
    assert list(data) == [f.name for f in dataclasses.fields(TrainConfig)]
    assert data == cfg.to_dict()
    assert merge(TrainConfig(), read_yaml(path), str(path)) == cfg


def test_a_resumed_part_is_seeded_from_the_seed_and_its_steps() -> None:
    """A fresh run uses its seed itself; a resume a seed drawn from both the seed and the steps
    done, repeatable, different per step count and per seed, and a valid 31-bit seed."""
    assert resume_seed(7, 0) == 7 and resume_seed(2**32 - 1, 0) == 2**32 - 1
    seeds = {resume_seed(s, steps) for s in (0, 1) for steps in (256, 384)}
    assert len(seeds) == 4 and 7 not in seeds
    assert resume_seed(1, 256) == resume_seed(1, 256)
    assert all(0 <= s < 2**31 for s in seeds)


# -------------------------------------------------------------- game parameters
def test_make_config_names_an_unknown_parameter_and_the_allowed_ones() -> None:
    from envs.over_and_out.config import Config

    allowed = [f.name for f in dataclasses.fields(Config)]
    message = f"unknown parameter(s) ['nplayers'] for over_and_out; allowed: {allowed}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make_config(Config, {"nplayers": 3})

    @dataclasses.dataclass(frozen=True)
    class Mine:  # a config outside the registry is named by its module and class
        size: int = 3

    with pytest.raises(
        ValueError, match=r"^unknown parameter\(s\) \['x'\] for tests\.training\.test_config_pins\."
    ):
        make_config(Mine, {"x": 1})
    made = make_config(Config, {"num_players": np.int64(3)})
    assert made.num_players == 3 and type(made.num_players) is int


def test_config_to_dict_writes_plain_lists_yaml_can_dump() -> None:
    """A config's tuples come out as lists (``yaml.safe_dump`` of the run's params must work)."""

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        sizes: tuple[int, ...] = (1, 2)
        table: dict[str, Any] = dataclasses.field(default_factory=lambda: {"a": (3, 4)})

    out = config_to_dict(Cfg())
    assert out == {"sizes": [1, 2], "table": {"a": [3, 4]}}
    assert type(out["sizes"]) is list and type(out["table"]["a"]) is list
    yaml.safe_dump(out)


def test_plain_fields_reads_numpy_inside_containers_and_keeps_their_type() -> None:
    """A config built directly with numpy values inside a tuple or dict holds Python values,
    the tuple still a tuple (a frozen config hashes and compares as the literal one)."""

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        n: Any = 1
        widths: Any = (1,)
        table: Any = dataclasses.field(default_factory=dict)
        flag: Any = False
        name: Any = "x"

        def __post_init__(self) -> None:
            plain_fields(self)

    c = Cfg(
        n=np.int64(2),
        widths=(np.int32(3),),
        table={"k": np.float32(0.5)},
        flag=np.bool_(True),
        name=np.str_("y"),
    )
    assert c == Cfg(n=2, widths=(3,), table={"k": 0.5}, flag=True, name="y")
    assert type(c.widths) is tuple and type(c.widths[0]) is int and type(c.table["k"]) is float
    assert type(c.flag) is bool and type(c.name) is str


def test_describe_params_shows_each_default_and_help() -> None:
    """``eightfold list`` shows each parameter's default (a factory's value, not the factory)
    and its help text."""

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        need: int
        n: int = dataclasses.field(default=2, metadata={"help": "players"})
        table: dict[str, int] = dataclasses.field(default_factory=lambda: {"a": 1})

    rows = describe_params(Cfg)
    assert rows == [("need", "'(required)'", ""), ("n", "2", "players"), ("table", "{'a': 1}", "")]
