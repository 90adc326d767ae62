"""``eightfold bench``: the learner-throughput measurement (``training.throughput``) and the
env-stepping table, as smoke runs with tiny budgets (the numbers themselves are benchmarks)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from training.throughput import NULL_EPISODE, NullView, Timed, format_result, run_learner_bench


def test_null_view_is_a_valid_env_with_fixed_episodes() -> None:
    obs = np.arange(6, dtype=np.float32).reshape(2, 3)
    mask = np.array([True, False, True, True])
    env = NullView(obs, mask, 4)
    check_env(env, skip_render_check=True)
    o, _ = env.reset(seed=1)
    assert np.array_equal(o, obs) and o.dtype == np.float32
    lengths, steps, total = [], 0, 0.0
    for _ in range(3 * NULL_EPISODE):
        assert np.array_equal(env.action_masks(), mask)
        _o, r, term, trunc, _i = env.step(0)
        steps += 1
        total += r
        assert not trunc
        if term:
            lengths.append(steps)
            steps = 0
            env.reset()
    assert lengths == [NULL_EPISODE] * 3 and total == 3.0


def test_null_view_replays_recorded_decisions_in_turn() -> None:
    from envs.core.bots import RandomBot
    from envs.core.registry import get_game
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv
    from training.throughput import record_decisions

    game = get_game("otto_octopus").game_class()(num_players=2)
    obs, masks = record_decisions(SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game))), 5, seed=2)
    assert len(obs) == len(masks) == 5 and all(m.any() for m in masks)
    assert len({m.tobytes() for m in masks}) > 1  # real, changing masks
    env = NullView(obs, masks, len(masks[0]))
    check_env(env, skip_render_check=True)
    o, _ = env.reset(seed=0)
    seen = []
    for _ in range(10):
        seen.append((o.tobytes(), env.action_masks().tobytes()))
        o, *_ = env.step(0)
    assert seen[:5] == seen[5:] and len(set(seen)) == len(
        {(a.astype(np.float32).tobytes(), m.tobytes()) for a, m in zip(obs, masks, strict=True)}
    )
    with pytest.raises(ValueError, match="as many observations as masks"):
        NullView(obs, masks[:3], len(masks[0]))


class _Slow(NullView):
    def step(self, action: Any) -> Any:
        time.sleep(0.01)
        return super().step(action)


def test_timed_wrapper_adds_env_time_and_passes_masks_through() -> None:
    mask = np.array([False, True])
    clock = [0.0]
    env = Timed(_Slow(np.zeros(3), mask, 2), clock)
    env.reset(seed=0)
    assert np.array_equal(env.action_masks(), mask)
    for _ in range(5):
        env.step(1)
    assert 0.05 <= clock[0] < 1.0


def test_learner_bench_reports_rates_shares_and_the_null_env_ceiling() -> None:
    r = run_learner_bench("over_and_out", {"num_players": 2}, timesteps=256, repeats=1)
    assert r["n_actions"] == 12 and r["network"] == "MLP" and r["params"]["num_players"] == 2
    assert r["policy"] == "masked"  # the config's default, what `eightfold train` uses
    for key in ("game_steps_per_s", "connect_four_steps_per_s", "null_env_steps_per_s"):
        assert r[key] > 0
    assert abs(r["ratio"] - r["game_steps_per_s"] / r["connect_four_steps_per_s"]) < 2e-3
    assert abs(r["ratio_to_null_env"] - r["game_steps_per_s"] / r["null_env_steps_per_s"]) < 2e-3
    assert 0.0 < r["game_env_share"] < 1.0 and 0.0 < r["connect_four_env_share"] < 1.0
    # the null env costs next to nothing: its share is far below the real game's
    assert max(r["env_shares"]["null"]) < r["game_env_share"]
    text = format_result(r)
    assert "null-env ceiling" in text and "12 actions" in text and "in the env" in text


def test_bench_command_measures_the_reference_and_the_game() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "training.cli", "bench", "--games", "over_and_out", "--seconds", "0.2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "connect_four_v3" in out.stdout and "over_and_out" in out.stdout
    assert "engine" in out.stdout and "env()" in out.stdout


def test_bench_openspiel_rows_play_through_pyspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--openspiel`` adds a ``pyspiel`` row per configuration; without the extra it is an
    error naming the flag and the install."""
    from training.bench import run_bench

    if importlib.util.find_spec("pyspiel") is not None:
        rows = run_bench(["otto_octopus"], 0.05, openspiel=True)
        spiel = [r for r in rows if r.mode == "pyspiel"]
        assert [r.name for r in spiel] == [r.name for r in rows if r.mode == "engine"]
        assert all(r.steps_per_s > 0 and r.games_per_s > 0 for r in spiel)
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if the extra were not installed
    monkeypatch.delitem(sys.modules, "envs.core.openspiel", raising=False)
    with pytest.raises(ValueError, match=r"--openspiel: .*pip install 'eightfold\[openspiel\]'"):
        run_bench(["otto_octopus"], 0.05, openspiel=True)


def test_learner_bench_with_sb3_contribs_policy() -> None:
    r = run_learner_bench("over_and_out", {"num_players": 2}, timesteps=128, repeats=1, policy="sb3")
    assert r["policy"] == "sb3" and "sb3 policy" in format_result(r)


def test_learner_bench_set_changes_the_network_of_both_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--set net_arch=[16,16]``: every ``learn()`` of the measurement (the game, connect_four_v3
    and the null env) builds that network, and the result says so."""
    import training.throughput as tp

    seen: list[list[int]] = []
    learn_rate = tp._learn_rate

    def spy(cfg: Any, make: Any, timesteps: int, obs_shape: tuple[int, ...]) -> tuple[float, float]:
        seen.append(list(cfg.net_arch))
        return learn_rate(cfg, make, timesteps, obs_shape)

    monkeypatch.setattr(tp, "_learn_rate", spy)
    r = run_learner_bench(
        "over_and_out", {"num_players": 2}, timesteps=128, repeats=1, settings={"net_arch": [16, 16]}
    )
    assert seen == [[16, 16]] * 3 and r["net_arch"] == [16, 16]
    assert "MLP 16x16" in format_result(r)
    with pytest.raises(ValueError, match=r"--set: unknown training option\(s\) \['net_size'\]"):
        run_learner_bench(
            "over_and_out", {"num_players": 2}, timesteps=128, repeats=1, settings={"net_size": 1}
        )


def test_learner_bench_builds_maskableppo_with_every_ppo_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's model gets the same PPO settings ``eightfold train`` passes (gamma,
    clip_range, ... were left at SB3's defaults), torch gets the config's ``torch_threads``, and
    an option the benchmark does not use (opponents, warm start, ...) is refused by name."""
    import sb3_contrib
    import torch

    seen: list[dict[str, Any]] = []
    real = sb3_contrib.MaskablePPO

    class Spy(real):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            seen.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sb3_contrib, "MaskablePPO", Spy)
    settings = {"gamma": 0.5, "gae_lambda": 0.7, "clip_range": 0.05, "vf_coef": 0.3, "max_grad_norm": 2.0}
    threads = torch.get_num_threads()
    try:
        run_learner_bench(
            "over_and_out",
            {"num_players": 2},
            timesteps=64,
            repeats=1,
            settings={**settings, "n_steps": 64, "batch_size": 64, "torch_threads": 2},
        )
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)
    assert len(seen) == 3  # the game, connect_four_v3 and the null env
    for kwargs in seen:
        assert {k: kwargs[k] for k in settings} == settings and kwargs["n_steps"] == 64
    for key, value in (("opponents", "heuristic"), ("pretrain_samples", 100), ("vec_env", "subproc")):
        with pytest.raises(ValueError, match=f"--set {key}: not used by the learner benchmark"):
            run_learner_bench(
                "over_and_out", {"num_players": 2}, timesteps=64, repeats=1, settings={key: value}
            )


def test_learner_bench_rejects_an_unknown_policy() -> None:
    with pytest.raises(ValueError, match="policy must be one of"):
        run_learner_bench("over_and_out", {"num_players": 2}, timesteps=128, repeats=1, policy="fast")


def test_learner_bench_without_pygame_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """PettingZoo's connect_four_v3 (the reference) imports pygame: without it ``bench
    --learner`` was a ``ModuleNotFoundError`` traceback; now an error naming what to install
    (the ``train`` extra now brings pygame)."""
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)
    with pytest.raises(ValueError, match="needs pygame .*pip install pygame"):
        run_learner_bench("over_and_out", {"num_players": 2}, timesteps=128, repeats=1)


def test_the_train_extra_brings_the_bench_reference() -> None:
    """``eightfold bench``'s reference row needs pygame: the main job's ``[train]`` install has it."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    train = re.search(r"^train = \[(.*?)^\]", text, re.S | re.M)
    assert train is not None and re.search(r'^\s*"pygame[>=<]', train.group(1), re.M)
