"""What happens by itself at an Otto the Octopus table after a move (``Game.step_events``).

Read off the state before the move and a clone after it: draws are counted, never named;
skips, automatic passes and the end are public (spec §3 and §9: the hands, the pile order and
the tiles a seahorse returns or a pufferfish swaps stay hidden).
"""

from __future__ import annotations

from envs.otto_octopus.board import JELLYFISH
from envs.otto_octopus.rules import PASS, RETURN_BASE, SWAP_BASE, State


def _tiles(k: int) -> str:
    return f"{k} tile{'s' if k != 1 else ''}"


def step_events(before: State, action: int) -> list[str]:
    """The mover's draws (OTP-18/21/26), the turns skipped (OTP-23), the automatic passes
    (OTP-19) and the end of the game (OTP-37, the step limit), in that order."""
    after = before.clone()
    after.apply(action)
    p, n = before.to_move, before.n
    placed = action < PASS
    events: list[str] = []
    drawn = len(before.pile) - len(after.pile) + (RETURN_BASE <= action < SWAP_BASE)  # a return adds one
    if drawn:
        events.append(f"player_{p} draws {_tiles(drawn)} ({len(after.pile)} left in the pile)")
    added = [0] * n  # a jellyfish gives the next seat a skip (OTP-23; not in the simplified game or solo)
    if placed and action >> 6 == JELLYFISH and not before.config.simplified and n > 1:
        added[(p + 1) % n] = 1
    for q in range(n):
        skipped = before.skips[q] + added[q] - after.skips[q]
        if skipped:
            turns = "a turn" if skipped == 1 else f"{skipped} turns"
            events.append(f"player_{q} skips {turns} (jellyfish)")
    was = [False] * n if placed else before.passed  # a placement clears the passes
    for q in range(n):
        if after.passed[q] and not was[q] and not (q == p and action == PASS):
            events.append(f"player_{q} cannot place a tile and passes")
    if after.is_terminal():
        if after.truncated:
            events.append(f"step {after.steps} reached the limit of {after.config.max_steps}: the game stops")
        elif n == 1:
            events.append("the game is over")
        else:
            events.append("every player has passed since the last placement: the game is over")
    return events
