"""Pins for the OpenSpiel adapter (``envs.core.openspiel``) found by a mutation round: the
game type's player range, the observers offered for each observation type, the observation
string's values and the observer's shape, the default seat of ``observation_tensor``, the
resampler's use of its sampler, ``str(state)``, ``spiel_params``, and the arguments the
``ismcts`` bot hands to OpenSpiel. Skipped where the ``openspiel`` extra is not installed."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs.core.openspiel as eos  # noqa: E402
from envs.core.registry import get_game  # noqa: E402
from tests.core.helpers import position_json  # noqa: E402
from tests.core.test_openspiel import play  # noqa: E402


# ------------------------------------------------------------------ game type
@pytest.mark.parametrize(
    ("name", "lo", "hi"),
    [("octi", 2, 2), ("over_and_out", 2, 8), ("otto_game_over", 1, 4), ("otto_octopus", 1, 4)],
)
def test_game_type_gives_the_registry_player_range(name: str, lo: int, hi: int) -> None:
    """``min_num_players`` / ``max_num_players`` are the registry's range ("1-4, 2v2" is 1 to
    4), in the registered type and in a loaded game's; a wrong range makes OpenSpiel's tools
    refuse or offer player counts the game does not take."""
    registered = {t.short_name: t for t in pyspiel.registered_games()}[f"eightfold_{name}"]
    loaded = eos.load_game(name).get_type()
    for t in (registered, loaded):
        assert (t.min_num_players, t.max_num_players) == (lo, hi)


def test_direct_game_refuses_an_unknown_parameter_by_name() -> None:
    """``EightfoldGame`` made directly (as the ``ismcts`` bot does, without pyspiel's check)
    names an unknown parameter and the known ones, instead of a ``TypeError`` from the
    engine's constructor."""
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['bogus'\] of eightfold_octi; known: \["):
        eos.EightfoldGame("octi", {"bogus": 1})


def test_spiel_params_write_none_as_minus_one_and_load_back() -> None:
    """``spiel_params`` writes a ``None`` parameter as ``-1`` (OpenSpiel has no ``None``), so
    its result loads through ``pyspiel.load_game`` to the same engine config."""
    engine = get_game("over_and_out").game_class()(num_players=3)
    assert engine.config.first_dealer is None
    params = eos.spiel_params(engine.config)
    assert params["first_dealer"] == eos.NONE == -1
    again = pyspiel.load_game("eightfold_over_and_out", params)
    assert again.engine.config == engine.config


def test_a_state_dropped_behind_a_newer_one_gives_no_deal_back() -> None:
    """A state dropped untouched gives its deal number back only while it is the newest: one
    dropped behind a newer, played state keeps its number taken, so the next game is a new
    deal and never a second copy of the played one."""
    game = eos.load_game("otto_octopus", num_players=2, rng_seed=6)
    engine = get_game("otto_octopus").game_class()(num_players=2)
    dropped = game.new_initial_state()  # deal 0, never touched
    played = game.new_initial_state()  # deal 1
    play(played, 0, 2)
    del dropped
    later = game.new_initial_state()
    want = engine.new_initial_state(np.random.default_rng([6, 2]))
    assert json.dumps(later.engine.to_dict(), sort_keys=True) == json.dumps(want.to_dict(), sort_keys=True)
    first = engine.new_initial_state(np.random.default_rng([6, 1]))
    assert position_json(later.engine) != position_json(first)


# ------------------------------------------------------------------ observers
def test_hidden_information_games_offer_no_public_or_all_players_observer() -> None:
    """A hidden-information game gives ``None`` for an observation type it lacks (public only,
    or every seat's private information) rather than the seat's own view under that name: a
    "public" observer holding a seat's cards would leak them to a public-information tool."""
    game = eos.load_game("over_and_out", num_players=3)
    for private in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.ALL_PLAYERS):
        for recall in (False, True):
            kind = pyspiel.IIGObservationType(perfect_recall=recall, private_info=private)
            assert game.make_py_observer(kind) is None, (private, recall)
    seat = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
    )
    assert isinstance(game.make_py_observer(seat), eos._Observer)


def test_observation_string_keeps_the_values_of_the_observation() -> None:
    """The sparse observation string writes ``index=value`` where the value is not 1 (ISMCTS
    keys its nodes on it: dropping the values would merge seats' views that differ only in a
    fraction), and exactly the observation's non-zero entries."""
    game = eos.load_game("over_and_out", num_players=3)
    state = game.new_initial_state()
    play(state, 0, 4)
    fractions = 0
    for p in range(3):
        obs = np.asarray(state.observation_tensor(p), np.float32)
        words = state.observation_string(p).split(": ", 1)[1].split()
        got = {}
        for w in words:
            i, _, v = w.partition("=")
            got[int(i)] = float(v) if v else 1.0
            fractions += bool(v)
        want = {i: float(obs[i]) for i in np.flatnonzero(obs).tolist()}
        assert got == pytest.approx(want)
    assert fractions > 0  # the position has values other than 1 to write


def test_observer_dict_has_the_envs_shape() -> None:
    """The observer's ``dict["observation"]`` has the env's shape (Octi's planes), a view of
    the same numbers as its flat ``tensor``."""
    game = eos.load_game("octi")
    state = game.new_initial_state()
    observer = game.make_py_observer()
    observer.set_from(state, 1)
    planes = observer.dict["observation"]
    assert planes.shape == tuple(game.engine.observation_shape) == (84, 7, 6)
    assert np.array_equal(planes, game.engine.observe(state.engine, 1))
    assert np.array_equal(planes.ravel(), observer.tensor)


def test_picture_observer_refuses_a_seat_that_does_not_exist() -> None:
    """Octi's observation string (the board's picture) still checks the seat it is asked for."""
    game = eos.load_game("octi")
    observer = game.make_py_observer()
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="player"):
        observer.string_from(state, 2)


def test_observation_tensor_defaults_to_the_seat_to_move() -> None:
    """``observation_tensor()`` with no player is the seat to move's view (OpenSpiel's
    default), not seat 0's, so an RL loop calling it bare sees its own cards."""
    game = eos.load_game("otto_octopus", num_players=2)
    state = game.new_initial_state()
    while state.current_player() != 1:
        state.apply_action(state.legal_actions()[0])
    assert state.observation_tensor(0) != state.observation_tensor(1)
    assert state.observation_tensor() == state.observation_tensor(1)


def test_str_shows_every_seats_private_text() -> None:
    """``str(state)`` (what OpenSpiel's playthroughs print) is the game's picture, then each
    seat's private text, every seat's, not the first seat's alone."""
    game = eos.load_game("otto_game_over", num_players=3)
    state = game.new_initial_state()
    text = str(state)
    assert text.startswith(game.engine.render_ansi(state.engine))
    for seat in range(3):
        assert f"[player_{seat}] " in text


def test_action_string_of_a_seat_not_to_move_keeps_the_notation() -> None:
    """A seat that is not to move gets the game's own notation where the game has one without
    the mover's position (Otto the Octopus's placements), not the ``action N`` fallback that
    only Octi's and Over and Out's position-dependent notation needs."""
    game = eos.load_game("otto_octopus", num_players=2)
    state = game.new_initial_state()
    other = 1 - state.current_player()
    for a in state.legal_actions()[:4]:
        text = state.action_to_string(other, a)
        assert text == game.engine.action_to_string(a) and text.startswith("place ")


# ------------------------------------------------------------------ resampling
def test_resample_from_infostate_uses_the_whole_sampler_draw() -> None:
    """Each draw of the sampler seeds its own world: close draws give different worlds (a seed
    taken from a few bits of the draw gives ISMCTS only a handful of worlds), and the same
    draw gives the same world."""
    game = eos.load_game("over_and_out", num_players=3, rng_seed=2)
    state = game.new_initial_state()
    play(state, 1, 3)
    p = state.current_player()
    draws = [0.5 + k * 1e-6 for k in range(12)]
    worlds = [position_json(state.resample_from_infostate(p, lambda u=u: u).engine) for u in draws]
    assert len(set(worlds)) >= 10
    again = position_json(state.resample_from_infostate(p, lambda: draws[3]).engine)
    assert again == worlds[3]


def test_seeded_resampler_draws_a_new_world_each_call() -> None:
    """``seeded_resampler(seed)`` goes on through one generator: its successive worlds differ
    (one reseeded at every call gives ISMCTS the same world every time), and a new resampler
    of the same seed repeats them."""
    game = eos.load_game("otto_octopus", num_players=2, rng_seed=1)
    state = game.new_initial_state()
    play(state, 0, 4)
    p = state.current_player()

    def worlds(seed: int) -> list[str]:
        resample = eos.seeded_resampler(seed)
        return [position_json(resample(state, p).engine) for _ in range(4)]

    first = worlds(3)
    assert len(set(first)) == 4
    assert worlds(3) == first


# ------------------------------------------------------------------ the ismcts bot
class _Recorded:
    """What the ``ismcts`` bot handed to OpenSpiel's ISMCTS (the real bot runs)."""

    def __init__(self) -> None:
        self.kwargs: list[dict[str, Any]] = []
        self.resampler_seeds: list[int] = []


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> _Recorded:
    from open_spiel.python.algorithms import ismcts

    rec = _Recorded()
    real_bot, real_resampler = ismcts.ISMCTSBot, eos.seeded_resampler

    class Spy(real_bot):  # type: ignore[misc, valid-type]
        def __init__(self, **kwargs: Any) -> None:
            rec.kwargs.append(kwargs)
            super().__init__(**kwargs)

    def resampler(seed: int) -> Any:
        rec.resampler_seeds.append(seed)
        return real_resampler(seed)

    monkeypatch.setattr(ismcts, "ISMCTSBot", Spy)
    monkeypatch.setattr(eos, "seeded_resampler", resampler)
    return rec


def _position() -> tuple[Any, Any]:
    entry = get_game("otto_octopus")
    game = entry.game_class()(num_players=2)
    state = game.new_initial_state(np.random.default_rng(0))
    play_rng = np.random.default_rng(0)
    for _ in range(4):
        state.apply(int(play_rng.choice(state.legal_actions())))
    return game, state


def test_ismcts_bot_hands_its_spec_to_openspiel(recorded: _Recorded) -> None:
    """``ismcts:sims=7,c=0.5,rollouts=3`` runs OpenSpiel's ISMCTS with 7 simulations,
    ``uct_c`` 0.5 and 3 rollouts per leaf, keyed on the observation string (a spec silently
    replaced by the defaults would report one search and run another)."""
    from envs.core.bots import make_bot

    game, state = _position()
    bot = make_bot(game, "ismcts:sims=7,c=0.5,rollouts=3", dict(get_game("otto_octopus").bots()))
    before = position_json(state)
    a = bot.act(state, state.current_player(), np.random.default_rng(4))
    assert a in state.legal_actions()
    assert position_json(state) == before  # the caller's state is not played on
    (kwargs,) = recorded.kwargs
    assert kwargs["max_simulations"] == 7 and kwargs["uct_c"] == 0.5
    assert kwargs["evaluator"].n_rollouts == 3 and kwargs["use_observation_string"] is True


def test_ismcts_bot_draws_every_seed_from_its_rng(recorded: _Recorded) -> None:
    """The rollouts, the tree's choices and the resampled worlds are all seeded from the
    ``rng`` of ``act``: the same ``rng`` seed gives the same three seeds, another seed others
    (a fixed resampler seed would make every game's worlds the same)."""
    from envs.core.bots import make_bot

    game, state = _position()
    bot = make_bot(game, "ismcts:sims=3", dict(get_game("otto_octopus").bots()))
    for seed in (1, 1, 2):
        bot.act(state, state.current_player(), np.random.default_rng(seed))
    seeds = [
        (json.dumps(k["random_state"].get_state()[1][:4].tolist()), s)
        for k, s in zip(recorded.kwargs, recorded.resampler_seeds, strict=True)
    ]
    assert seeds[0] == seeds[1]
    assert seeds[0][0] != seeds[2][0] and seeds[0][1] != seeds[2][1]
    want = int(np.random.default_rng(2).integers(2**31, size=3)[2])
    assert recorded.resampler_seeds[2] == want


def test_ismcts_bot_refuses_c_zero_and_a_finished_game() -> None:
    """``c`` must be > 0 (``c=0`` is no exploration, not a UCT search) and a finished game has
    no move to choose: both refused by name."""
    from envs.core.bots import make_bot

    entry = get_game("otto_octopus")
    game = entry.game_class()(num_players=2)
    with pytest.raises(ValueError, match=r"ismcts: c must be a number in \(0, 1e\+06\], got 0"):
        make_bot(game, "ismcts:c=0", dict(entry.bots()))
    bot = make_bot(game, "ismcts:sims=2", dict(entry.bots()))
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="no legal action: the game is over"):
        bot.act(state, 0, np.random.default_rng(0))
