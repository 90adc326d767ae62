"""Otto the Octopus (doc page: filled in below)."""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.otto_octopus.game import OttoOctopusGame


class raw_env(EightfoldAECEnv):
    """Otto the Octopus as a PettingZoo AEC environment (see the module docstring)."""

    game_class = OttoOctopusGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "otto_octopus_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
    }


env = make_env_factory(raw_env)
