"""Pins found by a second round of mutation testing of ``training/players.py``: the move a
frozen policy samples or picks under the legal mask, the seat whose observation it reads, the
file a wrong-game error names, the opponent pool's defaults, seeds and fallback, and the run a
saved model is traced to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState, legal_indices
from tests.training.toy_game import ToyConfig, ToyGame, ToyState
from training.players import OpponentPool, PolicyPlayer, game_bots, make_player, params_note, trained_with
from training.single_agent import SingleAgentEnv


class Lowest(Bot):
    """Always the lowest legal action."""

    name = "lowest"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return int(legal_indices(state.legal_mask())[0])


class MaskedState(ToyState):
    """A toy state with a fixed legal mask (the toy game's own allows every action)."""

    def __init__(self, config: ToyConfig, mask: list[int]) -> None:
        super().__init__(config, np.random.default_rng(0))
        self.mask = np.array(mask, np.int8)

    def legal_mask(self) -> np.ndarray:
        return self.mask.copy()


def _model(game: ToyGame) -> Any:
    """An untrained MaskablePPO model of ``game``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    env = SingleAgentEnv(game, pool)
    return MaskablePPO(
        "MlpPolicy", DummyVecEnv([lambda: env]), policy_kwargs={"net_arch": [8]}, seed=0, device="cpu"
    )


def _fixed_policy(game: ToyGame, probs: list[float]) -> Any:
    """A policy whose unmasked action probabilities are ``probs`` whatever it observes."""
    policy = _model(game).policy
    with torch.no_grad():
        policy.action_net.weight.zero_()
        policy.action_net.bias.copy_(torch.log(torch.tensor(probs)))
    return policy


# ------------------------------------------------------------ a policy's moves, masked
def test_sampled_moves_follow_the_masked_probabilities_and_stay_legal() -> None:
    """A sampling player draws each legal action with the policy's probability renormalised
    over the legal actions, and never an illegal one (sampling uniformly, or from the unmasked
    distribution, played illegal or off-policy moves); a greedy one plays the legal argmax."""
    game = ToyGame(num_players=2, target=6)
    policy = _fixed_policy(game, [0.7, 0.1, 0.2])
    player = PolicyPlayer(policy, game, deterministic=False, name="m.zip")
    full = MaskedState(game.config, [1, 1, 1])
    np.testing.assert_allclose(player.probabilities(full, 0), [0.7, 0.1, 0.2], atol=1e-5)
    state = MaskedState(game.config, [0, 1, 1])
    np.testing.assert_allclose(player.probabilities(state, 0), [0.0, 1 / 3, 2 / 3], atol=1e-5)
    rng = np.random.default_rng(0)
    picks = np.array([player.act(state, 0, rng) for _ in range(1500)])
    assert 0 not in picks, "an illegal action was sampled"
    assert 0.62 < np.mean(picks == 2) < 0.71
    picks = np.array([player.act(full, 0, rng) for _ in range(1500)])
    assert 0.65 < np.mean(picks == 0) < 0.75 and 0.16 < np.mean(picks == 2) < 0.24
    greedy = PolicyPlayer(policy, game, deterministic=True)
    assert greedy.act(state, 0, rng) == 2 and greedy.act(full, 0, rng) == 0


def test_a_policy_player_samples_unless_asked_to_be_greedy() -> None:
    """``PolicyPlayer(policy, game)`` samples, like ``load`` and ``make_player`` (a greedy
    default made every opponent built from the Python API play one fixed line)."""
    game = ToyGame(num_players=2, target=6)
    player = PolicyPlayer(_fixed_policy(game, [0.4, 0.3, 0.3]), game)
    assert player.deterministic is False
    rng = np.random.default_rng(1)
    state = MaskedState(game.config, [1, 1, 1])
    assert {player.act(state, 0, rng) for _ in range(60)} == {0, 1, 2}


def test_the_probabilities_for_a_seat_read_that_seats_observation() -> None:
    """``probabilities(state, seat)`` is the policy's view from ``seat``, also when another
    seat is to move (it read the mover's observation, not the seat asked about)."""
    game = ToyGame(num_players=3, target=4)
    policy = _model(game).policy
    state = game.new_initial_state(np.random.default_rng(0))
    for action in (2, 0, 0, 0):  # seat 1 busts; seat 2 to move
        state.apply(action)
    assert state.current_player() == 2
    player = PolicyPlayer(policy, game)
    mask = torch.as_tensor(state.legal_mask()[None].astype(bool))
    for seat in (0, 2):
        with torch.no_grad():
            obs = torch.as_tensor(game.observe(state, seat)[None])
            want = policy.get_distribution(obs, action_masks=mask).distribution.probs[0].numpy()
        np.testing.assert_allclose(player.probabilities(state, seat), want, rtol=1e-5, atol=1e-7)
    assert not np.allclose(player.probabilities(state, 0), player.probabilities(state, 2))


# ------------------------------------------------------------------- loading a model
def test_a_model_loaded_for_the_wrong_game_is_refused_naming_its_file(tmp_path: Path) -> None:
    """Loading a model into a game config of other spaces names the model's file, both on a
    first load and when this process holds it already (the error said ``'policy'``)."""
    game = ToyGame(num_players=2, target=6)
    path = str(tmp_path / "toy_model.zip")
    _model(game).save(path)
    with pytest.raises(ValueError, match="was trained on observations") as err:
        PolicyPlayer.load(path, ToyGame(num_players=2, target=8))
    assert f"policy {path!r} was trained on observations (10,) / 3 actions" in str(err.value)
    held = PolicyPlayer.load(path, game)  # now cached
    assert held.name == path
    with pytest.raises(ValueError, match="was trained on observations") as err:
        PolicyPlayer.load(path, ToyGame(num_players=2, target=8))
    assert f"policy {path!r} was trained on observations (10,) / 3 actions" in str(err.value)


def test_a_model_whose_training_diverged_is_refused(tmp_path: Path) -> None:
    """A model with NaN weights (a diverged run) played as if it were a policy: ``eval`` gave it
    plausible win rates against ``random``. Its load is refused now, naming the file and how
    many weights are broken; a sound model of the same shape loads."""
    game = ToyGame(num_players=2, target=6)
    model = _model(game)
    model.save(tmp_path / "sound.zip")
    with torch.no_grad():
        next(iter(model.policy.parameters())).fill_(float("nan"))
    path = str(tmp_path / "nan_model.zip")
    model.save(path)
    broken = next(iter(model.policy.parameters())).numel()
    with pytest.raises(ValueError, match="NaN or infinite") as err:
        PolicyPlayer.load(path, game)
    assert str(err.value) == (
        f"{path!r}: {broken} of the model's weights are NaN or infinite (its training diverged); it cannot play"
    )
    assert PolicyPlayer.load(str(tmp_path / "sound.zip"), game).name.endswith("sound.zip")


def test_a_model_spec_with_spaces_loads_the_model_with_the_asked_play(tmp_path: Path) -> None:
    """``make_player`` reads `` x.zip `` (a spec as typed in a list) as the model, greedy
    when asked, sampling otherwise."""
    game = ToyGame(num_players=2, target=6)
    path = tmp_path / "spaced.zip"
    _model(game).save(str(path))
    greedy = make_player(game, f"  {path} ", {"random": RandomBot}, deterministic=True)
    sampled = make_player(game, f"{path} ", {"random": RandomBot})
    assert isinstance(greedy, PolicyPlayer) and isinstance(sampled, PolicyPlayer)
    assert greedy.deterministic and not sampled.deterministic
    assert greedy.name == str(path)


def test_a_model_is_traced_to_its_run_only_two_folders_up(tmp_path: Path) -> None:
    """A model finds the ``config.yaml`` of its run folder or of the run above its
    ``checkpoints``/``pool`` folder, not one further up (which attributed a model to an
    unrelated run, and refused it as another game's); a config with no ``params`` is ``{}``."""
    (tmp_path / "config.yaml").write_text("env: octi\n")
    run_model = tmp_path / "pool" / "m.zip"
    far = tmp_path / "exports" / "zoo" / "m.zip"
    for model in (run_model, far):
        model.parent.mkdir(parents=True)
        model.write_bytes(b"")
    assert trained_with(str(run_model)) == ("octi", {})
    assert trained_with(str(far)) is None
    note = params_note(str(far), ToyGame(num_players=2))  # no run: said, and nothing checked
    assert note.startswith(f"note: {far} has no eightfold run around it (no run's config.yaml)")


def test_a_game_without_a_bot_table_gets_the_random_bot() -> None:
    """A registry entry whose game has no ``bots.py`` yet still offers ``random`` (the bot the
    opponent pool falls back to)."""

    class NoBots:
        def bots(self) -> dict[str, Any]:
            raise ModuleNotFoundError("envs.new_game.bots")

    assert game_bots(NoBots()) == {"random": RandomBot}


# ------------------------------------------------------------------ the opponent pool
def _filled_pool(latest_prob: float = 0.5) -> OpponentPool:
    game = ToyGame(num_players=2)
    pool = OpponentPool(latest_prob=latest_prob, max_size=10)
    pool.add("random", "random", RandomBot(game), weight=1.0)
    pool.add("lowest", "lowest", Lowest(game), weight=2.0)
    for k in range(4):
        pool.add("self", f"snap{k}", RandomBot(game), weight=3.0)
    return pool


def test_pool_draws_come_from_the_callers_generator_only() -> None:
    """The same seeded generator draws the same opponents whatever numpy's global state is,
    and the global state is left alone (a draw from it made seeded runs differ)."""
    pool = _filled_pool()
    runs = []
    for global_seed in (0, 99):
        np.random.seed(global_seed)
        before = np.random.get_state()[1].copy(), np.random.get_state()[2]  # type: ignore[index]
        rng = np.random.default_rng(5)
        runs.append([pool.sample(rng)[0] for _ in range(300)])
        after = np.random.get_state()
        assert np.array_equal(after[1], before[0]) and after[2] == before[1], "numpy's global state moved"  # type: ignore[index]
    assert runs[0] == runs[1]
    assert {"random", "lowest", "snap0", "snap1", "snap2", "snap3"} == set(runs[0])


def test_the_pool_defaults_keep_ten_snapshots_and_play_the_newest_half_the_time() -> None:
    """``OpponentPool()`` keeps the 10 newest snapshots and draws the newest with probability
    0.5 + 0.5/10 (``latest_prob=0.5``, ``max_size=10``: the documented defaults)."""
    game = ToyGame(num_players=2)
    pool = OpponentPool()
    for k in range(12):
        pool.add("self", f"snap{k}", RandomBot(game))
    assert [name for name, _ in pool.groups["self"].players] == [f"snap{k}" for k in range(2, 12)]
    assert len(pool) == 10
    rng = np.random.default_rng(0)
    names = [pool.sample(rng)[0] for _ in range(4000)]
    assert 0.52 < names.count("snap11") / len(names) < 0.58
    assert 0.035 < names.count("snap2") / len(names) < 0.065


def test_two_snapshots_are_both_drawn_when_not_the_latest() -> None:
    """With two snapshots, ``latest_prob=0`` draws either uniformly (not always the newest)."""
    game = ToyGame(num_players=2)
    pool = OpponentPool(latest_prob=0.0)
    pool.add("self", "old", RandomBot(game))
    pool.add("self", "new", RandomBot(game))
    rng = np.random.default_rng(0)
    names = [pool.sample(rng)[0] for _ in range(1000)]
    assert 0.44 < names.count("old") / len(names) < 0.56


def test_a_self_only_pool_falls_back_to_the_random_bot_by_that_name() -> None:
    """Before the first snapshot, a ``["self"]`` pool plays the ``random`` bot of the table
    (not the table's first bot) and reports it as ``fallback``; it is no member (``len`` 0)."""
    game = ToyGame(num_players=2)
    pool = OpponentPool.from_specs(game, ["self"], {"lowest": Lowest, "random": RandomBot})
    assert len(pool) == 0
    name, player = pool.sample(np.random.default_rng(0))
    assert name == "fallback" and isinstance(player, RandomBot)
    mixed = OpponentPool.from_specs(game, {"lowest": 2, "random": 1}, {"lowest": Lowest, "random": RandomBot})
    assert len(mixed) == 2


def test_a_greedy_player_draws_nothing_from_the_callers_generator() -> None:
    """A greedy player leaves the shared generator where it was, so the other seats' sampled
    moves in a seeded game do not depend on whether a model plays greedy."""
    game = ToyGame(num_players=2, target=6)
    greedy = PolicyPlayer(_fixed_policy(game, [0.2, 0.5, 0.3]), game, deterministic=True)
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    assert greedy.act(MaskedState(game.config, [1, 1, 1]), 0, rng) == 1
    assert rng.bit_generator.state == before


def test_a_pool_with_nothing_to_play_and_no_fallback_says_so() -> None:
    """An empty ``self`` group and no fallback is an error, not a ``None`` opponent."""
    pool = OpponentPool()
    pool.add("self", "snap0", RandomBot(ToyGame(num_players=2)))
    pool.groups["self"].players.clear()  # the group a run starts with: no snapshot yet
    with pytest.raises(RuntimeError, match=r"^no opponent available yet"):
        pool.sample(np.random.default_rng(0))
