"""The ``eightfold`` command line.

eightfold list                                  envs, variants, parameters, bots
eightfold train <env> [--param k=v] [--set k=v]  MaskablePPO (training/train.py)
eightfold eval [<env>] --players A B ...        tournaments, intervals, Elo (training/evaluate.py)
eightfold play <env> [--param k=v] --random     watch a seeded random game in the terminal
eightfold play <env> --watch <player> ...       watch bots or models play, one per seat (or one for all)
eightfold play <env> --vs <bot|model>           play by notation against a bot or a model
eightfold render <env> [--steps N] --out x.png  an image of a position
eightfold replay games.jsonl [N]                list the games of eval --records, or replay game N
eightfold bench [--games g ...] [--seconds S]   agent-steps/s vs PettingZoo connect_four_v3 [--mcts] [--memory] [--openspiel]

``play`` and ``render`` start from a chosen position with ``--options JSON`` (the game's reset
options) and ``--moves 'M1; M2'`` (notation, played after the reset): training/position.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.core.config import describe_params
from envs.core.files import write_text
from envs.core.game import hides_nothing
from envs.core.registry import GAMES, NAMESPACE, get_game, installed_games
from training.params import float_at_least, int_at_least, output_file, parse_params


def _add_env_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("env", help="game name or env id, e.g. octi or eightfold/octi-v0")
    p.add_argument("--variant", default=None, help="shorthand for --param variant=<v> (Octi)")
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="game parameter (repeatable), JSON values"
    )
    p.add_argument("--seed", type=int_at_least(0), default=0, help="reset seed (default 0)")


def _add_position_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--options",
        default=None,
        metavar="JSON",
        help="reset options of the game as a JSON object, or @file.json (a position: see the game's doc page)",
    )
    p.add_argument(
        "--moves",
        default=None,
        metavar="'M1; M2; ...'",
        help="moves in the game's notation, separated by ';', played after the reset",
    )


def _env_params(args: argparse.Namespace) -> dict[str, Any]:
    return parse_params(args.param, args.variant)


# ---------------------------------------------------------------------------- list
def cmd_list(args: argparse.Namespace) -> int:
    env, items, variant = (
        getattr(args, "env", None),
        getattr(args, "param", []),
        getattr(args, "variant", None),
    )
    if env is None and (items or variant is not None):
        raise ValueError(
            "--param and --variant give one game's spaces: name it (eightfold list octi --variant x_fast)"
        )
    params = parse_params(items, variant)
    installed = installed_games()
    for name, entry in GAMES.items():
        if env is not None and name != get_game(env).name:
            continue
        print(f"{entry.env_id}  ({entry.title}; players {entry.players})")
        if name not in installed:
            print("    (not installed)")
            continue
        game_cls = entry.game_class()
        game = game_cls(**params)
        given = f"   (with {params})" if params else ""
        print(
            f"    module envs.{name}_v0   actions {game.num_actions}   observation {game.observation_shape}{given}"
        )
        print(f"    single-agent view (gymnasium.make after `import training`): {NAMESPACE}/{name}-single-v0")
        print("    parameters:")
        for pname, default, help_text in describe_params(game_cls.config_class):
            print(f"      {pname:20s} default {default:12s} {help_text}")
        print(f"    reset options: {', '.join(game_cls.reset_options)} (see the env's doc page)")
        bots = sorted(entry.bots())
        bots += [b for b in ("mcts",) if b not in bots]
        if not hides_nothing(game_cls):  # OpenSpiel's ISMCTS: hidden cards only
            bots.append("ismcts (OpenSpiel's; the openspiel extra)")
        print(f"    bots: {', '.join(bots)}")
        print(f"    OpenSpiel (after `import envs.core.openspiel`): pyspiel.load_game('eightfold_{name}')")
    return 0


BENCH_SECONDS = 3.0  # eightfold bench: seconds per row of random play
LEARNER_TIMESTEPS = 20_000  # eightfold bench --learner: learn() steps per measurement


# ---------------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace) -> int:
    modes = [
        flag for flag, on in (("--random", args.random), ("--watch", args.watch), ("--vs", args.vs)) if on
    ]
    if len(modes) > 1:
        raise ValueError(
            f"choose one of --random (watch a random game), --watch <players> (watch bots or models) "
            f"and --vs <bot|model> (play), got {' and '.join(modes)}"
        )
    if not modes and _is_solo(args):  # a solo game is played alone: nobody to name with --vs
        from training.play import play_vs

        return play_vs(args)
    if args.vs is None and args.seat != 0:
        raise ValueError("--seat is your seat with --vs <bot|model>; a game without --vs has no human seat")
    if args.vs is not None:
        from training.play import play_vs

        return play_vs(args)
    if not modes:
        print(
            "eightfold play: choose --random (watch a random game), --watch <players> or --vs <bot|model.zip>",
            file=sys.stderr,
        )
        return 2
    from training.play import watch

    return watch(args)


def _is_solo(args: argparse.Namespace) -> bool:
    """Whether ``play``'s game, with its parameters, is a solo game (one player)."""
    from envs.core.registry import get_game

    return bool(get_game(args.env).game_class()(**parse_params(args.param, args.variant)).num_players == 1)


# -------------------------------------------------------------------------- render
def cmd_render(args: argparse.Namespace) -> int:
    from envs.core.draw import save_png
    from training.position import reset_to_position

    entry = get_game(args.env)
    env = entry.env(render_mode="rgb_array", **_env_params(args))  # bad parameters: no folder made
    output_file("--out", args.out)
    given = reset_to_position(env, args.seed, args.options, args.moves)
    rng = np.random.default_rng([args.seed, 1])  # not the deal's own stream, default_rng(seed)
    played = 0
    while played < args.steps and env.agents and not env.unwrapped.state.is_terminal():
        obs, _r, term, trunc, _ = env.last()
        if term or trunc:  # a seat knocked out (Over and Out) takes its dead step; play goes on
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        played += 1
    ended = " (the game ended there)" if env.unwrapped.state.is_terminal() else ""
    frame = env.render()
    save_png(frame, args.out)
    moves = f"{given} moves of --moves and " if given else ""
    print(
        f"wrote {args.out} ({frame.shape[1]}x{frame.shape[0]}) after {moves}{played} random steps{ended}, "
        f"seed {args.seed}"
    )
    return 0


# --------------------------------------------------------------------------- bench
def cmd_bench(args: argparse.Namespace) -> int:
    learner_only = {
        "--param": args.param != [],
        "--timesteps": args.timesteps is not None,  # None: not given (its own default too is refused)
        "--policy": args.policy is not None,
        "--set": args.set != [],
    }
    play_only = {
        "--seed": args.seed is not None,
        "--games": args.games is not None,
        "--seconds": args.seconds is not None,
        "--mcts": args.mcts,
        "--memory": args.memory,
        "--openspiel": args.openspiel,
    }
    learner = args.learner is not None  # `--learner ""` is a game name to check, not random play
    stray = [k for k, on in (play_only if learner else learner_only).items() if on]
    if stray:
        mode = "--learner" if learner else "random play (no --learner)"
        raise ValueError(f"{', '.join(stray)} has no effect with {mode}")
    if args.json:
        output_file("--json", args.json)
    if learner:
        from training.bench import learner_bench

        timesteps = LEARNER_TIMESTEPS if args.timesteps is None else args.timesteps
        return learner_bench(
            args.learner, args.param, timesteps, args.json, policy=args.policy, settings=args.set
        )
    seconds = BENCH_SECONDS if args.seconds is None else args.seconds
    seed = 0 if args.seed is None else args.seed
    from training.bench import format_row, format_rows, run_bench

    games = [get_game(g).name for g in args.games] if args.games else None
    if games is not None and len(set(games)) < len(games):
        raise ValueError(f"--games names a game twice: {args.games}")
    print(format_rows([]), flush=True)  # then each row as it is measured (Ctrl-C keeps those shown)
    rows = run_bench(
        games,
        seconds,
        seed,
        openspiel=args.openspiel,
        on_row=lambda r: print(format_row(r), flush=True),
    )
    if not any("reference" in r.name for r in rows):
        print("(no reference row: PettingZoo's connect_four_v3 needs pygame: pip install pygame)")
    records: list[dict[str, Any]] = [dict(r.__dict__) for r in rows]
    if getattr(args, "mcts", False):
        from envs.core.mcts import measure_sims_per_second

        for name in games or installed_games():
            game = get_game(name).game_class()()  # the default config
            sims = measure_sims_per_second(game)
            print(f"mcts {name} (default config, {game.num_players} players): {sims:,.0f} simulations/s")
            records.append(
                {"name": name, "mode": "mcts", "num_players": game.num_players, "simulations_per_s": sims}
            )
    if getattr(args, "memory", False):
        from training.memory import format_memory_row, format_memory_rows, run_memory_bench

        print(f"\n{format_memory_rows([])}", flush=True)
        memory_rows = run_memory_bench(
            games, seconds, seed, on_row=lambda r: print(format_memory_row(r), flush=True)
        )
        records.extend({"mode": "memory", **m.__dict__} for m in memory_rows)
    if args.json:  # strict JSON: a bare NaN would stop jq or JSON.parse
        write_text(args.json, json.dumps(records, indent=2, allow_nan=False) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eightfold", description="eightfold: RL environments for four tabletop games"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "list",
        help="envs: ids, spaces, parameters with defaults, reset options, bots, Gymnasium and OpenSpiel ids",
    )
    p.add_argument(
        "env",
        nargs="?",
        default=None,
        help="one game only (name or env id); with --param/--variant, its spaces there",
    )
    p.add_argument("--variant", default=None, help="shorthand for --param variant=<v> (Octi)")
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="game parameter (repeatable), JSON values"
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "play",
        help="play against a bot or model (--vs), or watch bots and models (--watch) or random play (--random)",
    )
    _add_env_args(p)
    _add_position_args(p)
    p.add_argument("--random", action="store_true", help="watch a seeded random game")
    p.add_argument(
        "--watch",
        nargs="+",
        default=None,
        metavar="PLAYER",
        help="watch players: one bot spec, SB3 model.zip or RLlib run per seat, or one for every seat",
    )
    p.add_argument(
        "--vs",
        default=None,
        help="opponent: bot spec (random, heuristic, mcts:sims=200), an SB3 model.zip or an RLlib run "
        "directory (a solo game is played without one)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat with --vs (default 0)")
    p.add_argument(
        "--delay", type=float_at_least(0), default=0.0, help="seconds between moves with --random or --watch"
    )
    p.add_argument(
        "--max-steps",
        type=int_at_least(0),
        default=0,
        help="stop after this many moves (0 = play to the end)",
    )
    p.add_argument(
        "--record",
        default=None,
        metavar="FILE.jsonl",
        help="add the finished game to this file, in eval --records' form (eightfold replay reads it)",
    )
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("render", help="save an image of a position as PNG")
    _add_env_args(p)
    _add_position_args(p)
    p.add_argument("--steps", type=int_at_least(0), default=0, help="random moves to play before rendering")
    p.add_argument("--out", required=True, help="PNG path")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("bench", help="agent-steps/s through env() and the engine, vs connect_four_v3")
    p.add_argument("--games", nargs="+", default=None, help="games to measure (default: all)")
    p.add_argument(
        "--seconds",
        type=float_at_least(0, strict=True),
        default=None,  # None: not given, so --learner can refuse it whatever its value
        help=f"seconds per row (default {BENCH_SECONDS:g})",
    )
    p.add_argument("--seed", type=int_at_least(0), default=None, help="seed of the random play (default 0)")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    p.add_argument("--mcts", action="store_true", help="also measure MCTS simulations/s per game")
    p.add_argument(
        "--memory",
        action="store_true",
        help="also measure memory: a state, an env, an observation, and what an env retains over --seconds of play and twice that (leak check)",
    )
    p.add_argument(
        "--openspiel",
        action="store_true",
        help="also measure random play through the OpenSpiel adapter (a pyspiel row; the openspiel extra)",
    )
    p.add_argument(
        "--learner", default=None, metavar="ENV", help="MaskablePPO learn() steps/s on ENV vs connect_four_v3"
    )
    p.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="game parameter with --learner"
    )
    p.add_argument(
        "--timesteps",
        type=int_at_least(1),
        default=None,
        help=f"learn() steps per measurement with --learner (default {LEARNER_TIMESTEPS})",
    )
    p.add_argument(
        "--policy",
        default=None,
        help="with --learner: the policy, masked or sb3 (default: the config's, i.e. masked)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="K=V",
        help="with --learner: a PPO, network or env option of the game's config, for every row "
        "(e.g. net_arch=[128,128], learning_rate=1e-4; others are refused)",
    )
    p.set_defaults(func=cmd_bench)

    from training import replay

    replay.add_parser(sub)
    _add_training_commands(sub)
    return parser


OPTIONAL_TRAINING_MODULES = {
    "yaml",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "tensorboard",
    "matplotlib",
    "tqdm",
    "rich",
}


def _add_training_commands(sub: Any) -> None:
    """``train`` and ``eval`` live in :mod:`training.train` / :mod:`training.evaluate`; without
    the ``train`` extra they still appear and say what to install."""
    import importlib

    for module, command in (("training.train", "train"), ("training.evaluate", "eval")):
        try:
            importlib.import_module(module).add_parser(sub)
        except ModuleNotFoundError as exc:
            if exc.name not in OPTIONAL_TRAINING_MODULES:
                raise
            p = sub.add_parser(command, help="(needs the train extra: pip install 'eightfold[train]')")
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(func=_missing_extra(exc.name))


def _missing_extra(name: str | None) -> Any:
    def run(args: argparse.Namespace) -> int:
        print(
            f"eightfold {args.command}: needs the '{name}' package: pip install 'eightfold[train]'",
            file=sys.stderr,
        )
        return 2

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe fails here, inside the handlers, not at the exit
        return code
    except ValueError as exc:
        print(f"eightfold {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head`, which stopped reading
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit either
        return 0
    except OSError as exc:  # a file that cannot be read or written: no traceback
        print(f"eightfold {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as exc:  # a command reached a package of the train extra
        if exc.name not in OPTIONAL_TRAINING_MODULES:
            raise
        return int(_missing_extra(exc.name)(args))
    except ImportError as exc:  # envs.core.draw without Pillow names the render extra
        if "pip install 'eightfold[" not in str(exc):
            raise
        print(f"eightfold {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C at a prompt or during a run: no traceback
        print(f"\neightfold {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
