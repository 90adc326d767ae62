"""The AEC loop with action masks and seeding: random legal play in any eightfold env.

python examples/random_play.py octi
python examples/random_play.py over_and_out num_players=4
"""

from __future__ import annotations

import sys

import numpy as np
import pettingzoo

import envs  # noqa: F401  (registers eightfold/<game>-v0 with PettingZoo)
from envs.core.registry import get_game
from training.params import parse_params

try:  # an unknown game or a bad parameter is named, without a traceback
    game = get_game(sys.argv[1] if len(sys.argv) > 1 else "over_and_out").name
    params = parse_params(sys.argv[2:], flag="parameter")
    env = pettingzoo.make("aec", f"eightfold/{game}-v0", **params)
except ValueError as exc:  # exit 2: a usage error
    print(f"random_play.py: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None
env.reset(seed=42)  # the same seed gives the same game
rng = np.random.default_rng([42, 1])  # seed your policy too, apart from the deal's default_rng(42)

for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None  # PettingZoo's dead step
    else:
        mask = observation["action_mask"]  # int8, 1 = legal
        action = int(rng.choice(np.flatnonzero(mask)))
        print(f"{agent}: {env.unwrapped.action_to_string(action)}")
    env.step(action)

print("returns:", env.unwrapped.state.returns())
env.close()
