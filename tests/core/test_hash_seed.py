"""Reproducible everywhere: the same seeds give the same game, bot moves included, in processes
with different ``PYTHONHASHSEED`` (Python salts the hashes of strings per process, so any
engine or bot that iterated over a set or dict of strings in hash order would differ)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import hashlib
import numpy as np
from envs.core.bots import make_bot
from envs.core.registry import GAMES

for name in sorted(GAMES):
    entry = GAMES[name]
    game = entry.game_class()()
    for spec in ("heuristic", "mcts:sims=8"):
        players = [make_bot(game, spec, entry.bots()) for _ in range(game.num_players)]
        env = entry.env()
        env.reset(seed=7)
        rng = np.random.default_rng(3)
        moves = []
        for agent in env.agent_iter(max_iter=80):
            _obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.possible_agents.index(agent)
            moves.append(int(players[seat].act(env.unwrapped.state, seat, rng)))
            env.step(moves[-1])
        print(name, spec, hashlib.md5(str(moves).encode()).hexdigest())
"""


def _run(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=root, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_games_and_bots_do_not_depend_on_the_hash_seed() -> None:
    from envs.core.registry import GAMES

    first = _run("0")
    assert len(first.splitlines()) == 2 * len(GAMES)  # two bots a game
    assert _run("4242") == first
