"""Audit s14 of the engine against the spec: cases the earlier tests leave open.

Each test cites the rule IDs it checks. Offsets in the observation test are written out from
the doc page (``envs/otto_octopus/env.py``), not taken from ``encode.py``'s constants.
"""

from __future__ import annotations

import numpy as np

from envs.otto_octopus.board import KIND_INDEX, SQUARE_INDEX
from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P1, P2, is_legal, make, play

BOARD = 27 * 64  # the vector part of the observation starts here (doc page)


def _sq(*names: str) -> set[int]:
    return {SQUARE_INDEX[s] for s in names}


# ------------------------------------------------------------------ OTP-07 C3
# d6 (heading N) has the exits d7 and c6 (e6 is a start square); c5 (heading W) has b5 and c6
# (c4 is a start square). With b5 filled, c6 is c5's last usable exit; d6 still has d7.
#       a  b  c  d  e
#   8   C  #  #  .  ^       arm e6: e6 S, e7 S -> tip e8
#   7   #  a  .  .  S
#   6   #  .  a  ^  S
#   5   #  bb <  OO OO
#   4   ^  S  S  OO OO      arm c4: c4 S, b4 S -> tip a4
SHARED = ["straight c4", "straight b4", "bubbles b5", "straight e6", "straight e7"]


def test_otp07_c3_exit_shared_by_two_unstarted_arms() -> None:
    """OTP-07 C3 / OTP-08: c6 is an exit of both d6 and c5. While it is c5's last usable exit,
    neither a tile on c6 nor a d6 arm tile pointing at it (turn-out) is legal; c5 itself may
    take it. Filling d7 is legal under the binding test (d6 keeps c6), and afterwards c6 stays
    protected for both arms: neither may point at it, since the other would lose its last exit."""
    st = make(SHARED, [["turn-out", "turn-in", "bubbles"]])
    assert not is_legal(st, "place bubbles c6")
    assert not is_legal(st, "place turn-out d6")  # new tip c6: c5 keeps no exit
    assert is_legal(st, "place turn-in c5")  # c5 turns right (N) onto c6: d6 keeps d7
    assert is_legal(st, "place bubbles d7")  # d6 still has c6 (C1-C4 all hold)
    st = make([*SHARED, "bubbles d7"], [["turn-out", "turn-in", "bubbles"]])
    assert not is_legal(st, "place bubbles c6")
    assert not is_legal(st, "place turn-out d6") and not is_legal(st, "place turn-in c5")


# ------------------------------------------------------------------ OTP-41 open game
def _visible(obs: np.ndarray, slot: int) -> dict[int, float]:
    block = obs[BOARD + 16 * slot : BOARD + 16 * slot + 16] * 3
    return {int(k): round(float(block[k])) for k in np.flatnonzero(block)}


def test_otp41_otp21_clownfish_draw_becomes_the_secret_tile() -> None:
    """OTP-41 / OTP-21: the tile a clownfish draws is the newest, so it is the secret one and
    the previous secret tile turns visible to the others."""
    game = OttoOctopusGame(open_game=True)
    st = make(P1, [["clownfish", "straight", "starfish"]], open_game=True, pile=["minnow"] + ["bubbles"] * 5)
    assert _visible(game.observe(st, 1), 1) == {KIND_INDEX["clownfish"]: 1, KIND_INDEX["straight"]: 1}
    play(st, "place clownfish c7")
    assert st.current_player() == 0 and st.phase == 1  # EXTRA, E = 1
    assert _visible(game.observe(st, 1), 1) == {KIND_INDEX["straight"]: 1, KIND_INDEX["starfish"]: 1}


def test_otp41_otp24_swapped_tiles_are_the_new_secrets() -> None:
    """OTP-41 / OTP-24: after a pufferfish swap, the tile each of the two players received is
    their newest, hence secret: a third player sees neither, and still sees the rest."""
    game = OttoOctopusGame(num_players=3, open_game=True)
    hands = [["pufferfish", "end", "starfish"], ["moray", "minnow", "shark"], ["bubbles"] * 3]
    st = make(P1, hands, num_players=3, open_game=True, pile=[])
    play(st, "place pufferfish c7")
    play(st, "swap starfish player_1")  # pile empty: no refill, p1 to move
    assert st.current_player() == 1
    obs = game.observe(st, 2)  # slot 1 = p0, slot 2 = p1
    assert _visible(obs, 1) == {KIND_INDEX["end"]: 1}  # p0 holds [end, taken]: taken is secret
    seen_p1 = _visible(obs, 2)
    assert sum(seen_p1.values()) == 2 and KIND_INDEX["starfish"] not in seen_p1
    assert set(seen_p1) < {KIND_INDEX["moray"], KIND_INDEX["minnow"], KIND_INDEX["shark"]}


# ------------------------------------------------------------------ §7 / doc page
def test_s7_doc_page_observation_layout() -> None:
    """§7 as documented on the doc page, with OTP-23 (skips), OTP-33 (E), OTP-41 (visible
    tiles) and OTP-37 (passes): every block at its documented offset, egocentric seats."""
    pos_placements = [*P2, "moray c7"]  # arm d6: d6 S, d7 S, d8 To -> tip c8
    hands = [["straight", "seahorse"], ["starfish", "moray", "minnow"], ["end"]]
    st = make(
        pos_placements,
        hands,
        num_players=3,
        open_game=True,
        pile=["bubbles"] * 5,
        scores=[5, -150, 7],
        skips=[0, 0, 1],
        to_move=1,
        phase="extra",
        extra=2,
    )
    game = OttoOctopusGame(num_players=3, open_game=True)
    obs = game.observe(st, 2)  # slots: 0 = p2, 1 = p0, 2 = p1
    assert obs.shape == (1834,) and obs.dtype == np.float32
    planes = obs[:BOARD].reshape(27, 64)

    def on(p: int) -> set[int]:
        return {int(i) for i in np.flatnonzero(planes[p])}

    assert on(0) == _sq("d6", "d7") and on(2) == _sq("d8") and on(12) == _sq("c7")
    assert all(not on(k) for k in (1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15))
    assert on(16) == _sq("d4", "e4", "d5", "e5")
    assert on(17) == _sq("d6", "d7") and on(20) == _sq("d8") and not on(18) and not on(19)
    assert on(21) == _sq("c8")
    assert len(on(22)) == 28 and on(23) == _sq("a1", "h1", "a8", "h8")
    assert on(24) == _sq("b7", "c6", "f6", "g7", "b2", "c3", "f3", "g2")
    assert on(25) == _sq("e6", "f5", "f4", "e3", "d3", "c4", "c5")
    assert on(26) == _sq("b7", "d7", "c6", "c8")

    v = obs[BOARD:] * 1.0
    third = 1 / 3
    assert np.allclose(v[0:16], np.eye(16)[KIND_INDEX["end"]] * third)  # my hand
    assert _visible(obs, 1) == {KIND_INDEX["straight"]: 1}  # p0: seahorse is the secret
    assert _visible(obs, 2) == {KIND_INDEX["starfish"]: 1, KIND_INDEX["moray"]: 1}
    assert not v[48:64].any()
    assert np.allclose(v[64:68], [third, 2 * third, 1.0, 0.0])  # hand sizes
    assert np.isclose(v[68], 5 / 60)  # pile size
    unseen = np.zeros(16)
    unseen[KIND_INDEX["bubbles"]] = 5 / 7
    unseen[KIND_INDEX["seahorse"]] = 1 / 2
    unseen[KIND_INDEX["minnow"]] = 1 / 3
    assert np.allclose(v[69:85], unseen)
    assert np.allclose(v[85:89], [0.07, 0.05, -1.0, 0.0])  # scores / 100, clipped
    assert np.allclose(v[89:93], [0.5, 0, 0, 0])  # my one pending skip
    assert not v[93:97].any()  # nobody passed since the last placement
    assert np.isclose(v[97], 2 / 3)  # E = 2
    assert np.allclose(v[98:102], [0, 1, 0, 0])  # phase extra
    assert np.allclose(v[102:106], [0, 0, 1, 0])  # p1 (slot 2) acts
    # OTP-37: a pass shows in the passer's slot
    play(st, "stop")  # p1 ends the turn (refill from the pile), p2 is skipped, p0 acts
    assert st.current_player() == 0
    play(st, "pass")
    obs = game.observe(st, 2)
    assert np.allclose(obs[BOARD + 93 : BOARD + 97], [0, 1, 0, 0])
