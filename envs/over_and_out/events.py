"""What happens by itself at an Over and Out table after a move (``Game.step_events``).

Read off the state before the move and a clone after it: every fact named here is public at
the table (chips, Tip Top cards, piles, the dealer), never a hand.
"""

from __future__ import annotations

from envs.over_and_out.cards import BUST, MINUS10, TOPSY_TURVY
from envs.over_and_out.rules import State


def _nth(k: int) -> str:
    return f"{k}{'st' if k == 1 else 'nd' if k == 2 else 'rd' if k == 3 else 'th'}"


def step_events(before: State, action: int) -> list[str]:
    """The round lost (who, why, the chip), a seat knocked out, the next round's deal, a new
    Tip Top card, a reshuffle and the step limit, in the order they happen."""
    after = before.clone()
    after.apply(action)
    events: list[str] = []
    losers = [s for s in range(before.n) if after.chips[s] < before.chips[s]]
    if action == TOPSY_TURVY:  # OAO-24: the new L is turned up (before any round loss it causes)
        new = _topsy_value(before) if losers else after.tiptop  # (a lost round deals a new one)
        if not before.tiptop_pile:  # OAO-29
            events.append("the discarded Tip Top cards are shuffled into a new Tip Top pile")
        events.append(f"Tip Top {before.tiptop} is discarded; the new Tip Top is {new}")
    if losers:
        (q,) = losers  # one move loses at most one round (OAO-33)
        if action == BUST:  # OAO-15
            why = f"has no card to play (total {before.total}, Tip Top {before.tiptop})"
        elif action == TOPSY_TURVY:  # OAO-28
            why = f"turned up a Tip Top below the total {before.total}"
        elif action == MINUS10:  # OAO-42
            why = f"played -10 on a total of {before.total}, below 10"
        else:  # pragma: no cover - no other move loses a round
            why = "lost"
        chips = after.chips[q]
        left = f"{chips} chip{'s' if chips != 1 else ''} left" if chips else "no chips left"
        events.append(f"player_{q} {why}: loses round {before.round} and a chip ({left})")
        if not chips:  # OAO-34
            events.append(f"player_{q} is out ({_nth(after.out_order.index(q) + 1)} out)")
        if after.round > before.round and not after.truncated:  # OAO-35..37: the next round at once
            events.append(
                f"round {after.round}: player_{after.dealer} deals, Tip Top {after.tiptop}; "
                f"player_{after.to_move} plays first"
            )
        elif after.round == before.round:  # OAO-38 (one player left)
            winner = next(s for s in range(after.n) if after.chips[s])
            events.append(f"player_{winner} is the last player with chips and wins the game")
    elif sum(after.play_pile) <= sum(before.play_pile):  # OAO-32 (else the pile grows by the card)
        events.append(
            f"the draw pile is empty: the play pile ({sum(before.play_pile) + 1} cards, this one "
            "included) is shuffled into a new draw pile"
        )
    if after.truncated:
        events.append(f"the game stops at its limit of {after.config.max_plays} plays, without a winner")
    return events


def _topsy_value(before: State) -> int:
    """The Tip Top card a Topsy Turvy played in ``before`` turns up (the same draw as the move's)."""
    probe = before.clone()
    probe._turn_tiptop()
    return probe.tiptop
