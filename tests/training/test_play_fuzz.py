"""``eightfold play`` as a person uses it: a bounded, seeded fuzz of the prompt of ``--vs``
over every game, every declared config (``Game.test_configs``: 2v2 teams, solo, 3-8 players,
the Octi X variants), every seat and every kind of opponent (``random``, ``greedy``,
``heuristic``, ``mcts:sims=5``, a saved model), and of ``--random`` / ``--watch`` with
``--record``, ``--moves`` and ``--options``.

The person is a stdin that reads what ``play`` printed (the numbered list of legal moves) and
answers with a legal move (by number, in notation, upper or lower case, with extra spaces) or
a hostile line (empty, spaces, ``help``/``?``/``moves``/``board``, unknown words, numbers
outside the list, action indices, very long lines, other scripts' digits and letters, a move
of another seat), until its lines run out (end of input). The contract checked
(``training/play.py``'s doc, README "Command line" and "Game records"):

* exit status 0 and no traceback; the game ends (``game over.``) or is abandoned on
  ``quit``/``exit``/end of input with every seat's moves so far, which ``--moves`` replays to
  the position left (same legal list);
* every refused line gets a message that says what was expected and points to the legal
  moves; every legal move typed is taken;
* the bot never moves for the human's seat, and the human is asked exactly for the human's
  decisions: every step of a multi-step turn (Octi's jump chains, OCT-18; OTTO Game Over's
  card phase, OGO-31, and out-of-turn Infinity decisions, OGO-46), none of a 2v2 partner's
  (OGO-27) or a knocked-out seat's (OAO-34, OAO-40);
* a finished game is added to ``--record`` and ``eightfold replay FILE 1`` replays it to its
  returns; an abandoned one is not added; the same seed and the same lines give the same
  transcript.

The tests at the end pin what the fuzzing round found and that is fixed: Ctrl-C at the prompt
or during ``--watch`` left without the moves so far, and a ``--seat`` already out in the start
position (OAO-34) was played silently by the bots."""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES
from training.cli import main
from training.position import reset_to_position

REFUSALS = ("not a legal move", "not legal now", "no move numbered", "not a move")
COMMANDS = {"help", "?", "h", "moves", "legal", "m", "board", "b"}
HOSTILE = [
    "",
    "   ",
    "help",
    "?",
    "HELP",
    "Moves",
    "board",
    "foo",
    "resign",
    "0",
    "-1",
    "+1",
    "1.0",
    "1e3",
    "99999999",
    "4" * 5000,
    "x" * 300,
    "\uff11",  # fullwidth 1
    "\u0663",  # Arabic-Indic 3
    "\U0001f642",
    "prong\u00a0b2\u00a0N",
    "\x00",
    "\x1b[A",
    ";",
    "play 5; play 4",
    "1 2",
    "1)",
    "0x1",
    "\u0130",
]
BOTS = ["random", "greedy", "heuristic", "mcts:sims=5"]
LISTING = re.compile(r"legal moves \((\d+)\):\n  (.*)\n")


class _Person(io.TextIOBase):
    """A stdin that answers ``play``'s prompt from what it printed (``out``), seeded, for
    ``budget`` lines, then ends. It checks the answer to each of its lines when it is asked
    for the next one."""

    def __init__(self, out: io.StringIO, seed: int, budget: int, quit_p: float = 0.0) -> None:
        self.out, self.rng, self.budget, self.quit_p = out, np.random.default_rng(seed), budget, quit_p
        self.mark = 0
        self.last: tuple[str, str] | None = None  # (line, "move" | "refused" | "cmd" | "unknown")
        self.problems: list[str] = []
        self.moves_commands = 0
        self.lines = 0
        self.others: list[str] = []  # moves the other seats played

    def readable(self) -> bool:
        return True

    def _judge(self, answer: str) -> None:
        if self.last is None:
            return
        line, kind = self.last
        refused = any(r in answer for r in REFUSALS)
        if kind in ("move", "cmd") and refused:
            self.problems.append(f"{kind} {line!r} refused: {answer[:200]!r}")
        if kind == "refused":
            if not refused and line.strip():
                self.problems.append(
                    f"{line[:60]!r} neither taken nor refused with a message: {answer[:200]!r}"
                )
            elif refused and "moves" not in answer:
                self.problems.append(
                    f"refusal of {line[:60]!r} does not point to the legal moves: {answer[:200]!r}"
                )

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        text = self.out.getvalue()
        answer = text[self.mark :]
        self._judge(answer)
        self.others += re.findall(r"\) plays: (.+)\n", answer)
        self.mark = len(text)
        found = LISTING.findall(text[-200_000:])
        legal = re.findall(r"\d+\) (.+?)(?=\s{3}\d+\)|$)", found[-1][1]) if found else []
        if self.budget <= 0:
            return ""
        self.budget -= 1
        self.lines += 1
        r = self.rng.random()
        if r < self.quit_p:
            line, kind = str(self.rng.choice(["quit", "exit", "q", " QUIT "])), "cmd"
        elif r < 0.65 and legal:
            i = int(self.rng.integers(len(legal)))
            name = legal[i]
            variants = [str(i + 1), name, name.upper(), name.lower(), "  " + name.replace(" ", "   ") + " "]
            line, kind = variants[int(self.rng.integers(len(variants)))], "move"
        else:
            pool = self.others if r < 0.72 and self.others else HOSTILE
            line = str(pool[int(self.rng.integers(len(pool)))])
            t = line.strip()
            norm = re.sub(" +", " ", t).lower()
            if t.lower() in COMMANDS:
                kind = "cmd"
                self.moves_commands += t.lower() in ("moves", "legal", "m")
            elif not t or not t.isascii():
                kind = "refused"  # notation is ASCII (and a number picks from the list)
            elif t.isdecimal():
                kind = "move" if len(t) < 20 and 1 <= int(t) <= len(legal) else "refused"
            elif norm in [n.lower() for n in legal]:
                kind = "move"
            else:
                kind = "unknown"  # e.g. an alias of a legal move: either answer is fine
        self.last = (line, kind)
        return line + "\n"


def _run(argv: list[str], stdin: Any = None, script: str = "") -> tuple[int, str, str, Any]:
    """``eightfold *argv`` in-process with ``stdin`` (a factory given the stdout buffer) or
    ``script``; its exit status, stdout, stderr and stdin."""
    out, err = io.StringIO(), io.StringIO()
    feed = stdin(out) if stdin is not None else io.StringIO(script)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", feed)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    return code, out.getvalue(), err.getvalue(), feed


def _moves_so_far(out: str) -> list[str]:
    for line in out.splitlines():
        if line.startswith("moves so far ("):
            return line.split("they set up the position): ", 1)[1].split("; ")
    return []


def _params(params: dict[str, Any]) -> list[str]:
    return [x for k, v in params.items() for x in ("--param", f"{k}={json.dumps(v)}")]


def _actors(name: str, params: dict[str, Any], seed: int, moves: list[str]) -> tuple[list[str], Any]:
    """The agent that made each move of ``moves`` after the seeded reset, and the end state."""
    env = GAMES[name].env(**params)
    reset_to_position(env, seed, None, None)
    actors = []
    for m in moves:
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        actors.append(env.agent_selection)
        env.step(int(env.unwrapped.string_to_action(m)))
    return actors, env.unwrapped.state


def _last_listing(out: str) -> str:
    """The last list of legal moves printed: its header and its lines (a long list is wrapped)."""
    lines = out[out.rfind("\nlegal moves (") + 1 :].splitlines()
    return "\n".join(lines[: 1 + next(i for i, x in enumerate(lines[1:]) if not x.startswith("  "))])


def _check_vs(
    name: str, params: dict[str, Any], seat: int, vs: str, seed: int, lines: int, tmp: Path
) -> list[str]:
    """One ``play --vs`` game by a fuzzing person: the problems found (none expected)."""
    record = tmp / f"{name}-{seat}-{seed}.jsonl"
    solo = GAMES[name].game_class()(**params).num_players == 1  # played alone: no --vs
    argv = ["play", name, *_params(params), *([] if solo else ["--vs", vs]), "--seat", str(seat)]
    argv += ["--seed", str(seed), "--record", str(record)]

    def person(out: io.StringIO) -> _Person:
        return _Person(out, seed * 1009 + seat, lines, quit_p=0.01)

    code, out, err, fed = _run(argv, person)
    tag = " ".join(argv[1:-2])
    if code != 0:
        return [f"{tag}: exit status {code}: {err[-300:]}"]
    problems = [f"{tag}: {p}" for p in fed.problems]
    ended = "game over." in out
    abandoned = re.search(r"game abandoned \((quit|end of input)\)\.", out) is not None
    if ended == abandoned:
        return [*problems, f"{tag}: neither ended nor abandoned: {out[-300:]!r}"]
    moves = _moves_so_far(out)
    actors, state = _actors(name, params, seed, moves)
    me = f"player_{seat}"
    bots = re.findall(r"(?:^|your move> )(player_\d+) \([^\n]*?\) plays: ", out, flags=re.MULTILINE)
    if bots != [a for a in actors if a != me]:
        problems.append(f"{tag}: the bot lines {bots[:6]} are not the other seats' moves {actors[:6]}")
    asked = out.count("legal moves (") - fed.moves_commands
    if asked != actors.count(me) + abandoned:
        problems.append(f"{tag}: asked {asked} times for {actors.count(me)} decisions of {me}")
    if ended:
        if not state.is_terminal():
            problems.append(f"{tag}: the moves printed do not end the game")
        code, replayed, err, _ = _run(["replay", str(record), "1"])
        if code != 0 or "game over after" not in replayed:
            problems.append(f"{tag}: the record does not replay: {err[-300:]}")
    else:
        if record.exists():
            problems.append(f"{tag}: an abandoned game was added to --record")
        if moves:  # the moves so far set up the position left: the same legal moves offered
            again = [*argv[:-2], "--moves", "; ".join(moves)]
            code, out2, err, _ = _run(again, script="quit\n")
            if code != 0 or _last_listing(out2) != _last_listing(out):
                problems.append(f"{tag}: the moves so far do not set up the position: {err[-300:]}")
    if seed % 3 == 0:  # the same seed and the same lines: the same transcript
        _code, out3, _err, _ = _run(argv, person)
        if out3 != out:
            problems.append(f"{tag}: the same seed gave another transcript")
    record.unlink(missing_ok=True)
    return problems


@pytest.mark.parametrize("name", sorted(GAMES))
def test_fuzzed_person_against_every_bot_in_every_config_and_seat(
    name: str, tmp_path: Path, octi_model: Path
) -> None:
    """Every declared config of the game, every seat, the bots in turn (and Octi's model for
    the basic game): the contract of the module doc holds for every game of a fuzzing person."""
    rng = np.random.default_rng(sorted(GAMES).index(name))
    problems: list[str] = []
    games = 0
    for c, params in enumerate(GAMES[name].game_class().test_configs):
        n = GAMES[name].game_class()(**params).num_players
        for seat in range(n):
            vs = BOTS[(c + seat) % len(BOTS)]
            if name == "octi" and not params and seat == 1:
                vs = str(octi_model)
            if n > 4 and seat % 2:  # 5 and 8 players: half the seats
                continue
            lines = int(rng.integers(1, 100))
            problems += _check_vs(name, params, seat, vs, int(rng.integers(0, 6)), lines, tmp_path)
            games += 1
    assert games >= 2 and not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_watch_and_random_games_record_replay_and_repeat(name: str, tmp_path: Path) -> None:
    """``--random`` and ``--watch`` (one bot for all, one per seat): the same seed prints the
    same game; a finished game is added to ``--record`` and replays to its returns; a game
    stopped by ``--max-steps`` is not added, and a ``--watch`` one prints its moves so far,
    which ``--moves`` plays to the position where it stopped."""
    configs = GAMES[name].game_class().test_configs
    for c, params in enumerate(configs[:3]):
        n = GAMES[name].game_class()(**params).num_players
        for mode in (
            ["--random"],
            ["--watch", BOTS[c % 4]],
            ["--watch", *[BOTS[(c + s) % 3] for s in range(n)]],
        ):
            record = tmp_path / f"{c}-{mode[0]}.jsonl"
            argv = ["play", name, *_params(params), "--seed", str(c), "--record", str(record), *mode]
            code, out, err, _ = _run(argv)
            assert code == 0 and "game over after" in out, err
            assert _run(argv)[1] == out
            code, replayed, err, _ = _run(["replay", str(record), "1"])
            assert code == 0 and "game over after" in replayed, err
            stop = tmp_path / f"{c}-{mode[0]}-stop.jsonl"
            code, out, err, _ = _run(
                [*argv[: -len(mode) - 2], "--record", str(stop), *mode, "--max-steps", "3"]
            )
            assert code == 0 and not stop.exists(), err
            if mode[0] == "--watch" and "stopped after 3 steps" in out:
                moves = _moves_so_far(out)
                assert len(moves) == 3
                code, out, err, _ = _run(
                    [
                        "play",
                        name,
                        *_params(params),
                        "--seed",
                        str(c),
                        "--moves",
                        "; ".join(moves),
                        "--random",
                    ]
                )
                assert code == 0 and "(from the position after the 3 move(s) of --moves)" in out, err


def test_a_position_from_replay_save_is_played_on_and_recorded(tmp_path: Path) -> None:
    """``replay FILE N --upto K --save pos.json`` then ``play --options @pos.json --vs``: the
    game goes on from there (mid jump chain in Octi X included), is recorded from there and
    replays."""
    for name, params in (("octi", {"variant": "x_fast"}), ("otto_game_over", {"num_players": 3})):
        games = tmp_path / f"{name}.jsonl"
        assert (
            _run(["play", name, *_params(params), "--random", "--seed", "4", "--record", str(games)])[0] == 0
        )
        for upto in (1, 5, 17):
            pos = tmp_path / f"{name}-{upto}.json"
            assert _run(["replay", str(games), "1", "--upto", str(upto), "--save", str(pos)])[0] == 0
            record = tmp_path / f"{name}-{upto}.jsonl"
            argv = ["play", name, *_params(params), "--options", f"@{pos}", "--vs", "heuristic"]
            code, out, err, fed = _run(
                [*argv, "--seat", str(upto % 2), "--record", str(record)],
                lambda o, u=upto: _Person(o, u, 400),
            )
            assert code == 0 and not fed.problems, (err, fed.problems)
            if "game over." in out:
                assert _run(["replay", str(record), "1"])[0] == 0


# ------------------------------------------------------------------------- defects
class _CtrlC(io.StringIO):
    """A stdin at which the person presses Ctrl-C after ``lines`` lines: Python raises
    ``KeyboardInterrupt`` from the read, as at a terminal."""

    def __init__(self, text: str) -> None:
        super().__init__(text)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = super().readline(-1 if size is None else size)
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_at_the_prompt_leaves_the_game_with_its_moves_so_far() -> None:
    """Two moves of yours, then Ctrl-C at the prompt: the command is interrupted (130) and,
    as when it is left with ``quit`` or Ctrl-D, prints every seat's moves so far."""
    code, out, _err, _ = _run(["play", "octi", "--vs", "random"], stdin=lambda o: _CtrlC("1\n1\n"))
    assert code == 130
    assert len(_moves_so_far(out)) == 4  # yours and the bot's replies, which --moves replays


def test_ctrl_c_during_watch_leaves_it_with_its_moves_so_far() -> None:
    """A ``--watch`` game (0.2 s a move) interrupted after about 0.5 s: the moves shown so far
    are printed in ``--moves`` form, the only way to leave a watched game and keep them."""

    def ctrl_c(signum: int, frame: Any) -> None:
        signal.default_int_handler(signal.SIGINT, frame)

    old = signal.signal(signal.SIGALRM, ctrl_c)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        code, out, _err, _ = _run(["play", "octi", "--watch", "random", "--delay", "0.2"])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert code == 130 and "[1] player_1 (random):" in out  # interrupted after two moves at least
    shown = re.findall(r"^\[\d+\] player_\d+ \(random\): (.*)$", out, flags=re.MULTILINE)
    assert _moves_so_far(out) == shown


def _oao_position_with_seat_1_out() -> dict[str, Any]:
    """An Over and Out (3 players) state where player_1 is knocked out (OAO-34) and the others
    play on: from a seeded random game."""
    env = GAMES["over_and_out"].env(num_players=3)
    for seed in range(50):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            obs, _r, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if "player_1" not in env.agents and not env.unwrapped.state.is_terminal():
                return {"state": env.unwrapped.state.to_dict()}
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raise AssertionError("no such position in 50 games")


def test_a_human_seat_already_out_in_the_start_position_is_told_or_refused(tmp_path: Path) -> None:
    """``--options`` (or ``--moves``) set up a game where your seat is already out: ``play``
    refuses it as it refuses a finished game (exit status 2, naming the seat), or says at once
    that you are out and the others play on, as it does when you are knocked out during play
    (it refuses it now; it used to let the bots play the whole game without a word)."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(_oao_position_with_seat_1_out()))
    argv = ["play", "over_and_out", "--param", "num_players=3", "--options", f"@{pos}", "--vs", "random"]
    code, out, err, _ = _run([*argv, "--seat", "1"], script="")
    assert "your move>" not in out  # right: nothing is asked of a seat that is out
    assert (code == 2 and "player_1" in err) or (code == 0 and "you are out (player_1)" in out)


@pytest.mark.parametrize("name", ["otto_octopus", "otto_game_over"])
def test_a_solo_game_is_played_alone_and_refuses_an_opponent(name: str, tmp_path: Path) -> None:
    """A solo config (``num_players=1``) is played without ``--vs`` (there is no other seat: the
    banner says so, and the record names only the player); ``--vs`` there is a usage error
    naming it, as ``train``'s opponents are in solo."""
    solo = [name, "--param", "num_players=1"]
    code, out, err, _ = _run(["play", *solo, "--vs", "heuristic"])
    assert code == 2 and "--vs: a solo" in err and "leave --vs out" in err
    record = tmp_path / "solo.jsonl"
    code, out, err, fed = _run(
        ["play", *solo, "--seed", "3", "--record", str(record)], lambda o: _Person(o, 3, 2000)
    )
    assert code == 0 and not fed.problems, err
    assert "you are player_0, a solo game." in out and " plays: " not in out
    assert "game over." in out  # 2,000 lines end either game at this seed
    line = json.loads(record.read_text())
    assert line["seats"] == ["human"] and "pairing" not in line
    assert _run(["replay", str(record), "1"])[0] == 0
