"""Octi — PettingZoo AEC environment ``eightfold/octi-v0`` (DOC PAGE: filled in below)."""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.octi.game import OctiGame


class raw_env(EightfoldAECEnv):
    """Octi without the PettingZoo-classic wrappers (see the module docstring)."""

    game_class = OctiGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "octi_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
    }


env = make_env_factory(raw_env)
