"""Scenario tests closing gaps found by mutation testing of the Octi engine (rule IDs cited)."""

from __future__ import annotations

import numpy as np

from envs.octi.game import OctiGame
from envs.octi.rules import State
from tests.octi.helpers import board, custom, legal, play
from tests.octi.test_scenarios import S04_MOVES


def test_oct_19_jump_limit_is_per_pod_in_a_co_movers_series() -> None:
    """OCT-19 [MODEL] (per-pod limit), OCT-32, OCT-29: a co-mover's *series* may jump a square the
    first mover already jumped this turn; the pod on it is still decided only once.

    5 .  .  .            first mover e3.0 (E,N): jump E over f3 to g3, jump N over g4 to g5
    4 .  R  R            co-mover e3.1 (NE,S): jump NE over f4 to g5, then jump S over g4
    3 B2 R  .            (already jumped by pod 0, not by pod 1) to g3
      e  f  g
    """
    st = custom(
        "x_fast",
        black=(("e3", "E,N"), ("e3", "NE,S")),
        red=(("f3", ""), ("g4", ""), ("f4", "")),
    )
    st.play("jump e3.0 E", "with e3")
    assert legal(st) == {"jump g3 N", "stop"}
    st.play("jump g3 N")
    assert st.snapshot()["phase"] == "MOVER"
    assert legal(st) == {"jump e3 NE", "step e3 S"}
    st.play("jump e3 NE")  # lands beside pod 0 on g5 (movers ignore each other, OCT-32)
    assert st.snapshot()["phase"] == "CHAIN"
    assert legal(st) == {"jump g5.1 S", "stop"}
    st.play("jump g5.1 S")
    # capture queue: f3, g4 (jumped by both pods, one decision), f4
    assert legal(st) == {"capture f3", "spare f3"}
    st.play("spare f3")
    assert legal(st) == {"capture g4", "spare g4"}
    st.play("capture g4")
    assert legal(st) == {"capture f4", "spare f4"}
    st.play("spare f4")
    snap = st.snapshot()
    assert (snap["phase"], snap["to_move"], snap["captured"]) == ("MAIN", 1, [0, 1])
    assert board(st)["g5"] == [[0, "N,E"]] and board(st)["g3"] == [[0, "NE,S"]]
    assert "g4" not in board(st) and "e3" not in board(st)


def test_oct_38_40_enemy_base_index_in_player_0_left_to_right_order() -> None:
    """§7 encoding as documented in the env docstring (OCT-38, OCT-40): ENTER/LIBERATE base b is
    0..K-1 own bases then K..2K-1 enemy bases, each in the *mover's* left-to-right order; for Black
    that is ascending file on both rows (c7 = K, e7 = K+1, g7 = K+2)."""
    st = custom("x_classic", black=(("c7", ""), ("g7", ""), ("a1", "N")), red=(("i9", ""),))
    lay, K = st.lay, st.K
    assert st.string_to_action("enter c3") == lay.enter + 0
    assert st.string_to_action("enter c7") == lay.enter + K
    assert st.string_to_action("enter g7") == lay.enter + K + 2
    st.apply(lay.enter + K + 2)
    assert board(st)["g7"] == [[0, ""], [0, ""]] and board(st)["c7"] == [[0, ""]]


def _shuffle(st: State, black: tuple[str, str], red: tuple[str, str], times: int) -> None:
    """``times`` rounds of two filler steps out and back per player (each round restores the
    position with Black to move)."""
    for _ in range(times):
        st.play(black[0], red[0], black[1], red[1])


def test_oct_52_repetition_key_includes_supplies() -> None:
    """OCT-52 / END step 5: the position includes the supplies. In x_classic Black captures a Red
    pod with one prong (OCT-26), Red liberates it (OCT-40) and plugs a prong back in: the board and
    the pools are as before but one prong moved from Red's supply to Black's, so it is a new
    position, not the third occurrence of the old one.

    3 R2 (c3: Red 0 "", Red 1 "N")  Red stands on Black's base c3, so it may liberate onto c3
    2 B  (c2: Black "N,S")           Black jumps c3 north and back
    """
    st = custom(
        "x_classic",
        black=(("c2", "N,S"), ("a1", "N,S")),
        red=(("c3", ""), ("c3", "N"), ("i9", "N,S")),
        repetition_draw=True,
    )
    fill_b, fill_r = ("step a1 N", "step a2 S"), ("step i9 S", "step i8 N")
    _shuffle(st, fill_b, fill_r, 2)  # the start position has now occurred twice (turns 4 and 8)
    start = st.snapshot()
    assert not st.is_terminal()
    st.play("jump c2 N", "spare c3.0", "capture c3.1")  # Red pod 1 and its prong N
    st.play("liberate c3")  # back onto c3 without prongs (OCT-41)
    st.play("jump c4 S", "spare c3.0", "spare c3.1")
    st.play("prong c3.1 N")
    snap = st.snapshot()
    assert snap["board"] == start["board"] and snap["captured"] == start["captured"]
    assert snap["supply"] == [start["supply"][0] + 1, start["supply"][1] - 1]
    assert not st.is_terminal() and snap["to_move"] == 0  # first occurrence of this position
    _shuffle(st, fill_b, fill_r, 1)
    assert not st.is_terminal()
    _shuffle(st, fill_b, fill_r, 1)  # third occurrence of the new position: draw
    assert st.is_terminal() and not st.is_truncated() and list(st.returns()) == [0.0, 0.0]


def test_oct_52_repetition_key_includes_reserve_and_captured_counts() -> None:
    """OCT-52 / END step 5: the position includes the reserve and captured counts. In x_fast Black
    captures its own prongless pod on e3 (OCT-25, OCT-27) and enters a reserve pod there (OCT-36):
    board and supplies are as before, but reserve 4 -> 3 and captured 0 -> 1, so it is a new
    position, not the third occurrence of the old one."""
    st = custom(
        "x_fast",
        black=(("e2", "N,S"), ("e3", ""), ("a1", "N,E,SW")),
        red=(("i9", "S,W,NE"),),
        repetition_draw=True,
    )
    fill_b = ("step a1 N", "step a2 E", "step b2 SW")  # Black and Red walk a triangle
    fill_r = ("step i9 S", "step i8 W", "step h8 NE")
    for _ in range(2):  # the start position has now occurred twice (turns 6 and 12)
        for b, r in zip(fill_b, fill_r, strict=True):
            st.play(b, r)
    start = st.snapshot()
    assert not st.is_terminal()
    st.play("jump e2 N", "capture e3", fill_r[0])  # own pod captured: captured [1, 0]
    st.play("enter e3", fill_r[1])  # a reserve pod takes its place: reserve 4 -> 3
    st.play("jump e4 S", "spare e3", fill_r[2])
    snap = st.snapshot()
    assert snap["board"] == start["board"] and snap["supply"] == start["supply"]
    assert (snap["reserve"], snap["captured"]) == ([3, 6], [1, 0])
    assert not st.is_terminal() and snap["to_move"] == 0  # first occurrence of this position
    # The new-pool position after Black's `jump e4 S` (Red on h8, Red to move) recurs after
    # Black's `step b2 SW` of each further round: its third occurrence is a draw.
    round_ = [m for pair in zip(fill_b, fill_r, strict=True) for m in pair]
    st.play(*round_)
    assert not st.is_terminal()
    st.play(*round_[:5])
    assert st.is_terminal() and not st.is_truncated() and list(st.returns()) == [0.0, 0.0]
    assert st.snapshot()["turn"] == 12 + 6 + 6 + 5


def test_oct_52_repetition_key_includes_side_to_move() -> None:
    """OCT-52 / END step 5: the position includes the player to move. Black's series of jumps
    returns to its origin with every jumped pod spared (OCT-19, OCT-23): the board is unchanged but
    Red is to move, which is not a repetition of the position with Black to move.

    5 .  .  .
    4 .  R  R        Black a3 (N,E,SW): jump E over b3, N over c4, SW over b4, back on a3
    3 B  B  .
      a  b  c
    """
    st = custom(
        black=(("a3", "N,E,SW"), ("b3", ""), ("f1", "N,S")),
        red=(("c4", ""), ("b4", ""), ("a7", "N,S")),
        repetition_draw=True,
    )
    _shuffle(st, ("step f1 N", "step f2 S"), ("step a7 S", "step a6 N"), 2)  # start position twice
    start = st.snapshot()
    assert not st.is_terminal()
    st.play("jump a3 E", "jump c3 N", "jump c5 SW", "spare b3", "spare c4", "spare b4")
    snap = st.snapshot()
    assert snap["board"] == start["board"] and snap["supply"] == start["supply"]
    assert not st.is_terminal() and snap["to_move"] == 1 and snap["phase"] == "MAIN"


def test_oct_47_pool_planes_are_egocentric() -> None:
    """OCT-47 / §7 (planes as documented in the env docstring): planes 34/35 are the observer's own
    / the enemy's reserve pods / P and 36/37 its own / the enemy's captured pods / P."""
    game = OctiGame()
    st = game.new_initial_state(np.random.default_rng(0))
    play(st, "1. prong c2 N / prong d6 S\n2. step c2 N / prong c6 SE\n3. prong b2 NE / step d6 S")
    st.play("prong b2 N", "jump c6 SE", "capture d5")  # Red captures its own pod (OCT-25)
    assert st.snapshot()["captured"] == [0, 1]
    black, red = game.observe(st, 0), game.observe(st, 1)
    assert np.all(black[36] == 0) and np.allclose(black[37], 1 / 4)
    assert np.allclose(red[36], 1 / 4) and np.all(red[37] == 0)

    xgame = OctiGame(variant="x_fast")
    xs = xgame.new_initial_state(np.random.default_rng(0))
    xs.play("enter c3")  # Black: reserve 4 -> 3
    black, red = xgame.observe(xs, 0), xgame.observe(xs, 1)
    assert np.allclose(black[34], 3 / 7) and np.allclose(black[35], 4 / 7)
    assert np.allclose(red[34], 4 / 7) and np.allclose(red[35], 3 / 7)


def test_oct_23_capture_mark_plane_during_capture_phase() -> None:
    """OCT-23 / §7 (plane 26 as documented in the env docstring): during CAPTURE the pods already
    marked ``capture`` this turn are shown on their squares (/ P), in each observer's frame."""
    game = OctiGame()
    st = game.new_initial_state(np.random.default_rng(0))
    play(st, S04_MOVES)  # the §9 S04 position
    st.play("jump a3 E", "jump c3 N", "jump c5 SW", "spare b3")
    assert not game.observe(st, 0)[26].any()  # b3 spared: nothing marked yet
    st.play("capture c4")
    assert legal(st) == {"capture b4", "spare b4"}
    black, red = game.observe(st, 0), game.observe(st, 1)
    expected = np.zeros((7, 6), dtype=np.float32)
    expected[3, 2] = 1 / 4  # c4 in Black's frame: rank 4 -> row 3, file c -> column 2
    assert np.array_equal(black[26], expected)
    assert np.array_equal(red[26], expected[::-1, ::-1])  # Red sees the board turned 180 degrees
