"""``eightfold play`` tells a person what happens by itself at the table (``Game.step_events``),
names the tile of another seat's placement in OTTO Game Over, wraps long lists of legal moves,
and says when the closing line of moves names hidden parts it did not show.

A transcript is checked against the engine: the game is replayed from its seed and the printed
moves, and each event line printed after a move must be exactly that move's ``step_events``.
Every command runs in this process (seconds in all)."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest

from envs.core.registry import get_game
from training.cli import main
from training.play import LIST_WIDTH
from training.position import reset_to_position


def _run(argv: list[str], lines: str) -> str:
    """``eightfold *argv`` in-process with ``lines`` as its stdin; its stdout (exit status 0)."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", io.StringIO(lines))
        with contextlib.redirect_stdout(out):
            assert main(argv) == 0
    return out.getvalue()


def _moves(out: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith("moves so far ("))
    return line.split("they set up the position): ", 1)[1].split("; ")


def _events_printed(out: str) -> list[str]:
    """The event lines printed, in order (after a prompt, a person's move prints no line)."""
    lines = (x.removeprefix("your move> ") for x in out.splitlines())
    return [x[4:] for x in lines if x.startswith("  - ")]


def _expected(name: str, params: dict[str, Any], seed: int, moves: list[str]) -> list[list[str]]:
    """Each move's ``step_events`` when the game is replayed from its seed."""
    env = get_game(name).env(**params)
    reset_to_position(env, seed, None, None)
    raw = env.unwrapped
    out = []
    for move in moves:
        action = int(raw.string_to_action(move))
        out.append(raw.game.step_events(raw.state, action))
        env.step(action)
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
    return out


@pytest.mark.parametrize(
    ("name", "params", "argv"),
    [
        ("over_and_out", {"num_players": 3}, ["--param", "num_players=3"]),
        ("otto_game_over", {}, []),
        ("otto_octopus", {"num_players": 3}, ["--param", "num_players=3"]),
    ],
)
def test_each_move_is_followed_by_what_it_sets_off(
    name: str, params: dict[str, Any], argv: list[str]
) -> None:
    """OAO-33..37 (a round lost, the chip, the next deal), OGO-16/48..52 (dark tiles, match ends
    and totals), OTP-19/23 (automatic passes, skips): a person typing the first legal move each
    time reads, after each move (theirs or a bot's), exactly that move's events."""
    out = _run(["play", name, *argv, "--vs", "heuristic", "--seed", "2"], "1\n" * 3000)
    moves = _moves(out)
    assert out.count("game over. returns:") == 1
    expected = _expected(name, params, 2, moves)
    assert _events_printed(out) == [e for g in expected for e in g]
    assert any(expected), "the game had something to say"
    if name == "over_and_out":
        final_round = int(out.split("Over and Out - round ")[-1].split(",")[0])
        # every round ended in a lost round: said once each, and the next deal each time
        assert sum(line.count(": loses round ") for line in out.splitlines()) == final_round
        assert sum(line.startswith("  - round ") for line in out.splitlines()) == final_round - 1


def test_watch_prints_the_events_under_each_move() -> None:
    """``--watch``: the events of each move, under its ``[k]`` line, as for a person's game."""
    out = _run(
        ["play", "over_and_out", "--param", "num_players=2", "--watch", "heuristic", "--seed", "1"], ""
    )
    moves = _moves(out)
    expected = _expected("over_and_out", {"num_players": 2}, 1, moves)
    blocks = out.split("\n[")[1:]
    assert len(blocks) == len(moves)
    for block, events in zip(blocks, expected, strict=True):
        said = [x[4:] for x in block.split("\n\n")[0].splitlines()[1:]]
        assert said == events


def test_another_seats_placement_names_its_tile_in_otto_game_over() -> None:
    """OGO-10: the drawn tile is shown face up and the table tile is public: ``player_1
    (heuristic) plays: drawn c4 r2 (B7)`` names the tile the bot placed."""
    out = _run(["play", "otto_game_over", "--vs", "heuristic", "--seed", "3"], "1\n" * 40)
    placed = [x for x in out.splitlines() if " plays: drawn " in x or " plays: table " in x]
    assert placed
    for line in placed:
        tile = line.rsplit("(", 1)[1].rstrip(")")
        assert tile in {"Z0", "A4", "B7", "C8", "D10", "E12", "F12", "G16"}, line


def test_a_long_list_of_legal_moves_is_wrapped_by_whole_entries() -> None:
    """Octi's first position has 32 legal moves: listed on lines of at most LIST_WIDTH
    characters, each entry whole, numbered 1..32 in order."""
    out = _run(["play", "octi", "--vs", "random", "--seed", "0"], "quit\n")
    block = out.split("legal moves (32):\n", 1)[1].split("your move> ", 1)[0].splitlines()
    assert len(block) > 1 and all(len(x) <= LIST_WIDTH and x.startswith("  ") for x in block)
    entries = "   ".join(x.strip() for x in block).split("   ")
    assert [e.split(")", 1)[0] for e in entries] == [str(i) for i in range(1, 33)]
    env = get_game("octi").env()
    env.reset(seed=0)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert [e.split(") ", 1)[1] for e in entries] == [env.unwrapped.action_to_string(int(a)) for a in legal]


def test_the_closing_moves_say_they_name_what_was_hidden() -> None:
    """OTP-24/26: the other seats' swapped and returned tiles are hidden while you play; the
    closing line (``--moves``' form) names them, and says so. A game with nothing hidden says
    nothing more."""
    hidden_game = None
    for seed in range(12):
        out = _run(
            ["play", "otto_octopus", "--param", "num_players=4", "--vs", "heuristic", "--seed", str(seed)],
            "1\n" * 400,
        )
        if "plays: return a tile to the pile" in out or "plays: swap a tile with" in out:
            hidden_game = out
            break
    assert hidden_game is not None
    line = next(x for x in hidden_game.splitlines() if x.startswith("moves so far ("))
    assert "every seat's in full, the hidden parts you were not shown included" in line
    plain = _run(
        ["play", "over_and_out", "--param", "num_players=2", "--vs", "heuristic", "--seed", "0"], "1\n" * 400
    )
    line = next(x for x in plain.splitlines() if x.startswith("moves so far ("))
    assert "hidden" not in line
