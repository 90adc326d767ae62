"""The ``heuristic`` bot's shortcuts agree with playing the moves out (OGO-08, OGO-19, OGO-38..41)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over import flow
from envs.otto_game_over.bots import EIGHT_VALUE, HeuristicBot, _Board, _is_quantum, _quantum_gain
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import SHAPE_POINTS, closed_shapes
from envs.otto_game_over.rules import CARD, KIDNAP, Config, State
from tests.otto_game_over.helpers import make, p_eight


def brute_best(st: State, square_lobes: bool) -> tuple[list[int], int]:
    """Per design, the most points one placement on the frontier can make, and which designs
    can close an 8 there: every square and orientation traced."""
    pts, eights = [0] * 8, 0
    for s in range(25):
        if not st.frontier >> s & 1:
            continue
        for d in range(8):
            for k in range(4):
                flow.set_tile(st, s, d, k)
                shapes, eight = closed_shapes(st.design, st.rot, s, square_lobes)
                flow.clear_tile(st, s)
                pts[d] = max(pts[d], sum(SHAPE_POINTS[sh] for sh, _v in shapes))
                eights |= bool(eight) << d
    return pts, eights


def random_board(rng: np.random.Generator, config: Config) -> State:
    st = State(config, np.random.default_rng(0))
    for s in rng.permutation(25)[: rng.integers(6, 20)]:
        if s != 12:
            flow.set_tile(st, int(s), int(rng.integers(8)), int(rng.integers(4)))
    return st


@pytest.mark.parametrize("square_lobes", [False, True])
def test_threat_matches_tracing(square_lobes: bool) -> None:
    """The next player's best reply per design (the threat the heuristic subtracts), with and
    without the per-square cache of the board before the placement, equals a full trace."""
    rng = np.random.default_rng(11)
    config = Config(eight_lobes="round_or_square" if square_lobes else "round")
    bot = HeuristicBot(OttoGameOverGame(eight_lobes=config.eight_lobes))
    eights_seen = points_seen = 0
    for _ in range(25):
        st = random_board(rng, config)
        cache = bot._square_cache(st)
        assert cache is not None
        sq = int(rng.choice([s for s in range(25) if st.frontier >> s & 1]))
        d, k = int(rng.integers(8)), int(rng.integers(4))
        board = _Board(st)
        board.place(sq, d, k)
        flow.set_tile(st, sq, d, k)
        assert board.frontier == st.frontier
        expected = brute_best(st, square_lobes)
        assert board.best() == expected
        assert board.best(cache, sq) == expected
        eights_seen += expected[1] != 0
        points_seen += any(expected[0])
    assert eights_seen >= 3 and points_seen >= 20  # the comparison saw both kinds of threat


@pytest.mark.parametrize("smalls, gain", [(3, 1.0), (0, 0.0)])
def test_quantum_gain_of_s11(smalls: int, gain: float) -> None:
    """S11, OGO-41, OGO-19/21: `card quantum-leap b1 e5 r0` closes a small circle for p0: 1
    point while p0 has a small marker left, none (the shape stays unclaimed) without."""
    markers = [{"small": smalls, "big": 4, "square": 3}, {"small": 3, "big": 4, "square": 3}]
    st = make(p_eight(tower=["B7"], hands=[["quantum-leap"], []], markers=markers))
    a = st.string_to_action("card quantum-leap b1 e5 r0")
    assert _quantum_gain(st, a) == gain
    before = st.marker_points(0)
    st.apply(a)
    assert st.marker_points(0) - before == gain


@pytest.mark.parametrize(
    "params", [{"num_players": 2}, {"num_players": 4, "teams": True}, {"eight_lobes": "round_or_square"}]
)
def test_quantum_gain_equals_playing_the_move(params: dict[str, object]) -> None:
    """OGO-19/23/38..41: the points a Quantum Leap wins, read off the board, are those that
    playing it on a copy gives (None exactly when it closes an 8)."""
    game = OttoGameOverGame(**params)
    bot = HeuristicBot(game)
    rng = np.random.default_rng(3)
    checked = scoring = 0
    for g in range(3):
        st = game.new_initial_state(np.random.default_rng(g))
        while not st.is_terminal():
            legal = st.legal_actions()
            if st.phase in (CARD, KIDNAP):
                team = st.team[st.to_move]
                for a in (int(a) for a in legal if _is_quantum(int(a))):
                    sim = st.clone()
                    sim.apply(a)
                    closed_eight = sim.phase == flow.INFINITY or sim.matches != st.matches
                    gain = _quantum_gain(st, a)
                    if closed_eight:
                        assert gain is None
                    else:
                        assert gain == sim.marker_points(team) - st.marker_points(team)
                        scoring += gain > 0
                    checked += 1
            # the heuristic's moves build shapes to take; some random ones vary the games
            a = (
                bot.act(st, st.current_player(), rng)
                if rng.random() < 0.8
                else legal[rng.integers(len(legal))]
            )
            st.apply(int(a))
    assert checked > 3000 and scoring > 100


def test_quantum_value_of_an_eight() -> None:
    """OGO-24/41: a Quantum Leap that closes an 8 ends the match for the mover: worth
    ``EIGHT_VALUE`` when nobody can answer with Infinity."""
    game = OttoGameOverGame(num_players=2)
    bot = HeuristicBot(game)
    rng = np.random.default_rng(0)
    for g in range(60):
        st = game.new_initial_state(np.random.default_rng(g))
        while not st.is_terminal():
            legal = st.legal_actions()
            if st.phase == CARD:
                for a in (int(a) for a in legal if _is_quantum(int(a))):
                    if _quantum_gain(st, a) is None:
                        sim = st.clone()
                        sim.apply(a)
                        value = bot._card_values(st, [a], rng)[0]
                        if sim.matches != st.matches:
                            assert value == EIGHT_VALUE
                            return
            st.apply(int(legal[rng.integers(len(legal))]))
    pytest.skip("no Quantum Leap 8 in 60 random games")


def test_heuristic_shortcuts_equal_the_full_computation() -> None:
    """The heuristic's two shortcuts change nothing: a placement the mask says closes nothing
    traces no shape (``_tried``), and the X-tile needs after a tried placement, recomputed only
    around its square (``_Board._x_needs_after``), equal ``x_needs`` of the whole board; at
    every placement decision of random games (square lobes allowed, so more 8s are open), for
    every legal placement."""
    from envs.otto_game_over.bots import _tried
    from envs.otto_game_over.rules import PLACE
    from envs.otto_game_over.scoring import x_needs

    game = OttoGameOverGame(num_players=2, eight_lobes="round_or_square")
    rng = np.random.default_rng(3)
    checked = with_x = 0
    for g in range(4):
        st = game.new_initial_state(np.random.default_rng(g))
        while not st.is_terminal():
            legal = st.legal_actions()
            if st.phase == PLACE:
                xbase = HeuristicBot._x_base(st)
                for a in legal:
                    board, shapes, eights = _tried(st, a)
                    sq = (a % 100) // 4
                    assert (shapes, eights) == closed_shapes(board.design, board.rot, sq, board.square_lobes)
                    full = x_needs(board.near, board.design, board.rot, board.square_lobes)
                    assert board._x_needs_after(xbase, sq) == full
                    checked += 1
                    with_x += bool(full)
            st.apply(int(legal[rng.integers(len(legal))]))
    assert checked > 1000 and with_x > 0, (checked, with_x)


@pytest.mark.parametrize("bot", ["greedy", "heuristic"])
def test_bots_refuse_a_finished_game_in_words(bot: str) -> None:
    """Asked to move in a finished game, the scripted bots say so, as the shared ones do (they
    raised numpy's messages about empty arrays)."""
    from envs.core.registry import get_game

    game = OttoGameOverGame(num_players=2, episode="match")
    st = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        st.apply(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    player = get_game("otto_game_over").bots()[bot](game)
    with pytest.raises(ValueError, match="no legal action: the game is over"):
        player.act(st, 0, rng)
