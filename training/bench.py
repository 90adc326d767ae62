"""``eightfold bench``: agent-steps/s and games/s of random play, through ``env()`` and on
the engine alone, with PettingZoo classic ``connect_four_v3`` measured in the same run as
the reference (ratios hold on a noisy machine)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.files import write_text
from envs.core.game import legal_indices
from envs.core.registry import GAMES, get_game, installed_games


@dataclass
class Row:
    name: str
    mode: str
    steps_per_s: float
    games_per_s: float
    ratio: float | None = None  # to the reference row; None without it (no pygame)


def _time_loop(
    run_game: Callable[[np.random.Generator], int], seconds: float, seed: int
) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += run_game(rng)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed, games / elapsed


def aec_game_runner(make_env: Callable[[], Any]) -> Callable[[np.random.Generator], int]:
    """One random game through an AEC env; counts every ``step`` call (dead steps included)."""
    env = make_env()

    def run(rng: np.random.Generator) -> int:
        env.reset(seed=int(rng.integers(2**31)))
        n = 0
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = legal_indices(obs["action_mask"])  # the driver's own scan: cheap on any mask
                env.step(int(legal[rng.integers(legal.size)]))
            n += 1
        return n

    return run


def engine_game_runner(game: Any) -> Callable[[np.random.Generator], int]:
    """One random game on the engine: ``legal_mask`` + ``apply`` per step."""

    def run(rng: np.random.Generator) -> int:
        state = game.new_initial_state(np.random.default_rng(int(rng.integers(2**31))))
        n = 0
        while not state.is_terminal():
            legal = legal_indices(state.legal_mask())
            state.apply(int(legal[rng.integers(legal.size)]))
            n += 1
        return n

    return run


def openspiel_game_runner(game: Any) -> Callable[[np.random.Generator], int]:
    """One random game through the OpenSpiel adapter (``envs.core.openspiel``):
    ``legal_actions`` + ``apply_action`` on a ``pyspiel`` state per step."""

    def run(rng: np.random.Generator) -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            n += 1
        return n

    return run


def reference_runner() -> Callable[[np.random.Generator], int] | None:
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # connect_four needs pygame (the train and dev extras)
        return None
    return aec_game_runner(connect_four_v3.env)


def bench_configs(name: str) -> list[dict[str, Any]]:
    """Default config plus each declared golden (variant) config."""
    configs: list[dict[str, Any]] = [{}]
    for c in get_game(name).game_class().golden_configs:
        if c and dict(c) not in configs:
            configs.append(dict(c))
    return configs


def check_count(name: str, value: Any, low: int) -> None:
    """``ValueError`` unless ``value`` is an int ``>= low`` (the command line's ``int_at_least`` wording)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def check_seconds(value: Any, name: str = "seconds") -> None:
    """``ValueError`` unless ``value`` is a finite number ``> 0`` (``float_at_least(0, strict=True)``'s wording)."""
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number > 0, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a number > 0, got {value}")


def check_games(games: Any) -> None:
    """``ValueError`` unless ``games`` is None (every installed game) or a list of game names."""
    if isinstance(games, str):
        raise ValueError(f"games must be a list of game names, got the string {games!r} (write [{games!r}])")
    if games is not None and (
        not isinstance(games, (list, tuple)) or not all(isinstance(g, str) for g in games)
    ):
        raise ValueError(f"games must be a list of game names (or None: all), got {games!r}")


def config_label(name: str, params: dict[str, Any]) -> str:
    """A row's name: the game, then its parameters (``octi variant=x_fast,max_turns=60``)."""
    return name + ("" if not params else " " + ",".join(f"{k}={v}" for k, v in params.items()))


def run_bench(
    games: list[str] | None,
    seconds: float,
    seed: int = 0,
    openspiel: bool = False,
    on_row: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Rows of random play per game and config: through ``env()``, on the engine, and with
    ``openspiel`` through the OpenSpiel adapter (``pyspiel``; the ``openspiel`` extra).
    ``on_row`` is called with each row as soon as it is measured (the command line prints it,
    so a run stopped early has shown what it measured). An unknown game name raises
    ``ValueError`` naming the known ones, before anything is measured; so are a bare string for
    ``games`` and ``seconds`` or ``seed`` out of range."""
    check_games(games)
    check_seconds(seconds)
    check_count("seed", seed, 0)
    names = [get_game(n).name for n in games] if games else installed_games()
    eos: Any = None
    if openspiel:
        try:
            import envs.core.openspiel as eos
        except ImportError as exc:
            raise ValueError(f"--openspiel: {exc}") from None
    rows: list[Row] = []

    def add(row: Row) -> None:
        rows.append(row)
        if on_row is not None:
            on_row(row)

    ref = reference_runner()
    ref_steps: float | None = None
    if ref is not None:
        sps, gps = _time_loop(ref, seconds, seed)
        ref_steps = sps
        add(Row("pettingzoo connect_four_v3 (reference)", "env()", sps, gps, 1.0))
    for name in names:
        entry = GAMES[name]
        for params in bench_configs(name):
            label = config_label(name, params)
            sps, gps = _time_loop(aec_game_runner(functools.partial(entry.env, **params)), seconds, seed)
            add(Row(label, "env()", sps, gps, _ratio(sps, ref_steps)))
            game = entry.game_class()(**params)
            sps, gps = _time_loop(engine_game_runner(game), seconds, seed)
            add(Row(label, "engine", sps, gps, _ratio(sps, ref_steps)))
            if eos is not None:
                spiel = eos.load_game(name, **params)
                sps, gps = _time_loop(openspiel_game_runner(spiel), seconds, seed)
                add(Row(label, "pyspiel", sps, gps, _ratio(sps, ref_steps)))
    return rows


def _ratio(steps_per_s: float, ref_steps: float | None) -> float | None:
    return None if ref_steps is None else steps_per_s / ref_steps


def format_rows(rows: list[Row]) -> str:
    """The table: a header line, a rule, then :func:`format_row` of each row."""
    head = f"{'game / config':58s} {'mode':7s} {'agent-steps/s':>14s} {'games/s':>10s} {'x ref':>7s}"
    return "\n".join([head, "-" * len(head), *map(format_row, rows)])


def format_row(r: Row) -> str:
    ratio = f"{r.ratio:7.2f}" if r.ratio is not None else f"{'-':>7s}"
    return f"{r.name:58s} {r.mode:7s} {r.steps_per_s:14,.0f} {r.games_per_s:10,.1f} {ratio}"


def learner_bench(
    env: str,
    params: list[str],
    timesteps: int,
    json_path: str | None = None,
    policy: str | None = None,
    settings: list[str] | None = None,
) -> int:
    """``eightfold bench --learner ENV``: see :mod:`training.throughput`."""
    import json

    from training.params import parse_params
    from training.throughput import format_result, run_learner_bench

    result = run_learner_bench(
        env,
        parse_params(params),
        timesteps,
        policy=policy,
        settings=parse_params(settings or [], flag="--set"),
    )
    print(format_result(result))
    if json_path:
        write_text(json_path, json.dumps(result, indent=2) + "\n")
    return 0
