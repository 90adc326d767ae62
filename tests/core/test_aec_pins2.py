"""Pins from a second mutation round on ``envs/core/aec.py``, ``envs/core/arena.py`` and
``envs/core/game.py``: each test here failed on a plausible bug (a mutant) of the AEC adapter,
of ``env()``'s one-layer wrapper, of the match runner or of the engine protocol's shared
helpers that the rest of the suite let through (``/tmp/s48/aec2/mutants.md`` lists them).

The real games are driven through their PettingZoo ``env()`` (every game where the convention
holds for all); the scripted three-seat game of ``tests/core/test_mutation_gaps.py`` (moves
that pay, knock seats out and end the game on cue) covers the bookkeeping that no short random
game reaches, and its bidding game the match runner.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from envs.core.aec import EightfoldAECEnv, StandardWrapper
from envs.core.arena import MatchResult, play_match
from envs.core.registry import GAMES
from tests.core.test_mutation_gaps import BidGame, BidState, ConstBot, ScriptGame

GAME_NAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")


# ------------------------------------------------------------------- spaces
@pytest.mark.parametrize("name", GAME_NAMES)
def test_observation_space_bounds_are_the_games_observation_bounds(name: str) -> None:
    """The declared ``observation`` Box spans exactly ``Game.observation_bounds`` (Otto the
    Octopus: -1..1, its egocentric score differences are negative; the others 0..1), and
    the ``action_mask`` Box 0..1: a network normalising by the space would otherwise clip."""
    env = GAMES[name].env()
    lo, hi = env.unwrapped.game.observation_bounds
    assert (lo, hi) == ((-1.0, 1.0) if name == "otto_octopus" else (0.0, 1.0))
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert np.all(space["observation"].low == np.float32(lo))
        assert np.all(space["observation"].high == np.float32(hi))
        assert np.all(space["action_mask"].low == 0) and np.all(space["action_mask"].high == 1)


# -------------------------------------------------------------------- arena
def test_an_empty_match_result_reads_as_zeros() -> None:
    """``MatchResult()`` before any game (e.g. a result object pooled from chunks, none run
    yet): the rates are 0 (not a ZeroDivisionError) and its text prints a 0 mean return."""
    res = MatchResult()
    assert (res.win_rate, res.score) == (0.0, 0.0)
    assert str(res) == "0 games: 0 W / 0 D / 0 L (win rate 0.000, mean return 0.000)"


# ------------------------------------------------------------- render, str
@pytest.mark.parametrize("name", GAME_NAMES)
def test_human_render_prints_the_ansi_text_and_returns_none(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Gymnasium's ``"human"`` mode: ``render()`` prints the picture (the ``ansi`` text of the
    position) and returns ``None``; ``"ansi"`` returns that same text instead of printing it."""
    env = GAMES[name].env(render_mode="human")
    env.reset(seed=1)
    capsys.readouterr()
    assert env.render() is None
    text = env.unwrapped.game.render_ansi(env.unwrapped.state)
    assert capsys.readouterr().out == text + "\n"
    ansi = GAMES[name].env(render_mode="ansi")
    ansi.reset(seed=1)
    assert ansi.render() == text
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", GAME_NAMES)
def test_str_of_env_is_the_env_name(name: str) -> None:
    """PettingZoo's convention: ``str(env)`` is ``metadata["name"]`` (``octi_v0``), through
    ``env()``'s wrapper as through ``raw_env`` (logs and ``api_test`` print it)."""
    env = GAMES[name].env()
    assert str(env) == str(env.unwrapped) == f"{name}_v0" == env.metadata["name"]


# ----------------------------------------------------------- illegal moves
def _illegal_move_by(name: str, seat: int) -> tuple[Any, str, dict[str, np.ndarray]]:
    """``env()`` after seeded legal moves up to ``player_<seat>``'s first turn, then its first
    illegal action; returns the env, the mover and every agent's mask before that action."""
    env = GAMES[name].env()
    env.reset(seed=0)
    while env.agent_selection != f"player_{seat}":
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    masks = {a: env.observe(a)["action_mask"].copy() for a in env.agents}
    mover = env.agent_selection
    env.step(int(np.flatnonzero(masks[mover] == 0)[0]))
    return env, mover, masks


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_illegal_move_logs_pettingzoos_warning(name: str) -> None:
    """OCT-48 / OAO-43 / OGO-63 / OTP-44 (``TerminateIllegalWrapper``): ending the game on an
    illegal move also logs PettingZoo's "Illegal move made" warning, as the classic stack does."""
    from pettingzoo.utils.env_logger import EnvLogger

    EnvLogger.flush()
    _illegal_move_by(name, 0)
    assert any("Illegal move made" in str(m) for m in EnvLogger.mqueue)
    EnvLogger.flush()


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_after_an_illegal_move_every_agent_dead_steps_in_seat_order(name: str, seat: int) -> None:
    """OCT-48 / OAO-43 / OGO-63 / OTP-44: every agent is terminated and truncated; the dead
    steps go in seat order from ``player_0`` (PettingZoo's classic stack: the first done agent
    steps first, whoever moved), each seeing its own reward (-1 the mover, 0 the others);
    once they are taken ``agent_selection`` is the mover again and observing shows the
    position before the move, the mover's mask included (README: "as PettingZoo's classic
    envs do"), every other mask all zeros."""
    env, mover, masks = _illegal_move_by(name, seat)
    assert mover == f"player_{seat}"
    order, seen = [], {}
    while env.agents:
        agent = env.agent_selection
        assert env.terminations[agent] and env.truncations[agent]
        _obs, reward, term, trunc, _info = env.last()
        assert term and trunc
        order.append(agent)
        seen[agent] = reward
        env.step(None)
    assert order == env.possible_agents
    assert seen == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}
    assert env.agent_selection == mover
    for agent in env.possible_agents:
        np.testing.assert_array_equal(env.observe(agent)["action_mask"], masks[agent])
    assert masks[mover].any() and not any(masks[a].any() for a in env.possible_agents if a != mover)


# -------------------------------------------------------------- game.py
def test_legal_indices_are_the_nonzero_entries_ascending() -> None:
    """``legal_indices`` is ``np.flatnonzero(mask)``: every nonzero entry counts, whatever its
    sign or dtype (a mask read back from a file as int64 or bool scans the same)."""
    from envs.core.game import legal_indices

    mask = np.array([0, -1, 2, 0, 1, 0], dtype=np.int8)
    assert legal_indices(mask).tolist() == [1, 2, 4]
    assert legal_indices(mask.astype(bool)).tolist() == [1, 2, 4]
    assert legal_indices([0, 0, 3]).tolist() == [2]
    assert legal_indices(np.zeros(4, np.int8)).tolist() == []


@pytest.mark.parametrize("name", GAME_NAMES)
def test_numpy_seats_out_of_range_are_refused_like_python_ones(name: str) -> None:
    """``check_seat`` (every engine function taking a seat): a numpy integer seat is held to
    ``[0, n)`` like a Python int: ``np.int64(n)`` or ``np.int64(-1)`` would read past the
    seats or another seat's view."""
    from tests.core.helpers import make_game

    game = make_game(name, {})
    n = game.num_players
    state = game.new_initial_state(np.random.default_rng(0))
    for bad in (np.int64(n), np.int64(-1), np.int32(n + 3)):
        with pytest.raises(ValueError, match=rf"^seat must be an int in \[0, {n - 1}\], got "):
            game.observe(state, bad)
        with pytest.raises(ValueError, match=rf"^seat must be an int in \[0, {n - 1}\], got "):
            game.agent_name(bad)
    assert game.agent_name(np.int64(n - 1)) == f"player_{n - 1}"


# -------------------------------------------------------------------- arena
class _FixedState(BidState):
    """The bidding game paying a fixed return vector at the end, whatever was bid."""

    payout: tuple[float, ...] = ()

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.n)
        return np.asarray(self.payout, dtype=np.float64)


def _fixed_game(payout: tuple[float, ...]) -> BidGame:
    state_cls = type("Fixed", (_FixedState,), {"payout": payout})

    class FixedGame(BidGame):
        def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> Any:
            return state_cls(self.config.num_players, rng)

    return FixedGame(num_players=len(payout))


@pytest.mark.parametrize(
    ("payout", "outcome"),
    [
        ((0.001, 0.0, -0.001), (1, 0, 2)),  # a thousandth ahead wins, behind loses
        ((0.3, 0.1 + 0.2, -0.6), (0, 2, 1)),  # equal up to rounding: a draw
        ((0.25, -0.5, 0.25), (0, 2, 1)),
    ],
)
def test_match_outcomes_follow_the_returns_however_small_the_margin(
    payout: tuple[float, ...], outcome: tuple[int, int, int]
) -> None:
    """``play_match``: a return above every rival's is a win, one tying the best (up to float
    rounding: 0.1 + 0.2 ties 0.3) a draw, any lower one a loss, however small the margin; with
    seats rotated ``bots[0]`` gets each seat's return once per round of n games."""
    game = _fixed_game(payout)
    res = play_match(game, [ConstBot(game, 1) for _ in payout], games=3, seed=0)
    assert (res.wins, res.draws, res.losses) == outcome
    assert res.returns == list(payout)


# ------------------------------------------------------------ AEC adapter
def _scripted(script: dict[int, dict[str, Any]], **attrs: Any) -> EightfoldAECEnv:
    """The scripted three-seat game of ``test_mutation_gaps`` with extra ``Game`` attributes."""
    game_cls = type("G", (ScriptGame,), {"script": script, **attrs})
    env_cls = type("E", (EightfoldAECEnv,), {"game_class": game_cls, "metadata": {"name": "script_v0"}})
    env = env_cls()
    env.reset(seed=0)
    return env


def _seat_infos(self: Any, state: Any, seat: int) -> dict[str, Any]:
    return {"seat": seat, "t": state.t}


def test_infos_are_each_agents_own_from_the_game_after_every_step() -> None:
    """``Game.infos(state, seat)`` is per seat: ``env.infos[agent]`` (and ``last()``'s info) is
    the game's infos for that agent's own seat, refreshed at the reset and after every step."""
    env = StandardWrapper(_scripted({}, infos=_seat_infos))
    env.reset(seed=0)
    for t in range(4):
        assert env.infos == {f"player_{s}": {"seat": s, "t": t} for s in range(3)}
        assert env.last()[4] == {"seat": t % 3, "t": t}
        env.step(0)


def test_team_seats_pair_opposite_seats_only_in_a_4_player_team_game() -> None:
    """``team_seats``: OGO's 2v2 (``teams=True``, 4 players) pairs each seat with the one
    opposite (OGO-57, §3 seat 1: team A = seats 0 and 2, B = 1 and 3); solo with ``teams=True`` (accepted and ignored,
    OTTO Game Over's doc page) and 4 players without teams are every seat on its own."""
    from envs.core.game import team_seats
    from tests.core.helpers import make_game

    duo = make_game("otto_game_over", {"num_players": 4, "teams": True})
    assert [team_seats(duo, s) for s in range(4)] == [{0, 2}, {1, 3}, {2, 0}, {3, 1}]
    solo = make_game("otto_game_over", {"num_players": 1, "teams": True})
    assert team_seats(solo, 0) == frozenset({0})
    free = make_game("otto_game_over", {"num_players": 4})
    assert [team_seats(free, s) for s in range(4)] == [{0}, {1}, {2}, {3}]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_raw_env_before_reset_says_to_call_reset(name: str) -> None:
    """``raw_env`` (no order-enforcing wrapper) before its first ``reset()``: ``state``,
    ``snapshot()``, ``observe()``, ``legal_mask()`` and ``render()`` raise the adapter's
    ``RuntimeError("call reset() before using the environment")``, not an error from deep in
    the engine about a missing state."""
    raw = GAMES[name].raw_env_class()(render_mode="ansi")
    for call in (
        lambda: raw.state,
        raw.snapshot,
        lambda: raw.observe("player_0"),
        raw.legal_mask,
        raw.render,
    ):
        with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
            call()
    raw.reset(seed=0)
    assert raw.snapshot() == raw.state.snapshot()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_dead_agent_takes_none_and_an_action_out_of_space_still_asserts(name: str) -> None:
    """PettingZoo's ``AssertOutOfBoundsWrapper`` over the dead-step rule, once an illegal move
    (OCT-48 / OAO-43 / OGO-63 / OTP-44) has terminated everyone: for the dead agent an action
    outside the space fails the assert, one inside it is PettingZoo's "only valid action is
    None" ``ValueError``; neither takes the dead step, ``None`` does."""
    env, mover, _masks = _illegal_move_by(name, 0)
    for bad in (-1, env.action_space(mover).n, 1.5):
        with pytest.raises(AssertionError, match="^action is not in action space$"):
            env.step(bad)
    with pytest.raises(ValueError, match="^when an agent is dead, the only valid action is None$"):
        env.step(0)
    assert env.agent_selection == mover and env.agents == env.possible_agents
    env.step(None)
    assert mover not in env.agents


@pytest.mark.parametrize("name", GAME_NAMES)
def test_before_reset_the_aec_attributes_name_themselves(name: str) -> None:
    """``OrderEnforcingWrapper``'s message, kept by ``env()``: reading ``agent_selection``,
    ``agents``, ``rewards``, ``terminations``, ``truncations`` or ``infos`` (or calling
    ``last()``) before ``reset()`` raises ``AttributeError("<name> cannot be accessed before
    reset")``, not the raw env's missing-attribute error."""
    env = GAMES[name].env()
    for attr in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match=rf"^{attr} cannot be accessed before reset$"):
            getattr(env, attr)
    with pytest.raises(AttributeError, match=r"^agent_selection cannot be accessed before reset$"):
        env.last()
    env.reset(seed=0)
    assert env.agents == env.possible_agents and env.agent_selection == "player_0"


def test_rng_from_dict_refuses_a_non_dict_and_a_bit_generator_that_is_no_name() -> None:
    """``rng_from_dict`` (every ``from_dict``'s generator): ``ValueError`` naming the problem
    for a state that is not a dict, and for a ``bit_generator`` that is not one of the names
    (a list there is no ``TypeError: unhashable``); a clone from ``clone_rng`` is independent."""
    from envs.core.game import BIT_GENERATORS, clone_rng, rng_from_dict, rng_to_dict

    for bad in (["PCG64"], "PCG64", None):
        with pytest.raises(ValueError, match=rf"^rng state must be a dict, got {type(bad).__name__}$"):
            rng_from_dict(bad)  # type: ignore[arg-type]
    good = rng_to_dict(np.random.default_rng(3))
    names = sorted(BIT_GENERATORS)
    for name in (["PCG64"], 7, "numpy.random.PCG64", None):
        with pytest.raises(
            ValueError, match=rf"^rng bit_generator must be one of {re.escape(str(names))}, got "
        ):
            rng_from_dict({**good, "bit_generator": name})
    rng = np.random.default_rng(3)
    twin = clone_rng(rng)
    assert twin is not rng and twin.bit_generator is not rng.bit_generator
    first = twin.random(3).tolist()
    assert rng.random(3).tolist() == first  # the same stream, advanced separately


def test_a_refused_illegal_step_of_the_raw_env_keeps_the_movers_pending_reward() -> None:
    """``raw_env.step`` raises ``ValueError`` for an illegal move (README) and plays nothing;
    the reward paid to the mover since its last move (here 0.5, by its own first move) is
    still what ``last()`` reports afterwards, not silently dropped (the adapter's docstring:
    mid-game rewards "just work"). The step used to zero it before the engine refused."""
    from tests.core.test_mutation_gaps import MID_GAME_PAY

    env = _scripted(MID_GAME_PAY)
    for action in (0, 0, 0):
        env.step(action)
    assert env.agent_selection == "player_0" and env.last()[1] == 0.5
    with pytest.raises(ValueError, match="illegal 2"):
        env.step(2)
    assert env.state.t == 3 and env.agent_selection == "player_0"
    assert env.last()[1] == 0.5


@pytest.mark.parametrize("seed", [True, False, np.True_, 1.0, "0", None])
def test_match_seed_must_be_a_true_integer(seed: Any) -> None:
    """``play_match``'s seed names a published run: a bool (an int to Python), a float, a
    string or ``None`` is a ``ValueError`` naming it, never read as seed 1 / 0."""
    game = BidGame(num_players=2)
    bots = [ConstBot(game, 1), ConstBot(game, 1)]
    with pytest.raises(ValueError, match=rf"^seed must be an int >= 0, got {re.escape(repr(seed))}$"):
        play_match(game, bots, games=1, seed=seed)
    assert play_match(game, bots, games=1, seed=np.uint8(0)).games == 1


def test_the_default_clone_is_deep_and_carries_its_own_generator() -> None:
    """``GameState.clone``'s default (every game that does not write its own, e.g. a toy game
    for training): a deep, independent copy, the generator included, so the clone continues
    identically and playing it leaves the original as it was."""
    state = BidGame(num_players=3).new_initial_state(np.random.default_rng(5))
    state.apply(2)
    twin = state.clone()
    assert type(twin) is type(state) and twin.bids == [2]
    twin.apply(1)
    assert state.bids == [2] and twin.bids == [2, 1]
    assert twin.rng is not state.rng
    assert twin.rng.random(3).tolist() == state.rng.random(3).tolist()


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("agent", [0, "player_9", ("player_0",), ["player_0"]])
def test_an_unknown_agent_is_a_key_error_that_lists_the_agents(name: str, agent: Any) -> None:
    """``observe``, ``observation_space`` and ``action_space`` of an agent the env does not have
    raise PettingZoo's ``KeyError``, now saying which agents there are (it was ``KeyError: 0``
    for a seat index; an unhashable list gave ``TypeError: unhashable type``), on the wrapped
    env and the raw one alike."""
    env = GAMES[name].env()
    env.reset(seed=0)
    want = re.escape(f"unknown agent {agent!r}; this env's agents are {env.possible_agents}")
    for target in (env, env.unwrapped):
        for call in (target.observe, target.observation_space, target.action_space):
            with pytest.raises(KeyError, match=want):
                call(agent)
    assert set(env.observe(env.possible_agents[0])) == {"observation", "action_mask"}
