"""Every ``configs/<game>.yaml`` is a valid training configuration for a registered game; bad options are named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envs.core.registry import get_game
from training.config import CONFIG_DIR, TrainConfig, merge, read_yaml
from training.players import game_bots, make_player

CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))
RESULTS = sorted((CONFIG_DIR.parent / "docs" / "results").glob("*_config*.yaml"))  # <game>_config[_vN].yaml


def test_there_is_a_config_per_game() -> None:
    assert {p.stem for p in CONFIGS} >= {"octi", "over_and_out", "otto_octopus", "otto_game_over"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config_is_valid_for_its_game(path: Path) -> None:
    cfg = merge(TrainConfig(env=path.stem), read_yaml(path), str(path))
    cfg.validate()
    entry = get_game(path.stem)
    game = entry.game_class()(**cfg.params)
    bots = game_bots(entry)
    for spec in [*cfg.opponents, *cfg.eval_opponents, cfg.pretrain_teacher]:
        if spec != "self":
            make_player(game, spec, bots)  # every named bot exists and takes its parameters


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_published_run_configs_still_load(path: Path) -> None:
    """The resolved configs of the README's runs (docs/results) are valid with today's options."""
    data = read_yaml(path)
    cfg = merge(TrainConfig(), data, str(path))
    cfg.validate()
    assert path.stem.startswith(f"{cfg.env}_config")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("learning_rate", "abc", "learning_rate must be a number"),
        ("gamma", True, "gamma must be a number"),
        ("n_envs", 2.5, "n_envs must be an integer"),
        ("timesteps", "100", "timesteps must be an integer"),
        ("seat", "x", "seat must be an integer or null"),
        ("pretrain_batch_size", "abc", "pretrain_batch_size must be an integer or null"),
        ("pretrain_learning_rate", [1], "pretrain_learning_rate must be a number or null"),
        ("vec_env", 3, "vec_env must be a string"),
        ("progress_bar", 1, "progress_bar must be true or false"),
    ],
)
def test_an_option_of_the_wrong_type_is_named(key: str, value: Any, message: str) -> None:
    cfg = merge(TrainConfig(), {key: value}, "test")
    with pytest.raises(ValueError, match=message):
        cfg.validate()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("seed", -1, r"seed must be in \[0, 2\*\*32 - 1\]"),
        ("eval_every", -5, r"eval_every must be >= 0"),
        ("final_eval_games", -1, r"final_eval_games must be >= 0"),
        ("checkpoint_every", 0, r"checkpoint_every must be >= 1"),
        ("eval_workers", 0, r"eval_workers must be >= 1"),
        ("gamma", 1.5, r"gamma must be in \(0, 1\]"),
        ("gamma", 0.0, r"gamma must be in \(0, 1\]"),
        ("latest_prob", -0.1, r"latest_prob must be in \[0, 1\]"),
        ("learning_rate", 0.0, r"learning_rate must be a finite number > 0"),
        ("ent_coef", -0.01, r"ent_coef must be a finite number >= 0"),
        ("net_arch", [64, 0], r"net_arch must be a list of integer widths >= 1"),
        (
            "vf_arch",
            [64, 0],
            r"vf_arch must be a list of integer widths >= 1 \(or null: net_arch\), got \[64, 0\]",
        ),
        ("vf_arch", 64, r"vf_arch must be a list of integer widths >= 1 \(or null: net_arch\), got 64"),
        ("cnn_channels", [], r"cnn_channels must be a non-empty list"),
    ],
)
def test_an_option_out_of_range_is_named(key: str, value: Any, message: str) -> None:
    cfg = merge(TrainConfig(), {key: value}, "test")
    with pytest.raises(ValueError, match=message):
        cfg.validate()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"eval_opponents": 3}, r"eval_opponents must be a list of bot specs \(a YAML list, or a comma list"),
        ({"eval_opponents": "random,nonsense"}, r"eval_opponents: unknown bot 'nonsense'"),
        ({"eval_opponents": ["random", "random"]}, r"eval_opponents must name each baseline once"),
        ({"eval_opponents": ["random", "nonsense"]}, r"eval_opponents: unknown bot 'nonsense'"),
        ({"pretrain_teacher": "nope"}, r"pretrain_teacher: unknown bot 'nope'"),
        ({"opponents": {"mcts:foo=1": 1.0}}, r"opponents: unknown parameter\(s\) \['foo'\] for bot 'mcts'"),
        ({"partner": "missing.zip"}, r"partner: no model at 'missing.zip'"),
        ({"params": {"num_players": 2}, "seat": 2}, r"seat must be in \[0, 1\] for 2 player\(s\)"),
        ({"params": {"num_players": 99}}, r"num_players must be"),
        ({"env": "chess"}, r"unknown game 'chess'"),
        ({"eval_opponents": []}, r"eval_opponents must name at least one bot while the run evaluates"),
        ({"eval_opponents": [], "eval_every": 0, "final_eval_games": 4}, r"eval_opponents must name"),
    ],
)
def test_a_player_seat_or_game_option_is_checked_against_the_game(
    options: dict[str, Any], message: str
) -> None:
    """Checked before a run starts (no half-made run folder): every player an option names is
    a bot of the game's table (with valid parameters), an existing model or ``self``; the
    seat exists; the game and its parameters are valid."""
    cfg = merge(TrainConfig(env="over_and_out"), options, "test")
    with pytest.raises(ValueError, match=message):
        cfg.validate()


def test_zero_turns_evaluations_off_and_no_hidden_layers_is_allowed() -> None:
    merge(
        TrainConfig(), {"eval_every": 0, "eval_games": 0, "final_eval_games": 0, "net_arch": []}, "t"
    ).validate()
    # nothing evaluates, so no baseline is needed
    merge(TrainConfig(), {"eval_games": 0, "final_eval_games": 0, "eval_opponents": []}, "t").validate()


def test_malformed_files_and_values_name_their_source(tmp_path: Path) -> None:
    """A malformed YAML, a ``params`` that is no mapping and a misnamed option's errors name
    the file or option (they were tracebacks, or named ``opponents`` for
    ``pretrain_opponents``)."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("timesteps: 128\nnet_arch: [64,\n")
    with pytest.raises(ValueError, match=rf"{broken}: not valid YAML at line 3, column 1"):
        read_yaml(broken)
    for source in ("command line", "c.yaml"):
        with pytest.raises(ValueError, match=rf"{source}: params must be a mapping of game parameters"):
            merge(TrainConfig(), {"params": 5}, source)
    with pytest.raises(ValueError, match=r"^pretrain_opponents must be a comma list, a list or a mapping"):
        merge(TrainConfig(), {"pretrain_opponents": 5}, "t")
    with pytest.raises(ValueError, match=r"^pretrain_opponents: the weight of 'random' must be a number"):
        merge(TrainConfig(), {"pretrain_opponents": {"random": "x"}}, "t")


def test_a_yaml_exponent_without_a_dot_is_a_number(tmp_path: Path) -> None:
    """PyYAML reads ``3e-4`` as a string; a float option takes it as the number."""
    path = tmp_path / "c.yaml"
    path.write_text("learning_rate: 3e-4\npretrain_learning_rate: 1e-3\nseat: null\n")
    cfg = merge(TrainConfig(), read_yaml(path), str(path))
    cfg.validate()
    assert cfg.learning_rate == 3e-4 and cfg.pretrain_learning_rate == 1e-3 and cfg.seat is None


ROOT = Path(__file__).resolve().parents[2]


def test_an_installed_wheel_finds_its_packaged_configs(tmp_path: Path) -> None:
    """``pip install .`` (no source tree around the package) used to leave ``configs/`` behind, and
    ``eightfold train <game>`` then silently trained with the bare defaults. ``setup.py``'s
    ``build_py`` now copies the YAMLs into the built ``training/configs/``, and the lookup
    prefers that folder; a source checkout still reads the top-level ``configs/``."""
    import runpy

    from setuptools.dist import Distribution

    from training.config import find_config_dir

    build_py = runpy.run_path(str(ROOT / "setup.py"), run_name="eightfold_setup")["BuildPyWithConfigs"]
    cmd = build_py(Distribution({"name": "eightfold", "packages": []}))
    cmd.build_lib = str(tmp_path)
    cmd.ensure_finalized()
    cmd.run()
    shipped = tmp_path / "training" / "configs"
    assert sorted(p.name for p in shipped.glob("*.yaml")) == sorted(p.name for p in CONFIGS)
    for p in CONFIGS:
        assert (shipped / p.name).read_bytes() == p.read_bytes()
    assert find_config_dir(tmp_path / "training") == shipped  # installed: the packaged copy
    assert find_config_dir(ROOT / "training") == ROOT / "configs" == CONFIG_DIR  # source checkout
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "recursive-include configs *.yaml" in manifest  # the sdist carries them to the wheel build
