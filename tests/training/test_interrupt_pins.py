"""Pins on ``training.interrupt``: what a worker pool's initializer sets in a forked worker,
how ``end_pool`` ends workers (queued tasks cancelled, SIGTERM first, SIGKILL for a worker that
ignores it), and ``sigint_deferred``. Each test holds a behaviour that a planted change to the
code (a mutation round) left every earlier test passing."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from training.interrupt import end_pool, sigint_deferred, worker_init

needs_fork = pytest.mark.skipif(
    "fork" not in mp.get_all_start_methods(), reason="the workers inherit the parent's handlers by fork"
)
main_thread_only = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signal handlers are set in the main thread",
)


def _parents_sigterm_handler(signum: int, frame: Any) -> None:  # pragma: no cover - never called
    """A SIGTERM handler of the parent's (as Ray installs one), inherited by forked workers."""


def _worker_signals() -> tuple[bool, bool]:
    """Whether Ctrl-C is ignored and SIGTERM is at its default, in the worker."""
    sigint, sigterm = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    return sigint == signal.SIG_IGN, sigterm == signal.SIG_DFL


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _mark_and_sleep(mark: str, seconds: float) -> None:
    Path(mark).touch()
    time.sleep(seconds)


def _exit_on_sigterm() -> None:
    """A worker that handles SIGTERM itself and exits at once (status 3)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(3))


def _ignore_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _exit_codes(processes: list[Any], seconds: float = 60.0) -> list[int | None]:
    """The workers' exit codes, once known (the pool's own thread may be reaping them too)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(p.exitcode is None for p in processes):
        time.sleep(0.05)
    return [p.exitcode for p in processes]


def _kill(processes: list[Any]) -> None:
    for p in processes:
        if p.exitcode is None:
            p.kill()
            p.join(30)


def _busy_pool(
    initializer: Any, mark: Path, tasks: int = 1
) -> tuple[ProcessPoolExecutor, list[Any], list[Any]]:
    """A one-worker pool (fork) in a minute-long task (its initializer done), ``tasks - 1``
    more queued."""
    pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"), initializer=initializer)
    futures = [pool.submit(_mark_and_sleep, str(mark), 60) for _ in range(tasks)]
    end = time.monotonic() + 120
    while not mark.exists() and time.monotonic() < end:
        time.sleep(0.05)
    processes = list(pool._processes.values())
    if not mark.exists():
        end_pool(pool)
        pytest.fail("the worker did not start its task in 120 s")
    return pool, futures, processes


@needs_fork
@main_thread_only
def test_worker_init_resets_the_parents_handlers_in_a_forked_worker() -> None:
    """A forked worker inherits its parent's handlers: ``worker_init`` leaves Ctrl-C to the
    parent (ignored) and puts SIGTERM back to its default (a library's handler in the parent,
    Ray's for one, kept the worker alive after ``terminate()``)."""
    previous = signal.signal(signal.SIGTERM, _parents_sigterm_handler)
    pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"), initializer=worker_init)
    try:
        future = pool.submit(_worker_signals)  # the worker is forked here
        signal.signal(signal.SIGTERM, previous)
        assert future.result(timeout=120) == (True, True)
    finally:
        signal.signal(signal.SIGTERM, previous)
        end_pool(pool)


@needs_fork
def test_a_pool_of_worker_init_shuts_down_when_its_work_is_done() -> None:
    """The thread that watches for the parent's end is a daemon: a worker that is told to stop
    exits, and ``shutdown()`` returns (a worker waiting on that thread waited for its parent,
    which waited for it)."""
    pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"), initializer=worker_init)
    assert pool.submit(_sleep, 0).result(timeout=120)
    processes = list(pool._processes.values())
    closer = threading.Thread(target=pool.shutdown, daemon=True)
    closer.start()
    closer.join(60)
    try:
        assert not closer.is_alive(), "shutdown() still waiting for its worker after 60 s"
        assert _exit_codes(processes) == [0]
    finally:
        _kill(processes)


@needs_fork
def test_end_pool_cancels_the_queued_tasks(tmp_path: Path) -> None:
    """Tasks not yet sent to a worker are cancelled, not failed with ``BrokenProcessPool``."""
    pool, futures, processes = _busy_pool(worker_init, tmp_path / "busy", tasks=8)
    try:
        end_pool(pool)
        end = time.monotonic() + 60  # (concurrent.futures.wait() counts no future the pool cancelled)
        while not all(f.done() for f in futures) and time.monotonic() < end:
            time.sleep(0.05)
        assert futures[-1].cancelled(), futures[-1]
    finally:
        _kill(processes)


@needs_fork
def test_end_pool_asks_with_sigterm_first(tmp_path: Path) -> None:
    """A worker that handles SIGTERM (exits on its own, here with status 3) gets the signal and
    up to 2 s to act on it before it is killed."""
    pool, _futures, processes = _busy_pool(_exit_on_sigterm, tmp_path / "busy")
    try:
        end_pool(pool)
        assert _exit_codes(processes) == [3]
    finally:
        _kill(processes)


@needs_fork
def test_end_pool_kills_a_worker_that_ignores_sigterm(tmp_path: Path) -> None:
    """SIGTERM handled and not obeyed: after 2 s the worker is killed (SIGKILL), not left
    running its task."""
    pool, _futures, processes = _busy_pool(_ignore_sigterm, tmp_path / "busy")
    try:
        end_pool(pool)
        assert _exit_codes(processes, 30) == [-signal.SIGKILL]
    finally:
        _kill(processes)


@main_thread_only
def test_sigint_deferred_raises_the_ctrl_c_when_the_block_ends() -> None:
    """A Ctrl-C inside the block lets the block finish (the pool it starts is then up, and can
    be ended) and is raised as ``KeyboardInterrupt`` after it; the handler before is put back.
    A block without a Ctrl-C ends as usual."""
    before = signal.getsignal(signal.SIGINT)
    with sigint_deferred():
        pass
    done: list[str] = []
    with pytest.raises(KeyboardInterrupt), sigint_deferred():
        signal.raise_signal(signal.SIGINT)  # its handler runs before this call returns
        done.append("the block went on")
    assert done == ["the block went on"]
    assert signal.getsignal(signal.SIGINT) is before


def test_sigint_deferred_and_ignored_change_nothing_in_another_thread() -> None:
    """Handlers can be set in the main thread only: in another thread the blocks just run."""
    from training.interrupt import sigint_ignored

    errors: list[BaseException] = []

    def run() -> None:
        try:
            with sigint_deferred(), sigint_ignored():
                pass
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert errors == []


def test_end_pool_waits_for_the_pools_manager_thread() -> None:
    """``end_pool`` returns once the pool's manager thread has ended: left running, it closed
    its wake-up pipe while the interpreter's exit hook wrote to it, and an interrupted warm
    start printed "Exception ignored ... Bad file descriptor" now and then (2026-12-07)."""
    pool = ProcessPoolExecutor(2, mp_context=mp.get_context("fork"))
    futures = [pool.submit(_sleep, 10) for _ in range(4)]
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    assert manager is not None and manager.is_alive()
    time.sleep(0.2)
    end_pool(pool)
    assert not manager.is_alive()
    assert all(f.done() for f in futures)


#: a worker killed halfway through sending its result: it writes a message header promising
#: a megabyte, a hundred bytes of it, and waits; the parent then ends the pool and exits
_HALF_SENT = """
import os, struct, sys, time, multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from training.interrupt import end_pool

def half_sent(mark):
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:
        frame = frame.f_back
    os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1 << 20) + bytes(100))
    open(mark, "w").close()
    time.sleep(120)

if __name__ == "__main__":
    pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"))
    pool.submit(half_sent, sys.argv[1])
    manager = pool._executor_manager_thread
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.05)
    time.sleep(0.5)  # the manager thread is reading the rest of the message
    end_pool(pool)
    print("manager ended:", not manager.is_alive(), flush=True)
"""


@needs_fork
def test_end_pool_ends_a_pool_whose_worker_died_mid_result(tmp_path: Path) -> None:
    """A worker ended while it sent its result left the pool's manager thread reading the rest
    for good: ``end_pool`` waited its 5 s, and the interpreter's exit then waited on the thread
    for ever (an interrupted warm start hung after printing "interrupted", CI 2026-12-08)."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", _HALF_SENT, str(tmp_path / "sent")],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "manager ended: True\n", proc.stdout + proc.stderr


@needs_fork
def test_worker_pool_ends_its_workers_at_once_on_an_exception_and_waits_otherwise() -> None:
    """``worker_pool``: an exception in the block (Ctrl-C) ends a worker mid-task, where
    ``shutdown()`` would wait out the task; a block that ends normally lets the task finish.
    Each worker runs ``worker_init`` (Ctrl-C ignored)."""
    from training.interrupt import worker_pool

    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt), worker_pool(1, mp.get_context("fork")) as pool:
        assert pool.submit(_worker_signals).result(timeout=120) == (True, True)
        processes = list(pool._processes.values())
        pool.submit(_sleep, 60)
        time.sleep(0.2)
        raise KeyboardInterrupt
    assert time.monotonic() - t0 < 30, "the worker's minute-long task was waited for"
    assert _exit_codes(processes, 10) == [-signal.SIGTERM]

    with worker_pool(1, mp.get_context("fork")) as pool:
        future = pool.submit(_sleep, 1)
        processes = list(pool._processes.values())
    assert future.done() and future.result() == processes[0].pid
    assert _exit_codes(processes, 10) == [0]
