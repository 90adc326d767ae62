"""OTTO Game Over (placeholder doc page, completed below)."""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.otto_game_over.game import OttoGameOverGame


class raw_env(EightfoldAECEnv):  # noqa: N801  (PettingZoo naming)
    game_class = OttoGameOverGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "otto_game_over_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
    }


env = make_env_factory(raw_env)
