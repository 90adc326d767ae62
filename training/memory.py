"""``eightfold bench --memory``: what a position, an env and a long run cost in memory.

Measured with :mod:`tracemalloc` (Python objects and numpy's buffers, which numpy reports to
it), per game config of ``eightfold bench`` (the default and each golden config), with
PettingZoo's ``connect_four_v3`` as the reference row; each row in a fresh process, so that no
row finds the caches another row (or the speed table before it) has filled:

* **state**: the mean size of one engine ``State.clone()`` taken at random points of seeded
  random games (what a search tree, a replay of positions or a batch of vectorised copies
  pays per position; objects a clone shares with its original, such as the config, are not
  counted, since a clone does not pay for them);
* **env**: one ``env()`` after ``reset`` (engine state, observation buffers, PettingZoo's
  wrappers; the spaces are cached per class and shared, so not counted);
* **observation**: the bytes of one ``{"observation", "action_mask"}`` pair;
* **retained**: what one ``env()`` playing random games holds (traced from its first
  ``reset``, after a garbage collection) once it has played for ``--seconds``, and again once it
  has played for twice as long: the leak check. A leak grows in proportion to the games played;
  the games' module-level caches, each bounded (``lru_cache`` sizes, or a memo that clears
  itself at its ceiling), fill over the first games and then stop growing or fall back.

State, env and observation sizes depend on the Python and numpy versions (object layouts), not
on the machine's speed; retained depends on how many games the time allows.
"""

from __future__ import annotations

import functools
import gc
import multiprocessing
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.game import check_game, legal_indices
from envs.core.registry import get_game, installed_games
from training.bench import (
    aec_game_runner,
    bench_configs,
    check_count,
    check_games,
    check_seconds,
    config_label,
)
from training.interrupt import sigint_ignored, worker_pool


@dataclass
class MemoryRow:
    name: str
    state_bytes: float | None  # one clone at a random point of a game (mean); None for the reference
    env_bytes: float  # one env() after reset
    observation_bytes: int  # observation + action mask of one step
    retained_bytes: float  # held by one env's random games after the first window
    retained_games: int  # games of the first window
    retained_twice_bytes: float  # the same after the second window
    retained_twice_games: int  # games of both windows


@contextmanager
def _tracing() -> Iterator[Callable[[], int]]:
    """Trace allocations (unless the caller already does) and yield a reader of the traced total."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        yield lambda: tracemalloc.get_traced_memory()[0]
    finally:
        if started:
            tracemalloc.stop()


def _allocated(make: Callable[[], list[Any]]) -> tuple[float, int]:
    """Bytes ``make()``'s result holds (traced before and after, the result kept alive), and its length."""
    gc.collect()
    with _tracing() as traced:
        before = traced()
        made = make()
        after = traced()
    count = len(made)
    del made
    return (after - before) / count, count


def random_positions(game: Any, count: int, rng: np.random.Generator) -> list[Any]:
    """``count`` states, each at a uniformly drawn step of its own seeded random game."""
    check_game(game, "random_positions")
    check_count("count", count, 0)
    positions = []
    for _ in range(count):
        start = game.new_initial_state(np.random.default_rng(int(rng.integers(2**31))))
        state, actions = start.clone(), []
        while not state.is_terminal():
            legal = legal_indices(state.legal_mask())
            actions.append(int(legal[rng.integers(legal.size)]))
            state.apply(actions[-1])
        # replay to the drawn step (the clone carries the engine's generator: the same game)
        stop = int(rng.integers(len(actions) + 1))
        for action in actions[:stop]:
            start.apply(action)
        positions.append(start)
    return positions


def _env_cost(make_env: Callable[[], Any], seed: int, count: int = 5) -> tuple[float, int]:
    """Bytes of one env after ``reset``, and the bytes of one observation + mask."""
    warm = make_env()  # the first env fills module caches and class-level spaces
    warm.reset(seed=seed)
    obs = warm.observe(warm.agent_selection)
    obs_bytes = int(sum(np.asarray(v).nbytes for v in obs.values())) if isinstance(obs, dict) else obs.nbytes

    def make() -> list[Any]:
        envs = [make_env() for _ in range(count)]
        for i, e in enumerate(envs):
            e.reset(seed=seed + 1 + i)
        return envs

    per_env, _ = _allocated(make)
    warm.close()
    return per_env, obs_bytes


def _retained(make_env: Callable[[], Any], seconds: float, seed: int) -> tuple[float, int, float, int]:
    """Random games through one env, traced from its first ``reset``: the bytes held after
    ``seconds`` of play and the games played, then the same after as many seconds more."""
    run = aec_game_runner(make_env)
    rng = np.random.default_rng(seed)

    def window() -> int:
        games, end = 0, time.perf_counter() + seconds
        while games < 2 or time.perf_counter() < end:
            run(rng)
            games += 1
        gc.collect()
        return games

    gc.collect()
    with _tracing() as traced:
        start = traced()
        first = window()
        middle = traced()
        second = window()
        end = traced()
    return middle - start, first, end - start, first + second


def measure_memory(
    name: str, params: dict[str, Any], seconds: float, seed: int = 0, positions: int = 30
) -> MemoryRow:
    """One row of ``eightfold bench --memory`` for a game config, in this process (the
    retained memory first, from whatever caches the process holds)."""
    check_seconds(seconds)
    check_count("seed", seed, 0)
    check_count("positions", positions, 1)
    entry = get_game(name)
    make_env = functools.partial(entry.env, **params)
    held = _retained(make_env, seconds, seed)
    env_bytes, obs_bytes = _env_cost(make_env, seed)
    states = random_positions(entry.game_class()(**params), positions, np.random.default_rng(seed))
    state_bytes, _ = _allocated(lambda: [s.clone() for s in states for _ in range(5)])
    return MemoryRow(config_label(name, params), state_bytes, env_bytes, obs_bytes, *held)


def measure_reference(seconds: float, seed: int = 0) -> MemoryRow | None:
    """The ``connect_four_v3`` row (no engine state: ``state_bytes`` is None), or None without pygame."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # connect_four needs pygame (the train and dev extras)
        return None
    held = _retained(connect_four_v3.env, seconds, seed)
    env_bytes, obs_bytes = _env_cost(connect_four_v3.env, seed)
    return MemoryRow("pettingzoo connect_four_v3 (reference)", None, env_bytes, obs_bytes, *held)


def _fresh(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a fresh (spawned) process: module caches empty, nothing traced before."""
    with worker_pool(1, multiprocessing.get_context("spawn")) as pool:  # Ctrl-C: ended now, not after its row
        with sigint_ignored():  # the worker starts with Ctrl-C ignored: no traceback while it imports
            future = pool.submit(fn, *args)
        return future.result()


def run_memory_bench(
    games: list[str] | None, seconds: float, seed: int = 0, on_row: Callable[[MemoryRow], None] | None = None
) -> list[MemoryRow]:
    """Every config of ``games`` (default: all installed), after the ``connect_four_v3``
    reference: one fresh process a row, one at a time. ``on_row`` is called with each row as
    soon as it is measured. An unknown game name raises ``ValueError`` naming the known ones,
    before anything is measured; so are a bare string for ``games`` and ``seconds`` or ``seed``
    out of range."""
    check_games(games)
    check_seconds(seconds)
    check_count("seed", seed, 0)
    names = [get_game(n).name for n in games] if games else installed_games()
    rows: list[MemoryRow] = []

    def add(row: MemoryRow | None) -> None:
        if row is not None:
            rows.append(row)
            if on_row is not None:
                on_row(row)

    add(_fresh(measure_reference, seconds, seed))
    for name in names:
        for params in bench_configs(name):
            add(_fresh(measure_memory, name, params, seconds, seed))
    return rows


def format_memory_rows(rows: list[MemoryRow]) -> str:
    head = (
        f"{'game / config':58s} {'state KiB':>9s} {'env KiB':>8s} {'obs+mask B':>10s}"
        f" {'retained KiB (after games)':>27s} {'twice as long':>21s}"
    )
    return "\n".join([head, "-" * len(head), *map(format_memory_row, rows)])


def format_memory_row(r: MemoryRow) -> str:
    state = "-" if r.state_bytes is None else f"{r.state_bytes / 1024:.1f}"
    first = f"{r.retained_bytes / 1024:,.1f} ({r.retained_games:,d})"
    second = f"{r.retained_twice_bytes / 1024:,.1f} ({r.retained_twice_games:,d})"
    return f"{r.name:58s} {state:>9s} {r.env_bytes / 1024:8.1f} {r.observation_bytes:10,d} {first:>27s} {second:>21s}"
