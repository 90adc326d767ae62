"""Tests closing gaps found by mutation testing of the training layer: discounted shaping,
truncation, placement of an eliminated learner, tournament statistics (Wilson centre,
draws, scores, seat rotation, 2v2 teams, returns by seat), config validation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from envs.core.registry import get_game
from tests.training.test_audit_s14 import AddOne, AddThree, _pool
from tests.training.test_pretrain import _cfg as _bc_cfg
from tests.training.toy_game import ToyGame, ToyState
from training.config import TrainConfig, merge
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv
from training.tournament import PairResult, bradley_terry_elo, play_pairing, wilson


# ----------------------------------------------------------------- shaping, discounted
@pytest.mark.parametrize("name", ["otto_octopus", "over_and_out"])
def test_discounted_shaping_terms_sum_to_minus_the_first_potential(name: str) -> None:
    """Potential-based shaping with gamma < 1: sum_t gamma^t F_t telescopes to
    gamma^T phi(s_T) - phi(s_0) = -phi(s_0) (phi = 0 once out), so the discounted shaped
    return is the discounted true return minus k * phi(s0). A shaping term without gamma
    (k * (phi' - phi)) or with gamma on the wrong potential breaks this."""
    entry = get_game(name)
    game = entry.game_class()(num_players=2)
    k, gamma = 0.7, 0.9
    plain = SingleAgentEnv(game, OpponentPool.from_specs(game, ["random"], entry.bots()))
    shaped = SingleAgentEnv(
        game, OpponentPool.from_specs(game, ["random"], entry.bots()), shaping=k, gamma=gamma
    )
    for seed in range(2):
        plain.reset(seed=seed)
        shaped.reset(seed=seed)
        phi0 = float(game.evaluate(shaped.state)[shaped.seat])
        rng = np.random.default_rng(seed)
        disc_plain = disc_shaped = 0.0
        t, done = 0, False
        while not done:
            a = int(rng.choice(np.flatnonzero(plain.action_masks())))
            _o, r1, d1, t1, _i = plain.step(a)
            _o, r2, _d, _t, _i = shaped.step(a)
            disc_plain += gamma**t * r1
            disc_shaped += gamma**t * r2
            t += 1
            done = d1 or t1
        assert t > 3
        assert disc_shaped == pytest.approx(disc_plain - k * phi0, abs=1e-9)


# ------------------------------------------------------------------------- truncation
class _CappedState(ToyState):
    """The toy game cut off by a length limit after ``LIMIT`` additions (a truncation)."""

    LIMIT = 5

    def is_terminal(self) -> bool:
        return super().is_terminal() or self.adds >= self.LIMIT

    def is_truncated(self) -> bool:
        return self.adds >= self.LIMIT and not super().is_terminal()


class _CappedGame(ToyGame):
    def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> ToyState:
        return _CappedState(self.config, rng)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_game_cut_by_its_length_limit_is_truncated_not_terminated(seat: int) -> None:
    """Gymnasium's contract: an episode ended by a time limit is ``truncated`` (PPO then
    bootstraps the value), not ``terminated``; on the learner's move or the opponent's."""
    game = _CappedGame(num_players=2)
    env = SingleAgentEnv(game, _pool(AddOne(game)), seat=seat)
    env.reset(seed=0)
    steps = []
    done = False
    while not done:
        _o, r, term, trunc, info = env.step(0)
        steps.append((term, trunc))
        done = term or trunc
    assert steps[-1] == (False, True)
    assert all(s == (False, False) for s in steps[:-1])
    assert info["return"] == float(env.state.returns()[seat])


# -------------------------------------------------------- placement once eliminated
def test_an_eliminated_learner_is_placed_behind_everyone_still_in() -> None:
    """4 players: seat 2 busts first, then the learner (seat 0) while seats 1 and 3 play on:
    it is third (two still in), not last, and paid the second-out reward -1/3."""
    game = ToyGame(num_players=4, target=6)
    env = SingleAgentEnv(game, _pool(AddThree(game)), seat=0)
    env.reset(seed=0)
    _o, r, term, _t, info = env.step(0)  # 1; seat 1 -> 4; seat 2 -> 7 busts (0); seat 3 -> 3
    assert not term and env.state.eliminated() == frozenset({2})
    _o, r, term, trunc, info = env.step(2)  # 3 -> 6: the learner busts, second out
    assert (term, trunc) == (True, False) and not env.state.is_terminal()
    assert r == pytest.approx(-1.0 / 3.0)
    assert info["placement"] == 3.0 and info["outcome"] == "loss"


# ------------------------------------------------------------------ tournament stats
def test_wilson_interval_is_centred_off_the_raw_rate() -> None:
    """1 win in 10: the textbook Wilson interval [0.0179, 0.4042] (its centre 0.211 is pulled
    towards 1/2; the symmetric 50/100 case cannot tell)."""
    lo, hi = wilson(1, 10)
    assert lo == pytest.approx(0.0179, abs=2e-4) and hi == pytest.approx(0.4042, abs=2e-4)
    lo, hi = wilson(90, 100)
    assert lo == pytest.approx(0.8256, abs=2e-4) and hi == pytest.approx(0.9448, abs=2e-4)


def test_draws_are_neither_wins_nor_losses_and_score_half() -> None:
    res = PairResult("a", "b")
    for result in ("win", "draw", "draw", "loss"):
        res.add(result, 1.0, 0.0)
    assert (res.games, res.wins, res.draws, res.losses) == (4, 1, 2, 1)
    assert res.score == 0.5
    summary = res.summary()
    assert summary["win_rate"] == 0.25
    assert summary["win_rate_ci95"] == list(wilson(1, 4)), "the interval of the win rate itself"


def test_an_all_draw_pairing_rates_both_players_equal() -> None:
    draws = PairResult("a", "b", games=50, draws=50)
    elo = bradley_terry_elo(["a", "b"], [draws])
    assert elo["a"] == 1000.0 and elo["b"] == pytest.approx(1000.0, abs=1e-6)


class _SeatRecorder(Bot):
    name = "rec"

    def __init__(self, game: ToyGame) -> None:
        super().__init__(game)
        self.seats: set[int] = set()

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.seats.add(player)
        return int(rng.integers(3))


def test_the_first_players_seat_rotates_game_by_game() -> None:
    game = ToyGame(num_players=3)
    for g in range(6):
        rec = _SeatRecorder(game)
        play_pairing(game, rec, RandomBot(game), ("rec", "random"), [g], seed=0)
        assert rec.seats == {g % 3}


def test_returns_are_the_first_players_own_in_every_seat() -> None:
    """Reach-ten, adding 3 against adding 1: the adder of 3 reaches 10 first from either seat,
    so it wins every game with return +1 (not seat 0's return)."""
    game = ToyGame(num_players=2, reach=True)
    res = play_pairing(game, AddThree(game), AddOne(game), ("add3", "add1"), range(4), seed=0)
    assert (res.wins, res.losses) == (4, 0)
    assert res.returns == [1.0] * 4 and res.placements == [1.0] * 4


def test_2v2_partners_are_not_rivals_in_a_pairing() -> None:
    """In 2v2 the first player's partner shares its return; counted as a rival it would tie
    every game, and no game could be won."""
    game = ToyGame(num_players=4, teams=True)
    res = play_pairing(game, RandomBot(game), RandomBot(game), ("x", "y"), range(20), seed=0)
    assert res.wins > 0 and res.losses > 0
    # one rival side (two seats, one team return): placed 1 (won), 1.5 (drawn) or 2 (lost)
    assert set(res.placements) <= {1.0, 1.5, 2.0} and 2.0 in res.placements


# ------------------------------------------------------------------- config checks
@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("gae_lambda", 1.5, r"gae_lambda must be in \[0, 1\]"),
        ("gae_lambda", -0.1, r"gae_lambda must be in \[0, 1\]"),
        ("clip_range", 0.0, r"clip_range must be a finite number > 0"),
        ("max_grad_norm", -1.0, r"max_grad_norm must be a finite number > 0"),
        ("shaping", -0.5, r"shaping must be a finite number >= 0"),
        ("vf_coef", -1.0, r"vf_coef must be a finite number >= 0"),
        ("seed", 2**32, r"seed must be in \[0, 2\*\*32 - 1\]"),
        ("vec_env", "forkserver", r"vec_env must be 'dummy' or 'subproc'"),
        ("opponents", {"random": 0.0}, r"opponent weights must be finite numbers > 0"),
        # infinities passed the old checks: learning_rate=inf trained a model of NaN weights
        ("learning_rate", float("inf"), r"learning_rate must be a finite number > 0"),
        ("clip_range", float("inf"), r"clip_range must be a finite number > 0"),
        ("max_grad_norm", float("inf"), r"max_grad_norm must be a finite number > 0"),
        ("shaping", float("inf"), r"shaping must be a finite number >= 0"),
        ("ent_coef", float("inf"), r"ent_coef must be a finite number >= 0"),
        ("vf_coef", float("inf"), r"vf_coef must be a finite number >= 0"),
        ("pretrain_temperature", float("inf"), r"pretrain_temperature must be a finite number >= 0"),
        ("pretrain_learning_rate", float("inf"), r"pretrain_learning_rate must be a finite number > 0"),
        ("opponents", {"random": float("inf")}, r"opponent weights must be finite numbers > 0"),
    ],
)
def test_more_options_out_of_range_are_named(key: str, value: Any, message: str) -> None:
    cfg = merge(TrainConfig(), {key: value}, "test")
    with pytest.raises(ValueError, match=message):
        cfg.validate()


# ------------------------------------------------------------------ behaviour cloning
def _bc_model(cfg: dict[str, Any]) -> Any:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.train import build_single_env

    vec = DummyVecEnv([lambda: build_single_env(cfg)[0]])
    return MaskablePPO("MlpPolicy", vec, policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")


def test_the_actor_loss_is_minus_log_pi_of_the_teachers_best_set() -> None:
    """One minibatch of all decisions: the reported loss of the first epoch is that of the
    starting policy, -mean log pi(B | s) over the teacher's best sets B (not the move played:
    ties are half the decisions here), and the value loss the MSE to the returns-to-go."""
    import torch

    from training.pretrain import collect_demonstrations, fit

    demos = collect_demonstrations(_bc_cfg(), 150, seed=0)
    assert demos.targets is not None and (demos.targets.sum(1) > 1).any()
    n = len(demos)
    policy = _bc_model(_bc_cfg()).policy
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(demos.obs[:]), action_masks=demos.masks)
        logp = dist.distribution.logits.numpy().astype(np.float64)
        values = policy.predict_values(torch.as_tensor(demos.obs[:])).flatten().numpy()
    set_loss = -np.mean([np.logaddexp.reduce(logp[i][demos.targets[i]]) for i in range(n)])
    move_loss = -np.mean(logp[np.arange(n), demos.actions])
    assert move_loss - set_loss > 0.01
    log = fit(policy, demos, epochs=1, batch_size=n, vf_coef=0.5, max_grad_norm=0.5, seed=0, holdout=0.0)
    assert log["epochs"][0]["policy_loss"] == pytest.approx(set_loss, abs=2e-4)
    assert log["epochs"][0]["value_loss"] == pytest.approx(np.mean((values - demos.returns) ** 2), abs=2e-4)


def test_the_fit_trains_the_critic_on_the_returns_to_go() -> None:
    import torch

    from training.pretrain import collect_demonstrations, fit

    demos = collect_demonstrations(_bc_cfg(), 600, seed=1)  # returns hard to predict: the mean is learnt
    policy = _bc_model(_bc_cfg()).policy

    def mse() -> float:
        with torch.no_grad():
            v = policy.predict_values(torch.as_tensor(demos.obs[:])).flatten().numpy()
        return float(np.mean((v - demos.returns) ** 2))

    before = mse()
    fit(policy, demos, epochs=4, batch_size=32, vf_coef=0.5, max_grad_norm=0.5, seed=0, learning_rate=1e-3)
    assert mse() < 0.9 * before  # 1.07 -> 0.76; with the critic left out of the loss it stays


def test_agreement_counts_any_of_the_teachers_best_moves() -> None:
    import torch

    from training.pretrain import agreement, collect_demonstrations

    demos = collect_demonstrations(_bc_cfg(), 150, seed=2)
    policy = _bc_model(_bc_cfg()).policy
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(demos.obs[:]), action_masks=demos.masks)
        mode = dist.mode().numpy()
    assert demos.targets is not None
    expected = float(demos.targets[np.arange(len(demos)), mode].mean())
    assert expected > float((mode == demos.actions).mean()), "ties make the set count differ"
    assert agreement(policy, demos) == pytest.approx(expected)


def test_held_out_agreement_is_measured_on_the_last_decisions() -> None:
    """The held-out share (the last decisions) is what ``holdout_agreement`` is measured on."""
    from training.pretrain import collect_demonstrations, fit

    demos = collect_demonstrations(_bc_cfg(), 120, seed=3)
    policy = _bc_model(_bc_cfg()).policy
    shown: list[np.ndarray] = []
    get = policy.get_distribution

    def spy(obs: Any, action_masks: Any = None) -> Any:
        if not policy.training:
            shown.append(obs.numpy().copy())
        return get(obs, action_masks=action_masks)

    policy.get_distribution = spy
    log = fit(policy, demos, epochs=1, batch_size=64, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    n_train = log["train"]
    assert 0 < n_train < len(demos)
    assert np.array_equal(np.concatenate(shown), demos.obs[n_train:])


def test_each_chunk_of_the_schedule_plays_its_own_episodes() -> None:
    """Episode e is seeded by the run's seed spawned at e: the second chunk of 16 episodes
    is not a replay of the first."""
    from training.pretrain import collect_demonstrations

    first = collect_demonstrations(_bc_cfg(), 1, seed=4)  # exactly one chunk
    m = len(first)
    both = collect_demonstrations(_bc_cfg(), m + 1, seed=4)
    assert both.episodes == 32 and np.array_equal(both.obs[:m], first.obs)
    second = both.obs[m:]
    assert not (len(second) == m and np.array_equal(second, first.obs))


def test_symmetry_augmentation_turns_the_targets_with_the_mask() -> None:
    """With symmetries each decision's teacher move is turned with its mask; a target left
    unturned would lie outside the turned mask and the loss would be about 1e8."""
    from training.pretrain import collect_demonstrations, fit

    cfg = _bc_cfg(
        env="otto_game_over",
        params={"num_players": 2, "episode": "match"},
        opponents={"random": 1.0},
        pretrain_teacher="greedy",
    )
    demos = collect_demonstrations(cfg, 30, seed=0)
    game = get_game("otto_game_over").game_class()(num_players=2, episode="match")
    policy = _bc_model(cfg).policy
    log = fit(
        policy, demos, epochs=2, batch_size=16, vf_coef=0.5, max_grad_norm=0.5, seed=0,
        symmetries=game.symmetries(),
    )  # fmt: skip
    assert max(row["policy_loss"] for row in log["epochs"]) < 50.0


# ------------------------------------------------------------------- players, pools
def test_pool_weights_latest_prob_and_size() -> None:
    """Groups are drawn by weight; ``latest_prob=1`` always plays the newest snapshot; the
    oldest snapshots are dropped beyond ``max_size``."""
    game = ToyGame(num_players=2)
    pool = OpponentPool(latest_prob=1.0, max_size=3)
    pool.add("heavy", "heavy", RandomBot(game), weight=9.0)
    for k in range(5):
        pool.add("self", f"snap{k}", RandomBot(game))
    assert [name for name, _ in pool.groups["self"].players] == ["snap2", "snap3", "snap4"]
    rng = np.random.default_rng(0)
    names = [pool.sample(rng)[0] for _ in range(2000)]
    assert set(names) == {"heavy", "snap4"}
    assert 0.86 < names.count("heavy") / len(names) < 0.94  # 9 : 1
    pool.latest_prob = 0.0
    olds = {pool.sample(rng)[0] for _ in range(400)}
    assert {"snap2", "snap3", "snap4"} <= olds


def _toy_policy(game: ToyGame) -> Any:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = SingleAgentEnv(game, _pool(RandomBot(game)))
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), policy_kwargs={"net_arch": [8]}, seed=0)
    return model.policy


def test_a_frozen_policy_sees_its_own_seats_observation() -> None:
    """A PolicyPlayer acting for seat 1 reads ``observe(state, 1)`` (egocentric: here the
    alive flags differ by seat), as the learner did in training; deterministic = argmax."""
    import torch

    from training.players import PolicyPlayer

    game = ToyGame(num_players=3, target=4)
    policy = _toy_policy(game)
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(2)  # seat 0: 3
    state.apply(0)  # seat 1: 4, busts; seat 2 to move
    state.apply(0)  # seat 2: 1; seat 0 to move
    state.apply(0)  # seat 0: 2; seat 2 to move
    assert state.current_player() == 2
    assert not np.array_equal(game.observe(state, 2), game.observe(state, 0))
    with torch.no_grad():
        obs = torch.as_tensor(game.observe(state, 2)[None])
        want = policy.get_distribution(obs, action_masks=state.legal_mask()[None].astype(bool))
        want = want.distribution.probs[0].numpy()
    player = PolicyPlayer(policy, game, deterministic=True)
    np.testing.assert_allclose(player.probabilities(state, 2), want, rtol=1e-5, atol=1e-7)
    rng = np.random.default_rng(0)
    assert {player.act(state, 2, rng) for _ in range(5)} == {int(np.argmax(want))}


def test_a_saved_policy_is_loaded_once_per_process_until_its_file_changes(tmp_path: Any) -> None:
    """The in-process envs of a ``dummy`` run each add every snapshot to their pool: they
    share one loaded policy (one load, one copy in memory) while the file is unchanged; a file
    rewritten at the same path loads anew, and a policy no player holds is freed."""
    import gc
    import os

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training import players
    from training.players import PolicyPlayer

    game = ToyGame(num_players=2, target=6)
    env = SingleAgentEnv(game, _pool(RandomBot(game)))
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), policy_kwargs={"net_arch": [8]}, seed=0)
    path = str(tmp_path / "snap.zip")
    model.save(path)
    a = PolicyPlayer.load(path, game)
    b = PolicyPlayer.load(path, game, deterministic=True)
    assert a.policy is b.policy and a is not b and b.deterministic and not a.deterministic
    state = game.new_initial_state(np.random.default_rng(0))
    np.testing.assert_allclose(a.probabilities(state, 0), b.probabilities(state, 0))
    with torch.no_grad():  # a different network saved at the same path: loaded anew
        for p in model.policy.parameters():
            p.add_(0.5)
    model.save(path)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # even within the clock's tick
    c = PolicyPlayer.load(path, game)
    assert c.policy is not a.policy
    assert not np.allclose(c.probabilities(state, 0), a.probabilities(state, 0))
    key = next(k for k, v in players._LOADED.items() if v is a.policy)
    del a, b
    gc.collect()
    assert key not in players._LOADED
