"""Policy networks for MaskablePPO, chosen by the observation's shape.

* 3-D board planes ``(C, H, W)`` (Octi): :class:`BoardCNN` - a few 3x3 convolutions with
  "same" padding (the boards are small, so no pooling and no stride), flattened into a
  linear layer; actor and critic heads (MLPs of ``net_arch``) sit on top.
* anything else (vectors, Over and Out, Otto): flattened into MLP heads ``net_arch``.

The observations are already in [0, 1] (or the game's declared bounds), so no image
normalisation is applied.

:class:`MaskedPolicy` is sb3-contrib's ``MaskableActorCriticPolicy`` with the same maths in
cheaper kernels (:class:`MaskedCategorical`). sb3-contrib masks a logit with -1e8 and
normalises with ``torch.distributions.Categorical``, whose ``logsumexp`` runs torch's CPU
``exp`` on every masked entry; ``exp`` of an input that far below -88 (a float32 underflow)
takes a slow path, 15-20 times the normal cost (measured: ``logsumexp`` of 512 x 5,228 logits,
95% masked, 40 ms against 3 ms unmasked, one thread). :class:`MaskedCategorical` normalises
with ``log_softmax`` / ``softmax`` (their kernels do not slow down), skips the argument
validation, and samples by inverse CDF (one uniform per row, ``cumsum`` and
``searchsorted``) instead of ``torch.multinomial`` (1.1 ms against 0.05 ms for 8 x 5,228);
it also uses torch's fused Adam.
Probabilities, log-probabilities, entropy and their gradients equal sb3-contrib's to float
rounding (``tests/training/test_policies.py``); samples follow the same distribution but are
not the same draws. With these kernels ``MaskablePPO.learn()`` ran 1.5-1.8 times as fast on
the two Otto games (``docs/results/SPEED.md``), and the behaviour-cloning fit gained alike.

One more exact shortcut, for wide action spaces: :class:`SupportCategorical` (from
``SUPPORT_MIN_ACTIONS`` actions on) computes only the logits of the actions legal somewhere in
the batch. OTTO Game Over has 5,228 actions and about 22 legal ones per decision, so a PPO
minibatch of 512 touches ~1,040 rows of the output layer and a rollout batch of 8 ~127, and
the learner runs about twice as fast (measured on the cost-free env with the game's recorded
masks). Its outputs and gradients are those of the dense layer to float rounding (tested
against sb3-contrib's policy with the same weights). Skipping the observation columns that are
zero throughout a minibatch (the observations are sparse one-hot planes) was tried as well and
dropped: the same kind of exact shortcut, its gain on the Otto games stayed inside the
benchmark's noise.

The rollout buffer that goes with it (:class:`MaskedRolloutBuffer`, through
:func:`algorithm_kwargs`) keeps the action masks as ``bool`` instead of sb3-contrib's
``float32``; nothing a run computes changes (tested: the same weights, draw for draw), and the
learner runs 6-13% faster on the two Otto games (``docs/results/SPEED.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

#: the logit a masked action gets (sb3-contrib's value): its probability is exactly 0 in float32
MASKED_LOGIT = -1e8


class BoardCNN(BaseFeaturesExtractor):
    """Convolutions over ``(C, H, W)`` planes, then one linear layer to ``features_dim`` (an int
    >= 1, else ``ValueError``)."""

    def __init__(
        self, observation_space: spaces.Box, features_dim: int = 256, channels: Sequence[int] = (64, 64)
    ) -> None:
        if (
            isinstance(features_dim, (bool, np.bool_))
            or not isinstance(features_dim, (int, np.integer))
            or features_dim < 1
        ):
            raise ValueError(f"BoardCNN: features_dim must be an int >= 1, got {features_dim!r}")
        features_dim = int(features_dim)
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


class MaskedCategorical:
    """A categorical distribution over the last axis of ``logits`` with action masking.

    The interface sb3-contrib's ``MaskableCategorical`` offers its callers: ``logits``
    (normalised log-probabilities; a masked action has about -1e8), ``probs`` (exactly 0 on
    masked actions), ``masks``, ``apply_masking``, ``log_prob``, ``entropy`` (masked actions
    contribute nothing) and ``sample``. ``logits`` and ``probs`` are computed once, when first
    asked for.
    """

    def __init__(self, logits: torch.Tensor) -> None:
        self._raw = logits
        self.masks: torch.Tensor | None = None
        self._set(logits)

    def _set(self, masked: torch.Tensor) -> None:
        self._masked = masked
        self._log_probs: torch.Tensor | None = None
        self._probs: torch.Tensor | None = None

    @property
    def logits(self) -> torch.Tensor:
        if self._log_probs is None:
            self._log_probs = torch.log_softmax(self._masked, dim=-1)
        return self._log_probs

    @property
    def probs(self) -> torch.Tensor:
        if self._probs is None:
            self._probs = torch.softmax(self._masked, dim=-1)
        return self._probs

    def apply_masking(self, masks: torch.Tensor | np.ndarray | None) -> None:
        """Keep the logits where ``masks`` is true; ``None`` removes any masking."""
        if masks is None:
            self.masks = None
            self._set(self._raw)
            return
        raw = self._raw
        self.masks = torch.as_tensor(masks, dtype=torch.bool, device=raw.device).reshape(raw.shape)
        self._set(
            torch.where(self.masks, raw, torch.tensor(MASKED_LOGIT, dtype=raw.dtype, device=raw.device))
        )

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        index = actions.long().reshape(*self._raw.shape[:-1], 1)
        return self.logits.gather(-1, index).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        p_log_p = self.logits * self.probs
        if self.masks is not None:
            p_log_p = torch.where(
                self.masks, p_log_p, torch.zeros((), dtype=p_log_p.dtype, device=p_log_p.device)
            )
        return -p_log_p.sum(-1)

    def mode(self) -> torch.Tensor:
        """The most likely action of each row (the first, on ties)."""
        return self.probs.argmax(-1)

    def set_log_prob(self, sets: torch.Tensor) -> torch.Tensor:
        """``log pi(set)`` per row: the log of the probability mass on the actions where the
        boolean ``sets`` (same shape as the logits) is true (``-inf`` for an empty set).

        ``logsumexp`` over the set, shifted by the set's largest log-probability, with the
        shifted values clamped to [-80, 0] before ``exp`` (whose CPU kernel slows down 15-20
        times on inputs far below float32's underflow; a term below e^-80 of the largest changes
        the sum by less than float32 resolves; only actions outside the set lie above 0) and
        the actions outside the set then zeroed. An empty set's row gets no gradient (zeros,
        not NaN, which would reach every weight through the batch's other rows)."""
        log_probs = self.logits
        top = log_probs.masked_fill(~sets, -torch.inf).amax(-1, keepdim=True)
        nonempty = torch.isfinite(top)
        top = torch.where(nonempty, top, torch.zeros((), dtype=top.dtype, device=top.device)).detach()
        terms = (log_probs - top).clamp(-80.0, 0.0).exp() * sets
        nonempty = nonempty.squeeze(-1)
        # an empty set's sum is 0: log(1) instead, so that its row's gradient is 0, not NaN
        total = torch.where(nonempty, terms.sum(-1), torch.ones((), dtype=terms.dtype, device=terms.device))
        out = top.squeeze(-1) + total.log()
        return torch.where(nonempty, out, torch.full_like(out, -torch.inf))

    def sample(self) -> torch.Tensor:
        """One action per row, by inverse CDF with torch's global generator (seeded by sb3)."""
        probs = self.probs.detach()
        cdf = probs.cumsum(-1)
        u = torch.rand((*probs.shape[:-1], 1), dtype=probs.dtype, device=probs.device) * cdf[..., -1:]
        n = probs.shape[-1]
        index = torch.searchsorted(cdf, u, right=True).clamp_(max=n - 1)
        # u * total may round up to the total: fall back to the last action with mass
        empty = probs.gather(-1, index) <= 0
        if bool(empty.any()):
            last = (n - 1) - (probs > 0).flip(-1).to(torch.int8).argmax(-1, keepdim=True)
            index = torch.where(empty, last, index)
        return index.squeeze(-1)


#: from this many actions on, :class:`MaskedPolicy` computes only the logits of the batch's
#: legal support (:class:`SupportCategorical`). Below it the few extra kernels cost more than
#: they save: on Otto the Octopus (1,106 actions, MLP 256) the learner ran 10% slower with it
#: (null-env medians of 3: 1,693 against 1,891 steps/s); OTTO Game Over (5,228) runs 2x faster
SUPPORT_MIN_ACTIONS = 2048


class SupportCategorical:
    """:class:`MaskedCategorical` over a wide action space, computed on the legal support only.

    Built from the actor's latent features and its output layer (``weight``, ``bias``) instead
    of the logits. :meth:`apply_masking` takes the union ``support`` of the actions legal in any
    row of the batch and evaluates the output layer on those rows of ``weight`` alone (a
    :class:`MaskedCategorical` over ``len(support)`` columns): a masked action's probability is
    exactly 0 and its gradient exactly 0 either way, so the probabilities, log-probabilities,
    entropy, samples (the inverse CDF sees the same cumulative sums) and every gradient are
    those of the dense layer, up to float rounding. In OTTO Game Over a minibatch of 512
    decisions has about 1,040 of the 5,228 actions in its support (8 rollout rows about 127);
    :class:`MaskedPolicy` uses it from ``SUPPORT_MIN_ACTIONS`` actions on, so not for Otto
    the Octopus (806 of its 1,106 actions per minibatch, where it did not pay).

    Without masks (``apply_masking(None)``), when a row has no legal action at all, or when
    the support holds more than half of the actions (the dense layer costs no more), it is the
    dense :class:`MaskedCategorical`. ``logits`` and ``probs`` are full width (actions
    outside the support get ``MASKED_LOGIT`` and 0) for callers that want them.
    """

    def __init__(self, latent: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> None:
        self._latent, self._weight, self._bias = latent, weight, bias
        self.n = int(weight.shape[0])
        self.masks: torch.Tensor | None = None
        self.support: torch.Tensor | None = None
        self._sub: MaskedCategorical | None = None  # built when masked, or first asked for

    @property
    def _inner(self) -> MaskedCategorical:
        if self._sub is None:
            self._sub = MaskedCategorical(nn.functional.linear(self._latent, self._weight, self._bias))
        return self._sub

    def apply_masking(self, masks: torch.Tensor | np.ndarray | None) -> None:
        latent, weight, bias = self._latent, self._weight, self._bias
        if masks is None:
            self.masks = self.support = self._sub = None
            return
        m = torch.as_tensor(masks, dtype=torch.bool, device=latent.device).reshape(-1, self.n)
        self.masks = m
        legal = m.view(torch.uint8)  # (torch's bool any() is 20x slower than a uint8 amax)
        if int(legal.amax(-1).min()) == 0:  # a row without a legal action: the dense maths
            self._dense(m)
            return
        support = legal.amax(0).nonzero().squeeze(-1)
        if 2 * support.numel() > self.n:  # most actions legal somewhere: the dense layer is as fast
            self._dense(m)
            return
        self.support = support
        sub_bias = None if bias is None else bias.index_select(0, support)
        self._sub = MaskedCategorical(nn.functional.linear(latent, weight.index_select(0, support), sub_bias))
        self._sub.apply_masking(m.index_select(-1, support))

    def _dense(self, masks: torch.Tensor) -> None:
        self.support = self._sub = None
        self._inner.apply_masking(masks)

    def _full(self, sub: torch.Tensor, fill: float) -> torch.Tensor:
        if self.support is None:
            return sub
        out = torch.full((sub.shape[0], self.n), fill, dtype=sub.dtype, device=sub.device)
        return out.index_copy(-1, self.support, sub)

    @property
    def logits(self) -> torch.Tensor:
        return self._full(self._inner.logits, MASKED_LOGIT)

    @property
    def probs(self) -> torch.Tensor:
        return self._full(self._inner.probs, 0.0)

    def _positions(self, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Each action's column in the support, and whether it is in the support at all."""
        assert self.support is not None
        a = actions.long().reshape(-1)
        pos = torch.searchsorted(self.support, a).clamp_(max=self.support.numel() - 1)
        return pos, self.support[pos] == a

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        if self.support is None:
            return self._inner.log_prob(actions)
        pos, found = self._positions(actions)
        out = self._inner.log_prob(pos)
        if not bool(found.all()):  # an action masked in every row: as the dense layer has it
            outside = MASKED_LOGIT - torch.logsumexp(self._inner._masked, dim=-1)
            out = torch.where(found, out, outside)
        return out

    def entropy(self) -> torch.Tensor:
        return self._inner.entropy()

    def mode(self) -> torch.Tensor:
        index = self._inner.mode()
        return index if self.support is None else self.support[index]

    def sample(self) -> torch.Tensor:
        index = self._inner.sample()
        return index if self.support is None else self.support[index]

    def set_log_prob(self, sets: torch.Tensor) -> torch.Tensor:
        """As :meth:`MaskedCategorical.set_log_prob`; ``sets`` are full width and must lie in
        the legal actions (actions outside the support have probability 0 anyway)."""
        if self.support is None:
            return self._inner.set_log_prob(sets)
        return self._inner.set_log_prob(sets.index_select(-1, self.support))


def set_log_prob(distribution: Any, sets: torch.Tensor) -> torch.Tensor:
    """``log pi(set)`` per row for any masked categorical (sb3-contrib's included)."""
    if hasattr(distribution, "set_log_prob"):
        out: torch.Tensor = distribution.set_log_prob(sets)
        return out
    return torch.logsumexp(distribution.logits.masked_fill(~sets, -torch.inf), dim=-1)


class MaskedCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution, built on :class:`MaskedCategorical`."""

    distribution: MaskedCategorical  # type: ignore[assignment]

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedCategoricalDistribution:
        self.distribution = MaskedCategorical(action_logits.view(-1, self.action_dim))
        return self

    def support_distribution(
        self, latent: torch.Tensor, action_net: nn.Linear
    ) -> MaskedCategoricalDistribution:
        """The distribution of ``action_net(latent)``, computed on the legal support once masked
        (:class:`SupportCategorical`)."""
        self.distribution = SupportCategorical(latent, action_net.weight, action_net.bias)  # type: ignore[assignment]
        return self

    def mode(self) -> torch.Tensor:
        return self.distribution.mode()


def _fused_adam_available() -> bool:
    """torch's fused Adam runs on the CPU from torch 2.4 on."""
    major, minor = (
        int("".join(ch for ch in part if ch.isdigit()) or 0) for part in torch.__version__.split(".")[:2]
    )
    return (major, minor) >= (2, 4)


class MaskedPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (MLP heads, any features extractor) with
    :class:`MaskedCategoricalDistribution`: the same policy, cheaper kernels. With the default
    optimiser (Adam, sb3's ``eps=1e-5``) it asks for torch's fused Adam where torch has it on
    the CPU (2.4 and later): the same update in one kernel per step instead of a dozen per
    tensor (about 10% of ``learn()`` on the Otto games)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (
            kwargs.get("optimizer_kwargs") is None
            and kwargs.get("optimizer_class", torch.optim.Adam) is torch.optim.Adam
            and _fused_adam_available()
        ):
            kwargs["optimizer_kwargs"] = {"eps": 1e-5, "fused": True}
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Schedule) -> None:
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"MaskedPolicy needs a Discrete action space, got {self.action_space}")
        self.action_dist = MaskedCategoricalDistribution(int(self.action_space.n))
        super()._build(lr_schedule)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> MaskedCategoricalDistribution:
        dist = self.action_dist
        assert isinstance(dist, MaskedCategoricalDistribution) and isinstance(self.action_net, nn.Linear)
        if dist.action_dim >= SUPPORT_MIN_ACTIONS:
            return dist.support_distribution(latent_pi, self.action_net)
        return dist.proba_distribution(self.action_net(latent_pi))


class MaskedRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` with the action masks kept as ``bool``.

    sb3-contrib stores every mask as ``float32``: a rollout of OTTO Game Over's config (256
    steps x 8 envs x 5,228 actions) is a 43 MB array, allocated full of ones at every rollout,
    copied by each ``add``, flattened once and fancy-indexed and copied twice more per
    minibatch (16 minibatches per rollout). As ``bool`` each of those moves a quarter of the
    bytes, and a minibatch's arrays (fresh copies already, from the fancy indexing) become
    tensors without a second copy. The samples hold the same values (a mask read as ``bool``
    is what every masked distribution does with it), so training is unchanged, draw for draw;
    ``eightfold train`` and the learner benchmark use it with ``policy: masked``."""

    def reset(self) -> None:
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"MaskedRolloutBuffer needs a Discrete action space, got {self.action_space}")
        if isinstance(self.observation_space, spaces.Dict):
            raise ValueError(
                "MaskedRolloutBuffer needs an array observation space, got a Dict; "
                "use sb3-contrib's MaskableDictRolloutBuffer (policy: sb3)"
            )
        self.mask_dims = int(self.action_space.n)
        self.action_masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)
        RolloutBuffer.reset(self)  # not MaskableRolloutBuffer.reset: it would allocate float32 masks

    def to_torch(self, array: np.ndarray, copy: bool = True) -> torch.Tensor:
        """``sb3``'s conversion without its copy: its only caller, ``_get_samples``, hands over
        arrays that fancy indexing has just made, which nothing else holds."""
        return torch.as_tensor(array, device=self.device)


def algorithm_kwargs(name: str) -> dict[str, Any]:
    """What ``MaskablePPO(...)`` (or ``MaskablePPO.load``) takes besides the config's PPO
    settings for the ``policy`` option ``name``: with ``"masked"`` the bool-mask rollout buffer
    (:class:`MaskedRolloutBuffer`), with ``"sb3"`` nothing (sb3-contrib's own buffer); another
    name is a ``ValueError``, as for :func:`policy_class`."""
    from training.config import POLICIES

    if name not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}, got {name!r}")
    return {"rollout_buffer_class": MaskedRolloutBuffer} if name == "masked" else {}


def policy_class(name: str) -> type[MaskableActorCriticPolicy] | str:
    """The ``policy`` option's class for ``MaskablePPO``: ``"masked"`` -> :class:`MaskedPolicy`,
    ``"sb3"`` -> sb3-contrib's ``"MlpPolicy"`` (``MaskableActorCriticPolicy``)."""
    from training.config import POLICIES

    if name not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}, got {name!r}")
    return MaskedPolicy if name == "masked" else "MlpPolicy"


def policy_kwargs(
    obs_shape: Sequence[int],
    net_arch: Sequence[int] = (256, 256),
    cnn_channels: Sequence[int] = (64, 64),
    features_dim: int = 256,
    vf_arch: Sequence[int] | None = None,
) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO(MaskedPolicy, ...)`` (or ``"MlpPolicy"``) suited to
    ``obs_shape``: actor MLP ``net_arch``, critic MLP ``vf_arch`` (``None``: ``net_arch``)."""
    critic = list(net_arch if vf_arch is None else vf_arch)
    kwargs: dict[str, Any] = {"net_arch": {"pi": list(net_arch), "vf": critic}}
    if len(obs_shape) == 3:
        kwargs.update(
            features_extractor_class=BoardCNN,
            features_extractor_kwargs={"features_dim": features_dim, "channels": list(cnn_channels)},
            normalize_images=False,
        )
    return kwargs


def describe(
    obs_shape: Sequence[int],
    net_arch: Sequence[int],
    cnn_channels: Sequence[int],
    vf_arch: Sequence[int] | None = None,
) -> str:
    critic = "" if vf_arch is None or list(vf_arch) == list(net_arch) else f" (critic {list(vf_arch)})"
    if len(obs_shape) == 3:
        return f"CNN {list(cnn_channels)} over {tuple(obs_shape)} planes + MLP heads {list(net_arch)}{critic}"
    return f"MLP {list(net_arch)}{critic} over {tuple(obs_shape)}"
