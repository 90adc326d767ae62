"""``eightfold train``'s run (``training/train.py``) where a second mutation round found the
suite blind: the run directory a config file or a copied run names, the files a new run
replaces, the model a resume starts from, what a resume's rollback sets aside and says, the
self-play snapshots' interval, the monitor files of later resumes, a one-game final evaluation
and the lines the command prints.

The runs here are one or two PPO rollouts of 64 steps (Over and Out, 2 players, a network of 8
units), in this process.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.training.test_train_pins import OAO, _fake_run, _model_file, _train
from training.cli import build_parser, main
from training.config import TrainConfig


# ------------------------------------------------------------------ the run's directory
def test_a_config_files_out_is_noted_and_the_run_goes_to_the_out_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``--config`` file that names another ``out`` gets a note, and the run goes to
    ``--out`` all the same: the file's ``out`` must not win silently (the run would write
    into another run's directory)."""
    from training.train import resolve_config

    elsewhere = tmp_path / "elsewhere"
    config = tmp_path / "mine.yaml"
    config.write_text(yaml.safe_dump({"env": "over_and_out", "out": str(elsewhere), "n_envs": 3}))
    out = tmp_path / "run"
    cfg = resolve_config(
        build_parser().parse_args(["train", *OAO, "--out", str(out), "--config", str(config)])
    )
    assert (cfg.out, cfg.n_envs) == (str(out), 3)
    err = capsys.readouterr().err
    assert f"note: {config} names out {str(elsewhere)!r}; this run goes to {str(out)!r} (--out)" in err


def test_a_copied_run_resumes_in_its_new_directory(tmp_path: Path) -> None:
    """A run directory copied (or moved) elsewhere holds a ``config.yaml`` naming its old
    place: a ``--resume`` there continues the copy, not the run it was copied from."""
    from training.train import resolve_config

    old, new = tmp_path / "old", tmp_path / "new"
    _fake_run(old)
    shutil.copytree(old, new)
    args = build_parser().parse_args(["train", *OAO, "--out", str(new), "--resume", "--timesteps", "999"])
    cfg = resolve_config(args)
    assert cfg.out == str(new)


def test_a_new_run_replaces_the_earlier_final_report_snapshots_and_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new run in a run directory removes the earlier run's final evaluation (it would read
    as this run's), its best model and warm-start log (this run has neither), its self-play
    snapshots (a later ``--resume`` would give them to the pool as this run's past selves) and
    its monitor episodes (the learning curve would draw both runs), and says so. The new
    monitor files log each episode's outcome and placement."""
    out = tmp_path / "run"
    (out / "monitor").mkdir(parents=True)
    (out / "final_eval.json").write_text(json.dumps({"players": ["old"], "pairs": []}))
    (out / "pretrain.json").write_text(json.dumps({"samples": 100}))
    _model_file(out / "best_model.zip")
    _model_file(out / "pool" / "snap_000009000.zip")
    header = "#" + json.dumps({"t_start": 1.0, "env_id": None}) + "\nr,l,t,outcome,placement,return\n"
    for name in ("0.monitor.csv", "resume1-0.monitor.csv"):
        (out / "monitor" / name).write_text(header + "1,99,5.0,win,1,1\n")
    assert _train(out, 64) == 0
    assert f"note: {out} holds an earlier run" in capsys.readouterr().out
    for name in ("final_eval.json", "pretrain.json", "best_model.zip"):
        assert not (out / name).exists(), name
    assert not (out / "pool").exists() or not list((out / "pool").iterdir())
    assert sorted(p.name for p in (out / "monitor").iterdir()) == ["0.monitor.csv", "1.monitor.csv"]
    lines = (out / "monitor" / "0.monitor.csv").read_text().splitlines()
    assert "1,99,5.0,win,1,1" not in lines
    assert lines[1] == "r,l,t,outcome,placement,return", "each episode's outcome and placement"


def test_each_of_three_resumes_logs_to_monitor_files_of_its_own(tmp_path: Path) -> None:
    """The k-th resume logs to ``resume<k>-<i>.monitor.csv`` for every k: a third resume
    writing over the second's files would lose those episodes from the learning curve."""
    from training.train import build_vec_env

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, n_envs=1, out=str(tmp_path))
    build_vec_env(cfg, tmp_path).close()
    for _ in range(3):
        build_vec_env(cfg, tmp_path, resume=True).close()
    assert sorted(p.name for p in (tmp_path / "monitor").iterdir()) == [
        "0.monitor.csv", "resume1-0.monitor.csv", "resume2-0.monitor.csv", "resume3-0.monitor.csv",
    ]  # fmt: skip


def test_a_config_file_on_a_resume_is_refused_naming_the_runs_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config`` with ``--resume`` is refused with the path of the ``config.yaml`` the run
    goes on with (the file the user must edit, or ``--set`` instead)."""
    out = tmp_path / "run"
    _fake_run(out)
    other = tmp_path / "other.yaml"
    other.write_text("n_envs: 3\n")
    argv = ["train", *OAO, "--out", str(out), "--resume", "--timesteps", "999", "--config", str(other)]
    assert main(argv) == 2
    assert f"the run continues with {str(out / 'config.yaml')!r}" in capsys.readouterr().err


# ------------------------------------------------------------------ the envs
def test_a_run_seeded_env_deals_new_games_after_its_first_reset(tmp_path: Path) -> None:
    """SB3 seeds each env once (``reset(seed=s)``) and then resets it without a seed at each
    episode's end: those resets go on with the env's own stream. Seeding them too would deal
    the same game in every episode of the run."""
    from training.train import make_env

    cfg = {"env": "over_and_out", "params": {"num_players": 2}, "opponents": {"random": 1.0}, "seed": 0}
    env = make_env(cfg, 0, str(tmp_path))

    def deal() -> str:
        return json.dumps(env.unwrapped.state.to_dict(), sort_keys=True, default=str)

    deals = []
    env.reset(seed=3)
    deals.append(deal())
    for _ in range(3):
        env.reset()
        deals.append(deal())
    assert len(set(deals)) == 4
    env.reset(seed=3)
    assert deal() == deals[0], "the same seed, the same first game"


def test_a_partner_is_for_2v2_games_only() -> None:
    """The config's ``partner`` is ignored in a game without teams (Over and Out): no seat of the
    learner's opponents is handed to it."""
    from training.train import build_single_env

    cfg = {
        "env": "over_and_out",
        "params": {"num_players": 3},
        "opponents": {"random": 1.0},
        "partner": "random",
    }
    env, _game, _bots = build_single_env(cfg)
    assert env.partner is None


# ------------------------------------------------------------------ the model a resume starts from
def test_model_zip_wins_over_a_checkpoint_of_the_same_steps(tmp_path: Path) -> None:
    """The checkpoint at the run's last step is saved while the last rollout is collected,
    before its update; ``model.zip``, at the same step count, holds that update: a resume
    goes on from ``model.zip``."""
    from training.train import furthest_model

    _model_file(tmp_path / "model.zip", 64)
    _model_file(tmp_path / "checkpoints" / "model_64_steps.zip")
    _model_file(tmp_path / "checkpoints" / "model_32_steps.zip")
    assert furthest_model(tmp_path) == (tmp_path / "model.zip", 64)


# ------------------------------------------------------------------ a resume's rollback
def test_the_rollback_sets_aside_a_later_best_model_with_its_record_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``best_model.zip`` from an evaluation after the resumed model goes to ``lost/`` with
    the ``best_model.json`` naming that evaluation (left behind, it would name an evaluation
    the run no longer has), and the command says what it set aside and where."""
    from training.train import rollback_run

    model = tmp_path / "checkpoints" / "model_512_steps.zip"
    _model_file(model)
    _model_file(tmp_path / "best_model.zip")
    (tmp_path / "best_model.json").write_text(json.dumps({"timesteps": 640, "score": 0.7}))
    moved = rollback_run(tmp_path, 512, model)
    assert moved["best model"] == 1
    lost = tmp_path / "lost" / "after_512_steps"
    assert sorted(p.name for p in lost.iterdir()) == ["best_model.json", "best_model.zip"]
    assert not (tmp_path / "best_model.zip").exists() and not (tmp_path / "best_model.json").exists()
    out = capsys.readouterr().out
    assert (
        f"note: resuming at 512 steps from model_512_steps.zip: what the run logged after it "
        f"(1 best model) is set aside in {lost}" in out
    )


@pytest.mark.parametrize(("later", "moved"), [(True, 1), (False, 0)])
def test_a_best_model_without_its_record_is_dated_by_its_file_time(
    later: bool, moved: int, tmp_path: Path
) -> None:
    """A run from before ``best_model.json``: its ``best_model.zip`` is set aside when its file
    is newer than the resumed model's, and kept when it is older."""
    from training.train import rollback_run

    model = tmp_path / "checkpoints" / "model_512_steps.zip"
    _model_file(model)
    _model_file(tmp_path / "best_model.zip")
    t = 1_700_000_000.0
    os.utime(model, (t, t))
    best_t = t + 100 if later else t - 100
    os.utime(tmp_path / "best_model.zip", (best_t, best_t))
    assert rollback_run(tmp_path, 512, model)["best model"] == moved
    assert (tmp_path / "best_model.zip").is_file() is not later


# ------------------------------------------------------------------ the run's callbacks
def test_snapshots_follow_snapshot_every_not_checkpoint_every(tmp_path: Path) -> None:
    """With ``self`` among the opponents the learner is frozen into ``pool/`` at the start and
    every ``snapshot_every`` learner steps, apart from the checkpoints' own interval."""
    out = tmp_path / "run"
    assert _train(out, 64, "--opponents", "random,self", "--set", "snapshot_every=32") == 0
    assert sorted(p.name for p in (out / "pool").iterdir()) == [
        "snap_000000000.zip", "snap_000000032.zip", "snap_000000064.zip",
    ]  # fmt: skip
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["model_64_steps.zip"]


def test_the_periodic_evaluation_plays_every_baseline_every_n_steps(tmp_path: Path) -> None:
    """``eval_every`` learner steps apart, the run plays ``eval_games`` games against each of
    ``eval_opponents`` and logs a row of them to ``eval.jsonl`` (two settings swapped, or a
    baseline left out, gives rows of other steps, game counts or baselines)."""
    out = tmp_path / "run"
    extra = ["--eval-every", "32", "--set", "eval_games=2", "--set", 'eval_opponents=["random", "greedy"]']
    assert _train(out, 64, *extra) == 0
    rows = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert [row["timesteps"] for row in rows] == [32, 64]
    for row in rows:
        assert {k: v["games"] for k, v in row.items() if isinstance(v, dict)} == {"random": 2, "greedy": 2}
    assert (out / "best_model.zip").is_file()
    assert json.loads((out / "best_model.json").read_text())["timesteps"] in (32, 64)


def test_a_self_partner_makes_no_snapshots_in_a_game_without_teams() -> None:
    """``partner: self`` is ignored in a game without teams: no ``partner`` pool receives
    snapshots (the run would freeze the learner into ``pool/`` for no one)."""
    from envs.core.registry import get_game
    from training.train import selfplay_groups

    game = get_game("over_and_out").game_class()(num_players=3)
    cfg = TrainConfig(
        env="over_and_out", params={"num_players": 3}, opponents={"random": 1.0}, partner="self"
    )
    assert selfplay_groups(cfg, game) == []


# ------------------------------------------------------------------ what the command prints
def test_the_command_prints_its_files_and_a_resumes_own_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command prints where the learning curve went, a resume prints the model it goes on
    from and then the steps of its own part (not the run's total), and ``--eval-games 1`` plays
    one game against each baseline (not none)."""
    out = tmp_path / "run"
    assert _train(out, 64) == 0
    printed = capsys.readouterr().out
    assert "holds an earlier run" not in printed, "a fresh directory holds no run to replace"
    assert f"learning curve: {out / 'learning_curve.png'}" in printed
    assert "trained 64 steps in" in printed
    assert _train(out, 128, "--resume", "--eval-games", "1") == 0
    printed = capsys.readouterr().out
    assert f"resuming from {out / 'model.zip'} at 64 steps" in printed
    assert "trained 64 steps in" in printed and "trained 128 steps" not in printed
    report = json.loads((out / "final_eval.json").read_text())
    assert report["games_per_pairing"] == 1 and report["pairs"][0]["games"] == 1


def test_a_count_between_rollouts_is_said_to_round_up_and_trains_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PPO collects whole rollouts (here 2 x 32 = 64 steps): ``--timesteps 100`` trains 128
    steps and says so before it starts, so the progress bar's total is what is trained; a
    resume rounds what is left from where the run stands."""
    out = tmp_path / "run"
    assert _train(out, 100) == 0
    printed = capsys.readouterr().out
    assert (
        "PPO trains in whole rollouts of 64 steps (n_steps 32 x n_envs 2): 100 steps to go round up to 128"
        in printed
    )
    assert "trained 128 steps in" in printed
    assert _train(out, 130, "--resume", "--eval-games", "1") == 0
    printed = capsys.readouterr().out
    assert "2 steps to go round up to 64" in printed and "trained 64 steps in" in printed
    assert _train(tmp_path / "whole", 64) == 0
    assert "round up" not in capsys.readouterr().out, "a whole number of rollouts needs no note"
    # the same training as asking for the rounded count itself, to the last bit
    import io
    import zipfile

    import torch

    assert _train(tmp_path / "asked", 128) == 0
    weights = []
    for run in (tmp_path / "asked", tmp_path / "rounded"):
        if run.name == "rounded":
            assert _train(run, 100) == 0
        with zipfile.ZipFile(run / "model.zip") as z:
            weights.append(torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True))
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_a_partner_model_of_other_parameters_gets_the_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A saved model as the 2v2 partner, trained with other game parameters, gets the note an
    opponent model gets (its spaces may fit all the same, so nothing else would say so)."""
    from training.train import note_opponent_params

    (tmp_path / "config.yaml").write_text("env: otto_game_over\nparams:\n  num_players: 2\n")
    model = str(tmp_path / "model.zip")
    cfg = TrainConfig(
        env="otto_game_over",
        params={"num_players": 4, "teams": True},
        opponents={"random": 1.0},
        partner=model,
    )
    note_opponent_params(cfg)
    assert f"note: {model} was trained with" in capsys.readouterr().err
