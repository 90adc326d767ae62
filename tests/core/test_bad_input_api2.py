"""Bad input to the engine's resampling and to the OpenSpiel adapter gets a clear
``ValueError`` naming the parameter, what it got and what is allowed (the second misuse audit
of 2026-12-07, findings #2 and #11).

Each test says what the old code did instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES, installed_games

NOT_A_GENERATOR = r"^rng must be a numpy Generator, e.g\. np\.random\.default_rng\(seed\), got "


@pytest.mark.parametrize("name", installed_games())
@pytest.mark.parametrize("rng", [np.random.RandomState(0), 5, None], ids=["RandomState", "int", "None"])
def test_resample_hidden_refuses_an_rng_that_is_no_generator(name: str, rng: Any) -> None:
    """``Game.resample_hidden(state, seat, rng)`` (each game's and the base class's default,
    Octi's) takes a numpy ``Generator`` only, as ``new_initial_state`` does, and says so.
    Old: a ``RandomState``, an int or ``None`` failed with ``AttributeError: ... has no
    attribute 'integers'`` inside the re-deal (Octi's plain clone accepted anything)."""
    game = GAMES[name].game_class()()
    state = game.new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match=NOT_A_GENERATOR + type(rng).__name__ + "$"):
        game.resample_hidden(state, 0, rng)
    game.resample_hidden(state, 0, np.random.default_rng(1))  # a Generator still re-deals


# ---------------------------------------------------------------- the OpenSpiel adapter


def _spiel() -> Any:
    pytest.importorskip("pyspiel")
    import envs.core.openspiel as eos

    return eos


def test_openspiel_resample_refuses_an_rng_that_is_no_generator() -> None:
    """``state.resample(player, rng)`` names the rng's type. Old: OpenSpiel's own
    ``RandomState`` (or an int seed) failed with ``AttributeError: ... 'integers'`` deep in the
    game's re-deal."""
    eos = _spiel()
    state = eos.load_game("over_and_out", num_players=2).new_initial_state()
    with pytest.raises(ValueError, match=NOT_A_GENERATOR + "RandomState$"):
        state.resample(0, np.random.RandomState(0))
    with pytest.raises(ValueError, match=NOT_A_GENERATOR + "int$"):
        state.resample(0, 5)
    assert state.resample(0, np.random.default_rng(0)) is not state


def test_openspiel_observation_and_information_strings_name_a_bad_player() -> None:
    """``observation_string(5)`` and Octi's ``information_state_string(9)`` raise the clear
    ``ValueError`` that ``observation_tensor(5)`` raises; a good player (a numpy int too) and no
    player still answer. Old: pyspiel's bare ``SpielError: python_games.cc:321 player <
    NumPlayers()``."""
    eos = _spiel()
    state = eos.load_game("over_and_out", num_players=2).new_initial_state()
    with pytest.raises(ValueError, match=r"^player must be an int in \[0, 1\], got 5$"):
        state.observation_string(5)
    with pytest.raises(ValueError, match=r"^player must be an int in \[0, 1\], got -1$"):
        state.observation_string(-1)
    assert state.observation_string(np.int64(1)) == state.observation_string(1)
    assert state.observation_string() == state.observation_string(state.current_player())
    octi = eos.load_game("octi").new_initial_state()
    with pytest.raises(ValueError, match=r"^player must be an int in \[0, 1\], got 9$"):
        octi.information_state_string(9)
    assert octi.information_state_string(1) == octi.information_state_string()


def test_openspiel_make_py_observer_refuses_a_type_that_is_no_observation_type() -> None:
    """``game.make_py_observer("x")`` names what it takes. Old: ``AttributeError: 'str' object
    has no attribute 'public_info'``."""
    eos = _spiel()
    game = eos.load_game("over_and_out", num_players=2)
    with pytest.raises(
        ValueError,
        match=r"^make_py_observer: iig_obs_type must be a pyspiel\.IIGObservationType or None, got str 'x'$",
    ):
        game.make_py_observer("x")
    assert game.make_py_observer() is not None


def test_openspiel_bot_step_refuses_what_is_no_state() -> None:
    """``EightfoldBot.step(None)`` names what it takes. Old: ``AttributeError: 'NoneType'
    object has no attribute 'engine'``."""
    eos = _spiel()
    game = eos.load_game("over_and_out", num_players=2)
    bot = eos.EightfoldBot(game, "random")
    with pytest.raises(
        ValueError, match=r"^EightfoldBot\.step: state must be a state of an eightfold OpenSpiel game"
    ):
        bot.step(None)
    with pytest.raises(ValueError, match=r"got State$"):  # the engine state, not the pyspiel one
        bot.step(game.new_initial_state().engine)
    assert bot.step(game.new_initial_state()) in range(game.num_distinct_actions())


def test_openspiel_ismcts_bot_refuses_a_game_name_or_an_openspiel_game() -> None:
    """``OpenSpielISMCTSBot`` takes an engine ``Game``: a name, or the OpenSpiel wrapper (with
    a hint to pass its ``.engine``), is named. Old: ``AttributeError: type object 'str' has no
    attribute 'resample_hidden'`` (and the same for the wrapper)."""
    eos = _spiel()
    with pytest.raises(ValueError, match=r"^ismcts: game must be an engine Game object .*, got str$"):
        eos.OpenSpielISMCTSBot("over_and_out")
    wrapper = eos.load_game("over_and_out", num_players=2)
    with pytest.raises(
        ValueError, match=r"\(an OpenSpiel game: pass its \.engine\), got EightfoldOverAndOutGame$"
    ):
        eos.OpenSpielISMCTSBot(wrapper)
    assert eos.OpenSpielISMCTSBot(wrapper.engine, sims=2).sims == 2
