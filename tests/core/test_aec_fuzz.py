"""Fuzzing the PettingZoo AEC envs of every game as a hostile or careless user would
(``/tmp/s49/aec_fuzz``): every ``test_configs`` entry of every game played through ``env()``
and ``raw_env()`` with seeded random actions, hostile inputs thrown in at random points (ints of
every numpy dtype, 0-d and 1-element arrays, floats, bools, strings, ``None``, out-of-range
indices), one illegal move now and then, and the contract checked at every step:

* observations of every agent inside ``observation_space``; only the agent the engine has to
  move has a non-zero mask, and it is the engine's legal mask (OAO-40 for Over and Out);
* ``env()``: anything outside the action space fails PettingZoo's assert, an illegal index in
  the space ends the game with -1 to the mover and 0 to the others, everyone terminated and
  truncated, the engine state untouched (OCT-48 / OAO-43 / OGO-63 / OTP-44); a dead agent
  takes ``None`` only;
* ``raw_env()``: a non-integer or an illegal index raises ``ValueError`` and changes nothing;
* rewards over an episode sum to the engine's ``returns()``; the same seed plays the same game;
* ``reset()`` takes ``None`` and integers >= 0 (Python or numpy) as seeds and refuses the rest
  with a ``ValueError`` naming ``seed``; options ``None``, ``{}`` and PettingZoo's probe
  ``{"options": ...}`` pass, anything else raises ``ValueError``.

The tests at the end each pin a defect the fuzzing found (fixed since), stating the correct
behaviour.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES

GAME_NAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_logger() -> Iterator[None]:
    """PettingZoo logs a warning for every illegal move and every step after the end."""
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def _configs(name: str) -> list[dict[str, Any]]:
    return [dict(p) for p in GAMES[name].game_class().test_configs]


def _fingerprint(raw: Any) -> tuple[Any, ...]:
    """Everything a refused call must leave as it was."""
    return (
        json.dumps(raw.state.to_dict(), sort_keys=True),
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
    )


def _not_integers(legal: int) -> list[Any]:
    """Inputs that are no integer index (a bool is not one either)."""
    return [
        None,
        str(legal),
        float(legal),
        legal + 0.5,
        np.float32(legal),
        True,
        np.bool_(False),
        np.array([legal]),
        [legal],
        complex(legal),
        b"1",
        float("nan"),
    ]


def _out_of_range(n: int) -> list[Any]:
    return [-1, n, n + 7, 2**40, -(2**40), np.int64(-1), np.int32(n), np.int8(-1)]


def _as_integer(rng: np.random.Generator, a: int) -> Any:
    """``a`` as one of the integer types both envs take."""
    kinds = [
        int,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.intp,
        np.array,
    ]
    for _ in range(4):
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind is int or kind is np.array or a <= np.iinfo(kind).max:  # a small dtype cannot hold it
            return kind(a)
    return a


def _check_position(env: Any, raw: Any) -> None:
    state = raw.state
    selected = raw.agent_selection
    for key in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        assert set(getattr(raw, key)) == set(raw.agents), key
    for agent in raw.possible_agents:
        obs = env.observe(agent)
        assert raw.observation_space(agent).contains(obs), agent
        seat = raw._seat_of[agent]
        dead = raw.terminations.get(agent) or raw.truncations.get(agent)
        if agent == selected and state.current_player() == seat and not dead:
            np.testing.assert_array_equal(obs["action_mask"], state.legal_mask())
            assert obs["action_mask"].any()
        else:
            assert not obs["action_mask"].any(), agent


def _play(name: str, params: dict[str, Any], seed: int, wrapped: bool, illegal_at: int | None) -> list[Any]:
    """One seeded game with hostile inputs; returns the trajectory (for the same-seed check)."""
    env = GAMES[name].env(**params) if wrapped else GAMES[name].raw_env_class()(**params)
    raw = env.unwrapped
    n = raw.n_actions
    rng = np.random.default_rng([seed, 17])
    env.reset(seed=seed)
    received: dict[str, float] = defaultdict(float)
    trajectory: list[Any] = []
    illegal_mover = None
    steps = 0
    while raw.agents:
        assert steps <= raw.game.max_game_length + len(raw.possible_agents)
        if steps % 5 == 0:
            _check_position(env, raw)
        agent = raw.agent_selection
        obs, reward, term, trunc, _ = env.last()
        received[agent] += reward
        dead = term or trunc
        legal = np.flatnonzero(obs["action_mask"])
        if rng.random() < 0.12:  # a hostile input, refused without a trace
            pool = _out_of_range(n) + (_not_integers(int(legal[0])) if len(legal) else [])
            bad = pool[int(rng.integers(len(pool)))]
            if not (bad is None and dead):
                before = _fingerprint(raw)
                if wrapped and not dead:
                    expected: type[Exception] = AssertionError
                elif wrapped:  # a dead agent: PettingZoo's assert, then its "only None" ValueError
                    expected = ValueError if raw.action_space(agent).contains(bad) else AssertionError
                else:
                    expected = ValueError
                with pytest.raises(expected):
                    env.step(bad)
                assert _fingerprint(raw) == before, repr(bad)
        if dead:
            env.step(None)
            trajectory.append(None)
        elif illegal_at is not None and steps == illegal_at and illegal_mover is None:
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            a = int(illegal[int(rng.integers(len(illegal)))])
            if wrapped:
                before_state = json.dumps(raw.state.to_dict(), sort_keys=True)
                env.step(_as_integer(rng, a))
                illegal_mover = agent
                assert all(raw.terminations.values()) and all(raw.truncations.values())
                assert raw.rewards[agent] == -1 and all(v == 0 for b, v in raw.rewards.items() if b != agent)
                assert json.dumps(raw.state.to_dict(), sort_keys=True) == before_state
                received[agent] = 0.0  # PettingZoo's wrapper drops the mover's pending reward
            else:
                before = _fingerprint(raw)
                with pytest.raises(ValueError, match=r"illegal action"):
                    env.step(_as_integer(rng, a))
                assert _fingerprint(raw) == before
            trajectory.append(("illegal", a))
        else:
            a = int(legal[int(rng.integers(len(legal)))])
            env.step(_as_integer(rng, a))
            trajectory.append(a)
        steps += 1
    returns = raw.state.returns()
    for agent in raw.possible_agents:
        if illegal_mover is None:
            assert received[agent] == pytest.approx(returns[raw._seat_of[agent]], abs=1e-9), agent
        elif agent == illegal_mover:
            assert received[agent] == -1.0
    for agent in raw.possible_agents:  # the observations of a finished game stay in their space
        assert raw.observation_space(agent).contains(env.observe(agent))
    return trajectory


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_play_with_hostile_inputs_keeps_the_contract(name: str) -> None:
    for ci, params in enumerate(_configs(name)):
        for seed in (ci, ci + 100):
            wrapped = seed == ci  # each config through env() and through the raw env
            illegal_at = 3 + seed % 7 if seed % 3 == 0 else None
            first = _play(name, params, seed, wrapped, illegal_at)
            if seed == ci:  # the same seed (and policy stream) plays the same game
                assert _play(name, params, seed, wrapped, illegal_at) == first


@pytest.mark.parametrize("name", GAME_NAMES)
def test_reset_seeds_and_options_of_every_kind(name: str) -> None:
    env = GAMES[name].env()
    env.reset(seed=7)
    deal = json.dumps(env.unwrapped.state.to_dict(), sort_keys=True)
    for same in (np.int64(7), np.uint8(7), np.int8(7), np.array(7)):
        env.reset(seed=same)
        assert json.dumps(env.unwrapped.state.to_dict(), sort_keys=True) == deal, repr(same)
    for fine in (None, 0, 2**64, 2**200):
        env.reset(seed=fine)
        assert env.agents == env.possible_agents
    for bad in (-1, np.int8(-3), True, np.bool_(False), 1.0, 7.5, np.float64(7), "7", np.array([7]), [7]):
        before = _fingerprint(env.unwrapped)
        with pytest.raises(ValueError, match=r"^seed must be None or an integer >= 0, got "):
            env.reset(seed=bad)
        assert _fingerprint(env.unwrapped) == before
    for options in (None, {}, {"options": 1}, {"state": None}):
        env.reset(seed=0, options=options)
    for options in ({"zzz": 1}, {1: 2}, {None: 0}, [], "x", 3, {"state": "x"}, {"state": 3}):
        with pytest.raises(ValueError, match="option"):
            env.reset(seed=0, options=options)
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['zzz'\]; allowed: ") as info:
        env.reset(options={"zzz": 1})
    for key in GAMES[name].game_class().reset_options:  # the message lists every allowed key
        assert repr(key) in str(info.value)


@pytest.mark.parametrize(
    ("name", "options", "match"),
    [
        ("octi", {"moves": "prong c2 N"}, "option 'moves' must be a list of notation strings"),
        ("octi", {"moves": ["prong c2 N", 5]}, "option 'moves' must be a list of notation strings"),
        ("octi", {"moves": ["xyz"]}, r"option 'moves'\[0\] 'xyz': malformed Octi action"),
        ("over_and_out", {"deck_top": "5"}, "deck_top must be a list of card tokens"),
        ("over_and_out", {"deck_top": [5]}, "deck_top holds 5, not a card token"),
        ("over_and_out", {"tiptop_top": 22}, "tiptop_top must be a list of Tip Top values"),
        ("over_and_out", {"tiptop_top": [22.0]}, r"tiptop_top holds 22\.0, not a Tip Top value"),
        ("over_and_out", {"tiptop_top": [True]}, "tiptop_top holds True, not a Tip Top value"),
        ("over_and_out", {"tiptop_top": [22, 22]}, "tiptop_top names the Tip Top card 22 twice"),
        ("otto_game_over", {"position": 5}, "position must be a dict"),
        ("otto_octopus", {"position": []}, "position must be a dict"),
    ],
)
def test_documented_reset_options_with_bad_values_name_the_option(
    name: str, options: dict[str, Any], match: str
) -> None:
    env = GAMES[name].env()
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options=options)


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("mode", [None, "ansi", "rgb_array", "human"])
def test_render_before_reset_and_after_the_end(name: str, mode: str | None, capsys: Any) -> None:
    """``env()`` refuses ``render()`` before ``reset()`` (order enforced); after a game ended by
    an illegal move and its dead steps, every mode still renders the position before it."""
    env = GAMES[name].env(render_mode=mode)
    with pytest.raises(AssertionError, match="reset"):
        env.render()
    env.reset(seed=1)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    for _agent in env.agent_iter():
        env.step(None)
    if mode is None:
        with pytest.warns(UserWarning, match="render_mode"):
            out = env.render()
    else:
        out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and out
    elif mode == "rgb_array":
        assert out.dtype == np.uint8 and out.ndim == 3
    else:
        assert out is None
    capsys.readouterr()


# -------------------------------------------------------------- defects, fixed
@pytest.mark.parametrize("name", ["over_and_out", "otto_octopus"])
def test_a_refused_reset_leaves_the_seed_stream_alone(name: str) -> None:
    """``reset(seed=s)`` starts a stream that later ``reset()`` calls continue, "so a run seeded
    once repeats" (README, ``EightfoldAECEnv.reset``). A ``reset`` refused with ``ValueError`` (bad
    options) must not restart or advance that stream: the next ``reset()`` deals as if the bad
    call had never been made."""
    clean = GAMES[name].raw_env_class()()
    clean.reset(seed=5)
    clean.reset()
    env = GAMES[name].raw_env_class()()
    env.reset(seed=5)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(seed=1, options={"zzz": 1})
    with pytest.raises(ValueError, match="options must be None or a dict"):
        env.reset(options="x")
    env.reset()
    assert env.state.to_dict() == clean.state.to_dict()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_raw_env_step_and_last_before_reset_say_to_call_reset(name: str) -> None:
    """``state``, ``observe()``, ``render()`` ... of a ``raw_env`` never reset raise the adapter's
    ``RuntimeError("call reset() before using the environment")`` (tests/core/test_aec_pins2.py);
    ``step()`` and ``last()`` raise ``AttributeError: 'raw_env' object has no attribute
    'agent_selection'`` instead."""
    raw = GAMES[name].raw_env_class()()
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        raw.step(0)
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        raw.last()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_raw_env_step_after_the_episode_is_a_clear_error(name: str) -> None:
    """Once every agent has taken its dead step, ``raw_env.step(0)`` (an action after the end:
    "raw_env ... raises ValueError ... for an illegal move", README) raises
    ``KeyError('player_0')`` from the adapter's ``self.terminations[agent]``."""
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in raw.agent_iter():
        obs, _, term, trunc, _ = raw.last()
        raw.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not raw.agents
    with pytest.raises(ValueError, match=r"after the episode ended"):
        raw.step(0)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_huge_action_fails_the_out_of_bounds_assert(name: str) -> None:
    """README: through ``env()`` "an out-of-range action fails an assert"; an index of 2**63 or
    more raises ``OverflowError: Python int too large to convert to C long`` (Gymnasium's
    ``Discrete.contains``), a message that names neither the action nor the space."""
    env = GAMES[name].env()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="^action is not in action space$"):
        env.step(2**63)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_env_takes_a_legal_numpy_uint64_action(name: str) -> None:
    """README: ``StandardWrapper`` "takes a Python or numpy integer"; ``raw_env`` plays
    ``np.uint64(a)`` for a legal ``a``, ``env()`` fails "action is not in action space" on it
    (Gymnasium's ``Discrete.contains`` refuses uint64, which cannot cast to int64 safely)."""
    env = GAMES[name].env()
    env.reset(seed=0)
    obs, *_ = env.last()
    action = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(np.uint64(action))
    assert env.unwrapped._cumulative_rewards[env.possible_agents[0]] == 0.0


@pytest.mark.parametrize("name", GAME_NAMES)
def test_raw_env_refuses_torch_bools_and_one_element_tensors(name: str) -> None:
    """README: ``raw_env`` "takes an int or a numpy integer and raises ValueError for anything
    else"; ``envs.core.aec._index``: "a bool is ... never an action here". ``operator.index``
    turns ``torch.tensor(True)`` into 1 and ``torch.tensor([[a]])`` into ``a``, so raw_env plays
    action 1 for a bool tensor (Octi) or refuses it as "illegal action 1" (the others), and
    takes a batch of one (``np.array([a])`` is refused)."""
    torch = pytest.importorskip("torch")
    for bad in (torch.tensor(True), torch.tensor([True])):
        raw = GAMES[name].raw_env_class()()
        raw.reset(seed=0)  # Octi: index 1 (prong NE of pod 0) is legal here and gets played
        before = _fingerprint(raw)
        with pytest.raises(ValueError, match="action must be an integer index"):
            raw.step(bad)
        assert _fingerprint(raw) == before
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    legal = int(np.flatnonzero(raw.legal_mask())[0])
    with pytest.raises(ValueError, match="action must be an integer index"):
        raw.step(torch.tensor([[legal]]))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_failed_first_reset_keeps_the_order_enforcement(name: str) -> None:
    """``env()``: "calls before ``reset`` raise" with the order-enforcing messages
    (``agents cannot be accessed before reset``, ``reset() needs to be called before step``).
    After a first ``reset()`` refused with ``ValueError`` the env was never reset, but those
    calls fail with ``'raw_env' object has no attribute 'agents'`` instead."""
    env = GAMES[name].env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(AttributeError, match="^agents cannot be accessed before reset$"):
        _ = env.agents
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)
