"""Pins closing gaps found by mutation testing of the Over and Out encoder, saved states
(``State.to_dict`` / ``State.from_dict``), game wrapper and config.

Each test names the rule(s) of ``rules/over_and_out.md`` it checks.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from envs.over_and_out.config import Config
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State
from tests.over_and_out.helpers import engine

Edit = Callable[[dict[str, Any]], None]


def _apply(state: State, *texts: str) -> State:
    for text in texts:
        state.apply(state.string_to_action(text))
    return state


def _round_one(**params: Any) -> dict[str, Any]:
    """N = 2, round 1 after two plays (the first legal card each time): a running game."""
    state = engine(
        ["5", "x2", "-10", "1", "x2", "3", "0", "top-out"], [22], num_players=2, first_dealer=1, **params
    )
    for _ in range(2):
        state.apply(state.legal_actions()[0])
    assert not state.is_terminal() and state.plays == 2
    return state.to_dict()


def _after_s08_bust() -> dict[str, Any]:
    """OAO-S08: player_0 busts out with its only chip; round 2 runs, dealer 1, to_move 2."""
    state = engine(
        ["5", "top-out", "0", "5", "5", "5"], [22], num_players=3, first_dealer=2, starting_chips=1
    )
    _apply(state, "play 5", "play top-out", "play 0", "bust")
    d = state.to_dict()
    assert (d["chips"], d["out_order"], d["dealer"], d["to_move"]) == ([0, 1, 1], [0], 1, 2)
    return d


def _s07_truncated() -> dict[str, Any]:
    """OAO-S07: six `play 0` with ``max_plays=6``: truncated, nobody out."""
    state = engine(num_players=2, first_dealer=1, deck_counts={"0": 9}, max_plays=6)
    _apply(state, *["play 0"] * 6)
    assert state.is_truncated()
    return state.to_dict()


def _s12_truncated() -> dict[str, Any]:
    """OAO-S12: player_0's bust eliminates it and is the 5th play: the next round is dealt
    (player_0 gets no cards) and the game is truncated."""
    state = engine(
        ["5", "top-out", "0", "0", "5", "5", "5", "5"],
        [22],
        num_players=4,
        first_dealer=3,
        starting_chips=1,
        max_plays=5,
    )
    _apply(state, "play 5", "play top-out", "play 0", "play 0", "bust")
    d = state.to_dict()
    assert (d["hands"][0], d["out_order"], d["truncated"]) == ([], [0], True)
    return d


def _s08_finished() -> dict[str, Any]:
    """OAO-S08 played to its end: player_1 busts out of round 2 holding its last card, ``-10``,
    which stays in its hand (no round is dealt after the game's last loss)."""
    state = engine(
        ["5", "top-out", "0", "5", "5", "5"], [22], num_players=3, first_dealer=2, starting_chips=1
    )
    _apply(state, "play 5", "play top-out", "play 0", "bust")
    _apply(state, "play 2", "play 5", "play 0", "bust")
    d = state.to_dict()
    assert (d["hands"], d["out_order"], d["to_move"]) == ([[], ["-10"], ["2"]], [0, 1], -1)
    return d


def test_oao_35_only_the_seat_whose_loss_ended_the_game_keeps_a_card() -> None:
    """OAO-34, OAO-35, OAO-44: every deal empties an eliminated hand, so in a saved state only
    the last seat eliminated, in a game its loss finished, holds a card (its last one). Other
    eliminated seats holding a card were read before as "at most its last card"."""
    d = _s08_finished()
    assert State.from_dict(copy.deepcopy(d)).to_dict() == d
    for seat in (0, 1):  # the first seat out holding a card; the last one holding two
        bad = copy.deepcopy(d)
        bad["hands"][seat].append(bad["hands"][2].pop())
        bad["chips"][2], bad["hands"][2] = 1, [bad["draw_pile"].pop()]
        with pytest.raises(
            ValueError,
            match=r"^an eliminated player holds no cards, except its last card when its loss ended the game$",
        ):
            State.from_dict(bad)


def _move_card(d: dict[str, Any], to_seat: int) -> None:
    """Move the top card of the draw pile into ``to_seat``'s hand (card count unchanged)."""
    d["hands"][to_seat].append(d["draw_pile"].pop())


def _hand_to_draw(d: dict[str, Any], seat: int) -> None:
    d["draw_pile"].append(d["hands"][seat].pop())


def _set(key: str, value: Any) -> Edit:
    def edit(d: dict[str, Any]) -> None:
        d[key] = value

    return edit


def _chips_above_start(d: dict[str, Any]) -> None:
    d["chips"][0] += 1
    _move_card(d, 0)


def _round_plays_above_plays(d: dict[str, Any]) -> None:
    d["round_plays"] = d["plays"] + 1


def _max_plays_reached(d: dict[str, Any]) -> None:
    d["config"]["max_plays"] = d["plays"]


def _truncated_early(d: dict[str, Any]) -> None:
    d["plays"] = d["round_plays"] = d["plays"] - 1


def _two_cards_out(d: dict[str, Any]) -> None:
    _move_card(d, 0)
    _move_card(d, 0)


def _wrong_seat_out(d: dict[str, Any]) -> None:
    d["out_order"] = [1]


def _swap_a_card_kind(d: dict[str, Any]) -> None:
    """Same number of cards, but one card of the hand becomes another kind."""
    hand = d["hands"][0]
    hand[0] = "topsy-turvy" if hand[0] != "topsy-turvy" else "0"


def _plays_past_max(d: dict[str, Any]) -> None:
    d["plays"] = d["round_plays"] = d["plays"] + 1


_UNREACHABLE = [
    (
        lambda: _round_one(starting_chips=2),
        _chips_above_start,
        "chips above starting_chips",
        r"chips\[\] must be an int in \[0, 2\], got 3",
    ),
    (
        _round_one,
        lambda d: _hand_to_draw(d, 0),
        "hand smaller than the chips",
        r"hand size must equal its chips",
    ),
    (
        _round_one,
        _round_plays_above_plays,
        "more plays this round than in the game",
        r"round_plays must be an int in \[0, 2\], got 3",
    ),
    (
        _round_one,
        _max_plays_reached,
        "a running game at plays = max_plays",
        r"a running game has two or more players left, plays < max_plays",
    ),
    (
        _round_one,
        _set("to_move", -1),
        "a finished, untruncated game with two players left",
        r"a finished game has one player left",
    ),
    (_round_one, _set("total", -1), "T below 0", r"total must be an int in \[0, 66\], got -1"),
    (_round_one, _set("game", "connect_four"), "another game's state", r"not an over_and_out state"),
    (_round_one, _set("extra", 1), "an unknown key", r"unknown keys \['extra'\]"),
    (
        _round_one,
        _swap_a_card_kind,
        "a card of a kind the deck has too few of",
        r"do not make up the deck",
    ),
    (
        _after_s08_bust,
        _set("dealer", 0),
        "an eliminated dealer",
        r"the player to move and the dealer must have chips",
    ),
    (
        _after_s08_bust,
        _set("to_move", 0),
        "an eliminated player to move",
        r"the player to move and the dealer must have chips",
    ),
    (
        _after_s08_bust,
        _wrong_seat_out,
        "an active seat listed as out",
        r"out_order must list each seat without chips exactly once",
    ),
    (
        _after_s08_bust,
        _two_cards_out,
        "an eliminated seat holding two cards",
        r"an eliminated player holds no cards",
    ),
    (
        _after_s08_bust,
        lambda d: _move_card(d, 0),
        "an eliminated seat holding a card mid-game",
        r"an eliminated player holds no cards",
    ),
    (
        _s12_truncated,
        lambda d: _move_card(d, 0),
        "an eliminated seat holding a card at truncation",
        r"an eliminated player holds no cards",
    ),
    (
        _s07_truncated,
        _truncated_early,
        "truncated before max_plays",
        r"a truncated game has plays >= max_plays",
    ),
    (
        _s07_truncated,
        _plays_past_max,
        "more plays than max_plays",
        r"plays must be an int in \[0, 6\], got 7",
    ),
]


@pytest.mark.parametrize(
    ("make", "edit", "why", "message"), _UNREACHABLE, ids=[row[2] for row in _UNREACHABLE]
)
def test_oao_44_from_dict_rejects_states_no_game_can_reach(
    make: Callable[[], dict[str, Any]], edit: Edit, why: str, message: str
) -> None:
    """OAO-03, OAO-13, OAO-34, OAO-36, OAO-44, §5: ``State.from_dict`` checks the invariants
    (hand size = chips <= starting_chips, 0 <= T, the dealer and the mover have chips, the
    eliminated seats are exactly those without chips, every card of the deck once, truncation
    exactly at ``max_plays``). A
    failure means a corrupt saved state (``reset(options={"state": ...})``) is played on."""
    d = make()
    State.from_dict(copy.deepcopy(d))  # the unedited state is valid
    edit(d)
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def test_oao_44_from_dict_reads_hands_and_tiptop_discards_in_any_order() -> None:
    """§8 (snapshot hands sorted in action-space order), OAO-29, OAO-44: the same position
    written with a hand or the turned-up Tip Top cards in another order restores to the same
    state, so the snapshot, the next Tip Top reshuffle and the rest of the game do not depend
    on how a saved state listed them."""
    state = engine(
        ["topsy-turvy"] * 4 + ["0"] * 4 + ["topsy-turvy"] * 4 + ["0"] * 4,
        [22, 33, 44, 55, 66],
        num_players=2,
        first_dealer=1,
        deck_counts={"0": 20, "topsy-turvy": 20},
    )
    _apply(state, "play topsy-turvy", "play 0", "play topsy-turvy", "play 0")
    _apply(state, "play topsy-turvy", "play 0", "play topsy-turvy")  # L 66, Tip Top pile empty
    d = state.to_dict()
    assert d["tiptop_discards"] == [22, 33, 44, 55] and d["tiptop_pile"] == []
    assert len(set(d["hands"][1])) > 1
    shuffled = copy.deepcopy(d)
    shuffled["tiptop_discards"].reverse()
    shuffled["hands"][1].sort(reverse=True)
    a, b = State.from_dict(d), State.from_dict(shuffled)
    assert b.to_dict() == a.to_dict() == d
    assert b.snapshot()["hands"] == a.snapshot()["hands"]
    for _ in range(6):  # p1 `play 0`, p0 `play topsy-turvy` reshuffles the discards
        legal = a.legal_actions()
        assert b.legal_actions() == legal
        a.apply(legal[-1])
        b.apply(legal[-1])
        assert b.to_dict() == a.to_dict()


def test_s5_winner_only_two_players_is_zero_sum() -> None:
    """OAO-38, §5: ``winner_only`` pays -1 to each eliminated player and +1 to the winner, "not
    zero-sum for N > 2": with N = 2 it is -1 / +1, zero-sum. A failure means algorithms that
    rely on ``zero_sum`` (self-play, MCTS backups) treat the 2-player game as general-sum."""
    assert OverAndOutGame(num_players=2, reward_mode="winner_only").zero_sum
    assert not OverAndOutGame(num_players=3, reward_mode="winner_only").zero_sum
    assert OverAndOutGame(num_players=5).zero_sum


def test_s8_resample_hidden_keeps_every_hand_sorted() -> None:
    """OAO-40, §8: snapshot hands are "tokens sorted in action-space order"; a re-dealt (determinized)
    state's hands must be too, or its snapshot and later plays differ from a real deal's."""
    game = OverAndOutGame(num_players=4)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    tokens = list(Config().deck_counts)
    for _ in range(20):
        other = game.resample_hidden(state, state.current_player(), rng)
        for hand in other.snapshot()["hands"]:
            assert hand == sorted(hand, key=tokens.index)
        assert other.hands == [sorted(h) for h in other.hands]


def test_s7_observation_scales_by_each_games_own_deck() -> None:
    """OAO-31, OAO-32, §7: the play pile per kind is divided by that kind's deck count and the draw pile by
    the deck size of the game's own ``deck_counts``, also when games with other decks were
    observed before in the same process (a stale per-deck cache would mix them up)."""
    small = {"0": 9, "5": 7}
    for counts, size in ((None, 72), (small, 16), (None, 72), (small, 16)):
        params: dict[str, Any] = {"num_players": 2, "first_dealer": 1}
        if counts is not None:
            params["deck_counts"] = counts
        state = _apply(engine(["0", "0", "0", "0", "0", "0", "0", "0"], [22], **params), "play 0")
        obs = OverAndOutGame(**params).observe(state, 0)
        assert obs[33] == pytest.approx(len(state.draw_pile) / size)
        assert obs[22] == pytest.approx(1 / (9 if counts else 8))


@pytest.mark.parametrize("value", [True, False, -1, 1.0])
def test_oao_05_first_dealer_must_be_a_seat_or_none(value: object) -> None:
    """OAO-05, §6: ``first_dealer`` is None or an int 0..N-1; a bool (an int to Python), a
    negative seat or a float raises ValueError naming the parameter, never silently deals from
    seat 1 or the last seat."""
    with pytest.raises(ValueError, match="first_dealer"):
        OverAndOutGame(num_players=3, first_dealer=value)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"deck_top": ["5", "seven"]}, "'seven'"),
        ({"tiptop_top": [22, 23]}, "23"),
    ],
)
def test_s6_reset_option_errors_name_the_bad_value(options: dict[str, Any], named: str) -> None:
    """OAO-07, OAO-09, §6 reset options: a card token or Tip Top value that does not exist raises ValueError
    naming it, so a typo in a stacked deal is found without reading the whole list."""
    game = OverAndOutGame(num_players=2)
    with pytest.raises(ValueError, match=named):
        game.new_initial_state(np.random.default_rng(0), options)


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("dealer", 5, "dealer.*5"),
        ("round_plays", -3, "round_plays.*-3"),
        ("draw_pile", ["0", "x3"], "draw_pile.*'x3'"),
        ("hands", [["0", "joker"], []], "hands.*'joker'"),
    ],
)
def test_oao_44_from_dict_errors_name_the_field_and_value(key: str, value: Any, named: str) -> None:
    """OAO-44 / saved states: ``State.from_dict`` names the field and the bad value it
    rejects, so a hand-edited or corrupted position says what to fix."""
    d = _round_one()
    d[key] = value
    with pytest.raises(ValueError, match=named):
        State.from_dict(d)


def test_oao_14_resampled_state_masks_the_re_dealt_hand_of_the_player_to_move() -> None:
    """OAO-14, OAO-15, §7 mask: after ``resample_hidden`` for a seat that is not to move,
    the mover's hand is re-dealt and its legal actions are those of the new hand (a card in
    hand and playable; ``bust`` iff none), not the ones cached for the old hand. A failure
    means a search over determinized states plays cards the mover does not hold."""
    game = OverAndOutGame(num_players=3)
    state = game.new_initial_state(np.random.default_rng(1))
    rng = np.random.default_rng(2)
    changed = 0
    for _ in range(30):
        mover = state.current_player()
        state.legal_actions()  # the mover's legal set is now cached in the state
        other = game.resample_hidden(state, (mover + 1) % 3, rng)
        fresh = State.from_dict(other.to_dict())
        assert other.legal_actions() == fresh.legal_actions()
        assert np.array_equal(other.legal_mask(), fresh.legal_mask())
        changed += other.legal_actions() != state.legal_actions()
        state.apply(state.legal_actions()[0])
        if state.is_terminal():
            break
    assert changed > 0
