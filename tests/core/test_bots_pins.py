"""Pins found by mutation testing of the scripted bots (``envs/core/bots.py`` and each game's
``bots.py`` / ``evaluate.py``): each test failed on a plausible bug that the rest of the suite
let through. They pin choices and values in concrete positions rather than win rates, so a
bot that plays for the wrong seat, reads the wrong hand or weighs a documented rule the wrong
way round fails here at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import ScoringBot, make_bot
from envs.core.game import Game, GameState
from envs.core.registry import GAMES
from tests.core.test_mcts import NimGame


# ------------------------------------------------------------------------- core
class _Table(ScoringBot):
    """Scores each action from a fixed table; counts the calls to ``score``."""

    name = "table"

    def __init__(self, game: Game[Any, Any], table: list[float]) -> None:
        super().__init__(game)
        self.table = table
        self.calls = 0

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        self.calls += 1
        return self.table[action]


def test_a_single_legal_action_is_not_scored() -> None:
    """``scored_actions``: a lone legal move gets 0.0 without a call to ``score`` (the
    pretraining teacher and the MCTS prior read these scores)."""
    game = NimGame(stones=1)
    state = game.new_initial_state(np.random.default_rng(0))
    bot = _Table(game, [5.0, 5.0, 5.0])
    legal, scores = bot.scored_actions(state, 0, np.random.default_rng(0))
    assert legal.tolist() == [0] and scores.tolist() == [0.0]
    assert bot.calls == 0


def test_a_near_tie_is_not_a_tie() -> None:
    """Only scores within 1e-9 of the best tie: a move 0.05 worse is never played."""
    game = NimGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = _Table(game, [0.0, 1.0, 0.95])
    assert bot.best_actions(state, 0, np.random.default_rng(0)) == [1]
    assert {bot.act(state, 0, np.random.default_rng(s)) for s in range(20)} == {1}
    tied = _Table(game, [1.0, 1.0 - 1e-12, 0.0])
    assert tied.best_actions(state, 0, np.random.default_rng(0)) == [0, 1]


def test_an_unknown_bot_lists_the_core_bots_the_game_offers() -> None:
    """The error for an unknown name lists the game's table plus ``mcts`` for every game and
    ``ismcts`` only where there is hidden information (octi hides nothing)."""
    octi = GAMES["octi"]
    with pytest.raises(
        ValueError, match=r"unknown bot 'nope'; available: \['greedy', 'heuristic', 'mcts', 'random'\]$"
    ):
        make_bot(octi.game_class()(), "nope", octi.bots())
    oao = GAMES["over_and_out"]
    with pytest.raises(
        ValueError,
        match=r"unknown bot 'nope'; available: \['greedy', 'heuristic', 'ismcts', 'mcts', 'random'\]$",
    ):
        make_bot(oao.game_class()(), "nope", oao.bots())


def test_a_factory_taking_any_keywords_gets_every_spec_parameter() -> None:
    """A factory with ``**kwargs`` takes any parameter: ``make_bot`` passes the spec's values
    through (typed as read) instead of refusing them as unknown."""
    from envs.core.bots import RandomBot

    seen: dict[str, Any] = {}

    def anything(game: Game[Any, Any], **params: Any) -> RandomBot:
        seen.update(params)
        return RandomBot(game)

    bot = make_bot(NimGame(), "any:level=3,mode=fast", {"any": anything})
    assert isinstance(bot, RandomBot)
    assert seen == {"level": 3, "mode": "fast"}


def test_spec_values_are_trimmed_before_they_are_read() -> None:
    """Spaces around a value do not turn ``true`` or a bot name into other text."""
    from envs.core.bots import parse_bot_spec

    assert parse_bot_spec("mcts:flag= true , rollout = heuristic,sims= 20") == (
        "mcts",
        {"flag": True, "rollout": "heuristic", "sims": 20},
    )


def test_a_tables_own_entry_wins_over_the_core_fallbacks() -> None:
    """``mcts`` / ``ismcts`` come from the core only when the table has no bot of that name."""
    from envs.core.bots import RandomBot

    assert type(make_bot(NimGame(), "mcts", {"mcts": RandomBot})) is RandomBot
    assert type(make_bot(NimGame(), "ismcts", {"ismcts": RandomBot})) is RandomBot


def test_a_bad_rng_is_named_by_its_type() -> None:
    """The message for an rng that is no Generator says what was passed instead."""
    game = NimGame()
    state = game.new_initial_state(np.random.default_rng(0))
    from envs.core.bots import RandomBot

    bot = RandomBot(game)
    with pytest.raises(ValueError, match=r"rng must be a numpy Generator.*got RandomState$"):
        bot.act(state, 0, np.random.RandomState(0))  # type: ignore[arg-type]


# ------------------------------------------------------------------------- octi
def _octi_scores(bot: ScoringBot, st: Any, player: int = 0) -> dict[str, float]:
    legal, scores = bot.scored_actions(st, player, np.random.default_rng(0))
    return {st.action_to_string(int(a)): float(s) for a, s in zip(legal, scores, strict=True)}


def test_octi_greedy_scores_material_then_supply_for_its_own_seat() -> None:
    """Doc page: greedy keeps the best immediate outcome, material then prong supply. A jump
    that takes a pod is worth +10 minus the supply gap (9.5); each prong costs supply (-1.0)."""
    from envs.octi.bots import GreedyBot
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    st = custom(black=(("c3", "N"), ("a2", "")), red=(("c4", ""), ("f6", "")))
    scores = _octi_scores(GreedyBot(OctiGame()), st)
    assert scores.pop("jump c3 N") == 9.5
    assert set(scores.values()) == {-1.0}
    assert GreedyBot(OctiGame()).best_actions(st, 0, np.random.default_rng(0)) == [
        st.string_to_action("jump c3 N")
    ]


def test_octi_material_counts_pods_jumped_this_turn_and_pods_in_reserve() -> None:
    """``outcome``: mid-turn, an enemy pod jumped but not yet captured counts as taken by the
    mover; in X, pods in reserve are alive (only captured ones are gone)."""
    from envs.octi.bots import outcome
    from envs.octi.rules import CAPTURED
    from tests.octi.helpers import custom

    st = custom(black=(("c3", "N"), ("a2", "")), red=(("c4", ""), ("f6", "")))
    st.play("jump c3 N")  # the capture / spare choice is still to come
    assert (outcome(st, 0), outcome(st, 1)) == (9.5, -9.5)
    x = custom("x_fast", black=(("e4", ""),), red=(("e6", ""),))
    assert outcome(x, 0) == 0.0  # six pods in reserve each
    x.pos[x.P + 1] = CAPTURED
    x.rebuild_board()
    assert (outcome(x, 0), outcome(x, 1)) == (10.0, -10.0)


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_octi_bots_capture_every_enemy_pod_of_a_jump_series(name: str) -> None:
    """A series over two enemy pods asks twice (b3, then d3). An enemy pod already spared is
    alive again: ``capture b3`` must score above ``spare b3``. Counting every pod on a jumped
    square as taken scored them the same, and both bots spared b3 about half the time, a whole
    pod thrown away (the doc page: they capture enemy pods)."""
    from envs.octi.bots import BOTS, outcome
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    st = custom(black=(("a3", "E"), ("a2", "")), red=(("b3", ""), ("d3", ""), ("f7", "")))
    st.play("jump a3 E", "jump c3 E")  # CAPTURE: b3 first, then d3
    bot = BOTS[name](OctiGame())
    scores = _octi_scores(bot, st)
    assert set(scores) == {"capture b3", "spare b3"} and scores["capture b3"] - scores["spare b3"] == 10.0
    assert bot.best_actions(st, 0, np.random.default_rng(0)) == [st.string_to_action("capture b3")]
    spared = st.clone()
    spared.play("spare b3")  # d3 still waits: it counts as taken, b3 does not
    assert (outcome(spared, 0), outcome(spared, 1)) == (-0.5, 0.5)
    spared.play("capture d3")
    assert outcome(spared, 0) == -0.5  # the turn's end agrees: b3 alive, d3 gone, its prongs none


def test_octi_can_reach_base_respects_occupied_squares() -> None:
    """Basic: no step onto one's own pod on an enemy base, no jump onto an occupied base."""
    from envs.octi.bots import can_reach_base
    from tests.octi.helpers import custom

    assert not can_reach_base(custom(black=(("c5", "N"), ("c6", "")), red=(("a1", ""),)), 0)
    assert not can_reach_base(custom(black=(("c4", "N"),), red=(("c5", ""), ("c6", ""))), 0)
    assert can_reach_base(custom(black=(("c4", "N"),), red=(("c5", ""),)), 0)  # jump to c6


def test_octi_exposed_counts_own_pods_an_enemy_can_jump() -> None:
    from envs.octi.bots import _exposed
    from tests.octi.helpers import custom

    st = custom(black=(("c3", ""),), red=(("c4", "S"),))
    assert (_exposed(st, 0), _exposed(st, 1)) == (1, 0)
    blocked = custom(black=(("c3", ""), ("c2", "")), red=(("c4", "S"),))  # no landing square
    assert _exposed(blocked, 0) == 0


def test_octi_threat_is_the_named_seats_and_classic_needs_the_last_base() -> None:
    """``_threat(st, seat)``: ``seat`` can land on an enemy base next turn; in classic only
    when it already holds the other enemy bases (three-base win)."""
    from envs.octi.bots import _threat, can_reach_base
    from tests.octi.helpers import custom

    st = custom(black=(("c5", "N"),), red=(("e4", ""),))
    assert (_threat(st, 0), _threat(st, 1)) == (True, False)
    two_held = custom("x_classic", black=(("c7", ""), ("e7", ""), ("g6", "N")), red=(("a1", ""),))
    assert _threat(two_held, 0)
    one_held = custom("x_classic", black=(("c7", ""), ("g6", "N")), red=(("a1", ""),))
    assert can_reach_base(one_held, 0) and not _threat(one_held, 0)


def test_octi_progress_aims_at_free_bases_and_rewards_held_ones_in_classic() -> None:
    """``_progress``: basic, the closest pod's prong path (2 steps c4 -> c6) counts twice, the
    second pod's half (no prongs: Chebyshev 4 + 3), prongs add 0.1 each up to 12; classic, each enemy base held is +6 and
    only the bases not yet held are aimed at."""
    from envs.octi.bots import _progress
    from tests.octi.helpers import custom

    basic = custom(black=(("c4", "N"), ("a2", "")), red=(("f6", ""),))
    assert _progress(basic, 0) == pytest.approx(-2.0 * 2 - 0.5 * 7 + 0.1)
    alone = custom(black=(("c4", "N"),), red=(("f6", ""),))  # no second pod: counted as 9 away
    assert _progress(alone, 0) == pytest.approx(-2.0 * 2 - 0.5 * 9 + 0.1)
    every = "N,NE,E,SE,S,SW,W,NW"
    full = custom(black=(("c4", every), ("a2", every)), red=(("f6", ""),))  # 16 prongs count as 12
    assert _progress(full, 0) == pytest.approx(-2.0 * 2 - 0.5 * 4 + 0.1 * 12)
    classic = custom("x_classic", black=(("e3", "N"), ("e7", ""), ("c7", "")), red=(("a9", ""),))
    # holds c7 and e7 (+12); g7 is the target: e7 -> g7 2 + 3, e3 (N only) 4 + 2
    assert _progress(classic, 0) == pytest.approx(12.0 - 2.0 * 5 - 0.5 * 6 + 0.1)


def test_octi_heuristic_blocks_a_base_threat_and_avoids_an_exposed_step() -> None:
    """Doc page rules: never end a turn that lets the opponent land on a base next turn (red
    c3 reaches c2: only ``step b2 E`` blocks it); keep pods out of enemy jumps (``step c3 NE``
    puts the pod where red e5 jumps it, ``step c3 NW`` is as close to a base and safe)."""
    from envs.octi.bots import HeuristicBot
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    bot = HeuristicBot(OctiGame())
    st = custom(black=(("b2", "E"), ("e2", "")), red=(("c3", "S"), ("f6", "")))
    scores = _octi_scores(bot, st)
    assert max(scores, key=scores.__getitem__) == "step b2 E"
    assert all(v < -4000 for k, v in scores.items() if k != "step b2 E")
    st = custom(black=(("c3", "NW,NE"),), red=(("e5", "SW"), ("f7", "")))
    scores = _octi_scores(bot, st)
    assert max(scores, key=scores.__getitem__) == "step c3 NW"
    assert scores["step c3 NW"] - scores["step c3 NE"] == pytest.approx(4.0)


def test_octi_heuristic_judges_the_threat_when_its_turn_ends() -> None:
    """Mid-turn (a jump whose capture is still to choose) the jumped red pod, which threatens
    c2, is about to go: the threat rule looks only at states where the opponent moves next,
    so the jump that removes the threat is chosen and not scored as a lost game."""
    from envs.octi.bots import HeuristicBot
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    st = custom(black=(("c4", "S"), ("e2", "")), red=(("c3", "S"), ("f6", "")))
    scores = _octi_scores(HeuristicBot(OctiGame()), st)
    assert max(scores, key=scores.__getitem__) == "jump c4 S"
    assert scores["jump c4 S"] > -100


def test_octi_heuristic_and_evaluation_fear_an_advancing_opponent() -> None:
    """The same move is worth less, and the position less for Black, the closer a red pod
    comes to Black's bases (the opponent's progress counts against the mover)."""
    from envs.octi.bots import HeuristicBot
    from envs.octi.evaluate import evaluate
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    bot = HeuristicBot(OctiGame())
    values, evals = [], []
    for square in ("b6", "b5", "b4"):
        st = custom(black=(("e4", ""),), red=((square, "S"), ("f7", "")))
        values.append(bot.score(st, 0, st.string_to_action("prong e4 N"), np.random.default_rng(0)))
        evals.append(float(evaluate(st)[0]))
    assert values[0] > values[1] > values[2]
    assert 0 > evals[0] > evals[1] > evals[2]


def test_octi_evaluation_scale_and_threats() -> None:
    """``evaluate``: one pod up (X, symmetric otherwise) is ``tanh(10 / 12)`` for Black and
    minus that for Red whoever moves; a threat counts for the side that has it, more when
    that side is to move (40) than when the other side may still parry it (12)."""
    import math

    from envs.octi.evaluate import evaluate
    from envs.octi.rules import CAPTURED
    from tests.octi.helpers import custom

    st = custom("x_fast", black=(("e4", ""),), red=(("e6", ""),))
    np.testing.assert_allclose(evaluate(st), [0.0, 0.0], atol=1e-12)
    st.pos[st.P + 1] = CAPTURED
    st.rebuild_board()
    np.testing.assert_allclose(evaluate(st), [math.tanh(10 / 12), -math.tanh(10 / 12)])
    black = [float(evaluate(custom(black=(("c5", "N"),), red=(("e4", ""),), to_move=m))[0]) for m in (0, 1)]
    red = [float(evaluate(custom(black=(("e4", ""),), red=(("c3", "S"),), to_move=m))[0]) for m in (0, 1)]
    assert black[0] > black[1] > 0.5
    assert red[1] < red[0] < -0.5
    assert black[0] == pytest.approx(-red[1]) and black[1] == pytest.approx(-red[0])


# ----------------------------------------------------------------- over and out
def _oao(h0: list[str], h1: list[str], total: int) -> Any:
    """Two players, seat 0 to move holding ``h0``, seat 1 ``h1``; L = 33, T = ``total``."""
    from tests.over_and_out.helpers import engine

    return engine(h0 + h1, [33], total=total, num_players=2, first_dealer=1)


def _oao_best(name: str, st: Any) -> list[str]:
    from envs.over_and_out.bots import BOTS
    from envs.over_and_out.game import OverAndOutGame

    bot = BOTS[name](OverAndOutGame(num_players=2))
    assert isinstance(bot, ScoringBot)
    return [
        st.action_to_string(a) for a in bot.best_actions(st, st.current_player(), np.random.default_rng(0))
    ]


def test_oao_immediate_risk_and_pressure_of_each_card() -> None:
    """``immediate``: (risk of losing the round with this play, T / L left to the next player)."""
    from envs.over_and_out.bots import immediate
    from envs.over_and_out.cards import BUST, MINUS10, SPIN_OUT, TOP_OUT, TOPSY_TURVY, X2

    st = _oao(["0", "1", "2", "3"], ["1", "2", "3", "4"], 10)
    assert immediate(st, 5) == (0.0, 15 / 33)
    assert immediate(st, 1) == (0.0, 11 / 33)
    assert immediate(st, 0) == immediate(st, SPIN_OUT) == (0.0, 10 / 33)
    assert immediate(st, X2) == (0.0, 20 / 33)
    assert immediate(st, TOP_OUT) == (0.0, 1.0)
    assert immediate(st, BUST) == (1.0, 0.0)
    st.total = 20
    assert immediate(st, MINUS10) == (0.0, 10 / 33)
    st.total = 30  # Tip Top pile 22, 44, 55, 66: 22 loses the round
    assert sorted(st.tiptop_pile) == [22, 44, 55, 66]
    risk, pressure = immediate(st, TOPSY_TURVY)
    assert risk == 0.25
    assert pressure == pytest.approx(np.mean([30 / 44, 30 / 55, 30 / 66]))


def test_oao_greedy_leaves_the_highest_total() -> None:
    """Greedy: no risk anywhere here, so the play leaving T / L highest (``5``, then ``x2``)."""
    assert _oao_best("greedy", _oao(["0", "1", "5", "spin-out"], ["1", "2", "3", "4"], 10)) == ["play 5"]
    assert _oao_best("greedy", _oao(["x2", "1", "2", "3"], ["1", "2", "3", "4"], 10)) == ["play x2"]


def test_oao_heuristic_rules_of_thumb() -> None:
    """Doc page: numbers while they fit (the largest first) rather than an escape or ``-10``;
    ``top-out`` as an attack only while another escape stays in hand, and not at T = L."""
    numbers = ["1", "2", "3", "4"]
    assert _oao_best("heuristic", _oao(["0", "1", "spin-out", "-10"], numbers, 10)) == ["play 1"]
    assert _oao_best("heuristic", _oao(["1", "2", "3", "top-out"], numbers, 20)) == ["play 3"]
    assert _oao_best("heuristic", _oao(["0", "1", "3", "top-out"], numbers, 20)) == ["play top-out"]
    assert _oao_best("heuristic", _oao(["0", "1", "2", "top-out"], numbers, 33)) == ["play 0"]


def test_oao_heuristic_keeps_cards_in_the_documented_order() -> None:
    """Doc page: escapes are kept ``top-out`` > ``0`` = ``spin-out`` > ``-10`` > ``topsy-turvy``,
    and of the number cards the largest goes first (the smaller ones are kept longer)."""
    from envs.over_and_out.bots import KEEP_VALUE
    from envs.over_and_out.cards import MINUS10, SPIN_OUT, TOP_OUT, TOPSY_TURVY

    keep = KEEP_VALUE
    assert keep[TOP_OUT] > keep[0] == keep[SPIN_OUT] > keep[MINUS10] > keep[TOPSY_TURVY] > keep[1]
    assert keep[1] > keep[2] > keep[3] > keep[4] > keep[5]
    numbers = ["1", "2", "3", "4"]  # T = 28: 1..5 all fit, the largest first
    assert _oao_best("heuristic", _oao(["1", "2", "5", "spin-out"], numbers, 28)) == ["play 5"]


def test_oao_heuristic_reads_its_own_hand() -> None:
    """The top-out attack depends on the mover's own escape cards, not the next seat's."""
    st = _oao(["1", "2", "3", "top-out"], ["0", "spin-out", "top-out", "4"], 20)
    assert _oao_best("heuristic", st) == ["play 3"]
    st = _oao(["0", "1", "3", "top-out"], ["1", "2", "3", "4"], 20)
    assert _oao_best("heuristic", st) == ["play top-out"]


def test_oao_evaluation_chips_escapes_and_the_movers_risk() -> None:
    """``evaluate``: equal seats share evenly; more chips or more escape cards is better; the
    mover loses only for the *least* risk among its plays (a bust, not a risky Topsy Turvy
    next to a safe number); each value lands on its own seat."""
    from envs.over_and_out.evaluate import evaluate

    same = ["1", "2", "3", "4"]
    np.testing.assert_allclose(evaluate(_oao(same, same, 10)), [0.0, 0.0], atol=1e-12)
    bust = _oao(same, same, 10)
    bust.total, bust._bits = 33, -1  # nothing fits: the mover must bust
    v = evaluate(bust)
    assert v[0] < -0.3 and v[1] > 0.3
    topsy = ["topsy-turvy", "1", "2", "3"]
    np.testing.assert_allclose(evaluate(_oao(topsy, topsy, 30)), [0.0, 0.0], atol=1e-12)
    escapes = evaluate(_oao(same, ["0", "spin-out", "top-out", "4"], 10))
    assert escapes[1] > 0.3 > -0.3 > escapes[0]
    rich = _oao(same, same, 10)
    rich.chips = [2, 4]
    v = evaluate(rich)
    assert v[1] > 0.5 > -0.5 > v[0]
    from tests.over_and_out.helpers import engine

    three = engine([], [33], total=10, num_players=3, first_dealer=2)
    three.chips = [4, 2, 3]
    three.hands = [[1, 2, 3], [1, 2, 3], [1, 2, 3]]
    three._bits = -1
    v = evaluate(three)
    assert v[0] > v[2] > v[1]


# ------------------------------------------------------------------ otto octopus
def _otto_scores(name: str, st: Any) -> dict[str, float]:
    from envs.otto_octopus.bots import BOTS
    from envs.otto_octopus.encode import ACTION_STRINGS
    from envs.otto_octopus.game import OttoOctopusGame

    bot = BOTS[name](OttoOctopusGame(num_players=st.n, simplified=st.config.simplified))
    assert isinstance(bot, ScoringBot)
    legal, scores = bot.scored_actions(st, st.current_player(), np.random.default_rng(0))
    return {ACTION_STRINGS[int(a)]: round(float(s), 6) for a, s in zip(legal, scores, strict=True)}


def test_otto_shark_counts_two_only_where_it_costs_opponents() -> None:
    """``immediate_gain``: the shark's -2 to every opponent counts +2 for the mover, except
    solo (no opponent) and simplified (no effects)."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.bots import immediate_gain
    from envs.otto_octopus.encode import parse_action
    from tests.otto_octopus.helpers import P1, make

    sq = parse_action("place shark e7") & 63
    gains = {}
    for n, simplified in ((1, False), (2, False), (3, False), (2, True)):
        st = make(P1, [["shark"]], num_players=n, simplified=simplified)
        assert st.ocean.points(B.SHARK, sq) == 0
        gains[n, simplified] = immediate_gain(st, 0, B.SHARK, sq)
    assert gains == {(1, False): 0.0, (2, False): 2.0, (3, False): 2.0, (2, True): 0.0}


def test_otto_greedy_places_a_zero_point_tile_rather_than_pass() -> None:
    """Doc page: greedy never passes while a tile fits (pass is -0.5, a 0-point tile 0)."""
    from tests.otto_octopus.helpers import P1, make

    scores = _otto_scores("greedy", make(P1, [["bubbles", "bubbles", "bubbles"]]))
    assert scores == {"place bubbles c6": 1.0, "place bubbles e7": 0.0, "place bubbles c7": 0.0, "pass": -0.5}


def test_otto_bots_give_away_the_least_useful_tile_to_the_leader() -> None:
    """After a pufferfish: both bots give away bubbles, not the end; the heuristic takes from
    the leader (score + tiles in hand: player_1 9 + 1 against player_2 2 + 2)."""
    from tests.otto_octopus.helpers import P1, make, play

    st = make(
        P1,
        [["pufferfish", "end", "bubbles"], ["moray"], ["shark", "minnow"]],
        num_players=3,
        scores=[5, 9, 2],
    )
    play(st, "place pufferfish c7")
    greedy = _otto_scores("greedy", st)
    assert greedy == {
        "swap end player_1": -4.0,
        "swap end player_2": -4.0,
        "swap bubbles player_1": -0.3,
        "swap bubbles player_2": -0.3,
    }
    heuristic = _otto_scores("heuristic", st)
    assert max(heuristic, key=heuristic.__getitem__) == "swap bubbles player_1"
    assert heuristic["swap bubbles player_1"] == pytest.approx(-0.3 + 0.10)
    assert heuristic["swap bubbles player_2"] == pytest.approx(-0.3 + 0.04)


def test_otto_heuristic_saves_ends_for_long_arms_unless_late() -> None:
    """An end on an arm of 2 (d6, d7) loses (3 - 2) x 2.0 for an end-shell, x 1.2 for an end,
    while the pile holds at least 2 tiles a player; late (pile 3 < 4) it takes the points.
    A pass costs 1 while the pile lasts, 2 once it is empty."""
    from tests.otto_octopus.helpers import P1, make

    assert _otto_scores("heuristic", make(P1, [["end-shell"]])) == {"place end-shell d8": 4.0, "pass": -1.0}
    assert _otto_scores("heuristic", make(P1, [["end"]])) == {"place end d8": 1.8, "pass": -1.0}
    edge = make(P1, [["end-shell"]], pile=["bubbles"] * 4)  # exactly 2 a player: not late yet
    assert _otto_scores("heuristic", edge)["place end-shell d8"] == 4.0
    late = make(P1, [["end-shell"]], pile=["bubbles"] * 3)
    assert _otto_scores("heuristic", late) == {"place end-shell d8": 6.0, "pass": -1.0}
    empty = make(P1, [["end-shell"]], pile=[])
    assert _otto_scores("heuristic", empty) == {"place end-shell d8": 6.0, "pass": -2.0}


def test_otto_heuristic_values_the_extra_turn_fish() -> None:
    """Jellyfish +2.5 with two players (+1.5 with more), clownfish +1.5, butterflyfish +2.0
    while another tile is in hand to place (else +0.2); c6 scores 2 points itself."""
    from tests.otto_octopus.helpers import P1, make

    fish = [["jellyfish", "clownfish", "butterflyfish"]]
    two = _otto_scores("heuristic", make(P1, fish))
    assert two["place jellyfish c6"] == 4.5
    assert two["place clownfish c6"] == 3.5
    assert two["place butterflyfish c6"] == 4.0
    three = _otto_scores("heuristic", make(P1, fish, num_players=3))
    assert three["place jellyfish c6"] == 3.5
    alone = _otto_scores("heuristic", make(P1, [["butterflyfish"]]))
    assert alone["place butterflyfish c6"] == 2.2


def test_otto_evaluation_of_the_final_score_margin() -> None:
    """``evaluate``: two players ``tanh(margin / 8)`` (final scores 9 and 1); three players
    the winner's +1 / losers' -1/2 shared by a softmax; solo the final score / 100."""
    import math

    from envs.otto_octopus.evaluate import evaluate
    from tests.otto_octopus.helpers import P1, make

    two = make(P1, [["shark"]], scores=[10, 4])
    assert two.final_scores() == [9, 1]
    np.testing.assert_allclose(evaluate(two, -1.0, 1.0), [math.tanh(1.0), -math.tanh(1.0)])
    three = make(P1, [["shark"]], num_players=3, scores=[10, 4, 4])
    v = evaluate(three, -1.0, 1.0)
    assert v[0] > 0 > v[1] == v[2] >= -0.5
    np.testing.assert_allclose(v, [0.68047906, -0.34023953, -0.34023953], atol=1e-7)
    solo = make(P1, [["shark"]], num_players=1, scores=[30])
    assert solo.final_scores() == [19]
    np.testing.assert_allclose(evaluate(solo, -1.0, 3.0), [0.19])


def _otto_random_position(seed: int, steps: int, **params: Any) -> Any:
    """The position after ``steps`` uniformly random moves of a game seeded ``seed``."""
    from envs.otto_octopus.game import OttoOctopusGame

    game = OttoOctopusGame(**params)
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(np.random.default_rng(seed))
    for _ in range(steps):
        legal = np.flatnonzero(st.legal_mask())
        st.apply(int(legal[rng.integers(legal.size)]))
    return st


def test_otto_heuristic_keeps_anglerfish_for_an_open_coral() -> None:
    """With a coral corner open and the pile long, an anglerfish elsewhere is worth its 3
    points minus 0.8; on the coral (h1) its full 6. A coral square next to a moray takes no
    fish, so it is not open: no discount then; nor late in the game (pile under 2 a player)."""
    st = _otto_random_position(0, 46)
    assert len(st.pile) >= 4
    scores = _otto_scores("heuristic", st)
    assert scores["place anglerfish h1"] == 6.0
    assert scores["place anglerfish b1"] == 2.2
    assert _otto_scores("greedy", st)["place anglerfish b1"] == 3.0
    blocked = _otto_random_position(1, 16)  # the only free coral square is next to a moray
    assert len(blocked.pile) >= 4
    assert _otto_scores("heuristic", blocked)["place anglerfish d1"] == 3.0
    late = _otto_random_position(68, 57)  # coral open, but the pile is short: take the points
    assert len(late.pile) < 4
    assert _otto_scores("heuristic", late)["place anglerfish c1"] == 3.0


def test_otto_heuristic_steers_an_arm_to_coral_when_it_holds_an_end() -> None:
    """Arm outlook: ``straight a7`` puts the arm's tip on the a8 coral while the mover holds an
    end-shell: +1.0 for the coral tip, +0.15 for the tip's distance 0 to coral, +0.3 x 4/4 for
    the arm of 4 its end will collect (1.45 over the placement's points)."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.bots import immediate_gain
    from envs.otto_octopus.encode import parse_action

    st = _otto_random_position(3, 38)
    p = st.current_player()
    assert B.END_SHELL in st.hands[p]
    action = parse_action("place straight a7")
    gain = immediate_gain(st, p, action >> 6, action & 63)
    assert _otto_scores("heuristic", st)["place straight a7"] == pytest.approx(gain + 1.45)


@pytest.mark.parametrize("n", [2, 3])
def test_otto_scoring_bots_are_blind_to_other_hands_and_the_pile(n: int) -> None:
    """Greedy and heuristic score every legal move the same on any re-deal of what the mover
    cannot see (other hands, the pile order)."""
    from envs.otto_octopus.bots import BOTS
    from envs.otto_octopus.game import OttoOctopusGame

    game = OttoOctopusGame(num_players=n)
    bots = [bot for bot in (BOTS["greedy"](game), BOTS["heuristic"](game)) if isinstance(bot, ScoringBot)]
    assert len(bots) == 2
    rng = np.random.default_rng(n)
    st = game.new_initial_state(np.random.default_rng(n + 10))
    checked = 0
    while not st.is_terminal():
        p = st.current_player()
        other = game.resample_hidden(st, p, np.random.default_rng(checked))
        for bot in bots:
            legal, scores = bot.scored_actions(st, p, np.random.default_rng(0))
            legal2, scores2 = bot.scored_actions(other, p, np.random.default_rng(0))
            assert legal.tolist() == legal2.tolist()
            np.testing.assert_array_equal(scores, scores2)
        checked += 1
        legal_moves = np.flatnonzero(st.legal_mask())
        st.apply(int(legal_moves[rng.integers(legal_moves.size)]))
    assert checked > 30
