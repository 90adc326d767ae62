"""Pins of the OTTO Game Over bots and the MCTS evaluation in concrete positions (doc page
"Bots", ``envs.otto_game_over.bots``, ``envs.otto_game_over.evaluate``): the values the
``greedy`` and ``heuristic`` bots compare, their fixed choices (Infinity, cards, ties), their
blindness to hidden information, and the evaluation's numbers in match, game and solo play."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.registry import get_game
from envs.otto_game_over import actions as A
from envs.otto_game_over import flow
from envs.otto_game_over.bots import (
    EIGHT_VALUE,
    GreedyBot,
    HeuristicBot,
    _is_quantum,
    placement_gain,
    solo_placement_value,
)
from envs.otto_game_over.evaluate import PARTIAL, evaluate, solo_shares
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import EMPTY, N_V, B, Q, S
from envs.otto_game_over.rules import PLACE, State
from tests.otto_game_over.helpers import board, make, p_eight, play
from tests.otto_game_over.test_bots import brute_best
from tests.otto_game_over.test_scenarios import S15_BOARD

#: S15's shapes (spec §9): every marker placed but one small circle
S15_SHAPES: dict[str, int | None] = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
S15_SHAPES.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
S15_SHAPES.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})


def _p_eight3() -> State:
    """P-EIGHT (spec §9) with three players, scoring not forced: p0 (1 point: small@vf1) to
    place; ``table a1 r0`` closes the 8; p1 owns small@va6, p2 nothing; the next seat's (p1's)
    table tile is G16, the seat before's (p2's) A4."""
    pos = p_eight(tower=["B7"], tables=["D10", "G16", "A4"])
    return make(pos, num_players=3, head_in_the_clouds=True)


def _act(bot: Any, st: State, seed: int) -> str:
    return st.action_to_string(bot.act(st, st.current_player(), np.random.default_rng(seed)))


# ---------------------------------------------------------------- immediate gain


def test_eight_gain_is_eight_value_plus_the_swing() -> None:
    """An 8 ends the match 8-nil: ``placement_gain`` = ``EIGHT_VALUE`` (30) + 8 - own marker
    points + the others' mean (3 players: 30 + 8 - 1 + (1 + 0) / 2 = 37.5; 2 players: 38), and
    the heuristic values its own 8 at that gain, with no threat subtracted. A different number
    means the 8 is misweighed against ordinary points."""
    st = _p_eight3()
    eight = st.string_to_action("table a1 r0")
    assert EIGHT_VALUE == 30.0
    assert placement_gain(st, eight)[0] == 37.5
    bot = HeuristicBot(OttoGameOverGame(num_players=3, head_in_the_clouds=True))
    assert bot.placement_value(st, eight) == 37.5
    st2 = make(p_eight(tower=["B7"]), head_in_the_clouds=True)
    assert placement_gain(st2, st2.string_to_action("table a1 r0"))[0] == 38.0


def test_a_shape_left_unclaimed_counts_against_the_mover() -> None:
    """OGO-21: a shape closed with no marker of its kind left stays unclaimed (the next player
    may take it): ``greedy`` counts its points against the placement (P-EIGHT, p0 without small
    markers: closing a small circle is -1, a big one still +4 minus nothing)."""
    markers = [{"small": 0, "big": 4, "square": 3}, {"small": 3, "big": 4, "square": 3}]
    st = make(p_eight(tower=["B7"], markers=markers), head_in_the_clouds=True)
    assert placement_gain(st, st.string_to_action("drawn a1 r1"))[0] == -1.0
    assert placement_gain(st, st.string_to_action("drawn d5 r1"))[0] == 4.0
    full = make(p_eight(tower=["B7"]), head_in_the_clouds=True)
    assert placement_gain(full, full.string_to_action("drawn a1 r1"))[0] == 1.0


def test_gain_reads_the_movers_team_in_2v2() -> None:
    """2v2 (OGO-27): seat 3 plays for team B (seats 1 and 3), whose supply and points count:
    team B has no small marker left, so closing a small circle is -1 while team A still holds
    three; its 8 is 30 + 8 - 1 (team B's small@va6) + 1 (team A's small@vf1) = 38."""
    markers = [{"small": 3, "big": 4, "square": 3}, {"small": 0, "big": 4, "square": 3}]
    pos = p_eight(tower=["B7"], tables=["A4", "G16", "B7", "D10"], to_move=3, markers=markers)
    st = make(pos, num_players=4, teams=True, head_in_the_clouds=True)
    assert st.to_move == 3 and st.team[3] == 1
    assert placement_gain(st, st.string_to_action("drawn a1 r1"))[0] == -1.0
    assert placement_gain(st, st.string_to_action("drawn d5 r1"))[0] == 4.0
    assert placement_gain(st, st.string_to_action("table a1 r0"))[0] == 38.0


def test_solo_eight_gain_is_ten_plus_points() -> None:
    """Solo (OGO-61): ``greedy``'s immediate gain for an 8 is 10 plus the markers it places,
    not a match-ending 8's value (S15: the forced 8s each also place the last small marker,
    10 + 1)."""
    st = make({"board": board(S15_BOARD), "shapes": S15_SHAPES, "tower": ["D10"]}, num_players=1)
    for move in ("drawn e1 r0", "drawn e1 r3"):
        assert placement_gain(st, st.string_to_action(move))[0] == 11.0


def _s15(small_markers: int) -> State:
    """Solo S15's board with ``small_markers`` small markers left (no big or square one)."""
    pos = {
        "board": board(S15_BOARD),
        "shapes": S15_SHAPES,
        "tower": ["D10"],
        "markers": [{"small": small_markers, "big": 0, "square": 0}],
    }
    return make(pos, num_players=1)


def test_solo_victory_value_counts_shapes_left_unmarked() -> None:
    """OGO-62: a victory scores 32 + 2 per empty square - 1 per unmarked shape. In S15 with the
    supply already empty, each forced 8 closes a small circle no marker can take: 41, not 42;
    the heuristic's value equals the return of playing it."""
    st = _s15(small_markers=0)
    for move in ("drawn e1 r0", "drawn e1 r3"):
        a = st.string_to_action(move)
        after = st.clone()
        after.apply(a)
        assert after.is_terminal() and after.match_scores == [41]
        assert solo_placement_value(st, a) == pytest.approx(41 / 32)
        assert solo_placement_value(st, a) == pytest.approx(float(after.returns()[0]))


def test_solo_eight_with_a_marker_still_in_the_supply_is_no_victory() -> None:
    """OGO-61: a victory needs every marker placed and an 8. S15 with two small markers in the
    supply: the forced 8 places one, one is left, so the match goes on and the value is that of
    a running match (below ``solo_value(1.0)`` = 0.5), the evaluation after playing it."""
    st = _s15(small_markers=2)
    for move in ("drawn e1 r0", "drawn e1 r3"):
        a = st.string_to_action(move)
        after = st.clone()
        after.apply(a)
        assert not after.is_terminal() and after.supply == [[1, 0, 0]]
        value = solo_placement_value(st, a)
        assert value < 0.5
        assert value == pytest.approx(float(evaluate(after)[0]), abs=1e-12)


def test_solo_victory_value_is_never_negative(monkeypatch: pytest.MonkeyPatch) -> None:
    """OGO-62 / doc page: a solo victory pays ``max(score, 0) / 32``; a victory whose score came
    out negative (many unmarked shapes) is worth 0, never less (it still beats a defeat's -1)."""
    import envs.otto_game_over.bots as bots

    monkeypatch.setattr(bots, "victory_score", lambda empty, unmarked: -7)
    st = make({"board": board(S15_BOARD), "shapes": S15_SHAPES, "tower": ["D10"]}, num_players=1)
    assert solo_placement_value(st, st.string_to_action("drawn e1 r0")) == 0.0


# ---------------------------------------------------------------- the next player's threat


def _threat_reference(st: State, action: int, mine: int) -> float:
    """The heuristic's value of a placement from its definition: the gain minus 0.8 x the mean
    over the 8 designs of the next seat's best reply (an 8 worth ``EIGHT_VALUE`` + my points
    more), its public table tile a 9th option; every square and orientation traced."""
    gain = placement_gain(st, action)[0]
    if gain >= EIGHT_VALUE:
        return gain
    t, rest = divmod(action, 100)
    sq, k = divmod(rest, 4)
    after = st.clone()
    flow.set_tile(after, sq, st.drawn if t == 0 else st.tables[st.to_move], k)
    pts, eights = brute_best(after, st.config.eight_lobes != "round")
    value = [p + (EIGHT_VALUE + mine if eights >> d & 1 else 0) for d, p in enumerate(pts)]
    table = st.tables[(st.to_move + 1) % st.n]
    if 0 <= table < 8:
        value = [max(v, value[table]) for v in value]
    return gain - 0.8 * sum(value) / 8


@pytest.mark.parametrize("players", [2, 3])
def test_placement_value_subtracts_the_next_seats_threat(players: int) -> None:
    """Doc page: the heuristic subtracts what the *next* opponent could close next turn with its
    public table tile or an average draw, above all an 8 (which also costs the mover its
    points). Every placement of P-EIGHT equals that definition computed by tracing, and some
    placements do leave the next seat an 8."""
    st = _p_eight3() if players == 3 else make(p_eight(tower=["B7"]), head_in_the_clouds=True)
    bot = HeuristicBot(OttoGameOverGame(num_players=players, head_in_the_clouds=True))
    legal_actions = st.legal_actions()
    got = bot.scores(st, 0, legal_actions, np.random.default_rng(0))
    mine = st.marker_points(0)
    assert mine == 1
    for a, value in zip(legal_actions, got, strict=True):
        assert value == pytest.approx(_threat_reference(st, a, mine), abs=1e-9), st.action_to_string(a)
    after = st.clone()
    a = st.string_to_action("drawn d5 r1")
    flow.set_tile(after, 23, st.drawn, 1)
    assert brute_best(after, False)[1] != 0  # an 8 is open to the next seat after some move
    assert bot.scores(st, 0, [a], np.random.default_rng(0))[0] == pytest.approx(
        _threat_reference(st, a, mine)
    )


def test_threat_reads_the_next_seats_table_tile_not_the_previous() -> None:
    """Three players, p0 to place: p1 moves next, so p2's table tile (it plays after p1) does
    not change p0's values, while p1's does."""
    bot = HeuristicBot(OttoGameOverGame(num_players=3, head_in_the_clouds=True))
    st = _p_eight3()
    legal_actions = st.legal_actions()
    base = bot.scores(st, 0, legal_actions, np.random.default_rng(0))
    changed_next = False
    for tile in ("A4", "B7", "D10", "G16"):
        prev = make(
            p_eight(tower=["B7"], tables=["D10", "G16", tile]), num_players=3, head_in_the_clouds=True
        )
        assert bot.scores(prev, 0, legal_actions, np.random.default_rng(0)) == base
        nxt = make(p_eight(tower=["B7"], tables=["D10", tile, "A4"]), num_players=3, head_in_the_clouds=True)
        changed_next |= bot.scores(nxt, 0, legal_actions, np.random.default_rng(0)) != base
    assert changed_next


# ---------------------------------------------------------------- fixed choices


def _infinity_state() -> State:
    """P-EIGHT after p0's 8 (``table a1 r0``): p1 holds Infinity and a joker and must answer."""
    st = make(p_eight(tower=["B7", "A4", "G16"], hands=[[], ["infinity", "joker"]]))
    play(st, "table a1 r0")
    assert st.current_player() == 1
    return st


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_bots_save_with_the_infinity_card_first(name: str) -> None:
    """Doc page: greedy and heuristic always save with Infinity, spending the Infinity card
    before the joker (``card infinity``), never ``keep infinity``."""
    st = _infinity_state()
    bot = get_game("otto_game_over").bots()[name](OttoGameOverGame())
    for seed in range(3):
        assert _act(bot, st, seed) == "card infinity"


def test_heuristic_scores_rank_infinity_first() -> None:
    """The MCTS prior (``scores``) ranks the Infinity answers as ``act`` chooses: the card,
    then the joker, then keeping."""
    st = _infinity_state()
    legal_actions = st.legal_actions()
    values = HeuristicBot(OttoGameOverGame()).scores(st, 1, legal_actions, np.random.default_rng(0))
    order = [st.action_to_string(legal_actions[i]) for i in np.argsort(values)[::-1]]
    assert order == ["card infinity", "card joker as infinity", "keep infinity"]


def _card_state() -> State:
    """P-EIGHT at the start of p0's turn, holding three cards: the card phase."""
    hands = [["meteorite", "revolution-cw", "time-travel"], ["infinity"]]
    st = make(p_eight(tower=["B7", "A4", "G16"], hands=hands, phase="start"))
    assert st.action_to_string(st.legal_actions()[0]) == "no card"
    return st


def test_greedy_keeps_its_cards() -> None:
    """Doc page: ``greedy`` keeps its cards (``no card`` in the card phase)."""
    st = _card_state()
    for seed in range(3):
        assert _act(GreedyBot(OttoGameOverGame()), st, seed) == "no card"


def test_card_margin_default_and_direction() -> None:
    """Spec ``heuristic:card_margin=1.5`` is the default; a card is played only when it gains
    more than the margin: a huge margin keeps the cards, a hugely negative one plays one."""
    game = OttoGameOverGame()
    assert HeuristicBot(game).card_margin == 1.5
    from_spec = make_bot(game, "heuristic", get_game("otto_game_over").bots())
    assert isinstance(from_spec, HeuristicBot) and from_spec.card_margin == 1.5
    st = _card_state()
    for seed in range(2):
        assert _act(HeuristicBot(game, card_margin=1e6), st, seed) == "no card"
        assert _act(HeuristicBot(game, card_margin=-1e6), st, seed) != "no card"


def test_keeping_the_cards_wins_a_tie() -> None:
    """With ``card_margin=0`` a card that gains exactly what keeping gains is not played (here
    the meteorite and Time Travel tie with ``no card``: the 8 with the table tile follows)."""
    st = _card_state()
    bot = HeuristicBot(OttoGameOverGame(), card_margin=0.0)
    values = bot.scores(st, 0, st.legal_actions(), np.random.default_rng(0))
    assert values.count(max(values)) >= 2  # a real tie
    for seed in range(3):
        assert _act(bot, st, seed) == "no card"


def test_card_values_follow_the_best_placement() -> None:
    """A card's value is its effect, then the *best* placement it leaves (P-EIGHT, scoring not
    forced, p0 holding cards): keeping the cards draws and then closes the 8 with the table D10
    (38 + the 1.5 margin); Time Travel, the meteorite and Alien Kidnapping leave that 8 (38);
    Magnetic Inversion and the Revolutions hand the D10 away (measured: -1.7)."""
    hands = [
        ["meteorite", "revolution-cw", "time-travel", "magnetic-inversion", "alien-kidnapping"],
        ["infinity"],
    ]
    st = make(p_eight(tower=["B7", "A4", "G16"], hands=hands, phase="start"), head_in_the_clouds=True)
    bot = HeuristicBot(OttoGameOverGame(head_in_the_clouds=True))
    expected = {
        "no card": 39.5,
        "card time-travel": 38.0,
        "card meteorite": 38.0,
        "card alien-kidnapping player_1": 38.0,
        "card magnetic-inversion player_1": -1.7,
        "card revolution-cw": -1.7,
    }
    actions = [st.string_to_action(m) for m in expected]
    got = bot.scores(st, 0, actions, np.random.default_rng(0))
    assert got == pytest.approx(list(expected.values()), abs=1e-9)


def test_card_value_never_counts_the_opponents_placement() -> None:
    """The tower is empty and p0 has no table tile: whatever p0 does at the start of its turn,
    the turn passes and p1 places next (with the D10 that closes the 8). That placement is p1's,
    not p0's gain: keeping the cards is worth the margin alone, Time Travel 0."""
    pos = p_eight(
        tower=[], tower_rest=False, tables=[None, "D10"], hands=[["time-travel"], []], phase="start"
    )
    st = make(pos)
    after = st.clone()
    after.apply(A.NO_CARD)
    assert after.phase == PLACE and after.to_move == 1
    bot = HeuristicBot(OttoGameOverGame())
    values = bot.scores(st, 0, st.legal_actions(), np.random.default_rng(0))
    assert [st.action_to_string(a) for a in st.legal_actions()] == ["no card", "card time-travel"]
    assert values == [1.5, 0.0]


#: a match-winning Quantum Leap (found in a seeded game): p1 holds the card, p0 no card to answer
QUANTUM_EIGHT = {
    "board": {"c2": "C8/0", "b4": "B7/2", "c4": "B7/2", "b5": "A4/0", "c5": "D10/2"},
    "tables": ["Z0", "Z0"],
    "hands": [[], ["quantum-leap"]],
    "to_move": 1,
    "phase": "card",
}


def test_a_quantum_leap_that_wins_the_match_is_worth_eight_value() -> None:
    """OGO-24/41: ``card quantum-leap c5 a5 r2`` closes an 8 for p1 and nobody can answer with
    Infinity: the match ends 0-8 for p1, worth ``EIGHT_VALUE`` (+30, not -30) in the card scores
    and in the simulation of a card action."""
    st = make(QUANTUM_EIGHT)
    a = st.string_to_action("card quantum-leap c5 a5 r2")
    after = st.clone()
    after.apply(a)
    assert after.match_scores == [0, 8]
    bot = HeuristicBot(OttoGameOverGame())
    assert bot.scores(st, 1, [a], np.random.default_rng(0)) == [EIGHT_VALUE]
    assert bot._after(st, a, np.random.default_rng(0)) == EIGHT_VALUE


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan])
def test_card_margin_must_be_finite(bad: float) -> None:
    """A non-finite ``card_margin`` is refused, naming the value."""
    with pytest.raises(ValueError, match=rf"card_margin must be a finite number, got {bad!r}"):
        HeuristicBot(OttoGameOverGame(), card_margin=bad)


def test_bot_table_names() -> None:
    """The registry's names pick the documented bots."""
    table = get_game("otto_game_over").bots()
    assert table["greedy"] is GreedyBot and table["heuristic"] is HeuristicBot
    assert table["random"].name == "random"


def test_quantum_leap_actions_are_recognised() -> None:
    """Quantum Leaps, played as the card or as the joker, are the moves the heuristic values off
    the board (and samples when there are many); Alien Kidnapping and Infinity are not."""
    game = OttoGameOverGame()
    yes = ("card quantum-leap b1 e5 r0", "card joker as quantum-leap e5 a1 r3")
    no = ("card alien-kidnapping player_0", "card joker as alien-kidnapping player_1", "card meteorite")
    for text in yes:
        assert _is_quantum(game.string_to_action(text)), text
    for text in no:
        assert not _is_quantum(game.string_to_action(text)), text
    assert not _is_quantum(A.CARD_INFINITY) and not _is_quantum(A.NO_CARD)


def test_heuristic_tries_sixty_quantum_leaps(monkeypatch: pytest.MonkeyPatch) -> None:
    """With hundreds of Quantum Leap moves the heuristic values a random sample of
    ``QUANTUM_SAMPLE`` = 60 per decision (fewer would play Quantum Leap blind, more is slow),
    plus every leap that closes an 8 (none here)."""
    import envs.otto_game_over.bots as bots

    assert bots.QUANTUM_SAMPLE == 60
    valued: list[int] = []
    real = HeuristicBot._card_values

    def counted(self: HeuristicBot, st: State, actions: list[int], rng: np.random.Generator) -> list[float]:
        valued.extend(a for a in actions if _is_quantum(a))
        return real(self, st, actions, rng)

    monkeypatch.setattr(HeuristicBot, "_card_values", counted)
    st = _tower_position(["D10", "Z0", "Z0", "Z0"])
    quantum = [a for a in st.legal_actions() if _is_quantum(a)]
    assert len(quantum) > 300 and not any(bots._closes_eight(st, a) for a in quantum)
    HeuristicBot(OttoGameOverGame()).act(st, 0, np.random.default_rng(0))
    assert len(valued) == len(set(valued)) == 60 and set(valued) <= set(quantum)


def test_heuristic_never_samples_away_a_leap_that_closes_an_eight() -> None:
    """``QUANTUM_EIGHT``: one of 380 leaps closes an 8 and wins the match. Sampled with the
    rest, it was played at 15 seeds of 100; now it is always valued, and played unless the
    re-dealt view gives p0 an Infinity to answer it (the bot cannot see p0's hand)."""
    st = make(QUANTUM_EIGHT)
    win = st.string_to_action("card quantum-leap c5 a5 r2")
    bot = HeuristicBot(OttoGameOverGame())
    played = [bot.act(st, 1, np.random.default_rng(seed)) for seed in range(40)]
    assert played.count(win) >= 32


# ---------------------------------------------------------------- ties and seeds


def test_ties_are_broken_by_the_seed() -> None:
    """Among equally good placements the scripted bots pick by their generator: the same seed
    gives the same move, and different seeds spread over the tied moves (on the opening board
    every placement next to the centre ties for greedy)."""
    game = OttoGameOverGame()
    st = make({"tables": ["B7", "G16"], "tower": ["D10"]})
    for bot in (GreedyBot(game), HeuristicBot(game)):
        picks = {_act(bot, st, seed) for seed in range(12)}
        assert len(picks) >= 3, bot.name
        assert all(_act(bot, st, s) == _act(bot, st, s) for s in range(3))


# ---------------------------------------------------------------- hidden information


def _tower_position(tower: list[str]) -> State:
    """P-EIGHT without the table 8 (p0's table tile is A4): p0 holds a Quantum Leap at the
    start of its turn; only a D10 drawn from the (face-down) tower would close the 8 now."""
    pos = p_eight(
        tower=tower, tower_rest=False, tables=["A4", "G16"], hands=[["quantum-leap"], []], phase="start"
    )
    return make(pos)


def test_heuristic_card_choice_is_blind_to_the_tower_order() -> None:
    """Bots read no hidden information: with the D10 on top of the tower or at its bottom, the
    heuristic's card decision and its card scores (the MCTS prior) are the same for a seed (a
    bot that saw the order would keep its cards only when the 8 is really coming)."""
    game = OttoGameOverGame()
    bot = HeuristicBot(game)
    top = _tower_position(["D10", "Z0", "Z0", "Z0"])
    bottom = _tower_position(["Z0", "Z0", "Z0", "D10"])
    assert top.legal_actions() == bottom.legal_actions()
    for seed in range(6):
        assert _act(bot, top, seed) == _act(bot, bottom, seed)
    some = top.legal_actions()[:6]
    assert bot.scores(top, 0, some, np.random.default_rng(1)) == bot.scores(
        bottom, 0, some, np.random.default_rng(1)
    )


def test_heuristic_card_scores_are_blind_to_hidden_hands() -> None:
    """The opponent's hand and the deck are hidden: swapping them (same cards in all) leaves the
    heuristic's card scores unchanged for a seed."""
    game = OttoGameOverGame()
    bot = HeuristicBot(game)
    mine = ["meteorite", "revolution-cw", "time-travel", "quantum-leap"]

    def state(hand1: list[str], deck: list[str]) -> State:
        pos = p_eight(tower=["B7", "A4"], tower_rest=False, hands=[mine, hand1], deck=deck, phase="start")
        return make(pos)

    a = state(["infinity", "magnetic-inversion"], ["joker", "alien-kidnapping"])
    b = state(["joker", "alien-kidnapping"], ["magnetic-inversion", "infinity"])
    some = a.legal_actions()[:5]
    assert bot.scores(a, 0, some, np.random.default_rng(0)) == bot.scores(
        b, 0, some, np.random.default_rng(0)
    )


# ---------------------------------------------------------------- evaluation numbers


def test_match_evaluation_numbers() -> None:
    """``episode="match"``: (own points - mean of the others) / 32 per team. Three players with
    4, 1 and 0 points: (4 - 0.5) / 32, (1 - 2) / 32, (0 - 2.5) / 32."""
    pos = {
        "board": board(S15_BOARD),
        "shapes": {"square@vc1": 0, "small@va1": 1},
        "tables": ["A4", "B7", "C8"],
        "tower": ["D10"],
    }
    st = make(pos, num_players=3, episode="match")
    assert [st.marker_points(t) for t in range(3)] == [4, 1, 0]
    np.testing.assert_allclose(evaluate(st), [3.5 / 32, -1 / 32, -2.5 / 32], atol=1e-12)


def test_game_evaluation_numbers() -> None:
    """``episode="game"``: a softmax of (totals + this match's markers) / 4; two players, that
    is ``tanh(d / 2)`` of the strength gap d: totals 10 and 4, markers 1 and 1 (P-EIGHT):
    d = 6 / 4, value tanh(0.75); with totals level the markers alone count."""
    st = make(p_eight(tower=["B7"], totals=[10, 4]))
    np.testing.assert_allclose(evaluate(st), [math.tanh(0.75), -math.tanh(0.75)], atol=1e-12)
    st = make(p_eight(tower=["B7"], totals=[5, 5], shapes={"small@vf1": 0, "small@va6": 0}))
    np.testing.assert_allclose(evaluate(st), [math.tanh(0.25), -math.tanh(0.25)], atol=1e-12)


def _shares(
    near_slots: dict[int, list[int]], far_slots: dict[int, list[int]], supply: list[int]
) -> list[float]:
    """``solo_shares`` of a board given by its vertex slots alone (no tile, so no X tile)."""
    near, far = [EMPTY] * (4 * N_V), [EMPTY] * (4 * N_V)
    for v, slots in near_slots.items():
        near[4 * v : 4 * v + 4] = slots
    for v, slots in far_slots.items():
        far[4 * v : 4 * v + 4] = slots
    return solo_shares(near, far, [-1] * 25, [0] * 25, supply, False)


def test_solo_shares_count_open_single_kind_shapes_only() -> None:
    """OGO-61 progress (doc page): a half-built shape counts ``PARTIAL * f**2`` of a marker for
    its filled share f when it is open, started and of one kind that closes there (small and
    square strokes at the near slots, big ones at the far slots); a closed or mixed one does
    not; at most one per marker still in the supply."""
    full = [4, 4, 3]
    assert _shares({0: [S, S, S, EMPTY]}, {}, full) == pytest.approx([PARTIAL * 0.75**2 / 4, 0, 0, 0])
    assert _shares({0: [S, S, S, S]}, {}, full) == [0, 0, 0, 0]  # closed: not half-built
    assert _shares({0: [S, Q, EMPTY, EMPTY]}, {}, full) == [0, 0, 0, 0]  # mixed
    assert _shares({0: [Q, Q, EMPTY, EMPTY]}, {}, full) == pytest.approx([0, 0, PARTIAL * 0.25 / 3, 0])
    assert _shares({}, {0: [B, EMPTY, B, EMPTY]}, full) == pytest.approx([0, PARTIAL * 0.25 / 4, 0, 0])
    assert _shares({0: [B, B, EMPTY, EMPTY]}, {}, full) == [0, 0, 0, 0]  # big strokes close at far slots
    three = {0: [S, S, S, EMPTY], 1: [S, S, EMPTY, EMPTY], 2: [S, EMPTY, EMPTY, EMPTY]}
    one_left = _shares(three, {}, [1, 4, 3])
    assert one_left[0] == pytest.approx((3 + PARTIAL * 0.75**2) / 4)


def test_solo_shares_default_to_round_lobes() -> None:
    """OGO-06: by default (``eight_lobes="round"``) a lobe holding a square stroke cannot close,
    so an X tile with one counts nothing toward the 8 unless ``square_lobes`` is asked for."""
    st = make({"board": {"c2": "D10/0", "b2": "G16/0"}, "tower": ["A4"]}, num_players=1)
    args = (st.near, st.far, st.design, st.rot, st.supply[0], False)
    assert solo_shares(*args)[3] == 0.0
    assert solo_shares(*args, True)[3] > 0.0
