"""Ctrl-C during training: the first press asks the run to stop at its next safe point (the end
of an RLlib iteration, the next env step of an SB3 rollout), so what it then saves is whole;
a second press stops at once (:class:`StopNow`)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing.connection import wait
from typing import Any


class StopNow(KeyboardInterrupt):
    """A second Ctrl-C while a run winds down: stop at once, without saving."""


class GracefulInterrupt:
    """While active (in the main thread), the first SIGINT only sets ``requested`` and prints
    ``message``; a second one raises :class:`StopNow`. Elsewhere (another thread) it changes
    nothing: Ctrl-C raises ``KeyboardInterrupt`` as usual."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.requested = False
        self._previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise StopNow
        self.requested = True
        print(f"\nCtrl-C: {self.message} (Ctrl-C again to stop at once)", file=sys.stderr, flush=True)

    def __enter__(self) -> GracefulInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def ignore_sigint() -> None:
    """A worker process's initializer: Ctrl-C at a terminal reaches the whole process group,
    and the parent, which gets ``KeyboardInterrupt``, ends its workers itself (each worker
    printed a traceback of its own before)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def die_with_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone. A parent killed
    outright (SIGKILL, or SIGTERM, which runs no clean-up) cannot end its workers, and they
    stayed behind for good, each holding its memory."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])  # ready when the parent has exited
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def worker_init() -> None:
    """The initializer of every worker pool here: Ctrl-C is the parent's to handle
    (:func:`ignore_sigint`), SIGTERM ends the worker (a forked worker inherits its parent's
    handlers, and a library's SIGTERM handler there, Ray's for one, kept it alive), and the
    worker does not outlive its parent (:func:`die_with_parent`)."""
    ignore_sigint()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def end_pool(pool: Executor) -> None:
    """Stop a ``ProcessPoolExecutor`` at once (after Ctrl-C): queued tasks are dropped and the
    workers ended mid-task, where ``shutdown()`` would wait for every task already sent."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() drops the reference
    results = getattr(pool, "_result_queue", None)  # and this one
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        p.terminate()
    for p in processes:
        p.join(2)
        if p.is_alive():  # SIGTERM handled and not obeyed: no more asking
            p.kill()
            p.join(2)
    # a worker ended while it sent a result (a warm start's chunk: hundreds of KB) left the manager
    # thread reading the rest of that message for good, and the interpreter's exit waited on the
    # thread: a Ctrl-C'd run hung after "interrupted" (2026-12-08, CI). This process holds the
    # result pipe's last write end; closed, the read ends (EOF) and the thread with it.
    if results is not None:
        results._writer.close()
    # the pool's manager thread closes its wake-up pipe as it ends; left running, it could close
    # it while the interpreter's exit hook writes to it ("Exception ignored ... Bad file descriptor")
    if manager is not None:
        manager.join(5)


@contextlib.contextmanager
def worker_pool(workers: int, context: Any = None) -> Iterator[ProcessPoolExecutor]:
    """A ``ProcessPoolExecutor`` of ``workers`` processes (``context``: a ``multiprocessing``
    context, default the platform's) for a ``with`` block, each started by :func:`worker_init`
    (Ctrl-C is this process's to handle, and no worker outlives it). An exception in the block,
    Ctrl-C's ``KeyboardInterrupt`` above all, ends the workers at once (:func:`end_pool`);
    otherwise the pool shuts down as the block ends, its work done."""
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=worker_init)
    try:
        yield pool
    except BaseException:
        end_pool(pool)  # not shutdown(), which waits for every task already sent
        raise
    finally:
        pool.shutdown()


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ctrl-C ignored while the block runs (in the main thread). Keep the block to starting a
    process (``fork`` and ``exec``, milliseconds; a Ctrl-C then is lost): the process inherits
    the setting and keeps it from its first instruction, so a Ctrl-C while it imports prints no
    traceback of its own (an initializer runs too late for that). Blocking the signal instead
    would not do: ``multiprocessing`` starts its processes with the signal mask cleared."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def start_method() -> str:
    """How worker processes start: ``forkserver`` where the platform has it (Linux, macOS: the
    parent already runs torch, so no plain ``fork``; the server imports the heavy modules once
    and every worker forks from it), else ``spawn`` (Windows)."""
    import multiprocessing as mp

    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def start_forkserver() -> None:
    """Start ``multiprocessing``'s forkserver (if it is not running) with Ctrl-C ignored: it
    imports its preloaded modules (torch: seconds) with Ctrl-C ignored, and the workers it forks
    inherit that. The call returns once the process is started, not imported, so a Ctrl-C
    meanwhile still reaches this process. Nothing to start where workers spawn
    (:func:`start_method`)."""
    if start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    with sigint_ignored():
        forkserver.ensure_running()


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """A Ctrl-C while the block runs (in the main thread) is noted and raised as
    ``KeyboardInterrupt`` when the block ends. For starting a pool: a parent that left while its
    forkserver still imported torch had its workers forked after it had gone, and each printed a
    traceback (the pool's semaphores were gone); once the pool is up it can be ended cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
