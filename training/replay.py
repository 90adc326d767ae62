"""``eightfold replay FILE [N]``: the games that ``eightfold eval --records FILE`` kept.

    eightfold eval octi --players heuristic random --games 20 --records games.jsonl
    eightfold replay games.jsonl                   # one line per game: seats, result, moves, returns (env)
    eightfold replay games.jsonl 7                 # game 7 again: every position and move
    eightfold replay games.jsonl --result loss     # only the games the first player lost
    eightfold replay games.jsonl 7 --upto 10 --out pos.png   # stop after 10 moves; a picture of it
    eightfold replay games.jsonl 7 --gif game7.gif           # every position, as an animation
    eightfold replay games.jsonl 7 --upto 10 --save pos.json # that position as reset options, then:
    eightfold play octi --options @pos.json --vs heuristic   # (with the record's --param) play on
    eightfold replay games.jsonl --dataset d.npz --player heuristic   # its decisions, as arrays

A record is one JSON object per line: ``env`` and ``params`` (the env to build), ``pairing``
(``[a, b]``: the tournament's two players), ``game`` (its index in the pairing, from 0; the
list shows it from 1) and ``seed``, ``seats`` (the player of each seat), ``options``
(``{"state": ...}``: the reset option that sets up the game's first state exactly, hidden parts
and the state's generator included), ``moves`` (every seat's moves in the game's notation),
``returns`` (per seat), ``truncated`` (the game was cut off at its step limit, so its returns
are no result of play) and ``result`` (``a``'s win, draw or loss). ``play --record`` writes the
same, with ``pairing`` ``["human", <bot>]`` and the human's ``result`` for a ``--vs`` game,
and no ``pairing``, ``game`` or ``result`` for ``--watch`` and ``--random`` games (so
``--result`` does not pick them). The same works in code::

    env = get_game(rec["env"]).env(**rec["params"])
    env.reset(options=rec["options"])
    # then env.step(env.unwrapped.string_to_action(move)) for each of rec["moves"]
    # (taking env.step(None) for seats that are out), as eightfold replay does

The replay checks every move (legal for the seat to act) and, at the end, that the game ends
with the recorded returns; a record that does not replay (another version of the game, an
edited file) is an error that names the move.

``--dataset OUT.npz`` writes the decisions of the records (all, or game N) as arrays for
behaviour cloning or offline RL, one row per decision, replayed through the engine with the
same checks (``np.load(OUT)``; :data:`DATASET_KEYS`): ``observations`` (``float32``, what the
seat to act observes, as the env's ``"observation"``), ``action_masks`` (``bool``),
``actions`` (``int64``), ``seats`` and ``steps`` (the decision's seat and its number in the
game, from 0), ``games`` (the record's number, from 1, as the list shows it), ``players``
(the seat's player, a string), ``returns`` (``float32``: that seat's final return of the
game, the Monte Carlo target) and ``truncated`` (``bool``: the game was cut off at its step
limit, so its return is no outcome). ``--player P`` keeps the decisions of the seats ``P``
played. One dataset holds one game under one set of parameters (records that name it
differently, ``octi`` and ``eightfold/octi-v0``, defaults given or left out, go together).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from envs.core.files import replacing, write_text
from envs.core.game import STATE_OPTION
from envs.core.registry import get_game
from training.params import float_at_least, int_at_least, output_file
from training.position import checked_action

#: the keys every record holds
RECORD_KEYS = ("env", "params", "seats", "options", "moves", "returns")
#: the arrays of ``eightfold replay FILE --dataset OUT.npz``, one row per decision
DATASET_KEYS = (
    "observations",
    "action_masks",
    "actions",
    "seats",
    "steps",
    "games",
    "players",
    "returns",
    "truncated",
)
#: what a record's result may be (its pairing's first player's)
RESULTS = ("win", "draw", "loss")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("replay", help="list, replay or export the games of eval --records and play --record")
    p.add_argument("file", help="a JSON Lines file written by eightfold eval --records or play --record")
    p.add_argument(
        "game",
        nargs="?",
        type=int_at_least(1),
        default=None,
        help="the game to replay, as the list numbers it",
    )
    p.add_argument(
        "--upto",
        type=int_at_least(0),
        default=None,
        metavar="K",
        help="stop after K moves (default: the end)",
    )
    p.add_argument("--delay", type=float_at_least(0), default=0.0, help="seconds between moves")
    p.add_argument("--out", default=None, metavar="PNG", help="also save the last position shown as a PNG")
    p.add_argument(
        "--gif",
        default=None,
        metavar="GIF",
        help="also save every position shown as an animation (0.6 s a move)",
    )
    p.add_argument(
        "--save",
        default=None,
        metavar="JSON",
        help='also save the last position shown as reset options ({"state": ...}) for play --options @JSON',
    )
    p.add_argument(
        "--dataset",
        default=None,
        metavar="NPZ",
        help="write the decisions of the records (all, or game N) as arrays: observations, masks, actions, returns",
    )
    p.add_argument("--player", default=None, help="with --dataset: only the decisions of this player's seats")
    p.add_argument(
        "--result",
        choices=["win", "draw", "loss"],
        default=None,
        help="list (or export with --dataset) only the games with this result for the pairing's first player "
        "(eval --records writes it; with --player, still the first player's result)",
    )
    p.set_defaults(func=cmd_replay)


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, each checked for :data:`RECORD_KEYS` (``ValueError``
    naming the line otherwise; blank lines are skipped). A missing file or a directory is a
    ``ValueError`` naming the path (the command line's usage error, exit status 2)."""
    records = []
    if Path(path).is_dir():
        raise ValueError(
            f"{str(path)!r} is a directory; give a .jsonl file of eval --records or play --record"
        )
    try:
        # a BOM (as Windows editors write) is skipped; other OSErrors: the command line reports them
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(
            f"no records file {str(path)!r} (eightfold eval --records FILE.jsonl or play --record FILE.jsonl "
            "writes one)"
        ) from None
    except UnicodeDecodeError:
        raise ValueError(
            f"{str(path)!r} is not a text file (UTF-8); expected JSON Lines written by eval --records or play --record"
        ) from None
    for number, line in enumerate(text.split("\n"), 1):  # JSON Lines: "\n" ends a line
        if not line.strip():
            continue
        where = f"{str(path)!r} line {number}"
        try:
            rec = json.loads(line)
        except ValueError as exc:  # JSONDecodeError, or the int parser's digit limit
            raise ValueError(f"{where} is not JSON ({exc})") from None
        if not isinstance(rec, dict):
            raise ValueError(f"{where} is not a game record (a JSON object), got {type(rec).__name__}")
        missing = [k for k in RECORD_KEYS if k not in rec]
        if missing:
            raise ValueError(f"{where} is not a game record of eightfold eval --records: it lacks {missing}")
        _check_record(rec, where)
        records.append(rec)
    if not records:
        raise ValueError(f"{str(path)!r} holds no game records")
    return records


def _check_record(rec: dict[str, Any], where: str) -> None:
    """The types of a record's fields (``ValueError`` naming the field and the line)."""

    def strings(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(x, str) for x in v)

    options = rec["options"]
    problems = [
        ("env", isinstance(rec["env"], str), "a string"),
        (
            "params",
            isinstance(rec["params"], dict) and "render_mode" not in rec["params"],
            "a JSON object of the game's parameters",
        ),
        (
            "options",
            isinstance(options, dict)
            and set(options) == {STATE_OPTION}
            and isinstance(options[STATE_OPTION], dict),
            f'{{"{STATE_OPTION}": ...}} (the game\'s first state, as eval --records and play --record write it)',
        ),
        ("seats", strings(rec["seats"]) and bool(rec["seats"]), "a non-empty list of player names"),
        ("moves", strings(rec["moves"]), "a list of moves in notation"),
        (
            "returns",
            isinstance(rec["returns"], list)
            and isinstance(rec["seats"], list)
            and len(rec["returns"]) == len(rec["seats"])
            and all(_finite_number(x) for x in rec["returns"]),
            "a list of numbers, one per seat",
        ),
    ]
    if "pairing" in rec:
        pairing = rec["pairing"]
        problems.append(
            ("pairing", strings(pairing) and len(pairing) == 2, "a list of the pairing's two player names")
        )
    if "game" in rec:
        g = rec["game"]
        problems.append(("game", isinstance(g, int) and not isinstance(g, bool) and g >= 0, "an int >= 0"))
    if "result" in rec:
        problems.append(("result", rec["result"] in RESULTS, f"one of {list(RESULTS)}"))
    if "truncated" in rec:
        problems.append(("truncated", isinstance(rec["truncated"], bool), "true or false"))
    for key, ok, expected in problems:
        if not ok:
            shown = repr(rec[key])
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise ValueError(f"{where}: {key} must be {expected}, got {shown}")


def _finite_number(x: Any) -> bool:
    """A JSON number a float holds: not a bool, and not an integer beyond a float's range."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:
        return False


def _env_label(rec: dict[str, Any]) -> str:
    """A record's game as the list names it: the short name and any parameters,
    ``over_and_out num_players=3``."""
    try:
        name = get_game(rec["env"]).name
    except ValueError:  # an env id of another version: named as written
        name = str(rec["env"])
    params = rec["params"] if isinstance(rec["params"], dict) else {}
    return " ".join([name, *(f"{k}={json.dumps(v)}" for k, v in params.items())])


def format_list(records: list[dict[str, Any]], numbers: list[int] | None = None) -> str:
    """One line per record: its number (``numbers``, default 1, 2, ...), the seats' players,
    the result, moves and returns; and where the records are of more than one game or set of
    parameters (``play --record`` and ``eval --records`` append to a file), each one's game
    (:func:`_env_label`) in a column after the number."""
    labels = [_env_label(rec) for rec in records]
    width = max(map(len, labels)) if len(set(labels)) > 1 else 0
    env = f"{'env':{width}s}  " if width else ""
    lines = [f"{'#':>5s}  {env}{'result':6s} {'moves':>5s}  {'returns':22s} seats (game of its pairing)"]
    for n, rec, label in zip(numbers or range(1, len(records) + 1), records, labels, strict=True):
        returns = "[" + ", ".join(f"{float(x):+.3g}" for x in rec["returns"]) + "]"
        game = (
            f" (game {rec.get('game', 0) + 1} of {rec['pairing'][0]} vs {rec['pairing'][1]})"
            if "pairing" in rec
            else ""
        )
        game += " (cut off at the step limit)" if rec.get("truncated") else ""
        env = f"{label:{width}s}  " if width else ""
        lines.append(
            f"{n:5d}  {env}{str(rec.get('result', '')):6s} {len(rec['moves']):5d}  {returns:22s} "
            f"{', '.join(map(str, rec['seats']))}{game}"
        )
    return "\n".join(lines)


def replay(
    rec: dict[str, Any],
    name: str,
    out: TextIO,
    upto: int | None = None,
    delay: float = 0.0,
    frames: list[np.ndarray] | None = None,
) -> tuple[Any, int]:
    """Play record ``rec`` (called ``name`` in errors) again in its env, printing every
    position and move; stops after ``upto`` moves if given; with ``frames`` it also draws
    every position shown into that list (``rgb_array``). Returns the env and the moves
    played; ``ValueError`` if a move does not replay or the end differs from the record."""
    try:
        env = get_game(str(rec["env"])).env(render_mode="ansi", **rec["params"])
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    raw = env.unwrapped
    _check_seats(rec, raw.game, name)
    try:
        env.reset(options=rec["options"])
    except ValueError as exc:
        raise ValueError(f"{name}: its options do not set up a game: {exc}") from None
    seats = [str(s) for s in rec["seats"]]
    print(
        "seats: " + ", ".join(f"{agent} {p}" for agent, p in zip(raw.possible_agents, seats, strict=False)),
        file=out,
    )
    moves = [str(m) for m in rec["moves"]]
    stop = len(moves) if upto is None else min(upto, len(moves))
    for i, text in enumerate(moves[:stop], 1):
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            print(f"{env.agent_selection} is out", file=out)
            env.step(None)
        agent = env.agent_selection
        seat = raw.possible_agents.index(agent) if agent in raw.possible_agents else -1
        action = checked_action(raw.state, i, text, len(moves) - i + 1, agent, source=name)
        print(env.render(), file=out)
        if frames is not None:
            frames.append(raw.game.render_rgb(raw.state))
        who = f" ({seats[seat]})" if 0 <= seat < len(seats) else ""
        print(f"[{i - 1}] {agent}{who}: {raw.action_to_string(action)}\n", file=out)
        env.step(action)
        if delay:
            time.sleep(delay)
    print(env.render(), file=out)
    if frames is not None:
        frames.append(raw.game.render_rgb(raw.state))
    if stop < len(moves):
        print(f"(stopped after {stop} of the record's {len(moves)} moves)", file=out)
        return env, stop
    returns = _check_end(raw.state, rec, name)
    result = f"; {rec['pairing'][0]}'s {rec['result']}" if "pairing" in rec and "result" in rec else ""
    print(f"game over after {len(moves)} moves. returns: {[round(x, 3) for x in returns]}{result}", file=out)
    return env, stop


def record_game(rec: dict[str, Any], name: str) -> Any:
    """The engine game of record ``rec`` (``ValueError`` naming it if the env or parameters are
    refused, or its seats do not fit the game)."""
    try:
        game = get_game(str(rec["env"])).game_class()(**rec["params"])
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    _check_seats(rec, game, name)
    return game


def _check_seats(rec: dict[str, Any], game: Any, name: str) -> None:
    if len(rec["seats"]) != game.num_players:
        raise ValueError(
            f"{name}: its seats name {len(rec['seats'])} players, but {game.name} with its params "
            f"{rec['params']} has {game.num_players}"
        )


def _check_end(state: Any, rec: dict[str, Any], name: str) -> list[float]:
    """The returns of ``state`` after all of ``rec``'s moves; ``ValueError`` unless the game is
    over there with the recorded returns."""
    returns = [float(x) for x in state.returns()]
    recorded = [float(x) for x in rec["returns"]]
    if not state.is_terminal() or not np.allclose(returns, recorded):
        how = f"returns {returns}" if state.is_terminal() else "the game is not over"
        raise ValueError(
            f"{name} does not replay: after its {len(rec['moves'])} moves {how}, but the record says returns "
            f"{recorded} (a record of another version of the game, or an edited one?)"
        )
    return returns


def decisions(rec: dict[str, Any], name: str, number: int, player: str | None = None) -> dict[str, list[Any]]:
    """The decisions of record ``rec`` (number ``number`` of its file) replayed on the engine,
    column by column as :data:`DATASET_KEYS` names them (only ``player``'s seats if given);
    ``ValueError`` as :func:`replay` if the record does not replay."""
    game = record_game(rec, name)
    try:  # the "state" option sets everything, the generator included: the rng given is unused
        state = game.new_initial_state(np.random.default_rng(0), rec["options"])
    except ValueError as exc:
        raise ValueError(f"{name}: its options do not set up a game: {exc}") from None
    seats = [str(s) for s in rec["seats"]]
    moves = [str(m) for m in rec["moves"]]
    cols: dict[str, list[Any]] = {k: [] for k in DATASET_KEYS}
    for i, text in enumerate(moves, 1):
        seat = -1 if state.is_terminal() else int(state.current_player())
        action = checked_action(
            state, i, text, len(moves) - i + 1, game.agent_name(max(seat, 0)), source=name
        )
        who = seats[seat] if 0 <= seat < len(seats) else ""
        if player is None or who == player:
            cols["observations"].append(np.array(game.observe(state, seat), dtype=np.float32))  # its own copy
            cols["action_masks"].append(state.legal_mask().astype(bool))
            cols["actions"].append(action)
            cols["seats"].append(seat)
            cols["steps"].append(i - 1)
            cols["games"].append(number)
            cols["players"].append(who)
        state.apply(action)
    final = _check_end(state, rec, name)
    cols["returns"] = [final[s] for s in cols["seats"]]
    cols["truncated"] = [bool(state.is_truncated())] * len(cols["seats"])
    return cols


def write_dataset(
    records: list[dict[str, Any]], numbers: list[int], path: str, file: str, player: str | None
) -> int:
    """``--dataset``: the decisions of ``records`` (numbered ``numbers``) in one ``.npz``;
    returns the rows written. Records of other envs or parameters than the first are refused."""
    first = records[0]
    game = record_game(first, f"{file} game {numbers[0]}")
    cols: dict[str, list[Any]] = {k: [] for k in DATASET_KEYS}
    for rec, n in zip(records, numbers, strict=True):
        other = record_game(rec, f"{file} game {n}")
        if (other.name, other.config) != (game.name, game.config):
            raise ValueError(
                f"--dataset: game {n} of {file} is of {rec['env']} {rec['params']}, game {numbers[0]} of "
                f"{first['env']} {first['params']}; one dataset holds one game's observations"
            )
        for k, v in decisions(rec, f"{file} game {n}", n, player).items():
            cols[k] += v
    if not cols["actions"] and player is None:
        raise ValueError(f"--dataset: the games chosen from {file} hold no decision (they end before a move)")
    if not cols["actions"]:
        raise ValueError(
            f"--dataset: no decision of player {player!r} in {file} (its players: "
            f"{sorted({str(p) for rec in records for p in rec['seats']})})"
        )
    observations = np.stack(cols["observations"]).astype(np.float32)
    assert observations.shape[1:] == tuple(game.observation_shape)
    with replacing(path) as tmp, tmp.open("wb") as f:
        np.savez_compressed(
            f,
            observations=observations,
            action_masks=np.stack(cols["action_masks"]).astype(bool),
            actions=np.asarray(cols["actions"], dtype=np.int64),
            seats=np.asarray(cols["seats"], dtype=np.int8),
            steps=np.asarray(cols["steps"], dtype=np.int32),
            games=np.asarray(cols["games"], dtype=np.int32),
            players=np.asarray(cols["players"], dtype=np.str_),
            returns=np.asarray(cols["returns"], dtype=np.float32),
            truncated=np.asarray(cols["truncated"], dtype=bool),
        )
    return len(cols["actions"])


def cmd_replay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    for option in ("out", "save", "dataset", "gif"):
        if getattr(args, option):
            output_file(f"--{option}", getattr(args, option))
    records = load_records(args.file)
    if args.player is not None and not args.dataset:
        raise ValueError("--player picks the decisions of --dataset: give --dataset OUT.npz too")
    if args.game is not None and args.game > len(records):
        raise ValueError(
            f"game must be in [1, {len(records)}] (the file holds {len(records)} games), got {args.game}"
        )
    numbers = list(range(1, len(records) + 1))
    if args.result is not None:
        if args.game is not None:
            raise ValueError(
                "--result picks games for the list or --dataset; a named game N is shown whatever its result"
            )
        numbers = [n for n in numbers if records[n - 1].get("result") == args.result]
        if not numbers:
            raise ValueError(
                f"no game of {args.file} has the result {args.result!r} (results are the pairing's first player's, "
                "as eval --records writes them)"
            )
    if args.dataset:
        if args.upto is not None or args.out or args.save or args.delay or args.gif:
            raise ValueError(
                "--dataset writes whole games; --upto, --delay, --out, --save and --gif show one"
            )
        numbers = [args.game] if args.game is not None else numbers
        rows = write_dataset([records[n - 1] for n in numbers], numbers, args.dataset, args.file, args.player)
        who = f" of {args.player}" if args.player is not None else ""
        with np.load(args.dataset) as data:  # the games that gave rows: a player sits out some
            games = len(np.unique(data["games"]))
        print(
            f"wrote {args.dataset}: {rows} decisions{who} from {games} game(s) ({', '.join(DATASET_KEYS)})",
            file=out,
        )
        return 0
    if args.game is None:
        if args.upto is not None or args.out or args.save or args.delay or args.gif:
            raise ValueError(
                "--upto, --delay, --out, --save and --gif replay one game: name it (eightfold replay FILE N)"
            )
        print(format_list([records[n - 1] for n in numbers], numbers), file=out)
        return 0
    rec = records[args.game - 1]
    pairing = f", {rec['pairing'][0]} vs {rec['pairing'][1]}" if "pairing" in rec else ""
    params = f" {rec['params']}" if rec["params"] else ""
    print(f"{rec['env']}{params}: game {args.game} of {args.file}{pairing}", file=out)
    frames: list[np.ndarray] | None = [] if args.gif else None
    env, _ = replay(rec, f"{args.file} game {args.game}", out, args.upto, args.delay, frames)
    if args.gif and frames:
        from envs.core.draw import save_gif

        save_gif(frames, args.gif)
        print(f"wrote {args.gif} ({len(frames)} frames, 0.6 s a move)", file=out)
    if args.out:
        from envs.core.draw import save_png

        raw = env.unwrapped
        frame = raw.game.render_rgb(raw.state)
        save_png(frame, args.out)
        print(f"wrote {args.out} ({frame.shape[1]}x{frame.shape[0]})", file=out)
    if args.save:
        raw = env.unwrapped
        write_text(args.save, json.dumps({STATE_OPTION: raw.state.to_dict()}))
        params = "".join(f" --param {shlex.quote(f'{k}={json.dumps(v)}')}" for k, v in rec["params"].items())
        if raw.state.is_terminal():  # play refuses a finished game: nothing to play on
            print(
                f"wrote {args.save} (the game is over there: render draws it, play has nothing to play)",
                file=out,
            )
        else:  # a solo game is played alone; elsewhere a seat still in the game
            out_seats = set(raw.state.eliminated())
            seat = min(s for s in range(raw.game.num_players) if s not in out_seats)
            who = (
                ""
                if raw.game.num_players == 1
                else " --vs <bot or model>" + (f" --seat {seat}" if seat else "")
            )
            print(
                f"wrote {args.save}; play on from there: eightfold play {raw.game.name}{params} "
                f"--options @{args.save}{who}",
                file=out,
            )
    return 0
