"""``import envs; envs.octi_v0.env()``: the game modules are attributes of ``envs``, imported at
first use, as PettingZoo's ``pettingzoo.classic.chess_v6`` is."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import envs
from envs.core.registry import GAMES


def test_each_game_module_is_an_attribute_imported_at_first_use() -> None:
    """In a fresh interpreter ``import envs`` imports no game; ``envs.<game>_v0`` then imports
    that one, and its env plays. Old: ``AttributeError: module 'envs' has no attribute
    'octi_v0'`` unless ``from envs import octi_v0`` had run first."""
    code = (
        "import sys\n"
        "import envs\n"
        "names = [g.env_module for g in envs.GAMES.values()]\n"
        "assert not any(n in sys.modules for n in names), 'no game is imported by import envs'\n"
        "for n in names:\n"
        "    module = getattr(envs, n.rpartition('.')[2])\n"
        "    assert module is sys.modules[n]\n"
        "    e = module.env(); e.reset(seed=0)\n"
        "    assert e.agent_selection in e.possible_agents\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr


def test_the_attribute_is_the_module_an_import_gives(game_name: str) -> None:
    module_name = f"{game_name}_v0"
    assert getattr(envs, module_name) is importlib.import_module(GAMES[game_name].env_module)
    assert module_name in dir(envs)


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("octi_v1", " (the game modules are octi_v0, over_and_out_v0, otto_game_over_v0, otto_octopus_v0)"),
        ("otto", " (the game modules are octi_v0, over_and_out_v0, otto_game_over_v0, otto_octopus_v0)"),
        ("zzz", ""),
    ],
)
def test_another_name_is_an_attribute_error(name: str, hint: str) -> None:
    """Any other name is an ``AttributeError`` (so ``getattr(envs, name, default)`` and
    ``hasattr`` work), naming the game modules when the name starts like a game's."""
    with pytest.raises(AttributeError) as info:
        getattr(envs, name)
    assert str(info.value) == f"module 'envs' has no attribute {name!r}{hint}"
    assert getattr(envs, name, None) is None and not hasattr(envs, name)
