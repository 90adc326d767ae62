"""eightfold training and evaluation: the single-agent view, MaskablePPO training,
self-play, tournaments and the ``eightfold`` command line.

``import training`` registers the single-agent view of every game with Gymnasium::

    import gymnasium, training
    env = gymnasium.make("eightfold/otto_octopus-single-v0", opponents=["heuristic"], num_players=2)

The package imports none of its modules: each id's entry point is the string
``training.single_agent:view_of_<game>``, imported by ``gymnasium.make``. (A package whose
``__init__`` imports its own modules can deadlock when threads of a fresh process import two
of them at once: Python takes a module's import lock before importing its package.)
"""

from __future__ import annotations

import gymnasium as gym

from envs.core.registry import GAMES, NAMESPACE

#: the ids' entry points are the strings ``training.single_agent:view_of_<game>`` (a string keeps
#: a spec JSON-serialisable), which that module's ``__getattr__`` resolves to ``ViewOf(<game>)``
VIEW_OF = "view_of_"


def register_gymnasium() -> None:
    """Register ``eightfold/<game>-single-v0`` with Gymnasium for every game (idempotent;
    ``import training`` calls it). ``gymnasium.make`` passes its keywords to
    :func:`training.single_agent.make_env` through ``training.single_agent.ViewOf``."""
    for name in GAMES:
        env_id = f"{NAMESPACE}/{name}-single-v0"
        if env_id not in gym.registry:
            gym.register(env_id, entry_point=f"training.single_agent:{VIEW_OF}{name}", kwargs={"game": name})


register_gymnasium()
