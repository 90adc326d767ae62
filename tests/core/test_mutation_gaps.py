"""Gaps found by mutation testing of ``envs/core``: each test here failed on a plausible bug
of the core (a mutant) that the rest of the suite let through.

The AEC adapter's PettingZoo bookkeeping is checked on a scripted three-seat game whose
moves pay rewards mid-game, knock seats out and end the game on cue, so every convention
(rewards of the last step, ``_cumulative_rewards``, masks of agents not to act, dead steps)
is exercised even where no real game happens to hit it in a short random run.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest

from envs.core.aec import EightfoldAECEnv, StandardWrapper
from envs.core.arena import play_game, play_match
from envs.core.bots import Bot, RandomBot, ScoringBot, make_bot, parse_bot_spec
from envs.core.config import check_choice, check_int, plain
from envs.core.game import TERMINAL, Game, GameState
from envs.core.mcts import MCTSBot
from envs.core.notation import canonical_text
from envs.core.playthrough import config_id, playthrough
from envs.core.registry import get_game, register_all
from tests.core.test_mcts import NimGame, TreeGame, _Stubs


# --------------------------------------------------------------------- scripted game
@dataclasses.dataclass(frozen=True)
class ScriptConfig:
    pass


class ScriptState(_Stubs):
    """Seats move in turn (knocked-out seats skipped); actions 0 and 1 are legal, 2 never.
    The ``t``-th move triggers ``script[t]``: ``pay`` (rewards added to the returns),
    ``out`` (a seat knocked out), ``end`` (the game ends; ``trunc``: by its length limit)."""

    def __init__(self, script: Mapping[int, Mapping[str, Any]], rng: np.random.Generator) -> None:
        self.script, self.rng = script, rng
        self.t, self.mover, self.over, self.trunc = 0, 0, False, False
        self.out: list[int] = []
        self.paid = np.zeros(3)

    def current_player(self) -> int:
        return TERMINAL if self.over else self.mover

    def legal_mask(self) -> np.ndarray:
        return np.zeros(3, np.int8) if self.over else np.array([1, 1, 0], np.int8)

    def apply(self, action: int) -> None:
        if self.over or action not in (0, 1):
            raise ValueError(f"illegal {action}")
        event = self.script.get(self.t, {})
        self.t += 1
        self.paid = self.paid + np.asarray(event.get("pay", (0, 0, 0)), dtype=np.float64)
        if "out" in event:
            self.out.append(event["out"])
        if event.get("end"):
            self.over, self.trunc = True, bool(event.get("trunc"))
            return
        nxt = (self.mover + 1) % 3
        while nxt in self.out:
            nxt = (nxt + 1) % 3
        self.mover = nxt

    def is_terminal(self) -> bool:
        return self.over

    def is_truncated(self) -> bool:
        return self.trunc

    def returns(self) -> np.ndarray:
        return self.paid.copy()

    def eliminated(self) -> frozenset[int]:
        return frozenset(self.out)

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t}


class ScriptGame(Game[Any, Any]):
    name: ClassVar[str] = "script"
    config_class: ClassVar[type[Any]] = ScriptConfig
    script: ClassVar[dict[int, dict[str, Any]]] = {}

    num_players = property(lambda self: 3)  # type: ignore[assignment]
    num_actions = property(lambda self: 3)  # type: ignore[assignment]
    observation_shape = property(lambda self: (3,))  # type: ignore[assignment]
    reward_range = property(lambda self: (-1.0, 1.0))  # type: ignore[assignment]
    max_game_length = property(lambda self: 50)  # type: ignore[assignment]

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        return ScriptState(self.script, rng)

    def observe(self, state: Any, seat: int) -> np.ndarray:
        obs = np.zeros(3, np.float32)
        obs[0] = float(seat == state.mover)
        return obs

    def render_ansi(self, state: Any) -> str:
        return f"t={state.t}"

    def render_rgb(self, state: Any) -> np.ndarray:
        return np.zeros((1, 1, 3), np.uint8)


def _raw(script: dict[int, dict[str, Any]]) -> EightfoldAECEnv:
    game_cls = type("G", (ScriptGame,), {"script": script})
    env_cls = type("E", (EightfoldAECEnv,), {"game_class": game_cls, "metadata": {"name": "script_v0"}})
    env = env_cls()
    env.reset(seed=0)
    return env


def _play(env: Any, actions: list[int | None]) -> None:
    for a in actions:
        env.step(a)


# ------------------------------------------------------------------- rewards
MID_GAME_PAY = {
    0: {"pay": (0.5, 0.0, -0.5)},  # player_0's first move pays player_0 (still playing)
    5: {"pay": (0.5, -1.0, 0.5), "end": True},
}


def test_rewards_are_those_of_the_last_step_only() -> None:
    """PettingZoo: ``env.rewards`` holds the rewards of the last step; a step that pays
    nothing shows zeros, not the previous step's rewards again."""
    env = _raw(MID_GAME_PAY)
    env.step(0)
    assert env.rewards == {"player_0": 0.5, "player_1": 0.0, "player_2": -0.5}
    env.step(0)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}


def test_last_rewards_sum_to_the_return() -> None:
    """The AEC loop's rewards (``last()``: what was paid since the agent last acted) add up
    to each agent's return: the mover's ``_cumulative_rewards`` restarts when it acts."""
    env = StandardWrapper(_raw(MID_GAME_PAY))
    env.reset(seed=0)
    seen = dict.fromkeys(env.possible_agents, 0.0)
    by_turn = []
    for agent in env.agent_iter():
        _obs, reward, term, trunc, _info = env.last()
        seen[agent] += reward
        by_turn.append((agent, reward))
        env.step(None if term or trunc else 0)
    assert seen == {"player_0": 1.0, "player_1": -1.0, "player_2": 0.0}
    assert by_turn[3] == ("player_0", 0.5)  # paid on its first move, seen on its next turn
    assert by_turn[6] == ("player_0", 0.5)  # not 1.0: the first 0.5 is not counted twice


# --------------------------------------------------------------------- masks
def _mask(env: Any, agent: str) -> list[int]:
    return [int(x) for x in env.observe(agent)["action_mask"]]


def test_no_mask_during_dead_steps() -> None:
    """While a knocked-out agent is selected for its dead step, every mask is all zeros (OAO-40:
    only the selected agent has one, and it has no move); the seat the engine has to move gets
    its mask once it is selected."""
    env = _raw({0: {"out": 0, "pay": (-1.0, 0.5, 0.5)}})
    env.step(0)  # player_0 knocks itself out
    assert env.agent_selection == "player_0" and env.terminations["player_0"]
    assert env.state.current_player() == 1
    assert [_mask(env, a) for a in env.agents] == [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    env.step(None)
    assert env.agent_selection == "player_1"
    assert _mask(env, "player_1") == [1, 1, 0]
    assert _mask(env, "player_2") == [0, 0, 0]


def test_no_mask_after_an_illegal_move_ended_the_game() -> None:
    """After ``env()`` ends the game on an illegal move every agent is done, the mover (the
    first dead agent to step) included: all masks are zero."""
    env = StandardWrapper(_raw({}))
    env.reset(seed=0)
    env.step(2)  # illegal for player_0
    assert env.agent_selection == "player_0"
    assert all(env.terminations[a] and env.truncations[a] for a in env.agents)
    assert all(_mask(env, a) == [0, 0, 0] for a in env.agents)
    _obs, reward, *_ = env.last()
    assert reward == -1.0


def test_observed_mask_is_the_callers_copy() -> None:
    """Editing the ``action_mask`` of an observation (e.g. masking moves further in a
    policy) does not change the env's legality check or later observations."""
    env = StandardWrapper(_raw({}))
    env.reset(seed=0)
    obs, *_ = env.last()
    obs["action_mask"][:] = 0
    assert _mask(env, "player_0") == [1, 1, 0]
    env.step(1)  # still legal: the game goes on
    assert env.agent_selection == "player_1" and not any(env.terminations.values())


def test_knocked_out_in_a_truncating_step_is_terminated_only() -> None:
    """A seat knocked out by the move that also ends the game by its length limit is
    terminated (it is out), the others truncated; no agent is flagged both ways."""
    env = _raw({1: {"out": 1, "end": True, "trunc": True, "pay": (0.5, -1.0, 0.5)}})
    env.step(0)
    env.step(0)  # player_1 knocked out, game truncated
    assert env.terminations == {"player_0": False, "player_1": True, "player_2": False}
    assert env.truncations == {"player_0": True, "player_1": False, "player_2": True}


def test_reset_after_a_dead_step_restores_every_agent() -> None:
    """A ``reset()`` in the middle of an episode whose knocked-out agent was already removed
    gives every agent back in ``agents`` and in each per-agent dict."""
    env = _raw({0: {"out": 0, "pay": (-1.0, 0.5, 0.5)}})
    env.step(0)
    env.step(None)  # player_0's dead step removes it
    assert "player_0" not in env.agents and "player_0" not in env.infos
    env.reset(seed=1)
    agents = ["player_0", "player_1", "player_2"]
    assert env.agents == agents
    for d in (env.rewards, env._cumulative_rewards, env.terminations, env.truncations, env.infos):
        assert sorted(d) == agents
    _obs, reward, term, trunc, info = env.last()
    assert (reward, term, trunc, info) == (0.0, False, False, {})


# ------------------------------------------------------------------- wrapper
def test_out_of_range_actions_assert_like_pettingzoo() -> None:
    """``AssertOutOfBoundsWrapper``: a negative index, ``n`` and ``None`` for an agent still
    playing fail the assert (never index the mask from the end or play a move)."""
    env = StandardWrapper(_raw({}))
    env.reset(seed=0)
    for bad in (-1, -3, 3, None, np.int64(-1)):
        with pytest.raises(AssertionError):
            env.step(bad)
    assert env.agent_selection == "player_0" and env.unwrapped.state.t == 0  # nothing played


def test_illegal_move_after_a_mid_game_reward_pays_exactly_minus_one() -> None:
    """``TerminateIllegalWrapper``: the mover's pending reward is dropped and it gets -1 (not
    -1 on top of what it was paid since its last move), the others keep theirs."""
    env = StandardWrapper(_raw(MID_GAME_PAY))
    env.reset(seed=0)
    _play(env, [0, 0, 0])  # player_0 was paid 0.5 by its own first move
    assert env.agent_selection == "player_0" and env.last()[1] == 0.5
    env.step(2)  # illegal
    assert env.last()[1] == -1.0
    assert env.unwrapped._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


def test_illegal_move_right_after_a_payment_pays_the_others_nothing_new() -> None:
    """``TerminateIllegalWrapper``: the step of an illegal move pays -1 to the mover and 0 to
    the others, even when the step before it paid them (PettingZoo classic's stack zeroes the
    rewards first); what was paid before stays in the cumulative rewards, counted once.
    Leaving the previous step's rewards in place paid them twice and passed every other test."""
    env = StandardWrapper(_raw({0: {"pay": (0.5, 0.0, -0.5)}}))
    env.reset(seed=0)
    env.step(0)  # player_0's move pays (0.5, 0, -0.5)
    assert env.agent_selection == "player_1"
    env.step(2)  # illegal, at once
    raw = env.unwrapped
    assert raw.rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert raw._cumulative_rewards == {"player_0": 0.5, "player_1": -1.0, "player_2": -0.5}
    assert all(raw.terminations.values())


def test_step_after_the_last_dead_step_only_warns() -> None:
    """``OrderEnforcingWrapper``: a ``step`` once every agent is gone warns and does nothing."""
    env = StandardWrapper(_raw({0: {"end": True, "pay": (1.0, -0.5, -0.5)}}))
    env.reset(seed=0)
    env.step(0)
    for _ in range(3):
        env.step(None)
    assert env.agents == []
    env.step(None)  # no exception
    env.step(0)
    assert env.agents == []


# --------------------------------------------------------------------- arena
@dataclasses.dataclass(frozen=True)
class BidConfig:
    num_players: int = 3


class BidState(ScriptState):
    """Each seat bids 0, 1 or 2 once, in seat order; the return is the bid minus the mean
    bid (the highest bid alone wins, equal highest bids draw)."""

    def __init__(self, n: int, rng: np.random.Generator) -> None:
        super().__init__({}, rng)
        self.n = n
        self.bids: list[int] = []

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.bids)

    def legal_mask(self) -> np.ndarray:
        return np.full(3, 0 if self.is_terminal() else 1, np.int8)

    def apply(self, action: int) -> None:
        if self.is_terminal() or action not in (0, 1, 2):
            raise ValueError(f"illegal {action}")
        self.bids.append(action)

    def is_terminal(self) -> bool:
        return len(self.bids) == self.n

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(self.n)
        bids = np.asarray(self.bids, dtype=np.float64)
        return bids - bids.mean()


class BidGame(ScriptGame):
    name: ClassVar[str] = "bid"
    config_class: ClassVar[type[Any]] = BidConfig
    num_players = property(lambda self: self.config.num_players)  # type: ignore[assignment]

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> Any:
        return BidState(self.config.num_players, rng)


class ConstBot(Bot):
    """Always bids ``bid``; remembers the seats it was asked to play."""

    def __init__(self, game: Game[Any, Any], bid: int) -> None:
        super().__init__(game)
        self.bid = bid
        self.seats: list[int] = []

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.seats.append(player)
        return self.bid


@pytest.mark.parametrize("n", [2, 3, 4])
def test_match_rotates_seats_and_scores_bots_zero(n: int) -> None:
    """``play_match``: in game g ``bots[0]`` sits in seat g mod n, and the result (wins,
    draws, losses, returns, score) is that bot's, wherever it sat."""
    game = BidGame(num_players=n)
    bots = [ConstBot(game, 2)] + [ConstBot(game, 1) for _ in range(n - 1)]
    res = play_match(game, bots, games=2 * n, seed=0)
    assert bots[0].seats == [g % n for g in range(2 * n)]
    assert (res.games, res.wins, res.draws, res.losses) == (2 * n, 2 * n, 0, 0)
    assert res.returns == pytest.approx([1.0 - 1.0 / n] * (2 * n))
    assert res.win_rate == res.score == 1.0
    # bots[0] outbid: every game a loss, whatever its seat
    low = [ConstBot(game, 0)] + [ConstBot(game, 1) for _ in range(n - 1)]
    res = play_match(game, low, games=n, seed=0)
    assert (res.wins, res.draws, res.losses) == (0, 0, n)


def test_match_draws_and_score() -> None:
    """A shared highest return is a draw; score = (wins + draws / 2) / games."""
    game = BidGame(num_players=3)
    res = play_match(game, [ConstBot(game, 2), ConstBot(game, 2), ConstBot(game, 0)], games=3, seed=0)
    assert (res.wins, res.draws, res.losses) == (0, 3, 0)
    assert res.score == 0.5 and res.win_rate == 0.0


def test_play_game_needs_one_bot_per_seat() -> None:
    game = BidGame(num_players=3)
    for count in (2, 4):
        with pytest.raises(ValueError, match="need 3 bots"):
            play_game(game, [ConstBot(game, 1) for _ in range(count)], seed=0)


# ---------------------------------------------------------------------- bots
class _Scored(ScoringBot):
    def __init__(self, game: Game[Any, Any], table: list[float]) -> None:
        super().__init__(game)
        self.table = table

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        return self.table[action]


def test_scoring_bot_plays_a_best_move_and_breaks_ties_at_random() -> None:
    """ScoringBot: only the highest-scoring legal moves are played, each of them sometimes."""
    game = BidGame()
    state = game.new_initial_state(np.random.default_rng(0))
    best = _Scored(game, [0.0, 1.0, 0.5])
    assert {best.act(state, 0, np.random.default_rng(s)) for s in range(20)} == {1}
    tied = _Scored(game, [1.0, 0.0, 1.0])
    assert tied.best_actions(state, 0, np.random.default_rng(0)) == [0, 2]
    assert {tied.act(state, 0, np.random.default_rng(s)) for s in range(40)} == {0, 2}


def test_random_bot_plays_every_legal_move() -> None:
    game = BidGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = RandomBot(game)
    assert {bot.act(state, 0, np.random.default_rng(s)) for s in range(60)} == {0, 1, 2}


def test_parse_bot_spec_values() -> None:
    """Spec values are read as int, then float, then bool (any case), else text."""
    name, params = parse_bot_spec(" mcts:sims=200, c=0.5,flag=True,off=FALSE,rollout=heuristic ")
    assert name == "mcts"
    assert params == {"sims": 200, "c": 0.5, "flag": True, "off": False, "rollout": "heuristic"}
    assert type(params["sims"]) is int and type(params["flag"]) is bool
    for bad in ("mcts:=5", "mcts: =5", "mcts:sims", ":sims=5"):
        with pytest.raises(ValueError, match="malformed"):
            parse_bot_spec(bad)


def test_make_bot_names_the_bad_parameter_and_the_allowed_ones() -> None:
    """An unknown bot parameter raises ValueError naming it and the parameters allowed; a
    factory's own TypeError (a missing parameter) is a ValueError too."""
    game = BidGame()
    with pytest.raises(ValueError, match=r"\['frobnicate'\].*allowed: \[.*'sims'"):
        make_bot(game, "mcts:frobnicate=1", {})
    with pytest.raises(ValueError, match=r"\['level'\].*takes none"):
        make_bot(game, "random:level=2", {"random": RandomBot})

    def needs_bid(game: Game[Any, Any], bid: int) -> Bot:
        return ConstBot(game, bid)

    assert isinstance(make_bot(game, "const:bid=1", {"const": needs_bid}), ConstBot)
    with pytest.raises(ValueError, match="bad parameters for bot 'const'"):
        make_bot(game, "const", {"const": needs_bid})


# ---------------------------------------------------------------------- mcts
def test_mcts_runs_exactly_its_simulation_budget() -> None:
    """``sims=k``: k simulations per move, each through one root edge."""
    game = NimGame(stones=12)
    state = game.new_initial_state(np.random.default_rng(0))
    for sims in (1, 7, 40):
        bot = MCTSBot(game, sims=sims)
        root = bot.search(state, 0, np.random.default_rng(0))
        assert bot.last_sims == root.visits == sims
        assert sum(v for v, _ in bot.root_stats(root, 0).values()) == sims


def test_mcts_time_budget_runs_at_least_one_simulation() -> None:
    """A time budget that is spent before the search starts still searches once."""
    game = NimGame(stones=12)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, time=1e-9)
    bot.act(state, 0, np.random.default_rng(0))
    assert bot.last_sims >= 1


def test_mcts_edge_values_are_scaled_returns_gained_after_the_move() -> None:
    """An edge's mean is the return its mover gains from the move on (rewards paid before
    do not count), scaled by the span of ``reward_range``."""
    nim = NimGame(stones=2)  # take 2 wins (+1), take 1 loses (-1); span 2
    bot = MCTSBot(nim, sims=20)
    root = bot.search(nim.new_initial_state(np.random.default_rng(0)), 0, np.random.default_rng(0))
    stats = bot.root_stats(root, 0)
    assert stats[1][1] == pytest.approx(0.5) and stats[0][1] == pytest.approx(-0.5)
    tree = TreeGame()  # after B player_0 was paid -1 and moves again: +0 or -1 more; span 10
    state = tree.new_initial_state(np.random.default_rng(0))
    state.apply(1)
    bot = MCTSBot(tree, sims=20)
    root = bot.search(state, 0, np.random.default_rng(0))
    stats = bot.root_stats(root, 0)
    assert stats[0][1] == pytest.approx(0.0) and stats[1][1] == pytest.approx(-0.1)


class _CountingRollout(Bot):
    """Uniform moves, counting how often the search asks for one."""

    calls = 0

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.calls += 1
        legal = np.flatnonzero(state.legal_mask())
        return int(legal[rng.integers(legal.size)])


@pytest.mark.filterwarnings("ignore:mcts.*no effect with depth=0:UserWarning")  # the sweep's depth-0 case
def test_mcts_rollout_depth_and_epsilon() -> None:
    """``depth=d``: at most d rollout moves per simulation (0: evaluate the leaf at once);
    ``epsilon``: the chance of a uniform move instead of the rollout bot's (1: never the bot)."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    for depth, eps, most in ((0, 0.0, 0), (2, 0.0, 20), (None, 1.0, 0)):
        bot_ = _CountingRollout(game)
        bot = MCTSBot(game, sims=10, rollout=bot_, depth=depth, epsilon=eps)
        bot.search(state, 0, np.random.default_rng(0))
        assert bot_.calls <= most
    bot_ = _CountingRollout(game)
    MCTSBot(game, sims=10, rollout=bot_, depth="full").search(state, 0, np.random.default_rng(0))
    assert bot_.calls >= 10  # epsilon 0: every rollout move is the bot's


# ------------------------------------------------- config, registry, playthrough
def test_config_checks_are_type_strict_and_inclusive() -> None:
    """A bool is not an int (nor 1 a True) for the config validators; bounds are inclusive."""
    check_int("n", 5, 1, 5)
    check_int("n", 1, 1, 5)
    for bad in (True, 6, 0, 2.0):
        with pytest.raises(ValueError, match="n must be an int in \\[1, 5\\]"):
            check_int("n", bad, 1, 5)
    check_choice("mode", False, [True, False])
    with pytest.raises(ValueError, match="mode must be one of"):
        check_choice("mode", 1, [True, False])
    with pytest.raises(ValueError, match="k must be one of"):
        check_choice("k", True, [1, 2])


def test_plain_reads_numpy_scalars_everywhere() -> None:
    out = plain({"a": [np.int64(2), (np.float32(0.5), np.bool_(True))], "b": np.int8(3)})
    assert out == {"a": [2, (0.5, True)], "b": 3}
    assert type(out["a"][0]) is int and type(out["a"][1][1]) is bool and type(out["b"]) is int


def test_get_game_accepts_every_documented_spelling() -> None:
    """Short name, env id or ``<name>_v0`` module name, surrounding spaces ignored."""
    for key in ("octi", " octi ", "eightfold/octi-v0", "octi_v0", "octi-v0", "envs.octi_v0"):
        assert get_game(key).name == "octi"
    with pytest.raises(ValueError, match="unknown game"):
        get_game("chess")


def test_config_id_is_independent_of_parameter_order() -> None:
    assert config_id({"b": 1, "a": "x y"}) == config_id({"a": "x y", "b": 1}) == "a=x-y_b=1"


def test_playthrough_stops_at_max_steps() -> None:
    text = playthrough("octi", {}, seed=0, max_steps=3)
    assert "# stopped after 3 steps" in text
    assert sum(line.startswith("[") for line in text.splitlines()) == 3


def test_unseeded_envs_draw_fresh_entropy() -> None:
    """``reset()`` with no seed ever given deals from fresh entropy: new envs differ."""
    deals = set()
    for _ in range(4):
        env = get_game("over_and_out").env()
        env.reset()
        deals.add(json.dumps(env.unwrapped.state.to_dict(), sort_keys=True))
    assert len(deals) > 1


def test_register_all_is_idempotent() -> None:
    """``import envs`` registered the ids already; registering again overrides nothing
    (PettingZoo warns on an overridden id)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_all()


def test_notation_rejects_every_line_break_and_control_space() -> None:
    """Each spec's §8: only single or repeated spaces separate words; a carriage return,
    vertical tab or form feed (ASCII whitespace other than the space) is malformed."""
    assert canonical_text("  Jump  B2 ne ", "x") == "jump b2 ne"
    for sep in ("\t", "\n", "\r", "\x0b", "\x0c"):
        with pytest.raises(ValueError, match="malformed"):
            canonical_text(f"jump{sep}b2", "x")


def test_play_match_counts_a_2v2_team_win_as_a_win() -> None:
    """``play_match`` in a 2v2 game: the partner opposite shares the team's return and is no
    rival, so a team win is a win (it used to count as a draw: "shares the maximum")."""
    from envs.core.bots import RandomBot
    from envs.core.registry import get_game

    game = get_game("otto_game_over").game_class()(num_players=4, teams=True, episode="match")
    res = play_match(game, [RandomBot(game)] * 4, 6, seed=1)
    decisive = sum(1 for r in res.returns if r != 0)
    assert res.wins + res.losses == decisive and res.draws == res.games - decisive


@pytest.mark.parametrize("name", ["otto_octopus", "otto_game_over"])
def test_play_match_solo_counts_by_the_sign_of_the_return(name: str) -> None:
    """Solo: no rival, so the sign of the return decides (OTTO Game Over's defeat, -1, is a
    loss; it used to count every solo game as a win), as the training view's ``outcome``."""
    from training.single_agent import outcome

    game = get_game(name).game_class()(num_players=1)
    res = play_match(game, [RandomBot(game)], 6, seed=0)
    signs = [(r > 0) - (r < 0) for r in res.returns]
    assert (res.wins, res.draws, res.losses) == (signs.count(1), signs.count(0), signs.count(-1))
    kinds = [outcome(np.array([r]), 0) for r in res.returns]
    assert (res.wins, res.draws, res.losses) == (kinds.count("win"), kinds.count("draw"), kinds.count("loss"))
    assert res.losses > 0  # random play loses at least one of these deals in both games


@pytest.mark.parametrize(
    ("name", "params", "count"), [("octi", {}, 3), ("over_and_out", {"num_players": 3}, 2)]
)
def test_play_match_needs_one_bot_per_seat(name: str, params: dict[str, Any], count: int) -> None:
    """Too many bots were silently dropped and too few failed with an IndexError mid-match."""
    game = get_game(name).game_class()(**params)
    with pytest.raises(ValueError, match=f"need {game.num_players} bots, one per seat, got {count}"):
        play_match(game, [RandomBot(game)] * count, 2)


def test_play_match_counts_games_cut_off_at_the_step_limit() -> None:
    """A game truncated at its step limit pays 0 to every seat: a draw by its returns, and
    counted in ``truncated`` too (no outcome of play)."""
    from envs.octi.game import OctiGame

    game = OctiGame(max_turns=4)
    table = get_game("octi").bots()
    bots = [make_bot(game, "random", table), make_bot(game, "greedy", table)]
    res = play_match(game, bots, games=4, seed=1)
    assert res.truncated == 4 and res.draws == 4 and "4 cut off at the step limit" in str(res)
    full = play_match(OctiGame(), bots, games=2, seed=1)
    assert full.truncated == 0 and "cut off" not in str(full)
