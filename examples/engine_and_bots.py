"""The engine layer without PettingZoo: states, clone, notation, bots and a seat-rotated match.

python examples/engine_and_bots.py over_and_out
"""

from __future__ import annotations

import sys

import numpy as np

from envs.core.arena import play_match
from envs.core.bots import make_bot
from envs.core.registry import get_game

try:
    if len(sys.argv) > 2:
        raise ValueError(f"expected at most one argument, the game; got {sys.argv[1:]}")
    entry = get_game(sys.argv[1] if len(sys.argv) > 1 else "over_and_out")
except ValueError as exc:  # an unknown game is named, without a traceback (exit 2: a usage error)
    print(f"engine_and_bots.py: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None
name = entry.name
game = entry.game_class()(**({"num_players": 2} if name != "octi" else {}))

state = game.new_initial_state(np.random.default_rng(0))
print("to move:", state.current_player())
print("legal:", [state.action_to_string(a) for a in state.legal_actions()])
probe = state.clone()  # clones carry their RNG: they continue identically
probe.apply(probe.legal_actions()[0])
print("snapshot after one move on a clone:", probe.snapshot())

heuristic = make_bot(game, "heuristic", entry.bots())
random_bot = make_bot(game, "random", entry.bots())
print("heuristic vs random:", play_match(game, [heuristic, random_bot], games=100, seed=0))
