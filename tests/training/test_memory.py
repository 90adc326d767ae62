"""``eightfold bench --memory`` (``training.memory``): its measurements measure what they say
(a known allocation, an injected leak), as smoke runs with tiny budgets; the numbers of the
games themselves are benchmarks (README, "Speed")."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import numpy as np

from envs.core.registry import get_game
from training.memory import _allocated, _retained, format_memory_rows, measure_memory, random_positions

LEAKED: list[bytearray] = []
LEAK_BYTES = 10_000


class _TinyEnv:
    """Just enough of an AEC env for the benchmark's random-game runner: three steps a game."""

    def __init__(self, leak: bool) -> None:
        self.leak, self.n = leak, 0
        self.mask = np.ones(2, dtype=np.int8)

    def reset(self, seed: int | None = None) -> None:
        self.n = 0
        if self.leak:
            LEAKED.append(bytearray(LEAK_BYTES))

    def agent_iter(self) -> Any:
        while self.n < 3:
            yield "player_0"

    def last(self) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        return {"action_mask": self.mask}, 0.0, False, False, {}

    def step(self, action: int | None) -> None:
        self.n += 1


def test_allocated_counts_numpy_buffers_per_item() -> None:
    per_item, count = _allocated(lambda: [np.zeros(100_000, dtype=np.uint8) for _ in range(8)])
    assert count == 8
    assert 100_000 <= per_item < 101_000


def test_retained_grows_with_a_leak_and_not_without() -> None:
    LEAKED.clear()
    first, games, twice, total = _retained(lambda: _TinyEnv(leak=True), 0.05, 0)
    assert games >= 2 and total > games
    assert first >= LEAK_BYTES * games and twice >= LEAK_BYTES * total  # in proportion to the games
    LEAKED.clear()
    first, games, twice, total = _retained(lambda: _TinyEnv(leak=False), 0.05, 0)
    assert first < LEAK_BYTES and twice < LEAK_BYTES


def test_random_positions_are_seeded_and_spread_over_the_game() -> None:
    game = get_game("over_and_out").game_class()(num_players=2)
    a = random_positions(game, 6, np.random.default_rng(4))
    b = random_positions(game, 6, np.random.default_rng(4))
    assert [s.to_dict() for s in a] == [s.to_dict() for s in b]
    assert len({json.dumps(s.to_dict(), sort_keys=True) for s in a}) > 1


def test_measure_memory_row_of_a_game() -> None:
    row = measure_memory("over_and_out", {"num_players": 2}, 0.05, positions=4)
    assert row.name == "over_and_out num_players=2"
    assert row.observation_bytes == 60 * 4 + 12  # float32[60] + int8[12]
    assert row.state_bytes is not None and 500 < row.state_bytes < row.env_bytes < 1_000_000
    assert row.retained_games >= 2 and row.retained_twice_games > row.retained_games
    assert "over_and_out num_players=2" in format_memory_rows([row])


def test_bench_memory_command_writes_rows_from_fresh_processes(tmp_path: Any) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "training.cli", "bench", "--games", "over_and_out", "--seconds", "0.05"]
        + ["--memory", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "state KiB" in proc.stdout and "retained KiB" in proc.stdout
    memory = [r for r in json.loads(out.read_text()) if r["mode"] == "memory"]
    assert [r["name"].split()[0] for r in memory] == [
        "pettingzoo",
        "over_and_out",
        "over_and_out",
        "over_and_out",
    ]
    assert all(r["observation_bytes"] > 0 and r["env_bytes"] > 0 for r in memory)
    assert memory[0]["state_bytes"] is None and all(r["state_bytes"] > 0 for r in memory[1:])
