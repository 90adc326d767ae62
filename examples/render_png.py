"""Render a position to PNG: play some seeded random moves, then save the frame.

python examples/render_png.py octi 20 octi.png
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from envs.core.draw import save_png
from envs.core.registry import get_game

try:  # an unknown game, a bad step count or output is named, without a traceback (exit 2)
    if len(sys.argv) > 4:
        raise ValueError(f"expected [game] [steps] [out.png], got {len(sys.argv) - 1} arguments")
    entry = get_game(sys.argv[1] if len(sys.argv) > 1 else "octi")
    text = sys.argv[2] if len(sys.argv) > 2 else "20"
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"steps must be an integer >= 0, got {text!r}")
    steps = int(text)
    out = sys.argv[3] if len(sys.argv) > 3 else f"{entry.name}.png"
    if Path(out).is_dir():
        raise ValueError(f"out {out!r} is a directory; give a .png file name")
except ValueError as exc:
    print(f"render_png.py: error: {exc}", file=sys.stderr)
    raise SystemExit(2) from None

env = entry.env(render_mode="rgb_array")
env.reset(seed=0)
rng = np.random.default_rng([0, 1])  # apart from the deal's stream, default_rng(0)
played = 0
while played < steps and not env.unwrapped.state.is_terminal():
    obs, _, term, trunc, _ = env.last()
    if term or trunc:  # a knocked-out seat's dead step (Over and Out); the game goes on
        env.step(None)
        continue
    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    played += 1
frame = env.render()  # uint8[H, W, 3]
save_png(frame, out)
print(env.unwrapped.game.render_ansi(env.unwrapped.state))
print(f"wrote {out}")
