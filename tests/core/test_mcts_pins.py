"""Pins found by a mutation round on ``envs/core/mcts.py``: each test here failed on a
plausible bug of the ``mcts`` bot (a mutant) that the rest of the suite let through.

They check the documented behaviour directly, on the tiny games of ``test_mcts.py`` or on
hand-made tree nodes: the UCB terms and the root choice, the prior's scale, first expansion,
fading bias and widening schedule, the time budget (on a fake clock, never the real one),
one fresh determinization per simulation, the seed, a lone legal move, max^n over a
multi-step turn, capped rollouts of games without an ``evaluate``, the core defaults and the
simulations/s measurement.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

from envs.core import mcts as mcts_module
from envs.core.bots import ScoringBot, make_bot
from envs.core.game import Game, GameState
from envs.core.mcts import MCTSBot, _Node, measure_sims_per_second
from tests.core.test_mcts import HighCardGame, HighCardState, NimGame, TreeGame, TreeState, _search


class _Prefers(ScoringBot):
    """Scores an action by its closeness to ``favourite`` (0 for it, -1 a step away, ...)."""

    def __init__(self, game: Game[Any, Any], favourite: int) -> None:
        super().__init__(game)
        self.favourite = favourite

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        return -float(abs(action - self.favourite))


class _FakeClock:
    """A stand-in for the module's ``time``: each ``perf_counter()`` call is ``step`` s later."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def perf_counter(self) -> float:
        now = self.now
        self.now += self.step
        return now


def _node(visits: int, total: float, avail: int) -> _Node:
    node = _Node()
    node.visits, node.total, node.avail = visits, total, avail
    return node


# ------------------------------------------------------------------------- selection
def test_the_exploration_constant_c_weighs_the_exploration_term() -> None:
    """``c`` scales ``sqrt(log(avail) / visits)``: a well-tried edge worth 0.5 beats a rarely
    tried one worth 0.2 with ``c=0.1``, and loses to it with ``c=2``. A bot that ignored its
    ``c`` (the spec's ``mcts:c=...``) would pick the same edge both times."""
    game = NimGame(stones=2)  # actions 0 and 1 legal for player 0
    world = game.new_initial_state(np.random.default_rng(0))
    picks = []
    for c in (0.1, 2.0):
        node = _Node()
        node.visits = 20
        node.children.update({0: _node(10, 5.0, 19), 1: _node(2, 0.4, 19)})
        _, action, expanded = MCTSBot(game, sims=10, c=c)._select(node, world, 0, np.random.default_rng(0))
        assert not expanded
        picks.append(action)
    assert picks == [0, 1]


def test_the_exploration_term_divides_by_the_edges_own_visits() -> None:
    """UCB is ``mean + c * sqrt(log(avail) / visits)``: with ``c=1`` and both edges available
    10 times, an edge tried once worth -0.4 (1.12) beats one tried 9 times worth 0.4 (0.91).
    Dividing by ``visits + 1`` (0.67 against 0.88) would under-explore the rarely tried edge."""
    game = NimGame(stones=2)
    world = game.new_initial_state(np.random.default_rng(0))
    node = _Node()
    node.visits = 10
    node.children.update({0: _node(1, -0.4, 9), 1: _node(9, 3.6, 9)})
    _, action, expanded = MCTSBot(game, sims=10, c=1.0)._select(node, world, 0, np.random.default_rng(0))
    assert (action, expanded) == (0, False)


def test_only_edges_legal_in_the_sampled_world_are_available_or_chosen() -> None:
    """An edge created in another determinization (here action 2, illegal with 2 stones) is
    neither counted as available nor chosen, however good its mean: while a legal move is
    untried (expansion) and once all are tried (UCB). Counting it would inflate its
    exploration credit; choosing it would apply an illegal move."""
    game = NimGame(stones=2)  # actions 0 and 1 legal for player 0
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10)
    node = _Node()
    node.visits = 10
    node.children.update({0: _node(5, 0.0, 9), 2: _node(5, 5.0, 9)})
    _, action, expanded = bot._select(node, world, 0, np.random.default_rng(0))
    assert (action, expanded) == (1, True)
    assert (node.children[0].avail, node.children[2].avail) == (10, 9)
    node.children[1] = _node(1, 0.0, 1)
    _, action, expanded = bot._select(node, world, 0, np.random.default_rng(0))
    assert action in (0, 1) and not expanded
    assert (node.children[0].avail, node.children[1].avail, node.children[2].avail) == (11, 2, 9)


def test_the_progressive_bias_fades_as_an_edge_is_visited() -> None:
    """The prior adds ``bias * b / (visits + 1)``: after one visit each the prior's favourite
    (b = 0) is followed although the other edge scored better, after 50 visits each the
    better mean wins. A bias that never faded would let the prior overrule the search for good."""
    game = NimGame(stones=2)
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10, prior=_Prefers(game, 0))
    for visits, expected in ((1, 0), (50, 1)):
        node = _Node()
        node.visits = 2 * visits
        node.bias = {0: 0.0, 1: -1.0}
        node.children.update(
            {0: _node(visits, 0.2 * visits, 2 * visits), 1: _node(visits, 0.3 * visits, 2 * visits)}
        )
        _, action, _ = bot._select(node, world, 0, np.random.default_rng(0))
        assert action == expected, visits


def test_prior_scores_are_scaled_to_minus_one_zero_with_the_best_at_zero() -> None:
    """A node's prior is the scoring bot's scores mapped onto [-1, 0] (best 0, worst -1)."""
    game = NimGame(stones=30)
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10, prior=_Prefers(game, 2))
    bias = bot._bias(_Node(), world, 0, [0, 1, 2], np.random.default_rng(0))
    assert bias == pytest.approx({0: -1.0, 1: -0.5, 2: 0.0})


def test_the_first_expansion_is_the_priors_favourite() -> None:
    """With a prior a new node expands its best move by the prior first: one simulation
    tries (and so plays) exactly that move, whatever the seed."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=1, prior=_Prefers(game, 2))
    for seed in range(3):
        action, stats = _search(bot, state, seed)
        assert (action, set(stats)) == (2, {2})


def test_widening_admits_a_third_move_at_the_fifth_visit() -> None:
    """``widen=1``: a node visited n times considers its ceil(sqrt(n + 1)) best moves, so the
    root tries 1 move in 1 simulation, 2 in 2-4 and a third in the fifth."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    for sims, tried in ((1, {0}), (2, {0, 1}), (4, {0, 1}), (5, {0, 1, 2})):
        bot = MCTSBot(game, sims=sims, prior=_Prefers(game, 0), widen=1.0)
        assert set(bot.root_stats(bot.search(state, 0, np.random.default_rng(0)), 0)) == tried, sims


# A multi-step turn: player 0 picks X or Y. After X it moves again: +1 to it (-1 to player 1) or
# the reverse; Y ends the game with +0.5 to it. Max^n with the true mover at each node: X (+1).
TWICE = (0, [((0, 0, 0), (0, [((1, -1, 0), None), ((-1, 1, 0), None)])), ((0.5, 0, -0.5), None)])


class _TwiceState(TreeState):
    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.node = TWICE


class _TwiceGame(TreeGame):
    def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> Any:
        return _TwiceState(rng)


def test_a_second_move_in_the_same_turn_maximises_the_same_players_return() -> None:
    """Each node maximises the return of the player who moves there, read from the sampled
    world, not guessed from turn order: player 0's second move is its own, so X (then +1) beats
    Y (+0.5). A search that assumed the turn passes after every move would back up player 1's
    return at that node, expect -1 after X and play Y."""
    game = _TwiceGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=100)
    action, stats = _search(bot, state, 0)
    assert action == 0 and stats[0][1] > 0.05  # X's mean nears +1 / span 10


# ------------------------------------------------------------------------ root choice
def test_the_root_plays_the_most_visited_move_ties_to_the_better_mean_then_lowest_index() -> None:
    """The move played is the most visited; among equally visited ones the better mean,
    then the lowest index; player 1's own edges are the ones read (keys ``1 * A + a``).
    Choosing by mean, or breaking ties toward the first or the last move, plays another move."""
    bot = MCTSBot(NimGame(stones=9), sims=10)  # 3 actions
    legal = np.array([0, 1, 2])
    root = _Node()
    root.children.update({0: _node(5, 1.0, 14), 1: _node(5, 2.0, 14), 2: _node(4, 4.0, 14)})
    assert bot._best_root_action(root, 0, legal) == 1  # not 2 (best mean), not 0 (first of the tie)
    root.children[1].total = 1.0  # a full tie between 0 and 1: the lowest index
    assert bot._best_root_action(root, 0, legal) == 0
    mover1 = _Node()
    mover1.children.update({0: _node(9, 0.0, 9), 3: _node(1, 0.0, 9), 5: _node(8, 0.0, 9)})
    assert bot._best_root_action(mover1, 1, legal) == 2  # player 0's edge 0 is not player 1's


def test_player_one_plays_its_winning_move_and_reports_its_own_visits() -> None:
    """At a Nim position where player 1 is to move (6 stones: take 2), ``act`` and
    ``act_with_visits`` read player 1's root edges: the winning move, all visits counted."""
    game = NimGame(stones=7)
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(0)
    assert state.current_player() == 1
    bot = MCTSBot(game, sims=300)
    action, legal, visits = bot.act_with_visits(state, 1, np.random.default_rng(0))
    assert action == 1 == bot.act(state, 1, np.random.default_rng(0))
    assert legal.tolist() == [0, 1, 2] and visits.sum() == 300 and int(np.argmax(visits)) == 1


def test_act_with_visits_plays_the_move_act_plays_on_a_tie_of_visits() -> None:
    """Two simulations at 2 stones try each move once: taking 2 wins, taking 1 loses. Both
    ``act`` and ``act_with_visits`` play the winning move (the better mean breaks the tie of
    visits), and the visits reported are one each; a first-of-the-argmax choice would lose."""
    game = NimGame(stones=2)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=2)
    action, legal, visits = bot.act_with_visits(state, 0, np.random.default_rng(0))
    assert (action, legal.tolist(), visits.tolist()) == (1, [0, 1], [1.0, 1.0])
    assert bot.act(state, 0, np.random.default_rng(0)) == 1


def test_a_lone_legal_move_is_played_without_a_search() -> None:
    """One legal move: played at once, ``last_sims`` 0 (not the last search's count) and
    ``act_with_visits`` reports it with a single visit."""
    game = NimGame(stones=9)
    bot = MCTSBot(game, sims=20)
    bot.act(game.new_initial_state(np.random.default_rng(0)), 0, np.random.default_rng(0))
    assert bot.last_sims == 20
    lone = NimGame(stones=1).new_initial_state(np.random.default_rng(0))
    assert bot.act(lone, 0, np.random.default_rng(0)) == 0 and bot.last_sims == 0
    action, legal, visits = bot.act_with_visits(lone, 0, np.random.default_rng(0))
    assert (action, legal.tolist(), visits.tolist(), bot.last_sims) == (0, [0], [1.0], 0)


# --------------------------------------------------------------------------- budget
def test_the_time_budget_is_in_seconds_and_caps_a_simulation_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a clock that moves 0.25 s per reading, ``time=0.9`` runs 4 simulations (read between
    simulations), ``time=0.4`` 2, and ``sims=100,time=0.9`` stops at 4 too (whichever ends
    first). A budget read as milliseconds, or a time ignored beside ``sims``, runs another count."""
    game = NimGame(stones=20)
    state = game.new_initial_state(np.random.default_rng(0))
    cases: list[tuple[dict[str, Any], int]] = [
        ({"time": 0.9}, 4),
        ({"time": 0.4}, 2),
        ({"sims": 100, "time": 0.9}, 4),
    ]
    for params, expected in cases:
        monkeypatch.setattr(mcts_module, "time", _FakeClock(0.25))
        bot = MCTSBot(game, **params)
        root = bot.search(state, 0, np.random.default_rng(0))
        assert bot.last_sims == root.visits == expected, params


class _TimedNim(NimGame):
    mcts_defaults: ClassVar[dict[str, Any]] = {"time": 5.0}


def test_a_budget_in_the_spec_replaces_a_tuned_time_budget() -> None:
    """A game tuned to ``time=5``: ``mcts:sims=10`` searches 10 simulations, with no time
    budget left over from the game's defaults (the budget is replaced as a whole)."""
    bot = make_bot(_TimedNim(), "mcts:sims=10", {})
    assert isinstance(bot, MCTSBot) and (bot.sims, bot.time) == (10, None)
    assert (MCTSBot(_TimedNim()).sims, MCTSBot(_TimedNim()).time) == (None, 5.0)


def test_measure_sims_per_second_counts_the_specs_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulations run over the time spent searching: on a clock that moves 0.25 s per
    reading, each searched position takes 0.25 s, so ``mcts:sims=10`` measures 40/s (not
    positions per second, nor the default budget's count)."""
    monkeypatch.setattr(mcts_module, "time", _FakeClock(0.25))
    assert measure_sims_per_second(NimGame(stones=30), "mcts:sims=10", positions=3, seed=0) == 40.0


# ------------------------------------------------------------- hidden information, seed
class _CountingHighCard(HighCardGame):
    """High card, counting the determinizations the search asks for."""

    resamples = 0

    def resample_hidden(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        self.resamples += 1
        return super().resample_hidden(state, seat, rng)


def test_every_simulation_searches_a_fresh_determinization() -> None:
    """Player 1 holds the middle card 3 after a bet: calling wins 1 against 0-2 and loses 1
    against 4-5 (the result upset 1 time in 5), so the call edge's mean is an average over
    re-dealt cards and engine draws, well inside (-0.5, 0.5). A search that re-dealt once per
    move would see one card and one draw: a mean of exactly +-0.5."""
    game = _CountingHighCard()
    state = HighCardState([5, 3], [0, 1, 2, 4], np.random.default_rng(0))
    state.apply(1)  # player 0 bets
    bot = MCTSBot(game, sims=200)
    stats = bot.root_stats(bot.search(state, 1, np.random.default_rng(0)), 1)
    assert game.resamples == 200
    visits, mean = stats[1]
    assert visits > 20 and abs(mean) < 0.4


def test_the_seed_steers_the_search() -> None:
    """Every random draw comes from the ``rng`` given to ``act``: other seeds give other
    searches (re-deals, expansion order, rollouts); a search that ignored it would be the same
    for every seed."""
    game = HighCardGame()
    state = game.new_initial_state(np.random.default_rng(1))
    bot = MCTSBot(game, sims=30)
    results = {(a, tuple(sorted(s.items()))) for a, s in (_search(bot, state, seed) for seed in range(4))}
    assert len(results) > 1


# --------------------------------------------------------------------------- rollouts
def test_the_core_defaults_are_the_documented_ones() -> None:
    """A game without ``mcts_defaults`` searches with the documented core settings: 200
    simulations, ``c=0.3``, random rollouts, no prior (the tuning record's baseline); ``params``
    reports ``depth="auto"`` as it resolved: 2 steps with an ``evaluate``, else ``"full"``."""
    params = MCTSBot(NimGame()).params
    expected = {"sims": 200, "time": None, "rollout": "random", "c": 0.3, "depth": 2}
    assert {k: params[k] for k in expected} == expected
    assert MCTSBot(TreeGame()).params["depth"] == "full", "no evaluate: played out"
    assert MCTSBot(NimGame(), depth="full").params["depth"] == "full"
    assert MCTSBot(NimGame(), depth=5).params["depth"] == 5
    assert (params["epsilon"], params["prior"], params["bias"], params["widen"]) == (0.0, "none", 1.0, 0.0)


def test_auto_depth_plays_out_a_game_without_an_evaluation() -> None:
    """``depth="auto"`` is ``AUTO_DEPTH`` (2) steps only for a game with ``evaluate``; a game
    without one is played out (a cap there would score unfinished games by the returns paid)."""
    assert MCTSBot(TreeGame()).depth is None
    assert MCTSBot(HighCardGame()).depth is None
    assert MCTSBot(NimGame()).depth == mcts_module.AUTO_DEPTH == 2


def test_a_capped_rollout_without_evaluation_scores_the_returns_paid_so_far() -> None:
    """No ``evaluate``, ``depth=0``: the leaf is worth the returns paid so far. In the tree
    game, move B pays player 0 -1 at once (scaled by the span 10: -0.1), move A nothing yet."""
    game = TreeGame()
    bot = MCTSBot(game, sims=2, depth=0)
    stats = bot.root_stats(
        bot.search(game.new_initial_state(np.random.default_rng(0)), 0, np.random.default_rng(0)), 0
    )
    assert sorted(stats) == [0, 1] and stats[0][0] == stats[1][0] == 1
    assert stats[0][1] == pytest.approx(0.0) and stats[1][1] == pytest.approx(-0.1)
