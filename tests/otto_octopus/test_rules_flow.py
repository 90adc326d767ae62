"""Rule-ID scenario tests, turn flow and effects (OTP-18..49); placement and scoring: test_rules.py."""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_octopus.board import KIND_INDEX, KINDS
from envs.otto_octopus.encode import observe, parse_action
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import EXTRA, MAIN
from tests.otto_octopus.helpers import P1, P2, hand, is_legal, legal, make, play


def test_otp18_refill_and_next_player() -> None:
    """OTP-18: place, score, refill to 3 from the pile, then the next seat."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]], num_players=3, pile=["minnow", "moray"])
    play(st, "place starfish e7")
    assert hand(st, 0) == ["bubbles", "bubbles", "minnow"]
    assert st.current_player() == 1 and len(st.pile) == 1


def test_otp19_pass_is_always_legal_and_draws_nothing() -> None:
    """OTP-19: pass in MAIN draws nothing; a seat with no legal placement passes automatically."""
    st = make(P1, [["starfish"], ["end"]], pile=["minnow"])
    assert "pass" in legal(st)
    play(st, "pass")
    # p1 holds only an end; the arm d6 has a tip, so p1 can play
    assert st.current_player() == 1 and hand(st, 0) == ["starfish"]
    st = make([], [["starfish"], ["end"]], pile=["minnow"])  # nobody can place: end at once
    assert st.is_terminal()


def test_otp20_hands_are_secret() -> None:
    """OTP-20: another seat's hand and the pile order never change my observation."""
    a = make(P1, [["starfish", "bubbles", "end"], ["minnow", "moray", "shark"]], pile=["straight", "end"])
    b = make(P1, [["starfish", "bubbles", "end"], ["straight", "end", "bubbles"]], pile=["minnow", "moray"])
    c = make(P1, [["starfish", "bubbles", "end"], ["moray", "shark", "straight"]], pile=["end", "minnow"])
    assert not np.array_equal(observe(a, 0), observe(b, 0))  # unseen kinds differ
    assert np.array_equal(observe(a, 0), observe(c, 0))


def test_otp21_clownfish_draws_and_plays_again() -> None:
    """OTP-21: draw 1 then one extra placement."""
    st = make(P1, [["clownfish", "bubbles", "bubbles"]], pile=["starfish", "minnow"])
    play(st, "place clownfish e7")
    assert hand(st, 0) == ["bubbles", "bubbles", "starfish"] and st.extra == 1 and st.current_player() == 0
    play(st, "place starfish f7")
    assert st.current_player() == 1


def test_otp22_butterflyfish_two_more_or_stop() -> None:
    """OTP-22: up to two more placements; stop ends the turn and refills."""
    st = make(P1, [["butterflyfish", "starfish", "bubbles"]], pile=["minnow"] * 5)
    play(st, "place butterflyfish e7")
    assert st.extra == 2 and "stop" in legal(st) and "pass" not in legal(st)
    play(st, "stop")
    assert st.current_player() == 1 and len(st.hands[0]) == 3


def test_otp23_jellyfish_skips_accumulate() -> None:
    """OTP-23: two jellyfish = two skipped turns; with 2 players the mover plays again."""
    st = make(P1, [["butterflyfish", "jellyfish", "jellyfish"]], pile=["bubbles"] * 9)
    play(st, "place butterflyfish e7")
    play(st, "place jellyfish e8")
    play(st, "place jellyfish f7")
    assert st.current_player() == 0 and st.skips == [0, 1]  # one skip used, one pending
    play(st, "pass")
    assert st.current_player() == 0 and st.skips == [0, 0] and not st.is_terminal()
    st = make(P1, [["jellyfish", "bubbles", "bubbles"]], num_players=3)
    play(st, "place jellyfish e7")
    assert st.current_player() == 2 and st.skips == [0, 0, 0]


def test_otp24_pufferfish_needs_two_hands() -> None:
    """OTP-24: no swap when every opponent's hand is empty."""
    st = make(P1, [["pufferfish", "straight", "end"], []], pile=[])
    play(st, "place pufferfish e7")
    assert st.phase != 2


def test_otp25_starfish_three_points_only() -> None:
    """OTP-25: the starfish scores 3 and has no effect."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    assert play(st, "place starfish e7") == 3 and st.current_player() == 1 and st.skips == [0, 0]


def test_otp26_seahorse_empty_pile_skips_return() -> None:
    """OTP-26: with the pile empty after the first draw there is no return."""
    st = make(P1, [["seahorse", "bubbles", "bubbles"]], pile=["starfish"])
    play(st, "place seahorse e7")
    assert st.current_player() == 1 and hand(st, 0) == ["bubbles", "bubbles", "starfish"]


def test_otp27_shark_hits_every_opponent() -> None:
    """OTP-27: 0 points, every opponent loses 2."""
    st = make(P1, [["shark", "bubbles", "bubbles"]], num_players=4, scores=[1, 1, 1, 1])
    assert play(st, "place shark e7") == 0
    assert st.scores == [1, -1, -1, -1]


def test_otp28_otp29_moray_and_anglerfish_points() -> None:
    """OTP-28: moray 2; OTP-29: anglerfish 3 (perimeter)."""
    st = make(P2, [["moray", "anglerfish", "bubbles"]], num_players=1)
    assert play(st, "place moray e7") == 2
    assert not is_legal(st, "place anglerfish e8")  # next to the moray
    st = make(P2, [["anglerfish", "bubbles", "bubbles"]])
    assert play(st, "place anglerfish e8") == 3


def test_otp30_minnow_group_sizes() -> None:
    """OTP-30: group of 1 -> 1, 2 -> 3, 3 -> 6."""
    st = make(P1, [["minnow"] * 3], num_players=1)
    assert play(st, "place minnow e7") == 1
    assert play(st, "place minnow f7") == 3
    assert play(st, "place minnow g7") == 6 + 1  # g7 is algae


def test_otp31_bubbles_no_effect() -> None:
    """OTP-31: bubbles score 0 and do nothing."""
    st = make(P1, [["bubbles", "bubbles", "bubbles"]])
    assert play(st, "place bubbles e7") == 0 and st.current_player() == 1


def test_otp32_effects_fire_in_extra_placements() -> None:
    """OTP-32: a clownfish placed as an extra placement draws and adds one more."""
    st = make(P1, [["butterflyfish", "clownfish", "bubbles"]], pile=["starfish"] * 3)
    play(st, "place butterflyfish e7")
    play(st, "place clownfish f7")
    assert st.extra == 2 and "starfish" in hand(st, 0)


def test_otp33_extra_ends_without_legal_placement() -> None:
    """OTP-33: E > 0 but no legal placement: the turn ends with the refill."""
    st = make(P1, [["butterflyfish", "end-shell"]], pile=["bubbles"] * 4)
    # after the butterflyfish at d8? no: d8 is the tip; play it elsewhere, then only the end remains
    play(st, "place butterflyfish e7")
    assert st.phase == 1  # the end fits the tip d8
    st = make(P1, [["butterflyfish"]], pile=["bubbles"] * 4)
    play(st, "place butterflyfish e7")
    assert st.current_player() == 1 and len(st.hands[0]) == 3


def test_otp34_no_refill_between_extra_placements() -> None:
    """OTP-34: extra placements follow every rule; the hand refills only at the end of the turn."""
    st = make(P1, [["butterflyfish", "turn-out", "anglerfish"]], pile=["bubbles"] * 4)
    play(st, "place butterflyfish e7")
    assert len(st.hands[0]) == 2
    assert not is_legal(st, "place anglerfish f7")  # perimeter rule still applies
    play(st, "place turn-out d8")
    assert len(st.hands[0]) == 1 and st.extra == 1


def test_otp35_otp36_mulligan() -> None:
    """OTP-35, OTP-36: an unplayable opening hand is replaced until it holds an arm tile."""
    game = OttoOctopusGame(num_players=4)
    for seed in range(60):
        st = game.new_initial_state(np.random.default_rng(seed))
        assert all(any(k <= 2 for k in h) and len(h) == 3 for h in st.hands)


def test_otp37_skips_are_not_passes() -> None:
    """OTP-37: the game ends when everyone passed since the last placement; skips do not count."""
    st = make(P1, [["jellyfish", "bubbles"], ["bubbles"]], pile=[])
    play(st, "place jellyfish e7")  # p1 skipped, p0 again
    assert st.current_player() == 0
    play(st, "pass")
    assert not st.is_terminal() and st.current_player() == 1
    play(st, "pass")
    assert st.is_terminal()


def test_otp38_hand_penalty_and_shared_win() -> None:
    """OTP-38: -1 per tile in hand; tied top scores share the win."""
    st = make(
        P1,
        [["bubbles"], ["bubbles"], ["starfish", "end"]],
        num_players=3,
        pile=[],
        scores=[5, 5, 1],
        passed=[True, True, False],
        to_move=2,
    )
    play(st, "pass")
    assert st.final_scores() == [4, 4, -1]
    assert list(st.returns()) == [0.25, 0.25, -0.5]


def test_otp39_solo_effects() -> None:
    """OTP-39: solo ignores clownfish, butterflyfish, jellyfish, pufferfish (they still score);
    the seahorse works."""
    st = make(P1, [["butterflyfish", "pufferfish", "seahorse"]], num_players=1, pile=["bubbles"] * 5)
    assert play(st, "place butterflyfish e7") == 1
    assert st.extra == 0 and st.phase == 0
    # the pufferfish has no opponent to swap with in solo: no SWAP phase (OTP-24 too)
    assert play(st, "place pufferfish f7") == 1
    assert st.phase == 0
    play(st, "place seahorse e8")
    assert legal(st) == {"return bubbles"}
    # clownfish: no draw and no extra placement; only the end-of-turn refill (T15)
    st = make(
        P1, [["clownfish", "jellyfish", "bubbles"]], num_players=1, pile=["starfish", "straight", "minnow"]
    )
    assert play(st, "place clownfish c7") == 1
    assert (st.phase, st.extra, st.current_player()) == (MAIN, 0, 0)
    assert hand(st, 0) == ["bubbles", "jellyfish", "starfish"] and len(st.pile) == 2
    # jellyfish: no skip. A skip of the only seat would be used up at once, so play it in a
    # forced EXTRA phase (E = 2, not reachable in solo, so no position may say it: set by hand)
    # where a pending skip stays visible
    st = make(P1, [["jellyfish", "bubbles", "bubbles"]], num_players=1, pile=["starfish"])
    st.phase, st.extra, st._mask = EXTRA, 2, None
    assert play(st, "place jellyfish c6") == 1 + 1  # algae
    assert st.skips == [0] and (st.phase, st.extra) == (EXTRA, 1)


def test_otp40_solo_final_score() -> None:
    """OTP-40: one pass ends the solo game; final = score - hand - pile."""
    st = make(P1, [["starfish", "bubbles"]], num_players=1, pile=["bubbles"] * 4, scores=[10])
    play(st, "pass")
    assert st.is_terminal() and st.final_scores() == [10 - 2 - 4]


def test_otp41_open_game_visibility() -> None:
    """OTP-41: all but the newest tile of each hand are visible to the others."""
    a = make(P1, [["bubbles"] * 3, ["starfish", "moray", "shark"]], open_game=True)
    b = make(P1, [["bubbles"] * 3, ["starfish", "moray", "end"]], open_game=True)
    c = make(P1, [["bubbles"] * 3, ["starfish", "end", "shark"]], open_game=True)
    o0 = observe(a, 0)
    from envs.otto_octopus.encode import V_VISIBLE

    assert o0[V_VISIBLE + KIND_INDEX["starfish"]] > 0 and o0[V_VISIBLE + KIND_INDEX["moray"]] > 0
    assert o0[V_VISIBLE + KIND_INDEX["shark"]] == 0
    assert not np.array_equal(observe(c, 0), o0)
    assert np.array_equal(observe(b, 0)[: V_VISIBLE + 16], o0[: V_VISIBLE + 16])


def test_otp41_newest_tile_left_is_secret_after_the_secret_one_is_placed() -> None:
    """OTP-41 (doc page, "Open game"): the secret tile is always the newest one held, so
    when the butterflyfish (newest, secret) is placed before its extra placement, the moray,
    seen a moment ago, becomes the secret tile; the starfish stays in view."""
    from envs.otto_octopus.encode import V_VISIBLE

    st = make(P1, [["starfish", "moray", "butterflyfish"], ["bubbles"] * 3], open_game=True)
    seen = observe(st, 1)
    assert seen[V_VISIBLE + KIND_INDEX["moray"]] > 0 and seen[V_VISIBLE + KIND_INDEX["butterflyfish"]] == 0
    play(st, "place butterflyfish c7")
    assert st.current_player() == 0  # the extra placement
    seen = observe(st, 1)
    assert seen[V_VISIBLE + KIND_INDEX["starfish"]] > 0
    assert seen[V_VISIBLE + KIND_INDEX["moray"]] == 0


def test_otp42_simplified() -> None:
    """OTP-42: no effects, no moray or anglerfish limits; points and minnow shoals stay."""
    st = make(
        [*P1, "moray c7"], [["anglerfish", "shark", "clownfish"]], simplified=True, pile=["bubbles"] * 5
    )
    assert is_legal(st, "place anglerfish c6") and is_legal(st, "place anglerfish e7")
    assert play(st, "place shark e7") == 0 and st.scores == [0, 0]
    st = make(P1, [["clownfish", "minnow", "minnow"], ["minnow"]], simplified=True)
    assert play(st, "place clownfish e7") == 1 and st.current_player() == 1


def test_otp43_no_free_play_variant() -> None:
    """OTP-43: "place as you like" is not an environment: no such parameter exists."""
    with pytest.raises(ValueError, match="unknown parameter"):
        OttoOctopusGame(free_play=True)


def test_otp44_illegal_action() -> None:
    """OTP-44: the engine raises; env() ends the episode with -1 to the mover."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    with pytest.raises(ValueError, match="illegal"):
        st.apply(parse_action("place starfish a1"))
    from envs.otto_octopus_v0 import env

    e = env()
    e.reset(seed=1)
    mover = e.agent_selection
    mask = e.observe(mover)["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values()) or all(e.truncations.values())
    assert e._cumulative_rewards[mover] == -1
    assert all(v == 0 for a, v in e._cumulative_rewards.items() if a != mover)


def test_otp45_seeded_reset_is_reproducible() -> None:
    """OTP-45: all chance from the seeded generator: same seed, same game."""
    game = OttoOctopusGame(num_players=3)
    runs = []
    for _ in range(2):
        st = game.new_initial_state(np.random.default_rng(7))
        rng = np.random.default_rng(0)
        while not st.is_terminal():
            legal_a = np.flatnonzero(st.legal_mask())
            st.apply(int(legal_a[rng.integers(legal_a.size)]))
        runs.append(st.snapshot())
    assert runs[0] == runs[1]


def test_otp46_tiles_never_move() -> None:
    """OTP-46: placed tiles stay where they are for the rest of the game."""
    game = OttoOctopusGame()
    st = game.new_initial_state(np.random.default_rng(5))
    rng = np.random.default_rng(5)
    seen: dict[int, int] = {}
    while not st.is_terminal():
        for sq, k in seen.items():
            assert st.ocean.tiles[sq] == k
        seen = {sq: k for sq, k in enumerate(st.ocean.tiles) if k >= 0}
        legal_a = np.flatnonzero(st.legal_mask())
        st.apply(int(legal_a[rng.integers(legal_a.size)]))


def test_otp47_otp48_empty_pile_and_hand_limit() -> None:
    """OTP-47: with the pile empty play goes on; OTP-48: hands never exceed 3, copies are alike."""
    st = make(P1, [["starfish", "starfish", "bubbles"]], pile=[])
    assert legal(st) >= {"place starfish e7"}
    play(st, "place starfish e7")
    assert hand(st, 0) == ["bubbles", "starfish"]
    game = OttoOctopusGame(num_players=4)
    for seed in range(10):
        st = game.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while not st.is_terminal():
            assert all(len(h) <= 3 for h in st.hands)
            legal_a = np.flatnonzero(st.legal_mask())
            st.apply(int(legal_a[rng.integers(legal_a.size)]))


def test_otp49_effect_order() -> None:
    """OTP-49: score first (shark -2 included), then the effect, then extras, then the refill."""
    st = make(P1, [["clownfish", "shark", "bubbles"]], pile=["starfish", "minnow", "minnow"])
    play(st, "place clownfish e7")
    assert hand(st, 0) == ["bubbles", "shark", "starfish"]  # drawn before the extra placement
    play(st, "place shark f7")
    assert st.scores == [1, -2] and hand(st, 0) == ["bubbles", "minnow", "starfish"]


def test_kind_names_match_spec() -> None:
    """§1.3 kind indices (OTP-11 table) and the 60-tile mix."""
    assert KINDS[0] == "straight" and KINDS[15] == "bubbles" and len(KINDS) == 16
