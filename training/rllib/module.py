"""PPO's default torch RLModule with action masking (RLlib new API stack).

The env's observation is ``{"observations": float32[D], "action_mask": float32[A]}``.
The networks (encoder, policy and value heads) are built for the ``observations`` part
only; the mask is applied to the policy logits (illegal actions get a logit near
``-inf``), in inference, exploration and training alike, so the PPO ratio and entropy
are those of the masked distribution. The idea is the one of RLlib's own
``ActionMaskingTorchRLModule`` example; this module is kept here because that example
builds on a deprecated base class.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):  # type: ignore[misc]
    """``DefaultPPOTorchRLModule`` over a ``Dict(observations, action_mask)`` space."""

    def __init__(self, *, observation_space: gym.Space[Any] | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            OBS_KEY,
            MASK_KEY,
        }:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict({OBS_KEY!r}, {MASK_KEY!r}) observation space, "
                f"got {observation_space}"
            )
        # Plain attribute (not a torch parameter), so it may be set before Module.__init__.
        self._full_observation_space = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()  # builds the networks for the inner observation space
        # Checkpoints record the constructor arguments from this attribute: keep the full space.
        self.observation_space = self._full_observation_space

    # ------------------------------------------------------------------ forward
    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = _split(batch)
        return _mask_logits(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = _split(batch)
        return _mask_logits(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch.get(Columns.OBS), dict):
            batch, _ = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
    """A shallow copy of ``batch`` whose observation is the inner tensor, and the mask."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict) or MASK_KEY not in obs or OBS_KEY not in obs:
        raise ValueError(f"expected observations as a dict with keys {OBS_KEY!r} and {MASK_KEY!r}")
    inner = dict(batch)
    inner[Columns.OBS] = obs[OBS_KEY]
    return inner, obs[MASK_KEY]


def _mask_logits(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = logits + torch.clamp(torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)
    return out
