"""Scenario tests closing gaps found by mutation testing of the Otto the Octopus engine.

Each test names the rule IDs of spec ``rules/otto_octopus.md`` it checks. Several of the
rules below were only reached by random playouts (seed-dependent) or by golden recordings;
these scenarios pin them down directly.
"""

from __future__ import annotations

import pytest

from envs.otto_octopus.board import SQUARE_INDEX
from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P1, hand, is_legal, legal, make, play

TIP_PLANE = 21  # §7 / doc page: plane 21 = open arm tips


# ------------------------------------------------------------------ OTP-33 extra placements
def test_otp22_otp33_butterflyfish_adds_two_to_the_remaining_extras() -> None:
    """OTP-22 / OTP-33: a butterflyfish *adds* 2 to E. A second butterflyfish played as an
    extra placement leaves E = 2 - 1 + 2 = 3, so three more placements follow."""
    st = make(P1, [["butterflyfish", "butterflyfish", "starfish"]], pile=["bubbles"] * 6)
    play(st, "place butterflyfish c7")
    assert st.extra == 2
    play(st, "place butterflyfish e7")
    assert st.extra == 3 and st.current_player() == 0 and "stop" in legal(st)


def test_otp21_otp33_clownfish_in_extra_adds_one() -> None:
    """OTP-21 / OTP-33: a clownfish played as a butterflyfish's first extra placement leaves
    E = 2 - 1 + 1 = 2 (and draws 1)."""
    st = make(P1, [["butterflyfish", "clownfish", "starfish"]], pile=["minnow"] + ["bubbles"] * 6)
    play(st, "place butterflyfish c7")
    play(st, "place clownfish e7")
    assert st.extra == 2 and hand(st, 0) == ["minnow", "starfish"]
    play(st, "place starfish f7")
    play(st, "place minnow e8")
    assert st.current_player() == 1  # both extras used: the turn ended


def test_otp24_otp33_extras_survive_a_pufferfish_swap() -> None:
    """OTP-24 / OTP-33 / OTP-49: a pufferfish played as an extra placement resolves its SWAP,
    then the remaining extra placement is still offered (the turn does not end)."""
    st = make(P1, [["butterflyfish", "pufferfish", "starfish"], ["bubbles"] * 3], pile=["minnow"] * 6)
    play(st, "place butterflyfish c7")
    play(st, "place pufferfish e7")  # E = 1 left
    assert legal(st) == {"swap starfish player_1"}
    play(st, "swap starfish player_1")
    assert st.current_player() == 0 and st.extra == 1
    assert hand(st, 0) == ["bubbles"] and hand(st, 1) == ["bubbles", "bubbles", "starfish"]
    assert "stop" in legal(st) and "pass" not in legal(st)
    assert play(st, "place bubbles f7") == 0
    assert st.current_player() == 1 and hand(st, 0) == ["minnow"] * 3  # refill at turn end


def test_otp26_otp33_seahorse_in_extra_redraws_and_keeps_the_extras() -> None:
    """OTP-26 / OTP-33 / OTP-34: a seahorse played as an extra placement draws 1, the RETURN
    decision follows, the replacement is drawn at once (pile size unchanged by return+draw),
    and the remaining extra placement is still offered."""
    st = make(P1, [["butterflyfish", "seahorse", "starfish"]], pile=["minnow", "moray"] + ["bubbles"] * 4)
    play(st, "place butterflyfish c7")
    play(st, "place seahorse e7")  # draws minnow; E = 1 left
    assert legal(st) == {"return starfish", "return minnow"}
    size = len(st.pile)
    play(st, "return starfish")
    assert len(st.pile) == size and len(st.hands[0]) == 2  # returned 1, drew 1
    assert st.current_player() == 0 and st.extra == 1 and "stop" in legal(st)


# ------------------------------------------------------------------ OTP-24 swap targets
def test_otp24_swap_never_targets_an_empty_hand() -> None:
    """OTP-24: the taken tile comes from an opponent's hand, so an opponent with an empty hand
    is never a swap target (3 players, p1 empty, p2 holding tiles)."""
    st = make(
        P1, [["pufferfish", "straight", "end"], [], ["starfish"] * 3], num_players=3, pile=["minnow"] * 5
    )
    play(st, "place pufferfish c7")
    assert legal(st) == {"swap straight player_2", "swap end player_2"}
    play(st, "swap end player_2")
    assert hand(st, 0) == ["minnow", "starfish", "straight"] and hand(st, 2) == [
        "end",
        "starfish",
        "starfish",
    ]


# ------------------------------------------------------------------ §3 / OTP-23 skips
def test_otp23_otp37_pending_skip_is_consumed_even_without_a_legal_placement() -> None:
    """§3 / OTP-23 / OTP-37: a pending skip is consumed first ("if p has skips pending:
    consume one, turn over (not a pass)"), even when the seat could not place anyway. It must
    not stay pending and cost that seat a later turn in which it can play."""
    # arm d6 finished (d6 S, d7 E); p1 holds only an end and has no open tip to put it on
    st = make(["straight d6", "end d7"], [["jellyfish", "straight", "starfish"], ["end"]], pile=[])
    play(st, "place jellyfish e7")
    assert st.current_player() == 0 and st.skips == [0, 0] and st.passed == [False, False]
    play(st, "place straight c5")  # arm c5 opens a tip at b5: p1 can place its end now
    assert st.current_player() == 1 and is_legal(st, "place end b5")


# ------------------------------------------------------------------ §7 observation
def test_s7_tip_plane_cleared_when_an_end_finishes_the_arm() -> None:
    """§7 (plane "open tips") / OTP-06: once an end finishes an arm, its square is no longer
    an open tip in anyone's observation."""
    game = OttoOctopusGame()
    st = make(P1, [["end", "bubbles", "bubbles"]])
    d8 = SQUARE_INDEX["d8"]
    assert game.observe(st, 0)[64 * TIP_PLANE + d8] == 1.0
    play(st, "place end d8")
    for seat in (0, 1):
        assert game.observe(st, seat)[64 * TIP_PLANE : 64 * TIP_PLANE + 64].sum() == 0.0


# ------------------------------------------------------------------ §5 game length bound
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_s5_declared_max_game_length_covers_the_spec_bound(n: int) -> None:
    """§5: a game has at most 60*(n+2)+n decisions (each placement: <= 1 sub-decision and 1
    stop, <= n-1 passes between placements), and max_steps cuts it. The declared upper bound
    on agent steps may not be below that."""
    assert OttoOctopusGame(num_players=n).max_game_length >= min(1000, 60 * (n + 2) + n)
    assert OttoOctopusGame(num_players=n, max_steps=25).max_game_length >= 25
