"""Bot-vs-bot games on the engine alone (no PettingZoo), for measuring baselines.

from envs.core.arena import play_game, play_match
result = play_match(game, [bot_a, bot_b], games=500, seed=0)   # one bot per seat, seats rotated
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.bots import Bot
from envs.core.config import check_seed
from envs.core.game import Game, GameState, check_game, team_seats


def play_game(
    game: Game[Any, Any], bots: Sequence[Bot], seed: int, options: dict[str, Any] | None = None
) -> np.ndarray:
    """Play one game, ``bots[i]`` in seat ``i``; returns the final returns per seat."""
    check_game(game, "play_game")
    return np.asarray(_final_state(game, bots, seed, options).returns(), dtype=np.float64)


def _final_state(
    game: Game[Any, Any], bots: Sequence[Bot], seed: int, options: dict[str, Any] | None
) -> GameState:
    if len(bots) != game.num_players:
        raise ValueError(f"need {game.num_players} bots, got {len(bots)}")
    seeds = np.random.SeedSequence(check_seed(seed)).spawn(game.num_players + 1)
    state: GameState = game.new_initial_state(np.random.default_rng(seeds[0]), options)
    rngs = [np.random.default_rng(s) for s in seeds[1:]]
    while not state.is_terminal():
        p = state.current_player()
        state.apply(bots[p].act(state, p, rngs[p]))
    return state


@dataclass
class MatchResult:
    """Outcome of a seat-rotated match, from the point of view of ``bots[0]``. ``truncated``
    counts the games cut off at the game's step limit: they are also counted in ``wins``,
    ``draws`` and ``losses`` by their returns (mostly 0 to every seat, a draw; Over and Out's
    placement mode pays the seats left the average of the places not yet given, so with a
    seat out they split), but they are no outcome of play."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    returns: list[float] = field(default_factory=list)
    truncated: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / max(1, self.games)

    @property
    def score(self) -> float:
        """Wins + half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / max(1, self.games)

    def __str__(self) -> str:
        cut = f"; {self.truncated} cut off at the step limit" if self.truncated else ""
        return (
            f"{self.games} games: {self.wins} W / {self.draws} D / {self.losses} L "
            f"(win rate {self.win_rate:.3f}, mean return {np.mean(self.returns) if self.returns else 0:.3f}{cut})"
        )


def play_match(
    game: Game[Any, Any],
    bots: Sequence[Bot],
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> MatchResult:
    """``games`` games with ``bots`` rotated through the seats (game g: bots[0] sits in seat g mod n);
    one bot per seat, ``ValueError`` otherwise.

    A game counts as a win for ``bots[0]`` when its return beats every rival's, a draw when
    it ties the best of them, a loss otherwise; in a 2v2 game the partner seat opposite
    (:func:`~envs.core.game.team_seats`, which shares the team's return) is no rival. Solo
    (one seat, no rival): a positive return is a win, zero a draw, a negative one a loss, as
    in the training view's ``outcome`` (OTTO Game Over: a victory with a score above 0 wins,
    a defeat, -1, loses; Otto the Octopus: the sign of the final score). ``game`` is a game
    object, not a name (``ValueError``).
    """
    check_game(game, "play_match")
    n = game.num_players
    if len(bots) != n:
        raise ValueError(f"need {n} bots, one per seat, got {len(bots)}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    check_seed(seed)
    for i, bot in enumerate(bots):
        if not callable(getattr(bot, "act", None)):
            raise ValueError(
                f"bots[{i}] must be a bot with act(state, seat, rng) (envs.core.bots.make_bot builds one "
                f"from a spec such as 'heuristic'), got {bot!r}"
            )
    seed, games = int(seed), int(games)  # Python ints: a numpy seed would overflow in seed * 1_000_003
    res = MatchResult()
    for g in range(games):
        shift = g % n
        seated = [bots[(s - shift) % n] for s in range(n)]
        final = _final_state(game, seated, seed * 1_000_003 + g, options)
        ret = np.asarray(final.returns(), dtype=np.float64)
        res.truncated += bool(final.is_truncated())
        mine = ret[shift]
        team = team_seats(game, shift)
        rivals = [float(ret[s]) for s in range(n) if s not in team]
        best = max(rivals) if rivals else 0.0  # solo: the sign of the return decides
        res.games += 1
        res.returns.append(float(mine))
        if mine < best - 1e-9:
            res.losses += 1
        elif mine <= best + 1e-9:
            res.draws += 1
        else:
            res.wins += 1
    return res
