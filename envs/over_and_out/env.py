"""Over and Out — ``eightfold/over_and_out-v0`` (doc page; filled in below)."""

from __future__ import annotations

from typing import Any, ClassVar

from envs.core.aec import EightfoldAECEnv, make_env_factory
from envs.over_and_out.game import OverAndOutGame


class raw_env(EightfoldAECEnv):
    """Over and Out as a PettingZoo AEC environment (see the module docstring)."""

    game_class = OverAndOutGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "over_and_out_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
    }

    def _update_after_move(self) -> None:
        # Core workaround: when the step that eliminates a player also truncates the game
        # (spec OAO-S12), the core marks every remaining agent truncated; the eliminated
        # one is terminated (OAO-41), only the players still in are truncated (spec §5).
        super()._update_after_move()
        state = self.state
        if state.is_truncated():
            out = state.eliminated()
            for a in self.agents:
                if self._seat_of[a] in out:
                    self.truncations[a] = False
                    self.terminations[a] = True


env = make_env_factory(raw_env)
