"""Behaviours of the RLlib backend (``training/rllib``) that a mutation round found unpinned:
what each seat sees, who learns and against whom, how SB3 settings reach ``PPOConfig``, what a
progress row reports, what a resume refuses and how a saved run loads. Each test names what a
failure would mean.

Ray is never started here: the env, the policy (a freshly built module), the config pieces and
the loop are exercised directly. Skipped without the ``rllib`` extra.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from envs.core.bots import Bot  # noqa: E402
from tests.training.conftest import TOY_BOTS, first_two_player_game  # noqa: E402
from tests.training.toy_game import ToyGame  # noqa: E402
from training.rllib.common import MAIN, META_FILE, OPPONENT, parse_opponents  # noqa: E402
from training.rllib.env import EightfoldMultiAgentEnv, build_spaces, encode_observation, make_game  # noqa: E402
from training.rllib.policy import RLlibPolicy  # noqa: E402
from training.rllib.train import (  # noqa: E402
    RUN_RECORD,
    add_backend_args,
    build_config,
    check_rllib_resume,
    check_training_settings,
    make_env_config,
    module_for,
    net_arch,
    save_run,
    training_kwargs,
)

GAME = first_two_player_game()
needs_game = pytest.mark.skipif(GAME is None, reason="no real game installed yet")


def _game() -> tuple[str, dict[str, Any]]:
    assert GAME is not None
    return GAME


def _args(env: str, run_dir: Path, *extra: str) -> argparse.Namespace:
    """``eightfold train`` flags as ``train_rllib`` gets them (as in ``test_rllib._args``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("env")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out")
    parser.add_argument("--opponents", default=None)
    parser.add_argument("--timesteps", type=int, default=None)
    parser.add_argument("--resume", action="store_true")
    add_backend_args(parser)
    return parser.parse_args([env, "--out", str(run_dir), "--num-cpus", "2", *extra])


def _play(
    env: EightfoldMultiAgentEnv, seed: int, check: Any = None, max_steps: int = 10_000
) -> dict[str, float]:
    """One episode with random legal actions (``check(obs)`` after each reset and step); the
    per-agent reward sums."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    for _ in range(max_steps):
        if check is not None:
            check(obs)
        agent = next(a for a, o in obs.items() if o["action_mask"].any())
        obs, rewards, terms, truncs, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))}
        )
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms["__all__"] or truncs["__all__"]:
            break
    return totals


def _total(env: EightfoldMultiAgentEnv) -> int:
    """The running total of a toy game."""
    return int(env.state.to_dict()["total"])


# ------------------------------------------------------------------ the env
@needs_game
def test_every_agent_observes_its_own_seat() -> None:
    """Each observation is ``game.observe(state, seat)`` of the agent's own seat, flattened: the
    learner trained on another seat's view (the first player's hand, say) would learn nothing
    about its own cards while every check of rewards and masks still passed."""
    name, params = _game()
    env = EightfoldMultiAgentEnv({"game": name, "params": params, "opponents": "self"})
    seen: set[int] = set()

    def check(obs: dict[str, Any]) -> None:
        for agent, o in obs.items():
            seat = env.possible_agents.index(agent)
            seen.add(seat)
            want = np.asarray(env.game.observe(env.state, seat), np.float32).reshape(-1)
            np.testing.assert_array_equal(o["observations"], want, err_msg=agent)

    for seed in range(3):
        _play(env, seed, check, max_steps=40)
    assert seen == set(range(env.game.num_players))


def test_rewards_paid_mid_game_are_paid_once() -> None:
    """A return that changes mid-game (a placement paid while the seat plays on) reaches the
    agent once, as the change: paying the cumulative return at every later step would count it
    again each turn."""
    from tests.core.test_mutation_gaps import ScriptGame

    script = {0: {"pay": (0.5, 0.0, -0.5)}, 5: {"pay": (0.5, -1.0, 0.5), "end": True}}
    env = EightfoldMultiAgentEnv({"game_class": type("G", (ScriptGame,), {"script": script}), "params": {}})
    obs, _ = env.reset(seed=0)
    totals: dict[str, float] = {}
    steps = []
    while True:
        (agent,) = (a for a, o in obs.items() if o["action_mask"].any())
        obs, rewards, terms, truncs, _ = env.step({agent: 0})
        steps.append(rewards)
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms["__all__"]:
            break
    assert steps[0] == {"player_0": 0.5, "player_2": -0.5}
    assert steps[1] == {"player_1": 0.0}, "a step that pays nothing pays the mover 0"
    assert totals == {"player_0": 1.0, "player_1": -1.0, "player_2": 0.0}


def test_the_learning_seat_is_drawn_against_bots() -> None:
    """Against a bot the learning seat is drawn each episode: a learner always in seat 0 would
    only ever learn to play first, and score as a first player in ``eval``."""
    env = EightfoldMultiAgentEnv(
        {"game_class": ToyGame, "params": {"num_players": 3}, "opponents": "random", "bots": TOY_BOTS}
    )
    learners = set()
    for seed in range(30):
        obs, _ = env.reset(seed=seed)
        learners |= set(obs)
    assert learners == {"player_0", "player_1", "player_2"}


def test_opponents_are_drawn_by_their_weights() -> None:
    """``{spec: weight}`` draws each episode's opponent with those weights: with ``self`` 9 to
    ``random`` 1, about one episode in ten is a bot episode (not one in two, as if the weights
    were ignored)."""
    env = EightfoldMultiAgentEnv(
        {
            "game_class": ToyGame,
            "params": {"num_players": 2},
            "opponents": {"self": 9.0, "random": 1.0},
            "bots": TOY_BOTS,
        }
    )
    episodes = 300
    bot_episodes = sum(len(_play(env, seed)) == 1 for seed in range(episodes))
    assert 0.03 * episodes < bot_episodes < 0.2 * episodes, bot_episodes


def test_bots_draw_from_the_env_stream() -> None:
    """A ``random`` opponent plays random moves: with the learner always adding 1, the games
    of 20 episodes take many different courses (a bot with a fresh fixed generator per move
    would play one move sequence, at most one course per learning seat)."""
    env = EightfoldMultiAgentEnv(
        {"game_class": ToyGame, "params": {"num_players": 2}, "opponents": "random", "bots": TOY_BOTS}
    )
    courses = set()
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        trace = []
        while True:
            (agent,) = obs
            trace.append((agent, int(_total(env))))
            obs, _, terms, truncs, _ = env.step({agent: 0})
            if terms["__all__"] or truncs["__all__"]:
                break
            obs = {a: o for a, o in obs.items() if o["action_mask"].any()}
        courses.add(tuple(trace))
    assert len(courses) > 4, courses


def test_the_bots_of_the_env_config_are_used() -> None:
    """``env_config["bots"]`` is the bot table (a game whose bots.py is not registered, tests):
    a bot named there plays; ignoring it left only ``random`` (and an unknown-bot error)."""

    class FirstLegal(Bot):
        def act(self, state: Any, player: int, rng: np.random.Generator) -> int:
            return int(np.flatnonzero(state.legal_mask())[0])

    env = EightfoldMultiAgentEnv(
        {
            "game_class": ToyGame,
            "params": {"num_players": 2},
            "opponents": "first",
            "bots": {"first": FirstLegal},
        }
    )
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    before = _total(env)
    obs, *_ = env.step({agent: 2})  # the learner adds 3, the bot then adds 1
    assert _total(env) in (before + 4, 0)


def test_an_unknown_self_play_mode_is_refused() -> None:
    """``self_play`` other than shared or frozen (a typo in a script's env_config) is named,
    not silently played as shared self-play."""
    with pytest.raises(ValueError, match="self_play must be 'shared' or 'frozen', got 'frozne'"):
        EightfoldMultiAgentEnv({"game_class": ToyGame, "params": {}, "self_play": "frozne"})


@needs_game
def test_a_reset_seed_repeats_the_deal() -> None:
    """``reset(seed=s)`` deals the same game for the same ``s`` on one env copy, and another for
    another ``s``: RLlib's per-run seeding only reaches the games through it."""
    name, params = _game()
    env = EightfoldMultiAgentEnv({"game": name, "params": params})
    deals = []
    for seed in (5, 6, 5):
        env.reset(seed=seed)
        env.reset()  # an unseeded reset in between goes on from the stream
        env.reset(seed=seed)
        deals.append(json.dumps(env.state.to_dict(), sort_keys=True, default=str))
    assert deals[0] == deals[2] != deals[1]


def test_observation_bounds_are_the_games() -> None:
    """The observation space carries the game's (low, high) bounds the right way round: a space
    with them swapped contains no observation at all."""
    game = make_game({"game_class": ToyGame, "params": {"num_players": 3}})
    space, actions = build_spaces(game)
    state = game.new_initial_state(np.random.default_rng(0))
    assert space.contains(encode_observation(game, state, 0, True))
    assert actions.n == game.num_actions


# ------------------------------------------------------------------ opponents
def test_opponent_lists_are_parsed_as_written() -> None:
    """``--opponents "random, self"`` (with a space) names the bot ``random``, not `` self``;
    a weight of 0, NaN or infinity is refused naming the value (it would draw nothing, or fail
    inside the env after Ray started)."""
    assert parse_opponents("random, self") == {"random": 1.0, "self": 1.0}
    assert parse_opponents(["random", "self"]) == {"random": 1.0, "self": 1.0}
    # as the SB3 trainer reads them: a k=v item continues the spec before it (not an opponent
    # of its own named `c=0.5`), a spec named twice is drawn twice as often, a bool is no weight
    assert parse_opponents("random,mcts:sims=5,c=0.5") == {"random": 1.0, "mcts:sims=5,c=0.5": 1.0}
    assert parse_opponents(("self", "random", "self")) == {"self": 2.0, "random": 1.0}
    with pytest.raises(ValueError, match="the weight of 'random' must be a number, got True"):
        parse_opponents({"random": True})
    for bad, shown in (
        ({"random": 0}, "{'random': 0}"),
        ({"random": 1.0, "self": 0.0}, "'self': 0.0"),
        ("", "got ''"),
        ({"random": float("nan")}, "{'random': nan}"),
        ({"random": 1.0, "self": float("inf")}, "'self': inf"),
    ):
        with pytest.raises(
            ValueError, match="at least one opponent, each with a finite weight > 0, got"
        ) as error:
            parse_opponents(bad)
        assert shown in str(error.value)


def test_the_default_opponent_is_self_play(tmp_path: Path) -> None:
    """Without ``--opponents`` or an ``opponents`` key, an RLlib run plays itself (as the
    docs say), and ``--seed`` wins over the config's seed."""
    env_config = make_env_config(
        _args("over_and_out", tmp_path, "--seed", "3"), {"num_players": 2}, {"seed": 9}
    )
    assert env_config["opponents"] == {"self": 1.0}
    assert env_config["seed"] == 3 and env_config["self_play"] == "shared"


# ------------------------------------------------------------------ PPO settings
def test_every_sb3_setting_reaches_its_rllib_name() -> None:
    """The SB3 names of a config all arrive under RLlib's: a setting left out (``gamma``,
    ``ent_coef``, ...) would silently train with RLlib's default instead."""
    kw = training_kwargs(
        {
            "ppo": {
                "learning_rate": 1e-3,
                "n_epochs": 3,
                "gamma": 0.9,
                "gae_lambda": 0.8,
                "clip_range": 0.1,
                "ent_coef": 0.02,
                "vf_coef": 0.7,
                "max_grad_norm": 0.4,
                "n_steps": 32,
                "n_envs": 2,
            }
        },
        1,
    )
    assert kw == {
        "lr": 1e-3,
        "train_batch_size_per_learner": 64,
        "minibatch_size": 64,  # the default 256, cut to the rollout
        "num_epochs": 3,
        "gamma": 0.9,
        "lambda_": 0.8,
        "clip_param": 0.1,
        "entropy_coeff": 0.02,
        "vf_loss_coeff": 0.7,
        "grad_clip": 0.4,
    }


def test_the_rllib_mapping_wins_over_the_translated_settings() -> None:
    """``--set 'rllib={"lr": ...}'`` overrides the config's ``learning_rate`` (which every game's
    YAML sets): otherwise the documented way to set an RLlib value would be silently ignored."""
    kw = training_kwargs({"learning_rate": 3e-4, "gamma": 0.99, "rllib": {"lr": 5e-5, "gamma": 0.5}}, 1)
    assert kw["lr"] == 5e-5 and kw["gamma"] == 0.5


def test_net_arch_is_read_where_configs_put_it() -> None:
    """``ppo.policy_kwargs.net_arch`` (a list, or SB3's ``{pi, vf}`` dict: the policy's) and a
    top-level ``net_arch`` set the encoder; nothing set gives [256, 256]."""
    assert net_arch({"ppo": {"policy_kwargs": {"net_arch": [32, 16]}}}) == [32, 16]
    assert net_arch({"policy_kwargs": {"net_arch": {"pi": [64], "vf": [8]}}}) == [64]
    assert net_arch({"net_arch": [12]}) == [12]
    assert net_arch({}) == [256, 256]


def test_frozen_agents_play_the_opponent_and_only_main_trains() -> None:
    """``frozen_<seat>`` agents map to the frozen module and only ``main`` trains: a frozen
    opponent that trained (or that was ``main`` itself) would make ``--self-play frozen``
    shared self-play in disguise."""
    assert module_for("frozen_1") == OPPONENT and module_for("player_1") == MAIN
    args = argparse.Namespace(num_env_runners=0, envs_per_runner=1)
    env_config = {
        "game_class": ToyGame,
        "params": {},
        "opponents": {"self": 1.0},
        "self_play": "frozen",
        "seed": 3,
    }
    config = build_config(env_config, {}, args)
    assert set(config.policies) == {MAIN, OPPONENT}
    assert list(config.policies_to_train) == [MAIN]
    assert config.seed == 3
    assert build_config(env_config, {}, args, seed=77).seed == 77, "a resumed part's own seed"


def test_rllib_settings_at_their_bounds() -> None:
    """The open bounds of the checked settings: ``gamma`` 0, ``clip_param`` 0 and ``lr`` 0 are
    refused (no learning or NaN), ``lambda_`` 0 and ``entropy_coeff`` 0 are fine."""
    for settings, message in (
        ({"gamma": 0.0}, r"gamma must be a finite number \(0, 1\], got 0.0"),
        ({"clip_param": 0}, r"clip_param must be a finite number > 0, got 0"),
        ({"lr": 0}, r"lr must be a finite number > 0, got 0"),
        ({"grad_clip": 0.0}, r"grad_clip must be a finite number > 0, got 0.0"),
    ):
        with pytest.raises(ValueError, match=message):
            check_training_settings(settings)
    check_training_settings({"lambda_": 0.0, "entropy_coeff": 0, "vf_loss_coeff": 0.0, "kl_coeff": 0.0})


# ------------------------------------------------------------------ progress rows
class _ResultsOf:
    """A stand-in for ``Algorithm`` whose ``train()`` hands back the given RLlib result dicts
    (their layout is RLlib's: ``env_runners`` holds the sampling metrics)."""

    def __init__(self, results: list[dict[str, Any]]) -> None:
        self.results = list(results)

    def train(self) -> dict[str, Any]:
        return self.results.pop(0)


def _result(steps: int, main: float, length: float) -> dict[str, Any]:
    return {
        "env_runners": {
            "num_env_steps_sampled_lifetime": steps,
            "module_episode_returns_mean": {MAIN: main, OPPONENT: -main},
            "episode_return_mean": 0.0,
            "episode_len_mean": length,
            "episode_len_max": 3 * length,
        }
    }


def test_progress_rows_report_mains_return_and_the_run_rates(tmp_path: Path) -> None:
    """A row reports ``main``'s mean return (not the sum over all modules, 0 in a zero-sum
    game), the mean episode length, and steps/s of the whole run (a resumed part's rows go on
    from the saved row: iteration, steps and seconds)."""
    from training.rllib.train import _train_loop

    args = _args("over_and_out", tmp_path, "--iterations", "2")
    log: list[dict[str, Any]] = []
    last = {"iteration": 4.0, "env_steps": 512.0, "seconds": 100.0}
    algo = _ResultsOf([_result(640, 0.25, 12.0), _result(768, float("nan"), 14.0)])
    _train_loop(algo, args, 10_000, log, last)
    assert [r["iteration"] for r in log] == [5.0, 6.0]
    assert [r["env_steps"] for r in log] == [640.0, 768.0]
    assert log[0]["main_return_mean"] == 0.25 and math.isnan(log[1]["main_return_mean"])
    assert [r["episode_len_mean"] for r in log] == [12.0, 14.0]
    for row in log:
        assert row["seconds"] >= 100.0
        assert row["env_steps_per_s"] == pytest.approx(row["env_steps"] / row["seconds"], rel=1e-12)


def test_a_save_writes_an_iteration_without_episodes_as_null(tmp_path: Path) -> None:
    """``progress.json`` is strict JSON: an iteration that finished no episode has ``null`` as
    its mean return, in the file beside the checkpoint and in the checkpoint's record."""

    class Algo:
        def save_to_path(self, path: str) -> None:
            Path(path).mkdir(parents=True)

    rows = [{"iteration": 1.0, "env_steps": 128.0, "main_return_mean": float("nan"), "episode_len_mean": 3.0}]
    save_run(Algo(), tmp_path, {"format": 1, "game": "over_and_out"}, {"timesteps": 256}, rows)
    for text in (
        (tmp_path / "progress.json").read_text(),
        json.dumps(json.loads((tmp_path / "checkpoint" / RUN_RECORD).read_text())["progress"]),
    ):
        saved = json.loads(text, parse_constant=lambda c: pytest.fail(c))
        assert saved[0]["main_return_mean"] is None and saved[0]["episode_len_mean"] == 3.0


# ------------------------------------------------------------------ resume checks (a run on disk)
def _saved_run(run_dir: Path, config: dict[str, Any], steps: int = 128) -> None:
    """A run folder as ``save_run`` leaves it (no weights: the checks read the record only)."""
    meta = {
        "format": 1,
        "module": MAIN,
        "game": "over_and_out",
        "params": {"num_players": 2},
        "opponents": {"random": 1.0},
        "self_play": "shared",
        "seed": 0,
        "snapshot_steps": 0,
    }
    (run_dir / "checkpoint").mkdir(parents=True)
    (run_dir / META_FILE).write_text(json.dumps(meta))
    row = {"iteration": 1.0, "env_steps": float(steps), "seconds": 1.0}
    record = {"meta": meta, "progress": [row], "config": config}
    (run_dir / "checkpoint" / RUN_RECORD).write_text(json.dumps(record))


CONFIG = {"opponents": "random", "ppo": {"n_steps": 128}, "rllib": {"lambda_": 0.9}, "timesteps": 10_000}


def test_a_resume_refuses_another_game_its_parameters_or_rllib_settings(tmp_path: Path) -> None:
    """The game, its parameters and the ``rllib`` settings are the run's: a resume with another
    would load the weights into another learner or game (or fail deep in RLlib)."""
    _saved_run(tmp_path, CONFIG)
    args = _args("over_and_out", tmp_path, "--resume")
    meta, done = check_rllib_resume(tmp_path, args, {"num_players": 2}, dict(CONFIG), 10_000)
    assert meta["game"] == "over_and_out" and done[-1]["env_steps"] == 128.0
    for env, params, config, message in (
        ("octi", {}, CONFIG, "a run of over_and_out, not octi"),
        ("over_and_out", {"num_players": 3}, CONFIG, r"the parameters \{'num_players': 3\} would change it"),
        ("over_and_out", {"num_players": 2}, {**CONFIG, "rllib": {"lambda_": 0.5}}, "rllib cannot change"),
    ):
        with pytest.raises(ValueError, match=message):
            check_rllib_resume(tmp_path, _args(env, tmp_path, "--resume"), params, dict(config), 10_000)


class _RayWouldStart(Exception):
    pass


def _stop_at_build_config(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``train_rllib`` runs its checks, then stops where it would build the algorithm: Ray is
    not started (``_init_ray``) and what ``build_config`` gets is kept."""
    import training.rllib.train as rt

    seen: dict[str, Any] = {}

    def build_config(
        env_config: Any, config: Any, args: Any, snapshot_steps: Any = None, seed: Any = None
    ) -> Any:
        seen.update(env_config=env_config, args=args, snapshot_steps=snapshot_steps, seed=seed)
        raise _RayWouldStart

    monkeypatch.setattr(rt, "_init_ray", lambda args: None)
    monkeypatch.setattr(rt, "build_config", build_config)
    return seen


def test_a_resumed_part_is_seeded_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resumed part's RLlib seed is ``resume_seed(seed, steps done)``: with the run's seed
    it would deal the games the run began with again."""
    from training.config import resume_seed
    from training.rllib.train import train_rllib

    seen = _stop_at_build_config(monkeypatch)
    _saved_run(tmp_path, CONFIG, steps=384)
    with pytest.raises(_RayWouldStart):
        train_rllib(_args("over_and_out", tmp_path, "--resume"), {"num_players": 2}, dict(CONFIG))
    assert seen["seed"] == resume_seed(0, 384) != 0


def test_env_copies_per_runner_default_to_n_envs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--envs-per-runner`` each EnvRunner steps the config's ``n_envs`` copies (batched
    inference, as SB3's VecEnv); with it, the flag's number."""
    from training.rllib.train import train_rllib

    seen = _stop_at_build_config(monkeypatch)
    config = {"opponents": "random", "n_envs": 4, "timesteps": 1_000}
    for extra, copies in (((), 4), (("--envs-per-runner", "2"), 2)):
        with pytest.raises(_RayWouldStart):
            train_rllib(_args("over_and_out", tmp_path / "run", *extra), {"num_players": 2}, dict(config))
        assert seen["args"].envs_per_runner == copies


def test_env_runners_may_take_every_local_cpu_but_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--num-env-runners`` up to ``--num-cpus`` runs; one more is refused before Ray starts
    (Ray would wait for a CPU forever)."""
    from training.rllib.train import train_rllib

    _stop_at_build_config(monkeypatch)
    config = {"opponents": "random", "timesteps": 1_000}
    with pytest.raises(_RayWouldStart):
        train_rllib(
            _args("over_and_out", tmp_path / "run", "--num-env-runners", "2"), {"num_players": 2}, config
        )
    with pytest.raises(ValueError, match="--num-env-runners 3 is more than the 2 CPU"):
        train_rllib(
            _args("over_and_out", tmp_path / "run", "--num-env-runners", "3"), {"num_players": 2}, config
        )


# ------------------------------------------------------------------ the policy
def _module(game: Any) -> Any:
    """A fresh (seeded) masked PPO module for ``game``, as the trainer builds it."""
    import torch
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib.module import MaskedPPOTorchRLModule

    obs_space, act_space = build_spaces(game)
    torch.manual_seed(0)
    model = DefaultModelConfig(fcnet_hiddens=[16], head_fcnet_hiddens=[8])
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config=model,
    )
    return spec.build()


@needs_game
def test_the_policy_reads_the_seat_it_plays() -> None:
    """``probabilities(state, seat)`` are the module's masked softmax over ``seat``'s own
    observation: a policy fed another seat's view (or the logits the wrong way round) still
    plays legal moves, so only this comparison notices."""
    import torch
    from ray.rllib.core.columns import Columns

    name, params = _game()
    game = make_game({"game": name, "params": params})
    module = _module(game)
    policy = RLlibPolicy(module, game)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(rng)
    checked = 0
    while not state.is_terminal() and checked < 6:
        seat = state.current_player()
        obs = encode_observation(game, state, seat, True)
        with torch.no_grad():
            batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].double()
        want = torch.softmax(logits, -1).numpy() * (obs["action_mask"] > 0)
        np.testing.assert_allclose(
            policy.probabilities(state, seat), want / want.sum(), rtol=1e-9, atol=1e-12
        )
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
        checked += 1
    assert checked == 6


def _saved_policy(run_dir: Path, params: dict[str, Any]) -> None:
    """A run directory holding a fresh ``main`` module where the trainer saves it."""
    name, _ = _game()
    game = make_game({"game": name, "params": params})
    _module(game).save_to_path(str(run_dir / "checkpoint" / "learner_group" / "learner" / "rl_module" / MAIN))
    (run_dir / META_FILE).write_text(
        json.dumps({"format": 1, "game": name, "params": params, "module": MAIN})
    )


@needs_game
def test_a_loaded_policy_keeps_its_game_and_options(tmp_path: Path) -> None:
    """``RLlibPolicy.load`` plays the game config the run was trained on (its saved parameters,
    not the game's defaults), passes ``deterministic`` on, and a game config of another size is
    refused by name instead of feeding the network the wrong observation."""
    name, params = _game()
    _saved_policy(tmp_path, params)
    policy = RLlibPolicy.load(tmp_path, deterministic=True)
    assert policy.deterministic is True and RLlibPolicy.load(tmp_path).deterministic is False
    assert policy.game.config == make_game({"game": name, "params": params}).config


def test_a_policy_of_another_observation_size_is_refused_by_name() -> None:
    """A module trained on one game config, played in another whose observation has another
    size, is a usage error naming both sizes (not a shape error inside torch, or a network fed
    a cut observation)."""
    trained = make_game({"game_class": ToyGame, "params": {"target": 10}})
    other = make_game({"game_class": ToyGame, "params": {"target": 12}})
    module = _module(trained)
    assert RLlibPolicy(module, trained).game is trained
    with pytest.raises(
        ValueError, match="trained on 14 observation values / 3 actions, but this game config has 16 / 3"
    ):
        RLlibPolicy(module, other)


# ------------------------------------------------------------------ frozen self-play on Ray
@pytest.fixture(scope="module")
def ray_local() -> Any:
    """A local Ray instance for the tests that build an algorithm (as ``test_rllib.ray_local``)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


@pytest.mark.slow
@needs_game
def test_a_new_frozen_run_starts_its_opponent_as_main(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--self-play frozen``: before the first iteration the opponent holds ``main``'s first
    weights (README), not a network of its own random initialisation that ``main`` would learn
    to beat until the first snapshot."""
    import training.rllib.train as rt

    name, params = _game()
    seen: dict[str, Any] = {}

    def capture(algo: Any, *rest: Any) -> None:
        state = algo.learner_group.get_state(components="learner/rl_module")["learner"]["rl_module"]
        seen.update({m: {k: np.asarray(v) for k, v in state[m].items()} for m in (MAIN, OPPONENT)})

    monkeypatch.setattr(rt, "_train_loop", capture)
    config = {
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}},
        "opponents": "self",
        "timesteps": 64,
    }
    args = _args(name, tmp_path / "run", "--self-play", "frozen", "--iterations", "1")
    rt.train_rllib(args, params, config)
    assert seen[MAIN].keys() == seen[OPPONENT].keys()
    for key, value in seen[MAIN].items():
        np.testing.assert_array_equal(seen[OPPONENT][key], value, err_msg=key)
