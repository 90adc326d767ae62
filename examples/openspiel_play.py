"""The games in OpenSpiel: its own search bots against the suite's bots.

    pip install -e ".[openspiel]"   # open_spiel >= 2.0 (Python >= 3.11)
    python examples/openspiel_play.py                                   # a short default run
    python examples/openspiel_play.py --game otto_octopus --bot ismcts:sims=200 --vs heuristic -n 100
    python examples/openspiel_play.py --game octi --bot mcts:sims=200 --vs mcts:sims=200 -n 20

``import envs.core.openspiel`` registers each game with ``pyspiel`` (``eightfold_<game>``), so
OpenSpiel's algorithms run on it unchanged; ``EightfoldBot`` makes any of the suite's bot specs
a ``pyspiel.Bot``. This script plays ``--bot`` against ``--vs``, seats rotated every game, and
prints wins / draws / losses of ``--bot`` and its score (wins + draws/2 per game, 2 players)
with a 95% Wilson interval.

``--bot`` / ``--vs`` take a suite bot spec (``random``, ``heuristic``, ``mcts:sims=200``, ...) or
an OpenSpiel bot:

- ``ismcts:sims=N`` — OpenSpiel's information-set MCTS (``ISMCTSBot``, random rollouts,
  ``uct_c=2``), keyed on the observation string, drawing its worlds from the state's
  ``resample`` (the engine's ``resample_hidden``) with a seeded resampler: an honest player.
  It is built here from OpenSpiel's own classes, to show them at work on these games; the
  suite's bot spec ``ismcts`` packages the same search for ``eightfold eval`` and ``play``.
- ``os-mcts:sims=N`` — OpenSpiel's plain ``MCTSBot`` on the true state: in the games with hidden
  information it reads every hand and, through the state's generator, the draws to come (a
  ceiling, not a legal player); in Octi it is an honest player. It takes only games that pay
  at the end, so not Over and Out (which pays a seat when it is knocked out).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from envs.core.bots import parse_bot_spec
from training.tournament import wilson


def make_bot(game: Any, spec: str, seed: int) -> Any:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import envs.core.openspiel as eos

    name, params = parse_bot_spec(spec)
    if name == "ismcts" and game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        raise ValueError(
            f"ismcts: {game.get_type().short_name} has no hidden information; use os-mcts or mcts"
        )
    if name in ("ismcts", "os-mcts"):
        unknown = sorted(set(params) - {"sims"})
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown} for {name!r}; allowed: ['sims']")
        sims = params.get("sims", 200)
        least = 2 if name == "ismcts" else 1  # ISMCTS asserts a visited child: one simulation has none
        if isinstance(sims, bool) or not isinstance(sims, int) or sims < least:
            raise ValueError(f"{name}: sims must be an int >= {least}, got {sims!r}")
        # three streams of their own, drawn from (seed, role): seed, seed + 1 and seed + 2 met the
        # streams of the opponent, seeded seed + 1 (the rollouts of an ismcts opponent replayed
        # this bot's own draws)
        rollout, search, resample = (int(x) for x in np.random.SeedSequence([seed, 7]).generate_state(3))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(rollout))
        if name == "os-mcts":
            if game.get_type().reward_model != pyspiel.GameType.RewardModel.TERMINAL:
                raise ValueError(
                    f"os-mcts: OpenSpiel's MCTSBot takes only games that pay at the end, and "
                    f"{game.get_type().short_name} pays a seat when it is knocked out; use ismcts"
                )
            return mcts.MCTSBot(game, 2.0, sims, evaluator, random_state=np.random.RandomState(search))
        bot = ismcts.ISMCTSBot(
            game=game,
            evaluator=evaluator,
            uct_c=2.0,
            max_simulations=sims,
            random_state=np.random.RandomState(search),
            use_observation_string=True,
        )
        bot.set_resampler(eos.seeded_resampler(resample))
        return bot
    return eos.EightfoldBot(game, spec, seed=seed)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="otto_octopus", help="a game name (default otto_octopus)")
    ap.add_argument(
        "--param", action="append", default=[], metavar="K=V", help="a game parameter (default num_players=2)"
    )
    ap.add_argument("--bot", default="ismcts:sims=50", help="the player measured (default ismcts:sims=50)")
    ap.add_argument("--vs", default="random", help="its opponent (default random)")
    ap.add_argument("-n", "--games", type=int, default=10, help="games, seats rotated (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the deals and the bots (default 0)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        ap.error(f"--seed must be >= 0, got {args.seed}")

    import pyspiel

    import envs.core.openspiel as eos
    from envs.core.registry import get_game
    from training.params import parse_params

    try:  # an unknown game, parameter or bot is a usage error, not a traceback
        name = get_game(args.game).name
        params = {"num_players": 2} if name != "octi" else {}  # Octi: 2 players, no chance, no seed
        params.update(parse_params(args.param, None))
        if name != "octi":
            params["rng_seed"] = args.seed
        game = eos.load_game(name, **params)
        for spec in (args.bot, args.vs):
            make_bot(game, spec, args.seed)
    except (ValueError, pyspiel.SpielError) as exc:
        ap.error(str(exc))
    if game.num_players() != 2:
        ap.error("this script scores 2-player games; pass --param num_players=2")
    wins = draws = losses = 0
    start = time.perf_counter()
    for g in range(args.games):
        seat = g % 2  # the measured bot's seat
        measured = make_bot(game, args.bot, args.seed * 1000 + 2 * g)
        opponent = make_bot(game, args.vs, args.seed * 1000 + 2 * g + 1)
        bots = [measured, opponent] if seat == 0 else [opponent, measured]
        state = game.new_initial_state()
        while not state.is_terminal():  # no chance nodes: the engines draw inside
            state.apply_action(bots[state.current_player()].step(state))
        returns = state.returns()
        mine, theirs = returns[seat], returns[1 - seat]
        wins += mine > theirs
        draws += mine == theirs
        losses += mine < theirs
    n = wins + draws + losses
    score = (wins + draws / 2) / n
    lo, hi = wilson(wins + draws / 2, n)
    took = time.perf_counter() - start
    print(
        f"{game.get_type().short_name} {params}: {args.bot} vs {args.vs}, {n} games: {wins} / {draws} / {losses}, "
        f"score {score:.3f} [{lo:.3f}, {hi:.3f}] ({took:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
