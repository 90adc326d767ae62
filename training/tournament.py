"""Matches between players (bots and trained agents) on the engine, and their statistics.

A *pairing* ``(a, b)`` plays ``games`` games with ``a`` in one seat and ``b`` in every other
seat; ``a``'s seat rotates (game ``g``: seat ``g mod n``), so first-move advantages cancel
when ``games`` is a multiple of the ``n`` seats (``eval`` says so when it is not). In a 2v2
game ``a``'s partner is a copy of ``b``: the pairing measures ``a`` + ``b`` against ``b`` + ``b``.
Results are counted from ``a``'s side: win / draw / loss (strict best of the table / shared
best / otherwise; partners in 2v2 are not rivals), mean placement and mean return. Solo
games have no other seat: ``a`` and ``b`` each play every deal, and ``a`` wins a game by
scoring more than ``b`` on the same deal (placement 1 / 1.5 / 2; the return is ``a``'s).

Deals: game ``g`` of every pairing played at one tournament ``seed`` is dealt from
:func:`game_seed` ``(seed, g)``, whoever plays it (common random numbers: pairings are compared
on the same deals); the games of one pairing all deal apart.

Statistics: 95% Wilson score intervals for rates; Elo from a Bradley-Terry fit of the
pairwise scores (wins + draws/2), anchored so that the first player has Elo 1000.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.config import check_seed, is_real
from envs.core.game import STATE_OPTION, Game, team_seats
from training.players import Player
from training.single_agent import outcome, placement


@dataclass
class PairResult:
    """Results of one pairing from the first player's side."""

    a: str
    b: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    #: games cut off at the game's step limit (no outcome of play): counted by the returns the
    #: game pays there (0 to every seat, a draw, in most games; in Over and Out with 3+ players
    #: the seats still in share one return and the knocked-out ones keep theirs: a loss for them)
    truncated: int = 0
    #: how those games were counted: ``{"wins": .., "draws": .., "losses": ..}``
    truncated_results: dict[str, int] = field(default_factory=lambda: {"wins": 0, "draws": 0, "losses": 0})
    placements: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    #: the games' records (:func:`game_record`) when the pairing was asked to keep them
    records: list[dict[str, Any]] = field(default_factory=list)

    def add(self, result: str, place: float, ret: float, truncated: bool = False) -> None:
        self.games += 1
        self.truncated += bool(truncated)
        if truncated and result in ("win", "draw", "loss"):
            key = {"win": "wins", "draw": "draws", "loss": "losses"}[result]
            self.truncated_results[key] += 1
        self.wins += result == "win"
        self.draws += result == "draw"
        self.losses += result == "loss"
        self.placements.append(place)
        self.returns.append(ret)

    def merge(self, other: PairResult) -> None:
        self.games += other.games
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.truncated += other.truncated
        for key, n in other.truncated_results.items():
            self.truncated_results[key] = self.truncated_results.get(key, 0) + n
        self.placements += other.placements
        self.returns += other.returns
        self.records += other.records

    @property
    def score(self) -> float:
        """Wins + half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / max(1, self.games)

    def placement_score(self, sides: int) -> float:
        """``a``'s mean place turned into a score in [0, 1]: ``(sides - place) / (sides - 1)``
        per game, so 0.5 between equals however many seats ``b`` holds (with two sides it is
        :attr:`score`: a win 1, a draw 0.5, a loss 0)."""
        if not self.placements or sides < 2:
            return self.score
        return _mean([(sides - p) / (sides - 1) for p in self.placements])

    def summary(self) -> dict[str, Any]:
        lo, hi = wilson(self.wins, self.games)
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "truncated": self.truncated,
            "truncated_results": dict(self.truncated_results),
            "win_rate": self.wins / max(1, self.games),
            "win_rate_ci95": [lo, hi],
            "score": self.score,
            "mean_placement": _mean(self.placements) if self.placements else float("nan"),
            "mean_return": _mean(self.returns) if self.returns else float("nan"),
        }


def _mean(values: Sequence[float]) -> float:
    """The mean with an exactly rounded sum (``math.fsum``): the same to the last bit in
    whatever order the games came in (``eval --workers`` merges its chunks in chunk order)."""
    return math.fsum(values) / len(values)


def wilson(k: float, n: float, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``k / n`` (``k`` may count draws as halves):
    ``n`` a number >= 0 (no trials: ``(0, 1)``), ``0 <= k <= n``, else ``ValueError``."""
    k, n = (v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in (k, n))
    if not is_real(n) or not 0 <= n < math.inf:  # NaN fails both
        raise ValueError(f"wilson: n (the number of trials) must be a number >= 0, got n={n!r}")
    # k may exceed n by a rounding step (a share times a count), never by more
    if not is_real(k) or not 0 <= k <= n * (1 + 1e-12):
        raise ValueError(f"wilson: k (the successes) must be a number in [0, n], got k={k!r}, n={n!r}")
    if n == 0:
        return (0.0, 1.0)
    p = min(k / n, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # the interval always holds ``p``; at p = 0 or 1 float rounding would leave the bound a hair
    # inside it (1 - 1e-16 for 4 wins of 4), so the end is taken as exact
    lo = 0.0 if k <= 0 else min(p, max(0.0, centre - half))
    hi = 1.0 if k >= n else max(p, min(1.0, centre + half))
    return (lo, hi)


#: where a tournament's games start: reset options (or None) and moves in notation after them
#: (a list; :func:`check_start` also takes None for no moves)
Start = tuple[dict[str, Any] | None, list[str]]


def _got(value: Any) -> str:
    """``value`` for an error message: its type and a repr cut short (a state dict is kilobytes)."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def check_start(start: Any) -> Start | None:
    """``start`` as :data:`Start`: None, or a pair (reset options: a dict or None; moves in
    notation: a list of strings, or None for none); else ``ValueError`` saying what it got."""
    if start is None:
        return None
    if not isinstance(start, (tuple, list)) or len(start) != 2:
        raise ValueError(
            "start must be a pair (reset options dict or None, list of moves in notation or None), "
            f"e.g. (None, ['m1', 'm2']) or ({{'state': ...}}, None); got {_got(start)}"
        )
    options, moves = start
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"start[0], the reset options, must be a dict or None, got {_got(options)}")
    if moves is None:
        moves = []
    if isinstance(moves, np.ndarray) and moves.ndim == 1:
        moves = moves.tolist()
    if isinstance(moves, str) or not isinstance(moves, (list, tuple)):
        raise ValueError(
            "start[1], the moves, must be a list of moves in notation or None (training.position."
            f"split_moves splits a 'm1; m2' string), got {_got(moves)}"
        )
    for i, move in enumerate(moves):
        if not isinstance(move, str):
            raise ValueError(f"start[1][{i}] must be a move in notation (a string), got {_got(move)}")
    return (None if options is None else dict(options), list(moves))


def start_of(game: Game[Any, Any], rng: np.random.Generator, start: Start | None = None) -> Any:
    """A game's first state: dealt from ``rng``, then ``start`` (reset options and moves,
    :func:`check_start`) if given."""
    start = check_start(start)
    if start is None:
        return game.new_initial_state(rng)
    from training.position import start_state

    return start_state(game, rng, *start)


def game_seed(seed: int, g: int) -> int:
    """The seed of game ``g`` of a pairing played at tournament ``seed``."""
    return seed * 1_000_003 + g


def _game_seeds(game: Game[Any, Any], seed: int) -> list[np.random.SeedSequence]:
    """Game ``seed``'s seeds: the deal's first, then one per seat for its player."""
    return np.random.SeedSequence(seed).spawn(game.num_players + 1)


def deal_rng(game: Game[Any, Any], seed: int) -> np.random.Generator:
    """The generator game ``seed`` of :func:`play_game` deals from."""
    return np.random.default_rng(_game_seeds(game, seed)[0])


def play_game(
    game: Game[Any, Any],
    players: Sequence[Player],
    seed: int,
    max_steps: int | None = None,
    start: Start | None = None,
    record: dict[str, Any] | None = None,
) -> np.ndarray:
    """One game, ``players[s]`` in seat ``s``, from the initial position (or ``start``); the
    final returns per seat (``RuntimeError`` if it is not over after ``max_steps`` moves,
    default: the game's ``max_game_length``). A ``record`` dict given is filled with the game's first state
    (``"options": {"state": state.to_dict()}``, the reset options that set it up again,
    its generator included), its moves in notation (``"moves"``) and whether the game was cut
    off at its step limit (``"truncated"``)."""
    return _play(game, players, seed, max_steps, start, record)[0]


def _play(
    game: Game[Any, Any],
    players: Sequence[Player],
    seed: int,
    max_steps: int | None = None,
    start: Start | None = None,
    record: dict[str, Any] | None = None,
) -> tuple[np.ndarray, bool]:
    """:func:`play_game`, and whether the game was cut off at its step limit."""
    seeds = _game_seeds(game, check_seed(seed))
    state = start_of(game, np.random.default_rng(seeds[0]), start)
    rngs = [np.random.default_rng(s) for s in seeds[1:]]
    moves: list[str] | None = None
    if record is not None:
        record["options"] = {STATE_OPTION: state.to_dict()}
        moves = record["moves"] = []
    limit = max_steps if max_steps is not None else game.max_game_length + 1
    for _ in range(limit):
        if state.is_terminal():
            break
        p = state.current_player()
        action = int(players[p].act(state, p, rngs[p]))
        if moves is not None:
            moves.append(state.action_to_string(action))
        state.apply(action)
    if not state.is_terminal():  # a game that ends on its last allowed step is no error
        what = f"max_steps={max_steps}" if max_steps is not None else "the game's max_game_length"
        raise RuntimeError(f"a game ran past {what}")
    truncated = bool(state.is_truncated())  # cut off at the game's step limit
    if record is not None:
        record["truncated"] = truncated
    return np.asarray(state.returns(), dtype=np.float64), truncated


def game_record(
    seats: Sequence[str], g: int, seed: int, played: dict[str, Any], ret: np.ndarray
) -> dict[str, Any]:
    """A game's record for ``eightfold eval --records``: game ``g`` of a pairing (played at
    game seed ``seed``), the player of each seat, the first state as reset options and the
    moves that :func:`play_game` filled in ``played``, and the returns."""
    return {
        "game": g,
        "seed": seed,
        "seats": list(seats),
        "returns": [float(x) for x in ret],
        **played,
    }


def play_pairing(
    game: Game[Any, Any],
    a: Player,
    b: Player,
    names: tuple[str, str],
    game_ids: Sequence[int],
    seed: int = 0,
    start: Start | None = None,
    records: bool = False,
) -> PairResult:
    """Games ``game_ids`` of the pairing ``a`` vs ``b`` (``a`` in seat ``g mod n``, ``b`` elsewhere),
    each from the initial position or ``start``; with ``records`` each game's record
    (:func:`game_record`, plus ``"result"``: ``a``'s win, draw or loss) is kept in ``records``.

    Solo games: both play each deal (same seed), compared head to head from ``a``'s side
    (two records a deal, one per player, both with that result).
    """
    check_seed(seed)
    if isinstance(game_ids, (str, bytes, Mapping)) or not isinstance(game_ids, Iterable):
        raise ValueError(f"game_ids must be a list of game numbers (ints >= 0), got {_got(game_ids)}")
    game_ids = list(game_ids)
    for i, g in enumerate(game_ids):
        check_seed(g, f"game_ids[{i}] (a game number)")
    start = check_start(start)
    n = game.num_players
    res = PairResult(*names)
    if n == 1:
        for g in game_ids:
            deal = game_seed(seed, g)
            played: list[dict[str, Any] | None] = [{} if records else None, {} if records else None]
            runs = [_play(game, [p], seed=deal, start=start, record=played[i]) for i, p in enumerate((a, b))]
            both = np.array([float(ret[0]) for ret, _ in runs])
            result = outcome(both, 0)
            res.add(result, placement(both, 0), float(both[0]), any(cut for _, cut in runs))
            for name, kept, ret in zip(names, played, both, strict=True):
                if kept is not None:
                    res.records.append(
                        {**game_record([name], g, deal, kept, np.array([ret])), "result": result}
                    )
        return res
    for g in game_ids:
        seat = g % n
        seated = [a if s == seat else b for s in range(n)]
        rec: dict[str, Any] | None = {} if records else None
        ret, cut = _play(game, seated, seed=game_seed(seed, g), start=start, record=rec)
        team = team_seats(game, seat)
        result = outcome(ret, seat, team)
        res.add(result, placement(ret, seat, team), float(ret[seat]), cut)
        if rec is not None:
            seats = [names[0] if s == seat else names[1] for s in range(n)]
            res.records.append({**game_record(seats, g, game_seed(seed, g), rec, ret), "result": result})
    return res


def bradley_terry_elo(
    names: Sequence[str], pairs: Sequence[PairResult], iters: int = 2000, sides: int = 2
) -> dict[str, float]:
    """Elo ratings (400·log10 strength) of a Bradley-Terry fit to the pairwise scores.

    Each pairing counts ``games`` comparisons of which ``a`` won ``placement_score·games``:
    with two sides a win, half a draw; with more (``a`` in one seat of a 3- or 4-player game,
    ``b`` in the others) ``a``'s place among the ``sides``, scored so that equal players
    come out equal (a first player who wins 1/3 of 3-player games against copies of itself is
    no weaker than they are). A prior of half a draw (a quarter win each way) between every
    two players, also those that never met, keeps all-win records finite. It pulls ratings
    toward each other by an amount that shrinks with the games played: a player that wins
    39 of 40 games rates 599 points above its victim instead of 636, one that wins 390 of 400
    632 points; in larger tables the pairs that never met add to the pull (compare Elo across
    tournaments of the same size).
    """
    idx = {name: i for i, name in enumerate(names)}
    m = len(names)
    wins = np.full((m, m), 0.0)
    for i in range(m):
        for j in range(m):
            if i != j:
                wins[i, j] = 0.25  # prior: half a draw
    for p in pairs:
        i, j = idx[p.a], idx[p.b]
        w = p.placement_score(sides) * p.games
        wins[i, j] += w
        wins[j, i] += p.games - w
    strength = np.ones(m)
    games = wins + wins.T
    for _ in range(iters):
        total = wins.sum(axis=1)
        denom = np.array(
            [sum(games[i, j] / (strength[i] + strength[j]) for j in range(m) if j != i) for i in range(m)]
        )
        new = total / np.maximum(denom, 1e-12)
        new /= new[0]
        if np.max(np.abs(new - strength)) < 1e-10:
            strength = new
            break
        strength = new
    return {name: 1000.0 + 400.0 * math.log10(strength[i]) for name, i in idx.items()}
