"""Golden playthroughs (OpenSpiel style): a seeded random game through ``env()``, printed
step by step with observations, masks (as notation), rewards and flags.

``python -m tests.golden.regenerate`` writes them to ``tests/golden/``; the conformance
harness diffs a fresh run against each file, so any change of rules, encoding or
seeding shows up as a readable diff.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from envs.core.registry import get_game

#: steps whose observation is printed in full (sparse); later ones as a digest
FULL_OBS_STEPS = 8


def config_id(params: dict[str, Any]) -> str:
    """Stable file-name fragment of a parameter dict (``default`` for ``{}``)."""
    if not params:
        return "default"
    parts = []
    for k in sorted(params):
        v = params[k]
        text = json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)
        parts.append(f"{k}={text}")
    safe = "_".join(parts)
    return "".join(c if c.isalnum() or c in "=_.-" else "-" for c in safe)


def _sparse(obs: np.ndarray) -> str:
    flat = obs.reshape(-1)
    nz = np.flatnonzero(flat)
    return " ".join(f"{int(i)}:{float(flat[i]):.4g}" for i in nz)


def _digest(obs: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(obs, dtype=np.float32).tobytes()).hexdigest()[:16]


def playthrough(game_name: str, params: dict[str, Any], seed: int = 0, max_steps: int = 400) -> str:
    """Text of a seeded random game (actions uniform among the legal ones, from ``seed``)."""
    entry = get_game(game_name)
    env = entry.env(**params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [
        f"# golden playthrough: {entry.env_id} params={json.dumps(params, sort_keys=True)} seed={seed}",
        "# regenerate: python -m tests.golden.regenerate",
        f"agents: {env.possible_agents}",
        f"observation shape: {env.observation_space(env.possible_agents[0])['observation'].shape}",
        f"actions: {env.action_space(env.possible_agents[0]).n}",
    ]
    step = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        if term or trunc:
            lines.append(f"[{step}] {agent} done reward={reward:+.6g} term={term} trunc={trunc}")
            env.step(None)
            step += 1
            continue
        o = obs["observation"]
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        raw = env.unwrapped
        names = [raw.action_to_string(int(a)) for a in legal]
        action = int(legal[rng.integers(legal.size)])
        lines.append(
            f"[{step}] {agent} reward={reward:+.6g} legal({legal.size})={names[:40]}{' ...' if legal.size > 40 else ''}"
        )
        if step < FULL_OBS_STEPS:
            lines.append(f"    obs: {_sparse(o)}")
        else:
            lines.append(f"    obs sha256: {_digest(o)}")
        lines.append(f"    play: {action} = {raw.action_to_string(action)}")
        env.step(action)
        step += 1
        if step >= max_steps:
            lines.append(f"# stopped after {max_steps} steps")
            break
    lines.append(f"final returns: {[round(float(x), 6) for x in env.unwrapped.state.returns()]}")
    return "\n".join(lines) + "\n"
