"""Training-layer paths branch coverage showed no test reached (second round: pretrain,
throughput, tournament, bench, policies, memory, interrupt, train), each checked against the
documented contract: README "Command line" / "Use in research code" and the modules'
docstrings. Bounded and seeded; the slowest tests (a learner bench, a memory bench) take a few
seconds each."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


def _oao_cfg() -> dict[str, Any]:
    """A validated two-player Over and Out training config, as a dict."""
    from training.config import TrainConfig, merge

    cfg = merge(TrainConfig(), {"env": "over_and_out", "params": {"num_players": 2}}, "test")
    cfg.validate()
    return cfg.to_dict()


def _zip(path: Path) -> None:
    """A whole (readable) zip file at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as f:
        f.writestr("data", "{}")


# ----------------------------------------------------------------------------- policies
def test_support_categorical_is_the_dense_distribution_when_most_actions_are_legal() -> None:
    """``SupportCategorical`` docstring: "when the support holds more than half of the actions
    ... it is the dense :class:`MaskedCategorical`": no support is kept, and log-probabilities,
    set log-probabilities, entropy, mode and probabilities are the dense layer's."""
    from training.policies import MaskedCategorical, SupportCategorical

    rng = np.random.default_rng(3)
    gen = torch.Generator().manual_seed(3)
    for trial in range(20):
        n, rows, d = int(rng.integers(6, 40)), int(rng.integers(1, 5)), 5
        latent = torch.randn(rows, d, generator=gen)
        weight = torch.randn(n, d, generator=gen)
        bias = torch.randn(n, generator=gen) if trial % 2 else None
        masks = rng.random((rows, n)) < 0.7
        masks[:, : n // 2 + 1] = True  # more than half of the actions legal somewhere
        sparse = SupportCategorical(latent, weight, bias)
        sparse.apply_masking(masks)
        assert sparse.support is None
        dense = MaskedCategorical(torch.nn.functional.linear(latent, weight, bias))
        dense.apply_masking(masks)
        actions = torch.as_tensor(rng.integers(0, n, rows))
        sets = torch.as_tensor(masks & (rng.random((rows, n)) < 0.5))
        assert torch.equal(sparse.log_prob(actions), dense.log_prob(actions))
        assert torch.equal(sparse.set_log_prob(sets), dense.set_log_prob(sets))
        assert torch.equal(sparse.entropy(), dense.entropy())
        assert torch.equal(sparse.mode(), dense.mode())
        assert torch.equal(sparse.probs, dense.probs)
        sample = sparse.sample().numpy()
        assert masks[np.arange(rows), sample].all()  # a sample is always a legal action


# ----------------------------------------------------------------------------- pretrain
def test_coded_array_of_no_entries_keeps_its_shape() -> None:
    """``CodedArray.encode`` docstring: "``a`` (as ``float32``) coded": an array with no
    entries (no decisions collected yet) stays a coded array of the same shape that decodes
    to an empty ``float32`` array."""
    from training.pretrain import CodedArray

    coded = CodedArray.encode(np.zeros((0, 3, 2), np.float64))
    assert isinstance(coded, CodedArray)
    assert coded.shape == (0, 3, 2) and len(coded) == 0 and coded.dtype == np.float32
    plain = np.asarray(coded)
    assert plain.shape == (0, 3, 2) and plain.dtype == np.float32


def test_concat_of_coded_parts_with_too_many_values_joins_plain_and_bit_exact() -> None:
    """``concat``: "The decisions of ``parts``, in order"; the joiner: "parts with over 65,536
    values together ... join as plain ``float32``" (each part alone fits a coded table). The
    joined observations are the parts' bit for bit (``-0.0`` and a NaN included)."""
    from training.pretrain import CodedArray, Demonstrations, concat

    a = np.arange(40_000, dtype=np.float32).reshape(-1, 2)
    b = (np.arange(40_000, dtype=np.float32) + 0.5).reshape(-1, 2)
    a[0, 0], b[0, 1] = -0.0, np.nan

    def demos(obs: np.ndarray) -> Demonstrations:
        n = len(obs)
        return Demonstrations.of(obs, np.ones((n, 3), bool), np.arange(n) % 3, np.zeros(n, np.float32), 1)

    parts = [demos(a), demos(b)]
    assert all(isinstance(p.obs, CodedArray) for p in parts)
    joined = concat(parts)
    assert isinstance(joined.obs, np.ndarray) and joined.obs.dtype == np.float32
    want = np.concatenate([a, b])
    assert np.array_equal(joined.obs.view(np.uint32), want.view(np.uint32))
    assert len(joined) == 40_000 and joined.episodes == 2
    assert np.array_equal(joined.actions, np.concatenate([np.arange(20_000) % 3] * 2))


def test_fit_with_a_holdout_of_trivial_decisions_only() -> None:
    """``fit`` / ``chance_levels``: on a trivial decision "every legal move is among the best,
    so any player agrees": a held-out set of trivial decisions only has agreement 1.0, chance
    agreement 1.0 and a trivial share of 1.0; there is no non-trivial decision to report on."""
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from training.pretrain import Demonstrations, fit

    torch.manual_seed(0)
    space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    policy = MaskableActorCriticPolicy(space, gym.spaces.Discrete(4), lambda _: 1e-3, net_arch=[8])
    rng = np.random.default_rng(0)
    n = 40
    obs = rng.random((n, 3)).astype(np.float32)
    masks = rng.random((n, 4)) < 0.6
    masks[np.arange(n), rng.integers(4, size=n)] = True
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    demos = Demonstrations.of(obs, masks, actions, np.zeros(n, np.float32), 1, targets=masks)
    log = fit(policy, demos, epochs=2, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    assert log["holdout_trivial_share"] == 1.0 and log["holdout_chance_agreement"] == 1.0
    assert [row["holdout_agreement"] for row in log["epochs"]] == [1.0, 1.0]
    assert all("holdout_agreement_nontrivial" not in row for row in log["epochs"])


@pytest.mark.parametrize("teacher", ["heuristic", "greedy", "mcts"])
def test_soft_targets_with_a_scoring_or_search_teacher_are_accepted(teacher: str) -> None:
    """``check_pretrain_options``: "soft targets need a scoring teacher or a search": a
    ScoringBot (heuristic, greedy) or ``mcts`` teacher with ``pretrain_temperature > 0`` is
    a valid config; ``random`` is refused with a message naming the teachers that do."""
    from training.config import TrainConfig, merge

    base = {"env": "octi", "pretrain_samples": 1, "pretrain_temperature": 0.5}
    merge(TrainConfig(), {**base, "pretrain_teacher": teacher}, "test").validate()
    with pytest.raises(ValueError, match=r"'random' of octi has neither \(the teachers that do: .*mcts\)"):
        merge(TrainConfig(), {**base, "pretrain_teacher": "random"}, "test").validate()


@pytest.mark.parametrize(
    ("driver", "teacher", "message"),
    [
        ("/nonexistent/model.zip", "heuristic", r"^no model at '/nonexistent/model\.zip'$"),
        (None, "nosuchbot", r"^unknown bot 'nosuchbot'; available: \[.*'random'"),
    ],
)
def test_serial_collection_error_names_the_problem(driver: str | None, teacher: str, message: str) -> None:
    """``collect_demonstrations`` in this process (``workers=1``): a DAgger ``driver`` that is no
    saved model, or an unknown teacher, is a ValueError naming it (not a worker's traceback)."""
    from training.pretrain import collect_demonstrations

    cfg = {**_oao_cfg(), "pretrain_teacher": teacher}
    with pytest.raises(ValueError, match=message):
        collect_demonstrations(cfg, 10, 0, workers=1, driver=driver)


# ----------------------------------------------------------------------------- tournament
def test_bradley_terry_elo_with_few_iterations() -> None:
    """``bradley_terry_elo``: Elo of a Bradley-Terry fit, the first name at 1000. Two players
    converge at once (39 of 40 wins: 599 points, as the docstring says); a three-player table
    cut off after a few iterations still rates every player finitely, in the order of their
    results, and the full fit is a fixed point (more iterations change nothing)."""
    from training.tournament import PairResult, bradley_terry_elo

    two = bradley_terry_elo(["a", "b"], [PairResult("a", "b", games=40, wins=39, losses=1)], iters=1)
    assert two["a"] == 1000.0 and round(two["a"] - two["b"]) == 599
    pairs = [
        PairResult("a", "b", games=20, wins=15, losses=5),
        PairResult("b", "c", games=20, wins=14, losses=6),
        PairResult("a", "c", games=20, wins=17, losses=3),
    ]
    names = ["a", "b", "c"]
    short = bradley_terry_elo(names, pairs, iters=2)
    full = bradley_terry_elo(names, pairs)
    assert short["a"] == full["a"] == 1000.0
    assert all(math.isfinite(v) for v in short.values())
    assert short["a"] > short["b"] > short["c"] and full["a"] > full["b"] > full["c"]
    assert short != full
    longer = bradley_terry_elo(names, pairs, iters=20_000)
    assert all(abs(longer[k] - full[k]) < 1e-6 for k in names)


# ----------------------------------------------------------------------------- interrupt
def test_graceful_interrupt_outside_the_main_thread_changes_nothing() -> None:
    """``GracefulInterrupt`` docstring: "Elsewhere (another thread) it changes nothing: Ctrl-C
    raises ``KeyboardInterrupt`` as usual": the SIGINT handler is the same inside and after."""
    from training.interrupt import GracefulInterrupt

    before = signal.getsignal(signal.SIGINT)
    seen: dict[str, Any] = {}

    def body() -> None:
        with GracefulInterrupt("stopping") as g:
            seen["inside"] = signal.getsignal(signal.SIGINT)
            seen["requested"] = g.requested
        seen["after"] = signal.getsignal(signal.SIGINT)

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == {"inside": before, "requested": False, "after": before}
    assert signal.getsignal(signal.SIGINT) is before


def test_die_with_parent_in_the_main_process_starts_no_watcher() -> None:
    """``die_with_parent``: "In a worker process: exit as soon as the process that started it is
    gone"; called in a process no multiprocessing parent started, it does nothing."""
    from training.interrupt import die_with_parent

    names = {t.name for t in threading.enumerate()}
    die_with_parent()
    assert {t.name for t in threading.enumerate()} == names


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("watch", [True, False])
def test_die_with_parent_worker_exits_when_its_parent_is_killed(tmp_path: Path, watch: bool) -> None:
    """``die_with_parent``: a worker whose parent exits without clean-up (``os._exit``, as after
    SIGKILL) ends at once instead of staying behind (README: workers "end with it, even with
    one killed outright"). The control without it (``watch=False``) stays: the check can fail."""
    code = textwrap.dedent(
        """
        import multiprocessing as mp, os, sys, time
        from training.interrupt import die_with_parent
        def child():
            if sys.argv[2] == "1":
                die_with_parent()
            time.sleep(20)
        p = mp.get_context("fork").Process(target=child)
        p.start()
        with open(sys.argv[1], "w") as f:
            f.write(str(p.pid))
        time.sleep(0.3)
        os._exit(0)
        """
    )
    pid_file = tmp_path / "pid"
    run = subprocess.run(
        [sys.executable, "-c", code, str(pid_file), "1" if watch else "0"],
        stdout=subprocess.DEVNULL,  # not a pipe the worker holds open: run() returns with the parent
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0
    pid = int(pid_file.read_text())
    try:
        start = time.monotonic()
        while _running(pid) and time.monotonic() - start < (10 if watch else 1):
            time.sleep(0.05)
        assert _running(pid) is not watch, "the worker outlived its parent" if watch else "control"
    finally:
        if _running(pid):
            os.kill(pid, signal.SIGKILL)


# ----------------------------------------------------------------------------- memory / bench
def test_memory_bench_without_a_row_callback() -> None:
    """``run_memory_bench`` docstring: every config of ``games`` "after the ``connect_four_v3``
    reference: one fresh process a row"; ``on_row`` is optional (research code calls it
    without): the reference row (no engine state) and one row per bench config of Octi."""
    from training.memory import bench_configs, run_memory_bench

    rows = run_memory_bench(["octi"], 0.05)
    assert len(rows) == 1 + len(bench_configs("octi"))
    assert "connect_four_v3" in rows[0].name and rows[0].state_bytes is None
    assert all("octi" in r.name and r.state_bytes is not None and r.state_bytes > 0 for r in rows[1:])


def test_bench_learner_without_json_prints_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: ``eightfold bench --learner <game>`` prints the learner's steps/s next to
    connect_four_v3's; without ``--json`` it writes no file and exits 0."""
    from training.cli import main

    monkeypatch.chdir(tmp_path)
    argv = ["bench", "--learner", "over_and_out", "--param", "num_players=2", "--timesteps", "64"]
    argv += ["--set", "n_envs=1", "--set", "n_steps=64", "--set", "batch_size=64"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "learner throughput" in out and "over_and_out" in out and "connect_four_v3" in out
    assert list(tmp_path.iterdir()) == []


def test_throughput_module_entry_point_unknown_game() -> None:
    """``python -m training.throughput GAME``: an unknown game is an error line naming it
    (exit status 2), as the CLI's usage errors."""
    run = subprocess.run(
        [sys.executable, "-m", "training.throughput", "nosuchgame"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 2
    assert "error: unknown game 'nosuchgame'" in run.stderr and "Traceback" not in run.stderr


# ----------------------------------------------------------------------------- train
def test_subprocess_env_worker_gets_one_thread_and_leaves_ctrl_c_to_the_learner() -> None:
    """``make_env(..., in_subprocess=True)`` (a SubprocVecEnv worker): "torch gets one thread"
    and the worker leaves Ctrl-C to the learner (SIGINT ignored, ``worker_init``) while SIGTERM
    ends it; the env is a monitored one that resets."""
    code = textwrap.dedent(
        """
        import json, signal, sys, tempfile, torch
        from training.train import make_env
        env = make_env(json.loads(sys.argv[1]), 0, tempfile.mkdtemp(), in_subprocess=True)
        env.reset()
        print(torch.get_num_threads(), signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
              signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, type(env).__name__)
        """
    )
    cfg = json.dumps(_oao_cfg())
    run = subprocess.run(
        [sys.executable, "-c", code, cfg], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "True", "True", "Monitor"]


def test_furthest_model_passes_over_a_checkpoint_name_without_steps(tmp_path: Path) -> None:
    """README: ``--resume`` "starts from the run's furthest whole model (a checkpoint ...)": a
    file in ``checkpoints/`` named ``model_<not a number>_steps.zip`` (copied in by hand) is
    passed over, not an error, and not taken for a later model."""
    from training.train import furthest_model

    ckpts = tmp_path / "checkpoints"
    _zip(ckpts / "model_100_steps.zip")
    _zip(ckpts / "model_abc_steps.zip")
    _zip(ckpts / "model_final_steps.zip")
    assert furthest_model(tmp_path) == (ckpts / "model_100_steps.zip", 100)


def test_rollback_passes_over_files_it_cannot_date(tmp_path: Path) -> None:
    """README: a resumed run "sets aside in ``lost/`` what it logged after" the model it resumes
    from. What it cannot date stays where it is: a snapshot named without steps, a monitor file
    cut to its header, one with a header that is not JSON, and rows cut short (no time, or a
    time that is no number); a later snapshot and a later episode are set aside."""
    from training.train import rollback_run

    model = tmp_path / "checkpoints" / "model_100_steps.zip"
    _zip(model)
    for name in ("snap_x.zip", "snap_50.zip", "snap_200.zip"):
        _zip(tmp_path / "pool" / name)
    mon = tmp_path / "monitor"
    mon.mkdir()
    texts = {
        "0.monitor.csv": '#{"t_start": 0}\n',
        "1.monitor.csv": "#not json\nr,l,t\n1,2,1e12\n",
        "2.monitor.csv": '#{"t_start": 1.0}\nr,l,t\n1,2,3\n1,2\n1,2,x\n1,2,1e12\n',
    }
    for name, text in texts.items():
        (mon / name).write_text(text)
    moved = rollback_run(tmp_path, 100, model)
    assert moved == {"evaluations": 0, "snapshots": 1, "best model": 0, "checkpoints": 0, "episodes": 1}
    assert sorted(p.name for p in (tmp_path / "pool").iterdir()) == ["snap_50.zip", "snap_x.zip"]
    lost = tmp_path / "lost" / "after_100_steps"
    assert (lost / "pool" / "snap_200.zip").is_file()
    assert (mon / "0.monitor.csv").read_text() == texts["0.monitor.csv"]
    assert (mon / "1.monitor.csv").read_text() == texts["1.monitor.csv"]
    assert (mon / "2.monitor.csv").read_text() == '#{"t_start": 1.0}\nr,l,t\n1,2,3\n1,2\n1,2,x\n'
    assert (lost / "monitor" / "2.monitor.csv").read_text() == '#{"t_start": 1.0}\nr,l,t\n1,2,1e12\n'


def test_rllib_resume_without_a_checkpoint_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eightfold train --backend rllib --resume`` on a folder with the run's metadata and
    ``config.yaml`` but no ``checkpoint/`` (the config passes; the RLlib backend checks its
    checkpoint itself): a usage error (exit 2) that names the folder and what is missing."""
    from training.cli import main

    (tmp_path / "eightfold_rllib.json").write_text("{}")
    (tmp_path / "config.yaml").write_text("env: over_and_out\nparams:\n  num_players: 2\n")
    argv = ["train", "over_and_out", "--param", "num_players=2", "--backend", "rllib", "--resume"]
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no checkpoint/ to continue from" in err and str(tmp_path) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "eightfold_rllib.json"]
