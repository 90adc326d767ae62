"""Pins from a second mutation round on the OTTO Game Over shape detection (``geometry.py``),
the placement predictor (``scoring.py``) and the secret cards (``cards.py``).

Each test checks behaviour stated by ``shared/rules/otto_game_over.md`` (rule IDs in the
names and docstrings), through the engine API and the documented position hook: the
must-score / must-8 masks for big circles, a placed F12 and an 8 that lacks the corner
square a1, the point values of the shapes, and card effects and targets that earlier
tests did not tell apart from plausible wrong versions.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from envs.otto_game_over.actions import CARD_NAMES
from envs.otto_game_over.bots import placement_gain
from envs.otto_game_over.game import OttoGameOverGame
from tests.otto_game_over.helpers import legal, make, play, points, shapes


# ------------------------------------------------------------------ must score, must 8
def test_ogo_11_a_big_circle_alone_forces_must_score() -> None:
    """OGO-06, OGO-11, OGO-19: C8 on b2 and b3 and the fixed C8 on c3 leave one quarter of
    the big circle around vc3 open (c2). A C8 there closes big@vc3 (2 points) and nothing
    else can score, so the only legal actions are ``table c2 r*`` (C8 has one distinct
    rotation, all four are legal by OGO-02)."""
    st = make({"board": {"b2": "C8/0", "b3": "C8/0"}, "tables": ["C8", "G16"], "tower": ["A4"]})
    assert legal(st) == {f"table c2 r{k}" for k in range(4)}
    play(st, "table c2 r1")
    assert shapes(st) == {"big@vc3": 0}
    assert points(st) == [2, 0] and st.supply[0] == [4, 3, 3]


#: A4 tiles around d2: an F12 on d2 in r0 or r2 has its lobes at vd2 and ve3 (OGO-06)
AROUND_D2 = {sq: "A4/0" for sq in ("c1", "d1", "c2", "e2", "d3", "e3")}


def test_ogo_12_a_placed_f12_closes_an_eight() -> None:
    """OGO-06, OGO-12, OGO-24, §1.4 (F12's X links the SW and NE corners): an F12 on d2 in
    r0 or r2 closes an 8 with small-circle lobes at vd2 and ve3; on e1 (r0, r2) it closes one
    with lobes at ve1 and vf2 (frame semicircles). Must 8: those four are the only legal
    actions, and playing one ends the match 8-nil."""
    st = make({"board": AROUND_D2, "tables": ["F12", "G16"], "tower": ["G16"]}, episode="match")
    assert legal(st) == {"table d2 r0", "table d2 r2", "table e1 r0", "table e1 r2"}
    play(st, "table d2 r2")
    assert st.is_terminal() and st.match_scores == [8, 0]
    assert list(st.returns()) == [0.25, -0.25]


def test_ogo_12_an_eight_that_lacks_only_the_corner_square_a1() -> None:
    """OGO-05, OGO-11, OGO-12, OGO-24, board edge: D10/0 on b2 has its lobes at vb2 and vc2;
    every quarter is a small arc except a1's NE corner. An A4 on a1 closes the 8 (and
    small@va1 with the corner frame). An A4 on e1 would only score small circles (vf1, vf2),
    so must 8 leaves exactly the a1 placements of both A4s, and one ends the match 8-nil."""
    board = {"b2": "D10/0", "b1": "A4/0", "c1": "A4/0", "c2": "A4/0", "a2": "A4/0", "e2": "A4/0"}
    st = make({"board": board, "tables": ["A4", "G16"], "tower": ["A4"]}, episode="match")
    assert legal(st) == {f"{t} a1 r{k}" for t in ("drawn", "table") for k in range(4)}
    play(st, "drawn a1 r3")
    assert st.is_terminal() and st.match_scores == [8, 0]


def test_placement_options_flag_a_lone_small_circle_as_scoring() -> None:
    """OGO-06, OGO-08, OGO-19: next to the A4 on a1 (which already rounds small@va1 with the
    corner frame), an A4 on a2 closes small@va2 and one on b1 closes small@vb1 (two quarters
    and a frame semicircle), 1 point each and nothing else. ``State.placement_options``
    reports exactly those two as closing a shape in every orientation (score bits 0b1111,
    points 1 each), and the mask agrees (must score)."""
    st = make({"board": {"a1": "A4/0"}, "tables": ["A4", "G16"], "tower": ["G16"]})
    scoring = {
        (t, s): (score, eight, pts) for t, s, score, eight, pts in st.placement_options() if score or eight
    }
    assert scoring == {(1, 1): (0b1111, 0, (1, 1, 1, 1)), (1, 5): (0b1111, 0, (1, 1, 1, 1))}
    assert legal(st) == {f"table {sq} r{k}" for sq in ("a2", "b1") for k in range(4)}
    play(st, "table a2 r0")
    assert shapes(st) == {"small@va2": 0} and points(st) == [1, 0]


def test_ogo_08_a_square_and_a_circle_in_one_go_are_worth_six() -> None:
    """OGO-08 ("a square and a circle in one go = 6 points"), OGO-19, S3: ``drawn e4 r0``
    closes square@ve4 and big@ve4; the greedy bots' placement gain counts 4 + 2 = 6, the
    same as the marker points the placement earns."""
    pos = {
        "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
        "tables": ["B7", "A4"],
        "tower": ["E12", "G16"],
    }
    st = make(pos)
    gain, _board = placement_gain(st, st.string_to_action("drawn e4 r0"))
    assert gain == 6.0
    play(st, "drawn e4 r0")
    assert points(st) == [6, 0]


# ------------------------------------------------------------------------ secret cards
def test_ogo_28_a_new_game_deals_from_the_33_card_deck() -> None:
    """§1.5, OGO-28: the 33 cards are 4 of each of the eight kinds + 1 joker; after the set-up
    deal (one card per player) the hands and the deck together hold exactly that, and no card
    is out of the game yet."""
    game = OttoGameOverGame(num_players=3)
    st = game.new_initial_state(np.random.default_rng(3))
    assert [len(h) for h in st.hands] == [1, 1, 1] and len(st.deck) == 30
    held = Counter(CARD_NAMES[c] for c in st.deck + [c for h in st.hands for c in h])
    assert held == {**{k: 4 for k in CARD_NAMES if k != "joker"}, "joker": 1}
    assert sum(st.removed) == 0


#: S12 with p0 holding the joker: p1 holds infinity, p2 magnetic-inversion; only c3 is placed
S12_JOKER = {
    "tables": ["A4", "B7", "C8"],
    "tower": ["E12", "F12", "G16", "D10"],
    "hands": [["joker"], ["infinity"], ["magnetic-inversion"]],
}


def test_ogo_47_the_joker_plays_as_every_start_of_turn_kind_with_a_target() -> None:
    """OGO-30, OGO-32, OGO-42, OGO-47: at turn start the joker acts as any of the seven
    start-of-turn kinds; on a bare board Quantum Leap has no movable tile, so the legal set
    is ``no card`` plus the joker as time-travel, both magnetic inversions, both revolutions,
    meteorite and alien-kidnapping of each opponent holding a card (p1 and p2)."""
    st = make(S12_JOKER, num_players=3)
    assert legal(st) == {
        "no card",
        "card joker as time-travel",
        "card joker as magnetic-inversion player_1",
        "card joker as magnetic-inversion player_2",
        "card joker as revolution-cw",
        "card joker as revolution-acw",
        "card joker as meteorite",
        "card joker as alien-kidnapping player_1",
        "card joker as alien-kidnapping player_2",
    }


def test_ogo_43_a_kidnapping_joker_then_plays_the_kidnapped_card() -> None:
    """OGO-42..44, OGO-29: the joker as alien-kidnapping of p2 takes p2's only card
    (magnetic-inversion); p0 must play it now (KIDNAP), swaps table tiles with p1, and the
    turn goes on to the draw. Both cards are out of the game, and no kidnapped card is left
    pending (the snapshot's ``kidnapped`` is null again)."""
    st = make(S12_JOKER, num_players=3)
    play(st, "card joker as alien-kidnapping player_2")
    assert legal(st) == {"card magnetic-inversion player_1", "card magnetic-inversion player_2"}
    play(st, "card magnetic-inversion player_1")
    snap = st.snapshot()
    assert snap["phase"] == "place" and snap["kidnapped"] is None
    assert snap["tables"] == ["B7", "A4", "C8"] and snap["drawn"] == "E12"
    assert snap["hands"] == [[], ["infinity"], []]
    assert snap["removed_cards"] == {"magnetic-inversion": 1, "joker": 1}


#: S10's position: p0 to move on the bare board, tower A4, E12, F12
S10 = {"tables": ["B7", "G16"], "tower": ["A4", "E12", "F12"]}


def test_ogo_47_the_joker_as_time_travel_gives_an_extra_turn() -> None:
    """OGO-34, OGO-47 (S10 with the joker): ``card joker as time-travel`` (the first joker
    action) works as Time Travel: after ``drawn b3 r0`` p0 moves again, in an extra turn with
    no CARD phase, holding the drawn E12. The joker is out of the game."""
    st = make({**S10, "hands": [["joker"], []]})
    play(st, "card joker as time-travel", "drawn b3 r0")
    snap = st.snapshot()
    assert snap["phase"] == "place" and snap["to_move"] == 0 and snap["extra_turn"] is True
    assert snap["drawn"] == "E12" and snap["removed_cards"] == {"joker": 1}


def test_ogo_43_a_kidnapped_joker_played_as_time_travel() -> None:
    """OGO-43, OGO-44, OGO-47: p0 kidnaps p1's only card, the joker; KIDNAP offers the joker as
    every start-of-turn kind with a target (no movable tile for Quantum Leap, no opponent
    card left for Alien Kidnapping). Played as time-travel, p0 gets an extra turn."""
    st = make({**S10, "hands": [["alien-kidnapping"], ["joker"]]})
    play(st, "card alien-kidnapping player_1")
    assert legal(st) == {
        "card joker as time-travel",
        "card joker as magnetic-inversion player_1",
        "card joker as revolution-cw",
        "card joker as revolution-acw",
        "card joker as meteorite",
    }
    play(st, "card joker as time-travel", "drawn b3 r0")
    snap = st.snapshot()
    assert snap["phase"] == "place" and snap["to_move"] == 0 and snap["extra_turn"] is True
    assert snap["hands"] == [[], []] and snap["removed_cards"] == {"alien-kidnapping": 1, "joker": 1}


def test_ogo_23_a_quantum_leap_keeps_unclaimed_shapes_it_does_not_open() -> None:
    """OGO-21, OGO-23, OGO-38: small@va1 (a1 and the corner frame) is unclaimed, and no team has
    a small marker. Leaping the A4 on b3 to b4 opens no corner of a1, so small@va1 stays an
    unclaimed shape (only a shape whose tile moved stops existing)."""
    pos = {
        "board": {"a1": "A4/0", "b3": "A4/0"},
        "shapes": {"small@va1": None},
        "markers": [{"small": 0}, {"small": 0}],
        "tables": ["G16", "G16"],
        "tower": ["G16", "G16"],
        "hands": [["quantum-leap"], []],
    }
    st = make(pos)
    play(st, "card quantum-leap b3 b4 r0")
    assert shapes(st) == {"small@va1": None}
    assert st.snapshot()["board"] == {"a1": "A4/0", "b4": "A4/0", "c3": "C8/0"}


def test_ogo_38_the_corner_tile_on_e5_can_leap() -> None:
    """OGO-32, OGO-38, OGO-39, board edge: the Z0 on e5 (the last square) is the only movable
    tile; it may leap to any of the 23 empty squares in any orientation: 92 Quantum Leap
    actions plus ``no card``."""
    pos = {"board": {"e5": "Z0/0"}, "tables": ["A4", "G16"], "tower": ["A4"], "hands": [["quantum-leap"], []]}
    st = make(pos)
    moves = legal(st)
    assert len(moves) == 93 and "no card" in moves
    assert {m.split()[2] for m in moves if m != "no card"} == {"e5"}
    play(st, "card quantum-leap e5 a1 r3")
    assert st.snapshot()["board"] == {"a1": "Z0/3", "c3": "C8/0"}


def test_ogo_06_a_placed_f12_with_one_square_lobe_needs_the_square_lobe_option() -> None:
    """OGO-06, OGO-12, §6 ``eight_lobes``: F12/0 on d2 has lobes at vd2 (G16 quarters: a square
    lobe) and ve3 (A4 quarters: a round lobe). With ``round_or_square`` each lobe may be all Q,
    so the placement closes an 8: must 8 leaves ``table d2 r0`` / ``r2``, and it ends the match
    8-nil. With the default ``round`` it is no 8 and closes nothing, so the drawn G16's
    scoring placements are forced instead: b1 (square@vc1 with the bottom frame half-square)
    and d2 (square@vd2)."""
    board = {"c1": "G16/0", "d1": "G16/0", "c2": "G16/0", "e2": "A4/0", "d3": "A4/0", "e3": "A4/0"}
    pos = {"board": board, "shapes": {"square@vd1": 0}, "tables": ["F12", "A4"], "tower": ["G16"]}
    st = make(pos, episode="match", eight_lobes="round_or_square")
    assert legal(st) == {"table d2 r0", "table d2 r2"}
    play(st, "table d2 r0")
    assert st.is_terminal() and st.match_scores == [8, 0]
    st = make(pos, episode="match")
    assert legal(st) == {f"drawn b1 r{k}" for k in range(4)} | {f"drawn d2 r{k}" for k in range(4)}
