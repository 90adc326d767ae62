"""The games as OpenSpiel games (``envs.core.openspiel``): OpenSpiel's own checker, the same
game as the engine's, deals that repeat, serialisation, honest resampling, and bad input.
Skipped where the ``openspiel`` extra is not installed."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

import envs.core.openspiel as eos  # noqa: E402
from envs.core.game import hides_nothing  # noqa: E402
from envs.core.registry import get_game  # noqa: E402
from tests.core.helpers import make_game, position_json  # noqa: E402


def perfect(name: str) -> bool:
    """A game with neither chance nor hidden information (Octi): no ``rng_seed``, deterministic."""
    return hides_nothing(get_game(name).game_class())


def spiel_game(name: str, params: dict[str, Any], seed: int = 0) -> Any:
    extra = {} if perfect(name) else {"rng_seed": seed}
    return eos.load_game(name, **params, **extra)


def engine_json(state: Any) -> str:
    return json.dumps(state.engine.to_dict(), sort_keys=True)


def play(state: Any, seed: int, steps: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_openspiel_random_sim_test(game_config: tuple[str, dict[str, Any]]) -> None:
    """OpenSpiel's own conformance checker (``pyspiel.random_sim_test``): random games with
    clones, legal actions, observations, returns and utility bounds checked at every step.
    Serialisation is checked too where OpenSpiel can (Octi: no generator to save)."""
    name, params = game_config
    game = spiel_game(name, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=perfect(name), verbose=False)


def test_openspiel_plays_the_engines_game(game_config: tuple[str, dict[str, Any]]) -> None:
    """The k-th initial state is the engine's deal from ``default_rng([rng_seed, k])``; along a
    random game the player to move, legal actions, every seat's observation, the returns and
    the rewards are the engine's."""
    name, params = game_config
    seed = 0 if perfect(name) else 7  # Octi has no chance and no rng_seed
    game = spiel_game(name, params, seed=seed)
    engine = make_game(name, params)
    for k in range(2):
        state = game.new_initial_state()
        mine = engine.new_initial_state(np.random.default_rng([seed, k]))
        assert engine_json(state) == json.dumps(mine.to_dict(), sort_keys=True)
        rng = np.random.default_rng(k)
        total = np.zeros(engine.num_players)
        for _ in range(60):
            if mine.is_terminal():
                break
            assert state.current_player() == mine.current_player()
            assert state.legal_actions() == mine.legal_actions()
            for p in range(engine.num_players):
                want = engine.observe(mine, p).ravel()
                assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
            a = int(rng.choice(mine.legal_actions()))
            assert state.action_to_string(state.current_player(), a) == mine.action_to_string(a)
            mine.apply(a)
            state.apply_action(a)
            total += state.rewards()
            assert state.returns() == list(mine.returns())
            assert np.allclose(total, mine.returns())
        if mine.is_terminal():
            assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL


def test_openspiel_game_type_and_info(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    game = spiel_game(name, params)
    engine = make_game(name, params)
    t = game.get_type()
    assert t.short_name == f"eightfold_{name}"
    Chance, Info, Util = pyspiel.GameType.ChanceMode, pyspiel.GameType.Information, pyspiel.GameType.Utility
    if perfect(name):
        assert t.chance_mode == Chance.DETERMINISTIC and t.information == Info.PERFECT_INFORMATION
        assert t.provides_information_state_string
    else:
        assert t.chance_mode == Chance.SAMPLED_STOCHASTIC and t.information == Info.IMPERFECT_INFORMATION
        assert not t.provides_information_state_string and not t.provides_information_state_tensor
    zero_sum = engine.zero_sum and engine.num_players > 1
    assert t.utility == (Util.ZERO_SUM if zero_sum else Util.GENERAL_SUM)
    assert game.utility_sum() == (0.0 if zero_sum else None)
    assert game.num_players() == engine.num_players
    assert game.num_distinct_actions() == engine.num_actions
    assert game.max_game_length() == engine.max_game_length
    assert (game.min_utility(), game.max_utility()) == tuple(map(float, engine.reward_range))
    assert game.observation_tensor_shape() == list(engine.observation_shape)
    # the flat size (OpenSpiel's tools size their networks by it): all of Octi's planes
    size = int(np.prod(engine.observation_shape))
    assert game.observation_tensor_size() == size == len(game.new_initial_state().observation_tensor())
    # the parameters round-trip: loading from get_parameters() gives the same game
    again = pyspiel.load_game(t.short_name, game.get_parameters())
    assert again.engine.config == engine.config


def test_openspiel_over_and_out_pays_a_seat_knocked_out() -> None:
    """Over and Out pays a seat when it is knocked out, before the end (``REWARDS``)."""
    game = eos.load_game("over_and_out", num_players=4)
    assert game.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert eos.load_game("otto_octopus").get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    early = 0
    for seed in range(6):
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
            early += not state.is_terminal() and any(state.rewards())
    assert early > 0


def test_openspiel_deals_repeat_and_clones_take_none() -> None:
    """The same ``rng_seed`` gives the same games, another seed other games; clones,
    deserialised states, shape questions and states dropped untouched take no deal number, so
    they do not shift the games that follow."""
    a, b, c = (eos.load_game("otto_octopus", rng_seed=s) for s in (3, 3, 4))
    first = a.new_initial_state()
    untouched = first.clone()  # a clone of a state not yet played is the same game
    assert engine_json(untouched) == engine_json(first)
    for _ in range(5):
        first.clone()
        a.deserialize_state(first.serialize())
        first.observation_tensor(0)
        a.observation_tensor_shape()
        a.new_initial_state()  # dropped unplayed
    second = a.new_initial_state()
    assert engine_json(b.new_initial_state()) == engine_json(first)
    assert engine_json(b.new_initial_state()) == engine_json(second) != engine_json(first)
    assert engine_json(c.new_initial_state()) != engine_json(first)
    # pyspiel.load_game by name, from OpenSpiel's string form, gives the same deals
    d = pyspiel.load_game("eightfold_otto_octopus(rng_seed=3)")
    assert engine_json(d.new_initial_state()) == engine_json(first)
    # an initial state observed before it is played shows its own deal
    e = eos.load_game("otto_octopus", rng_seed=3)
    fresh = e.new_initial_state()
    assert fresh.observation_tensor(1) == first.observation_tensor(1)
    assert engine_json(fresh) == engine_json(first)


@pytest.mark.parametrize("name", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
def test_openspiel_serialize_and_pickle_continue_the_same_game(name: str) -> None:
    game = eos.load_game(name, num_players=2) if name != "octi" else eos.load_game(name)
    state = game.new_initial_state()
    play(state, 1, 12)
    copies = [game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state)), state.clone()]
    play(state, 2, 40)
    for copy in copies:
        play(copy, 2, 40)
        assert engine_json(copy) == engine_json(state) and copy.history() == state.history()
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.engine.config == game.engine.config
    if name != "octi":  # the pickled game goes on with the next deal
        assert engine_json(again.new_initial_state()) == engine_json(game.new_initial_state())


def test_openspiel_resample_is_honest(game_config: tuple[str, dict[str, Any]]) -> None:
    """``resample_from_infostate`` keeps what the player sees (observation tensor and string,
    legal moves) and, in the games with hidden information, re-deals the rest."""
    name, params = game_config
    game = spiel_game(name, params)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(9):  # random moves, stopping short of the end (a solo pass ends the game)
        after = state.clone()
        after.apply_action(int(rng.choice(state.legal_actions())))
        if after.is_terminal():
            break
        state = after
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = set()
    for _ in range(6):
        world = state.resample_from_infostate(p, sampler)
        assert world.observation_string(p) == state.observation_string(p)
        assert world.observation_tensor(p) == state.observation_tensor(p)
        assert world.legal_actions() == state.legal_actions()
        worlds.add(position_json(world.engine))  # the deal, not the generator alone
    assert position_json(state.engine) not in worlds or perfect(name)
    # each draw of OpenSpiel's sampler is another world (a resample ignoring it gave one)
    assert len(worlds) == 1 if perfect(name) else len(worlds) > 1
    with pytest.raises(ValueError, match="player"):
        state.resample(game.num_players(), np.random.default_rng(0))


def test_openspiel_observation_string_is_the_seats_view() -> None:
    """The observation string of a hidden-information game is a function of the seat's
    observation, so it never shows another seat's cards (the games' pictures show the hand of
    the seat to move); Octi's is its board's picture."""
    game = eos.load_game("over_and_out", num_players=3)
    state = game.new_initial_state()
    play(state, 0, 5)
    for p in range(3):
        obs = np.asarray(state.observation_tensor(p))
        text = state.observation_string(p)
        idx = [int(w.split("=")[0]) for w in text.split(": ", 1)[1].split()]
        assert text.startswith(f"player_{p}: ") and idx == np.flatnonzero(obs).tolist()
    assert state.observation_string(0) != state.observation_string(1)
    octi = eos.load_game("octi").new_initial_state()
    assert octi.observation_string(0) == octi.get_game().engine.render_ansi(octi.engine)
    octi.apply_action(octi.legal_actions()[0])
    assert octi.information_state_string(0) == octi.information_state_string(1) == str(octi.history()[0])


def test_openspiel_ismcts_runs_and_is_blind() -> None:
    """OpenSpiel's ISMCTS on the observation strings with a seeded resampler repeats, and
    changing only what its seat cannot see leaves its choice unchanged."""
    from open_spiel.python.algorithms import ismcts, mcts

    def choose(game: Any, state: Any) -> int:
        bot = ismcts.ISMCTSBot(
            game=game,
            evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
            uct_c=2.0,
            max_simulations=30,
            random_state=np.random.RandomState(1),
            use_observation_string=True,
        )
        bot.set_resampler(eos.seeded_resampler(2))
        return int(bot.step(state))

    for name in ("over_and_out", "otto_octopus"):
        game = eos.load_game(name, num_players=2)
        choices = 0
        for seed in range(4):
            state = game.new_initial_state()
            play(state, seed, 6)
            p = state.current_player()
            other = state.resample(p, np.random.default_rng(seed + 100))
            assert position_json(other.engine) != position_json(state.engine)  # a re-deal, not a new rng
            a = choose(game, state)
            assert a in state.legal_actions()
            assert choose(game, state) == a == choose(game, other)
            choices += len(state.legal_actions()) > 1
        assert choices > 0


def test_openspiel_bot_wrapper_plays_like_the_suite_bot() -> None:
    game = eos.load_game("otto_octopus", num_players=2)
    state = game.new_initial_state()
    play(state, 5, 4)
    engine_bot = get_game("otto_octopus").bots()["heuristic"](game.engine)
    bot = eos.EightfoldBot(game, "heuristic", seed=9)
    want = engine_bot.act(state.engine.clone(), state.current_player(), np.random.default_rng(9))
    assert bot.step(state) == want
    assert "heuristic" in repr(bot)
    with pytest.raises(ValueError, match="unknown bot 'nope'"):
        eos.EightfoldBot(game, "nope")

    # the bot's seed drives its draws: the same seed repeats a game, another one differs
    def random_game(seed: int) -> list[int]:
        fresh = eos.load_game("otto_octopus", num_players=2)  # its first deal every time
        bots = [eos.EightfoldBot(fresh, "random", seed=seed + k) for k in range(2)]
        s = fresh.new_initial_state()
        while not s.is_terminal():
            s.apply_action(bots[s.current_player()].step(s))
        return list(s.history())

    assert random_game(3) == random_game(3) != random_game(5)
    with pytest.raises(ValueError, match="game must be an eightfold OpenSpiel game"):
        eos.EightfoldBot(pyspiel.load_game("tic_tac_toe"), "random")


def test_openspiel_rl_environment_and_evaluate_bots() -> None:
    """OpenSpiel's RL environment (its DQN / policy-gradient agents' loop) runs on the
    observations, and its rewards add up to the engine's returns (Over and Out, 3 players: a
    seat knocked out is paid when it happens); ``evaluate_bots`` plays the suite's bots."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    game = eos.load_game("over_and_out", num_players=3, rng_seed=4)
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    assert env.observation_spec()["info_state"] == (60,) and env.action_spec()["num_actions"] == 12
    rng = np.random.default_rng(0)
    step = env.reset()
    total = np.zeros(3)
    while not step.last():
        legal = step.observations["legal_actions"][step.observations["current_player"]]
        step = env.step([int(rng.choice(legal))])
        total += np.asarray(step.rewards)
    assert np.allclose(total, env.get_state.returns()) and sorted(total) == [-1.0, 0.0, 1.0]
    game = eos.load_game("otto_octopus", num_players=2)
    bots = [eos.EightfoldBot(game, "random", seed=0), eos.EightfoldBot(game, "heuristic", seed=1)]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.default_rng(0))
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiel_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match=r"eightfold_octi: variant must be one of"):
        eos.load_game("octi", variant="nope")
    with pytest.raises(
        ValueError, match=r"max_turns must be None or an int >= 1, got 0 .*-1 stands for None"
    ):
        pyspiel.load_game("eightfold_octi", {"max_turns": 0})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'rng_seed'"):
        pyspiel.load_game("eightfold_octi", {"rng_seed": 1})  # Octi has no chance
    for seed in (-2, 2**31, 1.5):  # OpenSpiel's int parameters are C++ ints
        with pytest.raises(ValueError, match=rf"rng_seed must be an int in \[0, 2\*\*31 - 1\], got {seed}"):
            eos.load_game("otto_octopus", rng_seed=seed)
    with pytest.raises(ValueError, match="unknown game"):
        eos.load_game("chess")
    assert eos.load_game("eightfold_octi", max_turns=None).engine.config.max_turns is None
    assert eos.load_game("octi", max_turns=30).engine.config.max_turns == 30
    game = eos.load_game("over_and_out", num_players=2)
    state = game.new_initial_state()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match=r"illegal action"):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="deserialize_state"):
        game.new_initial_state("text")
    # an observation type the game does not provide: None, as OpenSpiel's make_observation
    # documents; the state's own methods name what is missing
    recall = pyspiel.IIGObservationType(perfect_recall=True)
    assert game.make_py_observer(recall) is None
    with pytest.raises(ValueError, match="observation parameters are not supported"):
        game.make_py_observer(None, {"x": 1})
    with pytest.raises(ValueError, match="eightfold_over_and_out provides no information-state string"):
        state.information_state_string(0)
    for g in (game, eos.load_game("octi")):
        with pytest.raises(ValueError, match="provides no information-state tensor; use observation_tensor"):
            g.new_initial_state().information_state_tensor(0)
    assert eos.load_game("octi").new_initial_state().information_state_string(0) == ""  # no move yet
    with pytest.raises(ValueError, match="player must be"):
        state.observation_tensor(2)
    # a state read back by another game, or by the same game under other parameters
    octi = eos.load_game("octi").new_initial_state()
    three = eos.load_game("over_and_out", num_players=3).new_initial_state()
    for text in (octi.serialize(), three.serialize()):
        with pytest.raises(ValueError, match=r"this state was written by eightfold_.*not by this game"):
            game.deserialize_state(text)
    other_seed = eos.load_game("over_and_out", num_players=2, rng_seed=9)  # the seed of new deals only
    assert engine_json(other_seed.deserialize_state(state.serialize())) == engine_json(state)


def test_openspiel_interpreter_exits_cleanly() -> None:
    """Registering, loading and playing leave a process that exits with 0 (a creator that the
    interpreter frees at its end crashed it, a bug fixed by registering classes)."""
    code = (
        "import envs.core.openspiel as eos, pyspiel\n"
        "g = pyspiel.load_game('eightfold_over_and_out', {'num_players': 2})\n"
        "s = g.new_initial_state(); s.apply_action(s.legal_actions()[0]); c = s.clone()\n"
        "print('ok', eos.register_games())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "eightfold_otto_octopus" in out.stdout


def test_openspiel_game_strings_and_playthroughs() -> None:
    """Each game loads back from its OpenSpiel string (Over and Out's nested ``deck_counts``
    too, which OpenSpiel reads back with an empty ``name``), and OpenSpiel's own
    ``generate_playthrough`` runs on every game."""
    from open_spiel.python.algorithms import generate_playthrough

    for name, params in (
        ("octi", {"variant": "x_fast", "max_turns": 3}),
        ("over_and_out", {"num_players": 3, "max_plays": 6, "deck_counts": {"0": 30, "5": 30, "x2": 4}}),
        ("otto_game_over", {"num_players": 1}),
        ("otto_octopus", {"num_players": 4, "max_steps": 6}),
    ):
        game = eos.load_game(name, **params)
        again = pyspiel.load_game(str(game))
        assert str(again) == str(game) and again.engine.config == game.engine.config
        text = generate_playthrough.playthrough(str(game), action_sequence=None)
        assert f'GameType.short_name = "eightfold_{name}"' in text and "IsTerminal() = True" in text
    deck = eos.load_game("over_and_out").get_parameters()["deck_counts"]
    assert deck["name"] == "" and eos.load_game("over_and_out", deck_counts=deck).engine.config.counts


_USES = ("play", "clone", "child", "deserialize", "pickle", "observe", "string", "resample")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_USES), st.integers(0, 2)), min_size=1, max_size=6))
def test_openspiel_each_initial_state_used_is_the_next_deal(plan: list[tuple[str, int]]) -> None:
    """The k-th initial state a program makes and uses in any way (plays, copies, writes out,
    observes) is the k-th deal, even where only its copy is played and the state itself is
    dropped; states made and dropped untouched before the next, and shape questions, take no
    deal number."""
    game = eos.load_game("otto_octopus", num_players=2, rng_seed=4)
    engine = make_game("otto_octopus", {"num_players": 2})
    for k, (use, untouched) in enumerate(plan):
        for _ in range(untouched):
            game.new_initial_state()
        game.observation_tensor_shape()
        want = engine.new_initial_state(np.random.default_rng([4, k]))
        state = game.new_initial_state()
        first = want.legal_actions()[0]
        if use == "observe":
            assert state.observation_tensor(1) == engine.observe(want, 1).ravel().tolist()
            continue
        if use == "string":
            assert state.observation_string(1) == _wrapped(engine, want).observation_string(1)
            continue
        if use == "child":
            got, _ = state.child(first), want.apply(first)
        elif use == "clone":
            got = state.clone()
        elif use == "deserialize":
            got = game.deserialize_state(state.serialize())
        elif use == "pickle":
            got = pickle.loads(pickle.dumps(state))
        elif use == "resample":
            got = state.resample(1, np.random.default_rng(0))  # seat 1 keeps its own hand
            assert got.observation_tensor(1) == engine.observe(want, 1).ravel().tolist()
            continue
        else:
            got = state
        del state  # only the copy lives on
        assert engine_json(got) == json.dumps(want.to_dict(), sort_keys=True)
        play(got, k, 3)


def _wrapped(engine: Any, engine_state: Any) -> Any:
    """A played state of an OpenSpiel game of ``engine`` that wraps ``engine_state``."""
    game = eos.EightfoldGame(engine.name, eos.spiel_params(engine.config))
    state = game.new_initial_state()
    state._engine = engine_state
    return state


_OPS = ("clone", "deserialize", "pickle", "observe", "shape", "string", "dropped", "resample")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(_OPS), max_size=4), min_size=1, max_size=5), st.integers(0, 3))
def test_openspiel_deal_numbers_survive_whatever_happens_between_games(
    between: list[list[str]], moves: int
) -> None:
    """Whatever a program does between its games (clones, serialisations, pickles,
    observations, OpenSpiel's shape probes, states dropped unplayed, resamples), its k-th
    played game is the k-th deal, and every copy is the same game as its original."""
    game = eos.load_game("over_and_out", num_players=2, rng_seed=5)
    engine = make_game("over_and_out", {"num_players": 2})
    played: list[Any] = []
    for k, ops in enumerate(between):
        state = game.new_initial_state()
        want = engine.new_initial_state(np.random.default_rng([5, k]))
        assert engine_json(state) == json.dumps(want.to_dict(), sort_keys=True)
        play(state, k, moves)
        played.append(state)
        for i, op in enumerate(ops):
            other = played[i % len(played)]
            if op == "clone":
                assert engine_json(other.clone()) == engine_json(other)
            elif op == "deserialize":
                assert engine_json(game.deserialize_state(other.serialize())) == engine_json(other)
            elif op == "pickle":
                assert engine_json(pickle.loads(pickle.dumps(other))) == engine_json(other)
            elif op == "observe":
                other.observation_tensor(0)
            elif op == "shape":
                game.observation_tensor_shape()
            elif op == "string":
                other.observation_string(1)
            elif op == "dropped":
                game.new_initial_state()
            elif op == "resample" and not other.is_terminal():
                other.resample(other.current_player(), np.random.default_rng(i))


@pytest.mark.parametrize("name", ["over_and_out", "otto_game_over", "otto_octopus"])
def test_ismcts_bot_plays_every_game_repeatably_and_blind(name: str) -> None:
    """Bot spec ``ismcts`` (OpenSpiel's ISMCTS as a suite bot): a legal move in every game with
    hidden information, the same move for the same ``rng`` seed, and the same move when only
    what its seat cannot see changes. Octi, with nothing hidden, refuses it by name."""
    from envs.core.bots import make_bot

    with pytest.raises(ValueError, match="ismcts: octi has no hidden information.*use mcts"):
        make_bot(get_game("octi").game_class()(), "ismcts", {})
    entry = get_game(name)
    game = entry.game_class()(num_players=2)
    bot = make_bot(game, "ismcts:sims=30", dict(entry.bots()))
    assert repr(bot) == "ismcts:sims=30,c=2,rollouts=1"
    for seed in range(4):
        state = game.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        for _ in range(5):
            state.apply(int(rng.choice(state.legal_actions())))
        p = state.current_player()
        a = bot.act(state, p, np.random.default_rng(1))
        assert a in state.legal_actions()
        assert bot.act(state, p, np.random.default_rng(1)) == a
        for k in range(2):
            other = game.resample_hidden(state, p, np.random.default_rng(9 + k))
            assert position_json(other) != position_json(state)  # a re-deal, not a new rng
            assert bot.act(other, p, np.random.default_rng(1)) == a
    with pytest.raises(ValueError, match="is not to move"):
        bot.act(state, (p + 1) % game.num_players, np.random.default_rng(1))


def test_ismcts_bot_in_a_match_and_bad_specs() -> None:
    from envs.core.arena import play_match
    from envs.core.bots import make_bot

    entry = get_game("otto_octopus")
    game = entry.game_class()(num_players=2)
    bots = dict(entry.bots())
    pair = [make_bot(game, "ismcts:sims=10,c=1.5,rollouts=2", bots), make_bot(game, "random", bots)]
    first = play_match(game, pair, games=2, seed=3)
    assert first == play_match(game, pair, games=2, seed=3)
    for spec, message in (
        ("ismcts:sims=0", r"ismcts: sims must be an int in \[2, inf\], got 0"),
        ("ismcts:rollouts=1.5", r"ismcts: rollouts must be an int in \[1, inf\], got 1.5"),
        ("ismcts:c=-1", r"ismcts: c must be a number in \(0, 1e\+06\], got -1"),
        (
            "ismcts:depth=2",
            r"unknown parameter\(s\) \['depth'\] for bot 'ismcts'; allowed: \['sims', 'c', 'rollouts'\]",
        ),
    ):
        with pytest.raises(ValueError, match=message):
            make_bot(game, spec, bots)


def test_ismcts_bot_without_openspiel_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from envs.core.bots import make_bot

    game = get_game("otto_octopus").game_class()(num_players=2)
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if the extra were not installed
    monkeypatch.delitem(sys.modules, "envs.core.openspiel")
    with pytest.raises(
        ValueError, match=r"bot 'ismcts' is OpenSpiel's: .*pip install 'eightfold\[openspiel\]'"
    ):
        make_bot(game, "ismcts", {})
    with pytest.raises(ValueError, match=r"unknown bot 'nope'; available: \[.*'ismcts', 'mcts'"):
        make_bot(game, "nope", {"random": object})


def test_openspiel_seed_default_and_notation_off_turn() -> None:
    """``rng_seed`` defaults to 0 (the module docstring's promise: the k-th state is the deal
    of ``default_rng([0, k])``) and refuses a bool by name; ``action_to_string`` of a seat that
    is not to move does not read the mover's position (Octi's strings name squares)."""
    game = eos.load_game("over_and_out", num_players=2)
    assert game.get_parameters()["rng_seed"] == 0
    want = make_game("over_and_out", {"num_players": 2}).new_initial_state(np.random.default_rng([0, 0]))
    assert engine_json(game.new_initial_state()) == json.dumps(want.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match="rng_seed must be an int"):
        eos.load_game("over_and_out", rng_seed=True)
    octi = eos.load_game("octi").new_initial_state()
    a = octi.legal_actions()[0]
    assert octi.action_to_string(0, a) == "prong b2 N"
    assert octi.action_to_string(1, a) == f"action {a}"


@pytest.mark.parametrize("game", [None, "octi", "tic_tac_toe"])
def test_a_state_made_without_an_eightfold_game_is_refused_not_a_crash(game: Any) -> None:
    """``EightfoldState(x)`` with anything but an eightfold pyspiel game raises ``TypeError``
    naming what it wants (pyspiel's C++ constructor, given ``None``, ends the process with a
    segmentation fault)."""
    if game == "tic_tac_toe":
        game = pyspiel.load_game(game)
    with pytest.raises(TypeError, match=r"game must be an EightfoldGame \(load_game\('octi'\)\), got "):
        eos.EightfoldState(game)
    assert isinstance(eos.EightfoldState(eos.load_game("octi")), pyspiel.State)
