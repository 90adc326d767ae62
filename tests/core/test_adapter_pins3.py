"""Pins for the adapter changes after commit bd10936 that a mutation round found untested.

* ``training.rllib.env.EightfoldMultiAgentEnv`` (module docstring): a position set up with the
  ``state`` option whose seats are already knocked out (OAO-41) starts without them, never with
  one of them as the learner; options giving a finished game are a ``ValueError`` naming the
  options; a ``step()`` after the episode ended says so exactly;
* ``envs.core.openspiel.EightfoldGame.deserialize_state``: a text another OpenSpiel game wrote
  is refused naming this game and its parameters;
* ``training.train.check_resume``: a run stopped before its first model says to drop
  ``--resume`` (the whole message, not only its start).

Each test fails under a planted change of those lines that the earlier tests let through
(``/tmp/s49/mut_later/mutants.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES

OAO5 = {"num_players": 5, "starting_chips": 1}


def _rllib_env(config: dict[str, Any]) -> Any:
    pytest.importorskip("ray.rllib")
    from training.rllib.env import EightfoldMultiAgentEnv

    return EightfoldMultiAgentEnv(config)


def _knocked_out_state() -> dict[str, Any]:
    """OAO-41: Over and Out, 5 players, 1 chip each, played at random (seed 0) until seat 1 is
    knocked out; the game goes on with the other four."""
    game = GAMES["over_and_out"].game_class()(**OAO5)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(np.random.default_rng(0))
    while not state.eliminated():
        state.apply(int(rng.choice(state.legal_actions())))
    assert not state.is_terminal() and state.eliminated() == {1}
    return state.to_dict()


def _finished_state() -> dict[str, Any]:
    """OAO-41: a 2-player Over and Out played at random to its end (one player left)."""
    game = GAMES["over_and_out"].game_class()(num_players=2)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(np.random.default_rng(0))
    while not state.is_terminal():
        state.apply(int(rng.choice(state.legal_actions())))
    return state.to_dict()


# ------------------------------------------------------------------ RLlib env: reset
def test_a_knocked_out_seat_is_never_the_frozen_self_play_learner() -> None:
    """OAO-41, module docstring: "seats already knocked out are no agents of it" and with
    ``self_play="frozen"`` "one seat drawn at random is ``player_<seat>`` and the others are
    ``frozen_<seat>``". Over 40 seeded resets from a position with seat 1 out, the one
    ``player_`` id is always a live seat, and every live seat is drawn some time."""
    d = _knocked_out_state()
    env = _rllib_env({"game": "over_and_out", "params": OAO5, "opponents": "self", "self_play": "frozen"})
    learners = set()
    for seed in range(40):
        obs, _ = env.reset(seed=seed, options={"state": d})
        ids = [env.agent_id(s) for s in range(5)]
        players = [s for s, a in enumerate(ids) if a.startswith("player_")]
        assert len(players) == 1 and ids[players[0]] == f"player_{players[0]}", ids
        assert all(a == f"frozen_{s}" for s, a in enumerate(ids) if s not in players), ids
        learners.add(players[0])
        (agent,) = obs
        assert agent == ids[env.state.current_player()] and obs[agent]["action_mask"].any()
    assert learners == {0, 2, 3, 4}


def test_a_knocked_out_seat_is_never_the_learner_against_a_bot() -> None:
    """Module docstring: against a bot "one seat drawn at random is the learning agent" - from
    the seats still playing (OAO-41): the agent asked to act after reset is one of them, and
    each of them is drawn over 40 seeds."""
    d = _knocked_out_state()
    env = _rllib_env({"game": "over_and_out", "params": OAO5, "opponents": "random"})
    seen = set()
    for seed in range(40):
        obs, _ = env.reset(seed=seed, options={"state": d})
        (agent,) = obs
        assert agent != "player_1"
        seen.add(agent)
    assert seen == {"player_0", "player_2", "player_3", "player_4"}


def test_options_giving_a_finished_game_are_refused_with_the_documented_message() -> None:
    """OAO-41 (one player left ends the game); module docstring: "Options that give a finished
    game are a ``ValueError``" - the message names the options given and says why."""
    env = _rllib_env({"game": "over_and_out", "params": {"num_players": 2}})
    with pytest.raises(ValueError, match=r"give a finished game") as info:
        env.reset(seed=0, options={"state": _finished_state()})
    assert str(info.value) == "the reset options (state) give a finished game: there is no move to play"


# ------------------------------------------------------------------- RLlib env: step
def test_a_step_after_the_rules_end_is_refused_with_its_own_message() -> None:
    """Module docstring: a ``step()`` "after the episode ended (call ``reset()``)" is a
    ``ValueError``: the rules' end says the episode ended, not that it ended on an illegal
    action (it did not), and the state is left as it was."""
    pytest.importorskip("ray.rllib")
    from tests.training.test_rllib_fuzz import _finished  # the rules' end of a seeded random game

    env, _, action = _finished({"game": "over_and_out", "params": {"num_players": 2}, "opponents": "self"})
    end = env.state.to_dict()
    for acting in ("player_0", "player_1"):
        with pytest.raises(ValueError, match=r"the episode ended") as info:
            env.step({acting: action})
        assert str(info.value) == "the episode ended; call reset()"
    assert env.state.to_dict() == end


# ------------------------------------------------------------------ OpenSpiel adapter
def test_a_foreign_openspiel_text_is_refused_naming_this_game_and_its_parameters() -> None:
    """README, OpenSpiel: reading a state back "checks that the same game and parameters wrote
    it"; ``deserialize_state``'s docstring: ``ValueError`` unless an eightfold state of this game
    and its parameters wrote it. The message names the game with its parameters."""
    pyspiel = pytest.importorskip("pyspiel")
    import open_spiel.python.games  # noqa: F401  (registers OpenSpiel's Python games)

    import envs.core.openspiel as eos

    other = pyspiel.load_game("python_tic_tac_toe").new_initial_state()
    other.apply_action(4)
    game = eos.load_game("over_and_out", num_players=3)
    with pytest.raises(ValueError, match=r"written by another game") as info:
        game.deserialize_state(other.serialize())
    text = str(info.value)
    assert text.startswith(
        "this state was written by another game (no eightfold state), not by this game "
        "(eightfold_over_and_out("
    ), text
    assert "num_players=3" in text and text.endswith("))") and "rng_seed" not in text


# ------------------------------------------------------------------------ train --resume
def test_resume_without_a_model_says_to_drop_resume(tmp_path: Path) -> None:
    """``check_resume``: a run directory with no model.zip and no checkpoint (a run stopped
    before its first) cannot be resumed, and the message says what to do instead."""
    from training.config import TrainConfig
    from training.train import check_resume

    out = tmp_path / "run"
    out.mkdir()
    with pytest.raises(ValueError, match=r"--resume: no model") as info:
        check_resume(TrainConfig(env="over_and_out"), {}, out)
    assert str(info.value) == (
        f"--resume: no model in {str(out)!r} to continue (no model.zip or checkpoint: the run "
        "stopped before its first); drop --resume to start it again"
    )


# ------------------------------------------------------------------------ tournament means
def test_tournament_means_are_exactly_rounded_in_any_order() -> None:
    """``training.tournament._mean``: "The mean with an exactly rounded sum (``math.fsum``): the
    same to the last bit in whatever order the games came in". Returns whose plain float sum
    loses bits (ten 0.1s sum to 0.9999999999999999; 1e16 + 1 - 1e16 to 0) average exactly, in
    ``summary`` and in a merged pairing alike."""
    from training.tournament import PairResult

    one = PairResult("a", "b")
    for ret in [0.1] * 10:
        one.add("draw", 1.5, ret)
    assert one.summary()["mean_return"] == 0.1
    left, right = PairResult("a", "b"), PairResult("a", "b")
    left.add("win", 1.0, 1e16)
    left.add("loss", 2.0, 1.0)
    right.add("loss", 2.0, -1e16)
    left.merge(right)
    assert left.summary()["mean_return"] == 1.0 / 3
    assert left.summary()["mean_placement"] == 5.0 / 3
