"""Second mutation round of ``training/tournament.py`` and ``training/play.py``: pins of what
the first round (``test_tournament_pins.py``, ``test_play_pins.py``) left loose.

Tournament: exact 95% Wilson intervals, a pairing's summary (the JSON ``pairs`` entry, field
by field: the win rate and its interval count wins only, the score counts draws as halves),
merging the parts of a pairing, the placement score, Elo values of small hand-made result
tables (the two-player fit has a closed form), and the records a pairing keeps (seats, game
seeds, first state, moves, result; solo: one record per player and deal, both on the same
deal; 2v2 partners as one side), the deals (``deal_rng`` is ``play_game``'s; long tournaments
at nearby seeds share none), and ``max_steps=0``.

``eightfold play``: the lines ``play --vs`` prints around the board for a scripted game, the
record it appends (every field), the commands' other spellings, the limit on a line's length,
the messages of refused input, the refused seats and options, ``--moves`` starts, an abandoned
game's record, the note on a player's parameters, your own cards (``Game.private_text``),
the other seats' hidden moves (``Game.public_action_string``), the bot's generator, and
``--watch``/``--random``'s lines, seats, generators, stops and records.

Every game is played in-process with bots; the file runs in a few seconds."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from envs.core.bots import Bot, RandomBot
from envs.core.game import GameState
from envs.core.registry import GAMES
from tests.training.toy_game import ToyGame
from training.cli import main
from training.position import reset_to_position
from training.tournament import (
    PairResult,
    bradley_terry_elo,
    game_seed,
    play_game,
    play_pairing,
    wilson,
)

OAO2 = ["over_and_out", "--param", "num_players=2"]


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (7, 20, 0.18119182, 0.56714572),
        (3, 10, 0.10779127, 0.60322185),
        (1, 3, 0.06149194, 0.79234040),
        (19, 20, 0.76386880, 0.99111855),
        (2.5, 4, 0.21942652, 0.90810077),
    ],
)
def test_wilson_interval_has_the_textbook_bounds(k: float, n: int, lo: float, hi: float) -> None:
    """The 95% Wilson score interval (z = 1.959964) of k successes in n: its centre
    ``(p + z²/2n) / (1 + z²/n)`` and half-width ``z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)``,
    to 8 decimals (7 of 20: [0.1812, 0.5671]; another z or a dropped term moves them)."""
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-8) and got[1] == pytest.approx(hi, abs=1e-8)


def test_a_pairings_summary_field_by_field() -> None:
    """The JSON ``pairs`` entry: the players in order, the counts, ``win_rate`` = wins /
    games with the Wilson interval of the wins (a draw is no win), ``score`` = (wins +
    draws/2) / games, the games cut off at the step limit (``truncated``), and the mean
    placement and return over the games."""
    res = PairResult("alpha", "beta")
    for result, place, ret, cut in (
        ("win", 1.0, 1.0, False),
        ("draw", 1.5, 0.0, False),
        ("draw", 1.5, 0.0, True),  # cut off at the step limit
        ("loss", 2.0, -1.0, False),
        ("win", 1.0, 1.0, False),
        ("win", 1.0, 0.5, False),
        ("loss", 2.0, -1.0, False),
    ):
        res.add(result, place, ret, cut)
    lo, hi = wilson(3, 7)
    assert res.summary() == {
        "a": "alpha",
        "b": "beta",
        "games": 7,
        "wins": 3,
        "draws": 2,
        "losses": 2,
        "truncated": 1,
        "truncated_results": {"wins": 0, "draws": 1, "losses": 0},
        "win_rate": pytest.approx(3 / 7),
        "win_rate_ci95": [pytest.approx(lo), pytest.approx(hi)],
        "score": pytest.approx(4 / 7),
        "mean_placement": pytest.approx(10.0 / 7),
        "mean_return": pytest.approx(0.5 / 7),
    }
    assert lo < hi and lo == pytest.approx(0.15822, abs=1e-5)


def test_an_empty_pairings_summary() -> None:
    """No games: rates 0 with the whole [0, 1] interval, and no mean placement or return
    (NaN, not 0: a 0 placement or return would read as a result)."""
    summary = PairResult("a", "b").summary()
    assert summary["games"] == 0 and summary["win_rate"] == 0.0 and summary["score"] == 0.0
    assert summary["win_rate_ci95"] == [0.0, 1.0]
    assert math.isnan(summary["mean_placement"]) and math.isnan(summary["mean_return"])


def test_merging_the_parts_of_a_pairing_adds_everything() -> None:
    """Worker chunks of one pairing merge into one result: every count, every game's
    placement and return, and the kept records, in order."""
    one = PairResult("a", "b", games=3, wins=1, draws=1, losses=1, placements=[1.0, 1.5, 2.0])
    one.returns, one.records = [1.0, 0.0, -1.0], [{"game": 0}]
    two = PairResult("a", "b", games=3, wins=0, draws=1, losses=2, placements=[1.5, 2.0, 2.0])
    two.returns, two.records = [0.0, -1.0, -1.0], [{"game": 3}, {"game": 5}]
    one.merge(two)
    assert (one.games, one.wins, one.draws, one.losses) == (6, 1, 2, 3)
    assert one.placements == [1.0, 1.5, 2.0, 1.5, 2.0, 2.0]
    assert one.returns == [1.0, 0.0, -1.0, 0.0, -1.0, -1.0]
    assert one.records == [{"game": 0}, {"game": 3}, {"game": 5}]
    assert one.score == pytest.approx(2 / 6)


def test_the_placement_score_is_the_mean_of_the_places_turned_to_scores() -> None:
    """``(sides - place) / (sides - 1)`` per game, averaged: places 1, 2, 3, 3 of three sides
    score 1, 0.5, 0, 0 (0.375: neither their median 0.25 nor ``/ sides``); with no places or
    fewer than two sides it is the win score."""
    res = PairResult("a", "b")
    for place in (1.0, 2.0, 3.0, 3.0):
        res.add("win" if place == 1.0 else "loss", place, 0.0)
    assert res.placement_score(3) == pytest.approx(0.375)
    assert res.placement_score(1) == res.score == pytest.approx(0.25)
    assert PairResult("a", "b", games=4, wins=3, draws=1).placement_score(3) == pytest.approx(0.875)


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "ratio"),
    [(3, 0, 1, 3.25 / 1.25), (2, 2, 1, 3.25 / 2.25), (0, 0, 5, 0.25 / 5.25), (1, 0, 1, 1.0)],
)
def test_two_player_elo_is_the_closed_form(wins: int, draws: int, losses: int, ratio: float) -> None:
    """Two players: the Bradley-Terry fit gives strengths in the ratio of the scores, a
    quarter win (half a draw) of prior added to each side: Elo(b) = 1000 - 400·log10((w +
    d/2 + 1/4) / (l + d/2 + 1/4)), the first player anchored at exactly 1000."""
    pair = PairResult("a", "b", games=wins + draws + losses, wins=wins, draws=draws, losses=losses)
    elo = bradley_terry_elo(["a", "b"], [pair])
    assert list(elo) == ["a", "b"] and elo["a"] == 1000.0
    assert elo["b"] == pytest.approx(1000.0 - 400.0 * math.log10(ratio), abs=1e-6)


def test_elo_of_a_small_three_player_table() -> None:
    """a beat b 3-1; b met c ten times (6 wins, 2 draws, 2 losses); a and c never met.
    The fit, to 1e-6: a 1000, b 863.706726, c 736.551023; named in another order the first
    named is the anchor and the gaps stay (b 1000, a 1136.293274, c 872.844297)."""
    ab = PairResult("a", "b", games=4, wins=3, losses=1)
    bc = PairResult("b", "c", games=10, wins=6, draws=2, losses=2)
    elo = bradley_terry_elo(["a", "b", "c"], [ab, bc])
    assert elo["a"] == 1000.0
    assert elo["b"] == pytest.approx(863.7067257, abs=1e-6)
    assert elo["c"] == pytest.approx(736.5510229, abs=1e-6)
    again = bradley_terry_elo(["b", "a", "c"], [ab, bc])
    assert list(again) == ["b", "a", "c"] and again["b"] == 1000.0
    assert again["a"] == pytest.approx(1136.2932743, abs=1e-6)
    assert again["c"] == pytest.approx(872.8442971, abs=1e-6)


def test_elo_with_three_sides_reads_the_places() -> None:
    """With three sides a pairing's score is its placement score: places 1, 2, 3, 3 are
    1.5 of 4 games, so b rates 400·log10(2.75 / 1.75) = 78.5 points above a."""
    res = PairResult("a", "b")
    for place in (1.0, 2.0, 3.0, 3.0):
        res.add("win" if place == 1.0 else "loss", place, 0.0)
    elo = bradley_terry_elo(["a", "b"], [res], sides=3)
    assert elo["b"] == pytest.approx(1000.0 + 400.0 * math.log10(2.75 / 1.75), abs=1e-6)


# ------------------------------------------------------------------- pairings
class _Add(Bot):
    """Always adds the same number (1, 2 or 3) in the toy game."""

    name = "add"

    def __init__(self, game: ToyGame, amount: int) -> None:
        super().__init__(game)
        self.amount = amount

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return self.amount - 1


def test_a_pairings_records_name_the_seats_seeds_start_and_moves() -> None:
    """Two seats: game g seats the first player in seat g mod 2 and the record names each
    seat's player, the game's own seed (``game_seed``), the first state as reset options
    under ``"state"``, the moves in notation, the returns, ``truncated`` and the result."""
    game = ToyGame(num_players=2)
    res = play_pairing(game, _Add(game, 1), _Add(game, 3), ("one", "three"), range(3), seed=5, records=True)
    assert [r["game"] for r in res.records] == [0, 1, 2]
    assert [r["seed"] for r in res.records] == [game_seed(5, g) for g in range(3)]
    assert [r["seats"] for r in res.records] == [["one", "three"], ["three", "one"], ["one", "three"]]
    first = res.records[0]
    assert set(first) == {"game", "seed", "seats", "returns", "options", "moves", "truncated", "result"}
    assert list(first["options"]) == ["state"] and first["options"]["state"]["total"] == 0
    # seat 0 adds 1, seat 1 adds 3: 1, 4, 5, 8, 9, 12 - seat 1 busts
    assert first["moves"] == ["add 1", "add 3"] * 3 and first["truncated"] is False
    assert first["returns"] == [1.0, -1.0] and first["result"] == "win"
    # game 1: three sits first: 3, 4, 7, 8, 11 - three (seat 0) busts, one wins
    assert res.records[1]["moves"] == ["add 3", "add 1", "add 3", "add 1", "add 3"]
    assert res.records[1]["returns"] == [-1.0, 1.0] and res.records[1]["result"] == "win"
    assert (res.wins, res.losses) == (3, 0) and res.returns == [1.0, 1.0, 1.0]
    assert res.placements == [1.0, 1.0, 1.0]


def test_solo_pairings_compare_both_players_on_each_deal() -> None:
    """Solo: both players play every deal; ``a`` adding 1 makes 10 additions before the bust
    (return 0.9), ``b`` adding 3 makes 4 (0.3): ``a`` wins each deal, placed 1 with its own
    return, and each deal keeps two records, ``a``'s then ``b``'s, with their own returns
    and the shared result."""
    game = ToyGame(num_players=1)
    res = play_pairing(game, _Add(game, 1), _Add(game, 3), ("one", "three"), [0, 4], seed=2, records=True)
    assert (res.games, res.wins, res.draws, res.losses) == (2, 2, 0, 0)
    assert res.placements == [1.0, 1.0] and res.returns == [pytest.approx(0.9)] * 2
    assert [(r["game"], r["seats"], r["result"]) for r in res.records] == [
        (0, ["one"], "win"),
        (0, ["three"], "win"),
        (4, ["one"], "win"),
        (4, ["three"], "win"),
    ]
    assert [r["returns"] for r in res.records] == [[pytest.approx(0.9)], [pytest.approx(0.3)]] * 2
    assert [len(r["moves"]) for r in res.records] == [10, 4, 10, 4]
    assert [r["seed"] for r in res.records] == [game_seed(2, 0)] * 2 + [game_seed(2, 4)] * 2
    reverse = play_pairing(game, _Add(game, 3), _Add(game, 1), ("three", "one"), [0], seed=2)
    assert (reverse.losses, reverse.placements, reverse.returns) == (1, [2.0], [pytest.approx(0.3)])


def test_a_2v2_pairing_counts_the_partners_as_one_side() -> None:
    """Toy 2v2: the first player's partner is a copy of the second. In game 0 (seat 0 adds 3,
    the others 1) seat 1 busts first; the team of seats 0 and 2 wins: a win placed 1, with
    seat 0's return (a partner taken for a rival would make it a draw or a loss)."""
    game = ToyGame(num_players=4, teams=True)
    res = play_pairing(game, _Add(game, 3), _Add(game, 1), ("three", "one"), [0], seed=0, records=True)
    (rec,) = res.records
    assert rec["seats"] == ["three", "one", "one", "one"]
    assert rec["returns"][0] == rec["returns"][2] and rec["returns"][0] > rec["returns"][1]
    assert rec["result"] == "win" and res.placements == [1.0] and res.returns == [rec["returns"][0]]


def test_a_max_steps_of_zero_plays_no_move() -> None:
    """``max_steps=0`` is a limit of no move (not "no limit"): the game is still running."""
    game = ToyGame(num_players=2)
    with pytest.raises(RuntimeError, match=r"^a game ran past max_steps=0$"):
        play_game(game, [_Add(game, 1), _Add(game, 1)], seed=0, max_steps=0)


def test_a_pairing_cut_off_at_the_games_limit_is_recorded_truncated() -> None:
    """Octi with ``max_turns=3``: each game of the pairing is cut off, a draw, and its
    record says ``truncated``."""
    game = GAMES["octi"].game_class()(max_turns=3)
    bot = RandomBot(game)
    res = play_pairing(game, bot, bot, ("random", "random'"), range(2), seed=0, records=True)
    assert [r["truncated"] for r in res.records] == [True, True]
    assert [r["result"] for r in res.records] == ["draw", "draw"] and res.draws == 2


# ----------------------------------------------------------------- play --vs
def _play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], script: str, *args: str
) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", *args]) == 0
    return capsys.readouterr().out


def _refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", *args]) == 2
    return capsys.readouterr().err


def test_the_lines_of_a_scripted_game_and_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over and Out, one chip each, against ``greedy`` in seat 0 (seed 2), answering ``1``
    at every prompt: the lines ``play`` writes around the positions, in order, then the
    record line appended to ``--record`` (eval --records' form, compact JSON)."""
    path = tmp_path / "games.jsonl"
    args = [*OAO2, "--param", "starting_chips=1", "--vs", "greedy", "--seat", "1", "--seed", "2"]
    out = _play(monkeypatch, capsys, "1\n" * 50, *args, "--record", str(path))
    moves = ["play 3", "play 3", "play 3", "play 4", "play 2", "play topsy-turvy"]
    moves += ["play x2", "play -10", "play top-out", "play 0", "play 0", "bust"]
    lines = out.splitlines()
    assert lines[0] == (
        "eightfold/over_and_out-v0: you are player_1, every other seat is greedy. Type 'help' for commands."
    )
    # after each prompt the answer is not echoed: the bot's reply follows on the same line
    bot_lines = [x.split("your move> ")[-1] for x in lines if "plays: " in x]
    assert bot_lines == [f"player_0 (greedy) plays: {m}" for m in moves[0::2]]
    assert [x for x in lines if x.startswith("legal moves (")] == ["legal moves (1):"] * 6
    assert out.count("your move> ") == 6 and "you are out" not in out
    tail = out.splitlines()[-3:]
    assert tail == [
        "game over. returns: [1.0, -1.0]; yours: -1.000",
        "moves so far (12; as --moves, with this game's --seed 2, --param and --options, they set up "
        "the position): " + "; ".join(moves),
        f"added the game to {path} (eightfold replay {path} lists its games)",
    ]
    text = path.read_text()
    assert text.endswith("\n") and text.count("\n") == 1 and ", " not in text and '": ' not in text
    rec = json.loads(text)
    env = GAMES["over_and_out"].env(num_players=2, starting_chips=1)
    reset_to_position(env, 2, None, None)
    assert rec == {
        "env": "eightfold/over_and_out-v0",
        "params": {"num_players": 2, "starting_chips": 1},
        "seed": 2,
        "seats": ["greedy", "human"],
        "returns": [1.0, -1.0],
        "options": {"state": json.loads(json.dumps(env.unwrapped.state.to_dict()))},
        "moves": moves,
        "truncated": False,
        "pairing": ["human", "greedy"],
        "game": 0,
        "result": "loss",
    }


def test_the_bots_moves_come_from_seed_plus_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``--vs`` bot draws from ``default_rng(seed + 1)`` (apart from the deal's
    ``default_rng(seed)``): in seat 0 at seed 0 its first move is the random bot's draw
    from that generator in the dealt position (``play 4``; from the deal's own ``play 5``)."""
    out = _play(monkeypatch, capsys, "quit\n", *OAO2, "--vs", "random", "--seat", "1", "--seed", "0")
    env = GAMES["over_and_out"].env(num_players=2)
    reset_to_position(env, 0, None, None)
    game, state = env.unwrapped.game, env.unwrapped.state
    action = RandomBot(game).act(state, 0, np.random.default_rng(1))
    other = RandomBot(game).act(state, 0, np.random.default_rng(0))
    assert env.unwrapped.action_to_string(action) == "play 4" and other != action
    assert "player_0 (random) plays: play 4\n" in out


@pytest.mark.parametrize(("leave", "why"), [("exit", "quit"), ("  q  ", "quit"), ("QUIT", "quit")])
def test_every_spelling_of_quit_leaves(
    leave: str, why: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``quit``, ``exit`` and ``q``, in any case and with spaces around, leave the game."""
    out = _play(monkeypatch, capsys, f"{leave}\n1\n", *OAO2, "--vs", "random", "--seat", "0")
    assert out.endswith(f"your move> game abandoned ({why}).\n")


def test_question_mark_and_legal_are_help_and_moves(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``?`` prints the help and ``legal`` the legal moves again; neither plays a move."""
    out = _play(monkeypatch, capsys, "?\nlegal\n\nquit\n", *OAO2, "--vs", "random", "--seat", "0")
    assert out.count("commands:\n  <move>") == 1 and out.count("legal moves (3):") == 2
    assert "not a legal move" not in out and "moves so far" not in out


def test_a_number_with_spaces_around_picks_from_the_list(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``"  3 "`` is number 3 of the list (the line's spaces go before it is read)."""
    out = _play(monkeypatch, capsys, "  3 \nquit\n", *OAO2, "--vs", "random", "--seat", "0")
    assert "1) play 3   2) play 4   3) play 5" in out
    assert "they set up the position): play 5; " in out


def test_the_line_length_limit(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A line of up to 200 characters is read as notation (and refused as such); a longer
    one is refused by its length, counted with thousands separators, and not echoed."""
    script = "x" * 200 + "\n" + "y" * 201 + "\n" + "z" * 1500 + "\nquit\n"
    out = _play(monkeypatch, capsys, script, *OAO2, "--vs", "random", "--seat", "0")
    assert "not a legal move: malformed action '" + "x" * 200 + "'" in out
    assert "not a move: a line of 201 characters (type 'moves' for the legal moves)\n" in out
    assert "not a move: a line of 1,500 characters (type 'moves' for the legal moves)\n" in out
    assert "y" * 201 not in out and "z" * 1500 not in out


def test_the_messages_of_refused_moves(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Malformed notation names the game's error and the commands; a move the notation
    knows but that is not legal now is named in its canonical spelling; a number off the
    list says the list's range. None of them plays."""
    script = "foo\n4\nquit\n"
    out = _play(monkeypatch, capsys, script, *OAO2, "--vs", "random", "--seat", "0")
    assert (
        "your move> not a legal move: malformed action 'foo': the first word is one of play, bust, got "
        "'foo'; expected 'play <card>'"
    ) in out
    assert "'bust'\n(type 'moves' for the legal moves, 'help' for commands)\n" in out
    assert "your move> no move numbered 4: the list runs from 1 to 3 (type 'moves')\n" in out
    assert "moves so far" not in out
    # OTTO Game Over's notation names every placement, legal now or not
    out = _play(monkeypatch, capsys, "  DRAWN   A1   R0 \nquit\n", "otto_game_over", "--vs", "random")
    assert "your move> not legal now: 'drawn a1 r0' (type 'moves' for the legal moves)\n" in out
    assert "moves so far" not in out


def test_a_seat_off_the_table_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seat`` counts from 0 to players - 1: seat 2 of two seats is refused, naming the range."""
    err = _refused(monkeypatch, capsys, *OAO2, "--vs", "random", "--seat", "2")
    assert "--seat must be in [0, 1], got 2" in err
    err = _refused(monkeypatch, capsys, *OAO2, "--vs", "random", "--seat", "-1")
    assert "--seat must be in [0, 1], got -1" in err


@pytest.mark.parametrize("extra", [["--delay", "0.5"], ["--max-steps", "3"]])
def test_watch_only_options_are_refused_with_vs(
    extra: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--delay`` and ``--max-steps`` are for watching: with ``--vs`` each is refused."""
    err = _refused(monkeypatch, capsys, *OAO2, "--vs", "random", *extra)
    assert (
        "--max-steps and --delay are for --random and --watch; a game you play (--vs, or a solo game) is "
        "played to its end" in err
    )


def test_a_game_from_moves_says_so_and_records_the_moves_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--moves`` with ``--vs``: the start is announced with the number of moves; the moves
    printed at the end include them (as ``--moves`` replays from the reset), the record's
    ``moves`` start after them, its first state being the position they lead to."""
    path = tmp_path / "g.jsonl"
    args = [*OAO2, "--param", "starting_chips=1", "--vs", "greedy", "--seat", "1", "--seed", "2"]
    out = _play(monkeypatch, capsys, "1\n" * 50, *args, "--moves", "play 3; play 3", "--record", str(path))
    assert "(from the position after the 2 move(s) of --moves)\n" in out
    assert (
        "moves so far (12; as --moves, with this game's --seed 2, --param and --options, they set up " in out
    )
    rec = json.loads(path.read_text())
    assert len(rec["moves"]) == 10 and rec["moves"][0] == "play 3" and rec["seed"] == 2
    env = GAMES["over_and_out"].env(num_players=2, starting_chips=1)
    reset_to_position(env, 2, None, "play 3; play 3")
    assert rec["options"] == {"state": json.loads(json.dumps(env.unwrapped.state.to_dict()))}


def test_an_abandoned_game_is_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Leaving with ``--record`` says the game was not added, and adds nothing."""
    path = tmp_path / "g.jsonl"
    out = _play(monkeypatch, capsys, "1\nquit\n", *OAO2, "--vs", "random", "--record", str(path))
    assert out.endswith(
        f"game abandoned (quit).\n{out.splitlines()[-2]}\n(not added to {path}: the game did not end)\n"
    )
    assert out.splitlines()[-2].startswith("moves so far (2; ")
    assert not path.exists() or path.read_text() == ""


def test_your_own_cards_are_shown_at_your_turn(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """OGO-27 / OTTO Game Over: the seat's secret cards (``Game.private_text``) are printed below the
    position at the prompt."""
    out = _play(monkeypatch, capsys, "quit\n", "otto_game_over", "--vs", "random", "--seat", "0")
    env = GAMES["otto_game_over"].env()
    reset_to_position(env, 0, None, None)
    cards = env.unwrapped.game.private_text(env.unwrapped.state, 0)
    assert cards.startswith("your cards: ")
    assert f"\n{cards}\nlegal moves (" in out


def test_a_variant_reaches_the_record_as_a_param(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--variant`` is ``--param variant=...``: the record's params name it."""
    path = tmp_path / "g.jsonl"
    args = ["octi", "--variant", "x_fast", "--param", "max_turns=2", "--record", str(path)]
    _play(monkeypatch, capsys, "1\n" * 20, *args, "--vs", "random")
    rec = json.loads(path.read_text())
    assert rec["params"] == {"variant": "x_fast", "max_turns": 2} and rec["truncated"] is True


# -------------------------------------------------------------- --watch / --random
def test_watch_takes_one_player_or_one_per_seat(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over and Out with three seats: two ``--watch`` players are refused, naming the seats."""
    args = ["over_and_out", "--param", "num_players=3", "--watch", "random", "greedy"]
    err = _refused(monkeypatch, capsys, *args)
    assert "--watch takes one player for each of the 3 seats, or one for all of them; got 2" in err


def test_watch_lines_name_each_seats_player_and_every_seat_draws_its_own_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--watch random greedy``: each move is printed as ``[step] agent (player): move``,
    numbered from 0; the random seat draws from its own stream of ``SeedSequence(seed)``;
    the end prints the move count, every seat's moves, and the record names the players."""
    path = tmp_path / "w.jsonl"
    out = _play(
        monkeypatch, capsys, "", *OAO2, "--watch", "random", "greedy", "--seed", "3", "--record", str(path)
    )
    steps = re.findall(r"^\[(\d+)\] (player_\d) \((\w+)\): (.+)$", out, flags=re.MULTILINE)
    assert [int(s[0]) for s in steps] == list(range(len(steps)))
    assert all((who, p) in (("player_0", "random"), ("player_1", "greedy")) for _, who, p, _ in steps)
    moves = [s[3] for s in steps]
    assert f"game over after {len(moves)} moves. returns: " in out
    assert out.splitlines()[-2].endswith("they set up the position): " + "; ".join(moves))
    # the random seat's first move: its own stream, in the dealt position
    env = GAMES["over_and_out"].env(num_players=2)
    reset_to_position(env, 3, None, None)
    rng = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[0])
    first = RandomBot(env.unwrapped.game).act(env.unwrapped.state, 0, rng)
    assert moves[0] == env.unwrapped.action_to_string(first)
    rec = json.loads(path.read_text())
    assert rec["seats"] == ["random", "greedy"] and rec["moves"] == moves and "pairing" not in rec
    assert rec["options"]["state"]["chips"] == [4, 4]


def test_random_play_draws_from_seed_and_one_and_stops_at_max_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--random``: uniform legal moves from ``default_rng([seed, 1])``; ``--max-steps 3``
    stops after exactly 3 moves with no result, prints no moves list (that is ``--watch``'s)
    and adds nothing to ``--record``."""
    path = tmp_path / "r.jsonl"
    out = _play(
        monkeypatch, capsys, "", *OAO2, "--random", "--seed", "6", "--max-steps", "3", "--record", str(path)
    )
    steps = re.findall(r"^\[(\d+)\] (player_\d): (.+)$", out, flags=re.MULTILINE)
    assert [int(s[0]) for s in steps] == [0, 1, 2]
    assert out.endswith(
        f"(stopped after 3 steps, before the end: no result)\n(not added to {path}: the game did not end)\n"
    )
    assert "moves so far" not in out and not path.exists()
    env = GAMES["over_and_out"].env(num_players=2)
    reset_to_position(env, 6, None, None)
    rng = np.random.default_rng([6, 1])
    for _, _, move in steps:
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        assert move == env.unwrapped.action_to_string(action)
        env.step(action)


def test_random_play_to_the_end_records_random_seats_and_says_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``--random`` Octi game cut off by ``max_turns``: each seat's end line says
    ``(truncated)``, no moves list is printed, and the record names ``random`` for every seat."""
    path = tmp_path / "r.jsonl"
    out = _play(monkeypatch, capsys, "", "octi", "--param", "max_turns=2", "--random", "--record", str(path))
    assert "player_0 finished with reward +0.000 (truncated)\n" in out
    assert "player_1 finished with reward +0.000 (truncated)\n" in out
    assert "moves so far" not in out
    rec = json.loads(path.read_text())
    assert rec["seats"] == ["random", "random"] and rec["truncated"] is True and len(rec["moves"]) == 2
    assert re.search(r"game over after 2 moves\. returns: \[0\.0, 0\.0\]", out)


def test_play_game_deals_from_deal_rng() -> None:
    """``deal_rng(game, seed)`` is the generator ``play_game`` deals game ``seed`` from
    (``eval`` checks a ``--moves`` start on it before playing): Over and Out's shuffled
    first state in the record is the one dealt from it, game after game."""
    from training.tournament import deal_rng

    game = GAMES["over_and_out"].game_class()(num_players=2)
    bots = [RandomBot(game), RandomBot(game)]
    firsts = []
    for seed in (game_seed(3, 0), game_seed(3, 1)):
        record: dict[str, object] = {}
        play_game(game, bots, seed=seed, record=record)
        dealt = game.new_initial_state(deal_rng(game, seed)).to_dict()
        assert record["options"] == {"state": dealt}
        firsts.append(dealt["draw_pile"])
    assert firsts[0] != firsts[1]


def test_game_seeds_of_long_tournaments_do_not_overlap_the_next_seeds() -> None:
    """Tournaments of up to 100,000 games at seeds 0, 1 and 2 share no deal (a stride of
    1,000 would replay seed 0's game 1,000 as seed 1's game 0)."""
    seen = [game_seed(s, g) for s in range(3) for g in range(100_000)]
    assert len(set(seen)) == len(seen)


def test_solo_pairings_deal_the_same_game_to_both_players() -> None:
    """Solo OTTO Game Over: ``a`` and ``b`` play the very same deal (their records of a game
    start from the same state, the one dealt from ``game_seed``), and the games of the
    pairing deal apart."""
    from training.tournament import deal_rng

    game = GAMES["otto_game_over"].game_class()(num_players=1)
    res = play_pairing(game, RandomBot(game), RandomBot(game), ("r1", "r2"), [0, 1], seed=1, records=True)
    firsts = [r["options"] for r in res.records]
    assert firsts[0] == firsts[1] and firsts[2] == firsts[3] and firsts[0] != firsts[2]
    assert firsts[0] == {"state": game.new_initial_state(deal_rng(game, game_seed(1, 0))).to_dict()}


def test_one_watch_player_plays_every_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--watch greedy`` in a three-seat game: one player for all seats, each move line and
    the record naming it for every seat."""
    path = tmp_path / "w.jsonl"
    args = ["over_and_out", "--param", "num_players=3", "--watch", "greedy", "--record", str(path)]
    out = _play(monkeypatch, capsys, "", *args)
    steps = re.findall(r"^\[\d+\] (player_\d) \((\w+)\): ", out, flags=re.MULTILINE)
    assert {who for who, _ in steps} == {"player_0", "player_1", "player_2"}
    assert {p for _, p in steps} == {"greedy"}
    assert json.loads(path.read_text())["seats"] == ["greedy"] * 3


def test_a_game_that_ends_on_its_last_allowed_step_has_a_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--max-steps 2`` on an Octi game of two moves (``max_turns=2``): the game ended on
    its last allowed step, so it is over with its result and recorded, not "stopped"."""
    path = tmp_path / "r.jsonl"
    args = ["octi", "--param", "max_turns=2", "--random", "--max-steps", "2", "--record", str(path)]
    out = _play(monkeypatch, capsys, "", *args)
    assert "stopped after" not in out and "game over after 2 moves. returns: [0.0, 0.0]" in out
    assert len(json.loads(path.read_text())["moves"]) == 2


def test_a_watched_game_from_moves_records_the_moves_after_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--random --moves``: the record starts from the position after ``--moves`` (its
    first state), so its moves are only those played after them."""
    path = tmp_path / "r.jsonl"
    args = ["octi", "--param", "max_turns=2", "--moves", "prong c2 N", "--random", "--record", str(path)]
    out = _play(monkeypatch, capsys, "", *args)
    assert "(from the position after the 1 move(s) of --moves)\n" in out
    rec = json.loads(path.read_text())
    steps = re.findall(r"^\[\d+\] player_\d: (.+)$", out, flags=re.MULTILINE)
    assert rec["moves"] == steps and len(steps) == 1
    env = GAMES["octi"].env(max_turns=2)
    reset_to_position(env, 0, None, "prong c2 N")
    assert rec["options"] == {"state": json.loads(json.dumps(env.unwrapped.state.to_dict()))}


def test_play_prints_the_players_parameter_note_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --vs`` prints ``params_note``'s note (a model trained with other game
    parameters) before the game starts. A model costs seconds to build, so the note (the
    project's own function, pinned in ``test_cli.py``) is stood in for here."""
    from training import play

    asked: list[str] = []

    def note(spec: str, game: object) -> str:
        asked.append(spec)
        return "note: stand-in note"

    monkeypatch.setattr(play, "params_note", note)
    out = _play(monkeypatch, capsys, "quit\n", *OAO2, "--vs", "greedy")
    assert asked == ["greedy"]
    assert out.startswith(
        "note: stand-in note\neightfold/over_and_out-v0: you are player_0, every other seat is greedy."
    )


def test_the_other_seats_hidden_moves_are_shown_as_at_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """OTP-20 / OTP-26: hands are secret, and a seahorse returns a tile of the hand, so only
    the returning player knows which tile went back. Against
    ``random`` at seed 0 the bot returns a tile: the human sees ``return a tile to the
    pile`` (``Game.public_action_string``); only the moves printed at the end, the game
    being over, name the tiles returned."""
    out = _play(monkeypatch, capsys, "1\n" * 300, "otto_octopus", "--vs", "random", "--seed", "0")
    shown = re.findall(r"^(?:your move> )?player_1 \(random\) plays: (.+)$", out, flags=re.MULTILINE)
    assert shown.count("return a tile to the pile") == 1
    assert not [m for m in shown if m.startswith("return ") and m != "return a tile to the pile"]
    returns = [m for m in _record_moves(out) if m.startswith("return ")]  # yours and the bot's
    assert len(returns) == 2 and "return a tile to the pile" not in returns


def _record_moves(out: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith("moves so far ("))
    return line.split("they set up the position): ", 1)[1].split("; ")
