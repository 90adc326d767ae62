"""A researcher's own models and machines: what a model saved by one's own SB3 script meets in
eightfold's tools, and what differs on macOS and Windows (simulated here: no ``os.geteuid``,
no ``forkserver``, files written with a BOM, a drive letter in a path, a console in cp1252).

* a model's run is its own folder's ``config.yaml`` (or the one above its ``checkpoints/`` or
  ``pool/``), not any ``config.yaml`` two folders up, nor a config of another library;
* a model with no run is played as named, with a note saying nothing checks it;
* a Dict-observation (``MultiInputPolicy``) model, and one trained through an observation
  wrapper, are refused saying so; a Python player among the view's opponents names the way in;
* files are replaced where ``os.geteuid`` does not exist; workers spawn where there is no
  forkserver (the same results); a BOM is skipped; ``C:\\...`` is a path; the doc pages print
  on a cp1252 console."""

from __future__ import annotations

import ast
import io
import json
import multiprocessing as mp
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from envs.core.files import write_text
from envs.core.registry import get_game
from training.players import PolicyPlayer, names_no_player, params_note, trained_with


# ------------------------------------------------------------------ a model's run
def test_a_config_two_folders_up_or_of_another_library_is_no_models_run(tmp_path: Path) -> None:
    """A project's ``config.yaml`` above ``models/`` (or any config of another library's env
    beside the model) made eval and play refuse one's own model ("unknown game 'CartPole-v1'",
    or "trained on octi" from an unrelated run above it)."""
    (tmp_path / "config.yaml").write_text("lr: 0.0003\nenv: CartPole-v1\n")
    for text in ("_wandb: {value: {}}\nlr: {value: 0.1}\n", "env: {id: CartPole-v1}\n", "env: 3\n"):
        other = tmp_path / "other" / "mine.zip"  # wandb's config (no env), Hydra's (a mapping)
        other.parent.mkdir(exist_ok=True)
        (other.parent / "config.yaml").write_text(text)
        other.write_bytes(b"")
        assert trained_with(str(other)) is None, text
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.yaml").write_text("env: octi\nparams: {}\n")
    own = tmp_path / "models" / "mine.zip"  # the project's config two up: not its run
    beside = tmp_path / "mine.zip"  # another library's config beside it: not its run
    kept = tmp_path / "run" / "mine" / "model.zip"  # under a run, in a folder of one's own
    for model in (own, beside, kept):
        model.parent.mkdir(parents=True, exist_ok=True)
        model.write_bytes(b"")
        assert trained_with(str(model)) is None, model
    for folder in ("checkpoints", "pool"):  # a run's own models are still its run's
        model = tmp_path / "run" / folder / "m.zip"
        model.parent.mkdir()
        model.write_bytes(b"")
        assert trained_with(str(model)) == ("octi", {})


def test_a_model_with_no_run_is_played_as_named_with_a_note(tmp_path: Path) -> None:
    """Nothing in a model of one's own script says which config it was trained on (Over and
    Out's spaces fit 2 to 8 players): the note says the env and parameters it will play, and
    that nothing checked them."""
    model = tmp_path / "mine.zip"
    model.write_bytes(b"")
    game = get_game("over_and_out").game_class()(num_players=3)
    assert params_note(str(model), game) == (
        f"note: {model} has no eightfold run around it (no run's config.yaml): it plays "
        "over_and_out {'num_players': 3} as named, and nothing checks that it was trained on that"
    )
    octi = get_game("octi").game_class()()
    assert "it plays octi (defaults) as named" in params_note(str(model), octi)
    assert params_note("heuristic", octi) == ""  # a bot: nothing to say


def _policy(obs_space: Any, action_space: Any) -> Any:
    return SimpleNamespace(
        observation_space=obs_space, action_space=action_space, set_training_mode=lambda m: None
    )


def test_a_dict_observation_model_is_refused_saying_what_the_tools_feed() -> None:
    """A ``MultiInputPolicy`` model trained on the AEC env's ``{"observation", "action_mask"}``
    raised ``TypeError: 'NoneType' object is not iterable`` in eval, play and the view."""
    game = get_game("over_and_out").game_class()(num_players=2)
    space = gym.spaces.Dict(
        {"observation": gym.spaces.Box(0, 1, (60,)), "action_mask": gym.spaces.Box(0, 1, (12,), np.int8)}
    )
    with pytest.raises(ValueError, match="Dict observations") as err:
        PolicyPlayer(_policy(space, gym.spaces.Discrete(12)), game, name="d.zip")
    assert str(err.value) == (
        "policy 'd.zip' was trained on Dict observations and Discrete actions; a player is fed the "
        "single-agent view's observation, a Box of (60,), and picks one of Discrete(12): train on the "
        "view's observation (MlpPolicy/CnnPolicy)"
    )


def test_a_model_trained_through_a_reshaping_wrapper_is_named_as_such() -> None:
    """Octi's (84, 7, 6) planes flattened (``FlattenObservation``) are the same numbers in
    another shape: no ``--param`` helps, and the message says why (the tools feed the view's
    observation unchanged); another game's model is named as one."""
    game = get_game("octi").game_class()()
    flat = _policy(gym.spaces.Box(0, 1, (84 * 7 * 6,)), gym.spaces.Discrete(game.num_actions))
    with pytest.raises(ValueError, match="the same numbers in another shape: a player is fed the view's"):
        PolicyPlayer(flat, game, name="f.zip")
    other = _policy(gym.spaces.Box(0, 1, (60,)), gym.spaces.Discrete(12))
    with pytest.raises(ValueError, match=r"a model of another game, variant or player count \(name the env"):
        PolicyPlayer(other, game, name="o.zip")


class _Player:
    def act(self, state: Any, seat: int, rng: np.random.Generator) -> int:
        return 0


@pytest.mark.parametrize("item", [lambda state, seat, rng: 0, _Player(), 3])
def test_a_python_player_among_the_opponents_names_the_way_in(item: Any) -> None:
    """``opponents=`` takes spec strings; a function or an object was read as an unknown bot
    named by its repr. Now the message names ``add_opponent``, which takes a player object."""
    with pytest.raises(
        ValueError, match=r"item 1 is a \w+, not a spec string .*env\.unwrapped\.add_opponent"
    ):
        gym.make("eightfold/over_and_out-single-v0", opponents=[item], num_players=2)
    with pytest.raises(ValueError, match="not a spec string|a player spec is a string") as err:
        gym.make("eightfold/over_and_out-single-v0", opponents={"random": 1.0, item: 1.0}, num_players=2)
    assert ("env.unwrapped.add_opponent" in str(err.value)) == (not isinstance(item, int))


def test_a_player_object_joins_the_pool_through_add_opponent() -> None:
    """The documented way in: an object with ``act(state, seat, rng) -> int`` in a new group."""

    class FirstLegal:
        def act(self, state: Any, seat: int, rng: np.random.Generator) -> int:
            return int(np.flatnonzero(state.legal_mask())[0])

    env = gym.make("eightfold/over_and_out-single-v0", opponents=["random"], num_players=2, seat=0)
    env.unwrapped.opponents.groups.clear()  # (only the new group can be drawn)
    env.unwrapped.add_opponent("mine", "first-legal", FirstLegal())
    _obs, info = env.reset(seed=0)
    assert info["opponents"] == {"player_1": "first-legal"}


def test_the_env_must_be_named_with_its_params_for_a_model_without_a_run(tmp_path: Path) -> None:
    from training.evaluate import infer_env

    model = tmp_path / "mine.zip"
    model.write_bytes(b"")
    with pytest.raises(ValueError, match=r"name the env and its --param values \(e\.g\. eightfold eval"):
        infer_env([str(model), "random"])


# ------------------------------------------------------------------ other systems
def test_files_are_replaced_where_there_is_no_geteuid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows has no ``os.geteuid``: replacing an existing file (a second ``--json``, a
    resume's config, a better ``best_model.zip``) raised ``AttributeError``."""
    monkeypatch.delattr(os, "geteuid")
    path = tmp_path / "x.json"
    write_text(path, "1")
    write_text(path, "2")
    assert path.read_text() == "2"


def test_workers_spawn_where_there_is_no_forkserver(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows starts processes by ``spawn`` only: ``forkserver`` was asked for by name (eval's
    workers, ``--vec-env subproc``, the warm start's workers) and failed. With no forkserver the
    workers spawn, and a parallel tournament gives the single process's result."""
    import training.interrupt as interrupt
    from training.evaluate import run_tournament

    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["spawn"])
    assert interrupt.start_method() == "spawn"
    started: list[int] = []
    monkeypatch.setattr("multiprocessing.forkserver.ensure_running", lambda: started.append(1))
    interrupt.start_forkserver()
    assert started == []  # nothing to start
    players = ["heuristic", "random"]
    one = run_tournament("over_and_out", {"num_players": 2}, players, 40, seed=3, workers=1)
    two = run_tournament("over_and_out", {"num_players": 2}, players, 40, seed=3, workers=2)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_a_bom_is_skipped_in_options_files_and_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Windows editors and PowerShell 5.1 write UTF-8 with a BOM: ``--options @file`` and a
    records file were refused as "not JSON (Unexpected UTF-8 BOM)"."""
    from training.cli import main

    records = tmp_path / "rec.jsonl"
    assert (
        main(["play", "octi", "--random", "--seed", "1", "--max-steps", "400", "--record", str(records)]) == 0
    )
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + records.read_bytes().replace(b"\n", b"\r\n"))
    capsys.readouterr()
    assert main(["replay", str(bom)]) == 0
    assert "    1 " in capsys.readouterr().out
    options = tmp_path / "opt.json"
    options.write_bytes(b"\xef\xbb\xbf" + json.dumps({"tiptop_top": [22]}).encode())
    argv = ["play", "over_and_out", "--param", "num_players=2", "--random", "--max-steps", "1"]
    assert main([*argv, "--options", f"@{options}"]) == 0
    assert "total 0 / Tip Top 22 " in capsys.readouterr().out  # the option took effect


def test_a_windows_path_is_a_path_not_a_bot_with_parameters() -> None:
    """``C:\\Users\\me\\run`` has a ``:``, which read as a bot's parameters ("malformed bot
    parameter '\\Users\\me\\run'")."""
    assert names_no_player("C:\\Users\\me\\run win1") and names_no_player("D:/runs/x")
    assert not names_no_player("mcts:sims=2") and not names_no_player("C:/runs/model.zip")


@pytest.mark.parametrize("name", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
def test_each_doc_page_prints_on_a_cp1252_console(name: str) -> None:
    """README's way to read a doc page, ``print(m.__doc__)``, on a Windows console redirected
    to a file (cp1252): Otto the Octopus's page wrote the kind index as a Greek kappa."""
    path = Path(__file__).parents[2] / "envs" / name / "env.py"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    stream = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    stream.write(doc)  # raised UnicodeEncodeError
    stream.flush()


def test_the_readme_way_to_seed_ones_own_vector_env_keeps_neighbouring_seeds_apart() -> None:
    """sb3's ``make_vec_env(seed=s)`` seeds copy i with s + i, so copy 1 at seed 0 dealt copy 0's
    game at seed 1; wrapped in ``RunSeeded`` as the README says, no copy's first game is
    another's."""
    from stable_baselines3.common.env_util import make_vec_env

    import training  # noqa: F401  (registers the ids)
    from training.train import RunSeeded

    def firsts(seed: int, wrapped: bool) -> set[bytes]:
        extra: dict[str, Any] = (
            {"wrapper_class": RunSeeded, "wrapper_kwargs": {"run_seed": seed}} if wrapped else {}
        )
        venv = make_vec_env(
            "eightfold/over_and_out-single-v0", n_envs=2, seed=seed, env_kwargs={"num_players": 2}, **extra
        )
        return {obs.tobytes() for obs in venv.reset()}

    assert firsts(0, False) & firsts(1, False)  # the overlap the README warns of
    assert not firsts(0, True) & firsts(1, True)
