"""``eightfold eval``: tournaments between bots and trained agents.

    eightfold eval over_and_out --param num_players=2 --players runs/demo/model.zip random greedy heuristic
    eightfold eval --players runs/demo/model.zip random heuristic     # env/params from the run's config.yaml
    eightfold eval --curve runs/demo                                  # learning-curve PNG of a run

Players are bot specs (``random``, ``heuristic``, ``mcts:sims=100``) or saved models
(``path.zip``). ``--mode first`` (default) pairs the first player with each other one;
``--mode all`` plays every pairing. In each pairing the first player's seat rotates and
the other seats are the second player (for more than two seats both directions are played
in ``all`` mode; in solo games both play every deal, head to head). Output: a table with
95% Wilson intervals, mean placement (1 = first among the game's sides; a 2v2 game has two,
the teams), Elo (a Bradley-Terry fit to each pairing's score: wins and half the draws between
two sides; with more, the first player's place among them, scored so that equals rate equal
although the second player holds more seats), plus ``--json`` and ``--plot`` files. Games
run in ``--workers`` processes once the whole tournament holds 40 games or more
(all pairings together; fewer are played in-process). ``--options`` and ``--moves`` start
every game from a chosen position (:mod:`training.position`), after that game's own deal.
``--records FILE.jsonl`` keeps every game (one JSON line each: the seats' players, the first
state as the reset option ``{"state": ...}``, the moves in notation, the returns and the first
player's result), which ``eightfold replay`` (:mod:`training.replay`) lists and plays again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.config import check_choice, check_int, check_seed
from envs.core.files import replacing, write_text
from envs.core.game import team_seats
from envs.core.registry import get_game
from training.params import int_at_least, output_file, parse_params
from training.tournament import (
    PairResult,
    Start,
    bradley_terry_elo,
    check_start,
    deal_rng,
    game_seed,
    play_pairing,
    start_of,
)

MIN_PARALLEL_GAMES = 40
"""Fewer games than this are played in-process: starting workers costs a few seconds."""

EVAL_GAMES = 200  # eightfold eval: games per pairing
EVAL_WORKERS = 2  # eightfold eval: worker processes
MAX_GAMES = 10**9  # eightfold eval --games: more is no tournament anyone waits for (and no list that fits)

_CACHE: dict[tuple[str, str, str, bool, tuple[str, int, int] | None], Any] = {}
"""Players built in this process (a worker plays many pairings of each), by game, parameters,
spec and the identity of the file a model spec names. An entry for an older version of a file
is dropped when the new one is built, and the least recently used beyond ``CACHE_SIZE``."""
CACHE_SIZE = 64


def add_parser(sub: Any) -> None:
    p = sub.add_parser("eval", help="tournament of bots and trained agents (win rates, Elo, plot)")
    p.add_argument("env", nargs="?", default=None, help="game (default: from the first model's run)")
    p.add_argument("--variant", default=None, help="shorthand for --param variant=<v> (Octi)")
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="game parameter (repeatable), JSON values"
    )
    p.add_argument(
        "--players",
        nargs="+",
        default=[],
        help="two or more distinct bot specs, model .zip paths and/or RLlib run directories (each names its rating)",
    )
    p.add_argument(
        "--games",
        type=int_at_least(1, MAX_GAMES),
        default=EVAL_GAMES,
        help=f"games per pairing (default {EVAL_GAMES}, at most {MAX_GAMES:,})",
    )
    p.add_argument(
        "--mode",
        choices=["first", "all"],
        default="first",
        help="first: the first player against each other one (default); all: every pair",
    )
    p.add_argument(
        "--seed", type=int_at_least(0), default=0, help="tournament seed: the deals and the players' draws"
    )
    p.add_argument(
        "--options",
        default=None,
        metavar="JSON",
        help="every game starts from these reset options of the game (a JSON object, or @file.json)",
    )
    p.add_argument(
        "--moves", default=None, metavar="'M1; M2; ...'", help="and these moves in notation, ';'-separated"
    )
    p.add_argument(
        "--workers", type=int_at_least(1), default=EVAL_WORKERS, help="processes (1 = in this process)"
    )
    p.add_argument("--stochastic", action="store_true", help="models sample actions (default: best action)")
    p.add_argument("--json", default=None, help="write the results as JSON")
    p.add_argument("--plot", default=None, help="write a PNG of the results")
    p.add_argument(
        "--records",
        default=None,
        metavar="FILE.jsonl",
        help="write every game's record, one JSON line each (eightfold replay FILE shows them)",
    )
    p.add_argument(
        "--curve",
        default=None,
        metavar="RUN_DIR",
        help="plot a run's learning curve to --plot (default RUN_DIR/learning_curve.png, replaced) and exit",
    )
    p.set_defaults(func=cmd_eval)


# --------------------------------------------------------------------- workers
def _saved_file(spec: str) -> tuple[str, int, int] | None:
    """The identity (real path, mtime, size) of the file a model spec names (an RLlib run: its
    metadata, rewritten by every save), None for a bot: a model file rewritten since (a resumed
    run's ``model.zip``, a notebook that trains and evaluates in turn) is played anew, not from
    the cache."""
    from training.players import file_identity, is_model_spec
    from training.rllib.common import META_FILE, find_run_dir

    if not isinstance(spec, str):
        return None  # make_player names the mistake
    path = spec.strip()
    if not is_model_spec(path):
        run = find_run_dir(path)
        if run is None:
            return None
        path = str(run / META_FILE)
    return file_identity(path)  # None: make_player names the problem


def _player(env: str, params_json: str, spec: str, deterministic: bool) -> Any:
    key = (env, params_json, spec, deterministic, _saved_file(spec))
    if key not in _CACHE:
        from training.players import game_bots, make_player

        entry = get_game(env)
        game = entry.game_class()(**json.loads(params_json))
        player = make_player(game, spec, game_bots(entry), deterministic=deterministic)
        for old in [k for k in _CACHE if k[:4] == key[:4]]:  # the file rewritten since: never read again
            del _CACHE[old]
        while len(_CACHE) >= CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
        _CACHE[key] = (game, player)
    else:
        _CACHE[key] = _CACHE.pop(key)  # the most recently used last: the oldest go first
    return _CACHE[key]


@contextlib.contextmanager
def _torch_threads_kept() -> Iterator[None]:
    """torch's thread count put back afterwards (nothing to keep without torch)."""
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _run_chunk(task: tuple[str, str, str, str, list[int], int, bool, Start | None, bool]) -> PairResult:
    env, params_json, a, b, ids, seed, deterministic, start, records = task
    try:  # a model's forward passes: one thread a worker (bots alone need no torch)
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    game, pa = _player(env, params_json, a, deterministic)
    _, pb = _player(env, params_json, b, deterministic)
    return play_pairing(game, pa, pb, (a, b), ids, seed=seed, start=start, records=records)


def run_tournament(
    env: str,
    params: dict[str, Any],
    players: Sequence[str],
    games: int,
    mode: str = "first",
    seed: int = 0,
    workers: int = 2,
    deterministic: bool = True,
    start: Start | None = None,
    records: bool = False,
) -> dict[str, Any]:
    """Play the pairings of ``players`` (a list of specs) on ``env`` with ``params`` (a dict of
    game parameters), every game from the initial position or ``start`` (a pair: reset options
    dict or None, list of moves in notation or None, as ``eightfold play --options --moves`` take
    them; :func:`training.tournament.check_start`); results as a
    JSON-ready dict (pairs, Elo). With ``records`` it also holds ``"records"``: every game's
    record (:func:`training.tournament.game_record`, with ``env``, ``params`` and ``pairing``),
    pairing by pairing in game order, as ``eightfold replay`` reads them."""
    check_int("games", games, 1)
    check_seed(seed)
    check_choice("mode", mode, ("first", "all"))
    check_int("workers", workers, 1)
    if not isinstance(params, Mapping):
        raise ValueError(
            f"params must be a dict of game parameters ({{}} for the defaults, e.g. {{'num_players': 2}}), "
            f"got {params!r}"
        )
    params = dict(params)
    if isinstance(players, np.ndarray) and players.ndim == 1:
        players = players.tolist()  # a column of specs read with numpy or pandas
    if isinstance(players, str) or not isinstance(players, Sequence):
        what = f"the string {players!r}" if isinstance(players, str) else repr(players)
        raise ValueError(f"players must be a list of player specs (e.g. ['random', 'heuristic']), got {what}")
    for spec in players:  # make_player's words, before set() fails on an unhashable one
        if not isinstance(spec, str):
            raise ValueError(
                "a player spec is a string: a bot ('heuristic', 'mcts:sims=200'), a model .zip or an RLlib "
                f"run directory; got {spec!r} in players"
            )
    start = check_start(start)
    if len(players) < 2:
        raise ValueError("name at least two players (bot specs or model .zip files)")
    if len(set(players)) != len(players):
        raise ValueError(f"players must be distinct, got {list(players)}")
    same_file = _same_saved_player(players)
    if same_file:
        raise ValueError(
            f"players must be distinct: {same_file[0]!r} and {same_file[1]!r} name the same file"
        )
    game = get_game(env).game_class()(**params)
    if start is not None:  # a bad start fails here, before any game, naming the move or option
        for g in range(games):  # every game deals afresh: the moves must be legal after each deal
            try:
                if start_of(game, deal_rng(game, game_seed(seed, g)), start).is_terminal():
                    raise ValueError("the game is over there: nothing to play")
            except ValueError as exc:
                raise ValueError(
                    f"game {g + 1} of each pairing (its own deal, --seed {seed}): {exc}"
                ) from None
    for spec in players:  # fail early, in this process, on a bad spec or model
        _player(env, json.dumps(params, sort_keys=True), spec, deterministic)
    pairs = [(players[0], b) for b in players[1:]]
    if mode == "all":
        pairs = [(a, b) for i, a in enumerate(players) for b in players[i + 1 :]]
        if game.num_players > 2:
            pairs += [(b, a) for a, b in pairs]
    chunks = max(1, workers) * 2
    pjson = json.dumps(params, sort_keys=True)
    tasks = [
        (env, pjson, a, b, list(range(games))[k::chunks], seed, deterministic, start, records)
        for a, b in pairs
        for k in range(min(chunks, games))
    ]
    if workers > 1 and len(tasks) > 1 and games * len(pairs) >= MIN_PARALLEL_GAMES:
        import multiprocessing as mp

        from training.interrupt import sigint_deferred, start_forkserver, start_method, worker_pool

        # forkserver, not fork: the parent already runs torch; the server imports the heavy
        # modules once and every worker forks from it (spawn where there is none: Windows)
        ctx = mp.get_context(start_method())
        if start_method() == "forkserver":
            ctx.set_forkserver_preload(["torch", "sb3_contrib", "training.evaluate"])

        start_forkserver()  # Ctrl-C while it imports torch: no traceback of its own
        with worker_pool(min(workers, len(tasks)), ctx) as pool:  # Ctrl-C: the workers end at once
            with sigint_deferred():  # ... once they are up (they start on demand)
                pending = pool.map(_run_chunk, tasks)
            parts = list(pending)
    else:
        with _torch_threads_kept():  # _run_chunk sets one thread: a worker's, not the caller's
            parts = [_run_chunk(t) for t in tasks]
    merged: dict[tuple[str, str], PairResult] = {}
    for part in parts:
        merged.setdefault((part.a, part.b), PairResult(part.a, part.b)).merge(part)
    results = [merged[p] for p in pairs]
    solo = game.num_players == 1
    env_id = get_game(env).env_id
    sides = 2 if solo else game.num_players // len(team_seats(game, 0))
    kept: dict[str, Any] = {}
    if records:
        kept["records"] = [
            {"env": env_id, "params": params, "pairing": [r.a, r.b], **rec}
            for r in results
            for rec in sorted(r.records, key=lambda rec: rec["game"])
        ]
        for r in results:
            r.records = []
    return {
        "env": env_id,
        "params": params,
        "num_players": game.num_players,
        # the sides a game is won between (2v2: two teams; solo: two players on the same deals)
        "sides": sides,
        "seating": "the same deals, scores compared" if solo else "seats rotated",
        "games_per_pairing": games,
        "mode": mode,
        "seed": seed,
        "stochastic": not deterministic,  # the models sample their moves (eval --stochastic)
        **({"start": {"options": start[0], "moves": start[1]}} if start is not None else {}),
        "players": list(players),
        "pairs": [r.summary() for r in results],
        "elo": bradley_terry_elo(list(players), results, sides=sides),
        **kept,
    }


def _same_saved_player(players: Sequence[str]) -> tuple[str, str] | None:
    """Two specs that name one saved model or RLlib run by two paths (``run/model.zip`` and
    ``./run/model.zip``, a link): it would play itself, rated as two players."""
    seen: dict[tuple[str, int, int], str] = {}
    for spec in players:
        key = _saved_file(spec)
        if key is not None:
            if key in seen:
                return seen[key], spec
            seen[key] = spec
    return None


# ---------------------------------------------------------------------- output
def format_table(res: dict[str, Any]) -> str:
    """The tournament's table, its note on games cut off at the step limit and its Elo line.
    Long player names are shortened in the middle (:func:`short_names`: distinct players stay
    distinct) and the columns widen to the longest name shown."""
    names = short_names([*res.get("players", []), *(n for p in res["pairs"] for n in (p["a"], p["b"]))])
    wa = max([34, *(len(names[p["a"]]) for p in res["pairs"])])
    wb = max([22, *(len(names[p["b"]]) for p in res["pairs"])])
    head = f"{'player':{wa}s} {'vs':{wb}s} {'games':>5s} {'W':>5s} {'D':>4s} {'L':>5s} {'win rate [95% CI]':>24s}"
    multi = res.get("sides", res["num_players"]) > 2
    head += f" {'place':>6s}" if multi else ""
    lines = [head, "-" * len(head)]
    for p in res["pairs"]:
        lo, hi = p["win_rate_ci95"]
        row = (
            f"{names[p['a']]:{wa}s} {names[p['b']]:{wb}s} {p['games']:5d} {p['wins']:5d} {p['draws']:4d} "
            f"{p['losses']:5d} {p['win_rate']:9.3f} [{lo:.3f}, {hi:.3f}]"
        )
        lines.append(row + (f" {p['mean_placement']:6.2f}" if multi else ""))
    cut = [p for p in res["pairs"] if p.get("truncated")]
    if cut:  # no outcome of play: a short step limit would pass for close play
        lines.append(
            "cut off at the step limit, counted by the returns the game pays there: "
            + ", ".join(
                f"{p['truncated']} of {p['games']} ({names[p['a']]} vs {names[p['b']]}{_cut_results(p)})"
                for p in cut
            )
        )
    lines.append("")
    lines.append(
        "Elo (Bradley-Terry, first player = 1000): "
        + ", ".join(f"{names[n]} {e:.0f}" for n, e in sorted(res["elo"].items(), key=lambda kv: -kv[1]))
    )
    return "\n".join(lines)


def _cut_results(pair: Mapping[str, Any]) -> str:
    """``": 3 draws, 1 win"``: how the table counted a pair's cut-off games (nothing for a
    result file written before they were counted apart)."""
    counts = pair.get("truncated_results")
    if not isinstance(counts, Mapping):
        return ""
    words = (("wins", "win"), ("draws", "draw"), ("losses", "loss"))
    parts = [f"{counts[k]} {one if counts[k] == 1 else k}" for k, one in words if counts.get(k)]
    return ": " + ", ".join(parts) if parts else ""


SHORT_NAME = 34
"""The width a player's name is shortened to in ``eval``'s table and Elo line (when that keeps
the players apart)."""


def _middle(name: str, width: int) -> str:
    """``name`` cut to ``width`` characters by an ellipsis in the middle: the head (a run's
    folder) and the longer tail (the file) stay."""
    if len(name) <= width:
        return name
    head = (width - 3) // 3
    return name[:head] + "..." + name[len(name) - (width - 3 - head) :]


def short_names(names: Sequence[str], width: int = SHORT_NAME) -> dict[str, str]:
    """Each name shown in at most ``width`` characters (:func:`_middle`), widened as far as it
    takes for distinct names to stay distinct (at worst the full names)."""
    unique = list(dict.fromkeys(names))
    longest = max((len(n) for n in unique), default=0)
    for w in range(width, longest):
        shown = {n: _middle(n, w) for n in unique}
        if len(set(shown.values())) == len(unique):
            return shown
    return {n: n for n in unique}


def infer_env(players: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Env and params the first model or RLlib run of ``players`` was trained with."""
    from training.players import is_model_spec, trained_with

    for spec in players:
        if is_model_spec(spec) and not Path(spec.strip()).is_file():
            raise ValueError(f"no model at {spec!r}")
        found = trained_with(spec)
        if found is not None:
            return found
    raise ValueError(
        "name the env and its --param values (e.g. eightfold eval over_and_out --param num_players=2 "
        "...) or pass a model from a run directory (eightfold train's: its config.yaml names them)"
    )


def cmd_eval(args: argparse.Namespace) -> int:
    from training.plots import learning_curve, plot_tournament

    if args.curve:
        ignored = {  # a tournament's options: with --curve only --plot has a use
            "ENV": args.env is not None,
            "--variant": args.variant is not None,
            "--param": bool(args.param),
            "--players": bool(args.players),
            "--games": args.games != EVAL_GAMES,
            "--mode": args.mode != "first",
            "--seed": args.seed != 0,
            "--options": args.options is not None,
            "--moves": args.moves is not None,
            "--workers": args.workers != EVAL_WORKERS,
            "--stochastic": args.stochastic,
            "--json": args.json is not None,
            "--records": args.records is not None,
        }
        stray = [k for k, given in ignored.items() if given]
        if stray:
            raise ValueError(f"{', '.join(stray)} has no effect with --curve (it takes --plot only)")
        run = Path(args.curve)
        if not (run / "monitor").is_dir() and not (run / "eval.jsonl").is_file():
            raise ValueError(f"--curve: {str(run)!r} is not a training run (no monitor/ or eval.jsonl in it)")
        print(
            f"wrote {learning_curve(Path(args.curve), Path(args.plot or Path(args.curve) / 'learning_curve.png'))}"
        )
        return 0
    written: dict[Path, str] = {}
    for option in ("json", "plot", "records"):  # before the games: a bad path must not lose the results
        if getattr(args, option):
            path = output_file(f"--{option}", getattr(args, option)).resolve()
            if path in written:
                raise ValueError(
                    f"{written[path]} and --{option} name the same file {str(path)!r}; give each its own"
                )
            written[path] = f"--{option}"
    if args.env is None:
        env, params = infer_env(args.players)
        params.update(parse_params(args.param, args.variant))
        print(f"env {get_game(env).env_id} {params or ''} (from the players' training runs)", file=sys.stderr)
    else:
        env, params = get_game(args.env).name, parse_params(args.param, args.variant)
    from training.players import is_model_spec, params_note
    from training.rllib.common import is_rllib_spec

    game = get_game(env).game_class()(**params)
    for spec in args.players:
        note = params_note(spec, game)
        if note:
            print(note, file=sys.stderr)
    seats = game.num_players
    valid = len(args.players) >= 2 and len(set(args.players)) == len(args.players)  # else refused below
    if valid and seats > 1 and args.games % seats:
        print(
            f"note: {args.games} games over {seats} seats put the first player in "
            f"{'seat 0' if args.games % seats == 1 else f'seats 0..{args.games % seats - 1}'} once more than in the others; a multiple of {seats} balances first-move advantages",
            file=sys.stderr,
        )
    from training.position import parse_reset_options, split_moves

    options, moves = parse_reset_options(args.options), split_moves(args.moves)
    start = (options, moves) if options is not None or moves else None
    if args.stochastic and not any(is_model_spec(p) or is_rllib_spec(p) for p in args.players):
        raise ValueError("--stochastic has no effect: no saved model or RLlib run among the players")
    res = run_tournament(
        env,
        params,
        args.players,
        args.games,
        args.mode,
        args.seed,
        args.workers,
        not args.stochastic,
        start,
        records=bool(args.records),
    )
    games = res.pop("records", None)
    if start is not None:
        shown = []
        if options is not None:
            text = args.options if args.options.startswith("@") else json.dumps(options)
            shown.append(f"--options {text if len(text) <= 100 else text[:97] + '...'}")  # a state: kilobytes
        shown += [f"{len(moves)} move(s) of --moves"] if moves else []
        print(f"every game starts from {' and '.join(shown)}")
    print(format_table(res))
    if args.json:
        write_text(args.json, json.dumps(res, indent=2) + "\n")
        print(f"wrote {args.json}")
    if args.plot:
        print(f"wrote {plot_tournament(res, Path(args.plot))}")
    if args.records:
        with replacing(args.records) as tmp, tmp.open("w", encoding="utf-8") as f:
            for rec in games or []:
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print(f"wrote {args.records} ({len(games or [])} games; eightfold replay {args.records} lists them)")
    return 0


def evaluate_model_vs_baselines(cfg: Any, model: Path, out: Path) -> dict[str, Any]:
    """The final evaluation of ``eightfold train --eval-games N``."""
    from envs.core.registry import get_game
    from training.plots import plot_tournament

    players = [str(model), *cfg.eval_opponents]
    seats = get_game(cfg.env).game_class()(**cfg.params).num_players
    how = "both play every deal" if seats == 1 else "seats swapped" if seats == 2 else "seats rotated"
    print(f"evaluating {model} against {cfg.eval_opponents}: {cfg.final_eval_games} games each, {how}")
    res = run_tournament(
        cfg.env, cfg.params, players, cfg.final_eval_games, "first", cfg.seed + 104729, cfg.eval_workers
    )
    print(format_table(res))
    write_text(out / "final_eval.json", json.dumps(res, indent=2))
    plot_tournament(res, out / "final_eval.png")
    print(f"wrote {out / 'final_eval.json'} and {out / 'final_eval.png'}")
    return res
