"""Rule-ID scenario tests, placement and scoring (OTP-01..17); the turn flow: test_rules_flow.py."""

from __future__ import annotations

import numpy as np

from envs.otto_octopus.board import ALGAE, CORAL, KIND_INDEX, PERIMETER, SQUARE_INDEX, Ocean
from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P1, P2, P_D6, is_legal, legal, make, play


def test_otp01_otp02_orthogonal_adjacency() -> None:
    """OTP-01, OTP-02: a tile must share a side with a tile; diagonals do not count."""
    st = make(P_D6, [["starfish", "bubbles", "bubbles"]])
    assert not is_legal(st, "place starfish c7")  # diagonal to d6 only
    assert not is_legal(st, "place bubbles e7")
    assert is_legal(st, "place bubbles c6")


def test_otp02_moray_and_minnow_use_sides_only() -> None:
    """OTP-02 with OTP-10 and OTP-30: diagonal neighbours neither block nor join."""
    st = make([*P1, "moray c7"], [["minnow", "starfish", "bubbles"]], num_players=1)
    assert is_legal(st, "place starfish e7") and not is_legal(st, "place starfish c8")
    st = make([*P1, "minnow c7"], [["minnow", "bubbles", "bubbles"]], num_players=1)
    assert play(st, "place minnow e7") == 1  # e7 is not beside c7


def test_otp03_new_arm_on_a_start_square() -> None:
    """OTP-03: an arm tile on an unstarted arm's start square begins that arm."""
    st = make([], [["straight", "bubbles", "bubbles"]])
    play(st, "place straight f4")
    assert st.ocean.arm_state[3] == 1 and st.ocean.arm_tip[3] == SQUARE_INDEX["g4"]


def test_otp04_arm_tiles_only_on_tips() -> None:
    """OTP-04: beside an arm but not on its tip is illegal (rulebook example 3)."""
    st = make(P1, [["straight", "turn-in", "bubbles"]])
    assert {s for s in legal(st) if s.startswith("place straight")} == {
        f"place straight {sq}" for sq in ("e6", "f5", "f4", "e3", "d3", "c4", "c5")
    }


def test_otp05_turns_follow_handedness() -> None:
    """OTP-05: straight keeps the heading, turn-in turns right, turn-out left (§1.2)."""
    # arm f4 heads E: straight -> g4, right turn -> S (f3); a left turn would aim at f5 (C1)
    for kind, tip in (("straight", "g4"), ("turn-in", "f3")):
        st = make([], [[kind, "bubbles", "bubbles"]])
        play(st, f"place {kind} f4")
        assert st.ocean.arm_tip[3] == SQUARE_INDEX[tip]
    st = make([], [["turn-out", "bubbles", "bubbles"]])
    assert not is_legal(st, "place turn-out f4")  # its tip would be the start square f5
    # arm d6 heads N: a left turn heads W, so the tip is c6 (a right turn would aim at e6)
    play(st, "place turn-out d6")
    assert st.ocean.arm_tip[0] == SQUARE_INDEX["c6"] and st.ocean.arm_heading[0] == 3
    st = make([], [["turn-in", "bubbles", "bubbles"]])
    assert not is_legal(st, "place turn-in d6")  # its tip would be the start square e6


def test_otp06_end_finishes_a_started_arm() -> None:
    """OTP-06: ends only on the tip of a started arm; the arm is then finished."""
    st = make(P1, [["end", "straight", "bubbles"]])
    assert {s for s in legal(st) if s.startswith("place end")} == {"place end d8"}
    play(st, "place end d8")
    assert st.ocean.arm_state[0] == 2 and st.ocean.arm_tip[0] == -1


def test_otp07_c4_arm_tiles_must_remain_for_unstarted_arms() -> None:
    """OTP-07 C4: growing an arm is illegal when the arm tiles left would not start every arm."""
    ocean = Ocean()
    ocean.place(KIND_INDEX["straight"], SQUARE_INDEX["d6"], True)
    assert ocean.arm_tile_ok(0, 0)
    ocean.arm_tiles_placed = 17  # 24 - 17 - 1 = 6 < 7 unstarted arms
    assert not ocean.arm_tile_ok(0, 0)
    assert ocean.arm_tile_ok(1, 0)  # starting a new arm keeps the balance


def test_otp07_c3_last_exit_of_an_unstarted_arm() -> None:
    """OTP-07 C3: no tile may take the last free exit of an unstarted arm."""
    # arm d6 (unstarted) has exits d7 and c6; c6 is the tip of arm c5, so d7 is the last one
    st = make(["turn-in c5", "straight e6"], [["turn-out", "bubbles", "straight"]])
    assert not is_legal(st, "place turn-out e7")  # its tip would be d7
    assert not is_legal(st, "place bubbles d7")
    assert is_legal(st, "place straight e7") and is_legal(st, "place bubbles b5")


def test_otp08_fish_never_on_starts_or_tips() -> None:
    """OTP-08: in random games no fish or bubbles mask entry is a start square or a tip."""
    game = OttoOctopusGame()
    rng = np.random.default_rng(3)
    for seed in range(15):
        st = game.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal():
            mask = st.legal_mask()
            bad = [
                sq for sq in range(64) if sq in (19, 20, 26, 29, 34, 37, 43, 44) or st.ocean.tip_arm[sq] >= 0
            ]
            for k in range(5, 16):
                assert not mask[[64 * k + sq for sq in bad]].any()
            legal_a = np.flatnonzero(mask)
            st.apply(int(legal_a[rng.integers(legal_a.size)]))


def test_otp09_anglerfish_on_the_perimeter_only() -> None:
    """OTP-09: anglerfish squares are all on the 28-square perimeter."""
    st = make([*P2, "straight c8", "straight b8", "end a8"], [["anglerfish", "bubbles", "bubbles"]])
    squares = {s.split()[2] for s in legal(st) if "anglerfish" in s}
    assert squares and all(SQUARE_INDEX[s] in PERIMETER for s in squares)
    assert len(PERIMETER) == 28


def test_otp10_moray_blocks_fish_not_others() -> None:
    """OTP-10: no new fish (moray and minnow included) beside a moray; bubbles and arms are fine."""
    st = make([*P1, "moray c7"], [["moray", "minnow", "bubbles"]], num_players=1)
    assert not is_legal(st, "place moray c8")
    assert not is_legal(st, "place minnow c6")
    assert is_legal(st, "place bubbles c6")
    # arm e6's tip e7 touches the moray f7: arm tiles and ends may still go there
    st = make(
        ["straight e6", "bubbles f6", "moray f7"],
        [["straight", "turn-out", "end"], ["starfish", "turn-in", "bubbles"]],
    )
    assert (
        st.ocean.arm_tip[1] == SQUARE_INDEX["e7"]
        and st.ocean.tiles[SQUARE_INDEX["f7"]] == KIND_INDEX["moray"]
    )
    assert {"place straight e7", "place turn-out e7", "place end e7"} <= legal(st)
    play(st, "place turn-out e7")  # tip d7
    assert not is_legal(st, "place starfish g7")  # a fish beside the moray stays illegal
    assert is_legal(st, "place bubbles g7")


def test_otp11_points_of_each_tile() -> None:
    """OTP-11: arm tiles 1, bubbles 0, fish their printed points, shark 0."""
    printed = {
        "clownfish": 1,
        "butterflyfish": 1,
        "jellyfish": 1,
        "pufferfish": 1,
        "starfish": 3,
        "seahorse": 2,
        "shark": 0,
        "moray": 2,
        "minnow": 1,
        "bubbles": 0,
    }
    for kind, pts in printed.items():
        st = make(P1, [[kind, "bubbles", "bubbles"]])
        assert play(st, f"place {kind} e7") == pts, kind
    st = make([], [["straight", "bubbles", "bubbles"]])
    assert play(st, "place straight d6") == 1


def test_otp12_end_scores_arm_length() -> None:
    """OTP-12: end = 1 + arm tiles; end-shell doubles it."""
    st = make(P2, [["end", "end-shell", "bubbles"]])
    assert play(st.clone(), "place end c8") == 4
    assert play(st, "place end-shell c8") == 8


def test_otp13_algae_adds_one() -> None:
    """OTP-13: +1 on algae, bubbles included."""
    st = make(P_D6, [["bubbles", "bubbles", "bubbles"]])
    assert play(st, "place bubbles c6") == 1


def test_otp14_coral_doubles() -> None:
    """OTP-14: a tile on a coral corner scores double (anglerfish 6, shell end x4)."""
    st = make([*P2, "straight c8", "straight b8"], [["anglerfish", "bubbles", "bubbles"]])
    assert not is_legal(st, "place anglerfish a8")  # the tip of the arm
    st = make(
        ["straight c5", "straight b5", "turn-out a5", "straight a4", "straight a3"],
        [["end-shell", "starfish", "bubbles"]],
    )
    assert st.ocean.arm_tip[7] == SQUARE_INDEX["a2"]
    st = make(
        ["straight c5", "straight b5", "turn-out a5", "straight a4", "straight a3", "straight a2"],
        [["end-shell", "starfish", "bubbles"]],
    )
    assert play(st, "place end-shell a1") == (1 + 6) * 4
    # a fish on a coral corner: the finished arm c5 ends on a7, so a8 is free and adjacent
    st = make(
        ["straight c5", "straight b5", "turn-in a5", "straight a6", "end a7"],
        [["anglerfish", "starfish", "bubbles"]],
    )
    assert play(st.clone(), "place anglerfish a8") == 3 * 2
    assert play(st, "place starfish a8") == 3 * 2


def test_otp15_order_and_shark_on_coral() -> None:
    """OTP-15: shark on coral scores 0 and the -2 is not doubled; algae and coral never meet."""
    assert not ALGAE & CORAL
    st = make(
        ["straight c5", "straight b5", "turn-in a5", "straight a6", "end a7"],
        [["shark", "bubbles", "bubbles"]],
        scores=[0, 5],
    )
    assert play(st, "place shark a8") == 0
    assert st.scores == [0, 3]


def test_otp16_scores_may_go_negative() -> None:
    """OTP-16 with OTP-27: an opponent at 0 drops to -2."""
    st = make(P1, [["shark", "bubbles", "bubbles"]])
    play(st, "place shark e7")
    assert st.scores == [0, -2]


def test_otp17_the_24_point_arm_end_tile() -> None:
    """OTP-17: (1 + 5) x 2 (shell) x 2 (coral) = 24 for the end tile alone."""
    st = make([*P2, "straight c8", "straight b8"], [["end-shell", "bubbles", "bubbles"]])
    assert st.ocean.arm_len[0] == 5
    assert play(st, "place end-shell a8") == 24
