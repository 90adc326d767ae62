"""How well can any policy do against a baseline in Over and Out? A best-response measurement.

    python examples/oao_best_response.py --knows hands -n 150 --seed 11      # ~4 s a game
    python examples/oao_best_response.py --playouts 0 -n 300 --seed 11       # the heuristic alone
    python examples/oao_best_response.py --opponent heuristic --knows hands -n 300

The README's goals (95% against ``random``, 60% against ``heuristic``) ask what the best reply
to a known opponent wins. This script plays 2-player games against ``--opponent`` (a bot spec
of the game's table) with a flat Monte Carlo best response: at each of its decisions with more
than one legal move, it plays every legal move in ``--playouts`` sampled worlds (the same
worlds and seeds for every move: common random numbers) to the end of the current round,
itself with the ``heuristic`` bot and the opponent with the opponent's own bot, as it really
plays, and picks the move whose round it loses least often. Each round is dealt afresh from
the whole deck (OAO-06, OAO-07), so losing the round's chip is the whole stake of a decision.

What the sampled worlds know (``--knows``):

* ``nothing``: an honest player's view, ``Game.resample_hidden`` (the other hand and the piles
  re-dealt from the unseen cards, uniformly);
* ``hands``: the other hand is true, the draw pile re-shuffled: what perfect inference of the
  opponent's cards could give, a bound for any honest player of this kind;
* ``all``: the true state (the draw pile's order too), later chance re-drawn: not a legal player.

Prints the running win rate and, at the end, the win rate with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from envs.core.bots import Bot, make_bot
from envs.core.registry import get_game
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State
from training.params import int_at_least
from training.tournament import wilson


def sample_world(game: OverAndOutGame, st: State, me: int, knows: str, rng: np.random.Generator) -> State:
    if knows == "nothing":
        return game.resample_hidden(st, me, rng)
    world = st.clone()
    if knows == "hands":
        rng.shuffle(world.draw_pile)
        world.tiptop_pile = rng.permutation(sorted(world.tiptop_pile)).tolist()
    return world


def round_playout(st: State, me: int, heuristic: Bot, opponent: Bot, rng: np.random.Generator) -> bool:
    """Play on until a chip is lost; True when ``me`` keeps its chips."""
    chips = list(st.chips)
    while not st.is_terminal() and st.chips == chips:
        p = st.current_player()
        st.apply((heuristic if p == me else opponent).act(st, p, rng))
    return st.chips[me] == chips[me]


def best_response(
    game: OverAndOutGame,
    st: State,
    me: int,
    bots: tuple[Bot, Bot],
    args: argparse.Namespace,
    rng: np.random.Generator,
) -> int:
    """The move that loses the round least often; ``bots`` = (own continuation, opponent)."""
    heuristic, opponent = bots
    legal = np.flatnonzero(st.legal_mask())
    if legal.size == 1:
        return int(legal[0])
    if args.playouts == 0:
        return int(heuristic.act(st, me, rng))
    kept = np.zeros(legal.size)
    for _ in range(args.playouts):
        world = sample_world(game, st, me, args.knows, rng)
        seed = int(rng.integers(2**62))
        for i, a in enumerate(legal):
            s = world.clone()
            s.rng = np.random.default_rng(seed)
            s.apply(int(a))
            kept[i] += round_playout(s, me, heuristic, opponent, np.random.default_rng(seed + 1))
    return int(legal[int(np.argmax(kept))])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--opponent", default="random", help="bot spec of the opponent (random, greedy, heuristic)"
    )
    ap.add_argument("--knows", choices=("nothing", "hands", "all"), default="nothing")
    ap.add_argument(
        "--playouts",
        type=int_at_least(0),
        default=50,
        help="sampled worlds per decision (0 = play the heuristic bot itself)",
    )
    ap.add_argument("-n", "--games", type=int_at_least(1), default=150)
    ap.add_argument("--seed", type=int_at_least(0), default=11)
    args = ap.parse_args()

    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    heuristic = make_bot(game, "heuristic", entry.bots())
    try:
        opponent = make_bot(game, args.opponent, entry.bots())
    except ValueError as exc:  # an unknown bot spec is a usage error
        ap.error(f"--opponent: {exc}")
    rng = np.random.default_rng(args.seed)
    wins, start = 0, time.perf_counter()
    for g in range(args.games):
        st = game.new_initial_state(np.random.default_rng(args.seed * 100_000 + g))
        me = g % 2  # seats alternate
        while not st.is_terminal():
            p = st.current_player()
            if p == me:
                st.apply(best_response(game, st, me, (heuristic, opponent), args, rng))
            else:
                st.apply(opponent.act(st, p, rng))
        wins += bool(st.returns()[me] > 0)
        if (g + 1) % 25 == 0:
            print(f"{g + 1} games: {wins / (g + 1):.3f} ({time.perf_counter() - start:.0f} s)", flush=True)
    lo, hi = wilson(wins, args.games)
    print(
        f"knows={args.knows} playouts={args.playouts} seed={args.seed}: "
        f"{wins} / {args.games} = {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}] against {args.opponent}"
    )


if __name__ == "__main__":
    main()
