"""eightfold: PettingZoo AEC environments for Octi, Over and Out, OTTO Game Over and
Otto the Octopus.

``import envs`` registers ``eightfold/<game>-v0`` with PettingZoo::

    import envs, pettingzoo
    env = pettingzoo.make("aec", "eightfold/octi-v0")

or import a game module directly: ``from envs import octi_v0; env = octi_v0.env()``. The
game modules are attributes too, imported at first use as ``pettingzoo.classic.chess_v6`` is:
``import envs; envs.octi_v0.env()``.

The registry (documented as :mod:`envs.core.registry`, which re-exports it) lives here, so that
this package imports none of its own modules: a package whose ``__init__`` imports one of its
modules deadlocks when threads of a fresh process import it and that module at once (Python
takes a module's import lock before it imports the module's package).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["GAMES", "NAMESPACE", "GameEntry", "get_game", "installed_games", "register_all"]
__version__ = "0.1.0"

NAMESPACE = "eightfold"


@dataclass(frozen=True)
class GameEntry:
    """Where one game lives."""

    name: str
    title: str
    players: str

    @property
    def env_id(self) -> str:
        return f"{NAMESPACE}/{self.name}-v0"

    @property
    def env_module(self) -> str:
        return f"envs.{self.name}_v0"

    def game_class(self) -> Any:
        return importlib.import_module(f"envs.{self.name}.env").raw_env.game_class

    def raw_env_class(self) -> Any:
        return importlib.import_module(f"envs.{self.name}.env").raw_env

    def env(self, **kwargs: Any) -> Any:
        return importlib.import_module(self.env_module).env(**kwargs)

    def bots(self) -> dict[str, Any]:
        bots: dict[str, Any] = importlib.import_module(f"envs.{self.name}.bots").BOTS
        return bots


GAMES: dict[str, GameEntry] = {
    g.name: g
    for g in (
        GameEntry("octi", "Octi (basic 6x7, Octi-X fast, Octi-X classic)", "2"),
        GameEntry("over_and_out", "Over and Out (card game)", "2-8"),
        GameEntry("otto_game_over", "OTTO Game Over (tile laying, secret cards)", "1-4, 2v2"),
        GameEntry("otto_octopus", "Otto the Octopus (tile laying, fish)", "1-4"),
    )
}


def get_game(name_or_id: str) -> GameEntry:
    """Look a game up by short name (``octi``), env id (``eightfold/octi-v0``) or module name
    (``octi_v0``, ``envs.octi_v0``)."""
    if not isinstance(name_or_id, str):
        raise ValueError(
            f"a game is named by a string such as 'octi' or 'eightfold/octi-v0', got {name_or_id!r}"
        )
    key = name_or_id.strip()
    key = key.removeprefix("envs.")
    if key.startswith(NAMESPACE + "/"):
        key = key[len(NAMESPACE) + 1 :]
    if key.endswith("-v0") or key.endswith("_v0"):
        key = key[:-3]
    if key not in GAMES:
        raise ValueError(f"unknown game {name_or_id!r}; known: {sorted(GAMES)}")
    return GAMES[key]


def register_all() -> None:
    """Register every env id with PettingZoo (idempotent)."""
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return
    registry = getattr(pettingzoo, "aec_registry", {})
    for g in GAMES.values():
        if g.env_id in registry:
            continue
        pettingzoo.register("aec", g.env_id, entry_point=f"{g.env_module}:env")


def installed_games() -> list[str]:
    """Names of the games whose package is present (all four in a complete install)."""
    import importlib.util

    out = []
    for name in GAMES:
        if importlib.util.find_spec(f"envs.{name}") is not None and importlib.util.find_spec(
            f"envs.{name}.env"
        ):
            out.append(name)
    return out


register_all()


def __getattr__(name: str) -> ModuleType:
    """``envs.<game>_v0`` imports that game's module at first use (the games stay unimported
    until one is asked for); another name is an ``AttributeError``, naming the game modules when
    it looks like one (``octi_v1``, ``otto``)."""
    modules = _game_modules()
    if name in modules:
        return importlib.import_module(f"{__name__}.{name}")
    hint = ""
    if name and any(name.startswith(g) or g.startswith(name) for g in GAMES):
        hint = f" (the game modules are {', '.join(modules)})"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}{hint}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_game_modules()})


def _game_modules() -> list[str]:
    """The game modules' names in this package: ``octi_v0``, ..."""
    return [g.env_module.rpartition(".")[2] for g in GAMES.values()]
