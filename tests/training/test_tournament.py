"""Statistics of the tournaments: Wilson intervals, the Bradley-Terry Elo fit, pairings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.bots import RandomBot
from tests.training.toy_game import ToyGame
from training.plots import plot_tournament
from training.tournament import PairResult, bradley_terry_elo, play_pairing, wilson


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_interval_holds_the_rate_exactly() -> None:
    """A clean sweep's interval ends at exactly 1 (and a whitewash's at 0), and every interval
    holds its rate: float rounding once left 4 wins of 4 at [0.51, 1 - 1e-16], and the
    tournament plot then failed on a negative error bar (``eightfold eval --plot``)."""
    for n in range(1, 1001):
        assert wilson(n, n)[1] == 1.0 and wilson(0, n)[0] == 0.0, n
    for n in range(1, 60):
        for k2 in range(2 * n + 1):  # draws count as halves
            lo, hi = wilson(k2 / 2, n)
            assert 0.0 <= lo <= k2 / 2 / n <= hi <= 1.0, (k2, n)


def test_tournament_plot_of_clean_sweeps(tmp_path: Path) -> None:
    """Win rates of 1 and 0 (at game counts whose Wilson bounds used to round inside them)."""
    pairs = [PairResult("a", "b", games=4, wins=4), PairResult("a", "c", games=300, losses=300)]
    res = {
        "env": "toy", "params": {}, "games_per_pairing": 4,
        "pairs": [p.summary() for p in pairs], "elo": {"a": 1000.0, "b": 600.0, "c": 1400.0},
    }  # fmt: skip
    out = plot_tournament(res, tmp_path / "t.png")
    assert out.stat().st_size > 1000


def test_elo_orders_players_and_keeps_all_win_records_finite() -> None:
    ab = PairResult("a", "b", games=100, wins=76, losses=24)
    bc = PairResult("b", "c", games=100, wins=76, losses=24)
    ac = PairResult("a", "c", games=100, wins=100)
    elo = bradley_terry_elo(["a", "b", "c"], [ab, bc, ac])
    assert elo["a"] == 1000.0 and elo["a"] > elo["b"] > elo["c"]
    assert np.isfinite(elo["c"])
    # 76% expected score is about 200 Elo
    assert 150 < elo["a"] - elo["b"] < 260


class _SeatRecorder(RandomBot):
    """A random bot that notes every seat it is asked to act for."""

    def __init__(self, game: ToyGame) -> None:
        super().__init__(game)
        self.seats: set[int] = set()

    def act(self, state: Any, player: int, rng: np.random.Generator) -> int:
        self.seats.add(player)
        return super().act(state, player, rng)


def test_pairing_rotates_seats_and_counts_every_game() -> None:
    game = ToyGame(num_players=3)
    # game g seats a in g mod 3 and b in the other seats (every seat acts: no bust in 3 moves)
    for g in range(6):
        a, b = _SeatRecorder(game), _SeatRecorder(game)
        one = play_pairing(game, a, b, ("x", "y"), [g], seed=1)
        assert one.games == 1
        assert a.seats == {g % 3} and b.seats == {0, 1, 2} - {g % 3}, g
    res = play_pairing(game, RandomBot(game), RandomBot(game), ("x", "y"), range(30), seed=1)
    assert res.games == 30 == res.wins + res.draws + res.losses
    assert min(res.placements) >= 1.0 and max(res.placements) <= 3.0
    again = play_pairing(game, RandomBot(game), RandomBot(game), ("x", "y"), range(30), seed=1)
    assert again.returns == res.returns


@pytest.mark.parametrize(
    ("params", "sides", "seating"),
    [
        ({"num_players": 4, "teams": True, "episode": "match"}, 2, "seats rotated"),  # two teams
        ({"num_players": 3, "episode": "match"}, 3, "seats rotated"),
        ({"num_players": 1}, 2, "the same deals, scores compared"),  # solo: head to head
    ],
)
def test_tournament_plot_marks_even_odds_between_the_sides(
    params: dict[str, Any], sides: int, seating: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plot's even-odds line sits at 1 / sides (2v2 drew it at 1/4, for four seats) and its
    axis says how the games were seated (solo said "seats rotated" for shared deals)."""
    import matplotlib.axes

    from training.evaluate import run_tournament

    res = run_tournament("otto_game_over", params, ["random", "greedy"], games=2, seed=0, workers=1)
    assert (res["sides"], res["seating"]) == (sides, seating)
    drawn: dict[str, Any] = {}
    monkeypatch.setattr(matplotlib.axes.Axes, "axvline", lambda self, x, **kw: drawn.setdefault("x", x))
    real_label = matplotlib.axes.Axes.set_xlabel

    def label(self: Any, text: str, **kw: Any) -> Any:
        drawn.setdefault("label", text)
        return real_label(self, text, **kw)

    monkeypatch.setattr(matplotlib.axes.Axes, "set_xlabel", label)
    plot_tournament(res, tmp_path / "t.png")
    assert drawn["x"] == pytest.approx(1 / sides) and seating in drawn["label"]


def test_python_api_mistakes_are_value_errors_naming_them() -> None:
    """What the command line's parser guards is checked in the Python API too: a tournament's
    games, mode and workers, a player spec or game name that is not a string, an opponent
    weight that is not a positive number (a KeyError, a silent 'first', an AttributeError or
    an unnamed float error before)."""
    from envs.core.registry import GAMES, get_game
    from training.config import parse_opponents
    from training.evaluate import run_tournament
    from training.players import OpponentPool, make_player

    players = ["heuristic", "random"]
    for kw, message in (
        ({"games": 0}, r"^games must be an int in \[1, inf\], got 0"),
        ({"games": 2, "mode": "each"}, r"^mode must be one of \['first', 'all'\], got 'each'"),
        ({"games": 2, "workers": 0}, r"^workers must be an int in \[1, inf\], got 0"),
    ):
        with pytest.raises(ValueError, match=message):
            run_tournament("over_and_out", {"num_players": 2}, players, **{"workers": 1, **kw})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^a player spec is a string: a bot"):
        run_tournament("over_and_out", {"num_players": 2}, [5, "random"], 2, workers=1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^a game is named by a string"):
        get_game(5)  # type: ignore[arg-type]
    game = GAMES["over_and_out"].game_class()(num_players=2)
    bots = GAMES["over_and_out"].bots()
    with pytest.raises(ValueError, match=r"^a player spec is a string"):
        make_player(game, None, bots)  # type: ignore[arg-type]
    for weight in ("x", 0, -1.0, float("inf"), True):
        with pytest.raises(ValueError, match=r"^opponent weight must be a finite number > 0, got random="):
            OpponentPool.from_specs(game, {"random": weight}, bots)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"^opponents: the weight of 'random' must be a number, got 'x'"):
        parse_opponents({"random": "x"})


def test_elo_of_equals_is_equal_however_many_seats_the_second_player_holds() -> None:
    """In a 3- or 4-player game the first player holds one seat and the second the others, so
    between equals it wins 1/n of the games; Elo reads its place among the sides, not its wins,
    and rates equals equal (it rated a copy of a bot 114-183 points above itself)."""
    for n in (3, 4):
        res = PairResult("a", "b")
        for place in range(1, n + 1):  # a's places, each as often as the others: equals
            res.add("win" if place == 1 else "loss", float(place), 0.0)
        assert res.score == pytest.approx(1 / n) and res.placement_score(n) == pytest.approx(0.5)
        elo = bradley_terry_elo(["a", "b"], [res], sides=n)
        assert elo["b"] == pytest.approx(1000.0, abs=1e-6)
        better = PairResult("a", "b")
        for _ in range(3):
            better.add("win", 1.0, 1.0)
        better.add("loss", float(n), -1.0)
        assert bradley_terry_elo(["a", "b"], [better], sides=n)["b"] < 1000.0
    # with two sides the placement score is the win score (a draw is placed 1.5)
    two = PairResult("a", "b")
    for result, place in (("win", 1.0), ("draw", 1.5), ("loss", 2.0), ("win", 1.0)):
        two.add(result, place, 0.0)
    assert two.placement_score(2) == pytest.approx(two.score)
