"""Bad input gives a clear error (``ValueError``) or the PettingZoo convention, never a crash
deep inside the engine or a silently changed game. Property-based with hypothesis."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.core.game import BIT_GENERATORS, rng_from_dict, rng_to_dict
from envs.core.registry import GAMES
from tests.core.conftest import available_games
from tests.core.helpers import make_game, play_random

SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck))  # examples: tests/conftest.py

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.integers(-5, 70), max_size=6),
    st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=3),
)


def _mid_game_states(name: str) -> list[Any]:
    game = make_game(name, {})
    states = play_random(game, 11, max_steps=60)
    return [s for s in states[:: max(1, len(states) // 6)] if not s.is_terminal()]


@pytest.mark.parametrize("name", available_games())
@SETTINGS
@given(
    text=st.one_of(st.text(max_size=40), st.from_regex(r"[a-z]{2,10} [a-i][1-9](\.[0-9])? ?[A-Z]{0,2}")),
    data=st.data(),
)
def test_string_to_action_any_text(name: str, text: str, data: st.DataObject) -> None:
    """Any text either raises ``ValueError`` or names an index whose canonical string it is
    (case and spacing aside); the state never changes. Half the texts are a legal move's
    string in another case and spacing, so the accepting branch runs too."""
    for state in _STATES[name]:
        if data.draw(st.booleans()):
            legal = [state.action_to_string(a) for a in state.legal_actions()]
            words = data.draw(st.sampled_from(legal)).split()
            case = data.draw(st.sampled_from([str.upper, str.lower, str.title]))
            text = data.draw(st.sampled_from(["", " ", "\t"])) + "  ".join(case(w) for w in words) + " "
        before = json.dumps(state.to_dict(), sort_keys=True)
        try:
            a = state.string_to_action(text)
        except ValueError:
            pass
        else:
            assert isinstance(a, int) and 0 <= a < state.legal_mask().size
            if state.legal_mask()[a]:
                # canonical strings keep their case (Octi's directions are upper case)
                assert state.action_to_string(a).lower() == " ".join(text.lower().split())
        assert json.dumps(state.to_dict(), sort_keys=True) == before


_STATES: dict[str, list[Any]] = {g: _mid_game_states(g) for g in available_games()}


@pytest.mark.parametrize("name", available_games())
def test_notation_round_trip(name: str) -> None:
    """Every legal action's canonical string reads back as that action; illegal ones say so."""
    for state in _STATES[name]:
        mask = state.legal_mask()
        for a in np.flatnonzero(mask):
            text = state.action_to_string(int(a))
            assert state.string_to_action(text) == a
            assert state.string_to_action("  " + text.upper() + " ") == a
        illegal = np.flatnonzero(mask == 0)
        if illegal.size:
            text = state.action_to_string(int(illegal[0]))
            legal_texts = {state.action_to_string(int(a)) for a in np.flatnonzero(mask)}
            assert text not in legal_texts


@pytest.mark.parametrize("name", available_games())
def test_notation_reading_rule(name: str) -> None:
    """Each spec's §8: read case-insensitively, surrounding whitespace ignored, runs of spaces
    collapsed (any Unicode whitespace around the text); a tab, line break or non-ASCII
    character between the words is malformed."""
    for state in _STATES[name]:
        for a in np.flatnonzero(state.legal_mask())[:40]:
            text = state.action_to_string(int(a))
            assert state.string_to_action("\t" + text.replace(" ", "   ").title() + " \n") == a
            # "surrounding whitespace" is any whitespace str.strip removes (the doc pages say so)
            assert state.string_to_action("\u00a0" + text + "\u3000") == a
            if " " not in text:
                continue
            for sep in ("\t", "\n", "\u00a0", " \t "):
                with pytest.raises(ValueError, match="malformed"):
                    state.string_to_action(text.replace(" ", sep, 1))
            with pytest.raises(ValueError, match="ASCII"):
                state.string_to_action(text + "\u212a")  # KELVIN SIGN, whose lower() is "k"


@pytest.mark.parametrize("name", available_games())
def test_action_to_string_takes_integer_indices_only(name: str) -> None:
    """``env.unwrapped.action_to_string`` reads ints and numpy integers as ``step`` does; a
    string, float, bool or ``None`` is a ``ValueError``, never converted to an index."""
    env = GAMES[name].env()
    env.reset(seed=0)
    raw = env.unwrapped
    a = int(np.flatnonzero(raw.state.legal_mask())[0])
    assert raw.action_to_string(np.int64(a)) == raw.action_to_string(a) == raw.state.action_to_string(a)
    for bad in (str(a), float(a), None, True):
        with pytest.raises(ValueError, match="integer action index"):
            raw.action_to_string(bad)


def _numpy_scalars(value: Any) -> Any:
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, str):  # a choice swept with numpy (np.array(["basic", "x_fast"])[i])
        return np.str_(value)
    if isinstance(value, dict):
        return {k: _numpy_scalars(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numpy_scalars(v) for v in value]
    return value


@pytest.mark.parametrize("name", available_games())
def test_numpy_scalar_parameters(name: str) -> None:
    """A parameter given as a numpy scalar is read as the Python value it holds: the same
    config, JSON-serialisable, the same game."""
    game_cls = GAMES[name].game_class()
    for params in game_cls.test_configs:
        plain_game = game_cls(**params)
        np_game = game_cls(**{k: _numpy_scalars(v) for k, v in params.items()})
        assert np_game.config == plain_game.config
        json.dumps(dataclasses.asdict(np_game.config))
        # the engine's Config built directly reads them the same way (it refused them, saying
        # "num_players must be one of [1, 2, 3, 4], got np.int64(3)")
        direct = game_cls.config_class(**{k: _numpy_scalars(v) for k, v in params.items()})
        assert direct == plain_game.config
        json.dumps(dataclasses.asdict(direct))
        assert all(not isinstance(getattr(direct, f.name), np.generic) for f in dataclasses.fields(direct))
        a = np_game.new_initial_state(np.random.default_rng(3))
        b = plain_game.new_initial_state(np.random.default_rng(3))
        assert json.dumps(a.to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)


def _mutations(d: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every value in a nested dict/list (capped)."""
    out = [path]
    if isinstance(d, dict):
        for k, v in d.items():
            out += _mutations(v, (*path, k))
    elif isinstance(d, list):
        for i, v in enumerate(d[:6]):
            out += _mutations(v, (*path, i))
    return out


def _set(d: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    d = json.loads(json.dumps(d))
    cur = d
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return d


def _delete(d: Any, path: tuple[Any, ...]) -> Any:
    d = json.loads(json.dumps(d))
    cur = d
    for p in path[:-1]:
        cur = cur[p]
    del cur[path[-1]]
    return d


@pytest.mark.parametrize("name", available_games())
@SETTINGS
@given(data=st.data())
def test_from_dict_malformed(name: str, data: st.DataObject) -> None:
    """A mutated dict is rejected with ValueError or gives a state that works."""
    state = _STATES[name][len(_STATES[name]) // 2]
    d = state.to_dict()
    paths = _mutations(d)[1:]
    path = data.draw(st.sampled_from(paths))
    bad = _delete(d, path) if data.draw(st.booleans()) else _set(d, path, data.draw(JUNK))
    try:
        restored = type(state).from_dict(bad)
    except ValueError:
        return
    # accepted: it must be a working state
    if not restored.is_terminal():
        mask = restored.legal_mask()
        assert mask.any()
        restored.apply(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("name", available_games())
def test_from_dict_not_a_dict(name: str) -> None:
    state = _STATES[name][0]
    for junk in (None, 3, "x", [], {}, {"config": {}}):
        # not a dict: named by its type; a dict without a state's keys: the keys it lacks
        message = (
            r"lacks|misses keys|missing keys" if isinstance(junk, dict) else rf"got {type(junk).__name__}"
        )
        with pytest.raises(ValueError, match=message):
            type(state).from_dict(junk)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", available_games())
def test_unknown_parameter(name: str) -> None:
    with pytest.raises(ValueError, match="allowed"):
        GAMES[name].env(no_such_parameter=1)


@pytest.mark.parametrize("name", available_games())
def test_bad_parameter_value(name: str) -> None:
    """A wrong value for any constructor parameter raises ValueError naming that parameter:
    no parameter of any game takes a word that is none of its values, a negative or fractional
    number, a list or an arbitrary object (a test that only read the message when an error came
    once let a deleted check pass)."""
    config_cls = GAMES[name].game_class().config_class
    for field in [f.name for f in dataclasses.fields(config_cls)]:
        for value in ("nonsense", -7, 2.5, [1, 2], object()):
            with pytest.raises(ValueError, match=field):
                GAMES[name].game_class()(**{field: value})


@pytest.mark.parametrize("name", available_games())
def test_step_after_end_engine(name: str) -> None:
    game = make_game(name, {})
    final = play_random(game, 5)[-1]
    assert final.is_terminal()
    with pytest.raises(ValueError, match=r"game is over|after the end"):
        final.apply(int(np.argmax(np.ones(game.num_actions))))


@pytest.mark.parametrize("name", available_games())
def test_unknown_reset_option(name: str) -> None:
    env = GAMES[name].env()
    with pytest.raises(ValueError, match=r"unknown reset option"):
        env.reset(seed=0, options={"no_such_option": 1})


@pytest.mark.parametrize("name", available_games())
@pytest.mark.parametrize("options", [5, [1], "moves", 1.5, True, 0, "", []])
def test_reset_options_that_are_not_a_dict(name: str, options: Any) -> None:
    """``reset(options=...)`` of anything but a dict (or None) is a ValueError naming it, in
    env() and in the engine, not a TypeError from a membership test."""
    with pytest.raises(ValueError, match=r"^options must be None or a dict of reset options, got "):
        GAMES[name].env().reset(seed=0, options=options)
    with pytest.raises(ValueError, match=r"options must be a dict, got "):
        make_game(name, {}).new_initial_state(np.random.default_rng(0), options)


@pytest.mark.parametrize("name", available_games())
def test_from_dict_rng_bit_generator_not_a_name(name: str) -> None:
    """An unhashable or non-string ``bit_generator`` is a ValueError naming the allowed
    generators, not a TypeError (found by the property test above)."""
    d = _STATES[name][0].to_dict()
    for junk in ([], {}, 3, None, ["PCG64"]):
        bad = json.loads(json.dumps(d))
        bad["rng"]["bit_generator"] = junk
        with pytest.raises(ValueError, match="bit_generator must be one of"):
            type(_STATES[name][0]).from_dict(bad)


@pytest.mark.parametrize("name", available_games())
def test_raw_env_action_must_be_an_integer(name: str) -> None:
    """The unwrapped env takes ints and numpy integers; a float, a string, a bool or None is a
    ValueError, never rounded or parsed into some other move."""
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    legal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"])[0])
    before = raw.state.to_dict()
    for junk in (legal + 0.5, float(legal), str(legal), None, [legal], True, np.False_):
        with pytest.raises(ValueError, match="action must be an integer index"):
            raw.step(junk)
        assert raw.state.to_dict() == before  # nothing was played
    raw.step(np.int64(legal))  # a numpy integer is fine
    assert raw.state.to_dict() != before


@pytest.mark.parametrize("bit_generator", sorted(BIT_GENERATORS))
def test_rng_state_round_trips_through_json(bit_generator: str) -> None:
    """``to_dict`` promises JSON: every bit generator ``rng_from_dict`` accepts is written as
    plain lists and ints (SFC64, Philox and MT19937 keep numpy arrays in their state) and
    continues the same stream once read back."""
    rng = np.random.Generator(getattr(np.random, bit_generator)(7))
    rng.random(5)
    back = rng_from_dict(json.loads(json.dumps(rng_to_dict(rng))))
    assert back.random(4).tolist() == rng.random(4).tolist()


@pytest.mark.parametrize("bit_generator", sorted(BIT_GENERATORS))
@pytest.mark.parametrize("word", [-1, 2**200])
def test_rng_state_word_out_of_range(bit_generator: str, word: int) -> None:
    """A negative or oversized word in a saved generator state is a ValueError on every numpy
    the project accepts (numpy < 2 wrapped it into range with only a DeprecationWarning, so an
    edited state loaded as some other stream)."""
    d = json.loads(json.dumps(rng_to_dict(np.random.Generator(getattr(np.random, bit_generator)(7)))))
    inner = d["state"]
    key = next(k for k in ("state", "key", "s") if k in inner)
    if isinstance(inner[key], list):
        inner[key][0] = word
    else:
        inner[key] = word
    with pytest.raises(ValueError, match="malformed rng state"):
        rng_from_dict(d)


@pytest.mark.parametrize("name", available_games())
def test_a_state_dicts_malformed_generator_is_named_once(name: str) -> None:
    """Every game words a saved state's broken generator alike, once. Old: Over and Out said
    ``malformed rng state: malformed rng state: KeyError('state')``."""
    from envs.core.registry import get_game

    state = get_game(name).game_class()().new_initial_state(np.random.default_rng(0))
    d = state.to_dict()
    del d["rng"]["state"]
    with pytest.raises(ValueError, match=r"^malformed rng state: KeyError\('state'\)$"):
        type(state).from_dict(d)


@pytest.mark.parametrize("name", available_games())
def test_engine_seats_and_generators_are_checked(name: str) -> None:
    """A seat outside ``[0, n)`` (a negative one read another seat's view), a bool or a string
    seat, and an ``rng`` that is not a numpy Generator are ValueErrors naming them."""
    game = make_game(name, {})
    n = game.num_players
    state = game.new_initial_state(np.random.default_rng(0))
    action = state.legal_actions()[0]
    for bad in (-1, n, True, "0", 1.0):
        for method, args in (
            (game.observe, (state, bad)),
            (game.resample_hidden, (state, bad, np.random.default_rng(0))),
            (game.private_text, (state, bad)),
            (game.infos, (state, bad)),
            (game.agent_name, (bad,)),
        ):
            with pytest.raises(ValueError, match=rf"^seat must be an int in \[0, {n - 1}\], got "):
                method(*args)
        with pytest.raises(ValueError, match=rf"^viewer must be an int in \[0, {n - 1}\], got "):
            game.public_action_string(state, action, bad)
    assert game.observe(state, np.int64(n - 1)).shape == tuple(game.observation_shape)
    for rng in (None, 5, np.random.RandomState(0)):
        with pytest.raises(
            ValueError, match=r"^rng must be a numpy Generator, e.g. np.random.default_rng\(seed\)"
        ):
            game.new_initial_state(rng)  # type: ignore[arg-type]


def test_play_match_arguments_are_checked() -> None:
    """``envs.core.arena.play_match``: no games, a negative seed or a spec string in place of
    a bot are ValueErrors naming them (0 games used to pass as an empty result, a string as
    an AttributeError)."""
    from envs.core.arena import play_match
    from envs.core.bots import make_bot

    name = available_games()[0]
    game = make_game(name, {})
    bot = make_bot(game, "random", GAMES[name].bots())
    bots = [bot] * game.num_players
    for games in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match=r"^games must be an int >= 1, got "):
            play_match(game, bots, games=games)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0, got -1"):
        play_match(game, bots, games=1, seed=-1)
    with pytest.raises(ValueError, match=r"^bots\[0\] must be a bot with act\(state, seat, rng\)"):
        play_match(game, ["random"] * game.num_players, games=1)  # type: ignore[list-item]
    assert play_match(game, bots, games=np.int64(2), seed=np.int64(1)).games == 2  # type: ignore[arg-type]


def test_a_config_built_directly_reads_nested_numpy_values() -> None:
    """``plain_fields`` turns numpy scalars inside a field's dict too (Over and Out's
    ``deck_counts``), as ``env()`` does."""
    from envs.over_and_out.config import Config

    counts = dict(Config().deck_counts)
    direct = Config(deck_counts={k: np.int64(v) for k, v in counts.items()})
    assert direct == Config(deck_counts=counts)
    assert all(type(v) is int for v in direct.deck_counts.values())


def test_a_config_of_another_game_is_named_by_its_module() -> None:
    """Every game's config class is called ``Config``: the error names both by module."""
    from envs.octi.rules import Config as OctiConfig
    from envs.over_and_out.config import Config as OaoConfig

    with pytest.raises(
        ValueError, match=r"config must be a envs\.octi\.rules\.Config, got envs\.over_and_out"
    ):
        GAMES["octi"].game_class()(config=OaoConfig())
    with pytest.raises(ValueError, match="pass either a config or parameters, not both"):
        GAMES["octi"].game_class()(config=OctiConfig(), variant="basic")
