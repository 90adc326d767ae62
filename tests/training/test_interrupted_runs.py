"""A run interrupted between checkpoints and resumed: Ctrl-C stops at the next step and saves
a checkpoint; model files are written in one step; a resume from an earlier model sets aside
what the run logged after it (evaluations, self-play snapshots, a later best model, episodes),
so logs, the learning curve and the opponent pool hold only the run that goes on."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from training.cli import main

TINY = [
    "--n-envs", "2", "--opponents", "random,self", "--no-progress", "--eval-every", "128",
    "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=1",
    "--set", "snapshot_every=128", "--set", "eval_games=2", "--set", 'eval_opponents=["random"]',
    "--set", "checkpoint_every=256", "--set", "net_arch=[16]", "--set", "eval_workers=1",
    "--set", "pretrain_samples=0",
]  # fmt: skip


def _train(out: Path, timesteps: int, *extra: str) -> int:
    return main(["train", "over_and_out", "--param", "num_players=2", "--out", str(out), "--timesteps",
                 str(timesteps), *TINY, *extra])  # fmt: skip


def test_a_resume_from_an_earlier_checkpoint_sets_aside_what_came_after(tmp_path: Path) -> None:
    from training.plots import read_monitor

    out = tmp_path / "run"
    assert _train(out, 1024) == 0
    # an interruption at about 700 steps: the furthest whole model is the 512-step checkpoint
    for name in (
        "model.zip",
        "train_summary.json",
        "checkpoints/model_768_steps.zip",
        "checkpoints/model_1024_steps.zip",
    ):
        (out / name).unlink()
    (out / "best_model.json").write_text(
        json.dumps({"timesteps": 640, "score": 0.9})
    )  # from the lost stretch
    lost_snaps = sorted(p.name for p in (out / "pool").glob("snap_*.zip") if int(p.stem.split("_")[1]) > 512)
    assert lost_snaps
    assert _train(out, 1024, "--resume") == 0
    steps = [json.loads(line)["timesteps"] for line in (out / "eval.jsonl").read_text().splitlines()]
    assert steps == sorted(set(steps)), f"each step evaluated once, in order: {steps}"
    lost = out / "lost" / "after_512_steps"
    assert [json.loads(x)["timesteps"] for x in (lost / "eval.jsonl").read_text().splitlines()] == [
        640,
        768,
        896,
        1024,
    ]
    assert sorted(p.name for p in (lost / "pool").iterdir()) == lost_snaps
    assert (lost / "best_model.zip").is_file() and (lost / "best_model.json").is_file()
    # the learning curve counts each env step once: kept episodes ended by step 512, then 512 more
    assert read_monitor(out)["steps"][-1] <= 1024
    assert list((lost / "monitor").glob("*.monitor.csv")), "episodes ended after the checkpoint"
    # TensorBoard is not rolled back: the resumed part is a run of its own beside the first
    assert sorted(p.name for p in (out / "tb").iterdir()) == ["ppo_1", "ppo_resumed_at_512_0"]


class _SigintAt:
    """A callback that sends this process ``times`` SIGINTs at learner step ``at``."""

    def __new__(cls, at: int, times: int) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        class Sigint(BaseCallback):
            def _on_step(self) -> bool:
                if self.num_timesteps == at:
                    for _ in range(times):
                        os.kill(os.getpid(), signal.SIGINT)
                return True

        return Sigint()


def _with_sigint(monkeypatch: pytest.MonkeyPatch, at: int, times: int) -> None:
    import training.train as tt

    real = tt.build_callbacks

    def callbacks(*args: Any, **kwargs: Any) -> list[Any]:
        return [*real(*args, **kwargs), _SigintAt(at, times)]

    monkeypatch.setattr(tt, "build_callbacks", callbacks)


def test_ctrl_c_stops_at_the_next_step_with_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first Ctrl-C ends ``learn()`` at the next step; the run saves a checkpoint there (not
    model.zip: it is unfinished) and says how to go on, and the command ends as interrupted."""
    out = tmp_path / "run"
    _with_sigint(monkeypatch, 384, 1)
    assert _train(out, 100_000) == 130
    err = capsys.readouterr().err
    assert "interrupted at 384 steps" in err and "--resume --timesteps 100000" in err
    assert (out / "checkpoints" / "model_384_steps.zip").is_file() and not (out / "model.zip").exists()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    monkeypatch.undo()
    assert _train(out, 512, "--resume") == 0
    assert json.loads((out / "train_summary.json").read_text())["timesteps"] >= 512


def test_a_second_ctrl_c_stops_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    _with_sigint(monkeypatch, 384, 2)
    assert _train(out, 100_000) == 130
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["model_256_steps.zip"]


def test_model_files_are_written_in_one_step(tmp_path: Path) -> None:
    """A save cut short (a kill, a Ctrl-C inside sb3's writer) leaves the earlier file whole and
    no partial one; the pool passes over a cut-short snapshot of an older run with a note."""
    from training.callbacks import load_pool, save_model

    class Breaks:
        def save(self, path: Path) -> None:
            Path(path).write_bytes(b"PK\x03\x04 half a zip")
            raise KeyboardInterrupt

    target = tmp_path / "model.zip"
    target.write_bytes(b"the earlier model")
    with pytest.raises(KeyboardInterrupt):
        save_model(Breaks(), target)
    assert target.read_bytes() == b"the earlier model" and list(tmp_path.iterdir()) == [target]

    import zipfile

    pool = tmp_path / "pool"
    pool.mkdir()
    with zipfile.ZipFile(pool / "snap_000000000.zip", "w") as z:
        z.writestr("data", "{}")
    (pool / "snap_000000128.zip").write_bytes(b"PK\x03\x04 cut short")
    added: list[str] = []

    class Env:
        def env_method(self, name: str, path: str, group: str) -> None:
            added.append(Path(path).name)

    assert load_pool(Env(), pool, ["self"], 5) == 1 and added == ["snap_000000000.zip"]
    assert np.array_equal(np.array(added), np.array(["snap_000000000.zip"]))


def test_worker_processes_leave_ctrl_c_to_their_parent() -> None:
    """Ctrl-C at a terminal reaches every process of the group: eval's pool workers and the
    subprocess envs ignore it (each printed a traceback, or died under the learner), and the
    parent ends them."""
    import subprocess
    import sys

    code = (
        "import os, signal; from training.interrupt import ignore_sigint; ignore_sigint(); "
        "os.kill(os.getpid(), signal.SIGINT); print('still here')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "still here", proc.stderr
    # a tournament in a pool of 2, interrupted from the terminal: one line, no worker tracebacks
    import time

    cmd = [sys.executable, "-m", "training.cli", "eval", "over_and_out", "--param", "num_players=2",
           "--players", "heuristic", "mcts:sims=50", "--games", "2000", "--workers", "2"]  # fmt: skip
    run = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    time.sleep(8)  # the pool is playing (the whole tournament takes minutes)
    os.killpg(run.pid, signal.SIGINT)
    _out, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Traceback" not in err and "PoolWorker" not in err, err[-2000:]
