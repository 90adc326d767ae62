"""Pins of the Otto encoder, positions, game wrapper and env adapter found by a mutation round.

Each test names the rule IDs of spec ``rules/otto_octopus.md`` (or its sections) it checks
and says what a failure would mean for a user.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_octopus.encode import action_to_string, parse_action
from envs.otto_octopus.game import OttoOctopusGame
from envs.otto_octopus.rules import State
from tests.otto_octopus.helpers import P1, P_D6, hand, legal, make, play

BOARD = 27 * 64  # §7 / doc page: 27 board planes, then the vector
HAND_AT = BOARD  # offsets 0-15: my hand, count of each kind / 3
KIND = {
    k: i
    for i, k in enumerate(
        (
            "straight", "turn-in", "turn-out", "end", "end-shell", "clownfish", "butterflyfish",
            "jellyfish", "pufferfish", "starfish", "seahorse", "shark", "moray", "anglerfish",
            "minnow", "bubbles",
        )
    )
}  # fmt: skip


def test_otp48_s7_my_hand_block_counts_copies_of_a_kind() -> None:
    """OTP-48 / §7: a hand may hold several tiles of one kind, and the observation's hand block
    is the count of each kind / 3. A block that only flags presence would tell an agent
    holding two straights that it holds one."""
    game = OttoOctopusGame()
    st = make(P1, [["straight", "straight", "starfish"], ["bubbles", "bubbles", "bubbles"]])
    obs = game.observe(st, 0)
    mine = obs[HAND_AT : HAND_AT + 16]
    expected = np.zeros(16, dtype=np.float32)
    expected[KIND["straight"]] = 2 / 3
    expected[KIND["starfish"]] = 1 / 3
    assert np.allclose(mine, expected)
    other = game.observe(st, 1)[HAND_AT : HAND_AT + 16]
    assert np.isclose(other[KIND["bubbles"]], 1.0) and np.count_nonzero(other) == 1


def test_otp33_loaded_extra_phase_without_a_legal_placement_ends_the_turn() -> None:
    """OTP-33 / §3: while E > 0 *and a legal placement exists* the player is in EXTRA; with no
    legal placement the turn ends at once with the refill to 3 (automatic steps never need a
    decision). A position loaded in phase 'extra' whose mover cannot place must therefore
    settle to the next seat, not leave the mover with only ``stop``."""
    # P-D6: the only empty squares next to a tile are d7 (tip), c6 (algae) and e6 (start);
    # an anglerfish goes only on the perimeter (OTP-09), so player_0 cannot place it
    st = make(
        P_D6,
        [["anglerfish"], ["bubbles", "bubbles", "bubbles"]],
        pile=["starfish", "minnow", "bubbles"],
        phase="extra",
        extra=1,
    )
    assert st.current_player() == 1
    assert hand(st, 0) == ["anglerfish", "minnow", "starfish"]  # refilled to 3, top first
    assert "stop" not in legal(st) and "pass" in legal(st)
    assert st.snapshot()["phase"] == "main" and st.snapshot()["extra"] == 0


def test_otp33_position_extra_above_60_is_refused() -> None:
    """OTP-33 / position schema: extra placements left come from fish in hand and on the
    board, so ``extra`` is an int in [0, 60]; a larger value is a corrupt position and must
    raise ``ValueError`` naming the key rather than load."""
    game = OttoOctopusGame()
    pos = {"placements": P1, "hands": [["straight"], ["bubbles"]], "phase": "extra", "extra": 61}
    with pytest.raises(ValueError, match="extra"):
        game.new_initial_state(np.random.default_rng(0), {"position": pos})
    pos["extra"] = 60
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert st.snapshot()["extra"] == 60


def test_otp38_otp40_infos_final_scores_subtract_the_hand_and_solo_pile() -> None:
    """OTP-38 / OTP-40 / §5 (T14): ``infos['final_scores']`` is the running score minus the
    tiles in hand (solo: minus the pile too), while ``scores`` stays the running score. Final
    scores equal to running scores would crown the wrong player in T14."""
    game = OttoOctopusGame()
    st = make(P1, [["starfish", "end"], ["bubbles"]], pile=[], scores=[10, 9])
    play(st, "pass")
    play(st, "place bubbles e7")
    play(st, "pass")
    assert st.is_terminal()
    info = game.infos(st, 0)
    assert info["scores"] == [10, 9]
    assert info["final_scores"] == [8, 9] and info["winners"] == [1]
    solo = OttoOctopusGame(num_players=1)
    st = make(
        P1, [["jellyfish", "bubbles", "starfish"]], num_players=1, pile=["minnow", "bubbles"], scores=[3]
    )
    play(st, "pass")
    info = solo.infos(st, 0)
    assert info["scores"] == [3] and info["final_scores"] == [-2]  # T15: 3 - 3 - 2


def test_s5_solo_returns_lie_in_the_declared_reward_range() -> None:
    """§5 / OTP-40: the solo reward is final score / 100, and a good solo game can score
    over 100 points; the declared ``reward_range`` (read by MCTS to scale values) must hold
    it, while 2-4 player rewards stay in [-1, 1]."""
    solo = OttoOctopusGame(num_players=1)
    st = make(P1, [[]], num_players=1, pile=[], scores=[150], to_move=-1)
    lo, hi = solo.reward_range
    assert st.returns()[0] == pytest.approx(1.5) and lo <= 1.5 <= hi and lo == -1.0
    assert OttoOctopusGame().reward_range == (-1.0, 1.0)


def test_s7_otp30_cloned_state_does_not_share_the_board() -> None:
    """§7 / OTP-46 / OTP-30: a clone is an independent state (search bots play moves in
    clones); a placement in the clone must not show up in the original's observation planes
    nor in its board: a minnow the clone placed on c7 must not make the original's first
    minnow on c6 (algae) score as a pair (3 + 1 instead of 1 + 1)."""
    game = OttoOctopusGame()
    st = make(P1, [["minnow", "minnow", "bubbles"]])
    before = game.observe(st, 0).copy()
    twin = st.clone()
    assert play(twin, "place minnow c7") == 1
    assert np.array_equal(game.observe(st, 0), before)
    assert not np.array_equal(game.observe(twin, 0), before)
    assert play(st, "place minnow c6") == 2
    assert st.snapshot()["placements"] == [*P1, "minnow c6"]


def test_otp20_resampled_state_mask_follows_the_re_dealt_hand() -> None:
    """OTP-20 / §7: ``resample_hidden`` re-deals what the observer cannot see, including the
    hand of the seat to move; the resampled state's legal mask must be that of its new hand
    (as a fresh load of the same state computes it), never the cached mask of the old one."""
    game = OttoOctopusGame()
    st = make(
        P1,
        [["straight", "straight", "straight"], ["bubbles", "bubbles", "bubbles"]],
        pile=["starfish", "moray", "minnow", "shark", "jellyfish", "anglerfish"],
    )
    st.legal_mask()  # cache the mover's mask before resampling
    changed = 0
    for seed in range(8):
        re = game.resample_hidden(st, 1, np.random.default_rng(seed))
        fresh = State.from_dict(re.to_dict())
        assert np.array_equal(re.legal_mask(), fresh.legal_mask())
        changed += sorted(re.hands[0]) != sorted(st.hands[0])
    assert changed  # the mover's hand really was re-dealt


def test_otp41_s7_visible_block_counts_copies_of_a_kind() -> None:
    """OTP-41 / OTP-48 / §7: in the open game the other hands' visible tiles (all but the
    newest) are observed as a count per kind / 3; two visible starfish must read 2/3, not 1/3,
    and the newest (secret) tile stays out of the block."""
    game = OttoOctopusGame(open_game=True)
    st = make(P1, [["straight", "bubbles", "bubbles"], ["starfish", "starfish", "moray"]], open_game=True)
    visible = game.observe(st, 0)[BOARD + 16 : BOARD + 32]  # slot 1 = player_1
    expected = np.zeros(16, dtype=np.float32)
    expected[KIND["starfish"]] = 2 / 3
    assert np.allclose(visible, expected)


def test_s5_infos_name_no_final_scores_or_winners_while_the_game_runs() -> None:
    """§5 / OTP-38: ``final_scores`` and ``winners`` are results of a finished game; while it
    runs ``infos`` holds only the running ``scores``, so no agent reads a winner early."""
    game = OttoOctopusGame()
    st = make(P1, [["starfish", "bubbles", "bubbles"]], scores=[4, 1])
    assert not st.is_terminal()
    for seat in (0, 1):
        assert game.infos(st, seat) == {"scores": [4, 1]}


@pytest.mark.parametrize("max_steps", [1, 25, 1000])
def test_s5_max_game_length_is_capped_by_max_steps(max_steps: int) -> None:
    """§5 / §6: ``max_steps`` truncates the game after that many decisions, so the declared
    ``max_game_length`` (OpenSpiel's bound) is min(max_steps, the rules' bound of about
    60 * (n + 2) + n decisions)."""
    for n in (1, 2, 3, 4):
        length = OttoOctopusGame(num_players=n, max_steps=max_steps).max_game_length
        assert length == min(max_steps, 60 * (n + 2) + n + 2 * (n - 1))


def test_s8_action_to_string_names_no_kind_for_a_bool() -> None:
    """§8: ``action_to_string`` gives the canonical string of an *index* 0..1105 (numpy ints
    included); a bool is no index, and reading ``True`` as ``place straight b1`` would hide a
    caller's bug, so it gets the out-of-range form."""
    assert action_to_string(np.int64(1024)) == "pass"  # type: ignore[arg-type]
    assert action_to_string(True) == "illegal True"
    assert action_to_string(False) == "illegal False"
    assert OttoOctopusGame().action_to_string(True) == "illegal True"


def test_otp45_resampled_state_draws_its_own_future_chance() -> None:
    """OTP-45 / OTP-24 / OTP-26 / §7: the pufferfish pick and the seahorse insertion come from
    the state's generator, which no player observes. A resampled state must get a generator
    of its own (from the resampling ``rng``), not a copy of the real one, or a search bot
    would foresee the real swap and return outcomes."""
    game = OttoOctopusGame()
    st = make(P1, [["pufferfish", "straight", "end"]], pile=["minnow"] * 6)
    real = st.to_dict()["rng"]
    seen = []
    for seed in (1, 2):
        re = game.resample_hidden(st, 0, np.random.default_rng(seed))
        seen.append(re.to_dict()["rng"])
        assert seen[-1] != real
    assert seen[0] != seen[1]
    assert game.resample_hidden(st, 0, np.random.default_rng(1)).to_dict()["rng"] == seen[0]


def test_position_with_more_hands_than_seats_is_refused() -> None:
    """OTP-20 / position schema: ``hands`` holds exactly one hand per seat. A third hand in a
    2-player position is a mistake (the wrong player count), and silently dropping it would
    start another game than the one described: ``ValueError`` naming ``hands``."""
    game = OttoOctopusGame()
    pos = {"placements": P1, "hands": [["straight"], ["bubbles"], ["starfish"]]}
    with pytest.raises(ValueError, match="hands"):
        game.new_initial_state(np.random.default_rng(0), {"position": pos})


def test_otp45_default_position_pile_is_shuffled_by_the_seed() -> None:
    """OTP-45 / §2: a position without ``pile`` gets the rest of the 60-tile mix face down in
    random order, drawn from the reset seed: different seeds give different orders, the same
    seed the same order, and the order is not simply grouped by kind."""
    game = OttoOctopusGame()
    pos = {"placements": P1, "hands": [["straight", "end", "starfish"], ["bubbles"]]}

    def pile(seed: int) -> list[str]:
        out: list[str] = game.new_initial_state(np.random.default_rng(seed), {"position": pos}).snapshot()[
            "pile"
        ]
        return out

    piles = [pile(seed) for seed in range(4)]
    assert all(sorted(p) == sorted(piles[0]) for p in piles) and len(piles[0]) == 60 - 2 - 4
    assert len({tuple(p) for p in piles}) == 4
    assert pile(2) == piles[2]
    assert all(
        sum(a != b for a, b in zip(p, p[1:], strict=False)) > 15 for p in piles
    )  # not in runs of a kind


def test_s8_malformed_action_error_quotes_the_whole_input() -> None:
    """§8: anything but a canonical string raises ``ValueError`` saying what is wrong; the
    message quotes the text as given, so a user sees which of their strings failed."""
    with pytest.raises(ValueError, match=r"'place starfish z9'"):
        parse_action("place starfish z9")
    with pytest.raises(ValueError, match=r"'Swap End player_7'"):
        parse_action("Swap End player_7")


def test_s7_phase_block_tells_swap_and_return_apart() -> None:
    """§3 / §7 / OTP-24 / OTP-26: the phase block is one-hot main / extra / swap / return; the
    SWAP decision after a pufferfish and the RETURN decision after a seahorse each show in
    their own slot (offsets 98-101), so an agent knows which kind of action the mask offers."""
    phase_at = BOARD + 98
    game = OttoOctopusGame(num_players=3)
    st = make(
        P1,
        [["pufferfish", "straight", "end"], ["bubbles"] * 3, ["starfish"] * 3],
        num_players=3,
        pile=["minnow"] * 5,
    )
    play(st, "place pufferfish c7")
    assert legal(st) >= {"swap end player_2"}
    assert np.array_equal(game.observe(st, 0)[phase_at : phase_at + 4], [0, 0, 1, 0])
    assert np.array_equal(game.observe(st, 1)[phase_at : phase_at + 4], [0, 0, 1, 0])
    game = OttoOctopusGame()
    st = make(P1, [["seahorse", "starfish", "bubbles"]], pile=["minnow", "bubbles", "bubbles"])
    play(st, "place seahorse c7")
    assert "return minnow" in legal(st)
    assert np.array_equal(game.observe(st, 0)[phase_at : phase_at + 4], [0, 0, 0, 1])


def test_s7_running_scores_are_clipped_to_the_observation_box() -> None:
    """§7 / OTP-16 / OTP-17: running scores are observed / 100 and clipped to [-1, 1] (the
    declared observation bounds); a score of 150 (two or three 24-point arms and more) reads
    1.0, never 1.5, and a score of 50 reads 0.5."""
    game = OttoOctopusGame()
    st = make(P1, [["starfish", "bubbles", "bubbles"]], scores=[150, 50])
    scores = game.observe(st, 1)[BOARD + 85 : BOARD + 89]  # slot 0 = player_1, slot 1 = player_0
    assert np.allclose(scores, [0.5, 1.0, 0.0, 0.0])
    lo, hi = game.observation_bounds
    assert lo <= float(game.observe(st, 0).min()) and float(game.observe(st, 0).max()) <= hi


def test_otp26_a_return_phase_needs_a_tile_in_the_pile() -> None:
    """OTP-26: with the pile empty after the seahorse's draw, the return and redraw are skipped,
    so a position in phase ``return`` with an empty pile cannot arise: it is refused (it loaded,
    offering returns that change nothing), through ``position`` and ``state`` alike. With one
    tile in the pile the same position loads and offers a return of each kind in hand."""
    game = OttoOctopusGame()
    pos = {
        "placements": ["straight d6", "straight d7", "seahorse c7"],
        "hands": [["starfish", "minnow"], ["bubbles"]],
        "pile": [],
        "phase": "return",
    }
    with pytest.raises(ValueError, match=r"phase 'return' needs a tile in the pile \(OTP-26"):
        game.new_initial_state(np.random.default_rng(0), {"position": pos})
    st = game.new_initial_state(np.random.default_rng(0), {"position": {**pos, "pile": ["end"]}})
    assert sorted(st.action_to_string(a) for a in st.legal_actions()) == ["return minnow", "return starfish"]
    d = st.to_dict()
    d["position"]["pile"] = []
    with pytest.raises(ValueError, match="OTP-26"):
        type(st).from_dict(d)
