"""What happens by itself at an OTTO Game Over table after a move (``Game.step_events``).

The move is applied to a clone that carries an ``events`` list, which :func:`envs.core.game.note_event`
fills at each automatic step (claims, skipped turns, dark tiles, Time Travel, kidnapped cards,
the 8, match ends and new matches, tie-breaks, the end). Every fact named is public at the
table: a card drawn after a dark pair is counted, never named; a kidnapped card is shown to all
(OGO-42).
"""

from __future__ import annotations

from typing import Any

from envs.core.game import applied_noting
from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import TILE_NAMES, VERTEX_NAMES
from envs.otto_game_over.rules import State

REASONS = {"eight": "an 8 was closed", "full": "the board is full", "exhausted": "no tiles are left to play"}
SHAPES = ("small circle", "big circle", "square")  # OGO-06, by shape index
POINTS = (1, 2, 4)  # OGO-19


def _side(st: State, team: int) -> str:
    """A team as the table names it: ``team t`` in 2v2, the seat in free-for-all."""
    return f"team {team}" if st.config.team_play else f"player_{team}"


def _scores(st: State, scores: list[int]) -> str:
    return ", ".join(f"{_side(st, t)} {v}" for t, v in enumerate(scores))


def _tile(t: int) -> str:
    return "no tile" if t < 0 else TILE_NAMES[t]


def step_events(before: State, action: int) -> list[str]:
    """The automatic steps after ``action``, as sentences, in the order they happen."""
    probe, log = applied_noting(before, action)
    events = [text for event in log if (text := _say(before, probe, event))]
    if probe.is_terminal() and not probe.truncated and not probe.config.solo:  # OGO-52/55/56
        events.append(_result(probe))
    return events


def _result(st: State) -> str:
    """Who won the game (or the match, in episode ``"match"``): OGO-52, OGO-55, OGO-56."""
    what = "match" if st.config.episode == "match" else "game"
    if len(st.winners) == st.n_teams:
        return f"the {what} is a draw"
    won = " and ".join(_side(st, t) for t in st.winners)
    return f"{won} {'wins' if len(st.winners) == 1 else 'share'} the {what}"


def _say(st: State, after: State, event: tuple[Any, ...]) -> str:
    kind, *args = event
    if kind == "claim":  # OGO-21/22
        seat, (shape, v) = args
        whose = f"team {st.team[seat]}'s" if st.config.team_play else "a"
        return f"player_{seat} puts {whose} marker on the unclaimed {SHAPES[shape]} at {VERTEX_NAMES[v]}"
    if kind == "award":  # OGO-19/20/21
        team, shape, v, marked = args
        where = f"the {SHAPES[shape]} at {VERTEX_NAMES[v]}"
        if marked:
            return f"{_side(st, team)} scores {where} ({POINTS[shape]} point{'s' if shape else ''}): a marker on it"
        return f"{_side(st, team)} closes {where} but has no such marker left: it stays unclaimed"
    if kind == "meteorite":  # OGO-37
        seat, dealt = args  # the tiles as the Meteorite dealt them (a later skip may change one)
        tables = ", ".join(f"player_{s} {_tile(t)}" for s, t in enumerate(dealt))
        return f"every table tile leaves the match; the new ones (from player_{seat} on): {tables}"
    if kind == "dark_pair":  # OGO-16
        seat, tile, card = args
        got = [x for x, yes in (("a new table tile", tile), ("a secret card", card)) if yes]
        then = f"player_{seat} draws {' and '.join(got)}" if got else "the tower is empty"
        if not tile:
            then += f"{' but' if got else ', so'} player_{seat} has no table tile now"
        return (
            f"player_{seat} draws a dark tile on a dark table tile: both leave the match; {then}, "
            "and the turn is skipped"
        )
    if kind == "dark_table":  # OGO-17
        return (
            f"player_{args[0]} draws a dark tile with no table tile: it becomes the table tile, turn skipped"
        )
    if kind == "dark_blind":  # OGO-53
        return f"player_{args[0]} draws a dark tile in a blind match: it is discarded, turn skipped"
    if kind == "empty":  # OGO-18
        return f"player_{args[0]} has no tile to place (the tower is empty): turn skipped"
    if kind == "extra":  # OGO-34
        return f"player_{args[0]} takes the Time-Travel extra turn"
    if kind == "kidnap":  # OGO-42/43
        seat, victim, card, used = args
        name = A.CARD_NAMES[card]
        if used:
            return f"player_{seat} kidnaps {name} from player_{victim} and must play it now"
        return f"player_{seat} kidnaps {name} from player_{victim}: it cannot be played now and is void"
    if kind == "eight":  # OGO-24, OGO-55
        where = " in the tie-break match" if st.tiebreak else ""
        return f"player_{args[0]} closed an 8{where}: the match ends"
    if kind == "match_over":  # OGO-48..52
        reason, scores, totals = args
        text = f"match over ({REASONS[reason]}): {_scores(st, scores)}"
        return text if st.config.episode == "match" else f"{text}; totals {_scores(st, totals)}"
    if kind == "truncated":  # spec §5
        return (
            f"the game stops at its limit of {args[0]} match{'es' if args[0] != 1 else ''}, without a winner"
        )
    if kind == "void":  # OGO-33
        k = args[0]
        return (
            f"the {k} card{'s' if k != 1 else ''} still held {'are' if k != 1 else 'is'} void in the tie-break"
            if k
            else ""
        )
    if kind == "match":  # §2.3-2.5, OGO-53/54
        tiebreak, first = args
        what = "a blind tie-break match" if tiebreak else "a new match"
        return f"{what} is dealt; player_{first} starts"
    if kind == "tile_round":  # OGO-56
        teams, drawn = args
        return "tie-break draw: " + ", ".join(
            f"{_side(st, t)} {_tile(x)}" for t, x in zip(teams, drawn, strict=True)
        )
    if kind == "solo_eight":  # OGO-26, OGO-61
        return f"{'an 8 is' if args[0] == 1 else f'{args[0]} 8s are'} closed: in solo the match goes on"
    if kind == "solo":  # OGO-61/62
        return (
            f"victory: score {after.match_scores[0]}" if args[0] else "the match ends without victory: defeat"
        )
    raise AssertionError(f"unknown event {kind!r}")  # pragma: no cover
