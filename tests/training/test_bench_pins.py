"""Tests closing gaps found by mutation testing of ``eightfold bench`` (``training.bench``,
``training.memory``, ``training.throughput``): the arithmetic that turns counts and seconds
into the reported steps/s, games/s, ratios, env shares and KiB, the JSON fields they go to,
and what each row measures (random play, the config it names, every step counted).

No test here depends on the machine's speed: clocks are replaced by fake ones that advance
by known amounts, and the expensive measurements by recorders returning known numbers."""

from __future__ import annotations

import importlib.util
import json
import tracemalloc
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import training.bench as bench
import training.memory as memory
import training.throughput as tp
from envs.core.game import legal_indices
from envs.core.registry import GAMES, get_game
from tests.training.toy_game import ToyGame
from training.config import TrainConfig


class _Clock:
    """A fake ``time`` module: ``perf_counter`` reads ``now``, advanced by the test (or by
    ``tick`` at each read)."""

    def __init__(self, tick: float = 0.0) -> None:
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        value = self.now
        self.now += self.tick
        return value


# ------------------------------------------------------------------ bench: the timing loop
def test_time_loop_divides_steps_and_games_by_the_measured_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games of 10, 20, 30, ... steps, each read of the clock 0.25 s later: with 0.9 s asked
    the loop stops after 4 games at 1.0 s, so 100 steps/s and 4 games/s. Dividing by the
    seconds asked, swapping the two rates or counting a game too many all report wrong rates."""
    clock = _Clock(tick=0.25)
    monkeypatch.setattr(bench, "time", clock)
    lengths = iter(range(10, 1000, 10))
    steps_per_s, games_per_s = bench._time_loop(lambda rng: next(lengths), 0.9, 0)
    assert steps_per_s == pytest.approx(100.0) and games_per_s == pytest.approx(4.0)


def test_time_loop_plays_the_games_its_seed_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--seed`` decides the random games: the same seed draws the same games, another seed
    others (an unseeded generator would make two runs' rows measure different games)."""

    def draws(seed: int) -> list[int]:
        monkeypatch.setattr(bench, "time", _Clock(tick=0.25))
        seen: list[int] = []

        def run_game(rng: np.random.Generator) -> int:
            seen.append(int(rng.integers(1_000_000)))
            return 1

        bench._time_loop(run_game, 1.0, seed)
        return seen

    assert draws(7) == draws(7) and draws(7) != draws(8)


class _CountingEnv:
    """A real AEC env whose ``step`` calls are counted (and whose chosen actions are kept)."""

    def __init__(self, env: Any) -> None:
        self.env, self.steps, self.actions = env, 0, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def step(self, action: int | None) -> None:
        self.steps += 1
        if action is not None:
            self.actions.append(action)
        self.env.step(action)


def test_aec_runner_counts_every_step_call_and_plays_at_random() -> None:
    """agent-steps/s counts every ``step`` call, the dead steps of a finished game included
    (as the docstring says), and the moves are uniformly random legal moves (a runner that
    always played the first legal move would time one scripted game over and over)."""
    from pettingzoo.classic import connect_four_v3

    envs: list[_CountingEnv] = []

    def make() -> _CountingEnv:
        envs.append(_CountingEnv(connect_four_v3.env()))
        return envs[-1]

    run = bench.aec_game_runner(make)
    rng = np.random.default_rng(3)
    counts, lengths = [], set()
    for _ in range(8):
        before = envs[0].steps
        n = run(rng)
        counts.append((n, envs[0].steps - before))
        lengths.add(n)
    assert all(n == stepped for n, stepped in counts), counts
    assert len(lengths) > 1  # random play: games of different lengths
    assert len(set(envs[0].actions)) == 7  # every column played


def test_aec_runner_games_follow_the_generator() -> None:
    """The env is reset with a seed drawn from the run's generator: the same generator plays
    the same games (a game whose chance is drawn at reset, Over and Out's deal, included)."""
    entry = get_game("over_and_out")
    runs = []
    for _ in range(2):
        run = bench.aec_game_runner(lambda: entry.env(num_players=2))
        rng = np.random.default_rng(13)
        runs.append([run(rng) for _ in range(4)])
    assert runs[0] == runs[1]


class _CountingState:
    """An engine state whose ``apply`` calls are counted and whose choices are kept."""

    def __init__(self, state: Any, log: list[tuple[int, np.ndarray]]) -> None:
        self.state, self.log = state, log

    def is_terminal(self) -> bool:
        return bool(self.state.is_terminal())

    def legal_mask(self) -> np.ndarray:
        mask: np.ndarray = self.state.legal_mask()
        return mask

    def apply(self, action: int) -> None:
        self.log.append((action, legal_indices(self.state.legal_mask())))
        self.state.apply(action)


def test_engine_runner_counts_each_apply_once_and_plays_at_random() -> None:
    """The engine rows count one agent-step per ``apply`` and choose uniformly among the legal
    moves (neither always the first nor always the last)."""
    game = get_game("over_and_out").game_class()(num_players=2)
    log: list[tuple[int, np.ndarray]] = []

    class Wrapped:
        def new_initial_state(self, rng: np.random.Generator) -> _CountingState:
            return _CountingState(game.new_initial_state(rng), log)

    run = bench.engine_game_runner(Wrapped())
    rng = np.random.default_rng(5)
    for _ in range(3):
        before = len(log)
        assert run(rng) == len(log) - before
    choices = [(a, legal) for a, legal in log if legal.size > 1]
    assert any(a != legal[0] for a, legal in choices) and any(a != legal[-1] for a, legal in choices)


def test_openspiel_runner_counts_each_action_and_plays_at_random() -> None:
    """The ``pyspiel`` rows: one agent-step per ``apply_action``, random legal moves."""
    pytest.importorskip("pyspiel")
    import envs.core.openspiel as eos

    spiel = eos.load_game("over_and_out", num_players=2)
    log: list[tuple[int, list[int]]] = []

    class Counting:
        def __init__(self, state: Any) -> None:
            self.state = state

        def is_terminal(self) -> bool:
            return bool(self.state.is_terminal())

        def legal_actions(self) -> list[int]:
            return list(self.state.legal_actions())

        def apply_action(self, action: int) -> None:
            log.append((action, list(self.state.legal_actions())))
            self.state.apply_action(action)

    class Wrapped:
        def new_initial_state(self) -> Counting:
            return Counting(spiel.new_initial_state())

    run = bench.openspiel_game_runner(Wrapped())
    rng = np.random.default_rng(5)
    for _ in range(3):
        before = len(log)
        assert run(rng) == len(log) - before
    choices = [(a, legal) for a, legal in log if len(legal) > 1]
    assert any(a != legal[0] for a, legal in choices) and any(a != legal[-1] for a, legal in choices)


# ------------------------------------------------------------------ bench: the rows
def test_run_bench_rows_modes_and_ratios_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each timed loop returns known rates (the n-th: n x 100 steps/s, n games/s): the rows
    come in order (reference, then env() and engine per config), each labelled with its mode,
    every loop gets the run's seconds and seed, and ``x ref`` is the row's steps/s over the
    reference's steps/s (1.0 for the reference itself), not games/s, nor inverted."""
    calls: list[tuple[str, float, int]] = []

    def loop(run_game: Any, seconds: float, seed: int) -> tuple[float, float]:
        calls.append((run_game.__qualname__.split(".")[0], seconds, seed))
        n = len(calls)
        return 100.0 * n, float(n)

    monkeypatch.setattr(bench, "_time_loop", loop)
    rows = bench.run_bench(["over_and_out"], 0.7, seed=11)
    configs = bench.bench_configs("over_and_out")
    assert [(r.name, r.mode) for r in rows] == [("pettingzoo connect_four_v3 (reference)", "env()")] + [
        (bench.config_label("over_and_out", c), mode) for c in configs for mode in ("env()", "engine")
    ]
    assert [c[0] for c in calls] == ["aec_game_runner"] + ["aec_game_runner", "engine_game_runner"] * len(
        configs
    )
    assert {c[1:] for c in calls} == {(0.7, 11)}
    for n, row in enumerate(rows, start=1):
        assert (row.steps_per_s, row.games_per_s) == (100.0 * n, float(n))
        assert row.ratio == pytest.approx(float(n))


def test_without_the_reference_the_ratio_is_null_and_the_json_strict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without pygame there is no connect_four_v3 row: each row's ratio is ``None``, shown as
    ``-`` and written as JSON ``null`` (a bare ``NaN`` token, Python's default, makes the whole
    file unreadable to jq or ``JSON.parse``)."""
    from training.cli import main

    monkeypatch.setattr(bench, "reference_runner", lambda: None)
    monkeypatch.setattr(bench, "_time_loop", lambda run_game, seconds, seed: (200.0, 2.0))
    out = tmp_path / "bench.json"
    assert main(["bench", "--games", "over_and_out", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "no reference row" in printed and "nan" not in printed.lower()
    assert all(line.rstrip().endswith(" -") for line in printed.splitlines() if " engine " in line)
    rows = json.loads(out.read_text(), parse_constant=lambda token: pytest.fail(f"JSON holds {token}"))
    assert rows and all(r["ratio"] is None for r in rows)


def test_run_bench_measures_the_config_each_row_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """A golden config's env(), engine and pyspiel rows play that config (a row labelled
    ``num_players=3`` that played the default 4-player game would be a silent substitution)."""
    seen: dict[str, list[int]] = {"env()": [], "engine": [], "pyspiel": []}
    aec, engine, spiel = bench.aec_game_runner, bench.engine_game_runner, bench.openspiel_game_runner

    def aec_spy(make_env: Any) -> Any:
        seen["env()"].append(len(make_env().possible_agents))
        return aec(make_env)

    def engine_spy(game: Any) -> Any:
        seen["engine"].append(game.num_players)
        return engine(game)

    def spiel_spy(game: Any) -> Any:
        seen["pyspiel"].append(game.num_players())
        return spiel(game)

    monkeypatch.setattr(bench, "aec_game_runner", aec_spy)
    monkeypatch.setattr(bench, "engine_game_runner", engine_spy)
    monkeypatch.setattr(bench, "openspiel_game_runner", spiel_spy)
    monkeypatch.setattr(bench, "_time_loop", lambda run_game, seconds, seed: (1.0, 1.0))
    monkeypatch.setattr(bench, "reference_runner", lambda: None)
    openspiel = importlib.util.find_spec("pyspiel") is not None
    rows = bench.run_bench(["over_and_out"], 0.1, openspiel=openspiel)
    players = [
        get_game("over_and_out").game_class()(**c).num_players for c in bench.bench_configs("over_and_out")
    ]
    assert players == [4, 2, 3]
    assert seen["env()"] == players and seen["engine"] == players
    if openspiel:
        assert seen["pyspiel"] == players
    assert len(rows) == len(players) * (3 if openspiel else 2)


@pytest.mark.parametrize("which", ["speed", "memory"])
def test_bench_names_a_game_by_any_of_its_names_and_refuses_an_unknown_one_before_measuring(
    which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_bench`` and ``run_memory_bench`` take a game's env id or module name as
    ``get_game`` does (rows labelled by its short name), and an unknown name raises
    ``ValueError`` naming the known games before anything is measured (it was a bare
    ``KeyError`` after the reference row's seconds)."""
    measured: list[str] = []
    monkeypatch.setattr(
        bench, "_time_loop", lambda run_game, seconds, seed: measured.append("loop") or (1.0, 1.0)
    )
    monkeypatch.setattr(memory, "_fresh", lambda fn, *args: measured.append(fn.__name__))
    run = bench.run_bench if which == "speed" else memory.run_memory_bench
    with pytest.raises(ValueError, match=r"unknown game 'nope'; known: \['octi', "):
        run(["over_and_out", "nope"], 0.1)
    assert measured == []
    run(["eightfold/over_and_out-v0"], 0.1)
    if which == "speed":
        assert measured == ["loop"] * (1 + 2 * len(bench.bench_configs("over_and_out")))
    else:
        assert measured == ["measure_reference"] + ["measure_memory"] * len(
            bench.bench_configs("over_and_out")
        )
    assert bench.bench_configs("envs.over_and_out_v0") == bench.bench_configs("over_and_out")


def test_bench_configs_default_first_and_each_golden_config_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default config first, then each declared golden config once: a config declared
    twice is measured once."""
    cls = GAMES["over_and_out"].game_class()
    monkeypatch.setattr(
        cls, "golden_configs", ({"num_players": 2}, {}, {"num_players": 2}, {"num_players": 3})
    )
    assert bench.bench_configs("over_and_out") == [{}, {"num_players": 2}, {"num_players": 3}]


def test_config_label_and_row_format() -> None:
    """Row names (also the JSON's ``name``) read ``game k=v,k=v``; the table prints steps/s,
    then games/s, then the ratio, each in its column."""
    assert bench.config_label("octi", {}) == "octi"
    assert (
        bench.config_label("octi", {"variant": "x_fast", "max_turns": 60})
        == "octi variant=x_fast,max_turns=60"
    )
    line = bench.format_row(bench.Row("octi", "engine", 123456.7, 89.3, 2.5))
    assert line.split()[-4:] == ["engine", "123,457", "89.3", "2.50"]
    head, rule = bench.format_rows([]).splitlines()
    assert head.index("agent-steps/s") < head.index("games/s") < head.index("x ref") and len(rule) == len(
        head
    )


def test_learner_bench_passes_every_option_and_writes_the_result_as_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eightfold bench --learner``: ``--param``, ``--policy`` and ``--set`` reach the
    measurement (none silently dropped), the table is printed and ``--json`` holds the result
    itself (the numbers, not the printed text)."""
    seen: dict[str, Any] = {}
    result = _result()

    def fake(env: str, params: dict[str, Any], timesteps: int, **kwargs: Any) -> dict[str, Any]:
        seen.update(env=env, params=params, timesteps=timesteps, **kwargs)
        return result

    monkeypatch.setattr(tp, "run_learner_bench", fake)
    out = tmp_path / "learner.json"
    code = bench.learner_bench(
        "over_and_out", ["num_players=3"], 640, str(out), policy="sb3", settings=["net_arch=[8]", "n_envs=2"]
    )
    assert code == 0
    assert seen == {
        "env": "over_and_out",
        "params": {"num_players": 3},
        "timesteps": 640,
        "policy": "sb3",
        "settings": {"net_arch": [8], "n_envs": 2},
    }
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    assert tp.format_result(result) in capsys.readouterr().out
    with pytest.raises(ValueError, match="--set"):
        bench.learner_bench("over_and_out", [], 64, None, settings=["net_arch"])


# ------------------------------------------------------------------ memory
def test_allocated_reports_what_the_result_holds_not_the_peak() -> None:
    """A ``make`` that builds a large temporary and keeps a small list: the bytes held per item
    are the small ones (the traced *current* size, not the peak)."""

    def make() -> list[Any]:
        scratch = np.ones(4_000_000, dtype=np.uint8)
        del scratch
        return [np.zeros(1000, dtype=np.uint8) for _ in range(4)]

    per_item, count = memory._allocated(make)
    assert count == 4 and 1000 <= per_item < 2000


def test_tracing_leaves_the_callers_tracing_as_it_found_it() -> None:
    """Measuring starts and stops tracemalloc only if the caller was not tracing: it leaves no
    tracing on behind it (slowing what follows), and does not stop a caller's."""
    assert not tracemalloc.is_tracing()
    memory._allocated(lambda: [bytearray(10)])
    assert not tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        memory._allocated(lambda: [bytearray(10)])
        assert tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def test_random_positions_include_the_start_and_the_end_of_a_game() -> None:
    """The step of each position is drawn uniformly from 0 to the game's length, both ends
    included: over short games, some positions are terminal and some are not, and some are
    the initial position."""
    game = ToyGame(num_players=1, target=4)
    positions = memory.random_positions(game, 60, np.random.default_rng(0))
    terminal = [s.is_terminal() for s in positions]
    assert any(terminal) and not all(terminal)
    assert any(s.adds == 0 for s in positions)  # the initial position (no move made)


def test_random_positions_come_from_games_of_their_own() -> None:
    """Each position's game starts from its own generator (its own deal, for a game with chance
    at the start), drawn from the run's: not every game from one seed."""
    import copy

    cls = get_game("over_and_out").game_class()
    firsts: list[int] = []

    class Watched(cls):  # type: ignore[misc, valid-type]
        def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> Any:
            firsts.append(int(copy.deepcopy(rng).integers(2**62)))
            return super().new_initial_state(rng, options)

    memory.random_positions(Watched(num_players=2), 5, np.random.default_rng(2))
    assert len(set(firsts)) == 5


class _SizedEnv:
    """Just enough of an AEC env for the memory rows: 40,000 bytes when built, 20,000 more at
    ``reset``; its observation is 84 float32 + 7 int8."""

    possible_agents = ["player_0", "player_1"]

    def __init__(self) -> None:
        self.built = bytearray(40_000)
        self.n = 0
        self.mask = np.ones(7, dtype=np.int8)

    def reset(self, seed: int | None = None) -> None:
        self.state = bytearray(20_000)
        self.agent_selection = "player_0"
        self.n = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": np.zeros(84, dtype=np.float32), "action_mask": self.mask}

    def agent_iter(self) -> Any:
        while self.n < 3:
            yield self.agent_selection

    def last(self) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        return self.observe(self.agent_selection), 0.0, False, False, {}

    def step(self, action: int | None) -> None:
        self.n += 1

    def close(self) -> None:
        pass


def test_env_cost_is_per_env_after_reset() -> None:
    """``env KiB`` is the cost of one env after its ``reset`` (all the envs built are kept and
    divided by their number), and ``obs+mask B`` the bytes of one observation and mask."""
    per_env, obs_bytes = memory._env_cost(_SizedEnv, seed=0)
    assert 60_000 <= per_env < 62_000
    assert obs_bytes == 84 * 4 + 7


def test_retained_windows_count_their_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each clock read 1 s later: a window of 3.5 s plays 5 games (2 before the first read,
    then until the clock passes the end), the second as many, and the report gives the first
    window's games and both windows' together; a window shorter than a game still plays 2."""
    monkeypatch.setattr(memory, "time", _Clock(tick=1.0))
    first, games, twice, total = memory._retained(_SizedEnv, 3.5, 0)
    assert (games, total) == (5, 10)
    first, games, twice, total = memory._retained(_SizedEnv, 0.5, 0)
    assert (games, total) == (2, 4)


def test_measure_memory_measures_the_named_config_for_the_whole_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every number of a config's row (retained, env, state) is measured on that config, the
    retained one for the ``--seconds`` asked, and each lands in its own field."""
    seen: dict[str, Any] = {}

    def retained(make_env: Any, seconds: float, seed: int) -> tuple[float, int, float, int]:
        seen["retained"] = (len(make_env().possible_agents), seconds, seed)
        return 1000.0, 3, 5000.0, 7

    positions = memory.random_positions

    def random_positions(game: Any, count: int, rng: np.random.Generator) -> list[Any]:
        seen["state"] = game.num_players
        return positions(game, count, rng)

    monkeypatch.setattr(memory, "_retained", retained)
    monkeypatch.setattr(memory, "random_positions", random_positions)
    row = memory.measure_memory("over_and_out", {"num_players": 3}, 2.5, seed=4, positions=2)
    assert seen == {"retained": (3, 2.5, 4), "state": 3}
    assert row.name == "over_and_out num_players=3"
    assert (row.retained_bytes, row.retained_games, row.retained_twice_bytes, row.retained_twice_games) == (
        1000.0,
        3,
        5000.0,
        7,
    )
    assert row.observation_bytes == 60 * 4 + 12 and row.env_bytes > row.observation_bytes


def test_run_memory_bench_rows_in_fresh_processes_shown_as_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference row first, then each config, every row measured through ``_fresh`` (a
    fresh process) with the run's seconds and seed, and each handed to ``on_row`` as it comes
    (the command line prints it then)."""
    fresh: list[tuple[str, tuple[Any, ...]]] = []

    def row(name: str) -> memory.MemoryRow:
        return memory.MemoryRow(name, 1.0, 2.0, 3, 4.0, 2, 5.0, 4)

    def measure_reference(seconds: float, seed: int = 0) -> memory.MemoryRow:
        return row("reference")

    def measure_memory(name: str, params: dict[str, Any], seconds: float, seed: int = 0) -> memory.MemoryRow:
        return row(bench.config_label(name, params))

    def in_process(fn: Any, *args: Any) -> Any:
        fresh.append((fn.__name__, args))
        return fn(*args)

    monkeypatch.setattr(memory, "measure_reference", measure_reference)
    monkeypatch.setattr(memory, "measure_memory", measure_memory)
    monkeypatch.setattr(memory, "_fresh", in_process)
    shown: list[memory.MemoryRow] = []
    rows = memory.run_memory_bench(["over_and_out"], 0.3, 9, on_row=shown.append)
    names = ["reference"] + [
        bench.config_label("over_and_out", c) for c in bench.bench_configs("over_and_out")
    ]
    assert [r.name for r in rows] == names and shown == rows
    assert fresh[0] == ("measure_reference", (0.3, 9))
    assert [f[0] for f in fresh[1:]] == ["measure_memory"] * 3 and all(
        f[1][2:] == (0.3, 9) for f in fresh[1:]
    )


def test_memory_row_format_in_kib() -> None:
    """State and env in KiB (1,024 bytes), obs+mask in bytes, retained in KiB with the games of
    its own window: the first window's beside the first number, both windows' beside the second."""
    r = memory.MemoryRow("octi", 5120.0, 10240.0, 1234, 4096.0, 7, 8192.0, 15)
    assert memory.format_memory_row(r).split()[1:] == ["5.0", "10.0", "1,234", "4.0", "(7)", "8.0", "(15)"]
    ref = memory.MemoryRow("pettingzoo", None, 1024.0, 1, 0.0, 2, 0.0, 4)
    assert memory.format_memory_row(ref).split()[1] == "-"


# ------------------------------------------------------------------ throughput: the envs
def test_connect_four_view_seats_and_rewards() -> None:
    """The reference learner plays either seat (drawn per seeded reset) against a uniformly
    random opponent, and is paid the game's result at the end: +1 for a win, -1 for a loss."""
    env = tp.ConnectFourView(planes=False)
    opponent: list[bool] = []  # per opponent move: was it the first legal column?

    class Watched(_CountingEnv):
        def step(self, action: int | None) -> None:
            if action is not None and self.env.agent_selection != env.me:
                opponent.append(
                    action
                    == int(np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])[0])
                )
            super().step(action)

    env.aec = Watched(env.aec)
    seats, rewards = set(), []
    rng = np.random.default_rng(0)
    for seed in range(12):
        env.reset(seed=seed)
        seats.add(env.me)
        done, reward = False, 0.0
        while not done:
            _o, reward, done, _t, _i = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(reward)
    assert seats == {"player_0", "player_1"}
    assert set(rewards) <= {-1.0, 0.0, 1.0} and {-1.0, 1.0} <= set(rewards)
    assert not all(opponent)  # a random opponent, not a scripted one


def test_null_view_seeded_resets_start_at_different_places_and_unseeded_ones_move_on() -> None:
    """The vectorised null envs (seeds s, s + 1, ...) replay different stretches of the
    recorded decisions; an unseeded reset goes on to the next decision (not the last one again)."""
    obs = [np.full(2, i, dtype=np.float32) for i in range(16)]
    masks = [np.array([True, i % 2 == 0]) for i in range(16)]
    env = tp.NullView(obs, masks, 2)
    starts = {int(env.reset(seed=s)[0][0]) for s in range(8)}
    assert len(starts) > 1
    first = int(env.reset(seed=0)[0][0])
    last = int(env.step(0)[0][0])
    assert last == (first + 1) % 16
    assert int(env.reset()[0][0]) == (last + 1) % 16


def test_record_decisions_plays_random_legal_moves() -> None:
    """The null env replays decisions of *random* play: the recorder does not always play the
    first legal move."""
    from envs.core.bots import RandomBot
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    game = get_game("over_and_out").game_class()(num_players=2)
    played: list[tuple[int, int]] = []

    class Recording(gym.Wrapper[Any, Any, Any, Any]):
        def action_masks(self) -> np.ndarray:
            mask: np.ndarray = self.env.action_masks()  # type: ignore[attr-defined]
            return mask

        def step(self, action: Any) -> Any:
            played.append((int(action), int(np.flatnonzero(self.env.action_masks())[0])))  # type: ignore[attr-defined]
            return self.env.step(action)

    env = Recording(SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game))))
    obs, masks = tp.record_decisions(env, 40, seed=1)
    assert len(obs) == len(masks) == 40
    assert any(a != first for a, first in played)
    again, _ = tp.record_decisions(env, 40, seed=1)  # seeded: the same decisions
    assert all(np.array_equal(a, b) for a, b in zip(obs, again, strict=True))


# ------------------------------------------------------------------ throughput: the numbers
class _Costly(tp.NullView):
    """A null env whose calls advance the fake clock: ``step`` 1 s, ``action_masks`` 0.5 s,
    ``reset`` 0.25 s."""

    clock: _Clock

    def action_masks(self) -> np.ndarray:
        self.clock.now += 0.5
        return super().action_masks()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.clock.now += 0.25
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> Any:
        self.clock.now += 1.0
        return super().step(action)


def test_learn_rate_is_steps_run_over_wall_time_and_the_env_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the env advances the (fake) clock: all of ``learn()``'s wall time is env time, so
    the env share is 1.0 (every call timed: reset, step, action_masks) and the rate is the
    steps ``learn()`` ran (whole rollouts: 64 for 50 asked) over that time, on ``n_envs`` envs."""
    clock = _Clock()
    monkeypatch.setattr(tp, "time", clock)
    _Costly.clock = clock
    made: list[_Costly] = []
    obs = [np.full(4, i, dtype=np.float32) for i in range(8)]
    masks = [np.array([True, True, i % 2 == 0]) for i in range(8)]

    def make() -> _Costly:
        made.append(_Costly(obs, masks, 3))
        return made[-1]

    cfg = TrainConfig(n_envs=2, n_steps=32, batch_size=32, n_epochs=1, net_arch=[8])
    rate, share = tp._learn_rate(cfg, make, 50, (4,))
    assert len(made) == 2
    assert clock.now > 64.0  # 64 steps of 1 s at least
    assert rate == pytest.approx(64 / clock.now) and share == pytest.approx(1.0)


def _result() -> dict[str, Any]:
    """A learner-benchmark result with distinct numbers everywhere."""
    return {
        "env": "eightfold/over_and_out-v0",
        "params": {"num_players": 2},
        "timesteps": 1000,
        "steps_run": 2048,
        "n_envs": 8,
        "network": "MLP",
        "cnn_channels": None,
        "policy": "masked",
        "net_arch": [128, 128],
        "vf_arch": None,
        "game_steps_per_s": 1500.0,
        "connect_four_steps_per_s": 3000.0,
        "ratio": 0.5,
        "null_env_steps_per_s": 6000.0,
        "ratio_to_null_env": 0.25,
        "game_env_share": 0.42,
        "connect_four_env_share": 0.17,
        "n_actions": 12,
        "all": {"game": [1400.0, 1500.0], "ref": [3000.0] * 2, "null": [6000.0] * 2},
        "env_shares": {"game": [0.4, 0.42], "ref": [0.17] * 2, "null": [0.01] * 2},
    }


def test_format_result_puts_each_number_in_its_place() -> None:
    """The printed summary: the steps each measurement ran, best of how many repeats, each
    row's env share, the ratio and the part of the null-env ceiling the game keeps."""
    text = tp.format_result(_result())
    assert "2,048 steps, best of 2)" in text
    assert "1,500 steps/s (42% of learn() time in the env)" in text
    assert "3,000 steps/s (17% in the env)" in text
    assert "ratio: 0.50x" in text
    assert "6,000 steps/s; the game keeps 0.25x of it" in text


def test_run_learner_bench_reports_the_best_repeat_of_each_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Known rates per row and repeat: each row reports its best repeat and the env share of
    that repeat; the game row measures the game, the reference row connect_four_v3 (with the
    same kind of network), the null row a :class:`NullView` of ``NULL_RECORDED`` decisions;
    ``--param`` wins over the config's params; ``steps_run`` is whole rollouts."""
    script = {
        "game": [(100.0, 0.6), (300.0, 0.7), (200.0, 0.8)],
        "ref": [(900.0, 0.1), (600.0, 0.2), (700.0, 0.3)],
        "null": [(50.0, 0.01), (80.0, 0.02), (400.0, 0.03)],
    }
    calls: dict[str, int] = {"game": 0, "ref": 0, "null": 0}
    shapes: dict[str, tuple[int, ...]] = {}
    players: list[int] = []

    def learn_rate(cfg: Any, make: Any, timesteps: int, obs_shape: tuple[int, ...]) -> tuple[float, float]:
        env = make()
        if isinstance(env, tp.ConnectFourView):
            key = "ref"
        elif isinstance(env, tp.NullView):
            key = "null"
            assert len(env._obs) == tp.NULL_RECORDED
        else:
            key = "game"
            players.append(env.unwrapped.game.num_players)
        shapes[key] = tuple(obs_shape)
        out = script[key][calls[key]]
        calls[key] += 1
        return out

    monkeypatch.setattr(tp, "_learn_rate", learn_rate)
    r = tp.run_learner_bench(
        "over_and_out",
        {"num_players": 3},
        timesteps=1000,
        repeats=3,
        settings={"n_envs": 2, "n_steps": 64, "batch_size": 64},
    )
    assert calls == {"game": 3, "ref": 3, "null": 3} and set(players) == {3}
    assert shapes == {"game": (60,), "ref": (84,), "null": (60,)} and r["network"] == "MLP"
    assert (r["game_steps_per_s"], r["connect_four_steps_per_s"], r["null_env_steps_per_s"]) == (
        300.0,
        900.0,
        400.0,
    )
    assert (r["game_env_share"], r["connect_four_env_share"]) == (0.7, 0.1)
    assert r["ratio"] == pytest.approx(1 / 3, abs=1e-3) and r["ratio_to_null_env"] == 0.75
    assert r["params"] == {"num_players": 3} and r["n_envs"] == 2
    assert r["steps_run"] == 1024  # 1000 asked: 8 rollouts of 2 x 64
    assert r["all"] == {k: [rate for rate, _ in v] for k, v in script.items()}


def test_run_learner_bench_gives_a_planes_game_a_cnn_on_both_sides(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game with planes (Octi) is measured with a CNN, and so is connect_four_v3: planes
    ``(2, 6, 7)``, not a flat vector."""
    shapes: list[tuple[int, ...]] = []

    def learn_rate(cfg: Any, make: Any, timesteps: int, obs_shape: tuple[int, ...]) -> tuple[float, float]:
        shapes.append(tuple(obs_shape))
        return 1.0, 0.5

    monkeypatch.setattr(tp, "_learn_rate", learn_rate)
    monkeypatch.setattr(tp, "NULL_RECORDED", 4)
    r = tp.run_learner_bench("octi", {}, timesteps=64, repeats=1)
    assert r["network"] == "CNN" and shapes[0] == (2, 6, 7) and len(shapes[1]) == 3


def test_throughput_main_passes_repeats_and_exits_2_on_a_bad_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m training.throughput``: ``--repeats`` reaches the measurement, and a bad
    value is a usage error (exit 2) naming it."""
    seen: list[tuple[Any, ...]] = []

    def fake(*args: Any) -> dict[str, Any]:
        seen.append(args)
        return _result()

    monkeypatch.setattr(tp, "run_learner_bench", fake)
    assert tp.main(["over_and_out", "--param", "num_players=3", "--timesteps", "77", "--repeats", "5"]) == 0
    assert seen[0][:4] == ("over_and_out", {"num_players": 3}, 77, 5)

    def bad(*args: Any) -> dict[str, Any]:
        raise ValueError("policy must be one of ['masked', 'sb3'], got 'fast'")

    monkeypatch.setattr(tp, "run_learner_bench", bad)
    assert tp.main(["over_and_out", "--policy", "fast"]) == 2
    assert "training.throughput: error: policy must be one of" in capsys.readouterr().err


def test_run_learner_bench_sets_the_configs_torch_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark runs torch with the config's ``torch_threads`` (as ``eightfold train``
    does), whatever the process had before: rates measured with another thread count compare
    nothing."""
    import torch

    monkeypatch.setattr(tp, "_learn_rate", lambda cfg, make, timesteps, obs_shape: (1.0, 0.5))
    monkeypatch.setattr(tp, "NULL_RECORDED", 4)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        tp.run_learner_bench("over_and_out", {}, timesteps=64, repeats=1, settings={"torch_threads": 3})
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(threads)


def test_run_learner_bench_validates_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``--set`` value the training config refuses (``gamma=2``) is an error naming it, not a
    measurement of a run ``eightfold train`` would not start."""
    monkeypatch.setattr(tp, "_learn_rate", lambda cfg, make, timesteps, obs_shape: (1.0, 0.5))
    monkeypatch.setattr(tp, "NULL_RECORDED", 4)
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 1\], got 2"):
        tp.run_learner_bench("over_and_out", {}, timesteps=64, repeats=1, settings={"gamma": 2})
