"""Second round of scenario tests closing gaps found by mutation testing of the Otto engine.

Each test names the rule IDs of spec ``rules/otto_octopus.md`` it checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P1, hand, legal, make, play

BOARD = 27 * 64  # §7 / doc page: 27 board planes, then the vector
SKIPS_AT = BOARD + 89  # doc page: offsets 89-92 = pending skipped turns / 2, max 1 (egocentric)


def test_otp23_s7_two_pending_skips_are_observed_apart_from_one() -> None:
    """OTP-23 / §7: skips accumulate (two jellyfish = two skipped turns) and the observation
    shows pending skips / 2, max 1: 2 pending -> 1.0, then after one is consumed -> 0.5."""
    game = OttoOctopusGame()
    st = make(P1, [["starfish", "bubbles", "bubbles"]], skips=[0, 2])
    assert st.current_player() == 0 and st.skips == [0, 2]
    assert game.observe(st, 0)[SKIPS_AT + 1] == 1.0  # slot 1 = player_1, 2 / 2
    assert game.observe(st, 1)[SKIPS_AT] == 1.0  # player_1's own slot 0
    play(st, "pass")  # player_1's turn is skipped (one consumed), player_0 moves again
    assert st.current_player() == 0 and st.skips == [0, 1]
    assert game.observe(st, 0)[SKIPS_AT + 1] == 0.5
    st3 = make(P1, [["starfish", "bubbles", "bubbles"]], skips=[0, 3])
    assert game.observe(st3, 0)[SKIPS_AT + 1] == 1.0  # 3 / 2 clipped to 1


def test_otp41_an_empty_hand_shows_nothing_and_has_no_secret_tile() -> None:
    """OTP-41: the secret tile is the newest hand tile, all others are visible. A player with
    an empty hand has nothing visible and no secret tile; one holding [moray, minnow] shows
    the moray and keeps the newer minnow secret (its own ``private_text`` names it)."""
    game = OttoOctopusGame(num_players=3, open_game=True)
    st = make(
        P1, [["starfish", "bubbles", "bubbles"], [], ["moray", "minnow"]], num_players=3, open_game=True
    )
    text = game.render_ansi(st)
    assert "player_1 shows: -" in text
    assert "player_2 shows: moray\n" in text + "\n"
    assert "minnow" not in text
    assert game.private_text(st, 1) == "your hand: none"
    assert game.private_text(st, 2) == (
        "your hand: moray, minnow (the newest, minnow, is secret; the others are shown)"
    )


def test_otp27_otp32_shark_as_extra_placement_still_costs_every_opponent_two() -> None:
    """OTP-27 / OTP-32 / OTP-49: effects also fire for extra placements. A shark played as
    the first of a butterflyfish's two extra placements scores 0 for the mover (e7: no algae,
    no coral) and every opponent loses 2 at once, while one extra placement remains."""
    st = make(P1, [["butterflyfish", "shark", "starfish"]], num_players=3, scores=[5, 5, 5])
    assert play(st, "place butterflyfish c7") == 1
    assert st.extra == 2
    assert play(st, "place shark e7") == 0
    assert st.scores == [6, 3, 3]
    assert st.current_player() == 0 and st.extra == 1 and "stop" in legal(st)


def test_otp16_otp27_shark_lowers_an_already_negative_score() -> None:
    """OTP-16 / OTP-27: scores have no floor, so a shark costs an opponent 2 even when that
    opponent is already below zero (-1 -> -3); the mover scores 0 on e7."""
    st = make(P1, [["shark", "bubbles", "bubbles"]], scores=[4, -1])
    assert play(st, "place shark e7") == 0
    assert st.scores == [4, -3]


def test_otp23_otp37_pending_skip_of_an_empty_hand_is_not_a_pass() -> None:
    """§3 / OTP-23 / OTP-37: a pending skip is consumed before the automatic pass, and a
    skipped turn is not a pass, even for a player with an empty hand. Two jellyfish in one
    turn give player_1 (no tiles, pile empty after the refill) two skips; one is used at
    once. When player_0 then passes, player_1's second skip is consumed and player_1 has not
    passed since the last placement, so the game goes on with player_0 to move. Only the
    next pass ends it (player_1 then passes automatically)."""
    st = make(P1, [["butterflyfish", "jellyfish", "jellyfish"], []], pile=["starfish"])
    assert play(st, "place butterflyfish c7") == 1
    assert play(st, "place jellyfish c6") == 2  # 1 + 1 algae
    assert play(st, "place jellyfish e7") == 1  # E used up: refill starfish, skip 1 consumed
    assert st.current_player() == 0 and st.skips == [0, 1] and hand(st, 0) == ["starfish"]
    play(st, "pass")
    assert not st.is_terminal()
    assert st.current_player() == 0 and st.skips == [0, 0] and st.passed == [True, False]
    play(st, "pass")
    assert st.is_terminal() and st.final_scores() == [4 - 1, 0]


def test_otp41_otp48_playing_a_duplicate_uses_the_visible_copy() -> None:
    """OTP-48 lets ``place <kind>`` use any copy; the doc page fixes it as the oldest, so a
    visible copy goes before the secret (newest, OTP-41) one. player_0 holds [starfish,
    bubbles, starfish], the second starfish secret, and the pile is empty (no refill): after
    ``place starfish ...`` the bubbles stay visible and the starfish stays the secret tile
    (taking the newest copy would turn the visible bubbles secret and show a starfish)."""
    game = OttoOctopusGame(open_game=True)
    st = make(
        P1, [["starfish", "bubbles", "starfish"], ["bubbles", "bubbles", "bubbles"]], open_game=True, pile=[]
    )
    assert "hand: starfish, bubbles, starfish" in game.render_ansi(st)
    move = next(m for m in sorted(legal(st)) if m.startswith("place starfish"))
    play(st, move)
    assert hand(st, 0) == ["bubbles", "starfish"]
    assert st.current_player() == 1
    assert game.render_ansi(st).endswith("player_0 shows: bubbles")
    assert game.private_text(st, 0) == (
        "your hand: bubbles, starfish (the newest, starfish, is secret; the others are shown)"
    )


def test_position_skips_are_bounded() -> None:
    """A huge pending-skip count was accepted and the engine then looped once per skip (from_dict
    of 10**7 skips took seconds in solo); each skip is a jellyfish's (OTP-23), never more than
    the tiles."""
    from envs.otto_octopus.game import OttoOctopusGame
    from envs.otto_octopus.rules import State

    for n in (1, 2):
        state = OttoOctopusGame(num_players=n).new_initial_state(np.random.default_rng(0))
        d = state.to_dict()
        d["position"]["skips"] = [61] * n
        with pytest.raises(ValueError, match=r"position\['skips'\] must hold ints in \[0, 60\]"):
            State.from_dict(d)
