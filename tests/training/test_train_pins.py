"""``eightfold train``'s run (``training/train.py``) where a mutation round found the suite blind:
the options that reach the run, the refusals of a resume, the numbers of ``train_summary.json``,
the files a new run replaces, the envs it builds and the model its final evaluation plays.

The runs here are one or two PPO rollouts of 64 steps (Over and Out, 2 players, a network of 8
units), in this process; ``training.train``'s clock is replaced where a test reads the times.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from training.cli import build_parser, main
from training.config import TrainConfig

OAO = ["over_and_out", "--param", "num_players=2"]
#: one rollout of 2 x 32 steps a part; no periodic evaluation, a checkpoint per rollout
TINY = [
    "--n-envs", "2", "--opponents", "random", "--no-progress", "--eval-every", "0",
    "--set", "n_steps=32", "--set", "batch_size=32", "--set", "n_epochs=1", "--set", "net_arch=[8]",
    "--set", "checkpoint_every=64", "--set", 'eval_opponents=["random"]', "--set", "eval_workers=1",
    "--set", "pretrain_samples=0", "--set", "torch_threads=1",
]  # fmt: skip


def _train(out: Path, timesteps: int, *extra: str) -> int:
    return main(["train", *OAO, "--out", str(out), "--timesteps", str(timesteps), *TINY, *extra])


def _clock(monkeypatch: pytest.MonkeyPatch, *times: float) -> None:
    """``training.train``'s ``time.time()`` returns ``times`` in turn."""
    import training.train as tt

    ticks: Iterator[float] = iter(times)
    monkeypatch.setattr(tt, "time", SimpleNamespace(time=lambda: next(ticks)))


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "train_summary.json").read_text())


def _model_file(path: Path, steps: int | None = None) -> None:
    """A whole zip where a model file is looked for (the checks before a run never load it),
    holding its learner steps as SB3 does (``num_timesteps`` in ``data``) unless ``steps`` is None."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({} if steps is None else {"num_timesteps": steps}))


def _fake_run(out: Path, steps: int = 64, **options: Any) -> None:
    """A run directory as a finished run leaves it: config.yaml, model.zip and its steps."""
    from training.config import save_config

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, out=str(out), net_arch=[8], **options)
    save_config(cfg, out)
    _model_file(out / "model.zip", steps)


# ------------------------------------------------------------------ the run and its report
def test_the_summary_counts_this_parts_steps_and_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``train_summary.json`` reports the steps of the part that ran (a resume's own, not the
    run's total), its wall time and throughput from those, and the run's settings: a wrong
    number here is what a user quotes as the run's speed."""
    out = tmp_path / "run"
    _clock(monkeypatch, 1000.0, 1008.0)
    assert _train(out, 64) == 0
    summary = _summary(out)
    assert {k: summary[k] for k in ("env", "params", "timesteps", "steps_this_run", "n_envs", "vec_env")} == {
        "env": "over_and_out", "params": {"num_players": 2}, "timesteps": 64, "steps_this_run": 64,
        "n_envs": 2, "vec_env": "dummy",
    }  # fmt: skip
    assert (summary["wall_s"], summary["steps_per_s"], summary["pretrain_s"], summary["total_wall_s"]) == (
        8.0, 8.0, 0.0, 8.0,
    )  # fmt: skip
    _clock(monkeypatch, 2000.0, 2016.0)
    assert _train(out, 128, "--resume") == 0
    summary = _summary(out)
    assert (summary["timesteps"], summary["steps_this_run"]) == (128, 64), "the resume trains up to the total"
    assert (summary["wall_s"], summary["steps_per_s"], summary["total_wall_s"]) == (16.0, 4.0, 16.0)
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "model_128_steps.zip", "model_64_steps.zip",
    ]  # fmt: skip


def test_the_warm_start_runs_once_and_its_time_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The behaviour-cloning warm start runs before the first PPO step of a new run, never again
    on a resume (it would overwrite the trained policy with the teacher's); its time is
    ``pretrain_s``, apart from the PPO wall time, and both add up in ``total_wall_s``. The resume
    here goes on from a ``model.zip`` whose ``train_summary.json`` is gone (the steps are the
    model file's own)."""
    import training.pretrain

    fits: list[int] = []

    def fake_pretrain(model: Any, cfg: dict[str, Any], out: Path) -> dict[str, Any]:
        fits.append(model.num_timesteps)
        return {}

    monkeypatch.setattr(training.pretrain, "pretrain", fake_pretrain)
    out = tmp_path / "run"
    _clock(monkeypatch, 100.0, 103.0, 200.0, 205.0)
    assert _train(out, 64, "--set", "pretrain_samples=100") == 0
    summary = _summary(out)
    assert fits == [0]
    assert (summary["pretrain_s"], summary["wall_s"], summary["total_wall_s"], summary["steps_per_s"]) == (
        3.0, 5.0, 8.0, 12.8,
    )  # fmt: skip
    (out / "train_summary.json").unlink()  # the resume reads the steps from model.zip itself
    _clock(monkeypatch, 300.0, 304.0)
    assert _train(out, 128, "--resume", "--set", "pretrain_samples=100") == 0
    assert fits == [0], "no second warm start on a resume"
    summary = _summary(out)
    assert (summary["timesteps"], summary["steps_this_run"], summary["pretrain_s"], summary["wall_s"]) == (
        128, 64, 0.0, 4.0,
    )  # fmt: skip


def test_a_new_run_replaces_the_earlier_runs_files_and_sets_torch_threads(tmp_path: Path) -> None:
    """A new run in a run directory removes the earlier run's logs before it writes its own
    (``eval.jsonl`` rows of the earlier run, its checkpoints, ``best_model.json`` naming an
    evaluation of it, what an earlier resume set aside in ``lost/``), ``eval_games: 0`` makes
    no periodic evaluation, and the learner runs on the config's ``torch_threads``."""
    import torch

    out = tmp_path / "run"
    for name in ("eval.jsonl", "best_model.json", "lost/after_64_steps/eval.jsonl"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(json.dumps({"timesteps": 9000, "score": 1.0}) + "\n")
    _model_file(out / "checkpoints" / "model_9000_steps.zip")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        assert _train(out, 64, "--eval-every", "32", "--set", "eval_games=0") == 0
        assert torch.get_num_threads() == 1, "torch_threads: 1"
    finally:
        torch.set_num_threads(before)
    assert not (out / "eval.jsonl").exists() and not (out / "best_model.json").exists(), "eval_games: 0"
    assert not (out / "best_model.zip").exists()
    assert not (out / "lost").exists()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["model_64_steps.zip"]
    assert _summary(out)["timesteps"] == 64


def test_the_final_evaluation_plays_the_final_model_and_only_when_asked(tmp_path: Path) -> None:
    """``--eval-games N`` plays ``model.zip`` (the run's final model, not another file) N games
    against each baseline; ``--eval-games 0`` plays none and leaves the earlier report alone."""
    out = tmp_path / "run"
    assert _train(out, 64, "--eval-games", "2") == 0
    report = json.loads((out / "final_eval.json").read_text())
    assert report["players"] == [str(out / "model.zip"), "random"]
    assert report["games_per_pairing"] == 2 and report["pairs"][0]["games"] == 2
    before = (out / "final_eval.json").read_text()
    assert _train(out, 128, "--resume", "--eval-games", "0") == 0
    assert (out / "final_eval.json").read_text() == before
    assert yaml.safe_load((out / "config.yaml").read_text())["final_eval_games"] == 0


# ------------------------------------------------------------------ the options of the command
def test_the_command_line_options_reach_the_config(tmp_path: Path) -> None:
    """Each flag lands on its own option (``--eval-games`` is the final evaluation's games, not
    the periodic one's); a flag that is dropped silently trains with the YAML's value. Without
    ``--out`` the run goes to ``runs/<game>``."""
    from training.config import default_config_path, read_yaml
    from training.train import resolve_config

    argv = ["train", *OAO, "--out", str(tmp_path / "run"), "--timesteps", "777", "--seed", "5",
            "--n-envs", "3", "--vec-env", "subproc", "--eval-every", "99", "--eval-games", "6",
            "--opponents", "greedy", "--no-progress"]  # fmt: skip
    cfg = resolve_config(build_parser().parse_args(argv))
    assert (cfg.timesteps, cfg.seed, cfg.n_envs, cfg.vec_env, cfg.eval_every) == (777, 5, 3, "subproc", 99)
    assert (cfg.final_eval_games, cfg.opponents, cfg.progress_bar) == (6, {"greedy": 1.0}, False)
    yaml_games = read_yaml(default_config_path("over_and_out")).get("eval_games")  # type: ignore[arg-type]
    assert cfg.eval_games == yaml_games != 6, "the periodic evaluation keeps the YAML's games"
    assert (cfg.env, cfg.out) == ("over_and_out", str(tmp_path / "run"))
    default = resolve_config(build_parser().parse_args(["train", *OAO]))
    assert default.out == str(Path("runs") / "over_and_out"), "without --out: runs/<game>"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--envs-per-runner", "2"], "--envs-per-runner: for --backend rllib only"),
        (["--address", "auto"], "--address: for --backend rllib only"),
        (["--num-cpus", "2"], "--num-cpus: for --backend rllib only"),
        (["--backend", "rllib", "--vec-env", "subproc"], "--vec-env: for --backend sb3 only"),
        (["--backend", "rllib", "--eval-every", "5"], "--eval-every: for --backend sb3 only"),
        (["--backend", "rllib", "--eval-games", "400"], "--eval-games: for --backend sb3 only (an RLlib run"),
        (
            ["--backend", "rllib", "--no-progress"],
            "--no-progress: for --backend sb3 only (an RLlib run prints",
        ),
    ],
)
def test_a_flag_of_the_other_backend_is_refused(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flag the chosen backend would ignore is a usage error naming it, before anything is
    written (an SB3 run given ``--address`` would train on this machine without a word). The
    ``--out`` here is a file, refused too, but only after the flags: a flag let through fails
    at once on it, naming the file instead."""
    (tmp_path / "afile").write_text("")
    assert main(["train", *OAO, "--out", str(tmp_path / "afile"), *flags]) == 2
    assert message in capsys.readouterr().err


def test_an_rllib_run_gets_its_options_checked_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``resolve_config`` validates the options for both backends: ``train_rllib`` does not
    validate them again, so a value out of range would reach RLlib's PPO unchecked."""
    import training.rllib.train

    def not_reached(*args: Any) -> None:
        raise AssertionError("train_rllib was called with an invalid config")

    monkeypatch.setattr(training.rllib.train, "train_rllib", not_reached)
    argv = ["train", *OAO, "--backend", "rllib", "--out", str(tmp_path / "run"), "--set", "gamma=5"]
    assert main(argv) == 2
    assert "gamma must be in (0, 1], got 5" in capsys.readouterr().err


@pytest.mark.parametrize(("key", "value"), [("features_dim", 16), ("cnn_channels", [4])])
def test_a_resume_refuses_another_network_size(
    key: str, value: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``features_dim`` and ``cnn_channels`` shape the saved network as ``net_arch`` does: a
    resume cannot change them (the model would load with its own, and config.yaml would say
    otherwise)."""
    out = tmp_path / "run"
    _fake_run(out)
    saved = (out / "config.yaml").read_text()
    argv = [
        "train",
        *OAO,
        "--out",
        str(out),
        "--resume",
        "--timesteps",
        "999",
        "--set",
        f"{key}={json.dumps(value)}",
    ]
    assert main(argv) == 2
    assert f"{key} cannot change" in capsys.readouterr().err
    assert (out / "config.yaml").read_text() == saved


def test_a_resume_without_a_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run directory with its config.yaml but no model (a run stopped before its first
    checkpoint) cannot be resumed: the command says so instead of training a new model and
    calling it a resume."""
    out = tmp_path / "run"
    _fake_run(out)
    (out / "model.zip").unlink()
    assert main(["train", *OAO, "--out", str(out), "--resume", "--timesteps", "999"]) == 2
    assert f"--resume: no model in {str(out)!r} to continue" in capsys.readouterr().err
    assert not (out / "monitor").exists()


def test_a_resume_below_the_steps_done_names_the_runs_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--timesteps`` at or below the steps already trained is refused with the run's own step
    count (the number the user must go beyond), not the total they asked for."""
    out = tmp_path / "run"
    _fake_run(out, steps=640)
    assert main(["train", *OAO, "--out", str(out), "--resume", "--timesteps", "100"]) == 2
    assert (
        "the run is at 640 steps already (model.zip); give --timesteps above that" in capsys.readouterr().err
    )


def test_a_resume_reads_the_steps_of_model_zip_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resumed part killed after it saved ``model.zip`` (128 steps) but before it rewrote
    ``train_summary.json`` (still the first part's 64) leaves the two apart: the next resume
    takes the steps from the model file, so it refuses ``--timesteps 128`` (the older summary
    let it through to train nothing) and sets aside none of the model's own history."""
    import training.train as tt
    from training.train import furthest_model

    out, no_checkpoints = tmp_path / "run", ("--set", "checkpoint_every=100000")
    assert _train(out, 64, *no_checkpoints) == 0

    def killed(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tt, "write_summary", killed)
    assert _train(out, 128, "--resume", *no_checkpoints) == 130
    monkeypatch.undo()
    assert _summary(out)["timesteps"] == 64
    assert furthest_model(out) == (out / "model.zip", 128)
    capsys.readouterr()
    assert _train(out, 128, "--resume", *no_checkpoints) == 2
    assert "the run is at 128 steps already (model.zip)" in capsys.readouterr().err
    assert not (out / "lost").exists()


def test_a_model_zip_of_unknown_steps_wins_over_checkpoints(tmp_path: Path) -> None:
    """A ``model.zip`` that does not say its steps (no ``num_timesteps``) is the run's furthest
    model: a checkpoint goes before it only when there is no model.zip (it was saved at the
    end of the run, after every checkpoint)."""
    from training.train import furthest_model, latest_model_steps

    _model_file(tmp_path / "model.zip")
    _model_file(tmp_path / "checkpoints" / "model_512_steps.zip")
    assert furthest_model(tmp_path) == (tmp_path / "model.zip", None)
    assert latest_model_steps(tmp_path) == (tmp_path / "model.zip", 0)


# ------------------------------------------------------------------ envs
def test_the_learners_env_takes_the_configs_seat_shaping_and_partner() -> None:
    """``seat``, ``shaping`` (with ``gamma``) and a bot ``partner`` of the config reach the
    single-agent env the learner plays."""
    from training.train import build_single_env

    cfg = {"env": "over_and_out", "params": {"num_players": 3}, "opponents": {"random": 1.0}, "seat": 2,
           "shaping": 0.5, "gamma": 0.9}  # fmt: skip
    env, game, _bots = build_single_env(cfg)
    assert (env.fixed_seat, env.shaping, env.gamma, game.num_players) == (2, 0.5, 0.9, 3)
    env.reset(seed=3)
    assert env.seat == 2
    partnered = {"env": "otto_game_over", "params": {"num_players": 4, "teams": True}, "partner": "random",
                 "opponents": {"random": 1.0}}  # fmt: skip
    env, _game, _bots = build_single_env(partnered)
    assert env.partner is not None


def test_each_env_and_each_resume_logs_to_its_own_monitor_file(tmp_path: Path) -> None:
    """Env copy i logs to ``monitor/<i>.monitor.csv``; the k-th resume to
    ``resume<k>-<i>.monitor.csv``, so no part of a run writes over another's episodes."""
    from training.train import build_vec_env

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, n_envs=2, out=str(tmp_path))
    build_vec_env(cfg, tmp_path).close()
    build_vec_env(cfg, tmp_path, resume=True).close()
    build_vec_env(cfg, tmp_path, resume=True).close()
    assert sorted(p.name for p in (tmp_path / "monitor").iterdir()) == [
        "0.monitor.csv", "1.monitor.csv", "resume1-0.monitor.csv", "resume1-1.monitor.csv",
        "resume2-0.monitor.csv", "resume2-1.monitor.csv",
    ]  # fmt: skip


def test_subproc_envs_run_in_worker_processes(tmp_path: Path) -> None:
    """``vec_env: subproc`` builds a ``SubprocVecEnv``: envs built in the learner's process
    instead would leave a run on many cores stepping them on one."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from training.train import build_vec_env

    cfg = TrainConfig(
        env="over_and_out", params={"num_players": 2}, n_envs=1, vec_env="subproc", out=str(tmp_path)
    )
    vec = build_vec_env(cfg, tmp_path)
    try:
        assert isinstance(vec, SubprocVecEnv)
    finally:
        vec.close()


# ------------------------------------------------------------------ a resume's rollback
def test_the_rollback_sets_aside_only_what_came_after_the_model(tmp_path: Path) -> None:
    """A resume from the checkpoint at 512 steps sets aside the evaluation, snapshot, checkpoint
    and episodes of later steps and keeps those of step 512 itself: the best model of the
    evaluation at 512 is the resumed run's own (setting it aside lost the run's best model), a
    cut-short log line stays where it was, and episode ends are the monitor's ``t_start`` plus
    their ``t``."""
    import os

    from training.train import rollback_run

    out = tmp_path
    model = out / "checkpoints" / "model_512_steps.zip"
    for path in (model, out / "checkpoints" / "model_640_steps.zip", out / "pool" / "snap_000000512.zip",
                 out / "pool" / "snap_000000640.zip", out / "best_model.zip"):  # fmt: skip
        _model_file(path)
    rows = [json.dumps({"timesteps": s, "random": {"score": 0.5}}) for s in (256, 512, 640)]
    (out / "eval.jsonl").write_text("\n".join([*rows, '{"timesteps": 7']) + "\n")
    (out / "best_model.json").write_text(json.dumps({"timesteps": 512, "score": 0.5}))
    t_start = 1_700_000_000.0
    os.utime(model, (t_start + 100, t_start + 100))
    (out / "monitor").mkdir()
    header = ["#" + json.dumps({"t_start": t_start, "env_id": None}), "r,l,t,outcome,placement,return"]
    (out / "monitor" / "0.monitor.csv").write_text(
        "\n".join([*header, "1,10,50.0,win,1,1", "-1,12,150.0,loss,2,-1"])
    )
    moved = rollback_run(out, 512, model)
    assert moved == {"evaluations": 1, "snapshots": 1, "best model": 0, "checkpoints": 1, "episodes": 1}
    assert (out / "eval.jsonl").read_text().splitlines() == [rows[0], rows[1], '{"timesteps": 7']
    lost = out / "lost" / "after_512_steps"
    assert (lost / "eval.jsonl").read_text().splitlines() == [rows[2]]
    assert (out / "best_model.zip").is_file() and (out / "best_model.json").is_file()
    assert sorted(p.name for p in (out / "pool").iterdir()) == ["snap_000000512.zip"]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["model_512_steps.zip"]
    assert (out / "monitor" / "0.monitor.csv").read_text().splitlines()[2:] == ["1,10,50.0,win,1,1"]
    assert (lost / "monitor" / "0.monitor.csv").read_text().splitlines()[2:] == ["-1,12,150.0,loss,2,-1"]
