"""Spec §9 conformance scenarios T1-T15, one test each (positions from ``helpers``)."""

from __future__ import annotations

import numpy as np

from envs.core.game import TERMINAL
from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P0, P1, P2, P_ARM, P_D6, hand, is_legal, legal, make, play


def test_t1_opening() -> None:
    """T1 (OTP-03, OTP-05, OTP-07): 8 straights, 4 turn-ins, pass: 13 actions."""
    st = make(P0, [["straight", "turn-in", "starfish"]])
    starts = ["d3", "e3", "c4", "f4", "c5", "f5", "d6", "e6"]
    expected = {f"place straight {s}" for s in starts}
    expected |= {f"place turn-in {s}" for s in ("d3", "f4", "c5", "e6")}
    expected.add("pass")
    assert legal(st) == expected
    assert len(legal(st)) == 13


def test_t1_every_reset_hand_is_playable() -> None:
    """T1 invariant (OTP-35, OTP-36): after any reset every hand holds a legal placement."""
    for n in (1, 2, 3, 4):
        game = OttoOctopusGame(num_players=n)
        for seed in range(40):
            st = game.new_initial_state(np.random.default_rng(seed))
            for p in range(n):
                assert st._placement_mask(p)[:1024].any()
                assert any(k <= 2 for k in st.hands[p])
            assert sum(len(h) for h in st.hands) + len(st.pile) == 60


def test_t2_the_24_point_arm() -> None:
    """T2 (OTP-17, OTP-12, OTP-14): end-shell on coral a8 after 5 arm tiles = 24; plain end 12."""
    st = make(P_ARM, [["end-shell", "end", "bubbles"]])
    assert play(st.clone(), "place end-shell a8") == 24
    assert play(st, "place end a8") == 12


def test_t2_full_build_solo() -> None:
    """T2 full build (OTP-17): +1 x5 then +24 = 29."""
    st = make(
        P0,
        [["straight", "straight", "turn-out"]],
        num_players=1,
        pile=["straight", "straight", "end-shell", "bubbles", "bubbles", "bubbles"],
    )
    gains = [
        play(st, f"place {m}")
        for m in ("straight d6", "straight d7", "turn-out d8", "straight c8", "straight b8", "end-shell a8")
    ]
    assert gains == [1, 1, 1, 1, 1, 24]
    assert st.scores[0] == 29


def test_t3_two_arms_one_square() -> None:
    """T3 rulebook example 1 (OTP-07 C2): turn-out d6 would aim at c6, the tip of arm c5."""
    st = make(["turn-in c5"], [["turn-out", "straight", "bubbles"]])
    assert st.ocean.arm_tip[7] == 42  # c6
    assert not is_legal(st, "place turn-out d6")
    assert is_legal(st, "place straight d6")


def test_t4_end_without_arm_tile() -> None:
    """T4 rulebook example 2 (OTP-06): no end on an arm with no arm tile."""
    st = make(P0, [["end", "end-shell", "straight"]])
    assert not is_legal(st, "place end d6")
    assert not is_legal(st, "place end-shell c4")
    st = make(P1, [["end", "end-shell", "straight"]])
    assert is_legal(st, "place end d8")
    assert play(st, "place end d8") == 3


def test_t5_alignment() -> None:
    """T5 rulebook example 3 (OTP-04, OTP-05): arm tiles only on the tip; turns set the heading."""
    st = make(P1, [["straight", "turn-in", "turn-out"]])
    assert not is_legal(st, "place straight c7")
    assert not is_legal(st, "place turn-in e7")
    assert is_legal(st, "place turn-in d8")
    assert is_legal(st, "place turn-out d8")
    a = st.clone()
    play(a, "place turn-in d8")
    assert a.ocean.arm_tip[0] == 60  # e8: the arm now heads E
    play(st, "place turn-out d8")
    assert st.ocean.arm_tip[0] == 58  # c8


def test_t6_anglerfish() -> None:
    """T6 rulebook example 4 (OTP-09, OTP-29)."""
    st = make(P2, [["anglerfish", "anglerfish", "bubbles"]])
    assert not is_legal(st, "place anglerfish e7")
    assert not is_legal(st, "place anglerfish c8")
    assert is_legal(st, "place anglerfish e8")
    assert play(st, "place anglerfish e8") == 3


def test_t7_arm_off_the_board() -> None:
    """T7 rulebook example 5 (OTP-07 C1): a straight at d8 would leave its tip off the board."""
    st = make(P1, [["straight", "turn-out", "bubbles"]])
    assert not is_legal(st, "place straight d8")
    assert is_legal(st, "place turn-out d8")


def test_t8_not_adjacent() -> None:
    """T8 rulebook example 6 (OTP-01, OTP-13): b7 touches nothing; c6 scores 3 + 1 algae."""
    st = make(P_D6, [["starfish", "bubbles", "bubbles"]])
    assert not is_legal(st, "place starfish b7")
    assert is_legal(st, "place starfish c6")
    assert play(st, "place starfish c6") == 4


def test_t9_blocking_an_arm() -> None:
    """T9 rulebook example 7 (OTP-07 C1, C3): no tile on a tip or a free arm start."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    assert not is_legal(st, "place bubbles d8")
    assert not is_legal(st, "place starfish e6")
    assert is_legal(st, "place bubbles e7")


def test_t10_minnow_shoal() -> None:
    """T10 (OTP-30): 1, 3, 6 points as the shoal grows."""
    st = make(P1, [["minnow"] * 3], num_players=1)
    assert [play(st, f"place minnow {s}") for s in ("c7", "c8", "b8")] == [1, 3, 6]


def test_t10_minnow_bridge() -> None:
    """T10 bridge (OTP-30, OTP-13): joining two single minnows completes the shoal: 6 + 1."""
    st = make(
        [*P1, "straight c5", "straight b5", "minnow c7", "minnow b6"],
        [["minnow", "bubbles", "bubbles"]],
        num_players=1,
    )
    assert st.ocean.arm_tip[7] == 32  # a5
    assert play(st, "place minnow c6") == 7


def test_t11_moray() -> None:
    """T11 (OTP-10, OTP-28): no new fish next to a moray; other tiles are fine."""
    st = make(P1, [["moray", "starfish", "bubbles"], ["minnow", "straight", "bubbles"]])
    assert play(st, "place moray c7") == 2
    assert st.current_player() == 1
    assert not is_legal(st, "place minnow b7")
    assert not is_legal(st, "place minnow c8")
    for ok in ("place bubbles c8", "place straight e6", "place minnow e7"):
        assert is_legal(st, ok)


def test_t12_effect_chain() -> None:
    """T12 (OTP-21, OTP-22, OTP-23, OTP-26, OTP-32, OTP-33, OTP-49)."""
    pile = [
        "starfish",
        "seahorse",
        "bubbles",
        "minnow",
        "straight",
        "pufferfish",
        "turn-in",
        "end",
        "bubbles",
        "bubbles",
    ]
    st = make(
        P1, [["clownfish", "butterflyfish", "jellyfish"], ["straight", "bubbles", "bubbles"]], pile=pile
    )
    assert play(st, "place butterflyfish c7") == 1
    assert (st.phase, st.extra) == (1, 2)
    assert play(st, "place jellyfish c6") == 2
    assert st.skips == [0, 1] and st.extra == 1
    assert play(st, "place clownfish e7") == 1
    assert hand(st, 0) == ["starfish"] and st.extra == 1
    assert "stop" in legal(st)
    play(st, "stop")
    assert hand(st, 0) == ["bubbles", "seahorse", "starfish"]
    assert st.scores[0] == 4
    assert st.current_player() == 0 and st.phase == 0 and st.skips == [0, 0]
    assert st.pile[-1] == 14  # minnow on top
    assert play(st, "place seahorse b6") == 2
    assert legal(st) == {"return starfish", "return bubbles", "return minnow"}
    pile_size = len(st.pile)
    play(st, "return bubbles")
    assert len(st.pile) == pile_size
    assert len(st.hands[0]) == 3 and {"starfish", "minnow"} <= set(hand(st, 0))
    assert st.scores[0] == 6
    assert st.current_player() == 1


def test_t13_pufferfish() -> None:
    """T13 (OTP-24): the mover chooses the tile and the opponent; the taken tile is random."""
    st = make(
        P1,
        [["pufferfish", "straight", "end"], ["bubbles"] * 3, ["starfish"] * 3],
        num_players=3,
        pile=["minnow"] * 5,
    )
    assert play(st, "place pufferfish c7") == 1
    assert legal(st) == {
        "swap straight player_1",
        "swap straight player_2",
        "swap end player_1",
        "swap end player_2",
    }
    play(st, "swap end player_2")
    assert hand(st, 0) == ["minnow", "starfish", "straight"]
    assert hand(st, 2) == ["end", "starfish", "starfish"]
    assert st.current_player() == 1


def test_t14_end_of_game() -> None:
    """T14 (OTP-37, OTP-38, OTP-19, OTP-47): passes, automatic pass, hand penalty, rewards."""
    st = make(P1, [["starfish", "end"], ["bubbles"]], pile=[], scores=[10, 9])
    play(st, "pass")
    assert st.current_player() == 1
    assert play(st, "place bubbles e7") == 0
    assert st.passed == [False, False]
    play(st, "pass")
    assert st.current_player() == TERMINAL and st.is_terminal()
    assert st.final_scores() == [8, 9]
    assert list(st.returns()) == [-1.0, 1.0]


def test_t15_solo() -> None:
    """T15 (OTP-39, OTP-40): solo ignores clownfish/jellyfish effects; final counts the pile."""
    st = make(
        P1,
        [["clownfish", "jellyfish", "bubbles"]],
        num_players=1,
        pile=["starfish", "straight", "minnow", "bubbles"],
    )
    assert play(st, "place clownfish c7") == 1
    assert st.phase == 0 and st.extra == 0
    assert hand(st, 0) == ["bubbles", "jellyfish", "starfish"]
    assert play(st, "place jellyfish c6") == 2
    assert st.scores[0] == 3 and st.skips == [0]
    play(st, "pass")
    assert st.is_terminal()
    assert st.final_scores() == [-2]
    assert st.returns()[0] == -0.02
