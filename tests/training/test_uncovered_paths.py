"""Training-layer paths no other test reached (branch coverage of ``training/``), each checked
against the documented contract: README "Command line" / "Use in research code" and the
modules' docstrings. Bounded and seeded: a few seconds in all."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from envs.core.registry import GAMES

OAO = ["over_and_out", "--param", "num_players=2"]


# ----------------------------------------------------------------------------- config
@pytest.mark.parametrize("value", [["random"], "random"])
def test_config_opponents_must_be_a_mapping(value: Any) -> None:
    """``TrainConfig(opponents=...)`` built in code (not through ``merge``, which reads lists and
    comma strings) with a list or a string: a ValueError naming the option and the form wanted."""
    from training.config import TrainConfig

    with pytest.raises(ValueError, match=r"opponents must be a mapping of bot spec -> weight"):
        TrainConfig(opponents=value).validate()
    with pytest.raises(ValueError, match=r"pretrain_opponents must be a mapping"):
        TrainConfig(pretrain_opponents=value).validate()


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"eval_opponents": [""]}, "eval_opponents"),
        ({"eval_opponents": [3]}, "eval_opponents"),
        ({"opponents": {" ": 1.0}}, "opponents"),
        ({"partner": ""}, "partner"),
    ],
)
def test_config_blank_or_non_string_spec_is_named(kwargs: dict[str, Any], option: str) -> None:
    """A blank or non-string player spec: the error names the option and the bad spec."""
    from training.config import TrainConfig

    with pytest.raises(ValueError, match=rf"^{option}: expected a bot spec or a model path, got "):
        TrainConfig(**kwargs).validate()


def test_config_yaml_params_with_non_string_key() -> None:
    """A YAML ``params`` block with a key ``1:`` or ``null:`` names no parameter: the error names
    the file and the key(s)."""
    from training.config import TrainConfig, merge

    for text, key in (("params:\n  1: 3\n", "[1]"), ("params:\n  null: 3\n", "[None]")):
        with pytest.raises(
            ValueError, match=r"c\.yaml: params names parameters by strings, got the key\(s\) "
        ):
            merge(TrainConfig(), yaml.safe_load(text), "c.yaml")
        try:
            merge(TrainConfig(), yaml.safe_load(text), "c.yaml")
        except ValueError as exc:
            assert str(exc).endswith(key)


# --------------------------------------------------------------------- single-agent view
def _solo_view(**kw: Any) -> Any:
    from training.single_agent import SingleAgentEnv

    return SingleAgentEnv(GAMES["otto_octopus"].game_class()(num_players=1), **kw)


def test_single_agent_before_reset_and_without_render_mode() -> None:
    """The view's ``state`` (and an ``ansi`` render) before ``reset()`` says to call reset; with no
    render mode ``render()`` is None, as its docstring says ("None without a render mode")."""
    env = _solo_view()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        _ = env.state
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        _solo_view(render_mode="ansi").render()
    assert env.render() is None
    env.reset(seed=0)
    assert env.render() is None


def test_single_agent_solo_has_no_opponent_pool() -> None:
    """A one-player game's view needs no opponents; adding a self-play snapshot to it is refused
    with a message, not an AttributeError on ``None``."""
    env = _solo_view()
    env.reset(seed=1)
    with pytest.raises(RuntimeError, match=r"this env has no opponent pool"):
        env.add_opponent("self", "snap", object())  # type: ignore[arg-type]


def test_view_entry_points_resolve_only_games() -> None:
    """The ids' entry points ``training.single_agent:view_of_<game>`` resolve to ``ViewOf`` for a
    registered game (with a readable repr); an unknown game is an AttributeError naming it."""
    import gymnasium

    import training  # noqa: F401  (registers the ids)
    import training.single_agent as sa

    assert gymnasium.spec("eightfold/octi-single-v0").entry_point == "training.single_agent:view_of_octi"
    assert repr(sa.view_of_octi) == "training.single_agent.ViewOf('octi')"
    with pytest.raises(AttributeError, match=r"view_of_nosuch"):
        _ = sa.view_of_nosuch


# ------------------------------------------------------------------------- positions
def test_start_state_bad_options_names_the_flag() -> None:
    """``eval --options`` starts each game at ``start_state``: an unknown reset option is an
    error prefixed ``--options:`` that lists the game's allowed options."""
    from training.position import start_state

    game = GAMES["over_and_out"].game_class()(num_players=2)
    with pytest.raises(ValueError, match=r"^--options: unknown reset option\(s\) \['bogus'\]; allowed: "):
        start_state(game, np.random.default_rng(0), {"bogus": 1}, [])
    state = start_state(game, np.random.default_rng(0), None, [])
    assert not state.is_terminal()


def test_eval_bad_options_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """README "Command line": a bad value is a usage error naming the option (exit status 2)."""
    from training.cli import main

    argv = ["eval", *OAO, "--players", "random", "heuristic", "--games", "2", "--workers", "1"]
    assert main([*argv, "--options", '{"bogus": 1}']) == 2
    err = capsys.readouterr().err
    assert "--options: unknown reset option(s) ['bogus']" in err


# --------------------------------------------------------------------------- replay
@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two short Octi games (``max_turns=6``, so both are cut off) kept by ``eval --records``."""
    from training.cli import main

    path = tmp_path_factory.mktemp("rec") / "g.jsonl"
    argv = ["eval", "octi", "--param", "max_turns=6", "--players", "random", "heuristic"]
    assert main([*argv, "--games", "2", "--workers", "1", "--records", str(path)]) == 0
    return path


def test_replay_delay_waits_between_moves(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``replay FILE N --delay S`` waits S seconds after each move shown."""
    from training.cli import main

    t0 = time.perf_counter()
    assert main(["replay", str(records), "1", "--upto", "2", "--delay", "0.1"]) == 0
    assert time.perf_counter() - t0 >= 0.2
    assert "(stopped after 2 of the record's 6 moves)" in capsys.readouterr().out


def test_replay_record_without_truncated_key(records: Path, tmp_path: Path) -> None:
    """A record without ``truncated`` still replays and gives a dataset; the dataset's
    ``truncated`` column comes from the replayed engine (the game was cut off), not the record."""
    from training.cli import main

    rec = json.loads(records.read_text().splitlines()[0])
    assert rec["truncated"] is True
    del rec["truncated"]
    path = tmp_path / "nt.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 0
    assert main(["replay", str(path), "--dataset", str(tmp_path / "d.npz")]) == 0
    data = np.load(tmp_path / "d.npz")
    assert len(data["actions"]) == len(rec["moves"]) and data["truncated"].all()


def test_replay_dataset_of_games_with_no_decision(
    records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record whose ``options`` set up a finished game and that has no move lists and replays;
    ``--dataset`` of it is an error saying the games hold no decision (exit 2, no empty file)."""
    from training.cli import main

    rec = json.loads(records.read_text().splitlines()[0])
    env = GAMES["octi"].env(**rec["params"])
    env.reset(options=rec["options"])
    for move in rec["moves"]:
        env.step(env.unwrapped.string_to_action(move))
    assert env.unwrapped.state.is_terminal()
    rec["options"], rec["moves"] = {"state": env.unwrapped.state.to_dict()}, []
    path = tmp_path / "end.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    assert main(["replay", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--dataset", str(tmp_path / "d.npz")]) == 2
    assert "hold no decision (they end before a move)" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()


# ---------------------------------------------------------------------------- train
def test_train_option_given_twice_with_the_same_value_is_taken(tmp_path: Path) -> None:
    """README: an option given twice *with different values* is refused; the same value by its
    flag and by ``--set`` is one setting."""
    from training.cli import build_parser
    from training.train import resolve_config

    def cfg(*extra: str) -> Any:
        return resolve_config(
            build_parser().parse_args(["train", *OAO, "--out", str(tmp_path / "r"), *extra])
        )

    assert cfg("--timesteps", "20", "--set", "timesteps=20").timesteps == 20
    assert cfg("--seed", "3", "--set", "seed=3").seed == 3
    assert cfg("--opponents", "random", "--set", "opponents=random").opponents == {"random": 1.0}
    with pytest.raises(ValueError, match=r"--timesteps and --set timesteps=30 both set timesteps"):
        cfg("--timesteps", "20", "--set", "timesteps=30")


def test_train_rllib_resume_without_config_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--resume --backend rllib`` in a run folder with the RLlib run file but no config.yaml:
    a usage error (exit 2) saying so and to start a new run."""
    from training.cli import main
    from training.rllib.common import META_FILE

    (tmp_path / META_FILE).write_text(json.dumps({"game": "over_and_out", "params": {"num_players": 2}}))
    assert main(["train", *OAO, "--backend", "rllib", "--resume", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no config.yaml" in err and "start a new run" in err


# -------------------------------------------------------------------------- players
@pytest.fixture(scope="module")
def octi_run(octi_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The conftest's Octi model (trained at ``max_turns: 8``) in a run folder with its config."""
    run = tmp_path_factory.mktemp("run")
    shutil.copy(octi_model, run / "model.zip")
    (run / "config.yaml").write_text("env: octi\nparams:\n  max_turns: 8\n")
    return run


def test_player_reprs_and_load_without_zip_suffix(octi_run: Path) -> None:
    """A player's repr names its class and spec; ``PolicyPlayer.load`` takes the path without
    ``.zip`` (sb3 adds it) and plays legal moves."""
    from training.players import PolicyPlayer, game_bots, make_player

    game = GAMES["octi"].game_class()()
    spec = str(octi_run / "model.zip")
    assert repr(make_player(game, spec, {})) == f"PolicyPlayer({spec!r})"
    assert repr(make_player(game, "random", game_bots(GAMES["octi"]))) == "RandomBot('random')"
    player = PolicyPlayer.load(str(octi_run / "model"), game, deterministic=True)
    state = game.new_initial_state(np.random.default_rng(0))
    assert state.legal_mask()[player.act(state, 0, np.random.default_rng(0))]


def test_params_note_for_invalid_trained_params(octi_run: Path, tmp_path: Path) -> None:
    """``params_note``: a model whose run's parameters the game's Config refuses (an edited
    config.yaml) still gets the note naming them, not an error."""
    from training.players import params_note

    shutil.copy(octi_run / "model.zip", tmp_path / "model.zip")
    (tmp_path / "config.yaml").write_text("env: octi\nparams:\n  max_turns: -3\n")
    note = params_note(str(tmp_path / "model.zip"), GAMES["octi"].game_class()())
    assert note.startswith("note: ") and "{'max_turns': -3}" in note and "--param" in note


def test_params_note_names_only_parameters(tmp_path: Path) -> None:
    """A run's ``params`` naming a value the Config computes (Over and Out's ``counts``, not a
    parameter ``--param`` takes) is named as no parameter of the game, not as one to set."""
    from envs.over_and_out.game import OverAndOutGame
    from training.players import params_note

    (tmp_path / "config.yaml").write_text("env: over_and_out\nparams:\n  num_players: 3\n  counts: [1, 2]\n")
    spec = str(tmp_path / "model.zip")
    game = OverAndOutGame(num_players=2)
    game.observe(game.new_initial_state(np.random.default_rng(0)), 0)  # its config caches values
    assert params_note(spec, game) == (
        f"note: {spec} was trained with {{'num_players': 3, 'counts': [1, 2]}}; this game has "
        "{'num_players': 2} (set them with --param); over_and_out has no parameter 'counts'"
    )


def test_play_watch_prints_params_note(octi_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``play --watch`` with a model trained with other parameters prints the note once per
    model, then the game; ``--max-steps`` stops it with the moves so far."""
    from training.cli import main

    spec = str(octi_run / "model.zip")
    assert main(["play", "octi", "--watch", spec, "random", "--max-steps", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count(f"note: {spec} was trained with {{'max_turns': 8}}") == 1
    assert "(stopped after 2 steps" in out


def test_params_note_for_unknown_trained_param(
    octi_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose config.yaml names a parameter this game does not have (an older version, an
    edited file): ``params_note``'s docstring promises a note when the model was trained with
    other parameters; it names the parameter the game lacks (it raised AttributeError once)."""
    from training.cli import main

    shutil.copy(octi_run / "model.zip", tmp_path / "model.zip")
    (tmp_path / "config.yaml").write_text("env: octi\nparams:\n  bogus: 1\n  max_turns: 8\n")
    rc = main(["play", "octi", "--watch", str(tmp_path / "model.zip"), "random", "--max-steps", "1"])
    out = capsys.readouterr().out
    spec = str(tmp_path / "model.zip")
    assert rc == 0
    note = f"note: {spec} was trained with {{'bogus': 1, 'max_turns': 8}}; "
    assert (
        note + "this game has {'max_turns': None} (set them with --param); octi has no parameter 'bogus'"
        in out
    )


@pytest.mark.parametrize(
    "text",
    [
        "env: octi\nparams: 5\n",
        "env: octi\nparams: [1]\n",
        "env: octi\nparams: []\n",
        "env: octi\nparams: false\n",
        "- 1\n",
    ],
    ids=["params-int", "params-list", "params-empty-list", "params-false", "a-list"],
)
def test_malformed_run_config_is_a_usage_error(
    octi_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    """A model's run config.yaml that is no run config (edited by hand) is a usage error naming
    the file (exit 2, README "Command line"), not a traceback (TypeError / KeyError once)."""
    from training.cli import main

    shutil.copy(octi_run / "model.zip", tmp_path / "model.zip")
    (tmp_path / "config.yaml").write_text(text)
    rc = main(["play", "octi", "--watch", str(tmp_path / "model.zip"), "random", "--max-steps", "1"])
    err = capsys.readouterr().err
    assert rc == 2
    problem = "expected a mapping at the top level" if text.startswith("-") else "is not a run's config"
    assert f"{tmp_path / 'config.yaml'}" in err and problem in err


# ------------------------------------------------------------------------- evaluate
def test_eval_player_cache_is_bounded() -> None:
    """The per-process player cache of ``eval`` keeps at most ``CACHE_SIZE`` players, dropping the
    least recently used (a player of every pairing stays); a dropped one is built anew, with the
    spec it names."""
    import training.evaluate as ev

    ev._CACHE.clear()
    kept = ev._player("octi", "{}", "mcts:sims=1", True)
    for i in range(ev.CACHE_SIZE + 1):
        ev._player("octi", "{}", f"mcts:sims={i + 2}", True)
        assert ev._player("octi", "{}", "mcts:sims=1", True) is kept  # used in every pairing
    assert len(ev._CACHE) == ev.CACHE_SIZE
    assert all(k[2] != "mcts:sims=2" for k in ev._CACHE)  # the least recently used went
    game, player = ev._player("octi", "{}", "mcts:sims=2", True)
    assert len(ev._CACHE) == ev.CACHE_SIZE and type(player).__name__ == "MCTSBot"
    assert player.sims == 2 and all(k[2] != "mcts:sims=3" for k in ev._CACHE)
    ev._CACHE.clear()


# ---------------------------------------------------------------------------- rllib
def test_rllib_env_errors_are_named() -> None:
    """The RLlib env (module docstring): before ``reset()`` it says to call reset; a step without
    an action for the agent to act names that agent; ``render()`` is the game's text."""
    pytest.importorskip("ray.rllib")
    from training.rllib.env import EightfoldMultiAgentEnv

    env = EightfoldMultiAgentEnv(
        {"game": "over_and_out", "params": {"num_players": 2}, "opponents": "random"}
    )
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = "player_1" if agent == "player_0" else "player_0"
    with pytest.raises(
        ValueError, match=rf"expected an action for {agent} \(the agent to act\), got \['{other}'\]"
    ):
        env.step({other: 0})
    assert env.render().startswith("Over and Out")


def test_rllib_read_meta_of_a_plain_folder(tmp_path: Path) -> None:
    """``read_meta`` of a folder that is no RLlib run: a ValueError naming the missing file."""
    from training.rllib.common import META_FILE, read_meta

    with pytest.raises(ValueError, match=rf"is not an RLlib run directory \(no {META_FILE}\)"):
        read_meta(tmp_path)


# ---------------------------------------------------------------------------- plots
def test_learning_curve_readers_pass_over_cut_lines(tmp_path: Path) -> None:
    """``read_monitor`` / ``read_evals`` (the learning curve's input): a monitor header that is no
    JSON counts times from 0, a row a kill cut short and a non-object eval line are passed over,
    and an empty run gives empty curves."""
    from training.plots import _rolling, read_evals, read_monitor

    (tmp_path / "monitor").mkdir()
    (tmp_path / "monitor" / "0.monitor.csv").write_text("#not json\nr,l,t\n1,5,2.0\n-1,3,1.0\n0.5,2\n")
    data = read_monitor(tmp_path)
    assert data["t"].tolist() == [1.0, 2.0] and data["steps"].tolist() == [3, 8]
    (tmp_path / "eval.jsonl").write_text('{"timesteps": 10}\n[1]\n{"timesteps": 2\n')
    assert read_evals(tmp_path) == [{"timesteps": 10}]
    empty = read_monitor(tmp_path / "none")
    assert empty["r"].size == 0 and _rolling(empty["r"], 10).size == 0
