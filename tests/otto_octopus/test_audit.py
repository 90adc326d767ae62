"""Audit of the engine against the spec, rule by rule: edge cases beyond §9.

Each test cites the rule IDs it checks. Boards use the §9 symbols.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_octopus.encode import ACTION_STRINGS, parse_action
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus_v0 import env
from tests.otto_octopus.helpers import P1, P2, hand, is_legal, legal, make, play


# ------------------------------------------------------------------ §8 notation
def test_string_to_action_accepts_every_canonical_string() -> None:
    """OTP-44, §8: string_to_action maps every canonical string to its index, legal or not,
    so an illegal §9 action can be stepped (and ends the episode with -1)."""
    st = make(P1, [["starfish", "bubbles", "end"]])
    for a in range(len(ACTION_STRINGS)):
        assert st.string_to_action(ACTION_STRINGS[a]) == a
    assert st.string_to_action("  PLACE  Starfish   A1 ") == parse_action("place starfish a1")
    assert not st.legal_mask()[st.string_to_action("place starfish a1")]
    e = env()
    e.reset(seed=0, options={"position": {"placements": P1, "hands": [["straight", "bubbles", "end"], []]}})
    a = e.unwrapped.string_to_action("place straight d8")  # C1: the tip would leave the board
    e.step(a)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(e.terminations.values())


# ------------------------------------------------------------------ OTP-07 C1-C3
# f5 (heading E) has the exits g5 and f6 (f4 is a start square). With g5 filled and e6
# started, f6 is its last usable exit:
#       d  e  f  g  h
#   7   .  .  .  .  #
#   6   ^  S  .  .  .       e6 S (tip e7)
#   5   OO OO >  bb .       f5 unstarted, g5 bubbles
#   4   OO OO S  S  .       arm f4: f4 S, g4 S -> tip h4
LAST_EXIT = ["straight f4", "straight g4", "bubbles g5", "straight e6"]


def test_last_free_exit_of_an_unstarted_arm_is_protected() -> None:
    """OTP-07 C3 / OTP-08: nothing may take an unstarted arm's last usable exit (f6 for f5):
    neither a fish, nor bubbles, nor another arm's new tip."""
    st = make(LAST_EXIT, [["turn-in", "starfish", "bubbles"]])
    assert not is_legal(st, "place starfish f6")
    assert not is_legal(st, "place bubbles f6")
    assert is_legal(st, "place starfish g6") and is_legal(st, "place bubbles h5")
    # before e6 started, a turn-in on e6 would aim at f6 (right turn from N)
    st = make(LAST_EXIT[:3], [["turn-in", "straight", "bubbles"]])
    assert not is_legal(st, "place turn-in e6")
    assert is_legal(st, "place straight e6")
    # with g5 still free, f5 keeps two exits and the turn-in is fine
    st = make(LAST_EXIT[:2], [["turn-in", "straight", "bubbles"]])
    assert is_legal(st, "place turn-in e6")


def test_arm_turning_back_into_a_start_square() -> None:
    """OTP-07 C1: a tip may not be an arm start square (d6 N, d7 turn-in -> E, e7 turn-in -> S
    would aim at e6)."""
    st = make(["straight d6", "turn-in d7"], [["turn-in", "turn-out", "straight"]])
    assert not is_legal(st, "place turn-in e7")
    assert is_legal(st, "place turn-out e7") and is_legal(st, "place straight e7")


def test_end_needs_the_tip_of_a_started_arm() -> None:
    """OTP-06: an end never goes on a start square or beside an arm, only on a tip."""
    st = make(P1, [["end", "end-shell", "bubbles"]])
    ends = {s for s in legal(st) if s.startswith("place end")}
    assert ends == {"place end d8", "place end-shell d8"}


# ------------------------------------------------------------------ scoring
# P2 + straight c8, turn-out b8 (W -> S): tip b7 (algae); a8 (coral) is free and touches b8.
CORNER = [*P2, "straight c8", "turn-out b8"]


def test_coral_doubles_fish_but_not_the_shark_penalty() -> None:
    """OTP-14/15/27: starfish and anglerfish on coral score 6; a shark on coral scores 0 and
    every opponent still loses exactly 2 (3 players)."""
    for kind, pts in (("starfish", 6), ("anglerfish", 6), ("moray", 4), ("bubbles", 0)):
        st = make(CORNER, [[kind, "bubbles", "bubbles"]])
        assert play(st, f"place {kind} a8") == pts
    st = make(CORNER, [["shark", "bubbles", "bubbles"]], num_players=3, scores=[1, 1, 1])
    assert play(st, "place shark a8") == 0
    assert st.scores == [1, -1, -1]


def test_end_on_algae_and_shell() -> None:
    """OTP-12/13/15: an end on algae scores 1 + arm tiles, then +1; a shell doubles first."""
    st = make(CORNER, [["end", "end-shell", "bubbles"]])
    assert play(st, "place end b7") == 1 + 5 + 1
    st = make(CORNER, [["end-shell", "end", "bubbles"]])
    assert play(st, "place end-shell b7") == (1 + 5) * 2 + 1
    assert st.ocean.arm_state[0] == 2  # finished


def test_minnow_pair_on_coral() -> None:
    """OTP-30/14: a minnow on coral scores 1 x 2; the one joining it scores 3."""
    st = make(CORNER, [["minnow", "minnow", "bubbles"]], num_players=1)
    assert play(st, "place minnow a8") == 2
    assert play(st, "place minnow a7") == 3


def test_shark_penalty_in_solo_and_simplified() -> None:
    """OTP-39: the solo shark hurts no one; OTP-42: the simplified shark has no penalty; the
    shark on algae still scores the +1 (OTP-13)."""
    st = make(P1, [["shark", "bubbles", "bubbles"]], num_players=1, scores=[5])
    assert play(st, "place shark c7") == 0 and st.scores == [5]
    st = make(P1, [["shark", "bubbles", "bubbles"]], simplified=True, scores=[5, 5])
    assert play(st, "place shark c6") == 1
    assert st.scores == [6, 5]


# ------------------------------------------------------------------ fish rules
def test_moray_blocks_every_fish_but_not_bubbles_or_arms() -> None:
    """OTP-10/28: after a moray on c7, no fish (moray and minnow included) next to it; bubbles
    and arm tiles are fine; the simplified game drops the limit (OTP-42)."""
    st = make([*P1, "moray c7"], [["moray", "starfish", "bubbles"], ["straight"] * 3])
    assert not is_legal(st, "place moray b7") and not is_legal(st, "place starfish c6")
    assert not is_legal(st, "place moray c8") and is_legal(st, "place bubbles c8")
    assert is_legal(st, "place starfish e7")
    st = make([*P1, "moray c7"], [["moray", "starfish", "bubbles"]], simplified=True)
    assert is_legal(st, "place moray b7") and is_legal(st, "place starfish c6")


def test_anglerfish_anywhere_in_the_simplified_game() -> None:
    """OTP-09 applies in solo, OTP-42 drops it in the simplified game."""
    st = make(P2, [["anglerfish", "bubbles", "bubbles"]], num_players=1)
    assert not is_legal(st, "place anglerfish e7") and is_legal(st, "place anglerfish e8")
    st = make(P2, [["anglerfish", "bubbles", "bubbles"]], simplified=True)
    assert is_legal(st, "place anglerfish e7")


def test_jellyfish_three_players_and_skip_is_no_pass() -> None:
    """OTP-23/37: the next seat is skipped; a skipped turn does not count as a pass, so after
    p2 and p0 pass the game goes on with p1."""
    st = make(P1, [["jellyfish", "bubbles", "bubbles"]], num_players=3)
    play(st, "place jellyfish c7")
    assert st.current_player() == 2 and st.skips == [0, 0, 0]
    play(st, "pass")
    play(st, "pass")
    assert not st.is_terminal() and st.current_player() == 1
    play(st, "pass")
    assert st.is_terminal()


def test_two_jellyfish_in_one_turn_give_two_skips() -> None:
    """OTP-22/23/32/33: butterflyfish then two jellyfish as extra placements; with 2 players
    p0 plays twice more before p1."""
    st = make(P1, [["butterflyfish", "jellyfish", "jellyfish"]])
    play(st, "place butterflyfish c7")
    play(st, "place jellyfish e7")
    assert st.phase == 1 and st.extra == 1
    play(st, "place jellyfish c6")
    # E reached 0: the turn ended, p1's first skip was consumed at once
    assert st.current_player() == 0 and st.skips == [0, 1]
    play(st, "pass")
    assert st.current_player() == 0 and st.skips == [0, 0]


def test_clownfish_extra_placement_without_legal_placement_ends_the_turn() -> None:
    """OTP-21/33: the clownfish draws an anglerfish that fits nowhere: no EXTRA, the turn ends
    with the refill."""
    st = make(["straight d6"], [["clownfish"]], pile=["anglerfish"] + ["bubbles"] * 5)
    assert play(st, "place clownfish c6") == 2
    assert st.current_player() == 1 and st.phase == 0 and st.extra == 0
    assert hand(st, 0) == ["anglerfish", "bubbles", "bubbles"]


def test_pufferfish_without_opponent_tiles_does_nothing() -> None:
    """OTP-24: no opponent tile, no swap; p1 (empty hand) then passes automatically."""
    st = make(P1, [["pufferfish", "straight", "end"], []], pile=["minnow"] * 4)
    play(st, "place pufferfish c7")
    assert st.current_player() == 0 and st.passed == [False, True]
    assert hand(st, 0) == ["end", "minnow", "straight"]


def test_seahorse_with_one_tile_left_in_the_pile() -> None:
    """OTP-26: the pile is empty after the seahorse's draw: no RETURN, the turn ends."""
    st = make(P1, [["seahorse", "starfish", "end"]], pile=["minnow"])
    assert play(st, "place seahorse c7") == 2
    assert st.current_player() == 1 and hand(st, 0) == ["end", "minnow", "starfish"]
    assert st.pile == []


def test_solo_seahorse_applies_and_clownfish_draws_nothing() -> None:
    """OTP-39: in solo the seahorse acts (RETURN), the clownfish neither draws nor replays."""
    st = make(P1, [["seahorse", "clownfish", "bubbles"]], num_players=1, pile=["minnow", "straight"])
    play(st, "place seahorse c7")
    assert st.phase == 3 and legal(st) == {"return clownfish", "return bubbles", "return minnow"}
    play(st, "return bubbles")
    assert len(st.pile) == 1 and len(st.hands[0]) == 3 and st.phase == 0
    n_pile = len(st.pile)
    play(st, "place clownfish e7")
    assert st.phase == 0 and len(st.pile) == n_pile - 1  # only the end-of-turn refill drew


# ------------------------------------------------------------------ end, rewards
def test_three_player_tie_shares_the_win() -> None:
    """OTP-38, §5: final = score - hand; k winners get (n-k)/(k(n-1)), the rest -1/(n-1)."""
    st = make(P1, [["bubbles"], [], []], num_players=3, pile=[], scores=[6, 5, 3])
    play(st, "pass")
    assert st.is_terminal() and st.final_scores() == [5, 5, 3]
    assert list(st.returns()) == [0.25, 0.25, -0.5]
    st = make(P1, [[], [], [], []], num_players=4, pile=[], scores=[2, 2, 2, 2])
    assert st.is_terminal() and list(st.returns()) == [0.0] * 4


def test_truncation_pays_nothing() -> None:
    """§5: after max_steps decisions every agent is truncated with reward 0."""
    e = env(max_steps=1)
    e.reset(seed=4)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert all(e.truncations.values()) and set(e.rewards.values()) == {0.0}
    for info in e.infos.values():  # no winner in a cut-off game; the standing scores are kept
        assert info["winners"] == [] and len(info["final_scores"]) == 2


def test_a_game_ending_on_its_last_allowed_decision_is_not_truncated() -> None:
    """§5, OTP-37: a game that ends by its rules on its ``max_steps``-th decision ends normally
    (terminated, the real rewards); only a game still running is cut off."""
    position = {"placements": ["straight d6", "straight d7"], "pile": [], "scores": [5, 0]}
    e = env(num_players=2, max_steps=1)
    e.reset(seed=0, options={"position": {**position, "hands": [["starfish"], []]}})
    e.step(e.unwrapped.string_to_action("pass"))  # p1 holds nothing: the game is over
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    e = env(num_players=2, max_steps=1)
    e.reset(seed=0, options={"position": {**position, "hands": [["starfish"], ["bubbles"]]}})
    e.step(e.unwrapped.string_to_action("pass"))  # p1 could still play: cut off
    assert all(e.truncations.values()) and set(e.rewards.values()) == {0.0}


def test_opening_hand_always_playable_every_player_count() -> None:
    """OTP-35/36, T1 invariant: after reset every hand has a legal placement (an arm tile)."""
    for n in (1, 2, 3, 4):
        game = OttoOctopusGame(num_players=n)
        for seed in range(40):
            st = game.new_initial_state(np.random.default_rng(seed))
            for p in range(n):
                assert any(k <= 2 for k in st.hands[p]), (n, seed, p)
            assert len(st.pile) == 60 - 3 * n


# ------------------------------------------------------------------ open game
def test_open_game_shows_all_but_the_newest_tile() -> None:
    """OTP-41, §7: the others' visible tiles exclude their newest (secret) tile."""
    from envs.otto_octopus.encode import V_UNSEEN, V_VISIBLE

    st = make(P1, [["straight"], ["starfish", "moray", "minnow"]], open_game=True, pile=[])
    obs = OttoOctopusGame(open_game=True).observe(st, 0)
    vis = obs[V_VISIBLE : V_VISIBLE + 16]
    assert set(np.flatnonzero(vis)) == {9, 12}  # starfish, moray
    assert obs[V_UNSEEN + 14] > 0 and obs[V_UNSEEN + 9] == 0


# ------------------------------------------------------------------ position schema
def test_snapshot_round_trip_through_reset() -> None:
    """§8/§9: snapshot() fed back through reset(options={"position": ...}) gives the same
    position, observations and mask."""
    game = OttoOctopusGame(num_players=3, open_game=True)
    rng = np.random.default_rng(1)
    st = game.new_initial_state(np.random.default_rng(7))
    while not st.is_terminal():
        snap = st.snapshot()
        st2 = game.new_initial_state(np.random.default_rng(0), {"position": snap})
        assert st2.snapshot() == snap
        assert np.array_equal(st2.legal_mask(), st.legal_mask())
        for s in range(3):
            assert np.array_equal(game.observe(st2, s), game.observe(st, s))
        st.apply(int(rng.choice(st.legal_actions())))


def test_position_accepts_action_notation_and_agent_names() -> None:
    """§9 positions: a placement may be written as its action ('place straight d6'), and the
    seat to move as an agent name."""
    st = make(["place straight d6", "Place STRAIGHT d7"], [["end"], ["end"]], to_move="player_1")
    assert st.snapshot()["placements"] == P1 and st.current_player() == 1
    with pytest.raises(ValueError, match="to_move"):
        make(P1, [["end"], ["end"]], to_move="player_2")


def test_fast_placement_table_agrees_with_the_rule_by_rule_check() -> None:
    """OTP-01..10 (C1-C4): the incremental bit-set table behind the mask allows exactly the
    placements that the slow rule-by-rule check (Ocean.explain) allows, over random games."""
    from envs.otto_octopus.board import NUM_KINDS

    for params in ({}, {"simplified": True}, {"num_players": 4}):
        game = OttoOctopusGame(**params)
        fish_rules = not params.get("simplified", False)
        for seed in range(6):
            rng = np.random.default_rng(seed)
            st = game.new_initial_state(np.random.default_rng(seed))
            while not st.is_terminal():
                mask = np.zeros(1106, dtype=np.int8)
                st.ocean.fill_placements(mask, set(range(NUM_KINDS)), fish_rules)
                for a in range(1024):
                    ok = st.ocean.tiles[a & 63] == -1 and st.ocean.explain(a >> 6, a & 63, fish_rules) is None
                    assert bool(mask[a]) == ok, (params, seed, ACTION_STRINGS[a], st.snapshot())
                st.apply(int(rng.choice(st.legal_actions())))


def test_the_tile_hidden_in_the_open_game_is_the_newest_and_only_it_is_re_dealt() -> None:
    """OTP-41: in the open game each other hand's newest tile is its secret one (the others
    show); in the closed game the whole hand is hidden. A seat's re-deal of the hidden
    information (what its search samples) keeps the tiles it can see."""
    from envs.otto_octopus.encode import hidden_tiles

    hands = [["straight"], ["starfish", "moray", "minnow"]]
    st = make(P1, hands, open_game=True, pile=[])
    assert hidden_tiles(st, 0) == st.hands[1][-1:]  # the minnow, drawn last
    assert hidden_tiles(st, 1) == st.hands[0][-1:]
    closed = make(P1, hands, pile=[])
    assert hidden_tiles(closed, 0) == closed.hands[1]
    game = OttoOctopusGame(open_game=True)
    for k in range(5):
        world = game.resample_hidden(st, 0, np.random.default_rng(k))
        assert world.hands[1][:2] == st.hands[1][:2] and world.hands[0] == st.hands[0]


def test_the_turn_slots_are_zero_once_the_game_is_over() -> None:
    """The doc page: the phase one-hot, the seat to act and the extra placements read 0 once
    the game is over, for every seat (a finished game must not look mid-turn)."""
    from envs.otto_octopus.encode import V_EXTRA, V_TO_MOVE

    for n in (1, 2, 4):
        game = OttoOctopusGame(num_players=n)
        st = game.new_initial_state(np.random.default_rng(n))
        rng = np.random.default_rng(n)
        while not st.is_terminal():
            st.apply(int(rng.choice(st.legal_actions())))
        for seat in range(n):
            obs = game.observe(st, seat).ravel()
            assert not obs[V_EXTRA : V_TO_MOVE + 4].any(), (n, seat)
