"""``Game.step_events``: what happens by itself at the table after a move, as ``eightfold
play`` prints it (a round or match lost and scored, a new deal, skipped turns, automatic
passes, dark tiles, kidnapped cards, the end).

Each game's events are checked at every step of whole seeded games against the states before
and after the real move: an event is said exactly when its fact happened, with the numbers the
state shows (OAO-15/24/28/32..38/42, OGO-16..18/22/24/34/42/43/48..53, OTP-18/19/23/37), and
the call changes nothing (the move goes to a clone, the engine's generator included)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from envs.core.registry import get_game
from envs.over_and_out.cards import BUST, MINUS10, TIPTOP_VALUES, TOPSY_TURVY

_SUFFIX = {1: "st", 2: "nd", 3: "rd", 4: "th", 5: "th", 6: "th", 7: "th"}


def _games(name: str, params: dict[str, Any], seeds: range) -> Any:
    """(game, state before, action, events, state after) for every move of random games."""
    game = get_game(name).game_class()(**params)
    for seed in seeds:
        rng = np.random.default_rng(seed + 100)
        state = game.new_initial_state(np.random.default_rng(seed))
        while not state.is_terminal():
            action = int(rng.choice(np.flatnonzero(state.legal_mask())))
            before = state.clone()
            events = game.step_events(state, action)
            state.apply(action)
            yield game, before, action, events, state


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("octi", {}),
        ("over_and_out", {"num_players": 3}),
        ("otto_game_over", {"num_players": 4, "teams": True}),
        ("otto_octopus", {"num_players": 3}),
    ],
)
def test_step_events_change_nothing_and_refuse_an_illegal_action(name: str, params: dict[str, Any]) -> None:
    """The move is applied to a clone: the state, its generator's next draws and its legal
    moves are as before; an illegal action raises ``ValueError`` as ``apply`` does."""
    game = get_game(name).game_class()(**params)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for _ in range(40):
        if state.is_terminal():
            break
        legal = np.flatnonzero(state.legal_mask())
        action = int(rng.choice(legal))
        saved, twin = state.to_dict(), state.clone()
        game.step_events(state, action)
        assert state.to_dict() == saved
        assert state.rng.random() == twin.rng.random()  # the same stream, not advanced
        state.apply(action)
    state = game.new_initial_state(np.random.default_rng(3))
    illegal = int(np.flatnonzero(state.legal_mask() == 0)[0])
    with pytest.raises(ValueError, match="illegal|action"):
        game.step_events(state, illegal)


@pytest.mark.parametrize("params", [{"max_turns": 30}, {}, {"variant": "x_fast", "max_turns": 40}])
def test_octi_says_only_how_the_game_ended(params: dict[str, Any]) -> None:
    """Nothing else in Octi happens by itself; the move that ends the game gets one sentence:
    the winner (by the returns) and how (OCT-42..44), or the draw at the turn limit (OCT-45)."""
    ends = set()
    for _game, _before, _action, events, after in _games("octi", params, range(4)):
        if not after.is_terminal():
            assert events == []
            continue
        (line,) = events
        if after.is_truncated():
            assert line == f"game over: draw (truncated), turn limit {after.config.turn_limit}"
        else:
            winner = ("Black", "Red")[int(np.argmax(after.returns()))]
            assert line.startswith(f"game over: {winner} wins, ")
            assert line.split(", ", 1)[1] in (
                "reached an enemy base",
                "holds all 3 enemy bases",
            ) or line.endswith("cannot move")
        ends.add(line.split(",")[0])
    assert ends  # every game ended in these seeds


# ------------------------------------------------------------------ Over and Out
@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 3, "minus10_rule": "lose_below_zero", "starting_chips": 2},
        {"num_players": 3, "max_plays": 70},
    ],
)
def test_over_and_out_says_each_round_lost_and_the_next_deal(params: dict[str, Any]) -> None:
    """OAO-15/28/42 (why), OAO-33 (the chip), OAO-34 (out), OAO-35..37 (the next dealer, Tip
    Top and first player), OAO-38 (the winner), OAO-24 (a new Tip Top), OAO-32 (a reshuffle)
    and the step limit: each said exactly when it happens, with the state's numbers."""
    seen: set[str] = set()
    for _game, before, action, events, after in _games("over_and_out", params, range(4)):
        expected: list[str] = []
        losers = [s for s in range(before.n) if after.chips[s] < before.chips[s]]
        if action == TOPSY_TURVY:
            said = [
                e
                for e in events
                if e.startswith(f"Tip Top {before.tiptop} is discarded; the new Tip Top is ")
            ]
            assert len(said) == 1, events
            new = int(said[0].rsplit(" ", 1)[1])
            assert new in TIPTOP_VALUES and new != before.tiptop
            assert (new < before.total) == bool(losers)  # OAO-28
            if not losers:
                assert new == after.tiptop
            seen.add("tiptop")
        if losers:
            (q,) = losers
            assert q == before.to_move
            left = after.chips[q]
            chips = f"{left} chip{'s' if left != 1 else ''} left" if left else "no chips left"
            why = {
                BUST: f"has no card to play (total {before.total}, Tip Top {before.tiptop})",
                TOPSY_TURVY: f"turned up a Tip Top below the total {before.total}",
                MINUS10: f"played -10 on a total of {before.total}, below 10",
            }[action]
            expected.append(f"player_{q} {why}: loses round {before.round} and a chip ({chips})")
            if not left:
                expected.append(
                    f"player_{q} is out ({len(after.out_order)}{_SUFFIX[len(after.out_order)]} out)"
                )
            if action == BUST:  # OAO-15: legal only without a playable card
                assert np.flatnonzero(before.legal_mask()).tolist() == [BUST]
            if after.round > before.round and not after.truncated:  # (a round nobody plays: unsaid)
                expected.append(
                    f"round {after.round}: player_{after.dealer} deals, Tip Top {after.tiptop}; "
                    f"player_{after.to_move} plays first"
                )
            elif after.round == before.round:
                (winner,) = [s for s in range(after.n) if after.chips[s]]
                expected.append(f"player_{winner} is the last player with chips and wins the game")
            seen.add(why.split()[0])
        elif action != BUST and sum(after.play_pile) == 0:
            expected.append(
                f"the draw pile is empty: the play pile ({sum(before.play_pile) + 1} cards, this one "
                "included) is shuffled into a new draw pile"
            )
            seen.add("reshuffle")
        if after.truncated:
            expected.append(
                f"the game stops at its limit of {after.config.max_plays} plays, without a winner"
            )
            seen.add("limit")
        assert [e for e in events if not e.startswith("Tip Top ") and "Tip Top pile" not in e] == expected
    # the games above reach every kind of event of their config
    wanted = {"tiptop", "has", "turned"}  # (a reshuffle: the next test)
    if params.get("minus10_rule") == "lose_below_zero":
        wanted.add("played")
    if "max_plays" in params:
        wanted.add("limit")
    assert wanted <= seen


def test_over_and_out_a_round_lost_at_the_step_limit_deals_no_round_to_announce() -> None:
    """Spec §5 with OAO-35..37 (the scenario of OAO-S12): the fifth play, a bust, knocks
    player_0 out at ``max_plays=5``; the next round is set up and the game stops at once, so
    no one is said to play first in it (the state's seat to act is then -1)."""
    from envs.over_and_out.cards import KIND_OF
    from envs.over_and_out.rules import State

    game = get_game("over_and_out").game_class()(num_players=4, first_dealer=3, starting_chips=1, max_plays=5)
    deck = [KIND_OF[t] for t in ["5", "top-out", "0", "0", "5", "5", "5", "5"]]
    state = State.new_game(game.config, np.random.default_rng(5), deck, [22])
    for move in ["play 5", "play top-out", "play 0", "play 0"]:
        state.apply(state.string_to_action(move))
    assert np.flatnonzero(state.legal_mask()).tolist() == [BUST]
    assert game.step_events(state, BUST) == [
        "player_0 has no card to play (total 22, Tip Top 22): loses round 1 and a chip (no chips left)",
        "player_0 is out (1st out)",
        "the game stops at its limit of 5 plays, without a winner",
    ]


# ------------------------------------------------------------- OTTO Game Over
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"num_players": 4, "teams": True},
        {"num_players": 3, "blind": True},
        {"episode": "match"},
        {"num_players": 1},
    ],
)
def test_otto_game_over_says_skips_dark_tiles_kidnaps_and_match_ends(params: dict[str, Any]) -> None:
    """OGO-16/17/53 (dark tiles), OGO-42/43 (the kidnapped card: the one that left the
    victim's hand), OGO-48..52 (a match's scores and the totals after it), the next match's
    first player (§2.5) and the solo result (OGO-61): each event against the real move."""
    side = "team" if params.get("teams") else "player_"
    counts = {"dark": 0, "match": 0, "kidnap": 0}
    for _game, before, _action, events, after in _games("otto_game_over", params, range(3)):
        darks = sum("draws a dark tile" in e for e in events)
        same_match = after.matches == before.matches and after.tiebreak == before.tiebreak
        if same_match:
            grown = len(after.discarded) - len(before.discarded)
            pairs = sum("on a dark table tile" in e for e in events)
            blind = sum("in a blind match" in e for e in events)
            assert grown >= 2 * pairs + blind  # (a meteorite discards table tiles too)
            counts["dark"] += darks
        ended = [e for e in events if e.startswith("match over (")]
        if after.matches > before.matches or (after.is_terminal() and params.get("num_players") != 1):
            assert len(ended) == 1, events
            scores = ", ".join(
                f"{side if side == 'player_' else 'team '}{t} {v}" for t, v in enumerate(after.match_scores)
            )
            assert ended[0].split(": ", 1)[1].startswith(scores)
            if params.get("episode") != "match":
                totals = ", ".join(
                    f"{side if side == 'player_' else 'team '}{t} {v}" for t, v in enumerate(after.totals)
                )
                assert ended[0].endswith(f"; totals {totals}")
            counts["match"] += 1
        else:
            assert not ended, events
        dealt = [
            e for e in events if re.fullmatch(r"a (new|blind tie-break) match is dealt; player_\d starts", e)
        ]
        assert len(dealt) == (not after.is_terminal() and after.matches > before.matches)
        if dealt:  # after the match's end, and it names the match's kind
            assert events.index(dealt[0]) > events.index(ended[0])
            assert ("tie-break" in dealt[0]) == after.tiebreak
        for e in events:
            m = re.fullmatch(
                r"player_(\d) kidnaps (\S+) from player_(\d)(: it cannot be played now and is void| and must play it now)",
                e,
            )
            if m:
                victim, name = int(m.group(3)), m.group(2)
                from envs.otto_game_over.actions import CARD_OF_NAME

                card = CARD_OF_NAME[name]
                assert after.removed[card] == before.removed[card] + 1
                assert len(before.hands[victim]) == len(after.hands[victim]) + 1
                counts["kidnap"] += 1
        for e in events:  # OGO-19/21: each shape the move closed, marked or left unclaimed
            m = re.fullmatch(
                r"(player_|team )(\d) (scores|closes) the (small circle|big circle|square) at (v\w\d)(.*)", e
            )
            if m and same_match:
                from envs.otto_game_over.geometry import VERTEX_NAMES

                key = (
                    ("small circle", "big circle", "square").index(m.group(4)),
                    VERTEX_NAMES.index(m.group(5)),
                )
                owner = after.shapes.get(key, "gone")  # (a later claim the same step may mark it)
                assert key not in before.shapes
                if m.group(3) == "scores":
                    assert (
                        owner == int(m.group(2))
                        and m.group(6)
                        == f" ({(1, 2, 4)[key[0]]} point{'s' if key[0] else ''}): a marker on it"
                    )
                else:
                    assert m.group(6) == " but has no such marker left: it stays unclaimed"
                    assert owner == -1 or any(f"unclaimed {m.group(4)} at {m.group(5)}" in x for x in events)
                counts["award"] = counts.get("award", 0) + 1
        if after.is_terminal() and not after.truncated and params.get("num_players") != 1:  # OGO-52
            what = "match" if params.get("episode") == "match" else "game"
            won = [f"{'team ' if side == 'team' else 'player_'}{t}" for t in after.winners]
            if len(after.winners) == after.n_teams:
                assert events[-1] == f"the {what} is a draw"
            else:
                assert events[-1] == f"{' and '.join(won)} {'wins' if len(won) == 1 else 'share'} the {what}"
                assert all(after.returns()[s] > 0 for s in range(after.n) if after.team[s] in after.winners)
        if params.get("num_players") == 1 and after.is_terminal():
            won = after.winners == [0]
            assert events[-1] == (
                f"victory: score {after.match_scores[0]}" if won else "the match ends without victory: defeat"
            )
    assert counts.get("award", 0) > 0
    if params.get("num_players") != 1:
        assert counts["match"] >= 3
    if not params.get("blind") and params.get("num_players") != 1:
        assert counts["dark"] >= 1


def test_otto_game_over_names_the_tile_a_placement_puts_down() -> None:
    """OGO-10: the drawn tile is shown face up and the table tile is public, so a placement
    as another seat sees it names its tile; a card or Infinity move is its notation alone."""
    for game, before, action, _events, after in _games("otto_game_over", {}, range(2)):
        text = game.public_action_string(before, action, 1 - before.to_move if before.n == 2 else 0)
        notation = before.action_to_string(action)
        if action < 200:
            from envs.otto_game_over.geometry import TILE_NAMES

            tile = before.drawn if action < 100 else before.tables[before.to_move]
            assert text == f"{notation} ({TILE_NAMES[tile]})"
            if after.matches == before.matches and not after.is_terminal():  # the board is kept
                sq = notation.split()[1]
                assert after.design[(int(sq[1]) - 1) * 5 + "abcde".index(sq[0])] == tile
        else:
            assert text == notation


# ----------------------------------------------------------- Otto the Octopus
@pytest.mark.parametrize(
    "params",
    [{"num_players": 2}, {"num_players": 4}, {"num_players": 3, "simplified": True}, {"num_players": 1}],
)
def test_otto_octopus_says_draws_skips_automatic_passes_and_the_end(params: dict[str, Any]) -> None:
    """OTP-27 (the shark's cost), OTP-18/21/26 (the mover's draws, counted), OTP-23 (skipped
    turns) and OTP-19 (automatic passes) one seat after another from the mover's left, as the
    turn goes round, and OTP-37/38/40 (the end, the final scores, the winners)."""
    from envs.otto_octopus.board import JELLYFISH, SHARK

    seen: set[str] = set()
    for _game, before, action, events, after in _games("otto_octopus", params, range(4)):
        p, n = before.to_move, before.n
        rest = list(events)
        shark = action < 1024 and action >> 6 == SHARK and not before.config.simplified and n > 1
        if shark:  # OTP-27: every other seat's running score drops by 2
            assert rest.pop(0) == "the shark costs every other player 2 points"
            assert all(after.scores[q] == before.scores[q] - 2 for q in range(n) if q != p)
            seen.add("shark")
        # the mover's hand: + the tiles drawn, - the one placed or returned (a swap trades one)
        drawn = len(after.hands[p]) - len(before.hands[p]) + (action < 1024) + (1026 <= action < 1042)
        if drawn:
            assert (
                rest.pop(0)
                == f"player_{p} draws {drawn} tile{'s' if drawn != 1 else ''} ({len(after.pile)} left in the pile)"
            )
            seen.add("draw")
        turns = []
        while rest and (
            m := re.fullmatch(
                r"player_(\d) (skips a turn \(jellyfish\)|cannot place a tile and passes)", rest[0]
            )
        ):
            turns.append(int(m.group(1)))
            seen.add("skip" if "skips" in rest.pop(0) else "pass")
        assert turns == [(p + 1 + i) % n for i in range(len(turns))]  # the turn goes round
        skipped = (
            sum(before.skips)
            + (action < 1024 and action >> 6 == JELLYFISH and n > 1 and not before.config.simplified)
            - sum(after.skips)
        )
        assert skipped == sum("skips" in e for e in events)
        if not after.is_terminal():
            assert rest == []
            continue
        assert not after.truncated  # (the step limit is not reached in these games)
        final = after.final_scores()
        minus = "tiles in hand and in the pile" if n == 1 else "tiles in hand"
        expected = [
            "the game is over"
            if n == 1
            else "every player has passed since the last placement: the game is over",
            f"final scores (score minus {minus}): "
            + ", ".join(f"player_{s} {v}" for s, v in enumerate(final)),
        ]
        best = [s for s in range(n) if final[s] == max(final)]
        if n > 1:
            names = " and ".join(f"player_{s}" for s in best)
            expected.append(f"{names} {'wins' if len(best) == 1 else 'share the win'}")
            assert all(after.returns()[s] > 0 for s in best)
        assert rest == expected
        seen.add("end")
    assert {"draw", "end"} <= seen
    if params["num_players"] > 1:
        assert "pass" in seen
    if params["num_players"] > 1 and not params.get("simplified"):
        assert {"skip", "shark"} <= seen


def test_otto_octopus_says_when_the_step_limit_stops_the_game() -> None:
    """Spec §5: at ``max_steps`` the game stops, no winner (returns 0)."""
    game = get_game("otto_octopus").game_class()(max_steps=6)
    state = game.new_initial_state(np.random.default_rng(0))
    for _ in range(5):
        state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    last = int(np.flatnonzero(state.legal_mask())[0])
    assert game.step_events(state, last)[-1] == "the game stops at its limit of 6 steps, without a winner"
    state.apply(last)
    assert state.is_truncated() and not state.returns().any()


def test_over_and_out_says_when_the_play_pile_is_reshuffled() -> None:
    """OAO-32: with the draw pile empty, the play pile, the card just played included, becomes
    the new draw pile: said once, with its size (a round's first plays never get there in
    random games, so the cards are moved from the draw pile to the play pile first)."""
    game = get_game("over_and_out").game_class()(num_players=2)
    state = game.new_initial_state(np.random.default_rng(0))
    for kind in state.draw_pile:
        state.play_pile[kind] += 1
    moved = len(state.draw_pile)
    state.draw_pile = []
    card = int(next(a for a in np.flatnonzero(state.legal_mask()) if a not in (BUST, TOPSY_TURVY)))
    events = game.step_events(state, card)
    assert events == [
        f"the draw pile is empty: the play pile ({moved + 1} cards, this one included) is shuffled into a new draw pile"
    ]
    state.apply(card)
    assert sum(state.play_pile) == 0 and len(state.draw_pile) == moved  # (one drawn back)
    following = int(next(a for a in np.flatnonzero(state.legal_mask()) if a not in (BUST, TOPSY_TURVY)))
    assert game.step_events(state, following) == []  # the pile grows again: nothing to say


def _last_events(name: str, params: dict[str, Any], seed: int) -> tuple[list[str], Any]:
    """The events of the last move of one seeded random game, and its final state."""
    *_, (_game, _before, _action, events, after) = _games(name, params, range(seed, seed + 1))
    return events, after


def test_otto_game_over_says_who_wins_a_tie_break() -> None:
    """OGO-55: an 8 closed in the tie-break blind match wins the game at once (no match score
    is added); OGO-56: else the tied teams draw tiles until one is strictly highest. Both said,
    then the winner (seeds found by search: both reach a tie at ``target_score=1``)."""
    params = {"num_players": 2, "target_score": 1, "secret_cards": False}
    events, after = _last_events("otto_game_over", params, 14)
    assert events == ["player_0 closed an 8 in the tie-break match: the match ends", "player_0 wins the game"]
    assert after.tiebreak and after.winners == [0] and after.totals[0] == after.totals[1]
    events, after = _last_events("otto_game_over", params, 18)
    draws = [e for e in events if e.startswith("tie-break draw: ")]
    assert draws and events[-1] == f"player_{after.winners[0]} wins the game"
    assert events.index(draws[-1]) == len(events) - 2  # the last draw decides it


def test_otto_game_over_a_dark_pair_on_an_empty_tower_leaves_no_table_tile() -> None:
    """OGO-16 with the tower empty after the pair (then OGO-17/49): no new table tile is
    drawn, and the sentence says so (seed found by search, 2v2)."""
    found = 0
    for _game, before, _action, events, after in _games(
        "otto_game_over", {"num_players": 4, "teams": True}, range(25, 35)
    ):
        for e in events:
            if m := re.fullmatch(
                r"player_(\d) draws a dark tile on a dark table tile: both leave the match; (.*)", e
            ):
                seat, rest = int(m.group(1)), m.group(2)
                if after.matches == before.matches:
                    assert ("has no table tile now" in rest) == (after.tables[seat] < 0)
                    assert ("a new table tile" in rest) == (after.tables[seat] >= 0)
                found += "has no table tile now" in rest
    assert found >= 1


def test_otto_game_over_names_the_tiles_meteorite_deals() -> None:
    """OGO-37: every table tile leaves the match, then from the card's player on each draws
    a new one from the tower top (none once it is empty): the sentence names those tiles as
    dealt, even where a later skip in the same move changes one (a dark pair, OGO-16: in each
    game below, found by search, the sentence named the later tile)."""
    from envs.otto_game_over.actions import CARD_OF_NAME
    from envs.otto_game_over.geometry import TILE_NAMES

    played = 0
    games = [({}, 226), ({}, 285), ({"num_players": 3}, 5), ({"num_players": 3}, 53)]
    moves = (
        move for params, seed in games for move in _games("otto_game_over", params, range(seed, seed + 1))
    )
    for _game, before, action, events, _after in moves:
        text = before.action_to_string(action)
        if text not in ("card meteorite", "card joker as meteorite"):
            continue
        assert CARD_OF_NAME["meteorite"] >= 0
        seat, n = before.to_move, before.n
        dealt = [-1] * n
        for i in range(n):  # the tower's top is its last tile
            dealt[(seat + i) % n] = before.tower[-1 - i] if i < len(before.tower) else -1
        tiles = ", ".join(f"player_{s} {'no tile' if t < 0 else TILE_NAMES[t]}" for s, t in enumerate(dealt))
        said = [e for e in events if e.startswith("every table tile leaves the match")]
        assert said == [f"every table tile leaves the match; the new ones (from player_{seat} on): {tiles}"]
        played += 1
    assert played >= 4
