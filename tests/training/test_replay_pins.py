"""Tests closing gaps found by mutation testing of ``eightfold replay`` (``training/replay.py``):
the checks of a record's lines and fields, the seats' header, ``--upto`` and the end-of-game
check, the tolerance on the recorded returns, and ``--result``'s filter."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from training.cli import main
from training.evaluate import run_tournament
from training.replay import format_list, load_records, replay

_NOT_REPLAYED = " (a record of another version of the game, or an edited one?)"


@pytest.fixture(scope="module")
def rec() -> dict[str, Any]:
    """One 2-seat Over and Out game, heuristic (seat 0) against greedy, as a file holds it."""
    records = run_tournament(
        "over_and_out", {"num_players": 2}, ["heuristic", "greedy"], 1, workers=1, records=True
    )["records"]
    rec = json.loads(json.dumps(records[0]))
    assert rec["seats"] == ["heuristic", "greedy"] and len(rec["moves"]) > 2
    return rec


def _write(path: Path, *records: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _exactly(message: str) -> str:
    return "^" + re.escape(message) + "$"


# ------------------------------------------------------------------ load_records: lines, fields
def test_whitespace_only_lines_are_skipped_and_still_counted(rec: dict[str, Any], tmp_path: Path) -> None:
    """Lines of spaces, tabs or a lone "\\r" hold no record (as empty ones), yet count in the
    line numbers that errors name."""
    path = tmp_path / "ws.jsonl"
    line = json.dumps(rec)
    path.write_text(f"   \n{line}\n\t \n\r\n{line}\n  ")
    assert load_records(path) == [rec, rec]
    path.write_text(f"   \n{line}\n\t \n\r\n{{oops\n")
    with pytest.raises(ValueError, match=re.escape(f"{str(path)!r} line 5 is not JSON (")):
        load_records(path)


def test_options_with_a_key_besides_state_are_refused(rec: dict[str, Any], tmp_path: Path) -> None:
    """``options`` is ``{"state": ...}`` and nothing else: a record with the state and another
    reset option (which the replay would not honour) is refused."""
    path = _write(tmp_path / "o.jsonl", {**rec, "options": {"seed": 3, **rec["options"]}})
    message = (
        f'{str(path)!r} line 1: options must be {{"state": ...}} (the game\'s first state, as eval '
        "--records and play --record write it), got {'seed': 3, 'state': {"
    )
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        load_records(path)


def test_empty_seats_are_refused(rec: dict[str, Any], tmp_path: Path) -> None:
    """``seats`` must name at least one player, even when ``returns`` (one per seat) agrees."""
    path = _write(tmp_path / "s.jsonl", {**rec, "seats": [], "returns": []})
    with pytest.raises(
        ValueError,
        match=_exactly(f"{str(path)!r} line 1: seats must be a non-empty list of player names, got []"),
    ):
        load_records(path)


def test_bool_returns_are_refused(rec: dict[str, Any], tmp_path: Path) -> None:
    """JSON ``true``/``false`` are no returns, though Python's bool is an int."""
    path = _write(tmp_path / "r.jsonl", {**rec, "returns": [False, True]})
    with pytest.raises(
        ValueError,
        match=_exactly(
            f"{str(path)!r} line 1: returns must be a list of numbers, one per seat, got [False, True]"
        ),
    ):
        load_records(path)


# ------------------------------------------------------------------------------- replay()
def test_replay_header_lists_each_seat_with_its_player_in_seat_order(rec: dict[str, Any]) -> None:
    """The first line printed pairs seat k's agent with seat k's player."""
    out = io.StringIO()
    replay(rec, "g", out, upto=0)
    assert out.getvalue().splitlines()[0] == "seats: player_0 heuristic, player_1 greedy"


def test_upto_past_the_end_is_clamped_to_the_moves(rec: dict[str, Any]) -> None:
    """``upto`` beyond the record plays the whole game (and says so); ``upto=0`` plays none."""
    n = len(rec["moves"])
    out = io.StringIO()
    env, played = replay(rec, "g", out, upto=n + 5)
    assert played == n and env.unwrapped.state.is_terminal()
    assert out.getvalue().splitlines()[-1] == (
        f"game over after {n} moves. returns: {rec['returns']}; heuristic's {rec['result']}"
    )
    out = io.StringIO()
    env, played = replay(rec, "g", out, upto=0)
    assert played == 0 and "[0] " not in out.getvalue()
    assert out.getvalue().splitlines()[-1] == f"(stopped after 0 of the record's {n} moves)"


@pytest.mark.parametrize("past", [None, 0, 1])
def test_the_end_is_checked_when_the_whole_game_is_replayed(rec: dict[str, Any], past: int | None) -> None:
    """With ``upto`` at or past the number of moves (or none), the recorded returns are
    checked: a record with other returns is refused."""
    n = len(rec["moves"])
    rigged = {**rec, "returns": [-x for x in rec["returns"]]}
    message = (
        f"g does not replay: after its {n} moves returns {rec['returns']}, but the record says "
        f"returns {rigged['returns']}{_NOT_REPLAYED}"
    )
    with pytest.raises(ValueError, match=_exactly(message)):
        replay(rigged, "g", io.StringIO(), upto=None if past is None else n + past)


def test_the_end_is_not_checked_when_the_replay_stops_short(rec: dict[str, Any]) -> None:
    """A replay stopped before the last move checks no result: the rigged record shows."""
    n = len(rec["moves"])
    rigged = {**rec, "returns": [-x for x in rec["returns"]]}
    out = io.StringIO()
    _env, played = replay(rigged, "g", out, upto=n - 1)
    assert played == n - 1
    assert out.getvalue().splitlines()[-1] == f"(stopped after {n - 1} of the record's {n} moves)"


def test_returns_match_up_to_float_noise_only(rec: dict[str, Any]) -> None:
    """Recorded returns a rounding away (1e-9) from the replay's are accepted; 1e-4 away is
    an edited record, refused with both lists."""
    n = len(rec["moves"])
    noisy = {**rec, "returns": [x + 1e-9 for x in rec["returns"]]}
    _env, played = replay(noisy, "g", io.StringIO())
    assert played == n
    edited = {**rec, "returns": [x + 1e-4 for x in rec["returns"]]}
    message = (
        f"g does not replay: after its {n} moves returns {rec['returns']}, but the record says "
        f"returns {edited['returns']}{_NOT_REPLAYED}"
    )
    with pytest.raises(ValueError, match=_exactly(message)):
        replay(edited, "g", io.StringIO())


# ----------------------------------------------------------------------------- --result
def test_result_lists_exactly_the_games_with_that_result(
    rec: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--result R`` lists the games whose ``result`` is R, under their own numbers; a game
    without a result (``play --watch``) is never listed, and a file with no such game is an error."""
    watched = {k: v for k, v in rec.items() if k not in ("pairing", "game", "result")}
    records = [{**rec, "result": "win"}, {**rec, "result": "loss"}, watched, {**rec, "result": "win"}]
    records.append({**rec, "result": "draw"})
    path = _write(tmp_path / "games.jsonl", *records)
    for result, numbers in (("win", [1, 4]), ("loss", [2]), ("draw", [5])):
        assert main(["replay", str(path), "--result", result]) == 0
        out = capsys.readouterr().out
        assert out == format_list([records[k - 1] for k in numbers], numbers) + "\n"
        assert [row.split()[:2] for row in out.splitlines()[1:]] == [[str(k), result] for k in numbers]
    unplayed = _write(tmp_path / "watched.jsonl", watched, {**rec, "result": "loss"})
    assert main(["replay", str(unplayed), "--result", "win"]) == 2
    assert capsys.readouterr().err == (
        f"eightfold replay: error: no game of {unplayed} has the result 'win' (results are the pairing's "
        "first player's, as eval --records writes them)\n"
    )


# ------------------------------------------------------------------ the list of a mixed file
def test_list_names_each_games_env_where_the_file_mixes_games(
    rec: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --record`` and ``eval --records`` append, so one file may hold games of several
    envs (or parameters): the list then names each game's env in a column after the number
    (it gave no game, so the lines could not be told apart before one was picked). A file of
    one env keeps the list as it was, without the column; ``octi`` and ``eightfold/octi-v0``
    are one env."""
    octi = {**rec, "env": "eightfold/octi-v0", "params": {}, "seats": ["heuristic", "random"]}
    three = {**rec, "params": {"num_players": 3}, "seats": ["random"] * 3, "returns": [-1, 1, 0]}
    path = _write(tmp_path / "mixed.jsonl", rec, octi, three)
    assert main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["#", "env", "result"]
    width = len("over_and_out num_players=3")
    assert lines[1].startswith(f"    1  {'over_and_out num_players=2':{width}s}  ")
    assert lines[2].startswith(f"    2  {'octi':{width}s}  ")
    assert lines[3].startswith(f"    3  {'over_and_out num_players=3':{width}s}  ")
    same = format_list([rec, {**rec, "env": "eightfold/over_and_out-v0"}])
    assert same.splitlines()[0] == f"{'#':>5s}  result moves  {'returns':22s} seats (game of its pairing)"
    assert "over_and_out" not in same
