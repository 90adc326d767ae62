"""Scenario tests closing gaps found by mutation testing of the Otto the Octopus engine.

Each test names the rule IDs of spec ``rules/otto_octopus.md`` it checks. Several of the
rules below were only reached by random playouts (seed-dependent) or by golden recordings;
these scenarios pin them down directly.
"""

from __future__ import annotations

import numpy as np
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
    stop, <= n-1 passes between placements), plus up to n-1 more passes for each of the two
    jellyfish skips (a skipped turn is no pass, OTP-23/37; next test), and max_steps cuts it.
    The declared upper bound on agent steps may not be below that."""
    bound = 60 * (n + 2) + n + 2 * (n - 1)
    assert OttoOctopusGame(num_players=n).max_game_length >= min(1000, bound)
    assert OttoOctopusGame(num_players=n, max_steps=25).max_game_length >= 25


def test_jellyfish_skips_let_a_player_pass_again_before_the_game_ends() -> None:
    """OTP-23/37: a skipped turn is neither a turn played nor a pass, so with two skips pending
    for player_1, player_0 passes three times in a row and the game goes on until player_1
    has passed too: 4 passes with no placement between, more than §5's n - 1 + n."""
    from tests.otto_octopus.helpers import P1

    game = OttoOctopusGame(num_players=2)
    pos = {"placements": P1, "hands": [["bubbles"] * 3] * 2, "skips": [0, 2], "to_move": 0}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    movers = []
    while not st.is_terminal():
        movers.append(st.current_player())
        st.apply(st.string_to_action("pass"))
    assert movers == [0, 0, 0, 1]


# ------------------------------------------------------------------ OTP-36 mulligan order
class _ScriptedShuffles:
    """Stands in for the deal's ``numpy.random.Generator``: the first ``permutation`` (the
    shuffle of the 60 tiles) returns ``first``; every later one reverses its input, a
    deterministic reorder that differs from the identity, so where the rejected tiles went
    can be told apart."""

    def __init__(self, first: list[int]) -> None:
        self.first: list[int] | None = first
        self.calls = 0

    def permutation(self, x: object) -> np.ndarray:
        self.calls += 1
        if self.first is not None:
            out, self.first = np.array(self.first), None
            return out
        return np.asarray(x)[::-1].copy()


def test_otp35_otp36_mulligan_draws_three_new_tiles_then_shuffles_the_rejects_back() -> None:
    """OTP-35 / OTP-36: mulligans run in seat order once every hand is dealt; an unplayable
    hand (no arm tile at the start) is replaced by the next 3 tiles of the pile, and only then
    are the 3 rejected tiles shuffled back in. Both seats' opening hands are unplayable here,
    so seat 1's replacement comes from the pile as seat 0's mulligan left it (rejects
    included, reshuffled). Golden recordings alone used to catch a swapped order."""
    from envs.otto_octopus.board import KIND_INDEX, TILE_MIX
    from envs.otto_octopus.position import new_game

    k = KIND_INDEX
    # the pile is popped from its end: seat 0 is dealt the last 3, seat 1 the 3 before
    top = [k["straight"], k["bubbles"], k["minnow"]]  # seat 0's replacement (popped in this order)
    deal = [k["starfish"], k["bubbles"], k["bubbles"], k["minnow"], k["moray"], k["shark"]]
    rest = [x for x in range(len(TILE_MIX)) for _ in range(TILE_MIX[x])]
    for x in deal + top:
        rest.remove(x)
    rest.sort(key=lambda x: x > 2)  # arm tiles at the start (bottom): on top once reversed
    arranged = rest + top[::-1] + deal[::-1]
    rng = _ScriptedShuffles(arranged)
    st = new_game(OttoOctopusGame(num_players=2).config, rng)  # type: ignore[arg-type]

    # the spec's procedure, step by step
    pile = list(arranged)
    hands: list[list[int]] = [[pile.pop() for _ in range(3)] for _ in range(2)]
    assert not any(x <= 2 for h in hands for x in h)  # both opening hands are unplayable
    for p in range(2):
        while not any(x <= 2 for x in hands[p]):
            rejected, hands[p] = hands[p], [pile.pop() for _ in range(3)]  # draw 3 new ones first
            pile = [*pile, *rejected][::-1]  # then shuffle the rejects back (the scripted reorder)
    assert st.hands == hands and st.pile == pile
    assert st.hands[0] == top and rng.calls == 3  # the deal, then one reshuffle per mulligan
    assert sorted(st.pile + [x for h in st.hands for x in h]) == sorted(arranged)


# ------------------------------------------------------------------ §7 plane 26, OTP-42
def test_otp10_otp42_moray_plane_marks_the_zone_only_under_the_fish_rules() -> None:
    """§7 plane 26 ("next to a moray"): after a moray on c7 it holds exactly the moray's
    side neighbours (OTP-02, OTP-10); in the simplified game, where the moray's placement
    limit is ignored (OTP-42), it stays all zero (the doc page's "all zero in the simplified
    game"). Only a golden recording used to catch a plane filled in the simplified game."""
    from envs.otto_octopus.board import NEIGHBOURS

    c7 = SQUARE_INDEX["c7"]
    for simplified in (False, True):
        st = make([*P1, "moray c7"], [["starfish"] * 3], simplified=simplified)
        game = OttoOctopusGame(simplified=simplified)
        for seat in (0, 1):
            plane = game.observe(st, seat)[26 * 64 : 27 * 64]
            expected = set() if simplified else set(NEIGHBOURS[c7])
            assert set(np.flatnonzero(plane)) == expected


def test_otp24_otp26_moves_as_the_other_seats_see_them() -> None:
    """OTP-24: only the two players of a pufferfish swap learn the tile given; OTP-26: only the
    returning player knows the tile a seahorse returns. ``public_action_string`` (what
    ``eightfold play`` prints of the other seats' moves) leaves those kinds out for everyone
    else; public moves are printed whole."""
    from envs.otto_octopus.encode import parse_action

    game = OttoOctopusGame(num_players=3)
    st = make(P1, [["starfish"] * 3, ["bubbles"] * 3, ["bubbles"] * 3], num_players=3)
    assert st.current_player() == 0
    swap, ret, place = (
        parse_action(t) for t in ("swap starfish player_1", "return starfish", "place starfish c7")
    )
    assert game.public_action_string(st, swap, 0) == "swap starfish player_1"  # the mover
    assert game.public_action_string(st, swap, 1) == "swap starfish player_1"  # the other party
    assert game.public_action_string(st, swap, 2) == "swap a tile with player_1"
    assert game.public_action_string(st, ret, 0) == "return starfish"
    assert game.public_action_string(st, ret, 2) == "return a tile to the pile"
    assert game.public_action_string(st, place, 2) == "place starfish c7"


def test_otp41_private_text_adds_only_what_the_picture_leaves_out() -> None:
    """OTP-41: in the open game every hand shows all but its newest tile. ``render_ansi`` lists
    the hand of the seat to act and the other seats' visible tiles, so ``private_text`` (what
    ``eightfold play`` prints below the picture for the human's seat) adds nothing for the seat
    to act; it printed the other seats' visible tiles a second time. For a seat not to act it
    gives the seat's own hand, naming the secret (newest) tile in the open game."""
    hands = [["starfish", "bubbles", "end"], ["straight", "turn-in", "minnow"]]
    st = make(P1, hands, open_game=True)
    assert st.current_player() == 0
    text = OttoOctopusGame(open_game=True).render_ansi(st)
    assert "player_0 to act (main); hand: starfish, bubbles, end" in text
    assert "player_1 shows: straight, turn-in" in text and "minnow" not in text
    assert OttoOctopusGame(open_game=True).private_text(st, 0) == ""
    assert OttoOctopusGame(open_game=True).private_text(st, 1) == (
        "your hand: straight, turn-in, minnow (the newest, minnow, is secret; the others are shown)"
    )
    closed = make(P1, hands)
    assert OttoOctopusGame().private_text(closed, 0) == ""
    assert OttoOctopusGame().private_text(closed, 1) == "your hand: straight, turn-in, minnow"
