"""A second mutation round on the RLlib backend (``training/rllib``): what the first round
(``test_rllib_pins.py``) left unpinned in the config translation, the snapshot cadence, the
resume checks, the save cadence and what a run prints and writes. Each test names what a
failure would mean.

Ray is never started: a whole ``train_rllib`` runs on a stand-in ``Algorithm`` (``_Algo``)
built where ``build_config`` would build RLlib's, so the trainer's own bookkeeping (files,
rows, messages, resume) is exercised in well under a second. Skipped without the ``rllib``
extra.
"""

from __future__ import annotations

import argparse
import json
import shlex
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

pytest.importorskip("ray.rllib")

import training.rllib.train as rt  # noqa: E402
from tests.training.conftest import TOY_BOTS  # noqa: E402
from tests.training.test_rllib_pins import _args as rllib_args  # noqa: E402
from tests.training.toy_game import ToyGame  # noqa: E402
from training.config import resume_seed  # noqa: E402
from training.params import parse_params  # noqa: E402
from training.rllib.common import MAIN, META_FILE, OPPONENT, find_run_dir  # noqa: E402
from training.rllib.env import EightfoldMultiAgentEnv, make_game  # noqa: E402
from training.rllib.policy import RLlibPolicy  # noqa: E402
from training.rllib.train import (  # noqa: E402
    RUN_RECORD,
    _check_address,
    _snapshot_callback,
    _train_loop,
    build_config,
    check_rllib_resume,
    make_env_config,
    training_kwargs,
)

GAME = "over_and_out"
PARAMS: dict[str, Any] = {"num_players": 2}


def _args(run_dir: Path, *extra: str, env: str = GAME) -> argparse.Namespace:
    """``eightfold train`` flags as ``train_rllib`` gets them (``test_rllib_pins._args``)."""
    return rllib_args(env, run_dir, *extra)


# ------------------------------------------------------------------ a run without Ray
class _Algo:
    """A stand-in for RLlib's ``Algorithm``: each ``train()`` samples ``per_iter`` more env
    steps; a checkpoint is a folder holding the step count, which ``restore_from_path`` reads."""

    def __init__(self, per_iter: int = 128) -> None:
        self.steps = 0
        self.per_iter = per_iter
        self.restored: list[str] = []

    def train(self) -> dict[str, Any]:
        self.steps += self.per_iter
        return {
            "env_runners": {
                "num_env_steps_sampled_lifetime": self.steps,
                "module_episode_returns_mean": {MAIN: 0.25, OPPONENT: -0.25},
                "episode_return_mean": 0.0,
                "episode_len_mean": 12.0,
            }
        }

    def save_to_path(self, path: str) -> None:
        Path(path).mkdir(parents=True)
        (Path(path) / "steps").write_text(str(self.steps))

    def restore_from_path(self, path: str) -> None:
        self.steps = int((Path(path) / "steps").read_text())
        self.restored.append(path)

    def stop(self) -> None:
        pass


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``train_rllib`` on ``_Algo``: Ray is not started, what ``build_config`` gets is kept in
    the dict returned, with each save's number of progress rows (``saves``)."""
    import torch

    seen: dict[str, Any] = {"saves": []}
    real_save = rt.save_run

    class _Config:
        def build_algo(self) -> _Algo:
            seen["algo"] = _Algo()
            return seen["algo"]

    def build_config(
        env_config: Any, config: Any, args: Any, snapshot_steps: Any = None, seed: Any = None
    ) -> _Config:
        seen.update(env_config=env_config, args=args, snapshot_steps=snapshot_steps, seed=seed)
        return _Config()

    def save_run(algo: Any, run_dir: Path, meta: Any, config: Any, log: list[dict[str, Any]]) -> None:
        seen["saves"].append(len(log))
        real_save(algo, run_dir, meta, config, log)

    monkeypatch.setattr(rt, "_init_ray", lambda args: None)
    monkeypatch.setattr(rt, "build_config", build_config)
    monkeypatch.setattr(rt, "save_run", save_run)
    threads = torch.get_num_threads()
    yield seen
    torch.set_num_threads(threads)


SAVING: dict[str, Any] = {"opponents": "random", "timesteps": 512, "checkpoint_every": 256}


def test_a_run_saves_at_each_multiple_of_checkpoint_every_and_once_at_the_end(
    tmp_path: Path, no_ray: dict[str, Any]
) -> None:
    """With ``checkpoint_every`` 256 and 128 steps an iteration, a 512-step run saves at 256 and
    at the end only: the config's ``checkpoint_every`` ignored (the 50,000 default) saves once,
    a save every iteration costs a checkpoint each, and the last iteration saved twice."""
    rt.train_rllib(_args(tmp_path / "run"), PARAMS, dict(SAVING))
    assert no_ray["saves"] == [2, 4]


def test_a_run_writes_its_metadata_progress_and_config(tmp_path: Path, no_ray: dict[str, Any]) -> None:
    """``eightfold_rllib.json`` holds what a resume checks (the seed and self-play mode among
    them), ``config.yaml`` the resolved config, ``progress.json`` a row per iteration, and no
    ``checkpoint.old/`` is left beside the new checkpoint (a whole second copy of the weights)."""
    run = tmp_path / "run"
    rt.train_rllib(_args(run, "--seed", "5"), PARAMS, dict(SAVING))
    meta = json.loads((run / META_FILE).read_text())
    assert meta == {
        "format": 1,
        "module": MAIN,
        "game": GAME,
        "params": PARAMS,
        "opponents": {"random": 1.0},
        "self_play": "shared",
        "seed": 5,
        "snapshot_steps": 0,
    }
    assert yaml.safe_load((run / "config.yaml").read_text()) == SAVING
    rows = json.loads((run / "progress.json").read_text())
    assert [r["env_steps"] for r in rows] == [128.0, 256.0, 384.0, 512.0]
    assert sorted(p.name for p in run.iterdir()) == [
        "checkpoint",
        "config.yaml",
        META_FILE,
        "progress.json",
    ]
    assert json.loads((run / "checkpoint" / RUN_RECORD).read_text())["meta"] == meta


def test_a_run_prints_its_rows_and_a_play_command_that_reads_back(
    tmp_path: Path, no_ray: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each iteration prints main's return and the episode length under their own names, and
    the closing ``eightfold play`` command passes the trained parameters as ``--param`` flags
    that read back to the same values (a dict written with Python's repr reads back as a
    string)."""
    params = {"num_players": 2, "deck_counts": {"0": 9, "x2": 4}}
    run = tmp_path / "run"
    rt.train_rllib(_args(run, "--iterations", "1"), params, dict(SAVING))
    out = capsys.readouterr().out
    assert "steps       128" in out
    assert "main's summed return +0.250  episode length 12.0" in out
    (line,) = (x for x in out.splitlines() if x.startswith("saved "))
    assert line.startswith(f"saved {run / 'checkpoint'} (play it with: eightfold play {GAME} ")
    words = shlex.split(line.removesuffix(")").split("eightfold play ", 1)[1])
    assert words[-2:] == ["--vs", str(run)]
    flags = [words[i + 1] for i, w in enumerate(words) if w == "--param"]
    assert parse_params(flags) == params


def test_a_resume_goes_on_from_the_saved_rows_and_steps(
    tmp_path: Path, no_ray: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """A resumed part restores the checkpoint, says at how many steps it resumes (the steps
    done, not the target), is seeded from the *last* row's steps, and ``progress.json`` keeps
    the first part's rows before its own."""
    run = tmp_path / "run"
    rt.train_rllib(_args(run, "--seed", "5"), PARAMS, dict(SAVING))
    capsys.readouterr()
    no_ray["saves"].clear()
    resumed = {**SAVING, "timesteps": 768}
    rt.train_rllib(_args(run, "--seed", "5", "--resume"), PARAMS, dict(resumed))
    assert f"resuming {run} at 512 env steps" in capsys.readouterr().out
    assert no_ray["algo"].restored == [str(run / "checkpoint")]
    assert no_ray["seed"] == resume_seed(5, 512)
    rows = json.loads((run / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert [r["env_steps"] for r in rows][-2:] == [640.0, 768.0]


# ------------------------------------------------------------------ resume checks (a run on disk)
def _saved_run(run_dir: Path, meta: dict[str, Any], config: dict[str, Any], steps: list[int]) -> None:
    """A run folder as ``save_run`` leaves it, with one progress row per entry of ``steps``."""
    (run_dir / "checkpoint").mkdir(parents=True)
    (run_dir / "checkpoint" / "steps").write_text(str(steps[-1]))  # as ``_Algo`` saves it
    (run_dir / META_FILE).write_text(json.dumps(meta))
    rows = [{"iteration": float(i + 1), "env_steps": float(s), "seconds": 1.0} for i, s in enumerate(steps)]
    record = {"meta": meta, "progress": rows, "config": config}
    (run_dir / "checkpoint" / RUN_RECORD).write_text(json.dumps(record))


FROZEN_META = {
    "format": 1,
    "module": MAIN,
    "game": GAME,
    "params": PARAMS,
    "opponents": {"self": 1.0},
    "self_play": "frozen",
    "seed": 0,
    "snapshot_steps": 256,
}
FROZEN_CONFIG = {"opponents": "self", "n_envs": 2, "timesteps": 10_000}


def test_a_resumed_frozen_run_keeps_its_mode_and_last_snapshot(
    tmp_path: Path, no_ray: dict[str, Any]
) -> None:
    """Without ``--self-play`` a frozen run resumes frozen (not a refused change to shared), its
    snapshot cadence goes on from the saved snapshot step (not from 0, which would refresh the
    opponent at once), and its seed and step count from the last row of several (``--timesteps``
    at the steps done is refused: nothing would be trained)."""
    _saved_run(tmp_path, FROZEN_META, FROZEN_CONFIG, [128, 384])
    args = _args(tmp_path, "--resume")
    with pytest.raises(ValueError, match="give --timesteps above that"):  # stops after the checks
        rt.train_rllib(args, PARAMS, {**FROZEN_CONFIG, "timesteps": 384})
    assert args.self_play == "frozen"
    no_ray["saves"].clear()
    rt.train_rllib(_args(tmp_path, "--resume", "--iterations", "1"), PARAMS, dict(FROZEN_CONFIG))
    assert no_ray["args"].self_play == "frozen"
    assert no_ray["snapshot_steps"] == [256]
    assert no_ray["seed"] == resume_seed(0, 384)


def test_a_resume_refuses_another_n_envs_naming_the_runs_values(tmp_path: Path) -> None:
    """``n_envs`` sets the rollout size (``n_steps`` x ``n_envs``): a resume with another is
    refused, as is another seed; a changed opponent pool is named with the run's own (parsed)
    pool."""
    _saved_run(tmp_path, FROZEN_META, FROZEN_CONFIG, [128])
    args = _args(tmp_path, "--resume")
    check_rllib_resume(tmp_path, args, PARAMS, dict(FROZEN_CONFIG), 10_000)
    with pytest.raises(
        ValueError, match=r"n_envs cannot change \(the run was trained with \{'n_envs': 2\}\)"
    ):
        check_rllib_resume(
            tmp_path, _args(tmp_path, "--resume"), PARAMS, {**FROZEN_CONFIG, "n_envs": 4}, 10_000
        )
    with pytest.raises(ValueError, match=r"seed cannot change \(the run was trained with \{'seed': 0\}\)"):
        check_rllib_resume(
            tmp_path, _args(tmp_path, "--resume", "--seed", "3"), PARAMS, dict(FROZEN_CONFIG), 10_000
        )
    with pytest.raises(ValueError, match=r"trained with \{'opponents': \{'self': 1.0\}\}"):
        check_rllib_resume(
            tmp_path, _args(tmp_path, "--resume"), PARAMS, {**FROZEN_CONFIG, "opponents": "random"}, 10_000
        )


def test_a_resume_with_the_default_parameters_spelt_out_is_the_same_game(tmp_path: Path) -> None:
    """A parameter given at its default value is the same game config as the run's: a resume
    with ``--param max_plays=5000`` (the default) is not refused as another game."""
    _saved_run(tmp_path, FROZEN_META, FROZEN_CONFIG, [128])
    same = {**PARAMS, "max_plays": make_game({"game": GAME, "params": PARAMS}).config.max_plays}
    meta, _ = check_rllib_resume(tmp_path, _args(tmp_path, "--resume"), same, dict(FROZEN_CONFIG), 10_000)
    assert meta["game"] == GAME


def test_an_rllib_run_as_opponent_is_refused_by_name(tmp_path: Path, no_ray: dict[str, Any]) -> None:
    """An RLlib run directory among the opponents is named as a saved model, which this
    backend does not play (not reported as an unknown bot)."""
    other = tmp_path / "other"
    other.mkdir()
    (other / META_FILE).write_text(json.dumps({"game": GAME}))
    with pytest.raises(ValueError, match=r"saved models as opponents need --backend sb3"):
        rt.train_rllib(_args(tmp_path / "run", "--opponents", str(other)), PARAMS, {"timesteps": 256})


# ------------------------------------------------------------------ config translation
def test_the_rollout_counts_every_env_copy() -> None:
    """Without ``n_envs`` in the config, the rollout is ``n_steps`` times the env copies RLlib
    steps (EnvRunners x copies each, the driver counting as one runner), and the EnvRunner
    settings reach ``PPOConfig`` as given."""
    assert training_kwargs({"ppo": {"n_steps": 32}}, 4)["train_batch_size_per_learner"] == 128
    env_config = {"game_class": ToyGame, "params": {}, "opponents": {"self": 1.0}, "self_play": "shared"}
    config = build_config(
        env_config, {"n_steps": 16}, argparse.Namespace(num_env_runners=0, envs_per_runner=4)
    )
    assert config.train_batch_size_per_learner == 64 and config.num_envs_per_env_runner == 4
    config = build_config(
        env_config, {"n_steps": 16}, argparse.Namespace(num_env_runners=2, envs_per_runner=3)
    )
    assert config.train_batch_size_per_learner == 96
    assert (config.num_env_runners, config.num_envs_per_env_runner) == (2, 3)


def test_ppo_defaults_without_settings() -> None:
    """A config without PPO settings trains with the backend's documented defaults (SB3's
    learning rate and rollout): a changed default silently changes every such run."""
    kw = training_kwargs({}, 1)
    assert kw == {"lr": 3e-4, "train_batch_size_per_learner": 2048, "minibatch_size": 256, "num_epochs": 4}


def test_frozen_self_play_without_self_builds_no_opponent_module() -> None:
    """``--self-play frozen`` against bots only has no frozen seats: no ``opponent`` module is
    built (nor snapshotted)."""
    env_config = {"game_class": ToyGame, "params": {}, "opponents": {"random": 1.0}, "self_play": "frozen"}
    config = build_config(env_config, {}, argparse.Namespace(num_env_runners=0, envs_per_runner=1))
    assert set(config.policies) == {MAIN}


def test_a_seed_of_zero_on_the_command_line_wins_over_the_configs(tmp_path: Path) -> None:
    """``--seed 0`` is a seed, not "no flag": the config's seed must not replace it."""
    env_config = make_env_config(_args(tmp_path, "--seed", "0"), PARAMS, {"seed": 9})
    assert env_config["seed"] == 0


# ------------------------------------------------------------------ frozen snapshots
def test_snapshots_follow_snapshot_every(monkeypatch: pytest.MonkeyPatch) -> None:
    """The frozen opponent takes main's weights when ``snapshot_every`` steps passed since the
    last snapshot (exactly that many included), counted from the step it was taken at; the
    cadence is the config's ``snapshot_every``, not ``checkpoint_every``."""
    copies: list[int] = []
    current = {"steps": 0}
    monkeypatch.setattr(rt, "copy_main_to_opponent", lambda algorithm: copies.append(current["steps"]))

    def run(callback: Any, steps: list[int]) -> list[int]:
        copies.clear()
        for s in steps:
            current["steps"] = s
            callback(algorithm=None, result={"env_runners": {"num_env_steps_sampled_lifetime": s}})
        return list(copies)

    last = [0]
    assert run(_snapshot_callback(100, last), [100, 150, 200, 350, 440, 450]) == [100, 200, 350, 450]
    assert last == [450]
    env_config = {"game_class": ToyGame, "params": {}, "opponents": {"self": 1.0}, "self_play": "frozen"}
    config = build_config(
        env_config,
        {"snapshot_every": 100, "checkpoint_every": 1_000},
        argparse.Namespace(num_env_runners=0, envs_per_runner=1),
        [0],
    )
    assert run(config.callbacks_on_train_result, [100, 150, 200]) == [100, 200]


# ------------------------------------------------------------------ the loop
class _ResultsOf:
    """``Algorithm.train()`` handing back the given lifetime step counts."""

    def __init__(self, steps: list[int]) -> None:
        self.steps = list(steps)

    def train(self) -> dict[str, Any]:
        return {"env_runners": {"num_env_steps_sampled_lifetime": self.steps.pop(0)}}


def test_the_loop_stops_at_timesteps_exactly(tmp_path: Path) -> None:
    """A run whose steps reach ``timesteps`` exactly stops there: one more iteration would
    train beyond the budget asked for."""
    log: list[dict[str, Any]] = []
    _train_loop(_ResultsOf([640, 768, 896]), _args(tmp_path), 768, log)
    assert [r["env_steps"] for r in log] == [640.0, 768.0]


# ------------------------------------------------------------------ the address check
def test_a_ray_scheme_address_is_checked_at_its_host_and_port() -> None:
    """``ray://host:port`` where a server listens passes the check; a port where nothing
    listens is a usage error naming the address."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        _check_address(f"ray://127.0.0.1:{port}", timeout=2.0)
        _check_address(f"127.0.0.1:{port}", timeout=2.0)
    with pytest.raises(ValueError, match=f"--address '127.0.0.1:{port}': no Ray cluster reached"):
        _check_address(f"127.0.0.1:{port}", timeout=2.0)


# ------------------------------------------------------------------ the env and the policy
def test_the_run_seed_reaches_unseeded_resets() -> None:
    """Env copies of runs at different seeds deal different games even when RLlib resets them
    without a seed: the run's seed is part of every copy's stream."""
    deals = set()
    for seed in (1, 2, 3):
        env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {}, "seed": seed})
        env.reset()
        deals.add(json.dumps(env.state.to_dict(), sort_keys=True, default=str))
    assert len(deals) > 1


def test_an_env_without_opponents_plays_itself() -> None:
    """An ``env_config`` without ``opponents`` is shared self-play (the docs' default): every
    seat is a learning agent, none moved by a bot."""
    env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {"num_players": 3}, "bots": TOY_BOTS})
    assert env.opponents == {"self": 1.0}
    obs, _ = env.reset(seed=0)
    movers = set(obs)
    for _ in range(6):
        (agent,) = (a for a, o in obs.items() if o["action_mask"].any())
        obs, *_ = env.step({agent: 0})
        movers |= {a for a, o in obs.items() if o["action_mask"].any()}
    assert movers == {"player_0", "player_1", "player_2"}


def test_final_observations_have_an_empty_mask() -> None:
    """The observation that ends an agent's episode has an all-zero mask (it is not to act):
    a mask of legal moves there would tell RLlib the agent may still move."""
    env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {"num_players": 2}})
    obs, _ = env.reset(seed=0)
    for _ in range(1_000):
        (agent,) = (a for a, o in obs.items() if o["action_mask"].any())
        obs, _, terms, truncs, _ = env.step({agent: 2})
        if terms["__all__"] or truncs["__all__"]:
            break
    assert set(obs) == {"player_0", "player_1"}
    for o in obs.values():
        assert not o["action_mask"].any()


def test_an_agent_knocked_out_mid_game_sees_an_empty_mask() -> None:
    """The last observation of an agent knocked out while the others play on has an all-zero
    mask: the legal moves of the seat to act there would tell RLlib it may still move."""
    env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {"num_players": 3}})
    knocked_out = 0
    for seed in range(10):
        obs, _ = env.reset(seed=seed)
        while True:
            (agent,) = (a for a, o in obs.items() if o["action_mask"].any())
            obs, _, terms, truncs, _ = env.step({agent: 2})
            if terms["__all__"] or truncs["__all__"]:
                break
            for name, done in terms.items():
                if done and name != "__all__":
                    knocked_out += 1
                    assert not obs[name]["action_mask"].any(), name
    assert knocked_out > 0


def test_a_policy_asked_to_move_with_no_legal_action_says_so() -> None:
    """``probabilities`` on a finished game is a usage error saying there is no legal action,
    not a vector of NaN that ``act`` would sample from."""
    import torch
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.env import build_spaces
    from training.rllib.module import MaskedPPOTorchRLModule

    game = make_game({"game_class": ToyGame, "params": {}})
    obs_space, act_space = build_spaces(game)
    torch.manual_seed(0)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config=DefaultModelConfig(fcnet_hiddens=[8], head_fcnet_hiddens=[4]),
    ).build()
    policy = RLlibPolicy(module, game)
    state = game.new_initial_state(np.random.default_rng(0))
    while not state.is_terminal():
        state.apply(2)
    with pytest.raises(ValueError, match="no legal action"):
        policy.probabilities(state, 0)


def test_a_runs_checkpoint_folder_names_the_run(tmp_path: Path) -> None:
    """``eval --players runs/x/checkpoint`` finds the run above it (the docs allow either)."""
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / META_FILE).write_text(json.dumps({"game": GAME}))
    assert find_run_dir(tmp_path / "checkpoint") == tmp_path
    assert find_run_dir(tmp_path) == tmp_path


def test_zero_timesteps_is_refused_before_the_run_is_cleared(tmp_path: Path, no_ray: dict[str, Any]) -> None:
    """``train_rllib`` from Python with ``timesteps: 0`` cleared the run already in ``out``,
    saved nothing and still printed "saved": it is refused before anything is touched."""
    run = tmp_path / "run"
    rt.train_rllib(_args(run), {"num_players": 2}, {"opponents": "random", "timesteps": 256})
    before = sorted(p.name for p in run.iterdir())
    with pytest.raises(ValueError, match=r"timesteps must be >= 1, got 0"):
        rt.train_rllib(_args(run), {"num_players": 2}, {"opponents": "random", "timesteps": 0})
    assert sorted(p.name for p in run.iterdir()) == before
