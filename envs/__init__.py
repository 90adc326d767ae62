"""eightfold: PettingZoo AEC environments for Octi, Over and Out, OTTO Game Over and
Otto the Octopus.

``import envs`` registers ``eightfold/<game>-v0`` with PettingZoo::

    import envs, pettingzoo
    env = pettingzoo.make("aec", "eightfold/octi-v0")

or import a game module directly: ``from envs import octi_v0; env = octi_v0.env()``.
"""

from __future__ import annotations

from envs.core.registry import GAMES, get_game, register_all

__all__ = ["GAMES", "get_game", "register_all"]
__version__ = "0.1.0"

register_all()
