"""``eightfold play <env> --vs <bot|model.zip> [--seat K]``: a person against a bot or agent.

Moves are typed in the game's notation (``env.unwrapped.string_to_action``); the legal ones
are listed (numbered: a number picks from the list). Commands: ``help``, ``moves``,
``board``, ``quit``. Input is read line by line from stdin, so a game can be scripted::

    printf 'play 5\\nquit\\n' | eightfold play over_and_out --param num_players=2 --vs heuristic

``--options JSON`` and ``--moves 'M1; M2'`` start the game from a chosen position
(:mod:`training.position`; a start where your seat is already out is refused); at the end (or on
``quit``, end of input or Ctrl-C) every seat's moves are printed in the form ``--moves``
replays. ``--record FILE.jsonl`` (here and with ``--watch``/``--random``) adds a game that ends
to that file in ``eightfold eval --records``' form, which ``eightfold replay`` lists, replays
and turns into a dataset. Every seat other than yours is played by ``--vs`` (your partner too,
in 2v2; a solo game is played without ``--vs``). Only legal moves are taken. You see what your
seat sees at the table: the position, your own cards or tiles (``Game.private_text``: OTTO Game
Over's cards, a 2v2 partner's; Otto the Octopus's picture shows your hand and, in the open game,
the tiles the others show), the other seats' moves with their hidden parts left out
(``Game.public_action_string``: Otto the Octopus's swapped and returned tiles; OTTO Game Over
names a placed tile), and under each move what it set off by itself (``Game.step_events``, lines
starting ``  - ``: a round or match lost and scored, a new deal, skipped turns, automatic passes).
The closing line of moves names every seat's moves in full, and says so where it names hidden
parts you were not shown.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from envs.core.files import append_line
from envs.core.game import STATE_OPTION, legal_indices, team_seats
from envs.core.registry import get_game
from training.params import output_file, parse_params
from training.players import game_bots, make_player, params_note
from training.position import reset_to_position, split_moves
from training.single_agent import outcome

#: the longest line taken as a move (the suite's longest notation strings have about 40 characters)
MAX_MOVE_TEXT = 200

HELP = """commands:
  <move>   a move in the game's notation (letter case and extra spaces do not matter), or its number
           in the list
  moves    list the legal moves again
  board    show the position again
  help     this text
  quit     leave the game"""


class Quit(Exception):
    """The person left the game."""


def _ask(env: Any, stdin: TextIO, out: TextIO) -> int:
    """Read lines until one names a legal move; returns its action index."""
    raw = env.unwrapped
    legal: list[int] = legal_indices(raw.state.legal_mask()).tolist()
    _list_moves(raw, legal, out)
    while True:
        out.write("your move> ")
        out.flush()
        line = stdin.readline()
        if not line:
            raise Quit("end of input")
        text = line.strip()
        if not text:
            continue
        cmd = text.lower()
        if cmd in ("quit", "exit", "q"):
            raise Quit("quit")
        if cmd in ("help", "?", "h"):
            print(HELP, file=out)
            continue
        if cmd in ("moves", "legal", "m"):
            _list_moves(raw, legal, out)
            continue
        if cmd in ("board", "b"):
            print(env.render(), file=out)
            continue
        if len(text) > MAX_MOVE_TEXT:  # no move nor list number is that long: not echoed back in full
            # (and before int(): Python refuses a string of over 4,300 digits)
            print(
                f"not a move: a line of {len(text):,} characters (type 'moves' for the legal moves)", file=out
            )
            continue
        if text.isascii() and text.isdecimal():  # a number picks from the list (no notation is one)
            if 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            print(f"no move numbered {text}: the list runs from 1 to {len(legal)} (type 'moves')", file=out)
            continue
        try:
            action = int(raw.string_to_action(text))
        except ValueError as exc:
            print(
                f"not a legal move: {exc}\n(type 'moves' for the legal moves, 'help' for commands)", file=out
            )
            continue
        if action in legal:
            return action
        # some games' notation names every move, legal now or not: never send an illegal one
        print(f"not legal now: {raw.action_to_string(action)!r} (type 'moves' for the legal moves)", file=out)


#: the width the list of legal moves is wrapped to (whole entries per line)
LIST_WIDTH = 100


def _list_moves(raw: Any, legal: list[int], out: TextIO) -> None:
    names = [raw.action_to_string(a) for a in legal]
    print(f"legal moves ({len(names)}):", file=out)
    line = ""
    for i, name in enumerate(names, 1):
        entry = f"{i}) {name}"
        if line and len(line) + 3 + len(entry) > LIST_WIDTH:
            print(line, file=out)
            line = ""
        line = f"{line}   {entry}" if line else f"  {entry}"
    print(line, file=out)


def _print_events(game: Any, state: Any, action: int, out: TextIO) -> None:
    """What the move sets off by itself at the table (``Game.step_events``: a round or match
    lost and scored, a new deal, skipped turns...), before the move is made."""
    for event in game.step_events(state, action):
        print(f"  - {event}", file=out)


def play_vs(args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    entry = get_game(args.env)
    env = entry.env(render_mode="ansi", **parse_params(args.param, args.variant))
    raw = env.unwrapped
    game = raw.game
    seat = int(args.seat)
    if not 0 <= seat < game.num_players:
        raise ValueError(f"--seat must be in [0, {game.num_players - 1}], got {seat}")
    if getattr(args, "max_steps", 0) or getattr(args, "delay", 0.0):
        raise ValueError(
            "--max-steps and --delay are for --random and --watch; a game you play (--vs, or a solo "
            "game) is played to its end"
        )
    solo = game.num_players == 1
    if solo and args.vs is not None:
        raise ValueError(
            f"--vs: a solo {game.name} game (num_players=1) has no other seat to play; leave --vs out"
        )
    opponent = None
    if not solo:
        note = params_note(args.vs, game)  # first: a model of another game is refused by name
        opponent = make_player(game, args.vs, game_bots(entry), deterministic=True)
        if note:
            print(note, file=out)
    record_to = _record_file(args)
    given = reset_to_position(
        env, args.seed, getattr(args, "options", None), getattr(args, "moves", None), to_play=True
    )
    first = raw.state.to_dict() if record_to is not None else {}
    rng = np.random.default_rng(args.seed + 1)
    me = raw.possible_agents[seat]
    if me not in env.agents or env.terminations[me] or env.truncations[me]:  # knocked out before
        live = [a for a in env.agents if not (env.terminations[a] or env.truncations[a])]
        raise ValueError(
            f"--seat {seat}: {me} is already out in this position, so there is nothing for you to "
            f"play; take a seat still in the game ({', '.join(live)})"
        )
    record = split_moves(getattr(args, "moves", None))  # the game's moves in notation, every seat's
    hidden_seen = False  # a move of another seat was shown with its hidden part left out
    others = "a solo game" if solo else f"every other seat is {args.vs}"
    print(f"{entry.env_id}: you are {me}, {others}. Type 'help' for commands.", file=out)
    if given:
        print(f"(from the position after the {given} move(s) of --moves)", file=out)
    try:
        for agent in env.agent_iter():
            _obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                if agent == me and not raw.state.is_terminal():  # knocked out, the others go on
                    print(f"\nyou are out ({agent}); the other seats play on.", file=out)
                env.step(None)
                continue
            if agent == me:
                print("\n" + str(env.render()), file=out)
                private = game.private_text(raw.state, seat)
                if private:
                    print(private, file=out)
                action = _ask(env, stdin, out)
                _print_events(game, raw.state, action, out)
            else:
                assert opponent is not None  # a solo game has no other seat
                p = raw.possible_agents.index(agent)
                action = int(opponent.act(raw.state, p, rng))
                # as you would see it at the table: hidden parts of a move are left out
                shown = game.public_action_string(raw.state, action, seat)
                full = raw.action_to_string(action)
                hidden_seen = hidden_seen or not shown.startswith(full)
                print(f"{agent} ({args.vs}) plays: {shown}", file=out)
                _print_events(game, raw.state, action, out)
            record.append(raw.action_to_string(action))
            env.step(action)
    except (Quit, KeyboardInterrupt) as why:  # quit, end of input, Ctrl-C: the moves are kept
        ctrl_c = isinstance(why, KeyboardInterrupt)  # the terminal shows ^C, and no new line
        print(f"{chr(10) if ctrl_c else ''}game abandoned ({'Ctrl-C' if ctrl_c else why}).", file=out)
        _print_record(args, record, out, hidden_seen)
        if record_to is not None:
            print(f"(not added to {record_to}: the game did not end)", file=out)
        if ctrl_c:
            raise  # the command's own ending of an interrupt (exit status 130)
        return 0
    returns = raw.state.returns()
    print("\n" + str(env.render()), file=out)
    print(
        f"game over. returns: {[round(float(x), 3) for x in returns]}; yours: {float(returns[seat]):+.3f}",
        file=out,
    )
    _print_record(args, record, out, hidden_seen)
    seats = ["human" if s == seat else str(args.vs) for s in range(game.num_players)]
    # as eval --records writes a pairing's game: "human" against the bot, the human's result
    # (a solo game, like a --watch one, names only its player: its score is in "returns")
    vs = None
    if not solo:
        result = outcome(np.asarray(returns, dtype=float), seat, team_seats(game, seat))
        vs = {"pairing": ["human", str(args.vs)], "game": 0, "result": result}
    _append_record(record_to, entry.env_id, args, seats, first, record[given:], raw.state, out, vs)
    return 0


def _record_file(args: argparse.Namespace) -> Path | None:
    """``--record FILE.jsonl``, checked before the game starts."""
    path = getattr(args, "record", None)
    return None if path is None else output_file("--record", path)


def _append_record(
    path: Path | None,
    env_id: str,
    args: argparse.Namespace,
    seats: list[str],
    first: dict[str, Any],
    moves: list[str],
    state: Any,
    out: TextIO,
    pairing: dict[str, Any] | None = None,
) -> None:
    """Append a finished game to ``--record`` as one line of ``eightfold eval --records``'s
    form (its first state is the position play started from, after ``--moves``), which
    ``eightfold replay`` lists, replays and turns into a dataset. ``pairing`` (``--vs``)
    adds ``pairing``, ``game`` and ``result``; ``--watch`` and ``--random`` games name only
    the player of each seat."""
    if path is None:
        return
    line = {
        "env": env_id,
        "params": parse_params(args.param, args.variant),
        "seed": args.seed,
        "seats": seats,
        "returns": [float(x) for x in state.returns()],
        "options": {STATE_OPTION: first},
        "moves": moves,
        "truncated": bool(state.is_truncated()),
        **(pairing or {}),
    }
    # (after a line a kill cut short, the record starts a line of its own)
    append_line(path, json.dumps(line, separators=(",", ":")))
    print(f"added the game to {path} (eightfold replay {path} lists its games)", file=out)


def _print_record(args: argparse.Namespace, record: list[str], out: TextIO, hidden: bool = False) -> None:
    """The game's moves so far, every seat's in full (hidden parts too: the game is over for
    you), as ``--moves`` replays them after the same seeded reset. ``hidden``: some were shown
    to you with a part left out, and the line says it names them."""
    if not record:
        return
    also = "; every seat's in full, the hidden parts you were not shown included" if hidden else ""
    print(
        f"moves so far ({len(record)}{also}; as --moves, with this game's --seed {args.seed}, --param and "
        f"--options, they set up the position): {'; '.join(record)}",
        file=out,
    )


def _left(
    args: argparse.Namespace, specs: list[str], record: list[str], record_to: Path | None, out: TextIO
) -> None:
    """A watched game left before its end (``--max-steps``, Ctrl-C): a ``--watch`` game's moves
    so far (a ``--random`` one replays from its seed), and no record."""
    if specs:
        _print_record(args, record, out)
    if record_to is not None:
        print(f"(not added to {record_to}: the game did not end)", file=out)


def watch(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``--random`` (uniform legal moves from ``--seed``) or ``--watch P ...`` (a bot spec,
    ``model.zip`` or RLlib run per seat, or one for every seat; models play their most likely
    move, bots draw from their own seat's generator): every position and move is printed,
    ``--delay`` seconds apart, up to ``--max-steps`` moves; a ``--watch`` game ends with
    every seat's moves in the form ``--moves`` replays."""
    out = out or sys.stdout
    entry = get_game(args.env)
    env = entry.env(render_mode="ansi", **parse_params(args.param, args.variant))
    raw = env.unwrapped
    game = raw.game
    n = game.num_players
    specs: list[str] = list(args.watch or [])
    if specs and len(specs) not in (1, n):
        raise ValueError(
            f"--watch takes one player for each of the {n} seats, or one for all of them; got {len(specs)}"
        )
    choose: Callable[[Any, int], int]
    if specs:
        specs = specs * n if len(specs) == 1 else specs
        loaded: dict[str, Any] = {}
        for spec in specs:
            if spec not in loaded:
                note = params_note(spec, game)
                loaded[spec] = make_player(game, spec, game_bots(entry), deterministic=True)
                if note:
                    print(note, file=out)
        players = [loaded[spec] for spec in specs]
        rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(args.seed).spawn(n)]

        def choose(obs: Any, seat: int) -> int:
            return int(players[seat].act(raw.state, seat, rngs[seat]))

    else:
        rng = np.random.default_rng([args.seed, 1])  # not the deal's own stream, default_rng(seed)

        def choose(obs: Any, seat: int) -> int:
            legal = np.flatnonzero(obs["action_mask"])
            return int(legal[rng.integers(legal.size)])

    record_to = _record_file(args)
    given = reset_to_position(env, args.seed, args.options, args.moves, to_play=True)
    first = raw.state.to_dict() if record_to is not None else {}
    if given:
        print(f"(from the position after the {given} move(s) of --moves)", file=out)
    record = split_moves(args.moves)
    step = 0
    try:
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                print(
                    f"{agent} finished with reward {reward:+.3f}{' (truncated)' if trunc else ''}", file=out
                )
                env.step(None)
                continue
            print(env.render(), file=out)
            seat = raw.possible_agents.index(agent)
            action = choose(obs, seat)
            who = f" ({specs[seat]})" if specs else ""
            text = raw.action_to_string(action)  # before the step: a string may name the position's squares
            events = game.step_events(raw.state, action)
            env.step(action)
            record.append(text)
            print(f"[{step}] {agent}{who}: {text}", file=out)
            for event in events:
                print(f"  - {event}", file=out)
            print(file=out)
            step += 1
            if args.delay:
                time.sleep(args.delay)
            if args.max_steps and step >= args.max_steps and not raw.state.is_terminal():
                print(f"(stopped after {step} steps, before the end: no result)", file=out)
                _left(args, specs, record, record_to, out)
                return 0
    except KeyboardInterrupt:  # Ctrl-C leaves a watched game before its end (as --max-steps does)
        print(f"\n(interrupted after {step} steps, before the end: no result)", file=out)
        _left(args, specs, record, record_to, out)
        raise  # the command's own ending of an interrupt (exit status 130)
    print(env.render(), file=out)
    print(
        f"game over after {step} moves. returns: {[round(float(x), 3) for x in raw.state.returns()]}",
        file=out,
    )
    if specs:
        _print_record(args, record, out)
    seats = specs or ["random"] * n
    _append_record(record_to, entry.env_id, args, seats, first, record[given:], raw.state, out)
    return 0
