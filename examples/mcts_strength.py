"""How strong and how fast is the core MCTS bot? Re-run it whenever a game lands or changes.

    python examples/mcts_strength.py                         # every landed game, defaults
    python examples/mcts_strength.py --games octi -n 200 --budgets 50 200 --jobs 16
    python examples/mcts_strength.py --config over_and_out:num_players=2 --mcts rollout=heuristic
    python examples/mcts_strength.py --games over_and_out --config over_and_out:num_players=2 \
        --mcts rollout=heuristic,depth=full --budgets 200 --opponents random --oracle   # a ceiling

Prints simulations/s per game, then a markdown table: ``mcts`` at each budget against
``random``, ``greedy`` and ``heuristic`` (seats rotated every game), wins/draws/losses and
the score (wins + draws/2 per game) with its 95% Wilson interval. While a pairing runs, a
running tally goes to stderr after every chunk of games (``--quiet`` turns it off), so a
long run can be read (or stopped) part-way.

``--oracle`` measures a *ceiling*, not a legal bot: the search is handed the true state
instead of a re-deal of what its seat cannot see (every hand, the deck order, future draws),
so its score says what knowing everything is worth against that opponent. ``--oracle hands``
(Over and Out, Otto the Octopus) shows it every hand but re-shuffles the draw piles in each
simulation; ``--oracle deal`` shows it the hands and the pile order but re-draws later chance
(reshuffles, pufferfish picks, seahorse returns): what each piece of hidden information is worth.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from concurrent.futures import as_completed
from typing import Any

import numpy as np

from envs.core.arena import play_match
from envs.core.bots import make_bot, parse_bot_spec
from envs.core.mcts import measure_sims_per_second
from envs.core.registry import GAMES, get_game
from training.interrupt import worker_pool
from training.params import int_at_least
from training.tournament import wilson

Task = tuple[str, dict[str, Any], str, str, int, int, str | None]


def landed() -> list[str]:
    def ok(name: str) -> bool:
        if importlib.util.find_spec(f"envs.{name}") is None:
            return False
        return all(importlib.util.find_spec(f"envs.{name}.{m}") for m in ("env", "bots"))

    return [g for g in GAMES if ok(g)]


def make_game(name: str, params: dict[str, Any]) -> Any:
    return get_game(name).game_class()(**params)


def _fresh_chance(state: Any, rng: Any) -> None:
    """Give a copied state a generator of its own: chance after this point is re-drawn."""
    if hasattr(state, "rng"):
        state.rng = np.random.default_rng(int(rng.integers(2**63)))


def _hands_seen(game: Any, state: Any, seat: int, rng: Any) -> Any:
    """Every hand true; the draw piles re-shuffled and later chance re-drawn."""
    st = state.clone()
    _fresh_chance(st, rng)
    for pile in PILES[game.name]:
        setattr(st, pile, [int(x) for x in rng.permutation(sorted(getattr(st, pile)))])
    return st


def _deal_seen(game: Any, state: Any, seat: int, rng: Any) -> Any:
    """The hands and the pile order true; later chance (reshuffles, random picks) re-drawn."""
    st = state.clone()
    _fresh_chance(st, rng)
    return st


def _all_seen(game: Any, state: Any, seat: int, rng: Any) -> Any:
    return state.clone()


# (methods of the oracle game class: ``game`` is its instance)
ORACLES = {"all": _all_seen, "deal": _deal_seen, "hands": _hands_seen}
#: the face-down piles that ``--oracle hands`` re-shuffles, for the games it supports
PILES = {"over_and_out": ("draw_pile", "tiptop_pile"), "otto_octopus": ("pile",)}
ORACLE_LABELS = {
    "all": "oracle: reads the true state",
    "deal": "oracle: reads the hands and the pile order",
    "hands": "oracle: reads every hand, not the pile order",
}


def oracle_game(game: Any, reveal: str = "all") -> Any:
    """The same game and config, except that ``resample_hidden`` returns the true state
    (``reveal="all"``), or keeps only the deal or only the hands true: an MCTS bot built on it
    reads what is hidden (a ceiling for ``--oracle``, never a bot)."""
    if reveal not in ORACLES:
        raise ValueError(f"--oracle: expected one of {sorted(ORACLES)}, got {reveal!r}")
    if reveal == "hands" and game.name not in PILES:
        raise ValueError(f"--oracle hands: only for {', '.join(PILES)}, not {game.name}")
    cls = type(game)
    return type(f"Oracle{cls.__name__}", (cls,), {"resample_hidden": ORACLES[reveal]})(config=game.config)


def run_chunk(task: Task) -> tuple[int, int, int, float]:
    """One chunk of a match in a worker: (wins, draws, losses, seconds)."""
    name, params, mcts_spec, opponent, games, seed, oracle = task
    game = make_game(name, params)
    table = get_game(name).bots()
    bots = [make_bot(oracle_game(game, oracle) if oracle else game, mcts_spec, table)] + [
        make_bot(game, opponent, table) for _ in range(game.num_players - 1)
    ]
    start = time.perf_counter()
    res = play_match(game, bots, games=games, seed=seed)
    return res.wins, res.draws, res.losses, time.perf_counter() - start


def match_tasks(
    name: str, params: dict[str, Any], spec: str, opp: str, n: int, seed: int, oracle: str | None = None
) -> list[Task]:
    """Chunks whose sizes are multiples of the player count, so every seat is used equally."""
    players = make_game(name, params).num_players
    chunk = players * max(1, round(10 / players))
    tasks = []
    for i, start in enumerate(range(0, n, chunk)):
        tasks.append((name, params, spec, opp, min(chunk, n - start), seed * 10_000 + i, oracle))
    return tasks


def run_pairing(
    pool: Any, tasks: list[Task], label: str, quiet: bool = False
) -> list[tuple[int, int, int, float]]:
    """Run a pairing's chunks; after each one, print the running tally to stderr.

    The result is the chunks' results in task order, whatever order they finish in, so the
    table does not depend on ``--jobs``."""
    futures = {pool.submit(run_chunk, t): i for i, t in enumerate(tasks)}
    parts: list[Any] = [None] * len(tasks)
    w = d = l_ = 0
    for done, fut in enumerate(as_completed(futures), 1):
        parts[futures[fut]] = res = fut.result()
        w, d, l_ = w + res[0], d + res[1], l_ + res[2]
        if not quiet:
            n = w + d + l_
            print(
                f"  {label}: {done}/{len(tasks)} chunks, {w} / {d} / {l_}, score {(w + 0.5 * d) / n:.3f}",
                file=sys.stderr,
                flush=True,
            )
    return parts


def parse_configs(items: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        name, params = parse_bot_spec(item)  # same "name:key=value,..." syntax
        out[get_game(name).name] = params
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=None, help="game names (default: every landed game)")
    ap.add_argument(
        "--budgets", nargs="*", type=int_at_least(1), default=[50, 200], help="simulations per move"
    )
    ap.add_argument("--opponents", nargs="*", default=["random", "greedy", "heuristic"])
    ap.add_argument("-n", "--matches", type=int_at_least(1), default=100, help="games per pairing")
    ap.add_argument("--mcts", default="", help="extra mcts parameters, e.g. rollout=heuristic,c=0.7")
    ap.add_argument("--config", action="append", default=[], help="game parameters, e.g. octi:variant=x")
    ap.add_argument("--jobs", type=int_at_least(1), default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int_at_least(0), default=0)
    ap.add_argument("--quiet", action="store_true", help="no running tally on stderr")
    ap.add_argument(
        "--oracle",
        nargs="?",
        const="all",
        default=None,
        choices=sorted(ORACLES),
        help="hand the search the true state (all), only the deal, or only the hands: a ceiling, not a bot",
    )
    args = ap.parse_args()
    try:  # canonical names: --config is keyed by them, whatever spelling --games used
        names = [get_game(g).name for g in args.games] if args.games is not None else landed()
    except ValueError as exc:
        ap.error(f"--games: {exc}")
    bad = [g for g in names if g not in PILES]
    if args.oracle == "hands" and bad:
        ap.error(f"--oracle hands: only for {', '.join(PILES)}, not {', '.join(bad)}")
    try:
        configs = parse_configs(args.config)
    except ValueError as exc:
        ap.error(f"--config: {exc}")
    if args.mcts:
        try:
            _, mcts_params = parse_bot_spec(f"mcts:{args.mcts}")
        except ValueError as exc:
            ap.error(f"--mcts: {exc}")
        if "sims" in mcts_params:
            ap.error(f"--mcts: set the simulations per move with --budgets, not sims={mcts_params['sims']}")
    extra = f",{args.mcts}" if args.mcts else ""
    print("| game | config | sims/s (mcts:sims=200" + extra + ") |\n|---|---|---|")
    for name in names:
        params = configs.get(name, {})
        rate = measure_sims_per_second(make_game(name, params), f"mcts:sims=200{extra}", seed=args.seed)
        print(f"| {name} | {params or 'default'} | {rate:.0f} |", flush=True)
    print("\n| game | mcts | opponent | W / D / L | score | 95% CI | s/game |\n|---|---|---|---|---|---|---|")
    # the workers leave Ctrl-C to this process, which ends them at once, and die with it
    with worker_pool(args.jobs) as pool:
        for name in names:
            params = configs.get(name, {})
            for budget in args.budgets:
                spec = f"mcts:sims={budget}{extra}"
                label = spec + (f" ({ORACLE_LABELS[args.oracle]})" if args.oracle else "")
                for opp in args.opponents:
                    tasks = match_tasks(name, params, spec, opp, args.matches, args.seed, args.oracle)
                    parts = run_pairing(pool, tasks, f"{name} {label} vs {opp}", quiet=args.quiet)
                    w, d, l_ = (int(sum(p[i] for p in parts)) for i in range(3))
                    n = w + d + l_
                    lo, hi = wilson(w + 0.5 * d, n)
                    secs = sum(p[3] for p in parts) / max(1, n)
                    row = f"| {name} | {label} | {opp} | {w} / {d} / {l_} | {(w + 0.5 * d) / n:.3f} |"
                    print(f"{row} [{lo:.3f}, {hi:.3f}] | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    try:
        main()
    except ValueError as exc:  # a bad game name, config or bot parameter: say which, no traceback
        print(f"mcts_strength.py: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print("\nmcts_strength.py: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
