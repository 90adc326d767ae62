"""Rule-by-rule tests of the engine, each citing its spec rule ID(s) (OAO-01 .. OAO-44)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.over_and_out.cards import TIPTOP_VALUES
from envs.over_and_out.game import OverAndOutGame
from tests.over_and_out.helpers import engine, legal_strings

TWO = {"num_players": 2, "first_dealer": 1}


@pytest.mark.parametrize("n", range(2, 9))
def test_player_counts(n: int) -> None:
    """OAO-01: 2 to 8 players; OAO-03: each starts with 4 chips = 4 cards."""
    state = OverAndOutGame(num_players=n).new_initial_state(np.random.default_rng(n))
    assert state.chips == [4] * n and all(len(h) == 4 for h in state.hands)
    for bad in (1, 9):
        with pytest.raises(ValueError, match="num_players"):
            OverAndOutGame(num_players=bad)


def test_starting_chips() -> None:
    """OAO-03: starting_chips lowers the 4; hand size = chips."""
    state = engine(num_players=3, starting_chips=2)
    assert state.chips == [2, 2, 2] and [len(h) for h in state.hands] == [2, 2, 2]


def test_play_passes_left_skipping_eliminated() -> None:
    """OAO-04: play passes to the next seat clockwise that still has chips."""
    state = engine(["0", "0", "0", "0", "0"], num_players=4, first_dealer=3, starting_chips=1)
    state.chips[1] = 0  # seat 1 out: simulate by hand
    state.out_order = [1]
    state.apply(0)  # seat 0 plays 0
    assert state.current_player() == 2


def test_random_first_dealer() -> None:
    """OAO-05: first_dealer None = uniformly random from the reset seed; reproducible."""
    game = OverAndOutGame(num_players=4)
    dealers = [game.new_initial_state(np.random.default_rng(s)).dealer for s in range(60)]
    assert set(dealers) == {0, 1, 2, 3}
    assert dealers == [game.new_initial_state(np.random.default_rng(s)).dealer for s in range(60)]
    assert engine(num_players=4, first_dealer=2).dealer == 2


def test_setup() -> None:
    """OAO-06, OAO-08, OAO-09, OAO-10: Tip Top pile of 4 + L turned up; the rest is the draw
    pile; empty play pile; T = 0, clockwise, the dealer's left plays first."""
    state = engine(num_players=3, first_dealer=1)
    assert len(state.tiptop_pile) == 4 and state.tiptop in TIPTOP_VALUES
    assert sorted([*state.tiptop_pile, state.tiptop]) == list(TIPTOP_VALUES)
    assert len(state.draw_pile) == 72 - 12 and sum(state.play_pile) == 0
    assert (state.total, state.direction, state.current_player()) == (0, 1, 2)


def test_block_dealing() -> None:
    """OAO-07: block dealing from the top, left of the dealer first, dealer last."""
    state = engine(["1", "1", "2", "2", "3", "3"], num_players=3, first_dealer=0, starting_chips=2)
    assert state.hands == [[3, 3], [1, 1], [2, 2]]


def test_play_and_draw() -> None:
    """OAO-11, OAO-12, OAO-17: the card goes onto the play pile, T is public, one card is
    drawn from the top, hand size is kept, play passes on."""
    state = engine(["4", "0", "0", "0", "5", "0", "0", "0", "2"], **TWO)
    state.apply(4)
    assert state.total == 4 and state.play_pile[4] == 1
    assert state.hands[0] == [0, 0, 0, 2] and state.current_player() == 1
    state.apply(5)
    assert state.total == 9


def test_total_bounds_and_masking() -> None:
    """OAO-13, OAO-14: no card that would take T below 0 or above L is legal."""
    state = engine(["5", "4", "x2", "-10", "0", "0", "0", "0"], [22], total=18, **TWO)
    assert legal_strings(state) == {"play 4", "play -10"}
    with pytest.raises(ValueError, match="illegal"):
        state.apply(5)
    state = engine(["5", "4", "x2", "-10", "0", "0", "0", "0"], [22], total=9, **TWO)
    assert legal_strings(state) == {"play 5", "play 4", "play x2"}  # x2: 18 <= 22
    state.total, state._bits = 11, -1
    assert legal_strings(state) == {"play 5", "play 4", "play x2", "play -10"}


def test_bust_only_when_stuck() -> None:
    """OAO-15: bust is legal exactly when no card is playable; it loses a chip."""
    state = engine(["5", "5", "4", "x2", "0", "0", "0", "0"], [22], total=20, **TWO)
    assert legal_strings(state) == {"bust"}
    state.apply(11)
    assert state.chips == [3, 4] and state.round == 2
    state = engine(["5", "0", "4", "x2"], [22], total=20, **TWO)
    assert "bust" not in legal_strings(state)


def test_no_draw_after_losing_play() -> None:
    """OAO-16, OAO-33: a losing play draws no card; the round ends at once."""
    state = engine(["top-out", "topsy-turvy"], [33, 22], num_players=2, first_dealer=0, starting_chips=1)
    state.apply(9)  # seat 1 plays top-out: T 33
    draw = len(state.draw_pile)
    state.apply(10)  # seat 0: topsy-turvy, new L 22 < 33, eliminated: game over, no new deal
    assert state.is_terminal() and len(state.draw_pile) == draw and state.hands[0] == []


@pytest.mark.parametrize(
    ("card", "total", "limit", "playable", "after"),
    [
        ("0", 22, 22, True, 22),  # OAO-18
        ("3", 19, 22, True, 22),  # OAO-19
        ("3", 20, 22, False, None),  # OAO-19
        ("x2", 0, 22, True, 0),  # OAO-20 (T = 0)
        ("x2", 11, 22, True, 22),  # OAO-20
        ("x2", 12, 22, False, None),  # OAO-20
        ("-10", 10, 22, True, 0),  # OAO-21
        ("-10", 9, 22, False, None),  # OAO-21
        ("top-out", 22, 22, True, 22),  # OAO-23 (T = L)
        ("top-out", 5, 44, True, 44),  # OAO-23
    ],
)
def test_card_values(card: str, total: int, limit: int, playable: bool, after: int | None) -> None:
    """OAO-18 .. OAO-21, OAO-23: each card's playability and effect on T."""
    state = engine([card, "spin-out", "spin-out", "spin-out"], [limit], total=total, **TWO)
    assert (f"play {card}" in legal_strings(state)) == playable
    if playable:
        state.apply(state.string_to_action(f"play {card}"))
        assert state.total == after and state.round == 1


def test_spin_out_reverses() -> None:
    """OAO-22, OAO-26: spin-out reverses the direction (5 players), until the next one."""
    state = engine(["spin-out", "0", "0", "0", "spin-out", "0", "0", "0"], num_players=5, first_dealer=4)
    state.apply(8)
    assert state.direction == -1 and state.current_player() == 4
    state.apply(state.legal_actions()[0])
    assert state.current_player() == 3


def test_topsy_turvy_turns_new_limit() -> None:
    """OAO-24, OAO-27: topsy-turvy always turns up the next Tip Top card; T unchanged."""
    state = engine(["topsy-turvy", "0", "0", "0"], [22, 55], total=7, **TWO)
    state.apply(10)
    assert (state.tiptop, state.total, state.tiptop_discards) == (55, 7, [22])


def test_topsy_turvy_loses_below_total() -> None:
    """OAO-28: a new L lower than T loses the round for the player of topsy-turvy."""
    state = engine(["topsy-turvy", "0", "0", "0"], [44, 33], total=40, **TWO)
    state.apply(10)
    assert state.chips == [3, 4] and state.round == 2


def test_tiptop_reshuffle_never_repeats() -> None:
    """OAO-29: with an empty Tip Top pile the turned-up cards (not the current L) are reshuffled."""
    for seed in range(20):
        state = engine(
            ["topsy-turvy"] * 4,
            [22, 33, 44, 55, 66],
            seed=seed,
            num_players=2,
            first_dealer=1,
            deck_counts={"topsy-turvy": 8, "0": 8},
        )
        state.tiptop_discards, state.tiptop_pile, state.tiptop = [22, 33, 44, 55], [], 66
        state.apply(10)
        assert state.tiptop != 66 and state.tiptop_discards == [66] and len(state.tiptop_pile) == 3


def test_public_tiptop_and_draw_pile_size() -> None:
    """OAO-30, OAO-31: the observation shows L, the values left in the Tip Top pile and the
    draw pile size."""
    from envs.over_and_out.encode import DRAW, LIMIT, TIPTOP_LEFT, observe

    state = engine(["topsy-turvy", "0", "0", "0"], [22, 55, 33], **TWO)
    state.apply(10)
    obs = observe(state, 1)
    assert obs[LIMIT + 3] == 1  # L = 55
    assert list(obs[TIPTOP_LEFT : TIPTOP_LEFT + 5]) == [0, 1, 1, 0, 1]  # 33, 44, 66 left
    assert obs[DRAW] == pytest.approx(len(state.draw_pile) / 72)


def test_reshuffle_play_pile() -> None:
    """OAO-32: an empty draw pile is refilled from the play pile incl. the card just played."""
    state = engine(num_players=2, first_dealer=1, deck_counts={"0": 8, "1": 1})
    state.draw_pile.clear()
    state.play_pile = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    before = sorted(state.hands[0])
    state.apply(before[0])
    assert len(state.hands[0]) == 4 and sorted(state.hands[0]) == before
    assert len(state.draw_pile) == 0 and sum(state.play_pile) == 0


def test_next_round() -> None:
    """OAO-33 .. OAO-37: the loser loses a chip; nothing carries over; dealer rotates."""
    state = engine(
        ["5", "5", "5", "5", "top-out", "0", "0", "0", "0", "0", "0", "0", "5"],
        [22],
        num_players=3,
        first_dealer=2,
    )
    state.apply(5)
    state.apply(9)  # top-out: T 22
    state.apply(0)
    assert state.legal_actions() == [11]
    state.apply(11)
    assert state.chips == [3, 4, 4] and state.round == 2 and state.dealer == 0
    assert (state.total, state.direction, state.tiptop_discards, sum(state.play_pile)) == (0, 1, [], 0)
    assert [len(h) for h in state.hands] == [3, 4, 4] and state.current_player() == 1


def test_elimination_and_winner() -> None:
    """OAO-02, OAO-34, OAO-38: out at 0 chips; the last player left wins."""
    state = engine(["5", "top-out"], [22], num_players=2, first_dealer=1, starting_chips=1)
    state.apply(5)
    state.apply(9)
    state.apply(11)
    assert state.is_terminal() and not state.is_truncated()
    assert list(state.returns()) == [-1.0, 1.0] and state.eliminated() == frozenset({0})


def test_endless_round_truncates() -> None:
    """OAO-39: a deck of only 0 cards never ends a round; max_plays truncates."""
    state = OverAndOutGame(num_players=3, deck_counts={"0": 20}, max_plays=50).new_initial_state(
        np.random.default_rng(0)
    )
    while not state.is_terminal():
        state.apply(0)
    assert state.is_truncated() and state.plays == 50 and list(state.returns()) == [0, 0, 0]


def test_rounds_bound() -> None:
    """OAO-39: at most starting_chips * N - 1 rounds per game."""
    game = OverAndOutGame(num_players=3)
    for seed in range(20):
        state = game.new_initial_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        assert state.round <= 4 * 3 - 1 and sum(state.chips) == 4 * 3 - state.round


def test_minus_ten_lose_below_zero() -> None:
    """OAO-42: under lose_below_zero -10 is always playable; below 10 it loses, T unchanged."""
    state = engine(["-10", "0", "0", "0"], total=15, minus10_rule="lose_below_zero", **TWO)
    state.apply(7)
    assert state.total == 5 and state.round == 1
    state = engine(["-10", "5", "5", "5"], [22], total=20, minus10_rule="lose_below_zero", **TWO)
    state.total, state._bits = 9, -1
    assert legal_strings(state) == {"play 5", "play -10"}
    state.apply(7)
    assert state.chips == [3, 4]
