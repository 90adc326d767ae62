"""A policy trained with ``eightfold train --backend rllib`` as a player.

:class:`RLlibPolicy` has the interface of the bots and of the SB3 ``PolicyPlayer``
(``act(state, player, rng) -> int``, ``probabilities(state, seat)``), so ``eval`` and
``play --vs`` can use an RLlib run like any other opponent::

    player = RLlibPolicy.load("runs/over_and_out", game)   # the run directory (or its checkpoint/)
    action = player.act(state, seat, rng)

``path`` is the run directory (with ``eightfold_rllib.json``) or its ``checkpoint/``.
Loading needs the ``rllib`` extra but no running Ray instance. The module sees exactly
what it saw in training (:func:`training.rllib.env.encode_observation`); sampling uses
the caller's numpy ``rng``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from envs.core.game import Game, GameState
from training.players import ProbabilityPlayer
from training.rllib.common import CHECKPOINT_DIR, MAIN, find_run_dir, is_rllib_spec, read_meta

__all__ = ["RLlibPolicy", "is_rllib_spec", "read_meta"]
from training.rllib.env import encode_observation


class RLlibPolicy(ProbabilityPlayer):
    """A frozen RLlib ``RLModule`` that picks legal actions from the engine state."""

    def __init__(self, module: Any, game: Game[Any, Any], deterministic: bool = False, name: str = "rllib"):
        space = getattr(module, "observation_space", None)
        if space is not None and hasattr(space, "spaces"):
            size = int(np.prod(game.observation_shape))
            trained = (int(space["observations"].shape[0]), int(space["action_mask"].shape[0]))
            if trained != (size, game.num_actions):
                raise ValueError(
                    f"policy {name!r} was trained on {trained[0]} observation values / {trained[1]} actions, "
                    f"but this game config has {size} / {game.num_actions}: pass the same --param values"
                )
        module.eval()
        self.module = module
        self.game = game
        self.deterministic = deterministic
        self.name = name

    @classmethod
    def load(
        cls, path: str | Path, game: Game[Any, Any] | None = None, deterministic: bool = False
    ) -> RLlibPolicy:
        """Load the ``main`` module of the run at ``path``; ``game`` defaults to the trained config."""
        from ray.rllib.core.rl_module.rl_module import RLModule

        meta = read_meta(path)
        run_dir = find_run_dir(path)
        assert run_dir is not None
        module_dir = (
            run_dir / CHECKPOINT_DIR / "learner_group" / "learner" / "rl_module" / meta.get("module", MAIN)
        )
        if not module_dir.is_dir():
            if (run_dir / f"{CHECKPOINT_DIR}.old").is_dir() and not (run_dir / CHECKPOINT_DIR).exists():
                raise ValueError(
                    f"{str(run_dir)!r} was stopped while saving: its last whole checkpoint is "
                    f"{CHECKPOINT_DIR}.old/ (eightfold train --backend rllib --resume puts it back, or "
                    f"rename it to {CHECKPOINT_DIR}/)"
                )
            raise ValueError(f"no RLlib module checkpoint at {str(module_dir)!r}")
        if game is None:
            from envs.core.registry import get_game

            game = get_game(meta["game"]).game_class()(**meta.get("params", {}))
        assert game is not None
        # RLlib reads a checkpoint path as a URI: a relative one has no scheme and fails
        module = RLModule.from_checkpoint(str(module_dir.resolve()))
        return cls(module, game, deterministic, name=str(run_dir))

    def probabilities(self, state: GameState, seat: int) -> np.ndarray:
        """Masked action probabilities of the policy for ``seat`` (the seat to act)."""
        import torch
        from ray.rllib.core.columns import Columns

        obs = encode_observation(self.game, state, seat, to_act=True)
        batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
            probs = torch.softmax(logits.double(), dim=-1).numpy()
        mask = obs["action_mask"] > 0
        if not mask.any():
            raise ValueError("no legal action: the game is over or it is not this seat's turn")
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        out: np.ndarray = probs / total if total > 0 else mask / mask.sum()
        return out
