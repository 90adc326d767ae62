"""Pins of the Over and Out text picture and reset options that a mutation round found
unchecked: the dealer mark, the direction words, the winner in the header and ``deck_top``
tokens read case-insensitively.

Each test names the rule(s) of ``rules/over_and_out.md`` or the doc page
(``envs/over_and_out/env.py``) it checks.
"""

from __future__ import annotations

from envs.over_and_out.cards import ACTION_OF
from envs.over_and_out.render import render_ansi
from envs.over_and_out.rules import State
from tests.over_and_out.helpers import engine

# OAO-S01's deal (num_players=2, first_dealer=1): p0 {1, 5, x2, -10}, p1 {0, 3, x2, top-out}
S01_DECK = ["5", "x2", "-10", "1", "x2", "3", "0", "top-out", "4", "2", "0", "5", "3", "1"]


def _seat_lines(state: State) -> list[str]:
    """The per-seat lines of the text picture (after the 4 header lines)."""
    return render_ansi(state).splitlines()[4:]


def _apply(state: State, *plays: str) -> None:
    for text in plays:
        state.apply(ACTION_OF[text])


def test_oao05_oao10_dealer_mark_is_on_the_first_dealers_line() -> None:
    """OAO-05 / OAO-07 / OAO-10: ``first_dealer=1`` makes player_1 the dealer; the player to
    its left (player_2 of 3) is dealt first (the four 0s) and plays first. Only player_1's line
    carries ``(dealer)``, only player_2's the ``>`` mark and the hand."""
    state = engine(["0"] * 4 + ["1"] * 4 + ["2"] * 4, [33], num_players=3, first_dealer=1)
    assert _seat_lines(state) == [
        "  player_0: chips 4 oooo",
        "  player_1 (dealer): chips 4 oooo",
        "> player_2: chips 4 oooo   hand: 0 0 0 0",
    ]


def test_oao10_oao22_direction_words_clockwise_then_counter_clockwise() -> None:
    """OAO-10 / OAO-22 / OAO-37: a round starts clockwise (``direction clockwise``); a
    ``spin-out`` reverses it (``direction counter-clockwise``) and play goes on from the
    other side (3 players, dealer player_2: player_0 spins, player_2 moves next); a second
    spin-out turns it back."""
    deck = ["spin-out", "0", "1", "2", "3", "4", "5", "x2", "spin-out", "0", "0", "0", "0"]
    state = engine(deck, [33], num_players=3, first_dealer=2)
    assert render_ansi(state).splitlines()[2] == "total 0 / Tip Top 33   direction clockwise"
    _apply(state, "play spin-out")
    assert state.current_player() == 2
    assert render_ansi(state).splitlines()[2] == "total 0 / Tip Top 33   direction counter-clockwise"
    _apply(state, "play spin-out")
    assert state.current_player() == 0
    assert render_ansi(state).splitlines()[2] == "total 0 / Tip Top 33   direction clockwise"


def test_oao38_header_names_the_last_seat_as_the_winner() -> None:
    """OAO-15 / OAO-34 / OAO-38: with one chip each, player_0 plays 1, player_1 tops out to
    T = L = 22 and player_0, holding the 5 it drew, must bust: it is out and player_1 (the
    last seat) wins; the header names it and no one else."""
    state = engine(["1", "top-out", "5", "0"], [22], num_players=2, first_dealer=1, starting_chips=1)
    _apply(state, "play 1", "play top-out", "bust")
    assert state.is_terminal()
    lines = render_ansi(state).splitlines()
    assert lines[0] == "Over and Out - round 1, play 3 of 5000 - game over: player_1 wins"
    assert lines[4:] == ["  player_0: out (1st out)", "  player_1 (dealer): chips 1 o"]


def test_doc_page_deck_top_tokens_are_read_case_insensitively() -> None:
    """Doc page (decisions) / spec §6: ``deck_top`` tokens are read case-insensitively and
    ignoring surrounding whitespace: OAO-S01's stacked deck written in upper and mixed case
    deals the same hands and leaves the same draw pile as the canonical tokens (same seed)."""
    shouted = [" " + t.upper() + " " if i % 2 else t.title() for i, t in enumerate(S01_DECK)]
    assert shouted != S01_DECK and any(t.strip() in ("X2", "TOP-OUT") for t in shouted)
    canonical = engine(S01_DECK, [22], num_players=2, first_dealer=1)
    loud = engine(shouted, [22], num_players=2, first_dealer=1)
    assert [sorted(h) for h in loud.hands] == [sorted(h) for h in canonical.hands]
    assert render_ansi(loud).splitlines()[4] == "> player_0: chips 4 oooo   hand: 1 5 x2 -10"
    assert loud.draw_pile == canonical.draw_pile
