"""Commands other than training's PPO phase, interrupted: every file a command writes is
written in one step (a Ctrl-C or a kill leaves the earlier file, never a cut-short one that a
later command reads as whole); worker processes leave Ctrl-C to their parent, which ends them
at once, and do not outlive a parent that is killed; ``bench`` shows each row as it is
measured; a warm start stopped by Ctrl-C says that nothing was saved."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.files import append_line, replacing, write_text
from training.cli import main
from training.interrupt import end_pool, sigint_ignored, worker_init

ROOT = Path(__file__).resolve().parents[2]
EIGHTFOLD = [sys.executable, "-c", "import sys; from training.cli import main; sys.exit(main(sys.argv[1:]))"]
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process trees from /proc")


def _partial_then_ctrl_c(path: Any, *args: Any, **kwargs: Any) -> None:
    """A writer stopped by Ctrl-C half-way: some bytes out, then ``KeyboardInterrupt``."""
    target = getattr(path, "write", None)
    if target is not None:  # a file object
        path.write(b"cut short")
    else:
        Path(path).write_bytes(b"cut short")
    raise KeyboardInterrupt


def test_replacing_keeps_the_earlier_file_when_the_block_fails(tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    out.write_text("earlier")
    with pytest.raises(KeyboardInterrupt), replacing(out) as tmp:
        assert tmp.parent == out.parent and tmp.name.startswith(".") and tmp.suffix == ".json"
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert out.read_text() == "earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"], "no temporary file left"
    write_text(out, "later")
    assert out.read_text() == "later"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.json"]


def test_replacing_follows_links_and_writes_devices_in_place(tmp_path: Path) -> None:
    """A link keeps pointing at the file it named (its target is what is replaced); a path that
    is no regular file (``--json /dev/stdout``) is written as before; a folder that does not
    exist is reported under the name given, not the temporary one."""
    real = tmp_path / "runs" / "plot.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(p.name for p in real.parent.iterdir()) == ["plot.json"]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with replacing(fifo) as target:
        assert target == fifo
    missing = tmp_path / "nowhere" / "x.json"
    with pytest.raises(FileNotFoundError) as info:
        write_text(missing, "x")
    assert info.value.filename == str(missing)


def test_replacing_keeps_what_a_plain_write_keeps(tmp_path: Path) -> None:
    """The permission bits, other hard links' view of the file, names up to the usual 255
    bytes, and the error of a loop of links."""
    kept = tmp_path / "mode.json"
    kept.write_text("old")
    kept.chmod(0o640)
    write_text(kept, "new")
    assert (kept.stat().st_mode & 0o777, kept.read_text()) == (0o640, "new")
    other = tmp_path / "other.json"
    os.link(kept, other)
    write_text(kept, "newer")
    assert other.read_text() == "newer", "a hard link sees the new text, as with open('w')"
    long = tmp_path / ("a" * 250 + ".json")
    write_text(long, "long")
    assert long.read_text() == "long"
    loop = tmp_path / "loop1"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    with pytest.raises(OSError, match=r"loop1") as info:
        write_text(loop, "x")
    assert info.value.errno == errno.ELOOP and loop.is_symlink()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_replacing_where_no_new_file_can_be_made(tmp_path: Path) -> None:
    """A writable file in a folder that takes no new file is written in place; a file the user
    may not write is refused, as a plain write refuses it."""
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "w.json").write_text("old")
    (folder / "w.json").chmod(0o666)
    protected = tmp_path / "p.json"
    protected.write_text("old")
    protected.chmod(0o444)
    folder.chmod(0o555)
    try:
        write_text(folder / "w.json", "new")
        assert (folder / "w.json").read_text() == "new"
        with pytest.raises(PermissionError) as info:
            write_text(protected, "new")
        assert info.value.filename == str(protected) and protected.read_text() == "old"
    finally:
        folder.chmod(0o755)


def test_a_plot_named_without_a_suffix_is_a_png(tmp_path: Path) -> None:
    """matplotlib adds ``.png`` to such a name: the temporary file got it, and the rename failed."""
    pytest.importorskip("matplotlib")
    from training.plots import learning_curve

    (tmp_path / "run").mkdir()
    append_line(tmp_path / "run" / "eval.jsonl", json.dumps({"timesteps": 0}))
    assert learning_curve(tmp_path / "run", tmp_path / "curve") == tmp_path / "curve.png"
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.png", "run"]


def test_processes_started_by_sigint_ignored_or_the_forkserver_ignore_ctrl_c() -> None:
    """A Ctrl-C while a spawned worker or the forkserver imports (torch: seconds) printed a
    traceback of theirs; a blocked signal is no help (``multiprocessing`` clears the mask)."""
    import multiprocessing as mp
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    before = signal.getsignal(signal.SIGINT)
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        with sigint_ignored():
            future = pool.submit(signal.getsignal, signal.SIGINT)
        assert future.result() == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) == before
    if not Path("/proc/self/status").exists():
        return
    code = (  # in a fresh process: this one's forkserver may be running already
        "from multiprocessing import forkserver; from pathlib import Path; "
        "from training.interrupt import start_forkserver; start_forkserver(); "
        "pid = forkserver._forkserver._forkserver_pid; "
        "print(Path(f'/proc/{pid}/status').read_text().split('SigIgn:')[1].split()[0])"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert int(out, 16) >> (signal.SIGINT - 1) & 1, out


def test_a_log_line_cut_short_is_passed_over_and_the_next_row_kept(tmp_path: Path) -> None:
    """A kill while ``eval.jsonl`` was appended to left a cut line: ``read_evals`` (the curve,
    ``eval --curve``) raised on it, and the resumed run's next row was glued onto it."""
    from training.plots import read_evals

    log = tmp_path / "eval.jsonl"
    append_line(log, json.dumps({"timesteps": 100, "wall_s": 1.0}))
    with log.open("a") as f:
        f.write('{"timesteps": 200, "wal')  # cut short
    append_line(log, json.dumps({"timesteps": 300, "wall_s": 3.0}))
    assert [r["timesteps"] for r in read_evals(tmp_path)] == [100, 300]
    assert log.read_text().count("\n") == 3


def test_a_gif_or_png_cut_short_leaves_the_earlier_picture(tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("PIL")
    from PIL import Image

    from envs.core.draw import save_gif, save_png

    frame = np.zeros((8, 8, 3), dtype=np.uint8)
    gif, png = tmp_path / "g.gif", tmp_path / "p.png"
    save_gif([frame, frame], str(gif))
    save_png(frame, str(png))
    before = gif.read_bytes(), png.read_bytes()
    monkeypatch.setattr(Image.Image, "save", lambda self, path, *a, **k: _partial_then_ctrl_c(path))
    with pytest.raises(KeyboardInterrupt):
        save_gif([frame, frame], str(gif))
    with pytest.raises(KeyboardInterrupt):
        save_png(frame, str(png))
    assert (gif.read_bytes(), png.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.gif", "p.png"]


def _records(tmp_path: Path, games: int) -> Path:
    records = tmp_path / "games.jsonl"
    assert (
        main(
            [
                "eval",
                "octi",
                "--players",
                "random",
                "greedy",
                "--games",
                str(games),
                "--records",
                str(records),
            ]
        )
        == 0
    )
    return records


def test_eval_interrupted_while_writing_keeps_the_earlier_records_and_json(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """A Ctrl-C while ``eval`` wrote ``--records`` left a shorter file that ``replay`` listed
    without a warning (41 of 400 games)."""
    records = _records(tmp_path, 4)
    table = tmp_path / "table.json"
    table.write_text("{}")
    before = records.read_text()
    real = json.dumps
    calls = {"n": 0}

    def dumps(obj: Any, *a: Any, **k: Any) -> str:
        if k.get("separators") == (",", ":"):  # a record line
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt
        return real(obj, *a, **k)

    import training.evaluate

    monkeypatch.setattr(training.evaluate.json, "dumps", dumps)
    argv = ["eval", "octi", "--players", "random", "greedy", "--games", "2", "--records", str(records)]
    assert main([*argv, "--json", str(table)]) == 130
    assert records.read_text() == before, "the earlier 4 games, not 1 of the new ones"
    assert json.loads(table.read_text())["games_per_pairing"] == 2, "--json was written before --records"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_dataset_cut_short_leaves_the_earlier_one(tmp_path: Path, monkeypatch: Any) -> None:
    records = _records(tmp_path, 2)
    data = tmp_path / "d.npz"
    assert main(["replay", str(records), "--dataset", str(data)]) == 0
    before = data.read_bytes()
    monkeypatch.setattr(np, "savez_compressed", _partial_then_ctrl_c)
    assert main(["replay", str(records), "--dataset", str(data)]) == 130
    assert data.read_bytes() == before
    assert len(np.load(data)["actions"]) > 0


def test_bench_shows_each_row_as_it_is_measured(monkeypatch: Any, capsys: Any) -> None:
    """``bench`` printed its table only at the end: a Ctrl-C threw away the rows measured."""
    import training.bench

    real = training.bench._time_loop
    calls = {"n": 0}

    def loop(*a: Any, **k: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(training.bench, "_time_loop", loop)
    assert main(["bench", "--games", "octi", "--seconds", "0.05"]) == 130
    out = capsys.readouterr().out
    assert "game / config" in out
    shown = [line.split()[0] for line in out.splitlines()[2:] if line.strip()]
    assert shown == ["pettingzoo", "octi"], out
    monkeypatch.setattr(training.bench, "_time_loop", real)
    rows: list[Any] = []
    assert training.bench.run_bench(["octi"], 0.02, on_row=rows.append) == rows and len(rows) == 7


def _slow(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_end_pool_stops_the_workers_at_once() -> None:
    pool = ProcessPoolExecutor(2, initializer=worker_init)
    futures = [pool.submit(_slow, 60) for _ in range(4)]
    time.sleep(1.0)
    processes = list(pool._processes.values())  # type: ignore[attr-defined]
    assert processes
    t0 = time.time()
    end_pool(pool)
    assert time.time() - t0 < 10, "shutdown() would wait a minute for the tasks sent"
    # The pool's own thread reaps the workers too (between its waitpid() and its setting the
    # exit code, is_alive() still says True) and fails the tasks they ran: both come a moment
    # after end_pool returns, so they are awaited a while (the tasks themselves would take 60 s).
    end = time.monotonic() + 30
    while time.monotonic() < end and not (
        all(p.exitcode is not None for p in processes) and all(f.done() for f in futures)
    ):
        time.sleep(0.05)
    assert not any(p.is_alive() for p in processes)
    assert all(f.cancelled() or f.done() for f in futures)


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.add(c)
            todo.append(c)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _wait_for(predicate: Any, seconds: float) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return predicate()


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _warm_start(tmp_path: Path) -> tuple[subprocess.Popen[str], set[int]]:
    """``eightfold train`` in its warm start, with its two collection workers up."""
    argv = [
        *EIGHTFOLD,
        "train",
        "octi",
        "--timesteps",
        "2048",
        "--no-progress",
        "--out",
        str(tmp_path / "run"),
    ]
    proc = _start([*argv, "--set", "pretrain_samples=400000", "--set", "pretrain_workers=2"], tmp_path)
    # the forkserver and its two workers (and the resource tracker)
    assert _wait_for(lambda: len(_descendants(proc.pid)) >= 3, 90), proc.communicate(timeout=60)
    time.sleep(1.0)
    return proc, _descendants(proc.pid)


@needs_proc
def test_warm_start_ctrl_c_ends_its_workers_and_says_nothing_was_saved(tmp_path: Path) -> None:
    proc, workers = _warm_start(tmp_path)
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert "interrupted during the warm start" in err and "without --resume" in err
    assert _wait_for(lambda: not _alive(workers), 10), f"left running: {_alive(workers)}"


@needs_proc
def test_warm_start_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    """SIGKILL (or SIGTERM) runs no clean-up in the parent: its pool workers stayed for good."""
    proc, workers = _warm_start(tmp_path)
    proc.kill()
    proc.communicate(timeout=30)
    assert _wait_for(lambda: not _alive(workers), 15), f"left running: {_alive(workers)}"


@needs_proc
def test_mcts_strength_ctrl_c_stops_at_once(tmp_path: Path) -> None:
    """The example's pool finished every queued chunk after a Ctrl-C (half a minute), printed a
    traceback, and hung for good on a second Ctrl-C."""
    argv = [sys.executable, str(ROOT / "examples" / "mcts_strength.py"), "--games", "octi", "--budgets", "50"]
    proc = _start([*argv, "--opponents", "heuristic", "-n", "400", "--jobs", "2"], tmp_path)
    assert proc.stderr is not None
    first = proc.stderr.readline()  # the first chunk's tally: the workers are busy
    assert "chunks" in first, first + proc.communicate(timeout=60)[1]
    workers = _descendants(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    t0 = time.time()
    _out, err = proc.communicate(timeout=60)
    assert time.time() - t0 < 10
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err, err
    assert _wait_for(lambda: not _alive(workers), 10)
