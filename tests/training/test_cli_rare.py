"""``eightfold play`` and ``replay`` edge cases that mutation testing found unpinned: the
bounds of ``--seat`` and of ``--watch``'s player count, non-finite ``--delay`` values, a
file that cannot be written, the seeding of ``--watch`` and ``--variant`` in game records.

Each test runs in a second or less (short games: ``--max-steps``, ``max_turns``)."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.training.test_cli import eightfold
from training.cli import main
from training.replay import load_records, replay

OAO2 = ["over_and_out", "--param", "num_players=2"]
OAO3 = ["over_and_out", "--param", "num_players=3"]


# ------------------------------------------------------------------------- --seat
@pytest.mark.parametrize(
    ("game", "seat", "n"), [(OAO2, 2, 2), (OAO3, 3, 3), (OAO2, -1, 2)], ids=["2 seats", "3 seats", "negative"]
)
def test_a_seat_past_the_last_is_refused_with_its_range(
    game: list[str], seat: int, n: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats run from 0 to n - 1: ``--seat n`` (one past the last) is a usage error (exit 2)
    naming the option and the game's own range, before any move."""
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", *game, "--vs", "random", "--seat", str(seat)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"eightfold play: error: --seat must be in [0, {n - 1}], got {seat}\n"
    assert captured.out == ""


@pytest.mark.parametrize(("game", "n"), [(OAO2, 2), (OAO3, 3)], ids=["2 seats", "3 seats"])
def test_the_last_seat_is_yours_to_take(
    game: list[str], n: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat n - 1, the last, is taken (the human leaves at once)."""
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", *game, "--vs", "random", "--seat", str(n - 1)]) == 0
    out = capsys.readouterr().out
    assert f"you are player_{n - 1}, every other seat is random" in out and "game abandoned (quit)" in out


# ------------------------------------------------------------------------ --watch
@pytest.mark.parametrize(
    ("game", "players"),
    [(OAO2, ["random", "random", "random"]), (OAO3, ["random", "heuristic"]), (OAO3, ["random"] * 4)],
    ids=["3 for 2 seats", "2 for 3 seats", "4 for 3 seats"],
)
def test_watch_with_a_wrong_number_of_players_is_a_usage_error(
    game: list[str], players: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--watch`` takes one player per seat or one for every seat; any other count is a
    usage error (exit 2) saying so, before the game starts (no board printed)."""
    n = int(game[-1].split("=")[1])
    assert main(["play", *game, "--watch", *players]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"eightfold play: error: --watch takes one player for each of the {n} seats, "
        f"or one for all of them; got {len(players)}\n"
    )
    assert captured.out == ""


@pytest.mark.parametrize("players", [["random"], ["random", "heuristic", "random"]], ids=["one", "three"])
def test_watch_takes_one_player_or_one_per_seat(
    players: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """... and seat k is played by the k-th (or the only) player."""
    assert main(["play", *OAO3, "--watch", *players, "--max-steps", "12"]) == 0
    seen = set(_moves(capsys.readouterr().out, with_players=True))
    named = players * 3 if len(players) == 1 else players
    assert {(seat, who) for seat, who, _move in seen} == {(f"player_{k}", named[k]) for k in range(3)}


def test_watch_without_a_player_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["play", *OAO2, "--watch"])
    assert exc.value.code == 2
    assert (
        "eightfold play: error: argument --watch: expected at least one argument" in capsys.readouterr().err
    )


# ------------------------------------------------------------------------ --delay
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e999", "-0.5"])
@pytest.mark.parametrize(
    "command", [["play", *OAO2, "--random", "--max-steps", "2"], ["replay", "none.jsonl"]]
)
def test_a_delay_that_is_no_finite_number_at_least_0_is_refused(
    command: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--delay`` (play and replay) is a finite number >= 0: ``nan`` would pass a ``< 0``
    check and fail in ``time.sleep`` mid-game, ``inf`` too (or sleep forever). Refused by
    argparse: exit 2, the option and the value named, nothing played."""
    with pytest.raises(SystemExit) as exc:
        main([*command, f"--delay={value}"])  # "=": argparse takes "-inf" for an option
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert f"eightfold {command[0]}: error: argument --delay: must be a number >= 0, got {value}\n" in (
        captured.err
    )
    assert captured.out == ""


def test_a_delay_is_refused_on_the_real_command_line() -> None:
    proc = eightfold("play", *OAO2, "--random", "--delay", "nan")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.endswith("eightfold play: error: argument --delay: must be a number >= 0, got nan\n")


# ----------------------------------------------------------- a file not written
def _dangling(tmp_path: Path, name: str) -> Path:
    """A path that passes the checks made before the work (not a directory, its folder
    exists) but cannot be opened for writing: a link into a folder that does not exist."""
    link = tmp_path / name
    link.symlink_to(tmp_path / "missing" / name)
    return link


def test_a_record_file_that_cannot_be_written_ends_with_status_1_and_one_line(tmp_path: Path) -> None:
    """An OSError writing ``--record`` is reported as one line, ``eightfold play: error:``
    and the OS's message, with exit status 1 (not 2: the command line was right), and no
    traceback."""
    path = _dangling(tmp_path, "rec.jsonl")
    proc = eightfold("play", *OAO2, "--random", "--record", str(path))
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr == f"eightfold play: error: [Errno 2] No such file or directory: '{path}'\n"
    assert "game over after" in proc.stdout and not (tmp_path / "missing").exists()


def test_an_output_file_that_cannot_be_written_ends_with_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same for ``render --out`` (in-process: ``main`` returns 1, it does not raise)."""
    pytest.importorskip("PIL")
    path = _dangling(tmp_path, "pic.png")
    assert main(["render", "octi", "--out", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"eightfold render: error: [Errno 2] No such file or directory: '{path}'\n"
    assert captured.out == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_while_recording_ends_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A write that fails part-way (no space left) is reported the same way."""
    assert main(["play", *OAO2, "--random", "--record", "/dev/full"]) == 1
    assert capsys.readouterr().err == "eightfold play: error: [Errno 28] No space left on device\n"


# ------------------------------------------------------------ --watch's seeding
def _moves(out: str, with_players: bool = False) -> list[Any]:
    """The moves ``play --watch`` printed, in order (with the agent and its player: tuples)."""
    found = re.findall(r"^\[\d+\] (player_\d) \(([^)]*)\): (.+)$", out, flags=re.MULTILINE)
    return found if with_players else [move for _agent, _who, move in found]


def _watch(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["play", "octi", *args, "--max-steps", "12"]) == 0
    return capsys.readouterr().out


def test_watch_is_seeded_by_seed(capsys: pytest.CaptureFixture[str]) -> None:
    """Octi deals nothing at the reset, so a ``--watch`` game of random bots varies only
    through the bots' generators, which ``--seed`` seeds: the same seed gives the same game
    (every position and move), another seed another game."""
    first = _watch(capsys, "--watch", "random", "--seed", "3")
    assert len(_moves(first)) == 12
    assert _watch(capsys, "--watch", "random", "--seed", "3") == first
    others = [_moves(_watch(capsys, "--watch", "random", "--seed", str(s))) for s in (0, 4)]
    assert _moves(first) not in others and others[0] != others[1]


def test_watch_bots_draw_from_their_own_seats_generators(capsys: pytest.CaptureFixture[str]) -> None:
    """``watch``: "bots draw from their own seat's generator": player_0's random moves do
    not depend on how many numbers player_1's bot draws (random, or heuristic with its
    random tie-breaks). In these 12 opening moves the two sides' legal move counts do not
    depend on each other, so player_0 plays the same moves in both games; a generator shared
    by the seats would shift player_0's draws."""
    games = [
        _moves(_watch(capsys, "--watch", "random", p1, "--seed", "1"), with_players=True)
        for p1 in ("random", "heuristic")
    ]
    by_seat = [[[m for agent, _who, m in game if agent == f"player_{k}"] for game in games] for k in (0, 1)]
    assert by_seat[0][0] == by_seat[0][1] and len(by_seat[0][0]) >= 4
    assert by_seat[1][0] != by_seat[1][1]  # player_1 did play differently


# ------------------------------------------------------------- --variant, recorded
@pytest.mark.parametrize("mode", ["--random", "--watch", "--vs"])
def test_a_game_played_with_variant_records_it_and_replays_in_it(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``play --variant x_fast`` (Octi-X on the 9x9 board, OCT-02/03) writes the variant in
    the record's ``params``, so ``eightfold replay`` rebuilds the same game (a record without
    it builds the basic game, which refuses the record's first state: no replay)."""
    path = tmp_path / "games.jsonl"
    players = {"--random": [], "--watch": ["random", "heuristic"], "--vs": ["random"]}[mode]
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 50))
    args = ["play", "octi", "--variant", "x_fast", "--param", "max_turns=3", mode, *players]
    assert main([*args, "--record", str(path)]) == 0
    (rec,) = load_records(path)
    assert rec["params"] == {"max_turns": 3, "variant": "x_fast"}
    assert rec["options"]["state"]["config"]["variant"] == "x_fast"
    env, played = replay(rec, "record 1", io.StringIO())
    assert env.unwrapped.game.config.variant == "x_fast" and played == len(rec["moves"]) > 0
    assert env.unwrapped.state.returns().tolist() == rec["returns"]
    capsys.readouterr()
    assert main(["replay", str(path), "1"]) == 0
    assert "rules: x_fast" in capsys.readouterr().out


def test_eval_notes_seats_left_unbalanced(capsys: pytest.CaptureFixture[str]) -> None:
    """The first player's seat rotates game by game, so only a multiple of the seat count
    balances first-move advantages: ``eval`` says so for other counts, and only then."""
    from training.cli import main

    base = [
        "eval",
        "over_and_out",
        "--param",
        "num_players=3",
        "--players",
        "random",
        "greedy",
        "--workers",
        "1",
    ]
    assert main([*base, "--games", "4"]) == 0
    assert "note: 4 games over 3 seats put the first player in seat 0 once more" in capsys.readouterr().err
    assert main([*base, "--games", "6"]) == 0
    assert "note:" not in capsys.readouterr().err
