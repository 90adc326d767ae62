"""MaskedPolicy / MaskedCategorical: the same distribution as sb3-contrib's
MaskableCategorical (values and gradients), cheaper kernels, samples only legal actions."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from training.policies import (
    MASKED_LOGIT,
    MaskedCategorical,
    MaskedCategoricalDistribution,
    MaskedPolicy,
    MaskedRolloutBuffer,
    SupportCategorical,
    _fused_adam_available,
    algorithm_kwargs,
)


class _Pick(gym.Env[np.ndarray, np.int64]):
    """Reward 1 for the one good action among the legal ones; the mask hides half."""

    observation_space = spaces.Box(0.0, 1.0, (6,), np.float32)
    action_space = spaces.Discrete(6)

    def reset(
        self, *, seed: int | None = None, options: dict[str, object] | None = None
    ) -> tuple[np.ndarray, dict[str, object]]:
        super().reset(seed=seed)
        self.good = int(self.np_random.integers(3))
        obs = np.zeros(6, np.float32)
        obs[self.good] = 1.0
        return obs, {}

    def action_masks(self) -> np.ndarray:
        return np.array([True, True, True, False, False, False])

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, object]]:
        assert action < 3, "a masked action was played"
        return np.zeros(6, np.float32), float(action == self.good), True, False, {}


def _batch(rows: int, n: int, legal_share: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(rows, n, generator=g) * 3.0
    masks = torch.rand(rows, n, generator=g) < legal_share
    masks[torch.arange(rows), torch.randint(n, (rows,), generator=g)] = True  # every row has a legal move
    masks[0] = False
    masks[0, n - 1] = True  # one legal move, the last index
    return logits, masks


@pytest.mark.parametrize("n, share", [(7, 0.6), (117, 0.3), (5228, 0.03)])
def test_values_and_gradients_equal_sb3_contrib(n: int, share: float) -> None:
    logits, masks = _batch(16, n, share, seed=n)
    actions = torch.stack([torch.multinomial(m.float(), 1)[0] for m in masks])
    results = []
    for make in (lambda x: MaskableCategorical(logits=x, masks=masks), lambda x: _masked(x, masks)):
        x = logits.clone().requires_grad_(True)
        dist = make(x)
        log_prob, entropy = dist.log_prob(actions), dist.entropy()
        (log_prob.sum() + 0.3 * entropy.sum()).backward()
        assert x.grad is not None
        results.append(
            (dist.probs.detach(), dist.logits.detach(), log_prob.detach(), entropy.detach(), x.grad)
        )
    ref, ours = results
    for a, b in zip(ref[:1] + ref[2:], ours[:1] + ours[2:], strict=True):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(ours[1][masks], ref[1][masks], rtol=1e-5, atol=1e-5)  # legal log-probs
    assert bool((ours[0][~masks] == 0).all())
    assert bool((ours[1][~masks] < -1e7).all())


def _masked(x: torch.Tensor, masks: torch.Tensor) -> MaskedCategorical:
    dist = MaskedCategorical(x)
    dist.apply_masking(masks)
    return dist


def test_unmasked_and_mask_removal() -> None:
    logits, masks = _batch(4, 30, 0.5, seed=1)
    dist = _masked(logits, masks)
    dist.apply_masking(None)
    assert dist.masks is None
    torch.testing.assert_close(dist.probs, torch.softmax(logits, -1))
    torch.testing.assert_close(dist.entropy(), torch.distributions.Categorical(logits=logits).entropy())


def test_samples_follow_the_masked_distribution_and_are_legal() -> None:
    logits, masks = _batch(3, 50, 0.3, seed=2)
    dist = _masked(logits, masks)
    torch.manual_seed(0)
    draws = torch.stack([dist.sample() for _ in range(20_000)])  # (draws, rows)
    assert bool(masks.gather(1, draws.T).all())
    assert bool((draws[:, 0] == 49).all())  # the one legal move of row 0
    for row in (1, 2):
        freq = np.bincount(draws[:, row].numpy(), minlength=50) / draws.shape[0]
        p = dist.probs[row].numpy()
        # 5 standard errors of a binomial share, per action
        assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / draws.shape[0]) + 1e-9)


def test_sampling_is_seeded_by_torch() -> None:
    logits, masks = _batch(8, 200, 0.2, seed=3)
    dist = _masked(logits, masks)
    torch.manual_seed(5)
    a = dist.sample()
    torch.manual_seed(5)
    assert torch.equal(dist.sample(), a)


def test_rounding_up_to_the_total_falls_back_to_a_legal_move(monkeypatch: pytest.MonkeyPatch) -> None:
    logits, masks = _batch(4, 40, 0.2, seed=4)
    masks[:, -1] = False
    masks[0, -1] = True
    dist = _masked(logits, masks)
    monkeypatch.setattr(torch, "rand", lambda *a, **k: torch.ones(*a[0], dtype=k.get("dtype")))
    out = dist.sample()
    assert bool(masks.gather(1, out[:, None]).all())
    last_legal = [int(np.flatnonzero(m)[-1]) for m in masks.numpy()]
    assert out.tolist() == last_legal


def test_maskable_ppo_learns_with_masked_policy_and_reloads(tmp_path: Path) -> None:
    model = MaskablePPO(
        MaskedPolicy, _Pick(), n_steps=64, batch_size=32, learning_rate=1e-3, seed=0, device="cpu"
    )
    assert isinstance(model.policy.action_dist, MaskedCategoricalDistribution)
    # fused from torch 2.4 on (CI's CPU build); torch 2.1-2.3 (the requirement allows 2.1) keep
    # torch's default, which has no fused CPU kernel
    fused = True if _fused_adam_available() else None
    assert model.policy.optimizer.defaults["fused"] is fused
    assert model.policy.optimizer.defaults["eps"] == 1e-5  # sb3's Adam setting kept
    model.learn(3000)
    env = _Pick()
    wins = 0
    for i in range(50):
        obs, _ = env.reset(seed=i)
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        wins += int(action) == env.good
    assert wins >= 45
    path = f"{tmp_path}/m.zip"
    model.save(path)
    again = MaskablePPO.load(path, device="cpu")
    assert isinstance(again.policy, MaskedPolicy)
    assert again.policy.optimizer.defaults["fused"] is fused
    obs, _ = env.reset(seed=3)
    assert again.predict(obs, action_masks=env.action_masks(), deterministic=True)[0] == env.good


class _Masks(gym.Env[np.ndarray, np.int64]):
    """Random observations and a random mask (a third of 40 actions legal) at every step; the
    reward favours low actions, so the policy's updates depend on every mask."""

    observation_space = spaces.Box(0.0, 1.0, (5,), np.float32)
    action_space = spaces.Discrete(40)

    def reset(
        self, *, seed: int | None = None, options: dict[str, object] | None = None
    ) -> tuple[np.ndarray, dict[str, object]]:
        super().reset(seed=seed)
        self.t = 0
        return self._next(), {}

    def _next(self) -> np.ndarray:
        self.mask = self.np_random.random(40) < 0.33
        self.mask[self.np_random.integers(40)] = True
        return self.np_random.random(5).astype(np.float32)

    def action_masks(self) -> np.ndarray:
        return self.mask.copy()

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, object]]:
        assert self.mask[int(action)], "a masked action was played"
        self.t += 1
        return self._next(), 1.0 - int(action) / 40.0, self.t >= 7, False, {}


def test_the_bool_mask_buffer_trains_as_sb3_contribs_buffer() -> None:
    """``MaskedRolloutBuffer`` (bool masks, ``policy: masked``) changes no number of a run:
    the same weights, draw for draw, as sb3-contrib's float32 buffer."""
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from stable_baselines3.common.vec_env import DummyVecEnv

    weights = []
    for buffer in (MaskedRolloutBuffer, MaskableRolloutBuffer):
        vec = DummyVecEnv([_Masks, _Masks])
        model = MaskablePPO(
            MaskedPolicy, vec, n_steps=64, batch_size=32, n_epochs=2, seed=3, device="cpu",
            rollout_buffer_class=buffer,
        )  # fmt: skip
        assert type(model.rollout_buffer) is buffer
        model.learn(256)
        if buffer is MaskedRolloutBuffer:
            masks = model.rollout_buffer.action_masks
            assert masks.dtype == np.bool_ and masks.shape == (64 * 2, 40)  # flattened by get()
            assert 0 < masks.mean() < 0.5  # the env's masks were stored, not the initial ones
            sample = next(model.rollout_buffer.get(16))
            assert sample.action_masks.dtype == torch.bool and sample.action_masks.shape == (16, 40)
        weights.append([p.detach().clone() for p in model.policy.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*weights, strict=True))


def test_the_bool_mask_buffer_needs_a_discrete_space_and_array_observations() -> None:
    with pytest.raises(ValueError, match="MaskedRolloutBuffer needs a Discrete action space"):
        MaskedRolloutBuffer(4, spaces.Box(0, 1, (2,)), spaces.MultiDiscrete([2, 3]))
    dict_obs = spaces.Dict({"board": spaces.Box(0, 1, (2,))})
    with pytest.raises(ValueError, match="needs an array observation space, got a Dict"):
        MaskedRolloutBuffer(4, dict_obs, spaces.Discrete(3))


@pytest.mark.parametrize(
    ("policy", "cls", "buffer"),
    [("masked", MaskedPolicy, MaskedRolloutBuffer), ("sb3", MaskableActorCriticPolicy, None)],
)
def test_the_policy_option_picks_the_class(
    policy: str, cls: type, buffer: type | None, tmp_path: Path
) -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.config import TrainConfig
    from training.train import build_model

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, policy=policy, net_arch=[8])
    cfg.validate()
    vec = DummyVecEnv([lambda: _Pick()])
    model = build_model(cfg, vec, tmp_path)
    assert type(model.policy) is cls
    assert algorithm_kwargs(policy) == ({} if buffer is None else {"rollout_buffer_class": buffer})
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    assert type(model.rollout_buffer) is (buffer or MaskableRolloutBuffer)
    model.save(tmp_path / "m.zip")  # a saved run resumes with the same buffer
    again = MaskablePPO.load(tmp_path / "m.zip", env=vec, device="cpu")
    assert type(again.rollout_buffer) is type(model.rollout_buffer)


def test_an_unknown_policy_is_named() -> None:
    from training.config import TrainConfig

    with pytest.raises(ValueError, match=r"policy must be one of \['masked', 'sb3'\], got 'fast'"):
        TrainConfig(policy="fast").validate()


def test_policy_class_knows_every_policy_the_config_accepts() -> None:
    from training.config import POLICIES
    from training.policies import policy_class

    assert policy_class("masked") is MaskedPolicy and policy_class("sb3") == "MlpPolicy"
    assert set(POLICIES) == {"masked", "sb3"}
    with pytest.raises(ValueError, match="policy must be one of"):
        policy_class("fast")


def _support(
    n: int, rows: int, share: float, seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Latent features, an output layer and sparse masks (row 0: only the last action legal)."""
    g = torch.Generator().manual_seed(seed)
    latent = torch.randn(rows, 32, generator=g)
    weight = torch.randn(n, 32, generator=g) * 0.5
    bias = torch.randn(n, generator=g)
    _, masks = _batch(rows, n, share, seed)
    return latent, weight, bias, masks


@pytest.mark.parametrize(("n", "share"), [(300, 0.005), (1106, 0.005), (5228, 0.004)])
def test_the_support_distribution_equals_the_dense_one(n: int, share: float) -> None:
    latent, weight, bias, masks = _support(n, 64, share, seed=n)
    assert int(masks.any(0).sum()) < n  # the support is a strict subset
    actions = torch.stack([torch.multinomial(m.float(), 1)[0] for m in masks])
    sets = masks & (torch.rand(masks.shape, generator=torch.Generator().manual_seed(1)) < 0.5)
    sets[torch.arange(64), actions] = True
    results = []
    for support in (False, True):
        params = [t.clone().requires_grad_(True) for t in (latent, weight, bias)]
        if support:
            dist: MaskedCategorical | SupportCategorical = SupportCategorical(*params)
            dist.apply_masking(masks)
            assert dist.support is not None and torch.equal(dist.support, masks.any(0).nonzero().squeeze(1))
        else:
            dist = _masked(torch.nn.functional.linear(*params), masks)
        log_prob, entropy, set_lp = dist.log_prob(actions), dist.entropy(), dist.set_log_prob(sets)
        (log_prob.sum() + 0.3 * entropy.sum() + 0.2 * set_lp.sum()).backward()
        torch.manual_seed(7)
        draws = dist.sample()
        results.append(
            (dist.probs.detach(), log_prob.detach(), entropy.detach(), set_lp.detach(), draws, dist.mode())
            + tuple(p.grad for p in params)
        )
    dense, ours = results
    for a, b in zip(dense, ours, strict=True):
        assert a is not None and b is not None
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    assert bool(masks.gather(1, ours[4][:, None]).all()) and int(ours[4][0]) == n - 1


def test_the_support_distribution_without_masks_or_with_an_empty_row_is_dense() -> None:
    latent, weight, bias, masks = _support(400, 6, 0.05, seed=2)
    dense = torch.nn.functional.linear(latent, weight, bias)
    dist = SupportCategorical(latent, weight, bias)
    torch.testing.assert_close(dist.probs, torch.softmax(dense, -1))  # never masked
    dist.apply_masking(masks)
    dist.apply_masking(None)
    assert dist.masks is None and dist.support is None
    torch.testing.assert_close(dist.logits, torch.log_softmax(dense, -1))
    masks[3] = False  # a row with no legal action: sb3-contrib's maths (uniform there)
    dist.apply_masking(masks)
    assert dist.support is None
    ref = MaskableCategorical(logits=dense, masks=masks)
    torch.testing.assert_close(dist.probs, ref.probs)
    torch.testing.assert_close(dist.entropy(), ref.entropy())


def test_an_action_outside_the_support_gets_the_dense_log_prob() -> None:
    latent, weight, bias, masks = _support(400, 5, 0.02, seed=3)
    outside = int(np.flatnonzero(~masks.any(0).numpy())[0])
    dist = SupportCategorical(latent, weight, bias)
    dist.apply_masking(masks)
    actions = torch.tensor([outside, *[int(np.flatnonzero(m)[0]) for m in masks[1:].numpy()]])
    ref = _masked(torch.nn.functional.linear(latent, weight, bias), masks).log_prob(actions)
    out = dist.log_prob(actions)
    torch.testing.assert_close(out[1:], ref[1:])
    assert float(out[0]) < -1e7 and float(ref[0]) < -1e7
    full = dist.logits
    assert full.shape == (5, 400) and bool((full[:, outside] == MASKED_LOGIT).all())


def test_masked_policy_on_a_wide_action_space_is_sb3_contribs_policy() -> None:
    """Forward, evaluation, predict and gradients of MaskedPolicy (on the support) equal those of
    sb3-contrib's MaskableActorCriticPolicy with the same weights."""
    n = 2100  # SUPPORT_MIN_ACTIONS or more: the policy computes on the support
    obs_space = spaces.Box(-1.0, 1.0, (300,), np.float32)
    act_space = spaces.Discrete(n)
    torch.manual_seed(11)
    ours = MaskedPolicy(obs_space, act_space, lambda _: 1e-3, net_arch=[16])
    torch.manual_seed(11)
    ref = MaskableActorCriticPolicy(obs_space, act_space, lambda _: 1e-3, net_arch=[16])
    # the same initial weights from the same seed
    assert ours.state_dict().keys() == ref.state_dict().keys()
    for key, value in ref.state_dict().items():
        assert torch.equal(ours.state_dict()[key], value), key
    g = torch.Generator().manual_seed(0)
    obs = torch.rand(32, 300, generator=g) * 2 - 1
    _, masks = _batch(32, n, 0.01, seed=9)
    actions = torch.stack([torch.multinomial(m.float(), 1)[0] for m in masks])
    out = []
    for policy in (ref, ours):
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks.numpy())
        (log_prob.sum() + entropy.sum() + values.sum()).backward()
        grads = [p.grad.clone() for p in policy.parameters()]  # type: ignore[union-attr]
        with torch.no_grad():
            greedy = policy._predict(obs, deterministic=True, action_masks=masks.numpy())
            probs = policy.get_distribution(obs, action_masks=masks.numpy()).distribution.probs
        out.append((values.detach(), log_prob.detach(), entropy.detach(), greedy, probs, *grads))
    wide = ours.get_distribution(obs, masks.numpy()).distribution
    assert isinstance(wide, SupportCategorical) and wide.support is not None
    narrow = MaskedPolicy(obs_space, spaces.Discrete(1106), lambda _: 1e-3, net_arch=[16])
    assert type(narrow.get_distribution(obs).distribution) is MaskedCategorical  # below SUPPORT_MIN_ACTIONS
    for a, b in zip(*out, strict=True):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        torch.manual_seed(3)
        sampled, _, lp = ours(obs, action_masks=masks.numpy())
        torch.testing.assert_close(lp, ref.evaluate_actions(obs, sampled, masks.numpy())[1])
    assert bool(masks.gather(1, sampled[:, None]).all())


def test_the_set_log_prob_is_the_logsumexp_over_the_set() -> None:
    logits, masks = _batch(8, 300, 0.1, seed=6)
    logits[1] *= 30.0  # very unequal probabilities: set members far below the largest
    sets = masks & (torch.rand(masks.shape, generator=torch.Generator().manual_seed(2)) < 0.5)
    sets[:, :] |= masks & (torch.arange(300) == masks.float().argmax(1, keepdim=True))  # >= 1 member
    results = []
    for fast in (False, True):
        x = logits.clone().requires_grad_(True)
        dist = _masked(x, masks)
        out = (
            dist.set_log_prob(sets)
            if fast
            else torch.logsumexp(dist.logits.masked_fill(~sets, -torch.inf), -1)
        )
        out.sum().backward()
        results.append((out.detach(), x.grad))
    for a, b in zip(*results, strict=True):
        torch.testing.assert_close(b, a, rtol=1e-5, atol=1e-6)
    empty = torch.zeros_like(sets)
    assert bool(torch.isneginf(_masked(logits, masks).set_log_prob(empty)).all())


def test_an_empty_set_row_leaves_the_other_rows_gradients_finite() -> None:
    """A row whose set is empty has ``log pi(set) = -inf`` and, left out of the loss, gives no
    gradient: the other rows' gradients are those of the batch without it (a NaN from
    ``log(0)``'s backward would reach every weight of a network through the shared layers)."""
    logits, masks = _batch(4, 40, 0.3, seed=7)
    sets = masks & (torch.arange(40) == masks.float().argmax(1, keepdim=True))
    sets[2] = False
    x = logits.clone().requires_grad_(True)
    out = _masked(x, masks).set_log_prob(sets)
    assert bool(torch.isneginf(out[2])) and bool(torch.isfinite(out[[0, 1, 3]]).all())
    out[[0, 1, 3]].sum().backward()
    assert x.grad is not None and bool(torch.isfinite(x.grad).all())
    assert bool((x.grad[2] == 0).all())
    alone = logits[[0, 1, 3]].clone().requires_grad_(True)
    _masked(alone, masks[[0, 1, 3]]).set_log_prob(sets[[0, 1, 3]]).sum().backward()
    torch.testing.assert_close(x.grad[[0, 1, 3]], alone.grad)


@pytest.mark.parametrize("vf_arch", [None, [8], []])
def test_the_critic_may_have_layers_of_its_own(vf_arch: list[int] | None, tmp_path: Path) -> None:
    """``vf_arch`` sizes the critic's MLP in the model ``eightfold train`` builds; the actor
    keeps ``net_arch`` (None: the critic has the same)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.config import TrainConfig
    from training.train import build_model, build_single_env

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, net_arch=[16, 16], vf_arch=vf_arch)
    cfg.validate()
    vec = DummyVecEnv([lambda: build_single_env(cfg.to_dict())[0]])
    model = build_model(cfg, vec, tmp_path)

    def widths(net: torch.nn.Module) -> list[int]:
        return [m.out_features for m in net.modules() if isinstance(m, torch.nn.Linear)]

    critic = [16, 16] if vf_arch is None else vf_arch
    assert widths(model.policy.mlp_extractor.policy_net) == [16, 16]
    assert widths(model.policy.mlp_extractor.value_net) == critic
    assert model.policy.value_net.in_features == (critic[-1] if critic else 60)  # 60 inputs: no layer
