"""Self-play, checkpoint and evaluation pins a mutation round of the training layer found
unguarded: when snapshots are taken and under which names, which of them a resume hands back
to the pool, when ``best_model.zip`` is replaced, how the periodic evaluation seats and scores
the agent, how the run's pool options reach the pools, and the network ``policy_kwargs``
builds per observation shape. Each test failed under at least one planted mutant that the
earlier tests let pass."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from envs.core.bots import RandomBot
from envs.core.game import GameState
from tests.training.test_audit_s14 import _pool
from tests.training.toy_game import ToyGame
from training import callbacks as cb_module
from training.callbacks import BaselineEvalCallback, SelfPlayCallback, load_pool
from training.single_agent import SingleAgentEnv


# ------------------------------------------------------------------- a fake learner
class _Vec:
    """The learner's VecEnv as the callbacks use it: ``env_method`` calls are recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def env_method(self, name: str, *args: Any) -> None:
        self.calls.append((name, *args))


class _Model:
    """What the callbacks read of a MaskablePPO model: its steps, env, logger and ``save``."""

    def __init__(self, steps: int = 0) -> None:
        self.num_timesteps = steps
        self.env = _Vec()
        self.logger = _Logger()

    def get_env(self) -> _Vec:
        return self.env

    def save(self, path: Any) -> None:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("steps", str(self.num_timesteps))


class _Logger:
    def record(self, key: str, value: Any) -> None:
        pass


def _drive(callback: Any, model: _Model, until: int, n_envs: int = 2) -> None:
    """``learn()``'s calls: training start, then one ``on_step`` per vectorised env step."""
    callback.init_callback(model)
    callback.on_training_start({}, {})
    while model.num_timesteps < until:
        model.num_timesteps += n_envs
        callback.on_step()


def _snapshots(model: _Model) -> list[tuple[str, str]]:
    return [(Path(path).name, group) for _name, path, group in model.env.calls]


# ------------------------------------------------------------------- self-play snapshots
def test_snapshots_every_n_steps_from_the_start_to_every_group(tmp_path: Path) -> None:
    """A fresh run snapshots at step 0 and then each time ``every`` learner steps have passed
    (at 8, 16, 24 for every=8, 2 envs: not one step late, not at every step after the first),
    named by learner steps, and each snapshot goes to every group (``self`` and ``partner``)."""
    model = _Model()
    _drive(SelfPlayCallback(tmp_path / "pool", 8, ("self", "partner")), model, 24)
    names = ["snap_000000000.zip", "snap_000000008.zip", "snap_000000016.zip", "snap_000000024.zip"]
    assert _snapshots(model) == [(n, g) for n in names for g in ("self", "partner")]
    assert sorted(p.name for p in (tmp_path / "pool").iterdir()) == names


def test_a_resumed_run_snapshots_every_n_steps_after_its_start(tmp_path: Path) -> None:
    """A resume at step 100 with snapshots in ``pool/`` takes none at its start (the pool got
    them back from ``load_pool``) and its first one ``every`` steps later, not at once."""
    pool = tmp_path / "pool"
    pool.mkdir()
    _Model(100).save(pool / "snap_000000100.zip")
    model = _Model(100)
    _drive(SelfPlayCallback(pool, 8, ("self",)), model, 116)
    assert _snapshots(model) == [("snap_000000108.zip", "self"), ("snap_000000116.zip", "self")]


def test_a_resume_gives_the_pool_its_newest_snapshots_oldest_first(tmp_path: Path) -> None:
    """``load_pool(keep=3)`` hands back the newest three snapshots (not the oldest, not two),
    oldest first so the newest is the pool's latest member, to every group."""
    pool = tmp_path / "pool"
    pool.mkdir()
    for steps in (0, 64, 128, 192, 256):
        _Model(steps).save(pool / f"snap_{steps:09d}.zip")
    vec = _Vec()
    assert load_pool(vec, pool, ["self", "partner"], 3) == 3
    want = ["snap_000000128.zip", "snap_000000192.zip", "snap_000000256.zip"]
    assert [(Path(p).name, g) for _n, p, g in vec.calls] == [
        (n, g) for n in want for g in ("self", "partner")
    ]


# ------------------------------------------------------------------ periodic evaluation
@pytest.fixture(scope="module")
def toy_policy() -> Any:
    """A fresh MaskablePPO policy for the two-player toy game (nearly uniform, seeded)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    game = ToyGame(num_players=2)
    env = SingleAgentEnv(game, _pool(RandomBot(game)))
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), policy_kwargs={"net_arch": [8]}, seed=0)
    return model.policy


class _PolicyModel(_Model):
    def __init__(self, policy: Any, steps: int = 0) -> None:
        super().__init__(steps)
        self.policy = policy


class _SeatSpy(RandomBot):
    """The random bot, noting the seats it plays."""

    seats: list[int] = []

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.seats.append(player)
        return super().act(state, player, rng)


class _Summary:
    def __init__(self, score: float) -> None:
        self.score = score

    def summary(self) -> dict[str, Any]:
        return {"games": 2, "win_rate": self.score, "win_rate_ci95": [0.0, 1.0], "score": self.score,
                "mean_placement": 1.5, "draws": 0, "truncated": 0}  # fmt: skip


def test_the_evaluation_swaps_seats_and_scores_the_greedy_agent(tmp_path: Path, toy_policy: Any) -> None:
    """The periodic evaluation plays the agent in seat ``g mod n`` of game ``g`` (the baseline
    gets both seats), picks the agent's most likely action (``deterministic``) and logs the
    score from the agent's side: that of the same pairing played here."""
    from training.players import PolicyPlayer
    from training.tournament import play_pairing

    game = ToyGame(num_players=2)
    _SeatSpy.seats = []
    cb = BaselineEvalCallback(game, {"spy": _SeatSpy}, ["spy"], 8, 8, tmp_path, seed=2)
    cb.init_callback(_PolicyModel(toy_policy, 8))  # type: ignore[arg-type]
    cb.num_timesteps = 8
    row = cb.evaluate()
    seats = sorted(set(_SeatSpy.seats))
    assert seats == [0, 1], "the agent played one seat only"
    me = PolicyPlayer(toy_policy, game, deterministic=True, name="agent")
    want = play_pairing(game, me, RandomBot(game), ("agent", "spy"), range(8), seed=2).summary()
    assert want["score"] != pytest.approx(0.5)  # else the side it is scored from would not show
    assert row["spy"]["score"] == pytest.approx(want["score"])
    assert row["spy"]["win_rate"] == pytest.approx(want["win_rate"])
    sampled = PolicyPlayer(toy_policy, game, deterministic=False, name="agent")
    other = play_pairing(game, sampled, RandomBot(game), ("agent", "spy"), range(8), seed=2).summary()
    assert other["score"] != pytest.approx(want["score"])  # else greedy would not show


def test_best_model_is_replaced_only_by_a_better_mean_score(
    tmp_path: Path, toy_policy: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``best_model.zip`` is saved at the first evaluation (even a score of 0: the best so far
    starts below any score), replaced only when the mean score over the baselines improves (an
    equal or worse one leaves it), and ``best_model.json`` names that evaluation's steps and mean."""
    scores = iter([(0.0, 0.0), (0.0, 0.0), (0.5, 1.0), (0.25, 0.5), (0.5, 1.0)])
    now: dict[str, float] = {}

    def scripted(game: Any, me: Any, bot: Any, names: tuple[str, str], *a: Any, **k: Any) -> _Summary:
        if names[1] == "a":
            now["a"], now["b"] = next(scores)
        return _Summary(now[names[1]])

    monkeypatch.setattr(cb_module, "play_pairing", scripted)
    game = ToyGame(num_players=2)
    cb = BaselineEvalCallback(game, {"a": RandomBot, "b": RandomBot}, ["a", "b"], 8, 2, tmp_path)
    model = _PolicyModel(toy_policy)
    cb.init_callback(model)  # type: ignore[arg-type]
    best = []
    for steps in (8, 16, 24, 32, 40):
        model.num_timesteps = cb.num_timesteps = steps
        cb.evaluate()
        with zipfile.ZipFile(tmp_path / "best_model.zip") as z:
            saved = int(z.read("steps"))
        info = json.loads((tmp_path / "best_model.json").read_text())
        assert info["timesteps"] == saved
        best.append((saved, info["score"]))
    assert best == [(8, 0.0), (8, 0.0), (24, 0.75), (24, 0.75), (24, 0.75)]


@pytest.mark.parametrize(("at_start", "want"), [(False, [8, 16, 24]), (True, [0, 8, 16, 24])])
def test_evaluations_every_n_steps(tmp_path: Path, at_start: bool, want: list[int]) -> None:
    """Evaluations come every ``every`` learner steps (not at every step after the first), and
    at step 0 as well with ``at_start`` (a warm-started policy)."""
    game = ToyGame(num_players=2)
    cb = BaselineEvalCallback(game, {"random": RandomBot}, ["random"], 8, 2, tmp_path, at_start=at_start)
    seen: list[int] = []
    cb.evaluate = lambda: seen.append(cb.num_timesteps)  # type: ignore[method-assign,assignment,return-value]
    _drive(cb, _Model(), 24)
    assert seen == want


def test_a_snapshot_is_a_frozen_copy_of_the_learner(tmp_path: Path) -> None:
    """The ``self`` opponent a snapshot adds plays the weights saved at that step: a copy loaded
    from the file, which the learner's later updates leave alone (not the learner's own policy)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.players import OpponentPool

    game = ToyGame(num_players=2)
    env = SingleAgentEnv(game, OpponentPool.from_specs(game, ["self"], {"random": RandomBot}))
    model = MaskablePPO(
        "MlpPolicy", DummyVecEnv([lambda: env]), n_steps=32, batch_size=32, n_epochs=2, learning_rate=0.01,
        policy_kwargs={"net_arch": [8]}, seed=0, device="cpu",
    )  # fmt: skip
    start = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(64, callback=SelfPlayCallback(tmp_path / "pool", 10_000, ("self",)))
    [(name, player)] = env.opponents.groups["self"].players  # type: ignore[union-attr]
    assert Path(name).name == "snap_000000000.zip"
    frozen = list(player.policy.parameters())  # type: ignore[union-attr]
    assert all(torch.equal(a, b) for a, b in zip(frozen, start, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(model.policy.parameters(), start, strict=True))


# -------------------------------------------------------- the run's options, to the pools
def test_the_pool_options_reach_the_opponent_and_partner_pools() -> None:
    """``latest_prob`` and ``pool_size`` of the config size both pools a run builds: the
    opponents' and (2v2, ``partner: self``) the partner's."""
    from training.train import build_single_env

    cfg = {
        "env": "otto_game_over", "params": {"num_players": 4, "teams": True}, "partner": "self",
        "opponents": {"random": 1.0, "self": 1.0}, "latest_prob": 0.25, "pool_size": 3,
    }  # fmt: skip
    env, game, _bots = build_single_env(cfg)
    for pool in (env.opponents, env.partner):
        assert (pool.latest_prob, pool.max_size) == (0.25, 3)
        for k in range(5):
            pool.add("self", f"snap{k}", RandomBot(game))
        assert [n for n, _ in pool.groups["self"].players] == ["snap2", "snap3", "snap4"]


def test_snapshot_and_checkpoint_intervals_count_learner_steps(tmp_path: Path) -> None:
    """``snapshot_every`` and ``checkpoint_every`` are learner steps whatever ``n_envs`` is: a
    run on 4 envs snapshots at 0, 64, 128 and checkpoints at 64 and 128 for 64 each."""
    from training.callbacks import CheckpointEvery
    from training.config import TrainConfig
    from training.train import build_callbacks

    cfg = TrainConfig(
        env="over_and_out", opponents={"random": 1.0, "self": 1.0}, n_envs=4, snapshot_every=64,
        checkpoint_every=64, eval_every=0,
    )  # fmt: skip
    callbacks = build_callbacks(cfg, tmp_path, ToyGame(num_players=2), {"random": RandomBot})
    model = _Model()
    for callback in callbacks:
        callback.init_callback(model)
        callback.on_training_start({}, {})
    while model.num_timesteps < 128:
        model.num_timesteps += 4
        for callback in callbacks:
            callback.on_step()
    assert {type(c) for c in callbacks} == {CheckpointEvery, SelfPlayCallback}
    assert sorted(p.name for p in (tmp_path / "pool").iterdir()) == [
        "snap_000000000.zip", "snap_000000064.zip", "snap_000000128.zip",
    ]  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == [
        "model_128_steps.zip", "model_64_steps.zip",
    ]  # fmt: skip


def test_only_a_self_partner_gets_partner_snapshots() -> None:
    """A 2v2 partner played by a bot or a model is no pool: it gets no snapshots (they are for
    ``partner: self``, and would stop the run: "this env's partner is not a pool")."""
    from envs.core.registry import get_game
    from training.config import TrainConfig
    from training.train import selfplay_groups

    game = get_game("otto_game_over").game_class()(num_players=4, teams=True)
    for partner, opponents, groups in (
        ("random", {"random": 1.0}, []),
        ("random", {"random": 1.0, "self": 1.0}, ["self"]),
        ("self", {"random": 1.0}, ["partner"]),
        (None, {"self": 1.0}, ["self"]),
    ):
        cfg = TrainConfig(env="otto_game_over", opponents=opponents, partner=partner)
        assert selfplay_groups(cfg, game) == groups


def test_opponent_mixes_parse_to_their_weights() -> None:
    """``random,heuristic,self`` (and a list) weigh each spec 1; a mapping keeps its weights,
    fractions included."""
    from training.config import parse_opponents

    assert parse_opponents("random,heuristic,self") == {"random": 1.0, "heuristic": 1.0, "self": 1.0}
    assert parse_opponents(["random", "self"]) == {"random": 1.0, "self": 1.0}
    assert parse_opponents({"random": 1, "self": 2.5}) == {"random": 1.0, "self": 2.5}


def test_a_weighted_mix_draws_each_group_by_its_weight() -> None:
    """``{"random": 1, "self": 3}``: once a snapshot is in, ``self`` plays three episodes in four
    (the mapping's weights, ``self``'s included); before that the random bot plays all."""
    from training.players import OpponentPool

    game = ToyGame(num_players=2)
    pool = OpponentPool.from_specs(game, {"random": 1, "self": 3}, {"random": RandomBot})
    rng = np.random.default_rng(0)
    assert {pool.sample(rng)[0] for _ in range(50)} == {"random"}
    pool.add("self", "snap0", RandomBot(game))
    names = [pool.sample(rng)[0] for _ in range(4000)]
    assert 0.72 < names.count("snap0") / len(names) < 0.78


# ---------------------------------------------------------------------- the networks
@pytest.mark.parametrize("planes", [True, False])
def test_board_planes_get_the_cnn_and_vectors_the_mlp(planes: bool) -> None:
    """``policy_kwargs`` for ``(C, H, W)`` planes builds :class:`BoardCNN` with the config's
    ``cnn_channels`` and ``features_dim``: 3x3 convolutions, stride 1, "same" padding (the
    planes keep their size), each followed by a ReLU, then one linear layer and a ReLU; a
    vector observation is flattened into the MLP heads."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.policies import BoardCNN, MaskedPolicy, policy_kwargs

    game = ToyGame(num_players=2, planes=planes)
    env = SingleAgentEnv(game, _pool(RandomBot(game)))
    kwargs = policy_kwargs(game.observation_shape, [16], [5, 7], 24)
    model = MaskablePPO(MaskedPolicy, DummyVecEnv([lambda: env]), policy_kwargs=kwargs, seed=0, device="cpu")
    extractor = model.policy.features_extractor
    if not planes:
        assert isinstance(extractor, FlattenExtractor) and extractor.features_dim == 14
        return
    assert isinstance(extractor, BoardCNN) and extractor.features_dim == 24
    c, h, w = game.observation_shape
    convs = [m for m in extractor.convs if isinstance(m, torch.nn.Conv2d)]
    assert [(m.in_channels, m.out_channels) for m in convs] == [(c, 5), (5, 7)]
    for m in convs:
        assert (m.kernel_size, m.stride, m.padding) == ((3, 3), (1, 1), (1, 1))
    kinds = [type(m).__name__ for m in [*extractor.convs, *extractor.linear]]
    assert kinds == ["Conv2d", "ReLU", "Conv2d", "ReLU", "Flatten", "Linear", "ReLU"]
    obs = torch.rand(3, c, h, w, generator=torch.Generator().manual_seed(0))
    assert tuple(extractor.convs(obs).shape) == (3, 7 * h * w)
    out = extractor(obs)
    assert tuple(out.shape) == (3, 24) and bool((out >= 0).all())


def test_the_network_line_names_the_critic_and_the_planes() -> None:
    """The run's "training ..." line names a critic of its own and the CNN over planes."""
    from training.policies import describe

    assert describe((60,), [16], [8], [8]) == "MLP [16] (critic [8]) over (60,)"
    assert describe((60,), [16], [8], [16]) == "MLP [16] over (60,)"
    assert describe((3, 7, 6), [16], [8]) == "CNN [8] over (3, 7, 6) planes + MLP heads [16]"


def test_a_resumed_run_plays_its_newest_pool_size_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--resume`` gives the opponents' pool back the run's newest ``pool_size`` snapshots
    (``pool/`` holds five at 0, 32, ... 128; ``pool_size: 2`` plays 96 and 128)."""
    from training import callbacks
    from training.config import TrainConfig
    from training.train import train

    cfg = TrainConfig(
        env="over_and_out", params={"num_players": 2}, out=str(tmp_path), timesteps=128, n_envs=1,
        n_steps=32, batch_size=32, n_epochs=1, net_arch=[8], opponents={"random": 1.0, "self": 1.0},
        snapshot_every=32, pool_size=2, eval_every=0, checkpoint_every=10_000, progress_bar=False,
    )  # fmt: skip
    train(cfg)
    assert len(list((tmp_path / "pool").glob("snap_*.zip"))) == 5
    seen: list[list[str]] = []
    real = callbacks.load_pool

    def spy(env: Any, *args: Any) -> int:
        count = real(env, *args)
        players = env.get_attr("opponents")[0].groups["self"].players
        seen.append([Path(name).name for name, _ in players])
        return count

    monkeypatch.setattr(callbacks, "load_pool", spy)
    cfg.timesteps = 160
    train(cfg, resume=True)
    assert seen == [["snap_000000096.zip", "snap_000000128.zip"]]


def test_a_resume_orders_snapshots_by_step_past_a_billion(tmp_path: Path) -> None:
    """Snapshot names carry at least 9 digits; past 999,999,999 steps the newest ones have 10,
    and ``load_pool`` still hands back the newest by step, not by name."""
    for steps in (999_999_000, 1_000_000_500, 2_000_000_000):
        _Model(steps).save(tmp_path / f"snap_{steps:09d}.zip")
    env = _Vec()
    assert load_pool(env, tmp_path, ["self"], keep=2) == 2
    assert [Path(c[1]).name for c in env.calls] == ["snap_1000000500.zip", "snap_2000000000.zip"]
