"""Behaviours of resumed and saved runs, the warm start's log and seeds, and a few command-line
notes that a mutation round found unpinned: each test names what it pins and why.

The RLlib tests run a few PPO iterations of the tiny config of ``test_rllib`` on a local Ray
instance (skipped without the ``rllib`` extra); the SB3 ones train a few hundred steps in this
process through ``eightfold train``.
"""

from __future__ import annotations

import json
import pathlib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.training.conftest import first_two_player_game
from tests.training.test_interrupted_runs import _train
from training.cli import main

GAME = first_two_player_game()
needs_game = pytest.mark.skipif(GAME is None, reason="no real game installed yet")
OAO = ["over_and_out", "--param", "num_players=2"]


@pytest.fixture(scope="module")
def ray_up() -> Any:
    """A local Ray instance for this module (as ``test_rllib.ray_local``); skips without RLlib."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def _game() -> tuple[str, dict[str, Any]]:
    assert GAME is not None
    return GAME


# ------------------------------------------------------------------ SB3: resume, run files
def test_an_sb3_resume_seeds_its_envs_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resumed part of an SB3 run seeds its envs from ``resume_seed(seed, steps)``: with the
    config's seed alone (``MaskablePPO.load(seed=...)``) every env copy would be reset with the
    seeds the run began with, and deal its first games again."""
    import training.train as tt
    from training.config import resume_seed

    seeds: list[int] = []
    real_reset = tt.RunSeeded.reset

    def reset(self: Any, *, seed: int | None = None, options: Any = None) -> Any:
        if seed is not None:
            seeds.append(int(seed))
        return real_reset(self, seed=seed, options=options)

    monkeypatch.setattr(tt.RunSeeded, "reset", reset)
    out = tmp_path / "run"
    assert _train(out, 256, "--vec-env", "dummy") == 0
    first = set(seeds)
    seeds.clear()
    assert _train(out, 384, "--vec-env", "dummy", "--resume") == 0
    second = set(seeds)
    assert first == {0, 1}, "SB3 resets copy i with seed + i"
    assert second == {resume_seed(0, 256), resume_seed(0, 256) + 1}
    assert not first & second, "the resumed part deals other games"


def test_a_new_run_clears_an_rllib_runs_progress(tmp_path: Path) -> None:
    """A new run (either backend: ``clear_run``) in a folder that held an RLlib run removes its
    ``progress.json``: left there, the folder's learning curve would mix two runs."""
    from training.train import clear_run

    (tmp_path / "eightfold_rllib.json").write_text(json.dumps({"game": "over_and_out"}))
    (tmp_path / "progress.json").write_text("[]")
    (tmp_path / "notes.txt").write_text("not the run's")
    clear_run(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_cut_short_model_zip_is_passed_over_even_with_its_steps(tmp_path: Path) -> None:
    """A ``model.zip`` cut short by a kill is passed over although ``train_summary.json`` gives
    steps: the resume goes on from the whole checkpoint before it, at fewer steps."""
    from training.train import furthest_model, latest_model, latest_model_steps

    (tmp_path / "model.zip").write_bytes(b"PK\x03\x04 cut short")
    (tmp_path / "train_summary.json").write_text(json.dumps({"timesteps": 1024}))
    (tmp_path / "checkpoints").mkdir()
    whole = tmp_path / "checkpoints" / "model_512_steps.zip"
    with zipfile.ZipFile(whole, "w") as z:
        z.writestr("data", "{}")
    assert furthest_model(tmp_path) == (whole, 512)
    assert latest_model_steps(tmp_path) == (whole, 512) and latest_model(tmp_path) == whole


@pytest.mark.parametrize("mode", ["shared", "frozen"])
def test_self_play_is_refused_for_sb3(mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--self-play`` defaults to None (a resumed RLlib run keeps its own), so any value given
    to an SB3 run, ``shared`` included, is a usage error, not ignored."""
    argv = ["train", *OAO, "--out", str(tmp_path / "run"), "--self-play", mode, "--resume"]
    assert main(argv) == 2
    assert "--self-play: for --backend rllib only" in capsys.readouterr().err


# ------------------------------------------------------------------ RLlib: saves
def test_a_checkpoint_holds_its_record_before_it_is_swapped_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``save_run`` writes the run record into ``checkpoint.new`` before renaming it to
    ``checkpoint``: a kill right after the swap must leave a checkpoint that a resume can read
    (a record written after the swap would be missing from it)."""
    from training.rllib.train import RUN_RECORD, save_run

    class Algo:
        def save_to_path(self, path: str) -> None:
            Path(path).mkdir(parents=True)
            (Path(path) / "weights").write_text("w")

    swaps: list[bool] = []
    real_rename = pathlib.Path.rename

    def rename(self: Path, target: Any) -> Any:
        if self.name == "checkpoint.new":
            swaps.append((self / RUN_RECORD).is_file())
        return real_rename(self, target)

    monkeypatch.setattr(pathlib.Path, "rename", rename)
    run_dir = tmp_path / "run"
    meta = {"format": 1, "game": "over_and_out"}
    for steps in (128, 256):  # the first save, then one that replaces a checkpoint
        row = {"iteration": steps / 128, "env_steps": float(steps)}
        save_run(Algo(), run_dir, meta, {"timesteps": 512}, [row])
    assert swaps == [True, True]
    record = json.loads((run_dir / "checkpoint" / RUN_RECORD).read_text())
    assert record["progress"][-1]["env_steps"] == 256 and record["meta"] == meta


def _spy_saves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The env steps of the last progress row at each ``save_run`` (which then runs)."""
    import training.rllib.train as rl

    saves: list[int] = []
    real = rl.save_run

    def save_run(algo: Any, run_dir: Path, meta: Any, config: Any, log: list[dict[str, Any]]) -> None:
        saves.append(int(log[-1]["env_steps"]))
        real(algo, run_dir, meta, config, log)

    monkeypatch.setattr(rl, "save_run", save_run)
    return saves


@needs_game
def test_rllib_saves_when_the_steps_cross_a_multiple_of_checkpoint_every(
    ray_up: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """128 env steps an iteration, ``checkpoint_every`` 200, 4 iterations: the steps cross 200
    in the second iteration (a save at 256) and 400 in the last, whose save is the run's end
    save (at 512), not a second one; iterations that cross no multiple save nothing."""
    from tests.training.test_rllib import TINY, _args
    from training.rllib.train import train_rllib

    saves = _spy_saves(monkeypatch)
    name, params = _game()
    config = {**TINY, "checkpoint_every": 200, "opponents": "random", "timesteps": 10_000}
    train_rllib(_args(name, tmp_path / "run", "--iterations", "4"), params, config)
    assert saves == [256, 512]


@needs_game
def test_a_second_ctrl_c_saves_nothing(ray_up: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two Ctrl-Cs in the third iteration: the algorithm may be mid-update, so the run stays as
    its periodic save of the second iteration left it: that is the only save."""

    import training.rllib.train as rl
    from tests.training.test_rllib import SAVING, _args, before_train_call, sigints

    saves = _spy_saves(monkeypatch)
    monkeypatch.setattr(rl, "_train_loop", before_train_call(3, sigints(2)))
    name, params = _game()
    with pytest.raises(KeyboardInterrupt):
        rl.train_rllib(_args(name, tmp_path / "run"), params, {**SAVING, "timesteps": 10_000})
    assert saves == [256], "the periodic save of iteration 2, and no other"


# ------------------------------------------------------------------ RLlib: resume checks
#: net_arch at the top level of the config (as ``--set net_arch=[...]`` puts it), not under ppo:
TOP_NET = {
    "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
    "net_arch": [32],
    "opponents": "random",
    "checkpoint_every": 256,
    "timesteps": 10_000,
}


@pytest.fixture(scope="module")
def top_net_run(ray_up: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One iteration (128 env steps) of a run whose net_arch is a top-level setting."""
    from tests.training.test_rllib import _args
    from training.rllib.train import train_rllib

    name, params = _game()
    run_dir = tmp_path_factory.mktemp("rllib") / "run"
    return train_rllib(_args(name, run_dir, "--iterations", "1"), params, TOP_NET)


@needs_game
def test_a_resume_refuses_another_top_level_net_arch(top_net_run: Path) -> None:
    """``net_arch`` is one of the settings fixed for a resume even where it is a top-level key
    (not inside ``ppo:``): the saved weights are of that network."""
    from tests.training.test_rllib import _resume_args
    from training.rllib.train import train_rllib

    name, params = _game()
    before = {p.name: p.stat().st_mtime_ns for p in top_net_run.iterdir()}
    with pytest.raises(ValueError, match="net_arch cannot change"):
        train_rllib(_resume_args(name, top_net_run), params, {**TOP_NET, "net_arch": [16]})
    assert {p.name: p.stat().st_mtime_ns for p in top_net_run.iterdir()} == before, "nothing written"


@needs_game
def test_a_resume_needs_timesteps_beyond_the_steps_done(top_net_run: Path) -> None:
    """``--timesteps`` equal to the steps done is refused as below them: the resume would train
    nothing (and say it resumed)."""
    from tests.training.test_rllib import _resume_args
    from training.rllib.train import train_rllib

    name, params = _game()
    steps = int(json.loads((top_net_run / "progress.json").read_text())[-1]["env_steps"])
    assert steps == 128
    with pytest.raises(ValueError, match="at 128 env steps already; give --timesteps above that"):
        train_rllib(_resume_args(name, top_net_run), params, {**TOP_NET, "timesteps": steps})


@needs_game
def test_a_frozen_self_play_run_resumes_with_its_opponent(
    ray_up: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``--self-play frozen`` run saves the step of its last snapshot; resumed without
    ``--self-play`` it keeps its mode (not the default ``shared``, which would be refused as a
    change), and its frozen opponent comes back as saved, not as a fresh copy of ``main``."""
    import training.rllib.train as rl
    from tests.training.test_rllib import TINY, _args, _module_state, _resume_args

    name, params = _game()
    run_dir = tmp_path / "run"
    config = {**TINY, "opponents": "self", "snapshot_every": 256, "timesteps": 10_000}
    rl.train_rllib(_args(name, run_dir, "--iterations", "3", "--self-play", "frozen"), params, config)
    record = json.loads((run_dir / "checkpoint" / "eightfold_run.json").read_text())
    assert record["meta"]["snapshot_steps"] == 256 and record["meta"]["self_play"] == "frozen"
    opponent = _module_state(run_dir / "checkpoint", "opponent")
    main_state = _module_state(run_dir / "checkpoint", "main")
    assert any(not np.array_equal(opponent[k], main_state[k]) for k in opponent), (
        "main trained on after the snapshot at 256"
    )

    seen: dict[str, Any] = {}
    real_loop = rl._train_loop

    def check_restored(algo: Any, *rest: Any) -> None:
        state = algo.learner_group.get_state(components="learner/rl_module/opponent")
        seen["opponent"] = {k: np.asarray(v) for k, v in state["learner"]["rl_module"]["opponent"].items()}
        real_loop(algo, *rest)

    monkeypatch.setattr(rl, "_train_loop", check_restored)
    rl.train_rllib(_resume_args(name, run_dir, "--iterations", "1"), params, config)
    assert seen["opponent"].keys() == opponent.keys()
    for key, value in opponent.items():
        np.testing.assert_array_equal(seen["opponent"][key], value, err_msg=key)
    meta = json.loads((run_dir / "eightfold_rllib.json").read_text())
    assert meta["self_play"] == "frozen" and meta["snapshot_steps"] == 512


# ------------------------------------------------------------------ the warm start
def test_the_fit_log_reads_agreement_against_the_trivial_decisions() -> None:
    """``holdout_trivial_share`` is the share of held-out decisions where every legal move is
    best (``chance_levels``), and ``holdout_agreement_nontrivial`` the agreement on the others:
    held out here are one trivial decision and three that are not, two of them the same
    position with different best moves (so no policy agrees on every non-trivial one)."""
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from training.pretrain import Demonstrations, agreement_rows, chance_levels, fit

    rng = np.random.default_rng(0)
    n, k = 40, 4  # holdout 0.1: the last 4 decisions
    obs = rng.random((n, 3)).astype(np.float32)
    masks = np.ones((n, 4), dtype=bool)
    best = np.zeros((n, 4), dtype=bool)
    best[np.arange(n), rng.integers(4, size=n)] = True
    obs[-2] = obs[-3]
    masks[-4] = [True, True, False, False]
    best[-4:] = [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]  # trivial, then three not
    demos = Demonstrations.of(obs, masks, best.argmax(1), np.zeros(n, np.float32), 1, best)
    space = gym.spaces.Box(0.0, 1.0, (3,), np.float32)
    policy = MaskableActorCriticPolicy(space, gym.spaces.Discrete(4), lambda _: 1e-3, net_arch=[8])
    log = fit(policy, demos, epochs=2, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    test = demos.subset(np.arange(n - k, n))
    _chance, trivial = chance_levels(test)
    assert trivial.tolist() == [True, False, False, False]
    assert log["holdout_trivial_share"] == round(float(trivial.mean()), 4) == 0.25
    hits = agreement_rows(policy, test)
    nontrivial = log["epochs"][-1]["holdout_agreement_nontrivial"]
    assert nontrivial == round(float(hits[~trivial].mean()), 4) < 1.0
    assert log["epochs"][-1]["holdout_agreement"] == round(float(hits.mean()), 4)


def test_dagger_rounds_collect_and_fit_with_their_own_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 0 collects at ``seed + 31337`` and fits at ``seed``, as ever; each DAgger round r
    collects and fits with ``dagger_seeds(seed, r)``, a pair drawn from both (not round 0's)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    import training.pretrain as pt
    from tests.training.test_pretrain import _cfg
    from training.train import build_single_env

    assert pt.dagger_seeds(5, 0) == (5 + 31337, 5)
    collected: list[int] = []
    fitted: list[int] = []
    real_collect, real_fit = pt.collect_demonstrations, pt.fit

    def collect(cfg: Any, samples: int, seed: int, *rest: Any, **kw: Any) -> Any:
        collected.append(seed)
        return real_collect(cfg, samples, seed, *rest, **kw)

    def fit(*args: Any, **kw: Any) -> Any:
        fitted.append(kw["seed"])
        return real_fit(*args, **kw)

    monkeypatch.setattr(pt, "collect_demonstrations", collect)
    monkeypatch.setattr(pt, "fit", fit)
    cfg = _cfg(seed=5, pretrain_samples=10, pretrain_epochs=1, pretrain_workers=1, pretrain_rounds=2)
    vec = DummyVecEnv([lambda: build_single_env(cfg)[0]])
    model = MaskablePPO("MlpPolicy", vec, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")
    pt.pretrain(model, cfg, tmp_path)
    assert collected == [pt.dagger_seeds(5, r)[0] for r in range(3)]
    assert fitted == [pt.dagger_seeds(5, r)[1] for r in range(3)]
    assert len(set(collected)) == len(set(fitted)) == 3


# ------------------------------------------------------------------ eval, play, render
def test_eval_notes_games_that_do_not_split_evenly_over_two_seats(capsys: pytest.CaptureFixture[str]) -> None:
    """3 games over 2 seats put the first player first once more than second: the note is
    printed for a two-player game too, not only for more seats."""
    argv = ["eval", *OAO, "--players", "random", "greedy", "--games", "3", "--workers", "1"]
    assert main(argv) == 0
    assert "note: 3 games over 2 seats put the first player in seat 0 once more" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", *OAO, "--random", "--seed", "7", "--max-steps", "3"],
        ["render", *OAO, "--seed", "7", "--steps", "3", "--out", "{tmp}/pos.png"],
    ],
    ids=["play", "render"],
)
def test_random_moves_have_a_stream_of_their_own(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --random`` and ``render`` draw their random moves from ``default_rng([seed, 1])``:
    ``default_rng(seed)`` is the stream the deal itself is drawn from, so the moves would follow
    the deal's own draws."""
    seeds: list[Any] = []
    real = np.random.default_rng

    def default_rng(seed: Any = None) -> Any:
        seeds.append(seed)
        return real(seed)

    monkeypatch.setattr(np.random, "default_rng", default_rng)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 0
    capsys.readouterr()
    lists = [list(s) for s in seeds if isinstance(s, (list, tuple))]
    assert [7, 1] in lists, seeds
