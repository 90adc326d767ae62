"""``eightfold play`` / ``render`` from a chosen position: ``--options`` (the game's reset
options) and ``--moves`` (notation after the reset), ``training/position.py``."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from envs.core.registry import GAMES, installed_games
from training.cli import main
from training.position import play_moves, reset_to_position

#: small configurations whose seeded random games end in a few hundred moves
SHORT_GAMES = {
    "octi": {"max_turns": 12},
    "over_and_out": {"num_players": 3, "starting_chips": 1},
    "otto_octopus": {"num_players": 3},
    "otto_game_over": {"episode": "match"},
}


def _random_game(name: str, params: dict[str, Any], seed: int) -> tuple[list[str], Any]:
    """A seeded random game to its end through env(): its moves in notation, and the env."""
    env = GAMES[name].env(**params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = []
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        moves.append(env.unwrapped.action_to_string(action))
        env.step(action)
    return moves, env


@pytest.mark.parametrize("name", [g for g in SHORT_GAMES if g in installed_games()])
def test_moves_replay_a_whole_game_and_refuse_one_more(name: str) -> None:
    params = SHORT_GAMES[name]
    moves, played = _random_game(name, params, seed=3)
    env = GAMES[name].env(**params)
    # dead steps of knocked-out seats (Over and Out) are taken on the way
    assert reset_to_position(env, 3, None, "; ".join(moves)) == len(moves)
    assert env.unwrapped.state.is_terminal()
    assert env.unwrapped.snapshot() == played.unwrapped.snapshot()
    assert env.unwrapped.state.returns().tolist() == played.unwrapped.state.returns().tolist()
    with pytest.raises(ValueError, match=rf"--moves: the game is over before move {len(moves) + 1} "):
        reset_to_position(env, 3, None, "; ".join([*moves, moves[-1]]))


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
def test_render_after_moves_draws_the_position_the_reset_option_sets_up(tmp_path: Path) -> None:
    opening = ["prong c2 N", "prong d6 S", "step c2 N"]
    out = tmp_path / "pos.png"
    assert main(["render", "octi", "--moves", " ; ".join(opening) + ";", "--out", str(out)]) == 0
    env = GAMES["octi"].env(render_mode="rgb_array")
    env.reset(seed=0, options={"moves": opening})
    expected = env.render()
    assert np.array_equal(np.asarray(Image.open(out).convert("RGB")), expected)
    # --options gives the same position, and --moves continues from it
    other = tmp_path / "other.png"
    options = json.dumps({"moves": opening[:2]})
    assert main(["render", "octi", "--options", options, "--moves", opening[2], "--out", str(other)]) == 0
    assert other.read_bytes() == out.read_bytes()


@pytest.mark.skipif("otto_game_over" not in installed_games(), reason="OTTO Game Over not installed")
def test_options_file_holds_a_snapshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves, _ = _random_game("otto_game_over", {"episode": "match"}, seed=5)
    env = GAMES["otto_game_over"].env(episode="match", render_mode="rgb_array")
    reset_to_position(env, 5, None, "; ".join(moves[: len(moves) // 2]))
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({"position": env.unwrapped.snapshot()}))
    out = tmp_path / "pos.png"
    args = ["--param", "episode=match", "--options", f"@{path}", "--out", str(out)]
    assert main(["render", "otto_game_over", *args]) == 0
    assert np.array_equal(np.asarray(Image.open(out).convert("RGB")), env.render())
    assert "after 0 random steps" in capsys.readouterr().out


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--moves", "prong c2 N; prong z9 S"), "--moves: move 2 'prong z9 S' (player_1 to act): "),
        (("--moves", "prong c2 N;; step c2 N"), "--moves: move 2 is empty; expected moves in the game's notation"),
        (("--options", '{"moves": ['), "--options is not valid JSON (Expecting value: line 1 column 12 (char 11)); expected"),
        (("--options", "[1]"), "--options must be a JSON object of the game's reset options (see its doc page), got a JSON array"),
        (("--options", '{"deck_top": []}'), "--options: unknown reset option(s) ['deck_top']; allowed: ['moves', 'position', 'state']"),
        (("--options", '{"moves": ["prong c2 X"]}'), "--options: option 'moves'[0] 'prong c2 X': "),
    ],
)  # fmt: skip
def test_a_bad_position_is_a_usage_error_naming_what_is_wrong(
    args: tuple[str, ...], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pos.png"
    assert main(["render", "octi", *args, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.skipif("otto_game_over" not in installed_games(), reason="OTTO Game Over not installed")
def test_a_well_formed_move_that_is_not_legal_lists_the_legal_ones() -> None:
    """OTTO Game Over's notation names placements that are not legal now (a masked index):
    ``--moves`` refuses one and lists the legal moves, the first 20 of them."""
    env = GAMES["otto_game_over"].env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[env.unwrapped.string_to_action("drawn a1 r0")] == 0
    legal = [env.unwrapped.action_to_string(int(a)) for a in np.flatnonzero(mask)]
    with pytest.raises(ValueError, match=r"is not legal for player_0") as info:
        play_moves(env, ["drawn a1 r0"])
    shown = ", ".join(legal[:20]) + (f", ... ({len(legal)} in all)" if len(legal) > 20 else "")
    assert str(info.value) == f"--moves: move 1 'drawn a1 r0' is not legal for player_0 here; legal: {shown}"
    assert env.unwrapped.state.current_player() == 0  # nothing was played


def test_a_missing_options_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = installed_games()[0]
    missing = tmp_path / "nowhere.json"
    assert main(["render", name, "--options", f"@{missing}", "--out", str(tmp_path / "x.png")]) == 2
    assert f"--options file '{missing}': no such file" in capsys.readouterr().err


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
def test_play_starts_from_the_position(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "octi", "--vs", "random", "--seat", "1", "--moves", "prong c2 N"]) == 0
    out = capsys.readouterr().out
    assert "(from the position after the 1 move(s) of --moves)" in out
    assert "Black pods: b2[] c2[N] d2[] e2[]" in out  # the move was played before the first prompt
    assert main(["play", "octi", "--random", "--max-steps", "1", "--moves", "prong c2 N; prong d6 S"]) == 0
    assert "turn 3 of 300" in capsys.readouterr().out


@pytest.mark.parametrize("name", [g for g in ("otto_octopus", "otto_game_over") if g in installed_games()])
def test_the_record_play_prints_sets_up_the_position_again(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the end ``play --vs`` prints every seat's moves in full, and ``--moves`` with them
    reproduces the position (hidden parts included) after the same seeded reset."""
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 6 + "quit\n"))
    assert main(["play", name, "--seed", "4", "--vs", "heuristic", "--seat", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("moves so far ("))
    record = line.split("they set up the position): ", 1)[1]
    assert line.startswith(f"moves so far ({len(record.split('; '))}; as --moves, with this game's --seed 4,")
    assert len(record.split("; ")) >= 12  # six of yours, and the bot's between them
    env = GAMES[name].env()
    reset_to_position(env, 4, None, record)
    # the last prompt showed this position: the same seat to act, the same legal moves
    assert env.agent_selection == "player_1"
    header, *rest = out.rsplit("legal moves (", 1)[1].splitlines()
    listing = "   ".join(
        x.strip() for x in rest[: next(i for i, x in enumerate(rest) if not x.startswith("  "))]
    )
    shown = re.findall(r"\d+\) (.+?)(?=\s{3}\d+\)|$)", listing)
    mask = env.observe("player_1")["action_mask"]
    legal = [env.unwrapped.action_to_string(int(a)) for a in np.flatnonzero(mask)]
    assert header == f"{len(legal)}):" and sorted(shown) == sorted(legal)


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
def test_watch_labels_each_seat_and_its_record_replays(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["play", "octi", "--seed", "2", "--watch", "heuristic", "mcts:sims=8", "--max-steps", "9"]
    assert main(args) == 0
    out = capsys.readouterr().out
    moves = re.findall(r"^\[(\d+)\] (player_\d) \(([^)]+)\): (.+)$", out, re.M)
    assert [int(m[0]) for m in moves] == list(range(9))
    assert {(m[1], m[2]) for m in moves} == {("player_0", "heuristic"), ("player_1", "mcts:sims=8")}
    line = out.splitlines()[-1]
    assert line.startswith("moves so far (9; as --moves, with this game's --seed 2,")
    record = line.split("they set up the position): ", 1)[1]
    assert record.split("; ") == [m[3] for m in moves]
    # the board printed before the last move is the one the record without it sets up
    env = GAMES["octi"].env(render_mode="ansi")
    reset_to_position(env, 2, None, "; ".join(record.split("; ")[:-1]))
    assert out.split("[8] ")[0].rstrip().endswith(env.render().rstrip())
    assert main(args) == 0 and capsys.readouterr().out == out  # the same seed, the same game


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--watch", "random", "random", "random"), "--watch takes one player for each of the 2 seats, or one for all"),
        (("--watch", "random", "--random"), "choose one of --random (watch a random game), --watch <players>"),
        (("--watch", "random", "--vs", "random"), "and --vs <bot|model> (play), got --watch and --vs"),
        (("--watch", "random", "--seat", "1"), "--seat is your seat with --vs <bot|model>"),
        (("--watch", "heuristic", "mcts:simz=3"), "unknown parameter(s) ['simz'] for bot 'mcts'; allowed: ['sims',"),
    ],
)  # fmt: skip
def test_bad_watch_options_are_usage_errors(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = next(g for g in installed_games() if GAMES[g].game_class()().num_players == 2)
    assert main(["play", name, *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif("octi" not in installed_games(), reason="Octi not installed")
def test_eval_plays_every_game_from_the_start_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every game starts from the position given, and its result is that game's: from a game
    one move short of its end, the first player wins in the winner's seat and loses in the
    other, whoever plays (the pairing, from the finished game); the CLI refuses a start where
    the game is already over, and the JSON names the start."""
    from envs.core.bots import make_bot
    from training.tournament import play_pairing

    env = GAMES["octi"].env()
    game = env.unwrapped.game
    bots = [make_bot(game, "heuristic", GAMES["octi"].bots()), make_bot(game, "random", GAMES["octi"].bots())]
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    moves = []
    while not env.unwrapped.state.is_terminal():
        seat = env.unwrapped.state.current_player()
        action = int(bots[seat].act(env.unwrapped.state, seat, rng))
        moves.append(env.unwrapped.action_to_string(action))
        env.step(action)
    assert env.unwrapped.state.returns().tolist() == [1.0, -1.0]  # heuristic won, in seat 0
    res = play_pairing(game, bots[1], bots[0], ("random", "heuristic"), range(6), start=(None, moves))
    assert (res.wins, res.losses) == (3, 3)  # random "wins" in seat 0
    out = tmp_path / "r.json"
    args = ["eval", "octi", "--players", "random", "heuristic", "--games", "6", "--workers", "1"]
    assert main([*args, "--moves", "; ".join(moves)]) == 2
    assert "game 1 of each pairing (its own deal, --seed 0): the game is over there: nothing to play" in (
        capsys.readouterr().err
    )
    assert main([*args, "--moves", "; ".join(moves[:-1]), "--json", str(out)]) == 0
    assert f"every game starts from {len(moves) - 1} move(s) of --moves" in capsys.readouterr().out
    res_json = json.loads(out.read_text())
    assert res_json["start"] == {"options": None, "moves": moves[:-1]}
    assert res_json["pairs"][0]["games"] == 6
    # a start that cannot be set up stops the tournament before its games, naming the move
    assert main([*args, "--moves", "; ".join([*moves, moves[-1]])]) == 2
    assert (
        f"game 1 of each pairing (its own deal, --seed 0): --moves: the game is over before move {len(moves) + 1} "
        in capsys.readouterr().err
    )


@pytest.mark.skipif("otto_octopus" not in installed_games(), reason="Otto the Octopus not installed")
def test_eval_checks_the_moves_after_every_games_deal(capsys: pytest.CaptureFixture[str]) -> None:
    """In a game with chance each game deals afresh: moves legal after one deal may not be
    after another's, and the tournament names the first game whose deal refuses them."""
    moves, _ = _random_game("otto_octopus", {}, seed=3)
    args = ["eval", "otto_octopus", "--players", "random", "heuristic", "--games", "4", "--workers", "1"]
    assert main([*args, "--moves", "; ".join(moves[:6])]) == 2
    assert "of each pairing (its own deal, --seed 0): --moves: move " in capsys.readouterr().err
    # a position fixes the hands: the same first moves are then legal in every game
    position = {
        "position": {"hands": [["straight", "turn-in", "starfish"], ["bubbles", "straight", "turn-in"]]}
    }
    first = "place straight d6; place straight d3"
    assert main([*args, "--options", json.dumps(position), "--moves", first]) == 0


def test_play_refuses_a_position_where_the_game_is_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play`` from a finished position has nothing to play (``render`` still draws it)."""
    moves, _ = _random_game("octi", {}, seed=3)
    joined = "; ".join(moves)
    for how in (["--random"], ["--watch", "random"], ["--vs", "random"]):
        assert main(["play", "octi", "--moves", joined, *how]) == 2
        assert "the game is over in the position of --moves: nothing to play" in capsys.readouterr().err
    assert main(["render", "octi", "--moves", joined, "--out", str(tmp_path / "end.png")]) == 0


def test_output_names_must_say_what_they_hold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--out`` writes a PNG, ``--gif`` a GIF: another ending is a usage error before any work."""
    name = installed_games()[0]
    assert main(["render", name, "--out", str(tmp_path / "r.jpg")]) == 2
    assert "--out writes a PNG: give a file name ending in .png" in capsys.readouterr().err
    assert main(["render", name, "--out", str(tmp_path / "R.PNG")]) == 0
    assert main(["bench", "--games", name, name]) == 2
    assert "--games names a game twice" in capsys.readouterr().err


def test_command_line_mistakes_with_files_and_params_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A binary file where JSON is expected, and ``render_mode`` given as a game parameter,
    are usage errors naming them (they were tracebacks)."""
    binary = tmp_path / "x.gz"
    binary.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    assert main(["replay", str(binary)]) == 2
    assert f"'{binary}' is not a text file (UTF-8)" in capsys.readouterr().err
    assert main(["render", "octi", "--options", f"@{binary}", "--out", str(tmp_path / "o.png")]) == 2
    assert f"--options file '{binary}' is not a text file (UTF-8)" in capsys.readouterr().err
    for command in (["play", "octi", "--random"], ["render", "octi", "--out", str(tmp_path / "o.png")]):
        assert main([*command, "--param", "render_mode=ansi"]) == 2
        assert "--param render_mode: not a game parameter" in capsys.readouterr().err
