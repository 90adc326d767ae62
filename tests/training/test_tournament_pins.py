"""Pins of ``training/tournament.py`` that a mutation round found loose: the table's mean
placement and mean return, the Elo fit's prior and its convergence, deals that differ from one
tournament seed to the next, every seat's player drawing from its own generator, a start of
reset options alone, and the Wilson bound of a score counting draws as halves."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from tests.training.toy_game import ToyGame
from training.tournament import PairResult, bradley_terry_elo, deal_rng, game_seed, play_pairing, wilson


def test_the_table_reports_the_mean_placement_and_return_per_game() -> None:
    """``mean_placement`` and ``mean_return`` are means over the games (a median or a total
    would print a wrong number in the table and the JSON for a skewed record)."""
    res = PairResult("a", "b")
    for result, place, ret in (("win", 1.0, 1.0), ("win", 1.0, 1.0), ("loss", 3.0, -1.0), ("draw", 1.5, 0.5)):
        res.add(result, place, ret)
    summary = res.summary()
    assert summary["mean_placement"] == pytest.approx(6.5 / 4)
    assert summary["mean_return"] == pytest.approx(1.5 / 4)
    assert (summary["wins"], summary["draws"], summary["losses"]) == (2, 1, 1)


@pytest.mark.parametrize(("games", "wins", "gap"), [(40, 39, 599), (400, 390, 632)])
def test_elo_prior_is_half_a_draw_as_documented(games: int, wins: int, gap: int) -> None:
    """The documented pull of the prior (half a draw between every two players): 39 of 40
    wins rate 599 points above the victim, 390 of 400 632 points. A heavier prior would
    shrink every gap a user compares across tournaments."""
    pair = PairResult("a", "b", games=games, wins=wins, losses=games - wins)
    elo = bradley_terry_elo(["a", "b"], [pair])
    assert elo["a"] == 1000.0
    assert round(elo["a"] - elo["b"]) == gap


def test_elo_fit_is_converged_in_a_long_chain() -> None:
    """The ratings solve the Bradley-Terry equations: each player's expected score against
    the others (prior included) equals its actual score. A fit stopped early (too few
    iterations or a loose tolerance) leaves the far end of a chain of lopsided pairings off
    by many points."""
    names = list("abcdef")
    pairs = [PairResult(names[i], names[i + 1], games=50, wins=49, losses=1) for i in range(5)]
    elo = bradley_terry_elo(names, pairs)
    m = len(names)
    wins = np.full((m, m), 0.25)
    np.fill_diagonal(wins, 0.0)
    for i, p in enumerate(pairs):
        wins[i, i + 1] += p.wins
        wins[i + 1, i] += p.losses
    strength = np.array([10 ** ((elo[n] - 1000.0) / 400.0) for n in names])
    games = wins + wins.T
    for i in range(m):
        expected = sum(games[i, j] * strength[i] / (strength[i] + strength[j]) for j in range(m) if j != i)
        assert expected == pytest.approx(wins[i].sum(), rel=1e-6), (names[i], elo)
    assert all(elo[x] > elo[y] for x, y in zip(names, names[1:], strict=False))


def test_tournaments_at_different_seeds_deal_different_games() -> None:
    """``--seed`` picks the deals: tournaments at nearby seeds share none of them (seeds
    ``seed + g`` would replay games 1.. of seed 0 as games 0.. of seed 1, so two seeds a user
    takes for independent samples would mostly be the same games)."""
    seen = [game_seed(s, g) for s in range(5) for g in range(1000)]
    assert len(set(seen)) == len(seen)


class _DrawRecorder(Bot):
    """Adds 1, 2 or 3 at random and notes every number it draws from its generator."""

    name = "draws"

    def __init__(self, game: ToyGame) -> None:
        super().__init__(game)
        self.draws: list[float] = []

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        x = float(rng.random())
        self.draws.append(x)
        return int(x * 3)


class _AddOne(Bot):
    name = "add1"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return 0


def test_a_players_draws_do_not_depend_on_its_opponents() -> None:
    """Every seat's player draws from its own generator: the first player's random choices in
    a game are the same whoever sits in the other seats (common random numbers; a shared
    generator let a random opponent's draws change the first player's moves)."""
    game = ToyGame(num_players=3, target=30)
    for g in range(3):
        first, second = _DrawRecorder(game), _DrawRecorder(game)
        play_pairing(game, first, _AddOne(game), ("draws", "add1"), [g], seed=4)
        play_pairing(game, second, RandomBot(game), ("draws", "random"), [g], seed=4)
        n = min(len(first.draws), len(second.draws))
        assert n >= 3 and first.draws[:n] == second.draws[:n], g


def test_reset_options_alone_set_up_every_games_start() -> None:
    """A start of reset options and no moves (``eightfold eval --options`` without
    ``--moves``) still starts each game there: from a total of 7 adding one a move busts on
    the third move, not the tenth (an options-only start silently played the opening)."""
    game = ToyGame(num_players=2)
    res = play_pairing(
        game,
        _AddOne(game),
        _AddOne(game),
        ("add1", "add1'"),
        range(4),
        seed=0,
        start=({"total": 7}, []),
        records=True,
    )
    assert [len(r["moves"]) for r in res.records] == [3] * 4
    # the first player moves first in game 0 (seat 0) and busts; in game 1 it sits second
    assert [r["result"] for r in res.records] == ["loss", "win", "loss", "win"]


def test_no_players_generator_repeats_the_deals() -> None:
    """The deal and each seat's player draw from streams of their own: a random player in
    seat 0 fed from the deal's own seed would draw the very numbers that deal the game
    (its choices tied to the dice and cards it is dealt)."""
    game = ToyGame(num_players=2)
    for g in range(3):
        first, second = _DrawRecorder(game), _DrawRecorder(game)
        play_pairing(game, first, second, ("draws", "draws'"), [g], seed=2)
        seat0 = first if g % 2 == 0 else second
        dealt = deal_rng(game, game_seed(2, g)).random(len(seat0.draws))
        assert seat0.draws and seat0.draws != dealt.tolist(), g
        assert first.draws[:3] != second.draws[:3], g


def test_a_score_of_half_a_game_has_a_positive_lower_bound() -> None:
    """``wilson`` counts draws as halves (the examples' score intervals): one draw in ten games
    is a score of 0.05 with the textbook interval [0.0052, 0.3445]; only a score of 0 may
    start at 0 (a lower bound cut to 0 below one whole win reads as "may never score")."""
    lo, hi = wilson(0.5, 10)
    assert lo == pytest.approx(0.00524, abs=2e-5) and hi == pytest.approx(0.34454, abs=2e-5)
    assert wilson(0.5, 1000)[0] > 0.0


def test_max_steps_allows_a_game_of_exactly_that_length_and_names_itself() -> None:
    """``play_game(max_steps=k)``: a game that ends on its k-th move is a result, not an error
    (the loop's ``else`` raised whenever all k moves were played), and a game still running
    after k moves raises naming ``max_steps``, not the game's ``max_game_length``."""
    from tests.core.test_mcts import NimGame
    from training.tournament import play_game

    game = NimGame(stones=5)
    bots = [RandomBot(game), RandomBot(game)]
    record: dict[str, object] = {}
    full = play_game(game, bots, seed=3, record=record)
    length = len(record["moves"])  # type: ignore[arg-type]
    assert length >= 2
    assert play_game(game, bots, seed=3, max_steps=length).tolist() == full.tolist()
    with pytest.raises(RuntimeError, match=rf"^a game ran past max_steps={length - 1}$"):
        play_game(game, bots, seed=3, max_steps=length - 1)
