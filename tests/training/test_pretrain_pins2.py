"""Pins on the behaviour-cloning warm start (``training/pretrain.py``) that a second mutation
round found unguarded: when collection stops, how the held-out share is sized, which seeds the
DAgger rounds draw, what ``pretrain()`` prints and records, and which options it honours."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import training.pretrain as pt
from tests.training.test_pretrain import _cfg
from training.pretrain import Demonstrations, fit


def _policy(obs_dim: int, num_actions: int) -> Any:
    """A fresh small ``MaskableActorCriticPolicy`` (the same weights on every call)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    space = gym.spaces.Box(-1.0, 1.0, (obs_dim,), np.float32)
    return MaskableActorCriticPolicy(space, gym.spaces.Discrete(num_actions), lambda _: 1e-3, net_arch=[8])


def _demos(n: int, obs_dim: int = 3, num_actions: int = 4, seed: int = 0) -> Demonstrations:
    """``n`` random decisions, every move legal, one best move each, random returns."""
    rng = np.random.default_rng(seed)
    obs = rng.random((n, obs_dim)).astype(np.float32)
    masks = np.ones((n, num_actions), dtype=bool)
    actions = rng.integers(num_actions, size=n)
    return Demonstrations.of(obs, masks, actions, rng.normal(size=n).astype(np.float32), 1)


def _bc_model(cfg: dict[str, Any]) -> Any:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.train import build_single_env

    vec = DummyVecEnv([lambda: build_single_env(cfg)[0]])
    return MaskablePPO("MlpPolicy", vec, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")


# ------------------------------------------------------------------ collection
def test_a_collection_that_fills_its_count_exactly_plays_no_more_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asking for exactly the decisions one chunk of 16 episodes holds collects that chunk alone:
    a loop that went on while the count was merely reached would play (and fit) more games than
    asked for, or never end (chunks are counted here, and a fourth one refused)."""
    one = pt.collect_demonstrations(_cfg(), 1, seed=9)
    assert one.episodes == pt.EPISODES_PER_CHUNK
    chunks: list[int] = []
    real = pt._collect_chunk

    def counted(task: Any) -> Demonstrations:
        chunks.append(task[2])
        assert len(chunks) <= 3, "the collection goes on past its count"
        return real(task)

    monkeypatch.setattr(pt, "_collect_chunk", counted)
    exact = pt.collect_demonstrations(_cfg(), len(one), seed=9)
    assert chunks == [0], f"chunks played from episodes {chunks}"
    assert exact.episodes == pt.EPISODES_PER_CHUNK and len(exact) == len(one)


# ------------------------------------------------------------------ the fit
@pytest.mark.parametrize(("n", "n_train"), [(10, 10), (11, 10), (47, 42), (45, 41)])
def test_the_held_out_share_is_the_rounded_tenth_past_ten_decisions(n: int, n_train: int) -> None:
    """Up to 10 decisions nothing is held out; past that the last ``round(0.1 * n)`` are (47
    decisions hold out 5, not the 4 a truncation gives). A failure means the record's ``train``
    and held-out agreement are taken on other decisions than documented."""
    log = fit(_policy(3, 4), _demos(n), epochs=0, batch_size=8, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    assert (log["samples"], log["train"]) == (n, n_train)
    assert ("holdout_chance_agreement" in log) == (n_train < n)


def test_dagger_rounds_draw_other_seeds_at_other_run_seeds() -> None:
    """A DAgger round's collection and fit seeds come from the run's seed and the round together:
    runs at different seeds (and neighbouring ones) play different DAgger games, and no round
    replays round 0 of a neighbouring run."""
    pairs = {(s, r): pt.dagger_seeds(s, r) for s in range(5, 9) for r in range(3)}
    assert len(set(pairs.values())) == len(pairs), "every (seed, round) has its own seeds"
    assert pt.dagger_seeds(6, 1) != pt.dagger_seeds(5, 1)
    assert all(pt.dagger_seeds(s, 0) == (s + 31337, s) for s in range(5, 9))


# ------------------------------------------------------------------ pretrain(): what it prints
@pytest.fixture(scope="module")
def two_rounds(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """A warm start of two rounds (the teacher's, then one DAgger round) of two epochs each, on
    Over and Out against a heuristic opponent (PPO's opponents being random and heuristic ones):
    its record and what it printed."""
    cfg = _cfg(
        pretrain_samples=20,
        pretrain_epochs=2,
        pretrain_workers=1,
        pretrain_rounds=1,
        pretrain_opponents={"heuristic": 1.0},
    )
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        record = pt.pretrain(_bc_model(cfg), cfg, tmp_path_factory.mktemp("bc"))
    return record, buf.getvalue()


def test_pretrain_prints_each_epoch_of_each_round(two_rounds: tuple[dict[str, Any], str]) -> None:
    """Every epoch of every round prints its line, numbered from 1 of the round's epochs, with
    the losses, held-out agreement and its non-trivial part the record holds (a silent fit
    leaves a long warm start without a sign of progress; an off-by-one says ``epoch 0/2``)."""
    record, out = two_rounds
    lines = [line for line in out.splitlines() if line.startswith("  epoch ")]
    assert len(lines) == 4, out
    rows = [row for r in record["rounds"] for row in r["epochs"]]
    for line, row, number in zip(lines, rows, (1, 2, 1, 2), strict=True):
        assert line.startswith(
            f"  epoch {number}/2: policy loss {row['policy_loss']}, value loss {row['value_loss']}, "
            f"held-out agreement {row['holdout_agreement']}"
        ), line
        assert line.endswith(
            f"decisions where not every move is best: {row.get('holdout_agreement_nontrivial')})"
        ), line


def test_each_round_line_names_who_played_against_whom(two_rounds: tuple[dict[str, Any], str]) -> None:
    """A two-player warm start says it played against the collection's opponents (not ``alone
    (solo)``, nor PPO's ``opponents`` when ``pretrain_opponents`` replaces them), and each round
    who played it and how many decisions it gave (its own, not all so far)."""
    record, out = two_rounds
    heads = [line for line in out.splitlines() if line.startswith("pretraining round")]
    assert len(heads) == 2 and "solo" not in out
    assert record["rounds"][1]["decisions"] != record["rounds"][1]["samples"]
    for r, (line, row) in enumerate(zip(heads, record["rounds"], strict=True)):
        who = "teacher" if r == 0 else "policy"
        assert line.startswith(
            f"pretraining round {r}: {row['decisions']:,} decisions played by {who} "
            f"against {{'heuristic': 1.0}}, labelled by 'heuristic'"
        ), line


def test_the_closing_line_reads_against_the_last_rounds_chance(
    two_rounds: tuple[dict[str, Any], str],
) -> None:
    """The closing line's chance level is that of the held-out decisions its agreement was
    measured on, the last round's (round 0's held-out set is another one)."""
    record, out = two_rounds
    first, last = (r["holdout_chance_agreement"] for r in (record["rounds"][0], record["rounds"][-1]))
    assert first != last, "the test tells the two rounds apart"
    done = out[out.index("pretraining done") :]
    assert re.search(rf"\(a random legal move: {re.escape(str(last))}; where not every move is best", done), (
        done
    )


# ------------------------------------------------------------------ pretrain(): options honoured
def test_a_game_with_symmetries_is_not_augmented_unless_asked(tmp_path: Path) -> None:
    """OTTO Game Over declares three turns of the board, but without ``pretrain_symmetries`` the
    fit shows every decision as it was played (the record names no symmetries): augmentation
    is an option, not the game's default."""
    cfg = _cfg(
        env="otto_game_over",
        params={"num_players": 2, "episode": "match"},
        opponents={"random": 1.0},
        pretrain_teacher="greedy",
        pretrain_samples=30,
        pretrain_epochs=1,
        pretrain_workers=1,
        batch_size=32,
    )
    model = _bc_model(cfg)
    seen: list[np.ndarray] = []
    get = model.policy.get_distribution

    def spy(obs: Any, action_masks: Any = None) -> Any:
        if model.policy.training:
            seen.append(obs.numpy().copy())
        return get(obs, action_masks=action_masks)

    model.policy.get_distribution = spy
    record = pt.pretrain(model, cfg, tmp_path)
    assert "symmetries" not in record["rounds"][0]
    played = {row.tobytes() for row in pt.collect_demonstrations(cfg, 30, pt.dagger_seeds(0, 0)[0]).obs[:]}
    shown = np.concatenate(seen)
    assert len(shown) == record["rounds"][0]["train"]
    assert all(row.tobytes() in played for row in shown), "a decision was shown turned"


def test_a_truncated_teacher_game_ends_its_episode() -> None:
    """A game cut off at its length limit (Over and Out's ``max_plays``) ends the teacher's
    episode as a finished one does: each episode then holds at most ``max_plays`` of the
    learner's decisions, and its returns are those of its own rewards (a collection that
    waited for a termination stepped a finished game)."""
    cfg = _cfg(params={"num_players": 2, "max_plays": 4})
    demos = pt._collect_chunk((cfg, 3, 0, 6, None))
    assert demos.episodes == 6
    assert 6 <= len(demos) <= 6 * 4
    assert np.all(np.abs(demos.returns) <= 1.0 + 1e-6)
