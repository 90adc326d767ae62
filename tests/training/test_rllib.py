"""The Ray RLlib backend (``training/rllib``): the multi-agent env, a few PPO iterations on
a local Ray instance, and games played by the trained policy (legal actions only).

Skipped without the ``rllib`` extra.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from envs.core.registry import get_game  # noqa: E402
from tests.training.conftest import TOY_BOTS, first_two_player_game  # noqa: E402
from tests.training.toy_game import ToyGame  # noqa: E402
from training.rllib.env import EightfoldMultiAgentEnv  # noqa: E402
from training.rllib.policy import RLlibPolicy, is_rllib_spec  # noqa: E402
from training.rllib.train import add_backend_args, train_rllib, training_kwargs  # noqa: E402

TINY = {"ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [32]}}}


def _random_episode(env: EightfoldMultiAgentEnv, seed: int) -> tuple[dict[str, float], int]:
    """Play one episode with random legal actions; per-agent reward sums and env steps."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    steps = 0
    while True:
        to_act = [a for a, o in obs.items() if o["action_mask"].any()]
        assert len(to_act) == 1, f"exactly one agent must be asked to act, got {to_act}"
        agent = to_act[0]
        assert env.observation_spaces[agent].contains(obs[agent])
        legal = np.flatnonzero(obs[agent]["action_mask"])
        obs, rewards, terms, truncs, _ = env.step({agent: int(rng.choice(legal))})
        steps += 1
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms["__all__"] or truncs["__all__"]:
            assert set(obs) <= set(env.possible_agents)
            return totals, steps


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rewards_reach_every_agent(num_players: int) -> None:
    """Eliminations mid-game and the terminal reward reach the agents who did not move last:
    each agent's reward sum is its final engine return."""
    env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {"num_players": num_players}})
    for seed in range(10):
        totals, _ = _random_episode(env, seed)
        returns = env.state.returns()
        for seat, agent in enumerate(env.possible_agents):
            assert totals.get(agent, 0.0) == pytest.approx(returns[seat])


def test_eliminated_agent_terminated_once() -> None:
    env = EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {"num_players": 3}})
    obs, _ = env.reset(seed=1)
    done: set[str] = set()
    while True:
        agent = next(a for a, o in obs.items() if o["action_mask"].any())
        obs, _, terms, truncs, _ = env.step({agent: 2})
        newly = {a for a, t in terms.items() if t and a != "__all__"}
        assert not newly & done, "an agent was terminated twice"
        assert not (set(obs) - {a for a in obs if obs[a]["action_mask"].any()}) - newly or terms["__all__"]
        done |= newly
        if terms["__all__"] or truncs["__all__"]:
            break
    assert done, "the 3-player toy game eliminates someone before the end"


def test_bot_opponent_only_learner_in_obs() -> None:
    env = EightfoldMultiAgentEnv(
        {"game_class": ToyGame, "params": {"num_players": 3}, "opponent": "random", "bots": TOY_BOTS}
    )
    for seed in range(10):
        totals, _ = _random_episode(env, seed)
        assert len(totals) == 1, "only the learning seat is an RLlib agent"
        ((agent, total),) = totals.items()
        assert total == pytest.approx(env.state.returns()[env.possible_agents.index(agent)])


def test_frozen_self_play_names_one_learning_seat() -> None:
    """``self_play="frozen"``: one ``player_<seat>`` per episode, the others ``frozen_<seat>``;
    with a bot in the pool some episodes have the bot instead."""
    env = EightfoldMultiAgentEnv(
        {
            "game_class": ToyGame,
            "params": {"num_players": 3},
            "opponents": {"self": 1.0, "random": 1.0},
            "self_play": "frozen",
            "bots": TOY_BOTS,
        }
    )
    kinds = set()
    for seed in range(30):
        totals, _ = _random_episode(env, seed)
        learners = [a for a in totals if a.startswith("player_")]
        assert len(learners) <= 1
        kinds.add(any(a.startswith("frozen_") for a in totals))
    assert kinds == {True, False}, "both self-play and bot episodes are drawn"


def test_sb3_hyperparameters_translated() -> None:
    kw = training_kwargs(
        {"learning_rate": 1e-3, "n_steps": 64, "n_envs": 4, "batch_size": 32, "timesteps": 9}, 1
    )
    assert kw["lr"] == 1e-3 and kw["train_batch_size_per_learner"] == 256 and kw["minibatch_size"] == 32
    assert training_kwargs({"rllib": {"lr": 5e-5}}, 1)["lr"] == 5e-5


# ------------------------------------------------------------------ training on Ray
GAME = first_two_player_game()
needs_game = pytest.mark.skipif(GAME is None, reason="no real game installed yet")


def _args(env: str, run_dir: Path, *extra: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("env")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    add_backend_args(parser)
    return parser.parse_args([env, "--out", str(run_dir), "--num-cpus", "2", *extra])


@pytest.fixture(scope="module")
def ray_local() -> Any:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def trained_run(ray_local: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path_factory.mktemp("rllib") / "run"
    return train_rllib(_args(name, run_dir, "--iterations", "2"), params, TINY)


@needs_game
def test_train_writes_a_loadable_run(trained_run: Path) -> None:
    assert is_rllib_spec(str(trained_run)) and is_rllib_spec(str(trained_run / "checkpoint"))
    assert (trained_run / "progress.json").is_file()
    policy = RLlibPolicy.load(trained_run)
    assert policy.game.num_actions > 0


@needs_game
def test_a_run_loads_from_a_relative_path(trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``eightfold eval --players runs/rl ...`` names the run relative to the working folder;
    RLlib reads checkpoint paths as URIs, where a relative path has no scheme."""
    monkeypatch.chdir(trained_run.parent)
    policy = RLlibPolicy.load(Path(trained_run.name))
    assert policy.game.num_actions > 0


@needs_game
def test_trained_policy_plays_only_legal_actions(trained_run: Path) -> None:
    """Full games against random through the PettingZoo env (an illegal move would end the
    game with -1 under TerminateIllegalWrapper: checked against the mask at every step)."""
    assert GAME is not None
    name, params = GAME
    policy = RLlibPolicy.load(trained_run)
    rng = np.random.default_rng(0)
    for game_index in range(6):
        env = get_game(name).env(**params)
        env.reset(seed=game_index)
        learner = env.possible_agents[game_index % len(env.possible_agents)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if agent == learner:
                seat = env.possible_agents.index(agent)
                action = policy.act(env.unwrapped.state, seat, rng)
                assert action in legal
            else:
                action = int(rng.choice(legal))
            env.step(action)


@needs_game
def test_frozen_opponent_mode(ray_local: Any, tmp_path: Path) -> None:
    """``--self-play frozen``: main trains, the opponent gets main's weights at a snapshot."""
    assert GAME is not None
    name, params = GAME
    args = _args(name, tmp_path / "frozen", "--iterations", "1", "--self-play", "frozen")
    run_dir = train_rllib(args, params, {**TINY, "opponents": "self", "snapshot_every": 1})
    from ray.rllib.core.rl_module.rl_module import RLModule

    modules = run_dir / "checkpoint" / "learner_group" / "learner" / "rl_module"
    main, opponent = (RLModule.from_checkpoint(str(modules / m)).get_state() for m in ("main", "opponent"))
    for key, value in main.items():
        np.testing.assert_allclose(np.asarray(value), np.asarray(opponent[key]))
    # the same seed, the same run: the opponent starts as main's (seeded) first weights
    again = train_rllib(
        _args(name, tmp_path / "again", "--iterations", "1", "--self-play", "frozen"),
        params,
        {**TINY, "opponents": "self", "snapshot_every": 1},
    )
    modules2 = again / "checkpoint" / "learner_group" / "learner" / "rl_module"
    for m in ("main", "opponent"):
        first = RLModule.from_checkpoint(str(modules / m)).get_state()
        second = RLModule.from_checkpoint(str(modules2 / m)).get_state()
        for key, value in first.items():
            np.testing.assert_array_equal(np.asarray(value), np.asarray(second[key]), err_msg=f"{m} {key}")


@needs_game
def test_a_snapshot_reaches_the_env_runners_at_once(ray_local: Any, tmp_path: Path) -> None:
    """The frozen copy plays from the next sample on: ``Algorithm.set_state`` synced the
    EnvRunners with an unchanged weights sequence number, which they skip, so the copy only
    reached them after a further update (one iteration late). The policy weights the
    EnvRunner acts with are compared (its value head is never used there and not synced)."""
    from training.rllib.train import MAIN, OPPONENT, build_config, copy_main_to_opponent, make_env_config

    assert GAME is not None
    name, params = GAME
    args = _args(name, tmp_path / "run", "--self-play", "frozen")
    args.envs_per_runner, args.opponents, args.timesteps = 1, None, None
    config = {**TINY, "opponents": "self"}
    algo = build_config(make_env_config(args, params, config), config, args).build_algo()
    try:
        algo.train()
        copy_main_to_opponent(algo)
        learner = algo.learner_group.get_state(components=f"learner/rl_module/{MAIN}")["learner"]
        runner = algo.env_runner.module[OPPONENT].get_state()
        policy = [k for k in runner if not k.startswith("vf.")]
        assert policy
        for key in policy:
            np.testing.assert_array_equal(
                np.asarray(runner[key]), np.asarray(learner["rl_module"][MAIN][key])
            )
    finally:
        algo.stop()


def test_shaping_is_refused_not_ignored(tmp_path: Path) -> None:
    """Reward shaping lives in the SB3 single-agent view; RLlib says so instead of dropping it."""
    with pytest.raises(ValueError, match="shaping"):
        train_rllib(_args("over_and_out", tmp_path / "run"), {"num_players": 2}, {**TINY, "shaping": 1.0})


def test_pretraining_is_refused_not_ignored(tmp_path: Path) -> None:
    """The behaviour-cloning warm start fits an SB3 policy; RLlib says so instead of skipping it."""
    with pytest.raises(ValueError, match="pretrain_samples"):
        train_rllib(
            _args("over_and_out", tmp_path / "run"), {"num_players": 2}, {**TINY, "pretrain_samples": 10}
        )


def test_a_critic_of_its_own_is_refused_not_ignored(tmp_path: Path) -> None:
    """RLlib's module shares one encoder of ``net_arch``: ``vf_arch`` is refused by name."""
    with pytest.raises(ValueError, match=r"vf_arch=\[8\] \(a critic of its own\)"):
        train_rllib(_args("over_and_out", tmp_path / "run"), {"num_players": 2}, {**TINY, "vf_arch": [8]})


def test_an_unknown_bot_is_named_before_ray_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``train_rllib`` called from a script (``examples/rllib_train.py``) checks the bot specs
    itself: Ray started, then the env failed inside an actor."""
    import training.rllib.train as rt

    monkeypatch.setattr(rt, "_init_ray", lambda args: pytest.fail("Ray started before the bots were checked"))
    with pytest.raises(ValueError, match="unknown bot 'nobot'"):
        train_rllib(
            _args("over_and_out", tmp_path / "run"), {"num_players": 2}, {**TINY, "opponents": "nobot"}
        )
    assert not (tmp_path / "run").exists()

    # the check uses the env's own table: a game whose bots.py has not landed still plays random
    from envs.core.registry import GameEntry

    class RayStarted(Exception):
        pass

    def no_bots(self: Any) -> Any:
        raise ModuleNotFoundError("No module named 'envs.over_and_out.bots'")

    def ray_started(args: Any) -> None:
        raise RayStarted

    monkeypatch.setattr(GameEntry, "bots", no_bots)
    monkeypatch.setattr(rt, "_init_ray", ray_started)
    with pytest.raises(RayStarted):
        train_rllib(
            _args("over_and_out", tmp_path / "run"), {"num_players": 2}, {**TINY, "opponents": "random"}
        )


def test_env_copies_keep_apart_streams_when_rllib_seeds_them() -> None:
    """RLlib seeds copy v of runner w with seed + w + v, and its ``MultiAgentEnvRunner`` hands
    every copy one ``EnvContext`` (``vector_index`` 0): so runner 1 copy 1 and runner 2 copy 0 get
    the same number, and so do copy v + 1 of the run at ``--seed S`` and copy v of the run at
    S + 1. The env folds its runner index and the run's seed into the stream, so those copies
    deal different games, and the same copy always deals the same one."""
    from ray.rllib.env.env_context import EnvContext

    def first_deal(run_seed: int, worker: int, copy: int) -> Any:
        config = EnvContext(
            {"game": "over_and_out", "params": {"num_players": 2}, "seed": run_seed}, worker, 0
        )
        env = EightfoldMultiAgentEnv(config)
        env.reset(seed=run_seed + worker + copy)  # what RLlib passes
        return env.state.to_dict()

    assert first_deal(0, 1, 1) == first_deal(0, 1, 1)
    assert first_deal(0, 1, 1) != first_deal(0, 2, 0), "two runners of one run"
    assert first_deal(0, 0, 1) != first_deal(1, 0, 0), "runs at neighbouring seeds"


def test_the_env_runner_builds_its_copies_as_the_env_expects(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through RLlib's own runner in the driver (``--envs-per-runner 3``): the copies of one
    run deal three different first games, and the run at the next seed shares none of them."""
    assert GAME is not None
    name, params = GAME
    from training.rllib.train import build_config, make_env_config

    dealt: list[str] = []
    real_reset = EightfoldMultiAgentEnv.reset

    def reset(self: EightfoldMultiAgentEnv, **kwargs: Any) -> Any:
        out = real_reset(self, **kwargs)
        if kwargs.get("seed") is not None:
            dealt.append(json.dumps(self.state.to_dict(), sort_keys=True, default=str))
        return out

    monkeypatch.setattr(EightfoldMultiAgentEnv, "reset", reset)

    def first_deals(seed: int) -> list[str]:
        dealt.clear()
        args = _args(name, tmp_path / "run", "--seed", str(seed), "--envs-per-runner", "3")
        args.opponents, args.timesteps = None, None
        config = {**TINY, "opponents": "random"}
        algo = build_config(make_env_config(args, params, config), config, args).build_algo()
        try:
            algo.env_runner.sample(num_timesteps=3)
        finally:
            algo.stop()
        return list(dealt)

    zero, one = first_deals(0), first_deals(1)
    assert len(zero) == len(one) == 3, (len(zero), len(one))
    assert len(set(zero)) == 3 and not set(zero) & set(one)


def test_a_bare_bot_name_is_never_an_rllib_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a run folder, ``random`` is still the bot: only the run folder itself or its
    ``checkpoint/`` name the run (the parent of a bare name is ``.``, which used to match)."""
    from training.rllib.common import META_FILE, is_rllib_spec

    (tmp_path / META_FILE).write_text("{}")
    (tmp_path / "checkpoint").mkdir()
    monkeypatch.chdir(tmp_path)
    assert is_rllib_spec(".") and is_rllib_spec("checkpoint") and is_rllib_spec(str(tmp_path))
    assert not is_rllib_spec("random") and not is_rllib_spec("heuristic")


def test_knocked_out_in_a_truncating_step_is_terminated_not_truncated() -> None:
    """As in the AEC env: a seat knocked out by the move that also hits the length limit is
    terminated, the seats still playing are truncated (the RLlib env truncated them all)."""
    from tests.core.test_mutation_gaps import ScriptGame

    script = {1: {"out": 1, "end": True, "trunc": True, "pay": (0.5, -1.0, 0.5)}}
    env = EightfoldMultiAgentEnv({"game_class": type("G", (ScriptGame,), {"script": script}), "params": {}})
    obs, _ = env.reset(seed=0)
    env.step({"player_0": 0})
    obs, rewards, terms, truncs, _ = env.step({"player_1": 0})
    assert terms == {"player_1": True, "__all__": False}
    assert truncs == {"player_0": True, "player_2": True, "__all__": True}
    assert set(obs) == {"player_0", "player_1", "player_2"}
    assert rewards == {"player_0": 0.5, "player_1": -1.0, "player_2": 0.5}


def test_rllib_settings_that_would_do_nothing_or_crash_are_refused_before_ray() -> None:
    """``rllib:`` keys of RLlib's old API (never read by the new stack) and values out of range
    are usage errors naming them; they were silent no-ops, or a crash after Ray started."""
    from training.rllib.train import check_training_settings

    for settings, message in (
        ({"train_batch_size": 128}, r"\['train_batch_size'\] are not read .*train_batch_size_per_learner"),
        ({"model": {"fcnet_hiddens": [8]}}, r"\['model'\] are not read .*net_arch"),
        ({"num_epochs": 0}, r"num_epochs must be an int >= 1, got 0"),
        ({"minibatch_size": 1.5}, r"minibatch_size must be an int >= 1, got 1.5"),
        ({"gamma": 5}, r"gamma must be a finite number \(0, 1\], got 5"),
        ({"lambda_": -0.1}, r"lambda_ must be a finite number \[0, 1\], got -0.1"),
        ({"lr": -0.1}, r"lr must be a finite number > 0, got -0.1"),
        ({"entropy_coeff": float("nan")}, r"entropy_coeff must be a finite number >= 0, got nan"),
        ({"nope": 1}, r"unknown PPOConfig.training setting\(s\) \['nope'\]"),
    ):
        with pytest.raises(ValueError, match=message):
            check_training_settings(settings)
    check_training_settings({"gamma": 1.0, "lambda_": 0.0, "num_epochs": 1, "lr": 1e-4, "entropy_coeff": 0.0})


def test_a_minibatch_above_the_rollout_is_cut_or_refused_before_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SB3 ``batch_size`` is cut to the rollout, an ``rllib:`` rollout included; a
    ``minibatch_size`` set under ``rllib:`` above the rollout is named before Ray starts (it
    passed every key's own check and failed in RLlib's ``validate()`` after Ray started)."""
    import training.rllib.train as rt
    from training.rllib.train import training_kwargs

    small_rollout = {**TINY, "rllib": {"train_batch_size_per_learner": 32}}
    kw = training_kwargs(small_rollout, 1)
    assert (kw["train_batch_size_per_learner"], kw["minibatch_size"]) == (32, 32)
    assert training_kwargs({**TINY, "rllib": {"minibatch_size": 16}}, 1)["minibatch_size"] == 16
    too_big = {**TINY, "rllib": {"minibatch_size": 4096}}
    message = r"minibatch_size 4096 is more than the rollout \(train_batch_size_per_learner 128\)"
    with pytest.raises(ValueError, match=message):
        training_kwargs(too_big, 1)
    monkeypatch.setattr(
        rt, "_init_ray", lambda args: pytest.fail("Ray started before the minibatch was checked")
    )
    with pytest.raises(ValueError, match=message):
        train_rllib(_args("over_and_out", tmp_path / "run"), {"num_players": 2}, too_big)


def test_run_metadata_that_is_not_eightfolds_is_named(tmp_path: Path) -> None:
    from training.rllib.common import META_FILE, read_meta

    run = tmp_path / "run"
    run.mkdir()
    for text, message in (
        ("{}", r"lacks \['game'\]"),
        ("{oops", "is not the JSON eightfold train"),
    ):
        (run / META_FILE).write_text(text)
        with pytest.raises(ValueError, match=message):
            read_meta(run)


@needs_game
def test_progress_is_strict_json(trained_run: Path) -> None:
    import json

    rows = json.loads((trained_run / "progress.json").read_text(), parse_constant=lambda c: pytest.fail(c))
    assert rows and all("main_return_mean" in row for row in rows)


@needs_game
def test_an_interrupted_run_keeps_its_finished_iterations(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during an RLlib run saves what the finished iterations learned (checkpoint,
    metadata, progress) and still ends as interrupted."""
    import json

    import training.rllib.train as rl

    real = rl._train_loop

    def one_then_ctrl_c(
        algo: Any, args: argparse.Namespace, max_steps: int, log: list[Any], *rest: Any
    ) -> None:
        args.iterations = 1
        real(algo, args, max_steps, log, *rest)
        raise KeyboardInterrupt

    monkeypatch.setattr(rl, "_train_loop", one_then_ctrl_c)
    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        train_rllib(_args(name, run_dir), params, TINY)
    assert is_rllib_spec(str(run_dir)) and len(json.loads((run_dir / "progress.json").read_text())) == 1
    assert RLlibPolicy.load(run_dir).game.name == name


# ------------------------------------------------------------------ checkpoints and --resume
def _module_state(checkpoint: Path, module: str = "main") -> dict[str, Any]:
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = checkpoint / "learner_group" / "learner" / "rl_module" / module
    return {k: np.asarray(v) for k, v in RLModule.from_checkpoint(str(path)).get_state().items()}


def _resume_args(name: str, run_dir: Path, *extra: str) -> argparse.Namespace:
    args = _args(name, run_dir, *extra)
    args.resume = True
    return args


def before_train_call(call: int, action: Any) -> Any:
    """A stand-in for ``training.rllib.train._train_loop`` that runs ``action()`` just before the
    ``call``-th ``algo.train()`` (an interrupt, a crash), then trains as the real loop does."""
    import training.rllib.train as rl

    real_loop = rl._train_loop

    def loop(algo: Any, *rest: Any) -> None:
        real_train, calls = algo.train, [0]

        def train() -> Any:
            calls[0] += 1
            if calls[0] == call:
                action()
            return real_train()

        algo.train = train
        real_loop(algo, *rest)

    return loop


def sigints(times: int) -> Any:
    """An ``action`` for :func:`before_train_call`: ``times`` SIGINTs to this process."""
    import os
    import signal

    def send() -> None:
        for _ in range(times):
            os.kill(os.getpid(), signal.SIGINT)

    return send


# 128 env steps an iteration; a periodic save every second iteration
SAVING = {**TINY, "checkpoint_every": 256, "opponents": "random"}


@needs_game
def test_a_crashed_run_resumes_from_its_last_periodic_checkpoint(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``checkpoint_every`` env steps the run is saved whole (checkpoint, metadata,
    progress, config): a run that dies in its third iteration leaves the two before it, and
    ``resume`` goes on from there with the saved weights, numbering and step count."""
    import json

    import training.rllib.train as rl

    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path / "run"

    class Crash(Exception):
        pass

    real_loop = rl._train_loop

    def crash() -> None:
        raise Crash

    monkeypatch.setattr(rl, "_train_loop", before_train_call(3, crash))
    with pytest.raises(Crash):
        train_rllib(_args(name, run_dir), params, {**SAVING, "timesteps": 10_000})
    rows = json.loads((run_dir / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1, 2] and rows[-1]["env_steps"] >= 256
    assert (run_dir / "config.yaml").is_file() and not list(run_dir.glob("checkpoint.*"))
    saved = _module_state(run_dir / "checkpoint")
    monkeypatch.setattr(rl, "_train_loop", real_loop)

    seen: dict[str, Any] = {}

    def check_restored(algo: Any, *rest: Any) -> None:
        weights = algo.learner_group.get_state(components="learner/rl_module/main")["learner"]["rl_module"]
        seen["weights"] = {k: np.asarray(v) for k, v in weights["main"].items()}
        real_loop(algo, *rest)

    monkeypatch.setattr(rl, "_train_loop", check_restored)
    train_rllib(_resume_args(name, run_dir), params, {**SAVING, "timesteps": int(rows[-1]["env_steps"]) + 1})
    assert seen["weights"].keys() == saved.keys()
    for key, value in saved.items():
        np.testing.assert_array_equal(seen["weights"][key], value, err_msg=key)
    after = json.loads((run_dir / "progress.json").read_text())
    assert after[:2] == rows and [r["iteration"] for r in after] == [1, 2, 3]
    assert after[2]["env_steps"] > rows[-1]["env_steps"] and after[2]["seconds"] > rows[-1]["seconds"]
    changed = _module_state(run_dir / "checkpoint")
    assert any(not np.array_equal(changed[k], saved[k]) for k in saved), "the resumed part trained"


@needs_game
def test_a_resume_deals_new_games_and_repeats(ray_local: Any, tmp_path: Path) -> None:
    """The resumed part is seeded from the run's seed and its steps (``resume_seed``): it does
    not replay the games its run began with, and the same resume gives the same run."""
    import json

    from training.config import resume_seed

    assert resume_seed(3, 0) == 3 and resume_seed(3, 256) == resume_seed(3, 256) != resume_seed(3, 384)
    assert GAME is not None
    name, params = GAME
    first = tmp_path / "first"
    train_rllib(_args(name, first, "--iterations", "1"), params, {**SAVING, "timesteps": 10_000})
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(first, copy)
    returns = []
    for run in (first, copy):
        train_rllib(_resume_args(name, run, "--iterations", "1"), params, {**SAVING, "timesteps": 10_000})
        returns.append(json.loads((run / "progress.json").read_text()))
    strip = [
        [{k: v for k, v in r.items() if k not in ("seconds", "env_steps_per_s")} for r in rows]
        for rows in returns
    ]
    assert strip[0] == strip[1], "the same resume, the same run"
    for key, value in _module_state(first / "checkpoint").items():
        np.testing.assert_array_equal(value, _module_state(copy / "checkpoint")[key], err_msg=key)
    one, two = strip[0]
    assert (one["main_return_mean"], one["episode_len_mean"]) != (
        two["main_return_mean"],
        two["episode_len_mean"],
    )


@needs_game
def test_a_resume_keeps_what_the_run_was_trained_with(ray_local: Any, tmp_path: Path) -> None:
    """The game, opponents, seed, self-play mode and training settings stay; only the step
    budget (and iterations, Ray resources) may change; a run without config.yaml (saved
    before resuming existed) or with no RLlib run at all is named."""
    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path / "run"
    train_rllib(_args(name, run_dir, "--iterations", "1"), params, {**SAVING, "timesteps": 10_000})
    before = {p.name: p.stat().st_mtime_ns for p in run_dir.iterdir()}
    for args, config, message in (
        (_resume_args(name, run_dir), {**SAVING, "timesteps": 100}, "already; give --timesteps above that"),
        (_resume_args(name, run_dir), {**SAVING, "opponents": "self"}, "opponents cannot change"),
        (_resume_args(name, run_dir, "--seed", "4"), SAVING, "seed cannot change"),
        (_resume_args(name, run_dir, "--self-play", "frozen"), SAVING, "self_play cannot change"),
        (_resume_args(name, run_dir), {**SAVING, "ppo": {**TINY["ppo"], "n_epochs": 2}}, "ppo cannot change"),
        (_resume_args(name, tmp_path / "none"), SAVING, "no RLlib run to continue"),
    ):
        with pytest.raises(ValueError, match=message):
            train_rllib(args, params, {"timesteps": 10_000, **config})
    assert {p.name: p.stat().st_mtime_ns for p in run_dir.iterdir()} == before, "nothing written"
    # settings RLlib does not build the learner from may change
    train_rllib(
        _resume_args(name, run_dir, "--iterations", "1"),
        params,
        {**SAVING, "timesteps": 10_000, "snapshot_every": 7, "eval_games": 3, "checkpoint_every": 999},
    )
    (run_dir / "checkpoint" / "eightfold_run.json").unlink()
    with pytest.raises(ValueError, match="holds no eightfold_run.json"):
        train_rllib(_resume_args(name, run_dir), params, {**SAVING, "timesteps": 10_000})


def test_resume_on_the_command_line_names_the_backend(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resume`` of an RLlib run without ``--backend rllib`` (or the reverse) is a usage error
    naming the backend; a new run of either backend replaces the other's files."""
    import json

    from training.cli import main
    from training.train import clear_run

    (tmp_path / "eightfold_rllib.json").write_text(json.dumps({"game": "over_and_out"}))
    (tmp_path / "config.yaml").write_text("env: over_and_out\n")
    (tmp_path / "checkpoint").mkdir()
    argv = ["train", "over_and_out", "--param", "num_players=2", "--out", str(tmp_path), "--resume"]
    assert (
        main(argv) == 2 and "holds an RLlib run; continue it with --backend rllib" in capsys.readouterr().err
    )
    other = tmp_path / "sb3"
    other.mkdir()
    (other / "config.yaml").write_text("env: over_and_out\n")
    assert main([*argv[:5], str(other), "--resume", "--backend", "rllib"]) == 2
    assert "no RLlib run to continue" in capsys.readouterr().err
    clear_run(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["sb3"], (
        "an SB3 run's clean start removes an RLlib run too"
    )


@needs_game
def test_a_resume_follows_the_checkpoint_not_the_files_beside_it(ray_local: Any, tmp_path: Path) -> None:
    """A kill between the checkpoint's swap and the files written beside it leaves those files a
    save behind: the resume reads the record inside the checkpoint, so its rows go on from the
    checkpoint's own. A kill between the swap's two renames leaves only ``checkpoint.old``:
    loading the run says so, and a resume puts it back."""
    import json

    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path / "run"
    train_rllib(_args(name, run_dir, "--iterations", "2"), params, {**SAVING, "timesteps": 10_000})
    rows = json.loads((run_dir / "progress.json").read_text())
    (run_dir / "progress.json").write_text(json.dumps(rows[:1]))  # the files of the save before
    (run_dir / "checkpoint").rename(run_dir / "checkpoint.old")
    with pytest.raises(ValueError, match="stopped while saving: its last whole checkpoint is checkpoint.old"):
        RLlibPolicy.load(run_dir)
    train_rllib(_resume_args(name, run_dir, "--iterations", "1"), params, {**SAVING, "timesteps": 10_000})
    after = json.loads((run_dir / "progress.json").read_text())
    assert after[:2] == rows and after[2]["iteration"] == 3 and not (run_dir / "checkpoint.old").exists()
    record = json.loads((run_dir / "checkpoint" / "eightfold_run.json").read_text())
    assert record["progress"] == after and record["meta"]["game"] == name


@needs_game
def test_ctrl_c_finishes_the_iteration_and_a_second_stops_at_once(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first Ctrl-C (SIGINT) lets the iteration under way finish, so the save holds whole
    iterations (the checkpoint's env steps are the last row's); a second one stops at once and
    saves nothing, leaving the last periodic save."""
    import json
    import signal

    import training.rllib.train as rl

    assert GAME is not None
    name, params = GAME
    run_dir = tmp_path / "once"
    monkeypatch.setattr(rl, "_train_loop", before_train_call(2, sigints(1)))
    with pytest.raises(KeyboardInterrupt):
        train_rllib(_args(name, run_dir), params, {**SAVING, "timesteps": 10_000})
    rows = json.loads((run_dir / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1, 2], "the interrupted iteration finished and was kept"
    record = json.loads((run_dir / "checkpoint" / "eightfold_run.json").read_text())
    assert record["progress"] == rows
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "the handler is put back"

    run_dir = tmp_path / "twice"
    monkeypatch.setattr(rl, "_train_loop", before_train_call(3, sigints(2)))
    with pytest.raises(KeyboardInterrupt):
        train_rllib(_args(name, run_dir), params, {**SAVING, "timesteps": 10_000})
    rows = json.loads((run_dir / "progress.json").read_text())
    assert [r["iteration"] for r in rows] == [1, 2], "only the periodic save of iteration 2 is there"
