"""Pins found by a second mutation round on ``envs/core/mcts.py``: each test here failed on a
plausible bug of the ``mcts`` bot (a mutant) that the rest of the suite, the first round's
pins (``test_mcts_pins.py``) included, let through.

They check documented behaviour on the tiny games of ``test_mcts.py`` or on hand-made tree
nodes: the max^n backup of a mover other than seat 0 paid before it moves, uniform expansion
and rollout choices, ``epsilon``'s share of uniform rollout moves, the rollout bot named, the
neutral prior of a move the prior never scored and of a flat prior, the seat and the ``rng``
handed to the rollout and prior bots, the positions the simulations/s measurement searches,
``share_values`` for three players, the ``mcts:k=v`` errors (each naming the bad value) and
each registered game's ``mcts_defaults``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import Bot, ScoringBot, make_bot
from envs.core.game import Game, GameState
from envs.core.mcts import MCTSBot, _Node, measure_sims_per_second, share_values
from envs.core.registry import get_game
from tests.core.test_mcts import HighCardGame, NimGame, TreeGame, TreeState


def _node(visits: int, total: float, avail: int) -> _Node:
    node = _Node()
    node.visits, node.total, node.avail = visits, total, avail
    return node


class _RngRecorder(Bot):
    """Uniform moves, keeping every generator it is handed."""

    def __init__(self, game: Game[Any, Any]) -> None:
        super().__init__(game)
        self.seen: list[np.random.Generator] = []

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        self.seen.append(rng)
        legal = np.flatnonzero(state.legal_mask())
        return int(legal[rng.integers(legal.size)])


class _ScorerRecorder(ScoringBot):
    """Prefers taking one stone, keeping every generator and seat (with the mover) it is handed."""

    def __init__(self, game: Game[Any, Any]) -> None:
        super().__init__(game)
        self.seen: list[np.random.Generator] = []
        self.seats: list[tuple[int, int]] = []

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        self.seen.append(rng)
        self.seats.append((player, state.current_player()))
        return -float(action)


# --------------------------------------------------------------------------- backup
# Player 0 picks P (paying (-2, +1, +1) at once) or Q (game over); after P, player 1 picks
# between +1 more for itself and -1 more. Span of the reward range: 10.
PAID_FIRST = (0, [((-2, 1, 1), (1, [((0, 1, -1), None), ((0, -1, 1), None)])), ((0, 0, 0), None)])


class _PaidFirstState(TreeState):
    def __init__(self, rng: np.random.Generator) -> None:
        super().__init__(rng)
        self.node = PAID_FIRST


class _PaidFirstGame(TreeGame):
    def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> Any:
        return _PaidFirstState(rng)


def test_an_edge_counts_its_own_movers_return_gained_after_the_move() -> None:
    """Player 1, already paid +1 while player 0 was paid -2, values its two moves at +1 and
    -1 gained (scaled: +0.1, -0.1). Subtracting seat 0's return at the move instead of the
    mover's own (+0.4, +0.2 here) shifts every value a search backs up and reports."""
    game = _PaidFirstGame()
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(0)
    assert state.current_player() == 1
    bot = MCTSBot(game, sims=10)
    stats = bot.root_stats(bot.search(state, 1, np.random.default_rng(0)), 1)
    assert sorted(stats) == [0, 1]
    assert stats[0][1] == pytest.approx(0.1) and stats[1][1] == pytest.approx(-0.1)


# ------------------------------------------------------------ uniform random choices
def test_without_a_prior_the_first_expansion_is_uniform_over_the_untried_moves() -> None:
    """No prior: a new node's first move is drawn uniformly from its untried moves, so over
    a few seeds one simulation tries each of the 3 legal moves first. A draw that could never
    reach the last untried move (an off-by-one) would leave move 2 to be tried last, always."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=1)
    first = {next(iter(bot.search(state, 0, np.random.default_rng(seed)).children)) for seed in range(20)}
    assert first == {0, 1, 2}


def test_random_rollout_moves_are_uniform_over_the_legal_moves() -> None:
    """``rollout=random`` plays uniform legal moves: one rollout step from 30 stones takes 1, 2
    or 3 stones, each about a third of the time over 300 seeds. A biased draw (the last legal
    move never played, or the first always) would skew every rollout value."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=1, depth=1)
    taken = []
    for seed in range(300):
        world = state.clone()
        bot._rollout(world, np.random.default_rng(seed))
        taken.append(30 - world.stones)
    counts = np.bincount(taken, minlength=4)[1:]
    assert counts.sum() == 300 and counts.min() > 70, counts


def test_epsilon_mixes_uniform_moves_into_a_bot_rollout_in_proportion() -> None:
    """``epsilon=0.25``: each rollout move is the rollout bot's with probability 0.75, so
    over 400 one-step rollouts the bot plays about 300 of them. Reading any ``epsilon`` > 0
    as "always uniform" (or swapping the two shares) would make ``rollout=heuristic,
    epsilon=0.1`` a random rollout in all but name."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    rollout = _RngRecorder(game)
    bot = MCTSBot(game, sims=1, rollout=rollout, depth=1, epsilon=0.25)
    for seed in range(400):
        bot._rollout(state.clone(), np.random.default_rng(seed))
    assert 250 < len(rollout.seen) < 350, len(rollout.seen)


def test_each_rollout_bot_of_the_table_is_the_one_named() -> None:
    """``rollout=greedy`` rolls out with the table's ``greedy`` bot and ``rollout=heuristic``
    with ``heuristic``: a search that silently substituted one bot for the other would be
    measured and reported under the wrong name."""
    entry = get_game("over_and_out")
    game, table = entry.game_class()(num_players=2), dict(entry.bots())
    for name in ("greedy", "heuristic"):
        bot = make_bot(game, f"mcts:rollout={name},depth=1", table)
        assert isinstance(bot, MCTSBot) and type(bot.rollout_bot) is table[name], name


def test_epsilon_with_uniform_playouts_to_the_end_is_said_to_do_nothing() -> None:
    """``epsilon`` beside ``rollout=random`` changes nothing whatever the rollout depth, a full
    playout (``depth=full``) included: the warning is given there too."""
    with pytest.warns(UserWarning, match=r"epsilon \(rollout=random: the rollouts are uniform already\)"):
        MCTSBot(NimGame(stones=9), rollout="random", epsilon=0.5, depth="full")


# --------------------------------------------------------------------------- prior
class _Flat(ScoringBot):
    """Scores every move alike."""

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        return 3.0


def test_a_flat_prior_rates_every_move_as_its_best() -> None:
    """A prior that cannot tell the moves apart puts every one at the top of the [-1, 0]
    scale (0), not at the bottom: a bottom score would rank each of them below a move the
    prior never scored (-0.5) and fight the search's own values for nothing."""
    game = NimGame(stones=30)
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10, prior=_Flat(game))
    assert bot._bias(_Node(), world, 0, [0, 1, 2], np.random.default_rng(0)) == {0: 0.0, 1: 0.0, 2: 0.0}


def test_a_move_the_prior_never_scored_counts_as_middling() -> None:
    """A node's prior is scored once, in the first world that reached it; a move legal only in
    a later determinization has no score and is biased as a middling move (-0.5), between the
    prior's best (0) and worst (-1). Here the scored move sits at -0.2 and both edges are
    otherwise equal, so the scored one is followed; counting the unscored move as the
    prior's best (0) would follow it instead."""
    game = NimGame(stones=2)  # actions 0 and 1 legal for player 0
    world = game.new_initial_state(np.random.default_rng(0))
    bot = MCTSBot(game, sims=10, prior=_Flat(game))
    node = _Node()
    node.visits = 2
    node.bias = {0: -0.2}  # scored in a world where action 1 was not legal
    node.children.update({0: _node(1, 0.0, 2), 1: _node(1, 0.0, 2)})
    _, action, expanded = bot._select(node, world, 0, np.random.default_rng(0))
    assert (action, expanded) == (0, False)


# ---------------------------------------------------------------------------- seed
def test_rollout_and_prior_bots_draw_from_the_searchs_own_generator() -> None:
    """Every random draw of a search comes from the ``rng`` given to ``act``: the rollout bot
    and the prior are handed that very generator. A rollout bot given a generator of its own
    (a fixed seed) would play the same rollouts whatever the caller's seed."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    rollout, prior = _RngRecorder(game), _ScorerRecorder(game)
    bot = MCTSBot(game, sims=8, rollout=rollout, depth=3, prior=prior)
    rng = np.random.default_rng(5)
    bot.search(state, 0, rng)
    assert rollout.seen and all(r is rng for r in rollout.seen)
    assert prior.seen and all(r is rng for r in prior.seen)


def test_the_prior_scores_each_node_for_the_player_who_moves_there() -> None:
    """The prior ranks a node's moves for that node's mover: a heuristic asked to score
    player 1's moves for player 0 would order player 1's expansions by its opponent's
    interest. The search here starts at player 1's move and reaches nodes of both players."""
    game = NimGame(stones=30)
    state = game.new_initial_state(np.random.default_rng(0))
    state.apply(0)
    prior = _ScorerRecorder(game)
    MCTSBot(game, sims=30, prior=prior).search(state, 1, np.random.default_rng(0))
    assert {mover for _, mover in prior.seats} == {0, 1}
    assert all(player == mover for player, mover in prior.seats)


# ------------------------------------------------------------------------ measure
def test_measure_sims_per_second_searches_distinct_unfinished_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rate is measured on ``positions`` different positions of one random game, each
    searched as it stood when picked: a list that kept the live state instead of a copy
    would search one position (the last, perhaps a finished one) again and again, and
    report the speed of that."""
    searched: list[tuple[int, bool]] = []
    original = MCTSBot.search

    def recording(self: MCTSBot, state: Any, player: int, rng: np.random.Generator) -> Any:
        searched.append((state.stones, state.is_terminal()))
        return original(self, state, player, rng)

    monkeypatch.setattr(MCTSBot, "search", recording)
    assert measure_sims_per_second(NimGame(stones=30), "mcts:sims=4", positions=3, seed=0) > 0
    assert len(searched) == 3 and not any(done for _, done in searched)
    assert len({stones for stones, _ in searched}) == 3


def test_measure_sims_per_second_plays_on_until_it_has_its_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game too short to yield ``positions`` positions was measured on fewer, and on none at
    some seeds, where the rate came out a silent 0.0 simulations/s; now more seeded games are
    played until there are ``positions``. A game with no choice at all is refused."""
    searched: list[int] = []
    original = MCTSBot.search

    def recording(self: MCTSBot, state: Any, player: int, rng: np.random.Generator) -> Any:
        searched.append(player)
        return original(self, state, player, rng)

    monkeypatch.setattr(MCTSBot, "search", recording)
    for seed in range(5):
        searched.clear()
        assert measure_sims_per_second(HighCardGame(), "mcts:sims=5", positions=5, seed=seed) > 0
        assert len(searched) == 5
    with pytest.raises(ValueError, match="no position with a choice"):
        measure_sims_per_second(NimGame(stones=1), "mcts:sims=5")
    with pytest.raises(ValueError, match=r"positions must be an int in \[1, inf\], got 0"):
        measure_sims_per_second(NimGame(stones=30), "mcts:sims=5", positions=0)


# ------------------------------------------------------------------- share_values
def test_share_values_stretches_three_players_as_far_as_the_range_allows() -> None:
    """``c`` is the largest that keeps every value in ``[low, high]``: with three players,
    mean -0.5 in [-1, 1] and one player far weaker, the floor binds (``(mean - low) * m`` =
    1.5) and the weak player's value is -1 exactly, the others -0.25. A smaller ``c`` (the
    two-player bound, 1.0) would still sum and order right but squash every evaluation."""
    values = share_values(np.array([-60.0, 0.0, 0.0]), -0.5, -1.0, 1.0)
    assert values == pytest.approx([-1.0, -0.25, -0.25])
    values = share_values(np.array([60.0, 0.0, 0.0]), 0.0, -0.5, 1.0)  # Otto's 3-player range
    assert values == pytest.approx([1.0, -0.5, -0.5])


# --------------------------------------------------------------------- spec errors
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:sims=2.5", r"^mcts: sims must be a finite positive int, got 2\.5$"),
        ("mcts:c=0", r"^mcts: c must be a finite positive float, got 0$"),
        ("mcts:bias=-2", r"^mcts: bias must be a finite non-negative float, got -2$"),
        (
            "mcts:rollout=nope",
            r"^mcts: unknown rollout 'nope'; expected .*: \['greedy', 'heuristic', 'random'\]$",
        ),
    ],
)
def test_a_bad_mcts_value_is_named_in_the_error(spec: str, message: str) -> None:
    """Each refused value is quoted back with what the parameter takes (for ``rollout``, the
    game's table): an error that dropped the value or the choices leaves a user of a long
    spec guessing which part was wrong."""
    entry = get_game("over_and_out")
    with pytest.raises(ValueError, match=message):
        make_bot(entry.game_class()(num_players=2), spec, dict(entry.bots()))


@pytest.mark.parametrize("spec", ["mcts:sims=true", "mcts:c=true", "mcts:epsilon=true", "mcts:time=false"])
def test_a_boolean_is_not_a_number_for_mcts(spec: str) -> None:
    """``mcts:sims=true`` parses to the bool True, which is no simulation count (nor a ``c``,
    ``epsilon`` or ``time``): refused, naming the parameter, rather than silently read as 1
    (one simulation, or a uniform rollout every move) or 0."""
    name = spec.split(":")[1].split("=")[0]
    with pytest.raises(ValueError, match=rf"^mcts: {name} must be .*, got (True|False)$"):
        make_bot(NimGame(), spec, {})


def test_bad_tuned_defaults_name_the_game_and_the_key() -> None:
    """A game whose ``mcts_defaults`` has a misspelt key is refused naming the game and the key
    (the contributor's file to fix), not with a bare 'unknown key'."""

    class Misspelt(NimGame):
        name = "misspelt"
        mcts_defaults = {"simz": 5}

    with pytest.raises(ValueError, match=r"^misspelt: mcts_defaults has unknown key\(s\) \['simz'\]$"):
        MCTSBot(Misspelt())


# ----------------------------------------------------------------- per-game defaults
@pytest.mark.parametrize(
    ("name", "depth", "prior"),
    [("octi", 0, "heuristic"), ("otto_octopus", 0, "heuristic"), ("otto_game_over", 0, "heuristic")],
)
def test_each_games_tuned_mcts_defaults_are_the_recorded_ones(name: str, depth: int, prior: str) -> None:
    """Octi, Otto the Octopus and OTTO Game Over search with their tuned ``depth=0,
    prior=heuristic`` (the *default* rows of the tuning record and the README's strength
    table): no rollout, the leaf evaluated at once, a heuristic prior; the other core
    settings unchanged. A default that lost its prior or changed its depth would play a
    weaker, unmeasured bot under the name ``mcts``."""
    entry = get_game(name)
    bot = make_bot(entry.game_class()(), "mcts", dict(entry.bots()))
    assert isinstance(bot, MCTSBot)
    assert (bot.depth, bot.params["prior"], bot.sims, bot.c, bot.widen) == (depth, prior, 200, 0.3, 0.0)
    assert isinstance(bot.prior_bot, entry.bots()["heuristic"]) and bot.rollout_bot is None


def test_over_and_out_searches_with_the_core_defaults() -> None:
    """Over and Out keeps the core defaults (its *default* row): ``depth="auto"`` (2 random
    steps, then its ``evaluate``) and no prior."""
    entry = get_game("over_and_out")
    bot = make_bot(entry.game_class()(num_players=2), "mcts", dict(entry.bots()))
    assert isinstance(bot, MCTSBot)
    assert (bot.depth, bot.params["prior"], bot.prior_bot, bot.sims) == (2, "none", None, 200)
