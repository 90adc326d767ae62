"""Ctrl-C during training: the first press asks the run to stop at its next safe point (the end
of an RLlib iteration, the next env step of an SB3 rollout), so what it then saves is whole;
a second press stops at once (:class:`StopNow`)."""

from __future__ import annotations

import signal
import sys
import threading
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
