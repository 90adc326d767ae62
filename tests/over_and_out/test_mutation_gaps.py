"""Scenario tests closing gaps found by mutation testing of the Over and Out engine.

Each test names the rule(s) of ``rules/over_and_out.md`` it checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from envs.over_and_out_v0 import env
from tests.over_and_out.helpers import legal, play, snap, table

P0, P1 = "player_0", "player_1"


def _one_chip_bust_game() -> Any:
    """N = 2, one chip each: p0 [5], p1 [top-out]; p0 `play 5`, p1 `play top-out` (T 22), p0
    holds [5] and must bust: the game ends with player_0 eliminated."""
    e = table(["5", "top-out", "5", "5"], [22], num_players=2, first_dealer=1, starting_chips=1)
    play(e, "play 5")
    play(e, "play top-out")
    assert legal(e) == {"bust"}
    play(e, "bust")
    return e


def test_oao_34_s8_snapshot_hides_hand_of_player_eliminated_in_last_round() -> None:
    """§8 snapshot: "hands": [] when eliminated (OAO-34) — also for the player knocked out by
    the game's last round, whose cards are never dealt away by a next round."""
    e = _one_chip_bust_game()
    s = snap(e)
    assert e.unwrapped.state.is_terminal()
    assert s["chips"] == [0, 1]
    assert s["hands"][0] == []
    assert s["hands"][1] == ["5"]


def test_s7_bust_counts_as_a_play_in_this_round() -> None:
    """Terms ("a play = one agent step (playing a card or bust)") and §7 "plays in this round
    ÷ 100": the round that ends the game had 3 plays, the bust included."""
    e = _one_chip_bust_game()
    assert snap(e)["plays"] == 3
    obs = e.observe(P1)["observation"]
    assert obs[59] == pytest.approx(3 / 100)


def test_oao_42_minus_ten_loss_leaves_total_unchanged() -> None:
    """OAO-42: under ``lose_below_zero`` a `-10` played with T < 10 loses the round with T
    unchanged. Seen on the final state (one chip each), where no new deal resets T."""
    e = table(
        ["1", "0", "-10", "0"],
        [22],
        num_players=2,
        first_dealer=1,
        starting_chips=1,
        minus10_rule="lose_below_zero",
    )
    play(e, "play 1")  # T 1, p0 draws -10
    play(e, "play 0")
    assert legal(e) == {"play -10"}
    play(e, "play -10")
    s = snap(e)
    assert s["chips"] == [0, 1]
    assert s["total"] == 1
    assert e.observe(P1)["observation"][11] == pytest.approx(1 / 66)


def test_oao_32_reshuffled_draw_pile_is_shuffled() -> None:
    """OAO-32: when the draw pile is empty the play pile is *shuffled* into a new draw pile.
    Deck of 10 (five 0, five 1), 8 dealt: p0 `play 0`, p1 `play 1` empty the draw pile; p0's
    `play 1` reshuffles {0, 1, 1} and p0 draws one of them — over seeds both kinds turn up."""
    drawn = set()
    for seed in range(24):
        e = table(
            ["0", "1", "1", "1", "1", "0", "0", "0", "0", "1"],
            [22],
            seed=seed,
            num_players=2,
            first_dealer=1,
            deck_counts={"0": 5, "1": 5},
        )
        play(e, "play 0")  # p0 draws 0 (deck_top)
        play(e, "play 1")  # p1 draws 1; draw pile now empty
        assert snap(e)["draw_pile"] == 0
        before = snap(e)["hands"][0]  # [0, 1, 1, 1]; p0 plays a 1
        play(e, "play 1")
        after = snap(e)["hands"][0]
        s = snap(e)
        assert (s["draw_pile"], s["play_pile"]) == (2, 0)
        rest = list(before)
        rest.remove("1")
        new = list(after)
        for card in rest:
            new.remove(card)
        drawn.add(new[0])
    assert drawn == {"0", "1"}


def test_oao_29_tiptop_pile_reshuffle_is_shuffled() -> None:
    """OAO-29 (and OAO-S10): after the Tip Top pile runs out, the discarded Tip Top cards are
    *shuffled* into a new pile; the next L is any of them (never the current one), not a fixed
    one. Over seeds, the fifth Topsy Turvy turns up more than one value."""
    seen = set()
    top = ["topsy-turvy"] * 4 + ["0"] * 4 + ["topsy-turvy"] * 4 + ["0"] * 4
    for seed in range(16):
        e = table(
            top,
            [22, 33, 44, 55, 66],
            seed=seed,
            num_players=2,
            first_dealer=1,
            deck_counts={"0": 20, "topsy-turvy": 20},
        )
        for _ in range(4):
            play(e, "play topsy-turvy")
            play(e, "play 0")
        assert (snap(e)["tiptop"], snap(e)["tiptop_pile"]) == (66, 0)
        play(e, "play topsy-turvy")
        s = snap(e)
        assert s["tiptop"] in {22, 33, 44, 55} and s["tiptop_pile"] == 3
        seen.add(s["tiptop"])
    assert len(seen) >= 3


@pytest.mark.parametrize("counts", [{"0": 20, "1": -1}, {"0": -1, "1": 20}, {"x2": -3, "5": 30}])
def test_s6_deck_counts_must_be_non_negative(counts: dict[str, int]) -> None:
    """§6: ``deck_counts`` is a dict token → int ≥ 0; a negative count raises ValueError even
    when the total is large enough."""
    with pytest.raises(ValueError, match="deck_counts"):
        env(num_players=2, deck_counts=counts)
