"""Second round of mutation pins for the scripted bots (``envs/core/bots.py`` and each game's
``bots.py`` / ``evaluate.py``), next to ``test_bots_pins.py``: nearly every test here failed on a
plausible bug that the rest of the suite let through. They pin what the module and class
docstrings and the doc pages promise: a scoring bot's exact tie tolerance and its rng use, the
refusal of a bot spec that is not text, the terms each game's ``greedy`` / ``heuristic`` score
(and the move they choose) in constructed positions, and the static evaluations of finished
and partly paid-out games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import ScoringBot, parse_bot_spec
from envs.core.game import Game, GameState
from tests.core.test_mcts import NimGame


# ------------------------------------------------------------------------- core
class _Table(ScoringBot):
    """Scores each action from a fixed table."""

    name = "table"

    def __init__(self, game: Game[Any, Any], table: list[float]) -> None:
        super().__init__(game)
        self.table = table

    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        return self.table[action]


def test_only_scores_within_a_billionth_of_the_best_tie() -> None:
    """``best_actions``: ties are scores within 1e-9 of the best; a move 1e-6 worse is not
    one of the best and is never played."""
    game = NimGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = _Table(game, [0.0, 1.0, 1.0 - 1e-6])
    assert bot.best_actions(state, 0, np.random.default_rng(0)) == [1]
    assert {bot.act(state, 0, np.random.default_rng(s)) for s in range(16)} == {1}


def test_a_single_best_move_draws_nothing_from_the_rng() -> None:
    """``ScoringBot.pick``: "a single best move draws nothing from ``rng``", so a caller's
    stream is left as it was (a seeded game stays reproducible whoever plays)."""
    game = NimGame()
    state = game.new_initial_state(np.random.default_rng(0))
    bot = _Table(game, [0.0, 1.0, 0.5])
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    assert bot.act(state, 0, rng) == 1
    assert rng.bit_generator.state == before
    assert ScoringBot.pick([2], rng) == 2 and rng.bit_generator.state == before


def test_a_bot_spec_that_is_not_text_is_refused_with_a_message() -> None:
    """``parse_bot_spec``: a spec is a string; anything else is a ``ValueError`` that shows it."""
    with pytest.raises(
        ValueError, match=r"^a bot spec is a string such as 'heuristic' or 'mcts:sims=200', got 5$"
    ):
        parse_bot_spec(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"got None$"):
        parse_bot_spec(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("game", "hint"),
    [
        (None, "(get_game(name).game_class()(...)), got NoneType"),
        ("octi", "(get_game('octi').game_class()(...)), got str"),
    ],
)
def test_a_bot_of_any_game_refuses_what_is_no_game(game: Any, hint: str) -> None:
    """The game-agnostic bots (``random``, ``mcts``) want an engine game, as the bots of one
    game and ``make_bot`` do. Old: ``RandomBot(None)`` and ``RandomBot("octi")`` were built and
    played (reading the state alone); ``MCTSBot(None)`` failed deep inside."""
    from envs.core.bots import RandomBot
    from envs.core.mcts import MCTSBot

    for cls, name in ((RandomBot, "random"), (MCTSBot, "mcts")):
        with pytest.raises(ValueError, match=f"^{name}: game must be an engine Game object ") as info:
            cls(game)
        assert str(info.value).endswith(hint)


def test_a_factory_without_a_readable_signature_takes_any_parameter() -> None:
    """``_parameter_names``: a factory whose signature cannot be read "takes any" (None), so
    ``make_bot`` passes the spec's parameters through instead of refusing them all."""
    from envs.core.bots import RandomBot, make_bot

    seen: dict[str, Any] = {}

    class Opaque:
        __signature__ = "unreadable"  # inspect.signature raises TypeError on it

        def __call__(self, game: Game[Any, Any], **params: Any) -> RandomBot:
            seen.update(params)
            return RandomBot(game)

    bot = make_bot(NimGame(), "opaque:level=3,mode=fast", {"opaque": Opaque()})
    assert isinstance(bot, RandomBot)
    assert seen == {"level": 3, "mode": "fast"}


# ------------------------------------------------------------------------- octi
def _octi_scores(bot: ScoringBot, st: Any, player: int = 0) -> dict[str, float]:
    legal, scores = bot.scored_actions(st, player, np.random.default_rng(0))
    return {st.action_to_string(int(a)): float(s) for a, s in zip(legal, scores, strict=True)}


def test_octi_material_never_counts_the_movers_own_jumped_pods_as_taken() -> None:
    """``outcome`` (doc page: pods jumped this turn count as captured *enemies*): a pod of the
    mover jumped by its own pod is alive mid-series (CHAIN) and while its capture / spare
    choice waits (CAPTURE, spec §3); both bots spare it (the heuristic: "spare own ones")."""
    from envs.octi.bots import BOTS, outcome
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    chain = custom(black=(("b2", "N"), ("b3", "")), red=(("b5", ""), ("f6", "")))
    chain.play("jump b2 N")  # over own b3; b5 can be jumped next
    assert {chain.action_to_string(a) for a in chain.legal_actions()} == {"jump b4 N", "stop"}
    assert (outcome(chain, 0), outcome(chain, 1)) == (-0.5, 0.5)  # equal pods, one prong more
    capture = custom(black=(("c3", "N"), ("c4", "")), red=(("a6", ""),))
    capture.play("jump c3 N")  # over own c4: CAPTURE asks about c4
    assert {capture.action_to_string(a) for a in capture.legal_actions()} == {"capture c4", "spare c4"}
    assert (outcome(capture, 0), outcome(capture, 1)) == (9.5, -9.5)
    for name in ("greedy", "heuristic"):
        bot = BOTS[name](OctiGame())
        assert isinstance(bot, ScoringBot)
        scores = _octi_scores(bot, capture)
        assert scores["spare c4"] - scores["capture c4"] >= 10.0
        assert bot.best_actions(capture, 0, np.random.default_rng(0)) == [
            capture.string_to_action("spare c4")
        ]


def test_octi_can_reach_base_counts_stacking_on_an_own_pod_in_x() -> None:
    """``can_reach_base``: in Octi-X a pod may step onto its own pod, so a step onto an enemy
    base already held by an own pod lands there too (``step c6 N`` onto c7 is legal)."""
    from envs.octi.bots import can_reach_base
    from tests.octi.helpers import custom

    st = custom("x_classic", black=(("c7", ""), ("c6", "N")), red=(("a1", ""),))
    assert st.legal_mask()[st.string_to_action("step c6 N")]
    assert can_reach_base(st, 0)
    assert can_reach_base(st, 0, frozenset({st.geo.square("c7")}))


def test_octi_exposed_counts_only_enemy_jumpers() -> None:
    """``_exposed``: "own pods an *enemy* pod could jump"; an own pod pointing at another own
    pod with a free square behind it is no danger."""
    from envs.octi.bots import _exposed
    from tests.octi.helpers import custom

    st = custom(black=(("c3", "N"), ("c4", "")), red=(("f6", "S"),))
    assert (_exposed(st, 0), _exposed(st, 1)) == (0, 0)


def test_octi_progress_is_zero_without_a_free_enemy_base() -> None:
    """``_progress`` aims at *free* enemy bases; with every red base held by a red pod there is
    nothing to aim at and the term is 0 (no penalty)."""
    from envs.octi.bots import _progress
    from tests.octi.helpers import custom

    red = tuple((sq, "") for sq in ("b6", "c6", "d6", "e6"))
    st = custom(black=(("c3", "N"),), red=red)
    assert _progress(st, 0) == 0.0


def test_octi_classic_threat_needs_the_last_free_base_not_a_held_one() -> None:
    """``_threat`` in classic: holding two enemy bases, a seat threatens to win only if it can
    land on the *third*; reaching a base it already holds (stacking in X) is no threat."""
    from envs.octi.bots import _threat, can_reach_base
    from tests.octi.helpers import custom

    st = custom("x_classic", black=(("c7", ""), ("e7", ""), ("c6", "N")), red=(("a1", ""),))
    assert can_reach_base(st, 0)  # step c6 N onto its own pod on c7
    assert not _threat(st, 0)


# ----------------------------------------------------------------- over and out
def _oao_topsy(total: int, seat1: list[str] | None = None) -> Any:
    """Two players, seat 0 to move holding ``topsy-turvy, -10`` twice; L = 66 and the Tip Top
    pile holds 22, 33, 44, 55 (public: OAO-30); T = ``total``."""
    from tests.over_and_out.helpers import engine

    hands = ["topsy-turvy", "-10", "topsy-turvy", "-10"] + (seat1 or ["1", "2", "3", "4"])
    st = engine(hands, [66], total=total, num_players=2, first_dealer=1)
    assert st.tiptop == 66 and sorted(st.tiptop_pile) == [22, 33, 44, 55] and st.current_player() == 0
    return st


def _oao_scores(name: str, st: Any) -> dict[str, float]:
    from envs.over_and_out.bots import BOTS
    from envs.over_and_out.game import OverAndOutGame

    bot = BOTS[name](OverAndOutGame(num_players=st.n))
    assert isinstance(bot, ScoringBot)
    legal, scores = bot.scored_actions(st, st.current_player(), np.random.default_rng(0))
    return {st.action_to_string(int(a)): float(s) for a, s in zip(legal, scores, strict=True)}


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_oao_bots_take_no_needless_risk_for_pressure(name: str) -> None:
    """OAO-28 / OAO-29 and the doc page ("least risk of losing with this play" first; "no
    needless risk"): at T = 30, L = 66 a Topsy Turvy loses on 22 (risk 1/4) though it would
    leave T / L about 0.71; ``-10`` is safe and leaves 20 / 66. Both bots play ``-10``."""
    st = _oao_topsy(30)
    scores = _oao_scores(name, st)
    assert set(scores) == {"play topsy-turvy", "play -10"}
    assert max(scores, key=scores.__getitem__) == "play -10"
    pressure = np.mean([30 / 33, 30 / 44, 30 / 55])
    if name == "greedy":
        assert scores["play topsy-turvy"] == pytest.approx(-10.0 * 0.25 + pressure)
        assert scores["play -10"] == pytest.approx(20 / 66)
    else:
        assert scores["play topsy-turvy"] == pytest.approx(-100.0 * 0.25 - 0.5 * 2.0 + 3.0 * pressure)


def test_oao_topsy_turvy_turns_up_only_the_tiptop_pile_while_it_lasts() -> None:
    """OAO-29 / OAO-30: while the Tip Top pile holds cards, Topsy Turvy turns up one of them;
    the discarded L (66, set aside by the first Topsy Turvy) is not a possible outcome."""
    from envs.over_and_out.bots import immediate
    from envs.over_and_out.cards import TOPSY_TURVY

    st = _oao_topsy(30, ["topsy-turvy", "1", "2", "3"])
    st.apply(TOPSY_TURVY)
    assert st.current_player() == 1 and st.tiptop_discards == [66]
    assert sorted(st.tiptop_pile) == [22, 44, 55] and st.total == 30
    risk, pressure = immediate(st, TOPSY_TURVY)
    assert risk == pytest.approx(1 / 3)
    assert pressure == pytest.approx(np.mean([30 / 44, 30 / 55]))


def test_oao_a_topsy_turvy_that_always_loses_leaves_no_pressure() -> None:
    """``immediate``: when every possible new L is below T (OAO-28), the risk is 1 and the
    T / L left to the next player is 0 (there is no next player in this round)."""
    from envs.over_and_out.bots import immediate
    from envs.over_and_out.cards import TOPSY_TURVY

    assert immediate(_oao_topsy(60), TOPSY_TURVY) == (1.0, 0.0)


def test_octi_heuristic_scores_a_winning_move_as_a_plain_win() -> None:
    """``heuristic``: a move that ends the game is worth its outcome alone (WIN = 10,000 for a
    win); progress and exposure are not added to a finished game."""
    from envs.octi.bots import WIN, HeuristicBot
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    st = custom(black=(("c5", "N"),), red=(("e4", ""),))
    assert _octi_scores(HeuristicBot(OctiGame()), st)["step c5 N"] == WIN == 10_000.0


def test_octi_heuristic_penalises_only_its_own_exposed_pods() -> None:
    """``heuristic``: "do not leave pods where an enemy can jump them" is about the mover's
    pods. ``step c3 N`` puts Black next to red c5 (which has no prong): Black threatens c5,
    nothing threatens Black, so no -4; the score is outcome -10.5 + own progress -8.4
    - 0.7 x Red's progress -16."""
    from envs.octi.bots import HeuristicBot, _exposed
    from envs.octi.game import OctiGame
    from tests.octi.helpers import custom

    st = custom(black=(("c3", "N"),), red=(("c5", ""), ("f7", "")))
    after = st.clone()
    after.play("step c3 N")
    assert (_exposed(after, 0), _exposed(after, 1)) == (0, 1)
    scores = _octi_scores(HeuristicBot(OctiGame()), st)
    assert scores["step c3 N"] == pytest.approx(-10.5 - 8.4 + 0.7 * 16.0)
    assert max(scores, key=scores.__getitem__) == "step c3 N"


def test_octi_classic_progress_rewards_only_bases_the_seat_holds() -> None:
    """``_progress`` in classic: +6 per enemy base *the seat* holds; a red pod on its own base
    c7 is no holding of Black's, only a base Black cannot aim at (e7, g7 remain: e3 with
    prong N is 4 steps from e7, no second pod counts as 9): -8 - 4.5 + 0.1."""
    from envs.octi.bots import _progress
    from tests.octi.helpers import custom

    st = custom("x_classic", black=(("e3", "N"),), red=(("c7", ""), ("a1", "")))
    assert _progress(st, 0) == pytest.approx(-2.0 * 4 - 0.5 * 9 + 0.1)


def test_octi_evaluation_of_a_finished_game_is_its_returns() -> None:
    """``evaluate``: a finished game is valued by its returns exactly (+1 / -1), not by the
    squashed static score."""
    from envs.octi.evaluate import evaluate
    from tests.octi.helpers import custom

    st = custom(black=(("c5", "N"),), red=(("e4", ""),))
    st.play("step c5 N")  # onto Red's base c6
    assert st.is_terminal()
    assert evaluate(st).tolist() == [1.0, -1.0]


def test_octi_evaluation_threat_bonus_is_40_for_the_mover_and_12_waiting() -> None:
    """``evaluate`` module docstring: the side to move that reaches an enemy base gets 40, the
    side not to move 12 (the mover may parry); nothing else depends on who moves, so the
    two unsquashed scores differ by exactly 28."""
    import math

    from envs.octi.evaluate import SCALE, evaluate
    from tests.octi.helpers import custom

    raw = [
        SCALE * math.atanh(float(evaluate(custom(black=(("c5", "N"),), red=(("e4", ""),), to_move=m))[0]))
        for m in (0, 1)
    ]
    assert raw[0] - raw[1] == pytest.approx(40.0 - 12.0)


def test_oao_heuristic_top_out_attack_score() -> None:
    """Heuristic ``top-out`` with another escape (``0``) in hand at T = 20 < L = 33: no risk,
    keep value 4.0 (-2.0), pressure 1 (x 3.0) and the attack bonus +6.0: exactly 7.0; without
    a second escape the bonus is gone (1.0)."""
    from tests.over_and_out.helpers import engine

    def top_out(hand: list[str]) -> float:
        st = engine(hand + ["1", "2", "3", "4"], [33], total=20, num_players=2, first_dealer=1)
        return _oao_scores("heuristic", st)["play top-out"]

    assert top_out(["0", "1", "3", "top-out"]) == pytest.approx(-0.5 * 4.0 + 3.0 * 1.0 + 6.0)
    assert top_out(["2", "1", "3", "top-out"]) == pytest.approx(-0.5 * 4.0 + 3.0 * 1.0)


# ------------------------------------------------------------------ otto octopus
def _otto_scores(name: str, st: Any) -> dict[str, float]:
    from envs.otto_octopus.bots import BOTS
    from envs.otto_octopus.encode import ACTION_STRINGS
    from envs.otto_octopus.game import OttoOctopusGame

    bot = BOTS[name](OttoOctopusGame(num_players=st.n, simplified=st.config.simplified))
    assert isinstance(bot, ScoringBot)
    legal, scores = bot.scored_actions(st, st.current_player(), np.random.default_rng(0))
    return {ACTION_STRINGS[int(a)]: round(float(s), 6) for a, s in zip(legal, scores, strict=True)}


def test_otto_solo_heuristic_values_arm_placements_by_points_alone() -> None:
    """Doc page: "In solo the heuristic values an arm placement by its points alone" (the arm
    outlook is about opponents taking arms): every arm placement scores as greedy's."""
    from tests.otto_octopus.helpers import P1, make

    st = make(P1, [["straight", "turn-in"]], num_players=1)
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    placements = {k for k in greedy if k.startswith("place ")}
    assert len(placements) == 12
    assert {k: heuristic[k] for k in placements} == {k: greedy[k] for k in placements}


def test_otto_heuristic_butterflyfish_with_one_more_tile_to_place() -> None:
    """Butterflyfish: +2.0 while another tile is in hand to place (here one bubbles), so c6
    (2 points) scores 4.0."""
    from tests.otto_octopus.helpers import P1, make

    scores = _otto_scores("heuristic", make(P1, [["butterflyfish", "bubbles"]]))
    assert scores["place butterflyfish c6"] == 4.0


def test_otto_bots_place_rather_than_stop_an_extra_turn() -> None:
    """After a clownfish (extra turn) ``stop`` costs greedy 0.5 and the heuristic 0.6; a
    0-point bubbles placement (0) is preferred by both."""
    from tests.otto_octopus.helpers import P1, make, play

    st = make(P1, [["clownfish", "bubbles"]])
    play(st, "place clownfish c6")
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    assert heuristic["stop"] == -0.6 and greedy["stop"] == -0.5
    for scores in (heuristic, greedy):
        assert max(scores.values()) == 0.0 and all(
            k.startswith("place bubbles") for k, v in scores.items() if v == 0
        )


def test_otto_return_choices_have_no_swap_bonus() -> None:
    """After a seahorse the mover returns a tile: both bots score it minus the tile's keep
    value (end 4.0, bubbles 0.3); the take-from-the-leader bonus is for swaps only."""
    from tests.otto_octopus.helpers import P1, make, play

    st = make(P1, [["seahorse", "bubbles", "end"]], scores=[5, 9])
    play(st, "place seahorse c6")
    expected = {"return end": -4.0, "return bubbles": -0.3}
    assert _otto_scores("heuristic", st) == expected
    assert _otto_scores("greedy", st) == expected


def test_otto_solo_evaluation_is_clipped_to_the_reward_range() -> None:
    """``evaluate``, solo: the final score / 100, clipped to ``reward_range`` (-1, 3)."""
    from envs.otto_octopus.evaluate import evaluate
    from envs.otto_octopus.game import OttoOctopusGame
    from tests.otto_octopus.helpers import P1, make

    st = make(P1, [["shark"]], num_players=1, scores=[400])
    assert st.final_scores() == [389]
    assert OttoOctopusGame(num_players=1).reward_range == (-1.0, 3.0)
    assert evaluate(st, -1.0, 3.0).tolist() == [3.0]


def test_otto_evaluation_of_a_finished_game_is_its_returns() -> None:
    """``evaluate``: once the game is over the value is the returns, not a squashed margin."""
    from envs.otto_octopus.evaluate import evaluate
    from envs.otto_octopus.game import OttoOctopusGame

    game = OttoOctopusGame(num_players=2)
    rng = np.random.default_rng(5)
    st = game.new_initial_state(np.random.default_rng(5))
    while not st.is_terminal():
        legal = np.flatnonzero(st.legal_mask())
        st.apply(int(legal[rng.integers(legal.size)]))
    assert evaluate(st, -1.0, 1.0).tolist() == list(st.returns())
    assert sorted(st.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_oao_heuristic_doubles_a_low_total_rather_than_keep_x2() -> None:
    """Doc page: no escape is spent and T is left high for the next player. At T = 10 with
    ``x2, 1, 0, spin-out`` the heuristic plays ``x2`` (T 20: keep value 0.5, -0.25 + 3 x 20/33)
    over ``1`` (T 11) or an escape."""
    from tests.over_and_out.helpers import engine

    st = engine(
        ["x2", "1", "0", "spin-out", "1", "2", "3", "4"], [33], total=10, num_players=2, first_dealer=1
    )
    scores = _oao_scores("heuristic", st)
    assert max(scores, key=scores.__getitem__) == "play x2"
    assert scores["play x2"] == pytest.approx(-0.25 + 3.0 * 20 / 33)


def test_oao_evaluation_shares_only_the_placements_not_yet_paid() -> None:
    """``evaluate`` module docstring (placement rewards, N = 4: -1, -1/3, +1/3, +1): once one
    seat is out and paid -1, the three seats still in share -1/3, +1/3 and +1, so their
    values sum to 1, each lies in [-1/3, 1], and the whole vector sums to 0 like the returns."""
    from envs.over_and_out.evaluate import evaluate
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=4)
    rng = np.random.default_rng(2)
    st = game.new_initial_state(np.random.default_rng(2))
    while len(st.out_order) < 1:
        legal = np.flatnonzero(st.legal_mask())
        st.apply(int(legal[rng.integers(legal.size)]))
    assert not st.is_terminal() and len(st.out_order) == 1
    out = st.out_order[0]
    v = evaluate(st)
    assert v[out] == st.returns()[out] == -1.0
    active = st.active_seats()
    assert len(active) == 3 and out not in active
    assert v[active].sum() == pytest.approx(1.0)
    assert np.all(v[active] >= -1 / 3 - 1e-9) and np.all(v[active] <= 1.0 + 1e-9)
    assert v.sum() == pytest.approx(0.0)


def test_oao_evaluation_of_a_finished_game_is_its_returns() -> None:
    """``evaluate``: a finished game is valued by its returns exactly, a game cut off at
    ``max_plays`` too (the players still in are paid 0 then, not a share of placements)."""
    from envs.over_and_out.evaluate import evaluate
    from envs.over_and_out.game import OverAndOutGame

    for max_plays in (5000, 6):
        game = OverAndOutGame(num_players=3, max_plays=max_plays)
        rng = np.random.default_rng(4)
        st = game.new_initial_state(np.random.default_rng(4))
        while not st.is_terminal():
            legal = np.flatnonzero(st.legal_mask())
            st.apply(int(legal[rng.integers(legal.size)]))
        assert st.is_truncated() == (max_plays == 6)
        assert evaluate(st).tolist() == st.returns().tolist()
        if max_plays == 6:
            assert st.returns().tolist() == [0.0, 0.0, 0.0]
        else:
            assert sorted(st.returns().tolist()) == [-1.0, 0.0, 1.0]


def test_otto_heuristic_keeps_starfish_for_an_open_coral() -> None:
    """Doc page: "keep starfish and anglerfish for coral": with a coral corner open and the
    pile long, a starfish off the coral is worth its points minus 0.8 (greedy: the points)."""
    from envs.otto_octopus.game import OttoOctopusGame

    game = OttoOctopusGame()
    rng = np.random.default_rng(1)
    st = game.new_initial_state(np.random.default_rng(1))
    for _ in range(40):
        legal = np.flatnonzero(st.legal_mask())
        st.apply(int(legal[rng.integers(legal.size)]))
    assert len(st.pile) >= 4
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    off = [k for k in heuristic if k.startswith("place starfish") and k[-2:] not in ("a1", "h1", "a8", "h8")]
    assert len(off) == 8
    for k in off:
        assert heuristic[k] == pytest.approx(greedy[k] - 0.8)
    assert heuristic["place starfish a1"] == greedy["place starfish a1"] == 6.0


def test_otto_heuristic_arm_outlook_follows_the_turned_tip() -> None:
    """Arm outlook on the arm d6, d7 (2 tiles) while the mover holds an end: +0.3 x 2/4 for
    the arm its end will collect, plus 0.15 x (6 - distance of the new tip to the nearest
    coral) / 6. ``turn-out d8`` turns the tip 2 steps from coral (+0.1), ``turn-in d8`` 3
    steps (+0.075); a new arm elsewhere (length 0) gets only its tip's 4 steps (+0.05)."""
    from tests.otto_octopus.helpers import P1, make

    st = make(P1, [["turn-in", "turn-out", "end"]])
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    extra = {k: round(heuristic[k] - greedy[k], 6) for k in heuristic if " turn-" in k}
    assert extra["place turn-out d8"] == pytest.approx(0.15 + 0.1)
    assert extra["place turn-in d8"] == pytest.approx(0.15 + 0.075)
    assert {v for k, v in extra.items() if not k.endswith("d8")} == {0.05}


def test_otto_heuristic_keeps_a_coral_tip_for_its_own_end() -> None:
    """Doc page (arm outlook: "keeping coral tips for its own ends"): ``straight a7`` puts
    the arm's tip on the a8 coral. Holding an end-shell it is worth +1.45 over its points
    (``test_bots_pins``); the same position with no end in hand -0.5 + 0.15 (tip on coral,
    distance 0) = -0.35: the tip would be handed to the next player."""
    from envs.otto_octopus.rules import State
    from tests.core.test_bots_pins import _otto_random_position

    d = _otto_random_position(3, 38).to_dict()
    p = d["position"]["to_move"]
    assert d["position"]["hands"][p] == ["straight", "end-shell", "minnow"]
    d["position"]["hands"][p] = ["straight", "bubbles", "minnow"]
    st = State.from_dict(d)
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    assert heuristic["place straight a7"] - greedy["place straight a7"] == pytest.approx(-0.35)


def test_otto_solo_heuristic_adds_no_extra_turn_value() -> None:
    """Solo has no opponent to skip: the jellyfish / clownfish / butterflyfish bonuses are for
    games of two or more, so c6 scores its 2 points alone (as greedy)."""
    from tests.otto_octopus.helpers import P1, make

    st = make(P1, [["jellyfish", "clownfish", "butterflyfish"]], num_players=1)
    heuristic, greedy = _otto_scores("heuristic", st), _otto_scores("greedy", st)
    for fish in ("jellyfish", "clownfish", "butterflyfish"):
        assert heuristic[f"place {fish} c6"] == greedy[f"place {fish} c6"] == 2.0
