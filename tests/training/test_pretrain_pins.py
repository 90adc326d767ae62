"""Pins on the behaviour-cloning warm start (``training/pretrain.py``) that a mutation round
found unguarded: the fit's loop and log, the record's numbers and timings, what it prints."""

from __future__ import annotations

import re
import types
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import training.pretrain as pt
from envs.core.game import Symmetry
from tests.training.test_pretrain import _cfg
from training.pretrain import Demonstrations, chance_levels, fit


def _policy(obs_dim: int, num_actions: int) -> Any:
    """A fresh small ``MaskableActorCriticPolicy`` (the same weights on every call)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    space = gym.spaces.Box(-1.0, 1.0, (obs_dim,), np.float32)
    return MaskableActorCriticPolicy(space, gym.spaces.Discrete(num_actions), lambda _: 1e-3, net_arch=[8])


def _demos(n: int = 40, obs_dim: int = 3, num_actions: int = 4, seed: int = 0) -> Demonstrations:
    """``n`` random decisions: every move legal but a few, one or two best moves, random returns."""
    rng = np.random.default_rng(seed)
    obs = rng.random((n, obs_dim)).astype(np.float32)
    masks = rng.random((n, num_actions)) < 0.8
    masks[np.arange(n), rng.integers(num_actions, size=n)] = True
    best = masks & (rng.random((n, num_actions)) < 0.4)
    first = np.array([np.flatnonzero(m)[0] for m in masks])
    best[np.arange(n), first] |= ~best.any(1)
    returns = rng.normal(size=n).astype(np.float32)
    return Demonstrations.of(obs, masks, best.argmax(1), returns, 1, best)


def _bc_model(cfg: dict[str, Any]) -> Any:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.train import build_single_env

    vec = DummyVecEnv([lambda: build_single_env(cfg)[0]])
    return MaskablePPO("MlpPolicy", vec, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")


# ------------------------------------------------------------------ the fit
def test_fit_is_the_documented_minibatch_loop() -> None:
    """``fit`` is, step for step, the loop its docstring describes: the training decisions
    shuffled each epoch by ``default_rng(seed)``, minibatches of ``batch_size`` (sorted), the
    loss ``-log pi(B | s) + vf_coef * MSE(V, returns)``, fresh gradients clipped to
    ``max_grad_norm``, one Adam step each; the log's losses are the epoch's minibatch means.
    A failure means the fit ignores its seed, its ``vf_coef`` or ``max_grad_norm``, lets the
    gradients pile up, or reports other losses than it trained on."""
    import torch.nn.functional as F

    demos = _demos()
    vf_coef, max_grad_norm, batch, epochs, seed = 0.25, 0.05, 8, 2, 7
    policy = _policy(3, 4)
    log = fit(
        policy,
        demos,
        epochs=epochs,
        batch_size=batch,
        vf_coef=vf_coef,
        max_grad_norm=max_grad_norm,
        seed=seed,
    )
    ref = _policy(3, 4)
    n_train = 36  # holdout 0.1 of 40: the last 4
    assert log["train"] == n_train and log["samples"] == 40
    rng = np.random.default_rng(seed)
    train_idx = np.arange(n_train)
    returns = torch.as_tensor(demos.returns)
    for epoch in range(epochs):
        rng.shuffle(train_idx)
        losses, vlosses = [], []
        for i in range(0, n_train, batch):
            idx = np.sort(train_idx[i : i + batch])
            obs = torch.from_numpy(demos.obs[idx])
            dist = ref.get_distribution(obs, action_masks=demos.mask_rows(idx))
            logits = dist.distribution.logits
            best = torch.as_tensor(demos.target_mask(idx))
            policy_loss = -torch.logsumexp(logits.masked_fill(~best, -torch.inf), -1).mean()
            value_loss = F.mse_loss(ref.predict_values(obs).flatten(), returns[idx])
            ref.optimizer.zero_grad()
            (policy_loss + vf_coef * value_loss).backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(ref.parameters(), max_grad_norm)
            ref.optimizer.step()
            losses.append(policy_loss.item())
            vlosses.append(value_loss.item())
        row = log["epochs"][epoch]
        assert row["epoch"] == epoch + 1, "epochs are numbered from 1"
        assert row["policy_loss"] == pytest.approx(np.mean(losses), abs=2e-4), (epoch, row)
        assert row["value_loss"] == pytest.approx(np.mean(vlosses), abs=2e-4), (epoch, row)
    for (name, got), want in zip(policy.state_dict().items(), ref.state_dict().values(), strict=True):
        assert torch.allclose(got, want, atol=1e-6), f"{name}: the fit is not the documented loop"


def test_the_chance_level_logged_is_that_of_the_held_out_decisions() -> None:
    """``holdout_chance_agreement`` reads the held-out agreement against a random legal move
    on the held-out decisions themselves (not on all of them); ``holdout_agreement_nontrivial``
    is logged whenever a held-out decision is not trivial, also when none is trivial."""
    n = 40
    masks = np.ones((n, 4), dtype=bool)
    best = np.zeros((n, 4), dtype=bool)
    best[:, 0] = True  # the training decisions: 1 best move of 4
    best[-4:] = [[1, 1, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]]  # held out: 1 trivial, 3 halves
    obs = np.random.default_rng(1).random((n, 3)).astype(np.float32)
    demos = Demonstrations.of(obs, masks, best.argmax(1), np.zeros(n, np.float32), 1, best)
    test = demos.subset(np.arange(n - 4, n))
    chance, _ = chance_levels(test)
    assert chance == pytest.approx((1 + 3 * 0.5) / 4)
    assert chance_levels(demos)[0] != pytest.approx(chance)
    log = fit(_policy(3, 4), demos, epochs=1, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    assert log["holdout_chance_agreement"] == round(chance, 4)
    assert log["holdout_trivial_share"] == 0.25
    # no trivial decision held out: the agreement on the non-trivial ones is all of it
    best[-4] = [1, 0, 0, 0]
    demos = Demonstrations.of(obs, masks, best.argmax(1), np.zeros(n, np.float32), 1, best)
    log = fit(_policy(3, 4), demos, epochs=1, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    row = log["epochs"][0]
    assert log["holdout_trivial_share"] == 0.0
    assert row.get("holdout_agreement_nontrivial") == row["holdout_agreement"], row


def test_the_verbose_fit_line_names_the_non_trivial_share(capsys: pytest.CaptureFixture[str]) -> None:
    """The per-epoch line says on what share of held-out decisions not every move is best (75%
    here: one held-out decision of four is trivial), with the numbers of the log."""
    n = 40
    masks = np.ones((n, 4), dtype=bool)
    best = np.zeros((n, 4), dtype=bool)
    best[:, 0] = True
    best[-4] = True  # the first held-out decision: every move best
    obs = np.random.default_rng(2).random((n, 3)).astype(np.float32)
    demos = Demonstrations.of(obs, masks, best.argmax(1), np.zeros(n, np.float32), 1, best)
    log = fit(
        _policy(3, 4), demos, epochs=1, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0, verbose=True
    )
    row = log["epochs"][0]
    line = capsys.readouterr().out
    assert f"policy loss {row['policy_loss']}, value loss {row['value_loss']}" in line
    assert f"held-out agreement {row['holdout_agreement']} (a random legal move: 0.4375;" in line
    assert "on the 75% of decisions where not every move is best" in line, line


def test_the_verbose_fit_line_of_an_all_trivial_held_out_set_prints_no_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """When every held-out decision is trivial (every legal move best) there is no agreement
    where not every move is best: the per-epoch line says so instead of quoting ``None``."""
    n = 40
    masks = np.ones((n, 4), dtype=bool)
    best = np.zeros((n, 4), dtype=bool)
    best[:, 0] = True
    best[-4:] = True
    obs = np.random.default_rng(2).random((n, 3)).astype(np.float32)
    demos = Demonstrations.of(obs, masks, best.argmax(1), np.zeros(n, np.float32), 1, best)
    log = fit(
        _policy(3, 4), demos, epochs=1, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0, verbose=True
    )
    assert log["holdout_trivial_share"] == 1.0 and "holdout_agreement_nontrivial" not in log["epochs"][0]
    line = capsys.readouterr().out
    assert "None" not in line and "(a random legal move: 1.0; every held-out move is a best one)" in line, (
        line
    )


@pytest.mark.parametrize(
    ("epochs", "last_round", "want"),
    [
        ([], {"samples": 20}, "pretraining done in 3s: no epoch fitted (pretrain_epochs: 0)"),
        (
            [{"policy_loss": 1.25}],
            {"samples": 8},
            "pretraining done in 3s: policy loss 1.25 (no held-out set: 8 decisions)",
        ),
        (
            [{"policy_loss": 1.25, "holdout_agreement": 0.5}],
            {"samples": 400, "holdout_chance_agreement": 0.5},
            "pretraining done in 3s: policy loss 1.25, held-out agreement with the teacher 0.5 "
            "(a random legal move: 0.5)",
        ),
        (
            [
                {"policy_loss": 1.0},
                {"policy_loss": 0.75, "holdout_agreement": 0.9, "holdout_agreement_nontrivial": 0.8},
            ],
            {"samples": 400, "holdout_chance_agreement": 0.3},
            "pretraining done in 3s: policy loss 0.75, held-out agreement with the teacher 0.9 "
            "(a random legal move: 0.3; where not every move is best: 0.8)",
        ),
    ],
    ids=["no-epoch", "no-held-out-set", "all-trivial", "full"],
)
def test_the_closing_line_quotes_only_what_was_measured(
    epochs: list[dict[str, float]], last_round: dict[str, Any], want: str
) -> None:
    """``pretrain_epochs: 0``, ten decisions or fewer (no held-out set) and an all-trivial
    held-out set each leave a figure unmeasured: the closing line leaves it out (it printed
    ``policy loss None, held-out agreement with the teacher None``)."""
    record = {
        "seconds": 3.2,
        "rounds": [{"epochs": [{"policy_loss": 9.0}]}, {**last_round, "epochs": epochs}],
    }
    assert pt.done_line(record) == want


def test_the_soft_actor_loss_is_the_cross_entropy_to_the_targets() -> None:
    """With soft targets the first epoch's loss (one minibatch of every decision, so the starting
    policy's) is ``-sum_a p(a) log pi(a | s)`` averaged over the decisions: a loss on the
    probabilities instead of their logs would pull the policy to the heaviest move alone."""
    base = _demos(n=12, seed=4)
    rng = np.random.default_rng(5)
    masks = base.masks
    weights = np.where(masks, rng.random(masks.shape), 0.0).astype(np.float32)
    weights /= weights.sum(1, keepdims=True)
    keep = weights > 0
    ptr = np.concatenate([[0], np.cumsum(keep.sum(1))]).astype(np.int64)
    act = np.concatenate([np.flatnonzero(k) for k in keep]).astype(np.int32)
    soft = (ptr, act, weights[keep].astype(np.float32))
    demos = Demonstrations.of(base.obs[:], masks, base.actions, base.returns, 1, base.targets, soft)
    assert np.allclose(demos.soft_targets(np.arange(12)), weights)
    policy = _policy(3, 4)
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(base.obs[:]), action_masks=masks)
        logp = dist.distribution.logits.numpy().astype(np.float64)
    expected = -np.mean([(weights[i][keep[i]] * logp[i][keep[i]]).sum() for i in range(12)])
    log = fit(policy, demos, epochs=1, batch_size=12, vf_coef=0.5, max_grad_norm=0.5, seed=0, holdout=0.0)
    assert log["epochs"][0]["policy_loss"] == pytest.approx(expected, abs=2e-4)


def test_symmetry_augmentation_draws_every_image() -> None:
    """With ``symmetries`` each training decision is shown as the identity or one of the images,
    drawn uniformly: all of them appear (a draw that never picks the last one would fit a
    quarter of the augmentation away), each with its mask moved alike."""
    n, d, k = 60, 4, 4
    rng = np.random.default_rng(3)
    obs = rng.random((n, d)).astype(np.float32)  # distinct entries: each image is recognisable
    masks = np.zeros((n, k), dtype=bool)
    masks[:, 0] = True
    masks[:, 1] = rng.random(n) < 0.5
    best = masks.copy()
    best[:, 1] = False
    demos = Demonstrations.of(obs, masks, np.zeros(n, np.int64), np.zeros(n, np.float32), 1, best)
    turns = [np.roll(np.arange(d), s) for s in (1, 2, 3)]
    syms = [
        Symmetry(f"turn{s}", turns[s - 1].astype(np.int64), turns[s - 1].astype(np.int64)) for s in (1, 2, 3)
    ]
    policy = _policy(d, k)
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    get = policy.get_distribution

    def spy(o: Any, action_masks: Any = None) -> Any:
        if policy.training:
            seen.append((o.numpy().copy(), np.asarray(action_masks).copy()))
        return get(o, action_masks=action_masks)

    policy.get_distribution = spy
    fit(policy, demos, epochs=2, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0, symmetries=syms)
    tables = [np.arange(d), *turns]
    drawn = set()
    for shown, shown_masks in seen:
        for row, mask in zip(shown, shown_masks, strict=True):
            matches = [
                (g, i) for g, t in enumerate(tables) for i in np.flatnonzero((obs[:, t] == row).all(1))
            ]
            assert len(matches) == 1, "each row shown is one image of one decision"
            g, i = matches[0]
            assert np.array_equal(mask, masks[i][tables[g]]), "the mask moves with the observation"
            drawn.add(g)
    assert drawn == {0, 1, 2, 3}, f"images drawn: {sorted(drawn)}"


# ------------------------------------------------------------------ collection
def test_observation_codes_are_as_narrow_as_the_values_allow() -> None:
    """Exactly 256 distinct values still code in a byte an entry, and exactly 65,536 in two
    bytes (a table one short would store OTTO Game Over's observations at four bytes an entry)."""
    from training.pretrain import CodedArray

    for size, dtype in ((256, np.uint8), (65_536, np.uint16)):
        a = np.arange(size, dtype=np.float32).reshape(-1, 16)
        coded = CodedArray.encode(a)
        assert isinstance(coded, CodedArray) and coded.codes.dtype == dtype, size
        assert np.array_equal(coded[:], a)
        parts = [
            Demonstrations.of(
                half,
                np.ones((len(half), 2), bool),
                np.zeros(len(half), np.int64),
                np.zeros(len(half), np.float32),
                1,
            )
            for half in np.split(a, 2)
        ]
        joined = pt.concat(parts)
        assert isinstance(joined.obs, CodedArray) and joined.obs.codes.dtype == dtype, size
        assert np.array_equal(joined.obs[:], a)


def test_a_driven_collection_replays_from_its_own_streams(tmp_path: Path) -> None:
    """In a DAgger collection episode e deals from its first spawned seed, the teacher labels
    from the second and the driver samples its moves from the third: replaying the schedule so
    gives the very decisions (a driver drawing from the teacher's stream would play moves tied
    to the teacher's draws)."""
    from envs.core.bots import make_bot
    from training.players import PolicyPlayer
    from training.train import build_single_env

    cfg = _cfg(opponents={"random": 1.0})
    _bc_model(cfg).save(tmp_path / "driver.zip")
    # episodes 3 and 4 of the schedule (collect_demonstrations plays chunks of 16 of these)
    demos = pt._collect_chunk((cfg, 11, 3, 2, str(tmp_path / "driver.zip")))
    assert demos.episodes == 2
    env, game, bots = build_single_env(cfg)
    teacher = make_bot(game, "heuristic", bots)
    driver = PolicyPlayer.load(str(tmp_path / "driver.zip"), game)
    i = 0
    for ss in np.random.SeedSequence(11).spawn(5)[3:]:
        env_seed, teacher_seed, driver_seed = (
            int(s.generate_state(1, np.uint64)[0] >> np.uint64(1)) for s in ss.spawn(3)
        )
        rng, driver_rng = np.random.default_rng(teacher_seed), np.random.default_rng(driver_seed)
        obs, _ = env.reset(seed=env_seed)
        done = False
        while not done:
            assert np.array_equal(obs, demos.obs[i]), i
            assert int(teacher.act(env.state, env.seat, rng)) == demos.actions[i], i
            obs, _, term, trunc, _ = env.step(int(driver.act(env.state, env.seat, driver_rng)))
            done = term or trunc
            i += 1
    assert i == len(demos)


def test_later_waves_of_workers_play_the_next_episodes() -> None:
    """With 2 workers the chunks go out in waves of two; a second wave plays the schedule's
    next episodes (32 on), not a chunk the first wave already played: the decisions are those
    of one worker."""
    cfg = _cfg()
    first, second = (pt._collect_chunk((cfg, 5, e, pt.EPISODES_PER_CHUNK, None)) for e in (0, 16))
    samples = len(first) + len(second) + 1  # a third chunk, so a second wave
    one = pt.collect_demonstrations(cfg, samples, seed=5, workers=1)
    two = pt.collect_demonstrations(cfg, samples, seed=5, workers=2)
    assert one.episodes == two.episodes == 48
    assert np.array_equal(one.actions, two.actions) and np.array_equal(one.obs[:], two.obs[:])


def test_collecting_no_decisions_is_refused_by_name() -> None:
    """``samples`` under 1 is an error that names the value, not a crash further down."""
    with pytest.raises(ValueError, match="samples must be >= 1, got 0"):
        pt.collect_demonstrations(_cfg(), 0, seed=0)


# ------------------------------------------------------------------ pretrain(): record and print
def test_pretrain_fits_with_the_configs_critic_weight_and_clip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start's fit weighs the critic by the config's ``vf_coef`` and clips at its
    ``max_grad_norm`` (the PPO settings it shares); its record goes to a folder it makes."""
    calls: list[dict[str, Any]] = []
    real = pt.fit

    def spy(policy: Any, demos: Demonstrations, **kw: Any) -> Any:
        calls.append({"n": len(demos), **kw})
        return real(policy, demos, **kw)

    monkeypatch.setattr(pt, "fit", spy)
    cfg = _cfg(pretrain_samples=20, pretrain_epochs=1, pretrain_workers=1, vf_coef=0.3, max_grad_norm=0.7)
    pt.pretrain(_bc_model(cfg), cfg, tmp_path / "new" / "run")  # a folder that does not exist yet
    assert (tmp_path / "new" / "run" / "pretrain.json").is_file()
    assert len(calls) == 1
    assert calls[0]["vf_coef"] == 0.3 and calls[0]["max_grad_norm"] == 0.7
    assert calls[0]["epochs"] == 1 and calls[0]["batch_size"] == 64


def test_on_policy_agreement_is_the_policys_before_the_rounds_fit(tmp_path: Path) -> None:
    """A DAgger round's ``on_policy_agreement`` is measured on the decisions that round's policy
    played (not on all the data so far); with ``pretrain_epochs: 0`` the policy never changes, so
    the round replays exactly. The round's ``decisions`` and ``episodes`` are its own."""
    cfg = _cfg(seed=3, pretrain_samples=30, pretrain_epochs=0, pretrain_workers=1, pretrain_rounds=1)
    model = _bc_model(cfg)
    record = pt.pretrain(model, cfg, tmp_path / "run")
    model.save(tmp_path / "driver.zip")
    first = pt.collect_demonstrations(cfg, 30, pt.dagger_seeds(3, 0)[0])
    played = pt.collect_demonstrations(cfg, 30, pt.dagger_seeds(3, 1)[0], driver=str(tmp_path / "driver.zip"))
    rounds = record["rounds"]
    assert [r["decisions"] for r in rounds] == [len(first), len(played)]
    assert [r["episodes"] for r in rounds] == [first.episodes, played.episodes] == [16, 16]
    expected = round(pt.agreement(model.policy, played), 4)
    assert rounds[1]["on_policy_agreement"] == expected
    both = pt.concat([first, played])
    assert round(pt.agreement(model.policy, both), 4) != expected, "the test tells the two apart"
    assert record["samples"] == len(first) + len(played)
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["pretrain.json"], (
        "the driver's snapshot is gone, and no model.zip is left in the run's folder"
    )


def test_on_policy_agreement_is_measured_before_the_fit_moves_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With epochs to fit, a DAgger round's ``on_policy_agreement`` is still that of the policy
    which played the round (as it came out of the previous fit), on the decisions it played:
    measured after the round's own fit it would flatter the policy."""
    import copy

    states: list[tuple[dict[str, Any], Demonstrations]] = []
    real = pt.fit

    def spy(policy: Any, demos: Demonstrations, **kw: Any) -> Any:
        states.append((copy.deepcopy(policy.state_dict()), demos))
        return real(policy, demos, **kw)

    monkeypatch.setattr(pt, "fit", spy)
    cfg = _cfg(pretrain_samples=40, pretrain_epochs=3, pretrain_workers=1, pretrain_rounds=1)
    model = _bc_model(cfg)
    record = pt.pretrain(model, cfg, tmp_path)
    state, demos = states[1]
    played = demos.subset(np.arange(len(demos) - record["rounds"][1]["decisions"], len(demos)))
    model.policy.load_state_dict(state)
    assert record["rounds"][1]["on_policy_agreement"] == round(pt.agreement(model.policy, played), 4)


class _Clock:
    """A clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def time(self) -> float:
        return self.now


def test_the_record_times_collection_and_fit_per_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``collect_s`` is a round's collection, ``fit_s`` its fit, ``seconds`` the whole warm start
    (what ``train_summary.json`` adds as ``pretrain_s``): with a clock that advances 100 s per
    collection and 7 s per fit, two rounds read 100 / 7 each and 214 in all."""
    clock = _Clock()
    real_collect, real_fit = pt.collect_demonstrations, pt.fit

    def collect(*a: Any, **kw: Any) -> Any:
        clock.now += 100.0
        return real_collect(*a, **kw)

    def fit_(*a: Any, **kw: Any) -> Any:
        clock.now += 7.0
        return real_fit(*a, **kw)

    monkeypatch.setattr(pt, "time", types.SimpleNamespace(time=clock.time))
    monkeypatch.setattr(pt, "collect_demonstrations", collect)
    monkeypatch.setattr(pt, "fit", fit_)
    cfg = _cfg(pretrain_samples=20, pretrain_epochs=2, pretrain_workers=1, pretrain_rounds=1)
    record = pt.pretrain(_bc_model(cfg), cfg, tmp_path)
    assert [(r["collect_s"], r["fit_s"]) for r in record["rounds"]] == [(100.0, 7.0), (100.0, 7.0)]
    assert record["seconds"] == 214.0
    out = capsys.readouterr().out
    assert "pretraining done in 214s" in out
    assert len(re.findall(r"labelled by 'heuristic' \(100s\)", out)) == 2


def test_pretrain_prints_the_last_epoch_and_the_size_of_each_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The closing line quotes the last epoch of the last round (not the first), and each
    round's line the number of decisions that round fits on: all rounds so far."""
    cfg = _cfg(pretrain_samples=20, pretrain_epochs=3, pretrain_workers=1, pretrain_rounds=1)
    record = pt.pretrain(_bc_model(cfg), cfg, tmp_path)
    out = capsys.readouterr().out
    last = record["rounds"][-1]["epochs"][-1]
    first = record["rounds"][-1]["epochs"][0]
    assert last["policy_loss"] != first["policy_loss"]
    done = out[out.index("pretraining done") :]
    assert (
        f"policy loss {last['policy_loss']}, held-out agreement with the teacher {last['holdout_agreement']}"
        in done
    )
    assert f"where not every move is best: {last.get('holdout_agreement_nontrivial')})" in done
    sizes = [r["samples"] for r in record["rounds"]]
    assert sizes[1] == sum(r["decisions"] for r in record["rounds"])
    for r, size in enumerate(sizes):
        assert f"fitting 3 epochs on {size:,}" in out.split(f"pretraining round {r}:")[1].split("\n")[0]


def test_a_malformed_symmetry_is_refused_by_name() -> None:
    """A symmetry whose gathers do not fit the decisions (a game's ``symmetries()`` with the
    wrong size, or not a permutation) is refused by name before the fit changes anything; it
    was numpy's "all input arrays must have the same shape"."""
    policy = _policy(3, 4)
    for bad, words in (
        (
            Symmetry("wide", np.arange(5), np.arange(4)),
            r"'wide': obs_index must be a permutation of range\(3\)",
        ),
        (
            Symmetry("short", np.arange(3), np.arange(3)),
            r"'short': action_index .* range\(4\).* shape \(3,\)",
        ),
        (Symmetry("twice", np.array([0, 0, 1]), np.arange(4)), r"'twice': obs_index .* not a permutation"),
        (Symmetry("float", np.arange(3.0), np.arange(4)), r"'float': obs_index .* dtype float64$"),
    ):
        with pytest.raises(ValueError, match=words):
            fit(policy, _demos(), 1, 8, 0.5, 0.5, 0, learning_rate=0.5, symmetries=[bad])
        assert [g["lr"] for g in policy.optimizer.param_groups] == [1e-3]


def test_a_fit_that_fails_leaves_ppos_learning_rate() -> None:
    """``fit(..., learning_rate=...)`` puts PPO's rate back whatever happens: a fit that fails
    in its first minibatch (here the optimiser's step fails, as an out-of-memory error would),
    after the warm start's rate was set, must not leave that rate on the optimiser, where a
    caller going on would train PPO at it; a fit that runs ends at PPO's rate too. (Bad
    arguments, a network of other inputs among them, are refused before the rate is set.)"""

    policy = _policy(3, 4)
    rates: list[float] = []

    def failing_step(*args: Any, **kwargs: Any) -> None:
        rates.append(policy.optimizer.param_groups[0]["lr"])
        raise RuntimeError("the step failed")

    policy.optimizer.step = failing_step  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match=r"^the step failed$"):
        fit(policy, _demos(), 1, 8, 0.5, 0.5, 0, learning_rate=0.5)
    assert rates == [0.5], "the fit failed inside its loop, at the warm start's rate"
    assert [g["lr"] for g in policy.optimizer.param_groups] == [1e-3]
    policy = _policy(3, 4)
    log = fit(policy, _demos(), 1, 8, 0.5, 0.5, 0, learning_rate=0.5)
    assert log["learning_rate"] == 0.5 and [g["lr"] for g in policy.optimizer.param_groups] == [1e-3]
