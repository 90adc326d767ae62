"""Second-round pins for the OpenSpiel adapter (``envs.core.openspiel``), found by a mutation
round: the registered game types' fields (what the module docstring promises for dynamics,
chance, information, utility, rewards and the observations provided), the observer offered for
every observation type, the messages of refused parameters (``-1`` named as ``None`` only for
parameters that take ``None``; ``rng_seed`` through ``pyspiel.load_game`` itself), the message
of the missing information-state string, ``str(state)``, the ``action <index>`` fallback of
``action_to_string``, Octi's information state without a player, deal numbers kept by a state
used in any way (observed, played, copied, pickled) and then dropped, the empty ``"name"`` of a
nested parameter, ``rewards()``, ``EightfoldBot`` at the second seat, and the ``ismcts`` bot's
refusal of a ``c`` that is not a finite number. One ``xfail(strict=True)`` test states the
correct behaviour of a defect (``load_game`` with ``None`` for a parameter that does not take
it). Skipped where the ``openspiel`` extra is not installed."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs.core.openspiel as eos  # noqa: E402
from envs.core.registry import GAMES, get_game  # noqa: E402
from tests.core.helpers import position_json  # noqa: E402
from tests.core.test_openspiel import play  # noqa: E402

NAMES = ["octi", "over_and_out", "otto_game_over", "otto_octopus"]
_T = pyspiel.GameType


def _registered(name: str) -> Any:
    return {t.short_name: t for t in pyspiel.registered_games()}[f"eightfold_{name}"]


def _without_name(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters without the empty ``"name"`` OpenSpiel keeps in a nested one."""
    return {
        k: ({i: j for i, j in v.items() if i != "name"} if isinstance(v, dict) else v)
        for k, v in params.items()
    }


# ------------------------------------------------------------------ game types
@pytest.mark.parametrize("name", NAMES)
def test_game_type_fields_are_the_documented_ones(name: str) -> None:
    """Module docstring, "What maps to what": a sequential game; Octi ``DETERMINISTIC`` with
    perfect information, the others ``SAMPLED_STOCHASTIC`` (chance inside the engine, no
    explicit chance nodes: ``max_chance_outcomes`` 0) with imperfect information; observation
    strings and tensors provided, information-state tensors not; loadable by name alone; the
    long name is the registry's title. The registered type (made before any engine) says the
    same as a loaded game's, its default games being zero-sum (``ZERO_SUM``)."""
    perfect = name == "octi"
    loaded = eos.load_game(name)
    for t in (_registered(name), loaded.get_type()):
        assert t.short_name == f"eightfold_{name}"
        assert t.long_name == f"eightfold {GAMES[name].title}"
        assert t.dynamics == _T.Dynamics.SEQUENTIAL
        want_chance = _T.ChanceMode.DETERMINISTIC if perfect else _T.ChanceMode.SAMPLED_STOCHASTIC
        assert t.chance_mode == want_chance
        want_info = _T.Information.PERFECT_INFORMATION if perfect else _T.Information.IMPERFECT_INFORMATION
        assert t.information == want_info
        assert t.utility == _T.Utility.ZERO_SUM
        want_reward = _T.RewardModel.REWARDS if name == "over_and_out" else _T.RewardModel.TERMINAL
        assert t.reward_model == want_reward
        assert t.default_loadable is True
        assert t.provides_observation_string is True
        assert t.provides_observation_tensor is True
        assert t.provides_information_state_string is perfect
        assert t.provides_information_state_tensor is False
        assert t.provides_factored_observation_string is False
        assert t.parameter_specification == _without_name(loaded.get_parameters())
    assert loaded.max_chance_outcomes() == 0
    assert loaded.utility_sum() == 0.0


def test_solo_game_type_is_general_sum() -> None:
    """Utility is ``GENERAL_SUM`` in the solo modes (a one-seat game does not sum to zero), and
    the game then has no ``utility_sum``."""
    for name in ("otto_game_over", "otto_octopus"):
        game = eos.load_game(name, num_players=1)
        assert game.get_type().utility == _T.Utility.GENERAL_SUM
        assert game.utility_sum() is None


# ------------------------------------------------------------------ parameters
def test_minus_one_means_none_only_where_the_parameter_takes_none() -> None:
    """``-1`` stands for ``None`` only in a parameter whose default is ``None``: elsewhere it is
    the value ``-1``, refused with the game's own message naming it, and the hint about
    ``-1`` appears only where a ``None`` parameter is the one refused."""
    with pytest.raises(ValueError, match=r"starting_chips") as info:
        eos.load_game("over_and_out", starting_chips=-1)
    assert str(info.value) == "eightfold_over_and_out: starting_chips must be an int in [1, 4], got -1"
    with pytest.raises(ValueError, match=r"num_players") as info:
        eos.load_game("over_and_out", num_players=9)
    assert str(info.value) == "eightfold_over_and_out: num_players must be an int in [2, 8], got 9"
    with pytest.raises(ValueError, match=r"first_dealer") as info:
        pyspiel.load_game("eightfold_over_and_out", {"first_dealer": 5})
    assert str(info.value) == (
        "eightfold_over_and_out: first_dealer must be None or an int in [0, 3], got 5 "
        "(here -1 stands for None in ['first_dealer'])"
    )
    assert eos.load_game("over_and_out", first_dealer=-1).engine.config.first_dealer is None


def test_pyspiel_load_game_checks_rng_seed_by_name() -> None:
    """``pyspiel.load_game`` itself (not only :func:`load_game`) refuses a negative
    ``rng_seed`` with the message that names it, before any deal."""
    with pytest.raises(ValueError, match=re.escape("rng_seed must be an int in [0, 2**31 - 1], got -2")):
        pyspiel.load_game("eightfold_otto_octopus", {"rng_seed": -2})


# ------------------------------------------------------------------ observers
def test_hidden_game_offers_only_the_seats_own_observation() -> None:
    """Module docstring: ``make_py_observer`` gives ``None`` for an observation type the game
    lacks. A hidden-information game has exactly one: public information plus the seat's own,
    without perfect recall; every other combination (private only, public only, all players,
    perfect recall) is ``None``."""
    game = eos.load_game("over_and_out", num_players=2)
    P = pyspiel.PrivateInfoType
    for private in (P.SINGLE_PLAYER, P.NONE, P.ALL_PLAYERS):
        for public in (True, False):
            for recall in (True, False):
                kind = pyspiel.IIGObservationType(
                    public_info=public, perfect_recall=recall, private_info=private
                )
                observer = game.make_py_observer(kind)
                if (private, public, recall) == (P.SINGLE_PLAYER, True, False):
                    assert isinstance(observer, eos._Observer)
                else:
                    assert observer is None, (private, public, recall)


def test_octi_observers_picture_without_recall_history_with_it() -> None:
    """Octi, a perfect-information game: every observation type without perfect recall is the
    board's observer, every one with perfect recall OpenSpiel's public-information observer
    (the move history, its information state)."""
    from open_spiel.python.observation import IIGObserverForPublicInfoGame

    game = eos.load_game("octi")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    P = pyspiel.PrivateInfoType
    for private in (P.SINGLE_PLAYER, P.NONE, P.ALL_PLAYERS):
        for public in (True, False):
            bare = game.make_py_observer(pyspiel.IIGObservationType(public, False, private))
            assert isinstance(bare, eos._Observer)
            assert bare.string_from(state, 1) == game.engine.render_ansi(state.engine)
            recall = game.make_py_observer(pyspiel.IIGObservationType(public, True, private))
            assert isinstance(recall, IIGObserverForPublicInfoGame)
            assert recall.string_from(state, 1) == (str(state.history()[0]) if public else "")


def test_information_state_string_message_points_to_the_alternatives() -> None:
    """The missing information-state string names the game and what to use instead
    (``observation_string``, ISMCTS with ``use_observation_string=True``)."""
    state = eos.load_game("otto_octopus", num_players=2).new_initial_state()
    with pytest.raises(ValueError, match=r"no information-state string") as info:
        state.information_state_string(1)
    assert str(info.value) == (
        "eightfold_otto_octopus provides no information-state string (a hidden-information game "
        "with observations only); use observation_string, or OpenSpiel's ISMCTS with "
        "use_observation_string=True"
    )
    with pytest.raises(ValueError, match="^eightfold_otto_octopus provides no information-state tensor"):
        state.information_state_tensor()


# ------------------------------------------------------------------ strings
def test_str_is_the_picture_alone_where_no_seat_has_private_text() -> None:
    """``str(state)`` is the game's picture, then a ``[seat] text`` line for each seat that has
    private text and none for a seat without: in Over and Out (no private text) the picture
    alone; in OTTO Game Over one line per seat, in seat order."""
    game = eos.load_game("over_and_out", num_players=3)
    state = game.new_initial_state()
    assert all(game.engine.private_text(state.engine, p) == "" for p in range(3))
    assert str(state) == game.engine.render_ansi(state.engine)
    otto = eos.load_game("otto_game_over", num_players=2)
    s = otto.new_initial_state()
    e = otto.engine
    want = [e.render_ansi(s.engine)] + [f"[player_{p}] {e.private_text(s.engine, p)}" for p in range(2)]
    assert str(s) == "\n".join(want)


def test_action_string_elsewhere_reads_action_index() -> None:
    """README ("OpenSpiel's limits"): in Octi and Over and Out an action asked about for a seat
    that is not to move, or on a finished game, reads ``action <index>``; the seat to move gets
    the spec's notation."""
    game = eos.load_game("over_and_out", num_players=2)
    state = game.new_initial_state()
    p = state.current_player()
    a = state.legal_actions()[0]
    assert state.action_to_string(p, a) == state.engine.action_to_string(a)
    assert state.action_to_string(1 - p, a) == f"action {a}"
    octi = eos.load_game("octi", max_turns=2).new_initial_state()
    while not octi.is_terminal():
        octi.apply_action(octi.legal_actions()[0])
    for seat in (0, 1):
        assert octi.action_to_string(seat, 5) == "action 5"


# ------------------------------------------------------------------ bots
def test_eightfold_bot_plays_the_seat_to_move() -> None:
    """``EightfoldBot.step`` asks its bot for the seat to move, seat 1 included (the suite's
    heuristic with the same seed chooses the same move), and its repr names its spec."""
    game = eos.load_game("otto_octopus", num_players=2)
    state = game.new_initial_state()
    while state.current_player() != 1:
        state.apply_action(state.legal_actions()[0])
    bot = eos.EightfoldBot(game, "heuristic", seed=4)
    want = get_game("otto_octopus").bots()["heuristic"](game.engine)
    assert bot.step(state) == want.act(state.engine.clone(), 1, np.random.default_rng(4))
    assert repr(bot) == "EightfoldBot('heuristic')"


@pytest.mark.parametrize("c", [float("inf"), True, float("nan")])
def test_ismcts_bot_refuses_a_c_that_is_not_a_finite_number(c: Any) -> None:
    """``c`` must be a number in (0, 1e6]: infinity (all exploration), a bool and NaN are
    refused by name."""
    game = get_game("otto_octopus").game_class()(num_players=2)
    with pytest.raises(ValueError, match=re.escape(f"ismcts: c must be a number in (0, 1e+06], got {c!r}")):
        eos.OpenSpielISMCTSBot(game, c=c)


def test_ismcts_bot_on_a_played_position_leaves_it_alone() -> None:
    """The ``ismcts`` bot searches a copy: the caller's state and the bot's own internal game
    are untouched, and a second call on the same position gives the same move."""
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    for _ in range(3):
        state.apply(int(rng.choice(state.legal_actions())))
    bot = eos.OpenSpielISMCTSBot(game, sims=5)
    before = state.to_dict()
    a = bot.act(state, state.current_player(), np.random.default_rng(0))
    assert state.to_dict() == before
    assert a == bot.act(state, state.current_player(), np.random.default_rng(0))


def test_played_state_keeps_rewards_of_its_last_move() -> None:
    """``rewards()`` is what the last move paid, so a seat knocked out in Over and Out sees its
    payment on that move only; the sum of rewards over the game is the returns."""
    game = eos.load_game("over_and_out", num_players=3, rng_seed=1)
    state = game.new_initial_state()
    assert state.rewards() == [0.0, 0.0, 0.0]
    total = np.zeros(3)
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        before = np.asarray(state.returns())
        state.apply_action(int(rng.choice(state.legal_actions())))
        assert np.allclose(state.rewards(), np.asarray(state.returns()) - before)
        total += state.rewards()
    assert np.allclose(total, state.returns())
    play(state, 0, 1)  # a finished game takes no move


def test_octi_information_state_string_defaults_to_the_mover() -> None:
    """Octi's information state is the move history (the same for both seats); with no player
    it is the mover's, so on a finished game, where no seat moves, OpenSpiel refuses it."""
    state = eos.load_game("octi", max_turns=2).new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    assert state.information_state_string() == state.information_state_string(1) == str(state.history()[0])
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(0) == ", ".join(map(str, state.history()))
    with pytest.raises(pyspiel.SpielError, match="player >= 0"):
        state.information_state_string()


def test_pickling_an_untouched_state_keeps_its_deal() -> None:
    """Module docstring: a state written out keeps its deal. Pickling an initial state never
    played and then dropping it does not give its number back: the next state is the next deal,
    and the pickle reads back as the first."""
    import pickle

    game = eos.load_game("otto_octopus", num_players=2, rng_seed=8)
    engine = get_game("otto_octopus").game_class()(num_players=2)
    first = game.new_initial_state()
    data = pickle.dumps(first)
    del first
    second = game.new_initial_state()
    want = [engine.new_initial_state(np.random.default_rng([8, k])) for k in range(2)]
    assert position_json(second.engine) == position_json(want[1])
    assert position_json(pickle.loads(data).engine) == position_json(want[0])


@pytest.mark.parametrize("use", ["observe", "string", "play", "clone", "child", "legal"])
def test_a_used_state_dropped_keeps_its_deal(use: str) -> None:
    """Module docstring: a state used in any way (played, observed, copied) keeps its deal, even
    when it is dropped while it is still the newest: the next state is the next deal, never a
    second copy of the one used (a copy kept alive is the first deal)."""
    game = eos.load_game("over_and_out", num_players=2, rng_seed=3)
    engine = get_game("over_and_out").game_class()(num_players=2)
    want = [position_json(engine.new_initial_state(np.random.default_rng([3, k]))) for k in range(2)]
    first = game.new_initial_state()
    kept = None
    if use == "observe":
        first.observation_tensor(0)
    elif use == "string":
        first.observation_string(1)
    elif use == "play":
        first.apply_action(first.legal_actions()[0])
    elif use == "clone":
        kept = first.clone()
    elif use == "child":
        # the move from the engine's copy of the deal: asking the state itself would use it
        move = engine.new_initial_state(np.random.default_rng([3, 0])).legal_actions()[0]
        kept = first.child(move)
    else:
        first.legal_actions()
    del first
    second = game.new_initial_state()
    assert position_json(second.engine) == want[1]
    if use == "clone":
        assert position_json(kept.engine) == want[0]


def test_load_game_reports_a_refused_none_as_none() -> None:
    """``load_game`` takes ``None`` (its docstring), and a value the game refuses raises the
    game's ``ValueError`` naming the parameter: ``variant=None`` is the game's refusal of
    ``None``, not an OpenSpiel type error about ``-1`` (every ``None`` was written as ``-1``).
    A parameter that takes ``None`` still does."""
    with pytest.raises(
        ValueError, match=re.escape("variant must be one of ['basic', 'x_fast', 'x_classic'], got None")
    ):
        eos.load_game("octi", variant=None)
    with pytest.raises(ValueError, match=re.escape("num_players must be an int in [2, 8], got None")):
        eos.load_game("over_and_out", num_players=None)
    with pytest.raises(ValueError, match=re.escape("rng_seed must be an int in [0, 2**31 - 1], got None")):
        eos.load_game("otto_octopus", rng_seed=None)
    assert eos.load_game("octi", max_turns=None).engine.config.max_turns is None


def test_only_an_empty_name_is_dropped_from_a_nested_parameter() -> None:
    """OpenSpiel's empty ``"name"`` of a nested parameter is dropped (its form for nested
    games); a ``"name"`` with a value is a card token like any other, refused by the game."""
    deck = dict(eos.load_game("over_and_out").engine.config.deck_counts)
    assert eos.load_game("over_and_out", deck_counts={**deck, "name": ""}).engine.config.deck_counts == deck
    with pytest.raises(ValueError, match="deck_counts has unknown card token 'name'"):
        eos.load_game("over_and_out", deck_counts={**deck, "name": "x"})
