"""The eightfold registry: every game, its env id, and PettingZoo registration.

``import envs`` registers each id of DESIGN.md with ``pettingzoo.register`` so that
``pettingzoo.make("aec", "eightfold/octi-v0")`` works. Games are imported lazily: a
name resolves to its module only when used.

The code lives in ``envs/__init__.py`` and this module re-exports it: ``import envs`` must
import none of the package's own modules, or threads of a fresh process importing ``envs`` and
one of its modules at once deadlock (Python takes a module's import lock before it imports the
module's package).
"""

from __future__ import annotations

from envs import GAMES, NAMESPACE, GameEntry, get_game, installed_games, register_all

__all__ = ["GAMES", "NAMESPACE", "GameEntry", "get_game", "installed_games", "register_all"]
