"""A mutation round over this sitting's changes to ``eightfold play`` (``training/play.py``,
``training/cli.py``), ``eightfold train``'s rounding of ``--timesteps`` (``training/train.py``)
and the Over and Out picture's seat ellipse (``envs/over_and_out/render.py``): pins of what
``test_play_fuzz.py``, ``test_train_pins2.py`` and ``test_render_pins2.py`` left loose.

* Ctrl-C at the ``--vs`` prompt: the line it prints (``game abandoned (Ctrl-C).`` on a line of
  its own after the prompt), the moves so far and the ``--record`` note, then exit 130;
* Ctrl-C during ``--watch``/``--random``: ``(interrupted after N steps ...)`` with N the moves
  shown, a ``--watch`` game's moves so far (a ``--random`` one's are not printed: its seed
  replays it), the ``--record`` note, exit 130;
* a ``--seat`` already out in the start position (OAO-34): the whole message, naming the seats
  still in;
* solo configs: the whole refusal of ``--vs``, ``--seat`` out of range, ``--random`` still
  watches a random solo game, and ``play --help`` says a solo game is played without ``--vs``;
* ``train``: the rounding note's thousands separators;
* the Over and Out picture: the seat boxes lie where the ellipse's radii put them (columns
  11-749 at 4 and 8 players: 10 px or more from either side, as the render module's note says;
  the right margin was 9 px at first, fixed); two players' boxes span rows 13-97 and
  403-487, above the hand's caption at ``HAND_TOP``.

Every command runs in this process; the file runs in a few seconds."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.training.test_play_fuzz import _CtrlC, _moves_so_far, _oao_position_with_seat_1_out
from training.cli import main

OAO2 = ["over_and_out", "--param", "num_players=2"]


def _run(argv: list[str], stdin: Any = None) -> tuple[int, str, str]:
    """``eightfold *argv`` in-process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", stdin if stdin is not None else io.StringIO(""))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- Ctrl-C at the prompt
def test_ctrl_c_at_the_prompt_says_so_on_its_own_line_and_keeps_no_record(tmp_path: Path) -> None:
    """Ctrl-C at ``your move>``: the terminal shows ``^C`` and no new line, so ``play`` starts
    one, names Ctrl-C as the reason, prints the moves so far and says the game is not added to
    ``--record``; the command ends with the interrupt's status 130."""
    record = tmp_path / "games.jsonl"
    argv = ["play", "octi", "--vs", "random", "--seed", "0", "--record", str(record)]
    code, out, err = _run(argv, _CtrlC("1\n1\n"))
    assert code == 130 and "eightfold play: interrupted" in err
    moves = _moves_so_far(out)
    assert len(moves) == 4
    tail = (
        "your move> \ngame abandoned (Ctrl-C).\n"
        "moves so far (4; as --moves, with this game's --seed 0, --param and --options, they set up "
        f"the position): {'; '.join(moves)}\n"
        f"(not added to {record}: the game did not end)\n"
    )
    assert out.endswith(tail)
    assert not record.exists()


def test_quit_keeps_the_abandon_line_right_after_the_prompt() -> None:
    """``quit`` (echoed by the terminal with its new line) leaves with ``game abandoned (quit).``
    and no blank line, and exit status 0 (only Ctrl-C is an interrupt)."""
    code, out, _err = _run(["play", "octi", "--vs", "random", "--seed", "0"], io.StringIO("1\nquit\n"))
    assert code == 0
    assert "your move> game abandoned (quit).\nmoves so far (2;" in out


# ---------------------------------------------------------------- Ctrl-C while watching
def _interrupt_at_sleep(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """The ``k``-th ``--delay`` pause (after the ``k``-th move) is where Ctrl-C is pressed."""
    import training.play as play

    calls = {"n": 0}

    def sleep(_seconds: float) -> None:
        calls["n"] += 1
        if calls["n"] == k:
            raise KeyboardInterrupt

    monkeypatch.setattr(play.time, "sleep", sleep)


def test_ctrl_c_during_watch_names_the_steps_prints_the_moves_and_no_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the third move of a ``--watch`` game: ``(interrupted after 3 steps, before
    the end: no result)`` on a line of its own (a blank line before it), the three moves in
    ``--moves`` form, the ``--record`` note, exit 130; the moves replay to that position."""
    _interrupt_at_sleep(monkeypatch, 3)
    record = tmp_path / "games.jsonl"
    argv = ["play", *OAO2, "--watch", "random", "--seed", "2", "--delay", "0.01", "--record", str(record)]
    code, out, _err = _run(argv)
    assert code == 130
    shown = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("[")]
    assert len(shown) == 3 and out.count("[2] player_") == 1
    tail = (
        f"[2] {out.split('[2] ', 1)[1].splitlines()[0]}\n\n"
        "\n(interrupted after 3 steps, before the end: no result)\n"
        "moves so far (3; as --moves, with this game's --seed 2, --param and --options, they set up "
        f"the position): {'; '.join(shown)}\n"
        f"(not added to {record}: the game did not end)\n"
    )
    assert out.endswith(tail)
    assert not record.exists()
    code, again, err = _run(["play", *OAO2, "--seed", "2", "--moves", "; ".join(shown), "--random"])
    assert code == 0 and "(from the position after the 3 move(s) of --moves)" in again, err


def test_ctrl_c_during_random_prints_no_moves_but_the_record_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``--random`` game replays from its seed: Ctrl-C prints no moves so far, only the
    interruption and the ``--record`` note."""
    _interrupt_at_sleep(monkeypatch, 2)
    record = tmp_path / "games.jsonl"
    argv = ["play", *OAO2, "--random", "--seed", "2", "--delay", "0.01", "--record", str(record)]
    code, out, _err = _run(argv)
    assert code == 130 and "moves so far" not in out
    assert out.endswith(
        "\n(interrupted after 2 steps, before the end: no result)\n"
        f"(not added to {record}: the game did not end)\n"
    )
    assert not record.exists()


def test_max_steps_on_a_random_game_gives_the_record_note_without_moves(tmp_path: Path) -> None:
    """``--max-steps`` stops a ``--random`` game as Ctrl-C does, without the interrupt: no
    moves so far, the ``--record`` note, exit 0."""
    record = tmp_path / "games.jsonl"
    code, out, err = _run(["play", *OAO2, "--random", "--max-steps", "2", "--record", str(record)])
    assert code == 0, err
    assert out.endswith(
        f"(stopped after 2 steps, before the end: no result)\n(not added to {record}: the game did not end)\n"
    )
    assert not record.exists()


# ---------------------------------------------------------------- a seat already out
def test_a_seat_already_out_is_refused_naming_the_seats_still_in(tmp_path: Path) -> None:
    """OAO-34: a seat without chips is out. ``--seat 1`` in a start position where player_1 is
    out is refused before anything is asked, with the seats still in the game."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(_oao_position_with_seat_1_out()))
    argv = ["play", "over_and_out", "--param", "num_players=3", "--options", f"@{pos}", "--vs", "random"]
    code, out, err = _run([*argv, "--seat", "1"])
    assert code == 2 and out == ""
    assert (
        "--seat 1: player_1 is already out in this position, so there is nothing for you to play; "
        "take a seat still in the game (player_0, player_2)"
    ) in err
    code, out, _err = _run([*argv, "--seat", "2"], io.StringIO("quit\n"))
    assert code == 0 and "you are player_2, every other seat is random." in out


def _moves_knocking_out_seat_1() -> tuple[int, list[str]]:
    """A seed and the moves of a seeded random Over and Out game (3 players) up to the move that
    knocks player_1 out (OAO-34) while the others play on."""
    from envs.core.registry import GAMES

    env = GAMES["over_and_out"].env(num_players=3)
    for seed in range(50):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        moves: list[str] = []
        while env.agents:
            obs, _r, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            moves.append(env.unwrapped.action_to_string(action))
            env.step(action)
            if env.terminations.get("player_1") and not env.unwrapped.state.is_terminal():
                return seed, moves
    raise AssertionError("no such game in 50 seeds")


def test_a_seat_knocked_out_by_the_moves_given_is_refused_too() -> None:
    """OAO-34: ``--moves`` up to the move that knocks player_1 out leave player_1 at the table,
    out (terminated) but not yet stepped past: ``--seat 1`` is refused all the same, naming
    only the seats still in; nothing is played."""
    seed, moves = _moves_knocking_out_seat_1()
    argv = [
        "play",
        "over_and_out",
        "--param",
        "num_players=3",
        "--seed",
        str(seed),
        "--moves",
        "; ".join(moves),
    ]
    code, out, err = _run([*argv, "--vs", "random", "--seat", "1"])
    assert code == 2 and out == ""
    assert (
        "--seat 1: player_1 is already out in this position, so there is nothing for you to play; "
        "take a seat still in the game (player_0, player_2)"
    ) in err


# ---------------------------------------------------------------- solo games
def test_vs_in_a_solo_game_is_refused_with_the_whole_message() -> None:
    """A solo config has no other seat: ``--vs`` is refused naming the game and its players."""
    code, out, err = _run(["play", "otto_octopus", "--param", "num_players=1", "--vs", "random"])
    assert code == 2 and out == ""
    assert ("--vs: a solo otto_octopus game (num_players=1) has no other seat to play; leave --vs out") in err


def test_a_solo_seat_other_than_0_is_off_the_table() -> None:
    """A solo game has the one seat 0: ``--seat 1`` is refused as a seat off the table."""
    code, _out, err = _run(["play", "otto_octopus", "--param", "num_players=1", "--seat", "1"])
    assert code == 2 and "--seat must be in [0, 0], got 1" in err


@pytest.mark.parametrize("mode", [["--random"], ["--watch", "random"]])
def test_random_and_watch_still_watch_a_solo_game(mode: list[str]) -> None:
    """Only a solo game without a mode is played by you: ``--random`` and ``--watch`` watch it
    to its end, asking nothing."""
    code, out, err = _run(["play", "otto_octopus", "--param", "num_players=1", *mode])
    assert code == 0, err
    assert "you are player_0" not in out and "your move>" not in out
    assert "game over after" in out


def test_a_game_of_several_players_without_a_mode_is_still_asked_for_one() -> None:
    """Without ``--random``, ``--watch`` or ``--vs``, a game of two or more players is not
    played: the command says to choose a mode (exit 2)."""
    code, out, err = _run(["play", *OAO2])
    assert code == 2 and "you are" not in out
    assert "choose --random (watch a random game), --watch <players> or --vs <bot|model.zip>" in err


def test_play_help_says_a_solo_game_is_played_without_vs() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "directory (a solo game is played without one)" in " ".join(out.getvalue().split())


# ---------------------------------------------------------------- train's rounding
def test_the_rounding_note_separates_thousands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rollouts of 512 x 2 = 1,024 steps: ``--timesteps 100`` rounds up to 1,024, written with
    the separator the command's other counts use, and ``learn()`` is asked for 1,024 steps."""
    from tests.training.test_train_pins import _train

    out = tmp_path / "run"
    assert _train(out, 100, "--set", "n_steps=512", "--set", "batch_size=512") == 0
    printed = capsys.readouterr().out
    assert (
        "PPO trains in whole rollouts of 1,024 steps (n_steps 512 x n_envs 2): 100 steps to go round up "
        "to 1,024"
    ) in printed
    assert "trained 1,024 steps in" in printed
    # learn() is asked for the rounded count, so the progress bar's total is what is trained
    from stable_baselines3.common.save_util import load_from_zip_file

    data, _params, _vars = load_from_zip_file(out / "model.zip", load_data=True)
    assert data["_total_timesteps"] == data["num_timesteps"] == 1024


# ---------------------------------------------------------------- Over and Out picture
def _oao_image(n: int) -> np.ndarray:
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=n)
    return game.render_rgb(game.new_initial_state(np.random.default_rng(0)))


def _drawn_columns(img: np.ndarray) -> list[int]:
    return [c for c in range(img.shape[1]) if not (img[:, c] == img[0, 0]).all()]


@pytest.mark.parametrize(("n", "first", "last"), [(4, 11, 749), (6, 12, 711), (8, 11, 749)])
def test_over_and_out_seat_boxes_lie_where_the_ellipse_puts_them(n: int, first: int, last: int) -> None:
    """The seat boxes (171 px wide, edges drawn) on the ellipse of x-radius 284 round column 380:
    with 4 and 8 players the side seats' boxes span columns 11-181 and 579-749, and nothing is drawn outside
    the seat boxes' columns."""
    cols = _drawn_columns(_oao_image(n))
    assert (cols[0], cols[-1]) == (first, last)


@pytest.mark.parametrize("n", [4, 8])
def test_over_and_out_seat_boxes_keep_10_px_from_both_sides(n: int) -> None:
    """The render module's note on ``SEAT_RX``: the boxes keep 10 px from the picture's sides."""
    img = _oao_image(n)
    for side in (img[:, :10], img[:, -10:]):
        assert (side == img[0, 0]).all(), "a seat box comes within 10 px of the side"


def test_over_and_out_top_and_bottom_seat_boxes_lie_on_the_ellipse() -> None:
    """Two players sit at the top and the bottom of the seat ellipse (radius 195 round row 250):
    the top box spans rows 13-97, the bottom one rows 403-487 (above the hand's caption at
    ``HAND_TOP``), as the render module's notes say."""
    from envs.over_and_out.render import HAND_TOP

    img = _oao_image(2)
    bg = img[0, 0]
    drawn = [r for r in range(img.shape[0]) if not (img[r, 300:460] == bg).all()]
    top = [r for r in drawn if r < 100]
    assert (top[0], top[-1]) == (13, 97)
    bottom = [r for r in drawn if 400 < r < HAND_TOP]
    assert (bottom[0], bottom[-1]) == (403, 487)
