"""Seeded fuzz of the OpenSpiel adapter (``envs.core.openspiel``) against the engine and the AEC
env: on random games of every game, variant and player count (the ``test_configs``, then random
parameters), the ``pyspiel`` state API (``current_player`` and the terminal constant, no chance
node, ``legal_actions`` / ``legal_actions_mask`` of every seat, ``action_to_string`` /
``string_to_action``, ``observation_tensor`` / ``observation_string`` of every seat,
Octi's ``information_state_string``, ``rewards`` / ``returns`` at every step, ``clone``,
``child``, ``serialize`` / ``deserialize_state``, pickling, ``resample_from_infostate``,
``history``) says what the engine and ``raw_env`` say, and the game's attributes bound what
happens (``min_utility`` / ``max_utility``, ``utility_sum``, ``max_game_length``). One
test per defect the round found (both fixed since) states the correct behaviour.
Skipped where the ``openspiel`` extra is not installed."""

from __future__ import annotations

import json
import pickle
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import envs.core.openspiel as eos  # noqa: E402
from envs.core.game import hides_nothing  # noqa: E402
from envs.core.registry import GAMES, get_game  # noqa: E402

NAMES = ["octi", "over_and_out", "otto_game_over", "otto_octopus"]


def _perfect(name: str) -> bool:
    return hides_nothing(get_game(name).game_class())


def _ej(engine_state: Any) -> str:
    return json.dumps(engine_state.to_dict(), sort_keys=True)


def _sparse(engine: Any, seat: int, obs: np.ndarray) -> str:
    """The documented observation string: the seat's name, then the indices of the non-zero
    entries of its observation, with the value where it is not 1."""
    words = [str(i) if obs[i] == 1 else f"{i}={float(obs[i])!r}" for i in np.flatnonzero(obs).tolist()]
    return f"{engine.agent_name(seat)}: {' '.join(words)}"


def _random_params(rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
    name = NAMES[int(rng.integers(4))]
    p: dict[str, Any] = {}
    if name == "octi":
        p["variant"] = str(rng.choice(["basic", "x_fast", "x_classic"]))
        p["max_turns"] = int(rng.integers(1, 40))
        for f in ("allow_reposition", "edgeless", "capture_to_reserve", "repetition_draw"):
            if rng.random() < 0.4:
                p[f] = True
    elif name == "over_and_out":
        p["num_players"] = int(rng.integers(2, 9))
        if rng.random() < 0.5:
            p["minus10_rule"] = "lose_below_zero"
        if rng.random() < 0.5:
            p["reward_mode"] = "winner_only"
        p["max_plays"] = int(rng.integers(1, 60))
        if rng.random() < 0.4:
            p["first_dealer"] = int(rng.integers(0, p["num_players"]))
        p["starting_chips"] = int(rng.integers(1, 5))
    elif name == "otto_game_over":
        p["num_players"] = int(rng.integers(1, 5))
        if p["num_players"] == 4 and rng.random() < 0.5:
            p["teams"] = True
        if rng.random() < 0.3:
            p["blind"] = True
        if rng.random() < 0.5:
            p["episode"] = "match"
        p["target_score"] = int(rng.integers(1, 12))
        p["max_matches"] = int(rng.integers(1, 3))
    else:
        p["num_players"] = int(rng.integers(1, 5))
        if rng.random() < 0.4:
            p["open_game"] = True
        if rng.random() < 0.4:
            p["simplified"] = True
        p["max_steps"] = int(rng.integers(1, 40))
    return name, p


def _lockstep(name: str, params: dict[str, Any], seed: int, max_steps: int) -> int:
    """Plays one seeded random game through ``pyspiel``, the engine and ``raw_env`` side by side,
    checking the contract at every step. Returns the number of moves played."""
    perfect = _perfect(name)
    spiel_params = {k: (eos.NONE if v is None else v) for k, v in params.items()}
    if not perfect:
        spiel_params["rng_seed"] = seed
    game = pyspiel.load_game(f"eightfold_{name}", spiel_params)
    engine = GAMES[name].game_class()(**params)
    n = engine.num_players
    lo, hi = game.min_utility(), game.max_utility()
    t = game.get_type()
    assert game.num_distinct_actions() == engine.num_actions
    assert game.max_game_length() == engine.max_game_length
    assert game.observation_tensor_shape() == list(engine.observation_shape)
    assert game.num_players() == n and t.min_num_players <= n <= t.max_num_players
    zero_sum = t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.utility_sum() == (0.0 if zero_sum else None)

    state = game.new_initial_state()
    if perfect:
        want = engine.new_initial_state(np.random.default_rng(0))
    else:  # the first initial state of a game object: default_rng([rng_seed, 0])
        want = engine.new_initial_state(np.random.default_rng([seed, 0]))
    assert _ej(state.engine) == _ej(want)
    env = GAMES[name].raw_env_class()(**params)
    env.reset(options={"state": want.to_dict()})
    rng = np.random.default_rng([seed, 99])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    history: list[int] = []
    previous = np.zeros(n)
    steps = 0
    while True:
        assert not state.is_chance_node() and not state.is_simultaneous_node()
        terminal = want.is_terminal()
        cp = state.current_player()
        assert state.is_terminal() == terminal
        assert cp == (pyspiel.PlayerId.TERMINAL if terminal else want.current_player())
        assert state.history() == history and state.move_number() == len(history)
        legal = state.legal_actions()
        mask = [int(x) for x in want.legal_mask()]
        assert legal == want.legal_actions() and state.legal_actions_mask() == mask
        for p in range(n):  # OpenSpiel: only the seat to move has legal actions
            assert state.legal_actions(p) == (legal if p == cp else [])
            assert state.legal_actions_mask(p) == (mask if p == cp else [0] * engine.num_actions)
        returns = state.returns()
        assert returns == [float(x) for x in want.returns()]
        assert all(lo - 1e-9 <= x <= hi + 1e-9 for x in returns)
        assert np.allclose(state.rewards(), np.asarray(returns) - previous)
        for p in range(n):
            obs = engine.observe(want, p).ravel()
            assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), obs)
            assert np.array_equal(env.observe(env.possible_agents[p])["observation"].ravel(), obs)
            if perfect:
                assert state.observation_string(p) == engine.render_ansi(want)
                assert state.information_state_string(p) == state.history_str()
            else:
                assert state.observation_string(p) == _sparse(engine, p, obs)
        copy = state.clone()
        assert _ej(copy.engine) == _ej(want) and copy.history() == history
        assert copy.rewards() == state.rewards()
        if steps % 4 == 0:
            for back in (game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state))):
                assert _ej(back.engine) == _ej(want) and back.history() == history
                assert back.rewards() == state.rewards()
        if not perfect and steps % 5 == 0:
            for p in range(n):  # a world p cannot tell from this one
                world = state.resample_from_infostate(p, sampler)
                assert world.observation_tensor(p) == state.observation_tensor(p)
                assert world.observation_string(p) == state.observation_string(p)
                assert world.current_player() == cp and world.history() == history
                assert world.returns() == returns and world.rewards() == state.rewards()
                if p == cp:
                    assert world.legal_actions() == legal
            assert _ej(state.engine) == _ej(want)  # resampling leaves the state alone
        if terminal:
            if zero_sum:
                assert abs(sum(returns)) < 1e-9
            assert steps <= game.max_game_length()
            with pytest.raises(ValueError, match=r"game is over|after the end"):
                state.apply_action(0)
            return steps
        if steps >= max_steps:
            return steps
        for a in legal[:: max(1, len(legal) // 6)]:  # notation round trip (spec §8)
            text = state.action_to_string(cp, a)
            assert text == want.action_to_string(a) == env.action_to_string(a)
            assert state.string_to_action(text) == a == state.string_to_action(cp, text)
        a = int(rng.choice(legal))
        child = state.child(a)
        want.apply(a)
        previous = np.asarray(returns)
        state.apply_action(a)
        history.append(a)
        assert _ej(child.engine) == _ej(want) and child.history() == history
        assert child.rewards() == state.rewards()
        env.step(a)  # rewards of the step, the AEC env's and OpenSpiel's (Over and Out: OAO knock-outs)
        for agent in env.agents:
            assert env.rewards[agent] == pytest.approx(state.rewards()[env.possible_agents.index(agent)])
        while (
            not want.is_terminal()
            and env.agents
            and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection])
        ):
            env.step(None)  # a seat knocked out takes its dead step
        if not want.is_terminal():
            assert env.agent_selection == env.possible_agents[want.current_player()]
        steps += 1


def _test_configs() -> list[Any]:
    return [
        pytest.param(name, dict(params), id=f"{name}-{i}")
        for name in NAMES
        for i, params in enumerate(GAMES[name].game_class().test_configs)
    ]


@pytest.mark.parametrize(("name", "params"), _test_configs())
def test_fuzz_pyspiel_state_is_the_engines_and_the_envs(name: str, params: dict[str, Any]) -> None:
    """Every test configuration: a seeded random game's first 40 moves through ``pyspiel``,
    the engine and ``raw_env`` agree on everything the contract names."""
    seed = sum(map(ord, name)) + len(params)
    _lockstep(name, params, seed, max_steps=40)


def test_fuzz_random_parameters_play_to_the_end() -> None:
    """Random parameters (short limits, so that games end): the contract holds to the end,
    where every return lies within ``[min_utility, max_utility]``, a zero-sum game sums to
    zero, and the game is no longer than ``max_game_length``."""
    rng = np.random.default_rng(2026)
    finished = 0
    for _ in range(14):
        name, params = _random_params(rng)
        steps = _lockstep(name, params, int(rng.integers(2**31)), max_steps=400)
        finished += steps < 400
    assert finished >= 10


@pytest.mark.parametrize("name", ["over_and_out", "otto_game_over", "otto_octopus"])
def test_fuzz_resampled_worlds_play_out_within_the_bounds(name: str) -> None:
    """A world from ``resample_from_infostate`` is a whole game: played to the end, each of its
    returns lies within the game's utility bounds and a zero-sum game sums to zero."""
    params = {"num_players": 3, "max_plays": 40} if name == "over_and_out" else {"num_players": 3}
    if name == "otto_game_over":
        params["target_score"] = 4
    game = eos.load_game(name, **params, rng_seed=11)
    lo, hi = game.min_utility(), game.max_utility()
    rng = np.random.default_rng(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    for p in range(3):
        world = state.resample_from_infostate(p, sampler)
        while not world.is_terminal():
            assert world.legal_actions()
            world.apply_action(int(rng.choice(world.legal_actions())))
        assert all(lo <= x <= hi for x in world.returns())
        assert len(world.history()) <= game.max_game_length()
        if game.utility_sum() is not None:
            assert abs(sum(world.returns())) < 1e-9


@pytest.mark.parametrize("name", ["over_and_out", "otto_game_over", "otto_octopus"])
def test_untouched_state_read_back_by_another_seed_is_the_same_game(name: str) -> None:
    """README, OpenSpiel: "reading a state back checks that the same game and parameters wrote
    it (``rng_seed`` aside: it seeds new deals only, and a state carries its own generator)".
    So a state read back by a game with another ``rng_seed`` is the state that was written,
    whether or not it was looked at before ``serialize()``."""
    writer = eos.load_game(name, rng_seed=3)
    reader = eos.load_game(name, rng_seed=9)
    state = writer.new_initial_state()
    text = state.serialize()  # not yet dealt: the deal is made on first use
    assert _ej(reader.deserialize_state(text).engine) == _ej(state.engine)


def test_state_written_by_another_openspiel_game_is_refused() -> None:
    """README, OpenSpiel: "reading a state back checks that the same game and parameters wrote
    it" (module docstring: "reading it back checks that the same game and parameters wrote
    it"). A state written by OpenSpiel's own Python tic-tac-toe is no state of Over and Out:
    ``ValueError``, and no state whose ``history()`` is not the engine's."""
    import open_spiel.python.games  # noqa: F401  (registers OpenSpiel's Python games)

    other = pyspiel.load_game("python_tic_tac_toe").new_initial_state()
    other.apply_action(0)
    game = eos.load_game("over_and_out", num_players=2)
    with pytest.raises(ValueError, match="not by this game"):
        game.deserialize_state(other.serialize())
