"""Smoke tests of ``eightfold train`` / ``eval`` / ``play`` as subprocesses (seconds each),
and the reproducibility of a training run."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.training.conftest import first_two_player_game

GAME = first_two_player_game()
pytestmark = pytest.mark.skipif(GAME is None, reason="no game installed yet")


def eightfold(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "training.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def env_args() -> list[str]:
    assert GAME is not None
    name, params = GAME
    return [name, *(a for k, v in params.items() for a in ("--param", f"{k}={json.dumps(v)}"))]


def tiny_train_args(out: Path, timesteps: int) -> list[str]:
    return [
        "train", *env_args(), "--out", str(out), "--timesteps", str(timesteps), "--n-envs", "2",
        "--opponents", "random,self", "--no-progress", "--eval-every", "128",
        "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=1",
        "--set", "snapshot_every=128", "--set", "eval_games=2", "--set", "eval_opponents=[\"random\"]",
        "--set", "checkpoint_every=128", "--set", "net_arch=[32]", "--set", "cnn_channels=[8]",
        "--set", "features_dim=32", "--set", "eval_workers=1",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    proc = eightfold(*tiny_train_args(out, 256), "--eval-games", "4")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_train_writes_a_complete_run(run_dir: Path) -> None:
    for name in ("config.yaml", "model.zip", "best_model.zip", "eval.jsonl", "train_summary.json",
                 "learning_curve.png", "final_eval.json", "final_eval.png"):  # fmt: skip
        assert (run_dir / name).exists(), name
    assert list((run_dir / "pool").glob("snap_*.zip")), "self-play snapshots"
    assert list((run_dir / "checkpoints").glob("model_*_steps.zip"))
    assert list((run_dir / "tb").iterdir()), "TensorBoard logs"
    assert list((run_dir / "monitor").glob("*.monitor.csv"))
    summary = json.loads((run_dir / "train_summary.json").read_text())
    assert summary["timesteps"] >= 256
    final = json.loads((run_dir / "final_eval.json").read_text())
    assert final["pairs"][0]["games"] == 4


def test_train_resume_continues_to_the_new_total(run_dir: Path) -> None:
    """... and keeps the episodes logged before it (a resume once truncated the monitor files,
    so the learning curve lost them and restarted at step 0)."""
    from training.plots import read_monitor

    before = read_monitor(run_dir)
    proc = eightfold(*tiny_train_args(run_dir, 384), "--resume")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "resuming from" in proc.stdout
    assert json.loads((run_dir / "train_summary.json").read_text())["timesteps"] >= 384
    after = read_monitor(run_dir)
    assert list((run_dir / "monitor").glob("resume*-0.monitor.csv"))
    assert after["r"].size > before["r"].size > 0
    assert np.array_equal(after["steps"][: before["steps"].size], before["steps"]), "old episodes first"

    def first_episodes(path: Path) -> list[list[str]]:
        rows = path.read_text().splitlines()[2:8]  # a JSON line, a header, then one row an episode
        return [row.split(",")[:2] for row in rows]  # return and length (not the wall time)

    monitors = run_dir / "monitor"
    assert first_episodes(monitors / "resume1-0.monitor.csv") != first_episodes(monitors / "0.monitor.csv"), (
        "a resume deals new games (it replayed the run's first ones, seeded as they were)"
    )


def test_resume_refuses_another_game_or_config_and_writes_nothing(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--param/--variant that change the run's game, or a --config (not read on a resume), are
    usage errors; they once overwrote config.yaml with the new game and broke the run."""
    from training.cli import main

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    saved = (run / "config.yaml").read_text()
    name, params = GAME  # type: ignore[misc]
    other = "--variant=x_fast" if name == "octi" else "--param=num_players=3"
    other_set = {"variant": "x_fast"} if name == "octi" else {"num_players": 3}
    other_game = "over_and_out" if name == "octi" else "octi"
    monitors = sorted((run / "monitor").iterdir())
    for extra, message in (
        ([other], "--resume continues the run's game"),
        (["--config", str(run / "config.yaml")], "--config is not read with --resume"),
        # --set params=... changed the game too (sb3 then failed on the spaces, after
        # config.yaml had been rewritten and new monitor files made); beside --param it is
        # refused first as a second way of giving the game's parameters
        (
            ["--set", f"params={json.dumps(other_set)}"],
            "both set params; give it once" if params else "--resume continues the run's game",
        ),
    ):
        assert main(["train", *env_args(), "--out", str(run), "--resume", "--timesteps", "999", *extra]) == 2
        assert message in capsys.readouterr().err
        assert (run / "config.yaml").read_text() == saved
    # another game named on the command line: refused by name, nothing written
    assert main(["train", other_game, "--out", str(run), "--resume", "--timesteps", "999"]) == 2
    assert f"a run of {name}, not {other_game}" in capsys.readouterr().err
    assert (run / "config.yaml").read_text() == saved
    assert sorted((run / "monitor").iterdir()) == monitors
    # the same values as the run's are no change
    same = [a for k, v in params.items() for a in ("--param", f"{k}={json.dumps(v)}")]
    args = ["train", name, *same, "--out", str(run), "--resume", "--timesteps", "1"]
    assert main([*args, "--no-progress"]) == 2
    assert "steps already" in capsys.readouterr().err  # past the game check, which passed


def test_a_new_run_in_a_run_directory_starts_clean(tmp_path: Path) -> None:
    """Without --resume, the earlier run's logs go (its eval.jsonl once got the new run's lines
    appended, and the learning curve zig-zagged through both); TensorBoard's tb/ stays."""
    from training.train import clear_run

    for name in ("config.yaml", "model.zip", "eval.jsonl", "monitor/0.monitor.csv", "pool/snap_000000001.zip",
                 "checkpoints/model_128_steps.zip", "tb/ppo_1/events", "notes.txt"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    clear_run(tmp_path)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["notes.txt", "tb/ppo_1/events"]


def test_options_of_the_other_backend_and_bad_paths_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Flags that would be ignored are refused; so is a minibatch larger than the rollout, and a
    path that cannot be written is refused before any work (a tournament's results were lost)."""
    from training.cli import main

    (tmp_path / "afile").write_text("")
    other_game = "octi" if GAME[0] != "octi" else "over_and_out"  # type: ignore[index]
    (tmp_path / "other.yaml").write_text(f"env: {other_game}\n")
    cases = [
        (["train", *env_args(), "--num-env-runners", "3"], "--num-env-runners: for --backend rllib only"),
        (["train", *env_args(), "--iterations", "1", "--self-play", "frozen"], "--self-play, --iterations"),
        (["train", *env_args(), "--backend", "rllib", "--eval-games", "2"], "--eval-games: for --backend sb3"),
        (["train", *env_args(), "--set", "batch_size=100000"], "batch_size must be <= n_steps x n_envs"),
        (["train", *env_args(), "--out", str(tmp_path / "afile")], "is a file"),
        (["train", *env_args(), "--set", "env=octi"], "--set env: not a setting of --set (the game is the command's"),
        (["train", *env_args(), "--set", "out=runs/x"], "--set out: not a setting of --set (give --out DIR)"),
        (["train", *env_args(), "--set", 'rllib={"lambda_": 0.5}'], "settings of --backend rllib only"),
        (["train", *env_args(), "--config", str(tmp_path / "other.yaml")], "is not the game this command trains"),
        (["eval", *env_args(), "--players", "random", "greedy", "--json", str(tmp_path)], "is a directory"),
        (["eval", *env_args(), "--players", "random", "greedy", "--json", f"{tmp_path / 'afile'}/r.json"],
         "cannot create its folder"),
        (["bench", "--learner", GAME[0], "--seed", "3"], "--seed has no effect with --learner"),  # type: ignore[index]
        (["render", GAME[0], "--out", str(tmp_path)], "is a directory"),  # type: ignore[index]
    ]  # fmt: skip
    for args, message in cases:
        assert main(args) == 2, args
        assert message in capsys.readouterr().err, args
    out = tmp_path / "new" / "deeper" / "r.json"
    assert (
        main(["eval", *env_args(), "--players", "random", "greedy", "--games", "2", "--json", str(out)]) == 0
    )
    assert json.loads(out.read_text())["games_per_pairing"] == 2


def test_a_model_of_another_game_is_refused_before_the_run(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.cli import main

    other = "otto_octopus" if GAME[0] != "otto_octopus" else "octi"  # type: ignore[index]
    out = tmp_path / "run"
    args = ["train", other, "--opponents", f"random,{run_dir / 'model.zip'}", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    trained = GAME[0]  # type: ignore[index]
    assert f"opponents: {run_dir / 'model.zip'} was trained on {trained}, not {other}" in err
    assert not out.exists(), "no half-made run"


def test_train_with_a_behaviour_cloning_warm_start(tmp_path: Path) -> None:
    """``pretrain_samples``: demonstrations are fitted before PPO, the cloned policy is evaluated
    at step 0 (so ``best_model.zip`` may be it) and the time is in the summary; a resumed run
    does not clone again."""
    args = [*tiny_train_args(tmp_path, 128), "--set", "pretrain_samples=64", "--set", "pretrain_epochs=1",
            "--set", "pretrain_workers=1", "--set", "pretrain_teacher=random"]  # fmt: skip
    proc = eightfold(*args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pretraining done" in proc.stdout
    record = json.loads((tmp_path / "pretrain.json").read_text())
    assert record["samples"] >= 64 and record["teacher"] == "random"
    assert len(record["rounds"]) == 1 and len(record["rounds"][0]["epochs"]) == 1
    evals = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert evals[0]["timesteps"] == 0 and len(evals) >= 2
    summary = json.loads((tmp_path / "train_summary.json").read_text())
    assert summary["pretrain_s"] >= 0 and summary["total_wall_s"] >= summary["wall_s"]
    proc = eightfold(*tiny_train_args(tmp_path, 256), "--resume")
    assert proc.returncode == 0 and "pretraining" not in proc.stdout, proc.stderr[-3000:]


def test_train_rejects_a_bad_option(tmp_path: Path) -> None:
    proc = eightfold("train", *env_args(), "--out", str(tmp_path), "--set", "no_such_option=1")
    assert proc.returncode == 2 and "no_such_option" in proc.stderr


def test_eval_model_against_a_bot(run_dir: Path, tmp_path: Path) -> None:
    out_json, out_png, records = tmp_path / "e.json", tmp_path / "e.png", tmp_path / "games.jsonl"
    proc = eightfold(
        "eval", "--players", str(run_dir / "model.zip"), "random", "--games", "6", "--workers", "2",
        "--json", str(out_json), "--plot", str(out_png), "--records", str(records),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "win rate" in proc.stdout and "Elo" in proc.stdout
    res = json.loads(out_json.read_text())
    pair = res["pairs"][0]
    assert pair["games"] == 6 and pair["wins"] + pair["draws"] + pair["losses"] == 6
    assert out_png.stat().st_size > 1000
    # the model's games are kept and replay, with the model named in its seats
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(lines) == 6 and all(str(run_dir / "model.zip") in rec["seats"] for rec in lines)
    assert [rec["result"] for rec in lines].count("win") == pair["wins"]
    proc = eightfold("replay", str(records), "6")
    assert proc.returncode == 0 and "game over after" in proc.stdout, proc.stderr[-3000:]


def test_eval_bots_all_pairs() -> None:
    proc = eightfold("eval", *env_args(), "--players", "random", "mcts:sims=2", "--games", "4",
                     "--mode", "all", "--workers", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "mcts:sims=2" in proc.stdout


def test_eval_curve(run_dir: Path, tmp_path: Path) -> None:
    proc = eightfold("eval", "--curve", str(run_dir), "--plot", str(tmp_path / "c.png"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_play_scripted_against_a_bot() -> None:
    script = "help\nthis is not a move\nmoves\n1\n1\nquit\n"
    proc = eightfold("play", *env_args(), "--vs", "random", "--seat", "1", stdin=script)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "legal moves" in out and "not a legal move" in out and "commands:" in out
    assert "game abandoned (quit)" in out or "game over" in out


def test_play_to_the_end_against_a_model(run_dir: Path) -> None:
    proc = eightfold("play", *env_args(), "--vs", str(run_dir / "model.zip"), stdin="1\n" * 2000)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "game over" in proc.stdout


def test_watch_a_model_against_a_bot_to_the_end(run_dir: Path) -> None:
    model = str(run_dir / "model.zip")
    proc = eightfold("play", *env_args(), "--watch", model, "heuristic")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"player_0 ({model}): " in proc.stdout and "player_1 (heuristic): " in proc.stdout
    assert "game over after" in proc.stdout and proc.stdout.splitlines()[-1].startswith("moves so far (")


def test_play_rejects_a_bad_seat() -> None:
    proc = eightfold("play", *env_args(), "--vs", "random", "--seat", "9", stdin="quit\n")
    assert proc.returncode == 2 and "--seat" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("eval", "--players", "random", "greedy", "--games", "0"),
            "argument --games: must be from 1 to 1,000,000,000, got 0",
        ),
        (("eval", "--players", "random", "greedy", "--workers", "0"), "argument --workers: must be >= 1"),
        (("bench", "--seconds", "0"), "argument --seconds: must be a number > 0"),
        (("bench", "--seconds", "abc"), "argument --seconds: expected a number > 0, got 'abc'"),
        (("bench", "--learner", "octi", "--timesteps", "0"), "argument --timesteps: must be >= 1"),
        (("play", "--random", "--max-steps", "-3"), "argument --max-steps: must be >= 0, got -3"),
        (("play", "--random", "--delay", "-1"), "argument --delay: must be a number >= 0"),
        (("render", "--steps", "-1", "--out", "x.png"), "argument --steps: must be >= 0"),
        (("train", "--seed", "-1"), "argument --seed: must be >= 0, got -1"),
        (("train", "--set", "seed=-1"), "seed must be in [0, 2**32 - 1], got -1"),
        (("train", "--n-envs", "0"), "argument --n-envs: must be >= 1, got 0"),
        (("eval", "--players", "random", "greedy", "--seed", "-1"), "argument --seed: must be >= 0, got -1"),
        (("render", "--seed", "-1", "--out", "x.png"), "argument --seed: must be >= 0, got -1"),
        (("play", "--random", "--vs", "random"), "choose one of --random"),
        (("play", "--random", "--seat", "1"), "--seat is your seat with --vs"),
        (("play", "--seat", "2"), "a game without --vs has no human seat"),  # it blamed --random
        (
            ("bench", "--learner", "octi", "--set", "net_arch"),
            "malformed --set 'net_arch'; expected key=value",
        ),
        (
            ("bench", "--learner", "octi", "--set", "opponents=heuristic"),
            "--set opponents: not used by the learner",
        ),
        (("bench", "--param", "num_players=2"), "--param has no effect with random play"),
        (("bench", "--learner", "octi", "--mcts"), "--mcts has no effect with --learner"),
        (("bench", "--learner", "octi", "--memory"), "--memory has no effect with --learner"),
        (("bench", "--learner", "octi", "--openspiel"), "--openspiel has no effect with --learner"),
        (("bench", "--set", "net_arch=[8]"), "--set has no effect with random play"),
        (
            ("eval", "--players", "mcts:foo=1", "random"),
            "unknown parameter(s) ['foo'] for bot 'mcts'; allowed: ['sims',",
        ),
        (
            ("eval", "--players", "heuristic:x=1", "random"),
            "unknown parameter(s) ['x'] for bot 'heuristic'; it takes none",
        ),
    ],
)
def test_a_bad_number_or_bot_parameter_is_named(args: tuple[str, ...], message: str) -> None:
    """Nothing is silently clamped: each bad value is a usage error naming the option."""
    assert GAME is not None
    command, *rest = args
    where = [] if command == "bench" else env_args()
    proc = eightfold(command, *where, *rest, stdin="quit\n")
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr[-2000:]


def test_missing_runs_and_models_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path that names nothing is a usage error (exit 2) saying so: ``--resume`` with no run
    in ``--out`` (it used to start a new run silently), ``--curve`` on a folder that holds no
    run (it used to draw an empty plot), and a missing model when the env is inferred from it.
    In-process: the same ``main`` the console script runs, without a subprocess each."""
    from training.cli import main

    cases = [
        (["train", *env_args(), "--out", str(tmp_path / "none"), "--resume"], "--resume: no run to continue"),
        (
            ["train", *env_args(), "--out", str(tmp_path / "rl"), "--resume", "--backend", "rllib"],
            "--resume --backend rllib: no RLlib run to continue",
        ),
        (["eval", "--curve", str(tmp_path / "none")], "is not a training run"),
        (["eval", "--players", str(tmp_path / "none.zip"), "random"], "no model at"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        assert message in capsys.readouterr().err, args
    assert not (tmp_path / "none").exists() and not (tmp_path / "rl").exists()


def test_solo_training_with_the_configs_opponents(tmp_path: Path) -> None:
    """``configs/otto_octopus.yaml`` names ``self`` among the opponents; a solo game has none,
    so no snapshot is taken for an opponent pool (it used to fail: "this env has no opponent
    pool"), and the run trains and resumes."""
    from training.cli import main

    args = ["train", "otto_octopus", "--param", "num_players=1", "--out", str(tmp_path), "--no-progress",
            "--set", "n_steps=64", "--set", "batch_size=64", "--set", "n_epochs=1", "--set", "pretrain_samples=0",
            "--set", "snapshot_every=128", "--set", "eval_every=0", "--set", "n_envs=2"]  # fmt: skip
    assert main([*args, "--timesteps", "256"]) == 0
    assert not list((tmp_path / "pool").glob("snap_*.zip"))
    assert main([*args, "--timesteps", "512", "--resume"]) == 0


def test_render_creates_the_output_folder(tmp_path: Path) -> None:
    from training.cli import main

    out = tmp_path / "a" / "b" / "pos.png"
    assert main(["render", *env_args(), "--steps", "3", "--out", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_render_plays_on_past_a_knock_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OAO-41: a seat knocked out takes PettingZoo's dead step and the game goes on; ``render``
    must not stop there and call it the end (it did after two moves of this game)."""
    from training.cli import main

    params = ["over_and_out", "--param", "num_players=8", "--param", "starting_chips=1"]
    out = tmp_path / "r.png"
    assert main(["render", *params, "--steps", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "after 10 random steps, seed 0" in printed and "ended" not in printed
    assert main(["render", *params, "--steps", "100000", "--out", str(out)]) == 0
    assert "(the game ended there)" in capsys.readouterr().out
    # the example script plays past knock-outs too, to the end of the game
    run = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parents[2] / "examples" / "render_png.py"),
         "over_and_out", "100000", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout


def test_same_seed_same_run(tmp_path: Path) -> None:
    """Runs with one seed give identical weights (self-play and evaluation included), with the
    envs in this process or in subprocesses: a self-play snapshot loaded in the learner's own
    process (``dummy``) must not re-seed its generators (sb3's ``load`` does)."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.cli import build_parser
    from training.train import resolve_config, train

    params: list[Any] = []
    for k, vec_env in enumerate(("dummy", "dummy", "subproc")):
        args = build_parser().parse_args(
            [*tiny_train_args(tmp_path / f"r{k}", 320), "--set", f"vec_env={vec_env}"]
        )
        train(resolve_config(args))
        model = MaskablePPO.load(tmp_path / f"r{k}" / "model.zip", device="cpu")
        params.append([p.detach().clone() for p in model.policy.parameters()])
    for other in params[1:]:
        assert all(torch.equal(a, b) for a, b in zip(params[0], other, strict=True))


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_eval_in_worker_processes(run_dir: Path) -> None:
    """40+ games go to the process pool; the counts add up across the chunks."""
    from training.evaluate import run_tournament

    assert GAME is not None
    res = run_tournament(GAME[0], GAME[1], [str(run_dir / "model.zip"), "random"], games=40, workers=2)
    pair = res["pairs"][0]
    assert pair["games"] == 40 and pair["wins"] + pair["draws"] + pair["losses"] == 40


def test_torch_threads_is_not_reset_by_in_process_envs(tmp_path: Path) -> None:
    """``torch_threads`` holds for the learner: building ``DummyVecEnv`` envs in this process
    leaves torch's thread count alone (only SubprocVecEnv workers drop to one thread)."""
    import torch

    from training.config import TrainConfig
    from training.train import build_vec_env

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, n_envs=2, out=str(tmp_path))
        build_vec_env(cfg, tmp_path).close()
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_play_takes_only_legal_moves_and_shows_your_cards() -> None:
    """OTTO Game Over's notation names every move, legal now or not: a well-formed illegal
    move typed at the prompt is refused (it used to reach the env and end the game with -1),
    a number off the list is named as such, and the human sees their own secret cards."""
    proc = eightfold("play", "otto_game_over", "--vs", "random", stdin="drawn a1 r0\n999\nquit\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "not legal now: 'drawn a1 r0'" in proc.stdout and "no move numbered 999" in proc.stdout
    assert "your cards: " in proc.stdout and "game abandoned (quit)" in proc.stdout
    assert "Illegal move" not in proc.stdout + proc.stderr


def test_play_rejects_watch_options_with_vs() -> None:
    proc = eightfold("play", *env_args(), "--vs", "random", "--max-steps", "3", stdin="quit\n")
    assert proc.returncode == 2 and "--max-steps and --delay are for --random" in proc.stderr


def test_play_notes_a_model_trained_with_other_parameters(tmp_path: Path) -> None:
    """Over and Out's spaces do not depend on the player count, so a 2-player model fits a
    4-player game: ``play`` says so instead of playing on silently."""
    from envs.over_and_out.game import OverAndOutGame
    from training.players import params_note

    (tmp_path / "config.yaml").write_text("env: over_and_out\nparams:\n  num_players: 2\n")
    note = params_note(str(tmp_path / "model.zip"), OverAndOutGame(num_players=4))
    assert "was trained with {'num_players': 2}; this game has {'num_players': 4}" in note
    assert params_note(str(tmp_path / "model.zip"), OverAndOutGame(num_players=2)) == ""
    # a partial deck_counts is completed by the game: the same parameters are no difference
    (tmp_path / "config.yaml").write_text(
        'env: over_and_out\nparams: {num_players: 2, deck_counts: {"0": 9}}\n'
    )
    assert params_note(str(tmp_path / "model.zip"), OverAndOutGame(num_players=2, deck_counts={"0": 9})) == ""


def test_train_notes_an_opponent_model_trained_with_other_parameters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval`` and ``play`` noted a model trained with other game parameters; ``train`` took
    it as an opponent silently (Over and Out's padded spaces fit any player count)."""
    from training.config import TrainConfig
    from training.train import note_opponent_params

    (tmp_path / "config.yaml").write_text("env: over_and_out\nparams:\n  num_players: 3\n")
    model = str(tmp_path / "model.zip")
    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, opponents={model: 1.0, "random": 1.0})
    note_opponent_params(cfg)
    assert f"note: {model} was trained with {{'num_players': 3}}" in capsys.readouterr().err
    cfg = TrainConfig(env="over_and_out", params={"num_players": 3}, opponents={model: 1.0})
    note_opponent_params(cfg)
    assert capsys.readouterr().err == ""


def test_a_model_of_another_game_is_refused_by_name(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model or an RLlib run trained on one game, named as a player of another, is a usage
    error that names both games (an RLlib run crashed with an AttributeError while its
    parameters were compared with the other game's config; a model.zip got a muddled note)."""
    from envs.core.registry import get_game
    from training.cli import main
    from training.config import read_yaml

    trained = str(read_yaml(run_dir / "config.yaml")["env"])
    other = next(n for n in ("octi", "over_and_out") if n != get_game(trained).name)
    rl = tmp_path / "rl"
    rl.mkdir()
    (rl / "eightfold_rllib.json").write_text(
        json.dumps({"format": 1, "game": trained, "params": read_yaml(run_dir / "config.yaml")["params"]})
    )
    for spec in (str(run_dir / "model.zip"), str(rl)):
        message = f"{spec} was trained on {get_game(trained).name}, not {other}: name {get_game(trained).name} as the env"
        assert main(["eval", other, "--players", spec, "random", "--games", "2"]) == 2
        assert message in capsys.readouterr().err
        proc = eightfold("play", other, "--vs", spec, stdin="quit\n")
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr[-2000:]


def test_rllib_backend_refuses_what_it_cannot_run_before_ray_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run_dir: Path
) -> None:
    """A saved model among the opponents (the RLlib env plays bots and 'self' only: it failed
    after Ray started), more EnvRunners than the local CPUs (Ray waited forever), an ``rllib``
    setting that is no mapping and a cluster address that reaches nothing are usage errors
    naming the option, and no run folder is made."""
    pytest.importorskip("ray")  # without it the first refusal is the missing extra's
    from training.cli import main

    base = ["train", *env_args(), "--backend", "rllib", "--out", str(tmp_path / "run")]
    cases = [
        (
            [*base, "--opponents", f"{run_dir / 'model.zip'},random"],
            "saved models as opponents need --backend sb3",
        ),
        ([*base, "--num-env-runners", "999"], "Ray would wait for CPUs forever"),
        ([*base, "--set", "rllib=5"], "rllib must be a mapping"),
    ]
    if importlib.util.find_spec("ray") is not None:  # without the rllib extra: the test below
        cases.append(([*base, "--address", "nonsense"], "--address 'nonsense': no Ray cluster reached"))
        # a well-formed address where nothing listens: ray.init waited for it forever
        cases.append(([*base, "--address", "127.0.0.1:1"], "--address '127.0.0.1:1': no Ray cluster reached"))
        # a key PPOConfig.training does not take: a TypeError traceback after Ray started
        cases.append(
            (
                [*base, "--set", 'rllib={"bogus_key": 1, "lr": 0.001}'],
                "rllib: unknown PPOConfig.training setting(s) ['bogus_key']",
            )
        )
    for args, message in cases:
        assert main(args) == 2, args
        assert message in capsys.readouterr().err, args
    assert not (tmp_path / "run").exists()


def test_without_yaml_bots_still_play_and_a_model_names_the_extra(
    run_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without pyyaml (a bare install), ``eval`` of bots was a ``ModuleNotFoundError``
    traceback: bots need no yaml and play; a model's run does, and the error names the extra."""
    from training.cli import main

    monkeypatch.setitem(sys.modules, "yaml", None)
    monkeypatch.delitem(sys.modules, "training.config", raising=False)  # as if never imported
    assert main(["eval", *env_args(), "--players", "heuristic", "random", "--games", "2"]) == 0
    capsys.readouterr()
    assert main(["eval", *env_args(), "--players", str(run_dir / "model.zip"), "random", "--games", "2"]) == 2
    assert "needs the 'yaml' package: pip install 'eightfold[train]'" in capsys.readouterr().err


def test_a_bare_install_plays_bot_tournaments_and_render_names_its_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without torch a tournament of bots plays (a worker's thread setting imported torch);
    without Pillow ``render`` is a usage error naming the extra, not a traceback."""
    from training.cli import main

    monkeypatch.setitem(sys.modules, "torch", None)
    args = ["eval", *env_args(), "--players", "heuristic", "random", "--games", "2", "--workers", "1"]
    assert main(args) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.delitem(sys.modules, "envs.core.draw", raising=False)  # as if never imported
    assert main(["render", *env_args(), "--out", str(tmp_path / "x.png")]) == 2
    assert "rgb_array rendering needs Pillow: pip install 'eightfold[render]'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_rllib_without_ray_is_a_usage_error_naming_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the ``rllib`` extra, ``--backend rllib`` and an RLlib run among the players were a
    ``ModuleNotFoundError`` traceback; they are usage errors that name what to install."""
    import training.rllib.common as common
    from training.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        common.importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] == "ray" else real(name, *a),
    )
    run = tmp_path / "rl"
    run.mkdir()
    (run / "eightfold_rllib.json").write_text(
        '{"format": 1, "game": "over_and_out", "params": {"num_players": 2}}'
    )
    for args in (
        ["train", "over_and_out", "--backend", "rllib", "--out", str(tmp_path / "run")],
        ["eval", "over_and_out", "--param", "num_players=2", "--players", str(run), "random", "--games", "2"],
    ):
        assert main(args) == 2, args
        assert (
            "needs Ray RLlib, which is not installed: pip install 'eightfold[rllib]'"
            in capsys.readouterr().err
        )
    assert not (tmp_path / "run").exists()


def test_eval_says_which_env_it_inferred_and_notes_other_params(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without an env name the game comes from the model's run; the table now says which, and
    a --param that differs from the model's training notes it (only a named env did)."""
    from training.cli import main

    name, params = GAME  # type: ignore[misc]
    assert main(["eval", "--players", str(run_dir / "model.zip"), "greedy", "--games", "2"]) == 0
    err = capsys.readouterr().err
    assert f"env eightfold/{name}-v0" in err and "from the players' training runs" in err
    if name == "over_and_out":
        args = [
            "eval",
            "--players",
            str(run_dir / "model.zip"),
            "greedy",
            "--games",
            "2",
            "--param",
            "num_players=3",
        ]
        assert main(args) == 0
        assert "trained with" in capsys.readouterr().err


def test_resume_applies_the_ppo_settings_and_keeps_the_network(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--set on a resume reached config.yaml but not the model (sb3's load kept the saved
    hyper-parameters and seed): now the PPO settings apply, the network options and a new seed
    are refused (the seed given again passes), and --timesteps must go beyond the steps already
    trained."""
    import yaml
    from sb3_contrib import MaskablePPO

    from training.cli import main
    from training.train import latest_model_steps

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    _path, steps = latest_model_steps(run)
    base = ["train", *env_args(), "--out", str(run), "--resume", "--no-progress"]
    for extra, message in (
        (["--timesteps", str(steps)], f"the run is at {steps:,} steps already"),
        (["--timesteps", str(steps + 64), "--set", "net_arch=[8]"], "net_arch cannot change"),
        (["--timesteps", str(steps + 64), "--set", "vf_arch=[8]"], "vf_arch cannot change"),
        (["--timesteps", str(steps + 64), "--set", "policy=sb3"], "policy cannot change"),
        # the warm start ran (or not) before the first PPO step: a resume cannot change it, and
        # config.yaml must not come to say it did
        (["--timesteps", str(steps + 64), "--set", "pretrain_samples=500"], "pretrain_samples cannot change"),
        (
            ["--timesteps", str(steps + 64), "--set", "pretrain_temperature=1"],
            "pretrain_temperature cannot change",
        ),
        (
            ["--timesteps", str(steps + 64), "--set", "pretrain_teacher=greedy"],
            "pretrain_teacher cannot change",
        ),
        # the run's first part and warm start used its seed: config.yaml must keep saying which
        (["--timesteps", str(steps + 64), "--set", "seed=99"], "seed cannot change"),
    ):
        before = (run / "config.yaml").read_text()
        assert main([*base, *extra]) == 2
        assert message in capsys.readouterr().err
        assert (run / "config.yaml").read_text() == before
    assert main([*base, "--timesteps", str(steps + 64), "--set", "net_arch"]) == 2
    assert "malformed --set 'net_arch'; expected key=value" in capsys.readouterr().err
    seed = yaml.safe_load((run / "config.yaml").read_text())["seed"]
    sets = ["learning_rate=0.05", "gamma=0.5", "ent_coef=0.3", "n_steps=32", "batch_size=32", f"seed={seed}"]
    args = [*base, "--timesteps", str(steps + 64), *(a for kv in sets for a in ("--set", kv))]
    assert main(args) == 0, capsys.readouterr().err
    model = MaskablePPO.load(run / "model.zip", device="cpu")
    assert (model.learning_rate, model.gamma, model.ent_coef, model.n_steps, model.batch_size, model.seed) == (
        0.05, 0.5, 0.3, 32, 32, seed,
    )  # fmt: skip


def test_resume_may_change_the_opponents(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The opponents are no part of the network or the warm start: a resume may replace them
    (PPO from a run's clone against another mix, as docs/results/HISTORY.md does), and
    config.yaml and the training header say which ones the resumed run played."""
    import yaml

    from training.cli import main
    from training.train import latest_model_steps

    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    _path, steps = latest_model_steps(run)
    assert yaml.safe_load((run / "config.yaml").read_text())["opponents"] == {"random": 1.0, "self": 1.0}
    args = ["train", *env_args(), "--out", str(run), "--resume", "--no-progress"]
    code = main([*args, "--timesteps", str(steps + 64), "--opponents", "greedy"])
    assert code == 0, capsys.readouterr().err
    assert "envs vs {'greedy': 1.0}" in capsys.readouterr().out
    assert yaml.safe_load((run / "config.yaml").read_text())["opponents"] == {"greedy": 1.0}


def test_resume_starts_from_the_furthest_model(tmp_path: Path) -> None:
    """An interrupted resume leaves its progress in checkpoints only: the next resume starts
    from the newest of them, not from the older model.zip (whose steps it holds itself)."""
    import zipfile

    from training.train import latest_model_steps

    def model_file(path: Path, steps: int) -> None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data", json.dumps({"num_timesteps": steps}))

    (tmp_path / "checkpoints").mkdir()
    assert latest_model_steps(tmp_path) == (None, 0)
    model_file(tmp_path / "model.zip", 640)
    for steps in (512, 21632, 3072):
        model_file(tmp_path / "checkpoints" / f"model_{steps}_steps.zip", steps)
    assert latest_model_steps(tmp_path) == (tmp_path / "checkpoints" / "model_21632_steps.zip", 21632)
    # a checkpoint cut short by a kill while sb3 wrote it is passed over for the one before
    newest = tmp_path / "checkpoints" / "model_40000_steps.zip"
    model_file(newest, 40000)
    newest.write_bytes(newest.read_bytes()[:-30])
    assert latest_model_steps(tmp_path) == (tmp_path / "checkpoints" / "model_21632_steps.zip", 21632)
    model_file(tmp_path / "model.zip", 30000)
    assert latest_model_steps(tmp_path) == (tmp_path / "model.zip", 30000)


def test_output_piped_into_head_ends_quietly() -> None:
    """A reader that stops early (``eightfold list | head -1``) ends the command with status 0
    and no error (``BrokenPipeError`` is an ``OSError``, so it must be caught first)."""
    import os

    code = "import sys; from training.cli import main; sys.exit(main(sys.argv[1:]))"
    for command in (["list"], ["play", "octi", "--random"]):  # output within the pipe's buffer and beyond
        read, write = os.pipe()
        os.close(read)  # the reader is gone before the first line
        proc = subprocess.run(
            [sys.executable, "-c", code, *command], stdout=write, stderr=subprocess.PIPE, timeout=120
        )
        os.close(write)
        err = proc.stderr.decode()
        assert proc.returncode == 0 and "Broken pipe" not in err and "Traceback" not in err, err


def test_play_does_not_echo_a_huge_line_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line far longer than any move is refused with its length, not repeated in full; a line
    of 5,000 digits too (``int()`` refuses over 4,300 digits: it ended the game with a usage
    error, status 2, the moves so far unprinted)."""
    import io

    from training.cli import main

    for char, shown in (("x", "100,000"), ("1", "5,000")):
        length = int(shown.replace(",", ""))
        monkeypatch.setattr("sys.stdin", io.StringIO(char * length + "\nquit\n"))
        assert main(["play", "over_and_out", "--param", "num_players=2", "--vs", "random"]) == 0
        out = capsys.readouterr().out
        assert f"not a move: a line of {shown} characters" in out and char * 300 not in out
        assert "game abandoned (quit)" in out


def test_play_shows_only_the_humans_secrets(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``play`` prints the human's own cards (``private_text`` of the human's seat, never
    another's) and the others' moves through ``public_action_string`` for the human's eyes
    (Otto the Octopus's swapped and returned tiles stay hidden)."""
    import io

    from envs.otto_game_over.game import OttoGameOverGame
    from envs.otto_octopus.game import OttoOctopusGame
    from training.cli import main

    asked: list[tuple[str, int]] = []
    real_private, real_public = OttoGameOverGame.private_text, OttoOctopusGame.public_action_string

    def private(self: Any, state: Any, seat: int) -> str:
        asked.append(("private", seat))
        return real_private(self, state, seat)

    def public(self: Any, state: Any, action: int, viewer: int) -> str:
        asked.append(("public", viewer))
        return real_public(self, state, action, viewer)

    monkeypatch.setattr(OttoGameOverGame, "private_text", private)
    monkeypatch.setattr(OttoOctopusGame, "public_action_string", public)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "otto_game_over", "--vs", "random", "--seat", "1"]) == 0
    assert ("private", 1) in asked and all(seat == 1 for kind, seat in asked if kind == "private")
    asked.clear()
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 12 + "quit\n"))
    assert main(["play", "otto_octopus", "--vs", "random", "--seat", "0"]) == 0
    assert ("public", 0) in asked and all(seat == 0 for _kind, seat in asked)
    capsys.readouterr()


def test_starts_of_set_up_games_keep_their_own_deals() -> None:
    """A tournament game started from ``--options`` / ``--moves`` is dealt from its own seed:
    two games of one pairing start from different deals (a start that dealt from a fixed
    generator gave every game the same one)."""
    from envs.otto_octopus.game import OttoOctopusGame
    from training.tournament import deal_rng, game_seed, start_of

    game = OttoOctopusGame(num_players=2)
    starts = [start_of(game, deal_rng(game, game_seed(0, g)), ({}, ["pass"])) for g in range(2)]
    deals = [{k: v for k, v in s.to_dict().items() if k != "rng"} for s in starts]
    assert deals[0] != deals[1]


def test_param_words_and_opponent_lists_parse_as_documented() -> None:
    """``--param``'s Python spellings (True / False / None) are values, not strings, and an
    opponent list keeps a spec's own ``k=v`` items with it (the ``--help`` example)."""
    from training.config import parse_opponents
    from training.params import parse_value

    assert parse_value("False") is False and parse_value("True") is True and parse_value("None") is None
    assert parse_opponents("random,mcts:sims=50,c=0.5") == {"random": 1.0, "mcts:sims=50,c=0.5": 1.0}


def test_play_without_a_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli import main

    assert main(["play", "octi"]) == 2
    assert "--random" in capsys.readouterr().err
