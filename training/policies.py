"""Policy networks for MaskablePPO, chosen by the observation's shape.

* 3-D board planes ``(C, H, W)`` (Octi): :class:`BoardCNN` - a few 3x3 convolutions with
  "same" padding (the boards are small, so no pooling and no stride), flattened into a
  linear layer; actor and critic heads (MLPs of ``net_arch``) sit on top.
* anything else (vectors, Over and Out, Otto): flattened into MLP heads ``net_arch``.

The observations are already in [0, 1] (or the game's declared bounds), so no image
normalisation is applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class BoardCNN(BaseFeaturesExtractor):
    """Convolutions over ``(C, H, W)`` planes, then one linear layer to ``features_dim``."""

    def __init__(
        self, observation_space: spaces.Box, features_dim: int = 256, channels: Sequence[int] = (64, 64)
    ) -> None:
        super().__init__(observation_space, features_dim)
        c, h, w = observation_space.shape
        layers: list[nn.Module] = []
        prev = c
        for ch in channels:
            layers += [nn.Conv2d(prev, ch, kernel_size=3, padding=1), nn.ReLU()]
            prev = ch
        self.convs = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(prev * h * w, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.linear(self.convs(observations))
        return out


def policy_kwargs(
    obs_shape: Sequence[int],
    net_arch: Sequence[int] = (256, 256),
    cnn_channels: Sequence[int] = (64, 64),
    features_dim: int = 256,
) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` suited to ``obs_shape``."""
    kwargs: dict[str, Any] = {"net_arch": {"pi": list(net_arch), "vf": list(net_arch)}}
    if len(obs_shape) == 3:
        kwargs.update(
            features_extractor_class=BoardCNN,
            features_extractor_kwargs={"features_dim": features_dim, "channels": list(cnn_channels)},
            normalize_images=False,
        )
    return kwargs


def describe(obs_shape: Sequence[int], net_arch: Sequence[int], cnn_channels: Sequence[int]) -> str:
    if len(obs_shape) == 3:
        return f"CNN {list(cnn_channels)} over {tuple(obs_shape)} planes + MLP heads {list(net_arch)}"
    return f"MLP {list(net_arch)} over {tuple(obs_shape)}"
