"""Pins of the OTTO Game Over turn flow and cards found by a mutation round (rule IDs cited).

Each test checks a behaviour of ``shared/rules/otto_game_over.md`` that a plausible engine
bug could break while every earlier test (the reference playouts included) still passed.
Positions are set through the documented ``{"position": ...}`` reset option.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over.game import OttoGameOverGame
from tests.otto_game_over.helpers import board, legal, make, p_eight, play
from tests.otto_game_over.test_bots_pins import S15_SHAPES
from tests.otto_game_over.test_mutation_gaps import TIE_BREAK_POS
from tests.otto_game_over.test_scenarios import S14_BOARD, S15_BOARD


@pytest.mark.parametrize("seed", range(4))
def test_ogo_60_solo_tower_holds_the_32_path_tiles_only(seed: int) -> None:
    """OGO-60: solo removes the 4 dark tiles before shuffling, so the tower (plus the tile
    drawn for the first turn) is exactly the 32 path tiles, 4 of each design. A dark tile
    left in would make solo turns skip at random."""
    st = OttoGameOverGame(num_players=1).new_initial_state(np.random.default_rng(seed))
    snap = st.snapshot()
    tiles = list(snap["tower"]) + ([snap["drawn"]] if snap["drawn"] else [])
    assert "DARK" not in tiles
    assert sorted(tiles) == sorted(
        d for d in ("Z0", "A4", "B7", "C8", "D10", "E12", "F12", "G16") for _ in range(4)
    )


def test_ogo_55_tiebreak_eight_reports_the_eight_nil_match_score() -> None:
    """OGO-55, OGO-24, §5 infos: an 8 in the tie-break blind match wins the game at once;
    the ``match_scores`` info reports that match as 8-nil for the creator's team, not the
    scores of the match before it."""
    game = OttoGameOverGame()
    pos = p_eight(tower=["D10"], tiebreak=True, totals=[24, 24], tables=[None, None], match_scores=[3, 3])
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    play(st, "drawn a1 r0")
    assert st.is_terminal() and st.winners == [0]
    assert game.infos(st, 0)["match_scores"] == [8, 0]
    assert game.infos(st, 1)["winners"] == [0]


def test_match_episode_winners_info_is_the_best_match_score() -> None:
    """§5 'match', OGO-24: after the 8-nil of S6 the ``winners`` info names only the
    creator's team (not every team), and the match scores are [8, 0]."""
    game = OttoGameOverGame(episode="match")
    st = game.new_initial_state(np.random.default_rng(0), {"position": p_eight(tower=["B7", "C8", "E12"])})
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.is_terminal()
    info = game.infos(st, 1)
    assert info["winners"] == [0] and info["match_scores"] == [8, 0] and info["totals"] == [8, 0]
    assert list(st.returns()) == [0.25, -0.25]


def test_match_episode_tied_match_names_both_winners() -> None:
    """§5 'match', OGO-48, OGO-50: S14's board filled with one small circle per team ends
    level 1-1: both teams are named winners and each is paid 0."""
    game = OttoGameOverGame(episode="match")
    pos = {
        "board": board(S14_BOARD),
        "shapes": {"small@va6": 0, "small@vf1": 1},
        "tables": ["C8", "B7"],
        "tower": ["E12"],
        "to_move": 1,
    }
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    play(st, "table b1 r2")
    assert st.is_terminal() and st.match_scores == [1, 1]
    assert game.infos(st, 0)["winners"] == [0, 1] and list(st.returns()) == [0.0, 0.0]


def test_solo_victory_infos_reward_range_and_zero_sum() -> None:
    """S15, OGO-61, OGO-62, §5 solo: the victory score 42 is reported as the ``solo_score``
    info (the match score, not a game total), its reward 42/32 lies inside the declared
    ``reward_range``, and a solo game is not zero-sum."""
    game = OttoGameOverGame(num_players=1)
    pos = {"board": board(S15_BOARD), "shapes": S15_SHAPES, "tower": ["D10"]}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    play(st, "drawn e1 r0")
    assert st.is_terminal()
    info = game.infos(st, 0)
    assert info["solo_score"] == 42 and info["match_scores"] == [42] and info["winners"] == [0]
    low, high = game.reward_range
    assert low == -1.0 and low <= st.returns()[0] == 42 / 32 <= high
    assert not game.zero_sum and OttoGameOverGame(num_players=2).zero_sum


def test_game_infos_report_totals_and_match_scores_apart() -> None:
    """OGO-52, §5 infos: after S6's 8-nil in a 'game' episode started at totals 5-3, the
    ``totals`` info is the game total 13-3 and ``match_scores`` the last match's 8-0; the
    lists are copies, so a caller editing them cannot change the game."""
    game = OttoGameOverGame()
    pos = p_eight(tower=["B7", "C8", "E12"], totals=[5, 3])
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    play(st, "table a1 r0")
    assert not st.is_terminal()
    info = game.infos(st, 1)
    assert info["totals"] == [13, 3] and info["match_scores"] == [8, 0] and info["winners"] == []
    info["totals"][0] = info["match_scores"][0] = 99  # the caller's copies, not the engine's
    assert st.totals == [13, 3] and st.match_scores == [8, 0]
    assert game.infos(st, 0)["totals"] == [13, 3]


def test_ogo_27_private_text_shows_own_and_partner_cards_only() -> None:
    """OGO-27, OGO-57: each seat's private text lists its own cards and, in 2v2, those of
    the partner sitting opposite (seat + 2), never an opponent's."""
    game = OttoGameOverGame(num_players=4, teams=True)
    pos = {"tables": ["B7", "G16", "A4", "C8"], "hands": [[], ["meteorite"], ["joker"], []]}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert game.private_text(st, 0) == "your cards: none; your partner player_2's cards: joker"
    assert game.private_text(st, 1) == "your cards: meteorite; your partner player_3's cards: none"
    assert game.private_text(st, 2) == "your cards: joker; your partner player_0's cards: none"
    ffa = OttoGameOverGame(num_players=4)
    st = ffa.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert ffa.private_text(st, 1) == "your cards: meteorite"


def test_solo_ignores_teams_in_private_text() -> None:
    """§6, OGO-60, OGO-27: solo ignores ``teams``; with ``teams=True`` the private text still names only
    the solo player's (empty) hand instead of looking for a partner."""
    game = OttoGameOverGame(num_players=1, teams=True)
    st = game.new_initial_state(np.random.default_rng(0))
    assert game.private_text(st, 0) == "your cards: none"


def test_max_game_length_covers_max_matches_full_boards() -> None:
    """§5 truncation, OGO-52, OGO-48: a 'game' episode may run ``max_matches`` regular matches of up to 24
    placements each, so the declared ``max_game_length`` bounds at least that many steps."""
    for n in (2, 3, 4):
        game = OttoGameOverGame(num_players=n)
        assert game.max_game_length >= game.config.max_matches * 24
    assert OttoGameOverGame(episode="match").max_game_length >= 24


@pytest.mark.parametrize("num_players", [2, 3])
def test_teams_without_four_players_is_rejected(num_players: int) -> None:
    """§6, OGO-57: ``teams=True`` needs ``num_players=4``; 2 or 3 players raise ``ValueError``
    naming the bad value instead of silently playing free-for-all."""
    with pytest.raises(ValueError, match=f"num_players={num_players}"):
        OttoGameOverGame(num_players=num_players, teams=True)


def test_ogo_37_meteorite_discards_only_real_table_tiles() -> None:
    """OGO-37: p0's Meteorite removes the table tiles that exist (p0's B7, p2's G16; p1 has
    none) from the match: the discard pile holds exactly those two, with no phantom tile for
    p1's empty table, and p0, p1, p2 draw E12, F12, A4 in turn."""
    st = make(
        {
            "tables": ["B7", None, "G16"],
            "tower": ["E12", "F12", "A4", "D10"],
            "hands": [["meteorite"], [], []],
        },
        num_players=3,
    )
    play(st, "card meteorite")
    snap = st.snapshot()
    assert sorted(snap["discarded"]) == ["B7", "G16"]
    assert snap["tables"] == ["E12", "F12", "A4"] and snap["drawn"] == "D10"


def test_ogo_56_tile_round_draws_leave_the_tower_for_the_discard_pile() -> None:
    """OGO-56: after a tied tie-break match p0 and p1 draw G16 and G16 (a tied round); the
    tower cannot supply a second round, so the game is drawn. The drawn tiles are out of the
    match (in the discard pile), the last tile stays in the tower."""
    st = make(TIE_BREAK_POS, num_players=3)
    play(st, "drawn b1 r0")
    snap = st.snapshot()
    assert st.is_terminal() and st.winners == [0, 1]
    assert snap["discarded"] == ["G16", "G16"] and snap["tower"] == ["A4"]


def test_clone_is_independent_of_scoring_and_cards() -> None:
    """OGO-08, OGO-19, OGO-30 through ``clone()`` (a deep, independent copy, as MCTS
    relies on): a clone that plays a card and closes square@ve4 + big@ve4 leaves the
    original's hand, markers, shapes and observation as they were."""
    game = OttoGameOverGame()
    pos = {
        "board": {"c3": "C8/0", "d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
        "tables": ["B7", "A4"],
        "tower": ["E12", "G16"],
        "hands": [["time-travel", "meteorite"], []],
    }
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    before, obs = st.snapshot(), game.observe(st, 0)
    copy = st.clone()
    play(copy, "card time-travel", "drawn e4 r0")
    assert copy.snapshot()["shapes"] == {"square@ve4": 0, "big@ve4": 0}
    assert st.snapshot() == before
    assert np.array_equal(game.observe(st, 0), obs)
    assert legal(st) == {"no card", "card time-travel", "card meteorite"}


def test_legal_mask_returns_a_copy() -> None:
    """S2, OGO-01, OGO-02: zeroing the array ``legal_mask()`` returned must not change what
    the engine considers legal: the 32 opening placements stay legal and playable."""
    st = make({"tables": ["B7", "G16"], "tower": ["D10"]})
    mask = st.legal_mask()
    mask[:] = 0
    assert int(st.legal_mask().sum()) == 32
    st.apply(st.string_to_action("drawn b3 r0"))


def test_ogo_63_illegal_action_error_names_the_action_and_phase() -> None:
    """OGO-63 (raw engine), OGO-01: stepping the illegal ``drawn a1 r0`` of S2 raises
    ``ValueError`` naming the index, its notation string and the phase, and changes nothing."""
    st = make({"tables": ["B7", "G16"], "tower": ["D10"]})
    before = st.snapshot()
    with pytest.raises(ValueError, match=r"illegal action 0 \(drawn a1 r0\) in phase place"):
        st.apply(st.string_to_action("drawn a1 r0"))
    assert st.snapshot() == before
