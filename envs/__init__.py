"""eightfold: PettingZoo AEC environments for Octi, Over and Out, OTTO Game Over and
Otto the Octopus.

``import envs`` registers ``eightfold/<game>-v0`` with PettingZoo::

    import envs, pettingzoo
    env = pettingzoo.make("aec", "eightfold/octi-v0")

or import a game module directly: ``from envs import octi_v0; env = octi_v0.env()``. The
game modules are attributes too, imported at first use as ``pettingzoo.classic.chess_v6`` is:
``import envs; envs.octi_v0.env()``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from envs.core.registry import GAMES, get_game, register_all

__all__ = ["GAMES", "get_game", "register_all"]
__version__ = "0.1.0"

register_all()


def __getattr__(name: str) -> ModuleType:
    """``envs.<game>_v0`` imports that game's module at first use (the games stay unimported
    until one is asked for); another name is an ``AttributeError``, naming the game modules when
    it looks like one (``octi_v1``, ``otto``)."""
    modules = [g.env_module.rpartition(".")[2] for g in GAMES.values()]
    if name in modules:
        return importlib.import_module(f"{__name__}.{name}")
    hint = ""
    if name and any(name.startswith(g) or g.startswith(name) for g in GAMES):
        hint = f" (the game modules are {', '.join(modules)})"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}{hint}")


def __dir__() -> list[str]:
    return sorted({*globals(), *(g.env_module.rpartition(".")[2] for g in GAMES.values())})
