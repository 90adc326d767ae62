"""Pins of the Otto the Octopus text picture and position loader that a mutation round found
unchecked: the board's rank labels and symbols, the arms' exit arrows, the winners line, the
default pile, seat names as ``to_move`` and the phase of a finished position.

Board symbols follow spec §1.1 (``rules/otto_octopus.md``) and §9's tile abbreviations; the
position schema is the one of the doc page (``envs/otto_octopus/env.py``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.otto_octopus.board import KINDS, TILE_MIX
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.render import render_ansi
from tests.otto_octopus.helpers import P1, P2, make

FILES_ROW = "      a   b   c   d   e   f   g   h"


def _board(text: str) -> list[str]:
    """The 8 board rows of the text picture (top first), right-stripped."""
    lines = text.splitlines()
    assert lines[0].rstrip() == FILES_ROW
    return [line.rstrip() for line in lines[1:9]]


def _status(text: str) -> list[str]:
    """The status lines below the board's blank separator line."""
    lines = text.splitlines()
    assert lines[9] == ""
    return lines[10:]


# --------------------------------------------------------------------------- render_ansi
def test_s1_1_empty_ocean_shows_the_spec_symbols() -> None:
    """§1.1: the empty ocean reads as the spec's picture: ``C`` on the four coral corners,
    ``a`` on the 8 algae squares, ``#`` on the rest of the perimeter, ``.`` open water, ``OO``
    for Otto and an arrow (``^ > v <``) on each start square of an arm not begun."""
    assert _board(render_ansi(make([]))) == [
        "  8   C   #   #   #   #   #   #   C",
        "  7   #   a   .   .   .   .   a   #",
        "  6   #   .   a   ^   ^   a   .   #",
        "  5   #   .   <   OO  OO  >   .   #",
        "  4   #   .   <   OO  OO  >   .   #",
        "  3   #   .   a   v   v   a   .   #",
        "  2   #   a   .   .   .   .   a   #",
        "  1   C   #   #   #   #   #   #   C",
    ]


def test_s1_1_rank_labels_run_from_8_at_the_top_down_to_1() -> None:
    """§1.1: ranks run bottom to top, so the first board row is labelled 8 and the last 1, and
    each label sits beside its own rank: the P2 arm (d6, d7, turn-out on d8, tip c8) shows on
    the rows labelled 6, 7 and 8 (the vertically symmetric empty ocean cannot tell)."""
    rows = _board(render_ansi(make(P2)))
    assert [row[:6] for row in rows] == [f"  {r}   " for r in range(8, 0, -1)]
    assert rows[0] == "  8   C   #   *   To< #   #   #   C"
    assert rows[1] == "  7   #   a   .   S^  .   .   a   #"
    assert rows[2] == "  6   #   .   a   S^  ^   a   .   #"


def test_s1_2_arm_tiles_show_their_exit_heading_and_ends_none() -> None:
    """§1.2: straight, turn-in and turn-out tiles carry the heading the arm leaves them with
    (``^ > v <``; turn-in turns right, turn-out left), end tiles carry none. Arm d6: straight
    (N), turn-in on d7 (E), turn-out on e7 (N), end-shell e8; and an arm ended by ``end`` on e7.
    The P2 turn-out on d8 (heading N, turns W) reads ``To<``."""
    shell = _board(render_ansi(make(["straight d6", "turn-in d7", "turn-out e7", "end-shell e8"])))
    assert shell[0] == "  8   C   #   #   #   Es  #   #   C"
    assert shell[1] == "  7   #   a   .   Ti> To^ .   a   #"
    assert shell[2] == "  6   #   .   a   S^  ^   a   .   #"
    plain = _board(render_ansi(make(["straight d6", "turn-in d7", "end e7"])))
    assert plain[1] == "  7   #   a   .   Ti> E   .   a   #"
    assert _board(render_ansi(make(P2)))[0] == "  8   C   #   *   To< #   #   #   C"


def test_otp38_header_names_winners_in_the_plural_on_a_tie() -> None:
    """OTP-38: tied top scores share the win, and the last status line says ``winners:`` with
    every tied seat; a single top score gives ``winner:`` and one seat."""
    tie = make(P1, num_players=3, scores=[2, 0, 2], to_move=-1)
    assert _status(render_ansi(tie))[-2:] == ["game over; final [-1, -3, -1]", "winners: player_0, player_2"]
    one = make(P1, scores=[0, 1], to_move=-1)
    assert _status(render_ansi(one))[-2:] == ["game over; final [-3, -2]", "winner: player_1"]


# --------------------------------------------------------------------------- positions
def test_position_default_pile_is_the_60_tile_mix_less_placed_and_held_tiles() -> None:
    """Position schema (doc page; spec §1.3 mix of 60): without ``pile`` the pile is the rest of
    the mix: 60 - 2 placed straights - 4 tiles in hands = 54 tiles, kind by kind (straight
    12 - 2 - 1, turn-in 6 - 1, starfish 2 - 1, bubbles 7 - 1). A kind held beyond its count in
    the mix leaves none of it in the pile (never a negative count)."""
    game = OttoOctopusGame()
    pos = {"placements": P1, "hands": [["straight", "turn-in", "starfish"], ["bubbles"]]}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    expected = Counter(dict(zip(KINDS, TILE_MIX, strict=True)))
    expected.subtract({"straight": 3, "turn-in": 1, "starfish": 1, "bubbles": 1})
    assert len(st.pile) == 54
    assert Counter(KINDS[k] for k in st.pile) == +expected
    pos = {"placements": P1, "hands": [["starfish"] * 3, ["starfish"] * 3]}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert len(st.pile) == 56 and "starfish" not in {KINDS[k] for k in st.pile}


@pytest.mark.parametrize("name", ["PLAYER_1", "Player_1", " player_1 "])
def test_position_to_move_takes_an_agent_name_in_any_case(name: str) -> None:
    """Position schema (doc page): ``to_move`` may be an agent name, read case-insensitively
    and ignoring surrounding whitespace, as every other name the suite reads."""
    st = make(P1, to_move=name)
    assert st.current_player() == 1 and not st.is_terminal()


@pytest.mark.parametrize("phase", ["extra", "swap", "return"])
def test_position_finished_with_a_phase_other_than_main_is_refused(phase: str) -> None:
    """Position schema (doc page): a finished position (``to_move`` -1) is in phase ``main``
    with no extra placement left; any other phase is refused even with ``extra`` 0 (the same
    position in ``main`` loads and is over)."""
    with pytest.raises(ValueError, match=r"finished position \(to_move -1\) has phase 'main' and extra 0"):
        make(P1, to_move=-1, phase=phase)
    assert make(P1, to_move=-1, phase="main").is_terminal()
