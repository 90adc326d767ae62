"""Bad input to the RLlib backend and to ``training.policies``: a clear ``ValueError`` naming
the parameter, what it got and what is allowed, before Ray starts, instead of a silent change
of behaviour or an error from deeper down (the second misuse audit of 2026-12-07, findings #3,
#4, #5, #12 and #13).

Each test says what the old code did instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from tests.training.test_cli_fuzz import run_cli

pytest.importorskip("ray")

from training.rllib.env import EightfoldMultiAgentEnv  # noqa: E402 - after the extra's check

OAO = ["over_and_out", "--param", "num_players=2"]
#: a tiny RLlib run's flags; every test here stops it before Ray starts
TINY = ["--timesteps", "64", "--set", "n_envs=1", "--set", "n_steps=64", "--set", "batch_size=64"]
#: a well-formed address where nothing listens: refused just before Ray would start, after
#: every check of the training settings
NO_CLUSTER = ["--address", "127.0.0.1:1"]


def _train(tmp_path: Path, *extra: str) -> tuple[int | str, str]:
    argv = ["train", *OAO, "--backend", "rllib", "--out", str(tmp_path / "run"), *TINY, *extra]
    code, _out, err, tb = run_cli(argv)
    assert tb is None, tb
    assert not (tmp_path / "run").exists(), "nothing may be written"
    return code, err


# ---------------------------------------------------------------- #3 rllib: numbers in YAML


def test_rllib_numbers_that_yaml_reads_as_text_are_read_as_numbers(tmp_path: Path) -> None:
    """``rllib: {lr: 1e-3}`` in a YAML config (YAML 1.1 reads ``1e-3`` as a string) is the
    number, as the top-level float options are: the run gets past the settings' checks to the
    Ray address. A value that is no number is still refused by name. Old: ``rllib: lr must be a
    finite number > 0, got '1e-3'``."""
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("rllib:\n  lr: 1e-3\n  gamma: 9.9e-1\n", encoding="utf-8")
    bad.write_text("rllib:\n  lr: abc\n", encoding="utf-8")
    code, err = _train(tmp_path, "--config", str(good), *NO_CLUSTER)
    assert code == 2 and "--address '127.0.0.1:1': no Ray cluster reached" in err, err
    code, err = _train(tmp_path, "--config", str(bad), *NO_CLUSTER)
    assert code == 2 and "rllib: lr must be a finite number > 0, got 'abc'" in err, err


def test_numbers_in_settings_reads_only_the_numeric_settings() -> None:
    """:func:`numbers_in_settings` turns number-like strings of the numeric settings into
    floats and leaves the rest (a count, a word) for the checks to name. Old: no such step: the
    string reached ``check_training_settings`` and was refused."""
    from training.rllib.train import check_training_settings, numbers_in_settings

    read = numbers_in_settings({"lr": "1e-3", "entropy_coeff": "0", "num_epochs": "3", "gamma": "x"})
    assert read == {"lr": 1e-3, "entropy_coeff": 0.0, "num_epochs": "3", "gamma": "x"}
    check_training_settings(numbers_in_settings({"lr": "1e-3"}))
    with pytest.raises(ValueError, match=r"^rllib: gamma must be a finite number \(0, 1\], got 'x'$"):
        check_training_settings(numbers_in_settings({"gamma": "x"}))


# ---------------------------------------------------------------- #4 EightfoldMultiAgentEnv


@pytest.mark.parametrize(
    ("env_config", "message"),
    [
        (
            {"game": "octi", "oponents": "random"},
            r"^unknown env_config key\(s\) \['oponents'\]; known: \['game', ",
        ),
        ({"game": "octi", "selfplay": "frozen"}, r"^unknown env_config key\(s\) \['selfplay'\]; known: "),
        (
            {"game": "octi", "params": "variant=x_fast"},
            r"^env_config params must be a dict of game parameters .*, got 'variant=x_fast'$",
        ),
        ({"game": "octi", "seed": -1}, r"^env_config seed must be an int >= 0, got -1$"),
        ({"game": "octi", "seed": "abc"}, r"^env_config seed must be an int >= 0, got 'abc'$"),
        ({"game": "octi", "seed": 1.7}, r"^env_config seed must be an int >= 0, got 1\.7$"),
        ({"game": "octi", "seed": "5"}, r"^env_config seed must be an int >= 0, got '5'$"),
    ],
)
def test_env_config_refuses_unknown_keys_and_wrong_types(env_config: dict[str, Any], message: str) -> None:
    """A misspelt ``env_config`` key, a ``params`` that is no dict, a seed that is not an int
    >= 0, and both ``opponents`` and ``opponent`` are named. Old: a misspelt key was ignored
    (``oponents``: trained in self-play; ``selfplay``: shared), ``params`` failed in ``dict()``,
    a float seed was truncated and ``"5"`` read as 5."""
    with pytest.raises(ValueError, match=message):
        EightfoldMultiAgentEnv(env_config)


def test_env_config_refuses_both_opponent_keys_and_takes_each() -> None:
    """``opponents`` and ``opponent`` together are refused; each alone, and the other keys in
    their documented forms (``seed`` a numpy int or None, ``params`` None), still build the env.
    Old: ``opponent`` was dropped without a word when ``opponents`` was given."""
    env = EightfoldMultiAgentEnv(
        {"game": "over_and_out", "params": {"num_players": 2}, "opponent": "random", "seed": np.int64(3)}
    )
    assert env.opponents == {"random": 1.0} and env._stream == (0, 0, 3)
    assert EightfoldMultiAgentEnv({"game": "octi", "params": None, "seed": None})._stream == (0, 0, 0)
    # a whole float (a YAML 3.0, a Tune search space's sample) is the int it holds, as before
    assert EightfoldMultiAgentEnv({"game": "octi", "seed": 3.0})._stream == (0, 0, 3)
    with pytest.raises(
        ValueError,
        match=r"^env_config gives both opponents \('random'\) and opponent \('heuristic'\); give one$",
    ):
        EightfoldMultiAgentEnv({"game": "octi", "opponents": "random", "opponent": "heuristic"})


@pytest.mark.parametrize("action", [3, [3], None, "3"])
def test_step_names_the_dict_it_takes(action: Any) -> None:
    """``step()`` with an action that is no ``{agent_id: action}`` dict says what it takes.
    Old: ``TypeError: argument of type 'int' is not iterable`` (a list or string was searched
    for the agent id: ``expected an action for player_0``)."""
    env = EightfoldMultiAgentEnv({"game": "octi"})
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^step\(\) takes a dict \{agent_id: action\}, e\.g\. .*, got "):
        env.step(action)


# ---------------------------------------------------------------- #5 SB3-only settings


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--set", "seat=1"], "--set seat=1: for --backend sb3 only (seat: RLlib draws the learner's seat"),
        (["--set", "partner=heuristic"], "--set partner=heuristic: for --backend sb3 only (partner: "),
        (["--set", "policy=sb3"], "--set policy=sb3: for --backend sb3 only (policy: RLlib trains its own"),
        (["--set", "vec_env=subproc"], "--set vec_env=subproc: for --backend sb3 only (vec_env: "),
        (["--set", "pool_size=3", "--set", "features_dim=8"], "--set pool_size=3, --set features_dim=8: for"),
        (
            ["--set", "eval_every=5000"],
            "--set eval_every=5000: for --backend sb3 only (eval_every: an RLlib run",
        ),
        (["--set", "final_eval_games=400"], "--set final_eval_games=400: for --backend sb3 only (final_eval"),
        (["--set", 'eval_opponents=["random"]'], '--set eval_opponents=["random"]: for --backend sb3 only'),
        (
            ["--set", "eval_workers=1", "--set", "eval_games=0"],
            "--set eval_workers=1: for --backend sb3 only",
        ),
        (["--set", "progress_bar=false"], "--set progress_bar=false: for --backend sb3 only (progress_bar: "),
        (
            ["--opponents", "random", "--self-play", "frozen"],
            "--self-play frozen: no 'self' among the opponents {'random': 1.0}, so it has no effect",
        ),
    ],
)
def test_rllib_refuses_sb3_only_settings_given_on_the_command_line(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    """An SB3-only setting given with ``--set`` (or ``--self-play frozen`` with no ``self``
    opponent) would have no effect under ``--backend rllib``: a usage error naming it (README:
    an option that would have no effect is refused), before Ray starts. Old: each trained,
    without a word."""
    code, err = _train(tmp_path, *extra)
    assert code == 2 and message in err, err


def test_rllib_refuses_a_seat_on_the_command_line_not_from_a_config_file(tmp_path: Path) -> None:
    """SB3-only settings from a config file are not used and not refused (README: "the other
    SB3-only settings are not used"), nor are ``--set seat=null`` (no seat asked for) and
    ``eval_every=0`` (no evaluation asked for): these runs get past the checks to the Ray address; ``--set seat=1`` beside the same file is refused.
    Old: ``--set seat=1`` trained too, the learner's seat drawn per episode all the same."""
    cfg = tmp_path / "sb3.yaml"
    cfg.write_text("seat: 1\npolicy: sb3\nvec_env: subproc\npool_size: 3\n", encoding="utf-8")
    for extra in (
        ["--config", str(cfg)],
        ["--set", "seat=null"],
        ["--set", "eval_every=0", "--set", "eval_games=0", "--set", "final_eval_games=0"],
        ["--eval-every", "0", "--eval-games", "0"],
    ):
        code, err = _train(tmp_path, *extra, *NO_CLUSTER)
        assert code == 2 and "no Ray cluster reached" in err, (extra, err)
    code, err = _train(tmp_path, "--config", str(cfg), "--set", "seat=1", *NO_CLUSTER)
    assert code == 2 and "--set seat=1: for --backend sb3 only" in err, err


# ---------------------------------------------------------------- #13 eightfold_rllib.json


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"game": "octi", "params": "x"}, r": params must be a mapping of game parameters, got 'x'"),
        ({"game": 5}, r": game must be a game name, got 5"),
        ({"game": "octi", "module": ["main"]}, r": module must be a module id, got \['main'\]"),
    ],
)
def test_corrupt_run_metadata_names_the_file_and_the_key(
    tmp_path: Path, meta: dict[str, Any], message: str
) -> None:
    """A run's ``eightfold_rllib.json`` whose values have the wrong type is named by file and
    key by ``read_meta`` (and so by ``eval --players <run>``). Old: ``dictionary update
    sequence element #0 has length 1; 2 is required`` (no file, no key)."""
    from training.rllib.common import META_FILE, read_meta

    (tmp_path / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^'" + str(tmp_path / META_FILE) + "'" + message):
        read_meta(tmp_path)


def test_eval_of_a_run_with_corrupt_metadata_names_the_file(tmp_path: Path) -> None:
    """``eightfold eval octi --players <run> random`` on a run whose ``params`` is ``"x"``:
    exit 2 naming the file and key. Old: exit 2 with ``dictionary update sequence element #0
    has length 1; 2 is required``."""
    (tmp_path / "eightfold_rllib.json").write_text(
        json.dumps({"game": "octi", "params": "x"}), encoding="utf-8"
    )
    code, _out, err, tb = run_cli(["eval", "octi", "--players", str(tmp_path), "random"])
    assert tb is None and code == 2, (code, err, tb)
    assert "eightfold_rllib.json': params must be a mapping of game parameters, got 'x'" in err, err


# ---------------------------------------------------------------- #12 training.policies


def test_algorithm_kwargs_refuses_an_unknown_policy() -> None:
    """``algorithm_kwargs("bogus")`` names the policies, as ``policy_class`` does. Old: ``{}``,
    silently (sb3-contrib's buffer for a name that means nothing)."""
    from training.policies import MaskedRolloutBuffer, algorithm_kwargs

    with pytest.raises(ValueError, match=r"^policy must be one of \['masked', 'sb3'\], got 'bogus'$"):
        algorithm_kwargs("bogus")
    assert algorithm_kwargs("masked") == {"rollout_buffer_class": MaskedRolloutBuffer}
    assert algorithm_kwargs("sb3") == {}


@pytest.mark.parametrize("features_dim", [0, -3, 2.5, True])
def test_board_cnn_names_a_bad_features_dim(features_dim: Any) -> None:
    """``BoardCNN(space, features_dim)`` wants an int >= 1. Old: a bare ``AssertionError`` from
    sb3's ``BaseFeaturesExtractor`` for 0 and -3; 2.5 and True failed in torch or built a
    1-wide layer."""
    from training.policies import BoardCNN

    space = gym.spaces.Box(0, 1, (3, 6, 7))
    with pytest.raises(ValueError, match=r"^BoardCNN: features_dim must be an int >= 1, got "):
        BoardCNN(space, features_dim)
    assert BoardCNN(space, 4, channels=(2,)).features_dim == 4
    assert BoardCNN(space, np.int64(4), channels=(2,)).features_dim == 4  # a numpy int, as before
