"""What happens by itself at an Otto the Octopus table after a move (``Game.step_events``).

The move is applied to a clone that carries an ``events`` list, which ``note_event`` (envs.core.game) fills
with the skipped turns and automatic passes in the order they come; the draws and the shark's
cost are read off the states before and after. Every fact named is public (spec §9): draws are
counted, never named; the hands, the pile order and the tiles a seahorse returns or a
pufferfish swaps stay hidden.
"""

from __future__ import annotations

from envs.core.game import applied_noting
from envs.otto_octopus.board import SHARK
from envs.otto_octopus.rules import PASS, RETURN_BASE, SWAP_BASE, State


def _count(k: int, what: str) -> str:
    return f"{k} {what}{'s' if k != 1 else ''}"


def step_events(before: State, action: int) -> list[str]:
    """The shark's cost to the others (OTP-27), the mover's draws (OTP-18/21/26), the skipped
    turns (OTP-23) and automatic passes (OTP-19) in turn order, and the end of the game with
    the final scores and the winners (OTP-37/38/40, or the step limit)."""
    probe, log = applied_noting(before, action)
    p, n = before.to_move, before.n
    events: list[str] = []
    effects = action < PASS and not before.config.simplified and n > 1  # fish effects (OTP-21..31)
    if effects and action >> 6 == SHARK:
        events.append("the shark costs every other player 2 points")
    drawn = len(before.pile) - len(probe.pile) + (RETURN_BASE <= action < SWAP_BASE)  # a return adds one
    if drawn:
        events.append(f"player_{p} draws {_count(drawn, 'tile')} ({len(probe.pile)} left in the pile)")
    for kind, q in log:
        if kind == "skip":
            events.append(f"player_{q} skips a turn (jellyfish)")
        else:
            events.append(f"player_{q} cannot place a tile and passes")
    if probe.is_terminal():
        if probe.truncated:
            events.append(f"the game stops at its limit of {probe.config.max_steps} steps, without a winner")
            return events
        events.append(
            "the game is over"
            if n == 1
            else "every player has passed since the last placement: the game is over"
        )
        minus = "tiles in hand and in the pile" if n == 1 else "tiles in hand"
        scores = ", ".join(f"player_{s} {v}" for s, v in enumerate(probe.final_scores()))
        events.append(f"final scores (score minus {minus}): {scores}")
        if n > 1:
            won = [f"player_{s}" for s in probe.winners()]
            events.append(f"{' and '.join(won)} {'wins' if len(won) == 1 else 'share the win'}")
    return events
