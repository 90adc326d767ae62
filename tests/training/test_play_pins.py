"""``eightfold play --vs``: what a person at the prompt sees and what is played, pinned where
a mutation round of ``training/play.py``, ``training/position.py`` and ``training/params.py``
found the suite blind: the numbers of the legal-move list, the commands that play nothing,
the end of input, the bots' seeding and seat, the human's own result (2v2 and knocked out
included), the final position and record, records of cut-off games, ``--options`` in every
mode, the errors of refused positions, and the types ``--param`` values parse to.

Every game here is scripted through stdin and played in-process (the whole file takes about
a second)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES
from training.cli import main
from training.position import reset_to_position

OAO2 = ["over_and_out", "--param", "num_players=2"]


def _play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], script: str, *args: str
) -> str:
    """``eightfold play *args`` with ``script`` as its stdin; its stdout (exit status 0)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", *args]) == 0
    return capsys.readouterr().out


def _record(out: str) -> list[str]:
    """The moves of the game ``play`` printed at its end (every seat's, in order)."""
    line = next(x for x in out.splitlines() if x.startswith("moves so far ("))
    return line.split("they set up the position): ", 1)[1].split("; ")


def _listings(out: str) -> list[dict[int, str]]:
    """Each legal-move list printed, as ``{number: move}``."""
    # (a long list is wrapped: whole entries, each line indented by two spaces)
    found = re.findall(r"legal moves \((\d+)\):\n((?:  \d+\) .*\n?)+)", out)
    lists = []
    for count, block in found:
        line = "   ".join(x.strip() for x in block.splitlines())
        items = re.findall(r"(\d+)\) (.+?)(?=\s{3}\d+\)|$)", line)
        assert len(items) == int(count), line
        lists.append({int(k): name for k, name in items})
    return lists


def _legal_names(name: str, params: dict[str, Any], seed: int, moves: list[str]) -> list[str]:
    """The legal moves, in the engine's order, after ``moves`` from the seeded reset."""
    env = GAMES[name].env(**params)
    reset_to_position(env, seed, None, "; ".join(moves) if moves else None)
    mask = env.observe(env.agent_selection)["action_mask"]
    return [env.unwrapped.action_to_string(int(a)) for a in np.flatnonzero(mask)]


# ------------------------------------------------------------- the numbered list
def test_the_list_is_numbered_from_1_in_the_engines_order_and_a_number_plays_that_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Octi's first position has 32 legal moves (not in alphabetical order). The list shows
    them numbered 1..32 in the engine's order; ``0`` and ``33`` are refused by name and play
    nothing; ``32``, the last number, plays the last move listed (a list numbered from 0, an
    off-by-one pick or a last number refused would play another move than the one shown, or
    none)."""
    legal = _legal_names("octi", {}, 0, [])
    assert len(legal) == 32 and legal != sorted(legal)
    out = _play(monkeypatch, capsys, "0\n33\n32\nquit\n", "octi", "--vs", "random", "--seat", "0")
    first = _listings(out)[0]
    assert first == {k: legal[k - 1] for k in range(1, 33)}
    assert "no move numbered 0: the list runs from 1 to 32" in out
    assert "no move numbered 33: the list runs from 1 to 32" in out
    record = _record(out)
    assert len(record) == 2 and record[0] == first[32]  # yours, then the bot's reply


# ------------------------------------------------------------------ the commands
def test_commands_play_no_move_and_do_what_help_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``help``, ``moves`` and ``board`` (in any letter case) print the help, the legal list
    and the position again, and play nothing: the game is abandoned on ``QUIT`` with no move
    of yours, and none of them is taken for a move that is not legal."""
    script = "help\nMoves\nBOARD\n\n  \nQUIT\n"
    out = _play(monkeypatch, capsys, script, *OAO2, "--vs", "random", "--seat", "0")
    assert "commands:\n  <move>" in out and "not a legal move" not in out and "not legal now" not in out
    assert len(_listings(out)) == 2 and _listings(out)[0] == _listings(out)[1]
    assert out.count("Over and Out - round 1, play 0 of") == 2  # the position, and again on 'board'
    assert "game abandoned (quit)." in out and "moves so far" not in out  # nothing was played


def test_single_letter_commands(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``m``, ``b``, ``h`` and ``q`` are the short forms of ``moves``, ``board``, ``help`` and ``quit``."""
    out = _play(monkeypatch, capsys, "m\nb\nh\nq\n", *OAO2, "--vs", "random", "--seat", "0")
    assert len(_listings(out)) == 2 and "commands:" in out and "not a legal move" not in out
    assert out.count("Over and Out - round 1, play 0 of") == 2 and "game abandoned (quit)." in out


class _Stdin(io.StringIO):
    """A stdin that ends: reading past its end more than ``limit`` times is a test failure
    (not a hang)."""

    def __init__(self, text: str, limit: int = 3) -> None:
        super().__init__(text)
        self.at_end = 0
        self.limit = limit

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline(-1 if size is None else size)
        if not line:
            self.at_end += 1
            if self.at_end > self.limit:
                raise AssertionError("stdin read again and again after its end")
        return line


def test_the_end_of_input_abandons_the_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Input that ends before the game (a script, Ctrl-D) abandons it at once, keeping the
    moves so far: it is not read again and again."""
    stdin = _Stdin("1\n")
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["play", *OAO2, "--vs", "random", "--seat", "0"]) == 0
    out = capsys.readouterr().out
    assert "game abandoned (end of input)." in out and stdin.at_end == 1
    assert len(_record(out)) >= 2  # your move and the bot's reply were played


# ------------------------------------------------------------------- to the end
def test_the_same_seed_plays_the_same_game_against_a_bot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bot's draws come from ``--seed``: the same seed and the same typed moves give the
    same game, move by move (an unseeded bot would answer differently from one run to the next)."""
    args = [*OAO2, "--vs", "random", "--seat", "1", "--seed", "3"]
    first = _play(monkeypatch, capsys, "1\n" * 400, *args)
    assert "game over." in first
    assert _play(monkeypatch, capsys, "1\n" * 400, *args) == first


def test_the_result_shown_as_yours_is_your_seats(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At the end ``yours`` is the return of the human's seat (here seat 1, the second of
    the returns printed), not the first seat's."""
    out = _play(monkeypatch, capsys, "1\n" * 400, *OAO2, "--vs", "random", "--seat", "1", "--seed", "3")
    found = re.search(r"game over\. returns: \[(.+?)\]; yours: (\S+)", out)
    assert found is not None
    returns = [float(x) for x in found.group(1).split(", ")]
    assert len(returns) == 2 and returns[0] != returns[1]
    assert float(found.group(2)) == returns[1]
    # the final position is shown first, and every seat's moves after: the record sets it up
    record = _record(out)
    assert out.index("game over. returns") < out.index("moves so far (")
    env = GAMES["over_and_out"].env(num_players=2, render_mode="ansi")
    reset_to_position(env, 3, None, "; ".join(record))
    assert env.unwrapped.state.is_terminal()
    assert out.split("game over. returns")[0].rstrip().endswith(str(env.render()).rstrip())


def test_a_game_cut_off_at_its_step_limit_is_recorded_as_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Octi with ``max_turns=3`` is cut off, not won: ``play --record`` marks the game
    ``truncated`` (``--vs`` and ``--random`` alike), as ``eval --records`` does, so a dataset
    does not take the cut for an end of play; a game that ends is not marked."""
    path = tmp_path / "cut.jsonl"
    cut = ["octi", "--param", "max_turns=3", "--record", str(path)]
    _play(monkeypatch, capsys, "1\n" * 20, *cut, "--vs", "random")
    _play(monkeypatch, capsys, "", *cut, "--random")
    _play(monkeypatch, capsys, "1\n" * 400, *OAO2, "--vs", "random", "--record", str(path))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["truncated"] for r in records] == [True, True, False]
    assert records[0]["result"] == "draw" and records[0]["returns"] == [0.0, 0.0]


# ---------------------------------------------------------------------- --param
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("-2", -2),
        ("0.5", 0.5),
        ('"1"', "1"),
        ("true", True),
        ("false", False),
        ("null", None),
        ("True", True),
        ("None", None),
        ("[1, 2]", [1, 2]),
        ('{"0": 9}', {"0": 9}),
        ("x_fast", "x_fast"),
        ("basic game", "basic game"),
    ],
)
def test_param_values_parse_to_their_json_types(text: str, value: Any) -> None:
    """``--param k=v``: JSON when it parses (``1`` an int, not ``1.0`` nor ``"1"``; ``true`` a
    bool; a list a list), the Python words too, anything else the string as typed."""
    from training.params import parse_params, parse_value

    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)
    assert parse_params([f"k={text}"]) == {"k": value}


def test_param_items_ignore_spaces_around_key_and_value_and_variant_must_agree() -> None:
    """``"num_players = 3"`` names ``num_players`` (not ``"num_players "``, an unknown
    parameter); ``--variant`` is ``--param variant=...``: given both, they must agree (the
    ``--variant`` once won silently)."""
    from training.params import parse_params

    parsed = parse_params([" num_players = 3 ", "variant=x_fast"], variant="x_fast")
    assert parsed == {"num_players": 3, "variant": "x_fast"}
    assert type(parsed["num_players"]) is int
    with pytest.raises(ValueError, match=r"--variant 'x_fast' and --param variant='x_classic' disagree"):
        parse_params(["variant=x_classic"], variant="x_fast")
    # a value's spaces go too: the words and strings are those typed between them
    assert parse_params(["teams = True ", "variant = x_fast "]) == {"teams": True, "variant": "x_fast"}


@pytest.mark.parametrize("item", ["=3", " =3", "num_players", "", "  "])
def test_a_param_without_a_key_or_an_equals_sign_is_malformed(item: str) -> None:
    """An item with no key or no ``=`` is refused naming the flag and the item (an empty
    key would reach the game as a parameter named ``""``)."""
    from training.params import parse_params

    with pytest.raises(ValueError, match=r"malformed --set") as info:
        parse_params([item], flag="--set")
    assert str(info.value) == f"malformed --set {item!r}; expected key=value"


def test_a_param_given_twice_keeps_its_last_value() -> None:
    """A key repeated in ``--param``/``--set`` keeps its last value, as argparse keeps a repeated
    flag's last (the README's "Command line"; the suite's own runs override their defaults so)."""
    from training.params import parse_params

    assert parse_params(["max_turns=1", "variant=x_fast", "max_turns = 2"], flag="--set") == {
        "max_turns": 2,
        "variant": "x_fast",
    }


@pytest.mark.parametrize(("items", "message"), [("num_players=3", "the string 'num_players=3'"), ([5], "5")])
def test_param_items_that_are_not_a_list_of_strings_are_refused(items: Any, message: str) -> None:
    """A string is not read one character at a time (``malformed --param 'n'``), and an item that
    is not a string is named (an ``AttributeError`` before)."""
    from training.params import parse_params

    with pytest.raises(ValueError, match=r"^--param items must be .*, got " + re.escape(message) + "$"):
        parse_params(items)


# -------------------------------------------------------------------- positions
def _octi_game(seed: int) -> list[str]:
    """A seeded random Octi game to its end, in notation."""
    env = GAMES["octi"].env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = []
    while not env.unwrapped.state.is_terminal():
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        moves.append(env.unwrapped.action_to_string(action))
        env.step(action)
    return moves


def test_moves_past_the_end_are_counted_and_a_finished_options_position_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two moves after the end: the error names the first and says both were not played. A
    game finished by ``--options`` alone (no ``--moves``) has nothing to play either."""
    moves = _octi_game(3)
    env = GAMES["octi"].env()
    with pytest.raises(ValueError, match=r"the game is over before move") as info:
        reset_to_position(env, 0, None, "; ".join([*moves, "prong c2 N", "prong d6 S"]))
    assert str(info.value) == (
        f"--moves: the game is over before move {len(moves) + 1} 'prong c2 N'; 2 move(s) not played"
    )
    options = json.dumps({"moves": moves})
    assert main(["play", "octi", "--options", options, "--vs", "random"]) == 2
    assert "the game is over in the position of --options: nothing to play" in capsys.readouterr().err


def test_a_start_names_the_seat_to_act_in_its_error() -> None:
    """``eval``'s starts (:func:`start_state`) name the seat a refused move was typed for:
    player_1 for the second move."""
    from training.position import start_state

    game = GAMES["octi"].game_class()()
    with pytest.raises(ValueError, match=r"^--moves: move 2 'prong c2 N' \(player_1 to act\): "):
        start_state(game, np.random.default_rng(0), None, ["prong c2 N", "prong c2 N"])


# ---------------------------------------------------------- teams, knock-outs, bots
def test_a_2v2_win_is_recorded_as_the_humans_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """OTTO Game Over 2v2: the partner opposite shares the team's return, so a game the
    human's team won is a ``win`` in the record (not a ``draw`` with the partner taken for
    a rival)."""
    path = tmp_path / "teams.jsonl"
    teams = ["otto_game_over", "--param", "num_players=4", "--param", "teams=true"]
    out = _play(
        monkeypatch, capsys, "1\n" * 500, *teams, "--vs", "random", "--seed", "1", "--record", str(path)
    )
    (rec,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert rec["returns"] == [1.0, -1.0, 1.0, -1.0] and "yours: +1.000" in out
    assert rec["result"] == "win" and rec["seats"] == ["human", "random", "random", "random"]


def test_a_human_knocked_out_is_told_and_the_others_play_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over and Out with three seats and one chip each: the human, knocked out while two
    seats play on, is told so once, and the game is played to its end."""
    args = ["over_and_out", "--param", "num_players=3", "--param", "starting_chips=1", "--vs", "random"]
    out = _play(monkeypatch, capsys, "1\n" * 400, *args, "--seed", "0", "--seat", "1")
    assert out.count("you are out (player_1); the other seats play on.") == 1
    assert out.index("you are out") < out.index("game over. returns: [1.0, -1.0, 0.0]; yours: -1.000")


def test_a_bot_or_model_plays_the_seat_to_act_and_its_most_likely_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``--vs`` player is built to play deterministically (a model its most likely
    move, as the docs promise) and is asked, each time, for the seat to act, not the human's."""
    from training import play, players

    built: list[dict[str, Any]] = []
    asked: list[tuple[int, int]] = []

    def make_player(*args: Any, **kwargs: Any) -> Any:
        built.append(kwargs)
        player = players.make_player(*args, **kwargs)
        act = player.act

        def spy(state: Any, seat: int, rng: np.random.Generator) -> Any:
            asked.append((seat, state.current_player()))
            return act(state, seat, rng)

        player.act = spy
        return player

    monkeypatch.setattr(play, "make_player", make_player)
    _play(monkeypatch, capsys, "1\n" * 30 + "quit\n", "otto_octopus", "--vs", "heuristic", "--seat", "1")
    assert built == [{"deterministic": True}]
    assert len(asked) >= 10 and all(seat == to_act == 0 for seat, to_act in asked)


def test_digits_of_other_scripts_are_no_move_number(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only ASCII digits pick from the list: an Arabic-Indic one (``int`` reads it as 1) is
    taken for notation, refused, and plays nothing."""
    out = _play(monkeypatch, capsys, "\u0661\nquit\n", *OAO2, "--vs", "random", "--seat", "0")
    assert "not a legal move" in out and "moves so far" not in out


def test_integer_options_take_whole_numbers_only() -> None:
    """``--games 2.5`` is refused as no integer (not cut to 2), saying what is expected."""
    import argparse

    from training.params import int_at_least

    parse = int_at_least(1)
    assert parse("1") == 1 and parse(" 7 ") == 7
    for text in ("2.5", "1e3", "two"):
        with pytest.raises(argparse.ArgumentTypeError, match=rf"^expected an integer >= 1, got {text!r}$"):
            parse(text)


@pytest.mark.parametrize(
    ("option", "name"), [("--out", "x.jpg"), ("--plot", "curve.svg"), ("--gif", "a.png")]
)
def test_each_picture_option_refuses_a_name_for_another_format(
    option: str, name: str, tmp_path: Path
) -> None:
    """``--out`` and ``--plot`` write PNGs, ``--gif`` a GIF: a file named for another format
    is refused before the work, naming the option and the ending it needs."""
    from training.params import output_file

    with pytest.raises(ValueError, match=rf"^{option} writes a (PNG|GIF): give a file name ending in \."):
        output_file(option, tmp_path / name)
    assert output_file("--record", tmp_path / "new" / "games.jsonl").parent.is_dir()


@pytest.mark.parametrize("mode", [["--vs", "random", "--seat", "1"], ["--random", "--max-steps", "1"]])
def test_play_starts_from_the_options_position_in_every_mode(
    mode: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--options`` sets up the position for ``--vs`` and ``--random`` alike (not only
    ``--moves``): Octi's ``{"moves": [...]}`` option, then the game goes on from there."""
    options = json.dumps({"moves": ["prong c2 N"]})
    out = _play(monkeypatch, capsys, "quit\n", "octi", "--options", options, *mode)
    assert "Black pods: b2[] c2[N] d2[] e2[]" in out  # played before the first position shown
    if mode[0] == "--random":
        assert "turn 2 of 300" in out and "[0] player_1: " in out


def test_leaving_after_the_bots_first_move_prints_that_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In seat 1 the bot moves first; quitting at the first prompt still prints the one
    move made, as ``--moves`` takes it (only a game with no move at all prints none)."""
    out = _play(monkeypatch, capsys, "quit\n", *OAO2, "--vs", "random", "--seat", "1")
    bot = re.search(r"^player_0 \(random\) plays: (.+)$", out, flags=re.MULTILINE)
    assert bot is not None and _record(out) == [bot.group(1)]
    assert "moves so far (1; as --moves, with this game's --seed 0," in out


def test_a_refused_move_with_many_legal_ones_lists_20_and_says_how_many() -> None:
    """OTTO Game Over after ``no card`` (player_0 still to act): 32 legal placements. A well-formed move that is not
    legal lists the first 20 and says there are 32 in all (not a list cut off silently)."""
    from training.position import play_moves

    legal = _legal_names("otto_game_over", {}, 0, ["no card"])
    assert len(legal) == 32
    env = GAMES["otto_game_over"].env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"is not legal for player_0") as info:
        play_moves(env, ["no card", "drawn a1 r0"])
    assert str(info.value) == (
        f"--moves: move 2 'drawn a1 r0' is not legal for player_0 here; legal: {', '.join(legal[:20])}, "
        "... (32 in all)"
    )
