"""Pins closing gaps found by a second mutation round on ``training/single_agent.py``: a
negative action index, the discount and the end-of-episode terms of reward shaping (the
illegal move's included), the reset seed's validation, unseeded views, the default opponent
pool of the views built from specs, error messages before and after an episode, and a 2v2
partner given as a pool."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.registry import get_game
from tests.training.sa_checks import random_view
from tests.training.test_audit_s14 import AddOne, AddThree, _pool
from tests.training.toy_game import ToyGame
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv, make_single_agent_env


def _over_and_out(shaping: float, gamma: float, seat: int | None = 0) -> SingleAgentEnv:
    """Two-player Over and Out (whose static evaluation is not 0 at the start) against random."""
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    pool = OpponentPool.from_specs(game, ["random"], entry.bots())
    return SingleAgentEnv(game, pool, seat=seat, shaping=shaping, gamma=gamma)


# ------------------------------------------------------------------------------ actions
@pytest.mark.parametrize("action", [-1, -3, np.int64(-1), np.array([-2])])
def test_a_negative_action_is_no_move(action: Any) -> None:
    """A negative index is outside ``[0, num_actions)``: a ``ValueError`` naming it that plays
    nothing (numpy indexing would read it from the end of the mask and play the last moves)."""
    game = ToyGame(num_players=2)
    env = random_view(game, seat=0)
    env.reset(seed=0)
    before = env.state.to_dict()
    with pytest.raises(ValueError, match=r"^action must be an integer index in \[0, 3\), got -\d$"):
        env.step(action)
    assert env.state.to_dict() == before
    env.step(0)  # the episode goes on: the refusal ended nothing


# ------------------------------------------------------------------------------ shaping
@pytest.mark.parametrize(("k", "gamma"), [(0.5, 0.5), (1.0, 0.9)])
def test_each_shaped_reward_is_the_true_one_plus_k_times_gamma_phi_next_minus_phi(
    k: float, gamma: float
) -> None:
    """Step by step, the shaped reward is ``r + k * (gamma * phi(s') - phi(s))`` with
    ``phi = evaluate(state)[seat]`` at the learner's decisions and ``phi = 0`` at the end: a
    discount left out (or a last potential not zeroed) only shows with ``gamma < 1``, where
    the telescoped sum of the other test no longer holds."""
    env = _over_and_out(k, gamma)
    game: Any = env.game
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        phi = float(game.evaluate(env.state)[0])
        paid = float(env.state.returns()[0])
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _o, reward, term, trunc, info = env.step(a)
            done = term or trunc
            now = float(env.state.returns()[0])
            nxt = 0.0 if done else float(game.evaluate(env.state)[0])
            assert reward == pytest.approx(now - paid + k * (gamma * nxt - phi), abs=1e-9)
            checked += nxt != 0.0 or phi != 0.0
            paid, phi = now, nxt
        assert info["return"] == pytest.approx(paid)  # the true return, unshaped
    assert checked > 0


def test_an_illegal_move_under_shaping_also_takes_back_the_potential() -> None:
    """A masked-out move ends the episode: its reward is ``illegal_reward`` less what was paid,
    plus ``k * (0 - phi(s))``, so the shaped episode still telescopes to ``return - k * phi(s0)``
    as every other end does; ``info["return"]`` stays the unshaped penalty."""
    k = 0.8
    env = _over_and_out(k, 0.99)
    env.reset(seed=0)
    phi = float(env.game.evaluate(env.state)[0])  # type: ignore[attr-defined]
    assert phi != 0.0
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _o, reward, term, trunc, info = env.step(illegal)
    assert (term, trunc) == (True, False) and info["illegal_action"]
    assert info["return"] == -1.0
    assert reward == pytest.approx(-1.0 - k * phi)


# ------------------------------------------------------------------------------ seeding
@pytest.mark.parametrize("seed", [-1, -7, np.int64(-2)])
def test_a_negative_reset_seed_is_refused_by_name(seed: Any) -> None:
    """``reset(seed=...)`` takes an integer >= 0, as the AEC env does: a negative seed is a
    ``ValueError`` naming ``seed`` (not numpy's unnamed error from deep in the deal)."""
    env = random_view(ToyGame(num_players=2))
    with pytest.raises(ValueError, match=r"^seed must be None or an integer >= 0, got "):
        env.reset(seed=seed)


# ---------------------------------------------------------------- views built from specs
def test_without_opponent_specs_the_view_plays_the_random_bot() -> None:
    """``opponents=None`` is ``["random"]`` (documented): every other seat is played by the
    random bot, not some stronger default a user did not ask for."""
    from envs.core.bots import RandomBot

    game = ToyGame(num_players=3)
    env = make_single_agent_env(game, None, {"random": RandomBot, "add3": RandomBot})
    assert env.opponents is not None and set(env.opponents.groups) == {"random"}
    for seed in range(3):
        _o, info = env.reset(seed=seed)
        assert set(info["opponents"].values()) == {"random"}


# ------------------------------------------------------------------------ error messages
def test_a_step_before_the_first_reset_says_to_reset_not_that_an_episode_ended() -> None:
    """Before any reset, ``step`` says ``call reset() first`` (no episode is over yet); after
    an episode ends it says the episode is over."""
    env = random_view(ToyGame(num_players=2), seat=0)
    with pytest.raises(RuntimeError, match=r"^call reset\(\) first$"):
        env.step(0)
    env.reset(seed=0, options={"total": 9})
    env.step(0)  # 9 -> 10: the learner busts, the game is over
    with pytest.raises(RuntimeError, match=r"^the episode is over: call reset\(\)$"):
        env.step(0)


def test_a_finished_position_names_the_games_options_not_the_views_seat() -> None:
    """Options that set up a finished game are refused naming the game's options only: the
    view's own ``seat`` ended nothing and is not listed among the culprits."""
    from envs.octi.game import OctiGame

    game = OctiGame(max_turns=2)
    state = game.new_initial_state(np.random.default_rng(0))
    state.play("prong c2 N")
    state.play("prong d6 S")  # turn 2 of 2: over by the turn limit
    assert state.is_terminal()
    with pytest.raises(ValueError, match=r"^the reset options \['state'\] set up a finished game"):
        random_view(game).reset(seed=0, options={"state": state.to_dict(), "seat": 1})


# ------------------------------------------------------------------------ unseeded views
def test_views_never_seeded_do_not_all_replay_one_stream() -> None:
    """A view reset without a seed draws its seats (and opponents, and deals) from fresh
    entropy: two such views do not play the same sequence of seats, as unseeded vector-env
    workers would if the view's stream started from a fixed seed. (Two equal sequences of 40
    draws among 4 seats would have chance 4**-40.)"""
    game = ToyGame(num_players=4)
    runs = []
    for _ in range(2):
        env = random_view(game)
        runs.append([env.reset()[1]["seat"] for _ in range(40)])
    assert runs[0] != runs[1]


# ------------------------------------------------------------------------ 2v2 partner pool
def test_a_partner_pool_is_sampled_for_the_partner_seat() -> None:
    """``partner`` given as a pool (past selves as the partner in ``eightfold train``) is
    sampled per episode like the opponents: the partner seat is played by the drawn member,
    named after it in ``info["opponents"]``, not by the pool itself seated as one player."""
    game = ToyGame(num_players=4, teams=True)
    partner = OpponentPool()
    partner.add("add1", "mate_v1", AddOne(game))
    env = SingleAgentEnv(game, _pool(AddThree(game)), seat=0, partner=partner)
    _o, info = env.reset(seed=0)
    assert info["opponents"] == {"player_1": "add3", "player_2": "mate_v1", "player_3": "add3"}
    _o, _r, _term, _trunc, info = env.step(0)  # 0 -> 1; add3 -> 4; the partner adds 1 -> 5; add3 -> 8
    assert env.state.total == 8  # type: ignore[attr-defined]
