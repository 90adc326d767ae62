"""Pins from a mutation round on Over and Out's env layer: the env's metadata
(``envs/over_and_out/env.py``), the game's facts, reset options, ``observe`` and
``resample_hidden`` (``game.py``) and the saved state with its checks and returns
(``serial.py``), as the env docstring, ``serial.py``'s docstring and spec
``rules/over_and_out.md`` (§5, §6, OAO-44) promise them."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from envs import over_and_out_v0
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State
from tests.over_and_out.helpers import engine

S01_DECK = ["5", "x2", "-10", "1", "x2", "3", "0", "top-out"]


def _refused(d: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def _fresh_dict(**params: Any) -> dict[str, Any]:
    """Round 1 of OAO-S01's deal: p0 {1, 5, x2, -10}, p1 {0, 3, x2, top-out}, L 22, to_move 0."""
    params = {"num_players": 2, "first_dealer": 1, **params}
    d = copy.deepcopy(engine(S01_DECK, [22], **params).to_dict())
    State.from_dict(copy.deepcopy(d))  # the untouched dict loads
    return d


def _random_play(state: State, seed: int, until: Any) -> State:
    rng = np.random.default_rng(seed)
    while not until(state):
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    return state


def _one_out_dict(**params: Any) -> dict[str, Any]:
    """3 players with one chip each: the first round's loser is out (OAO-34), round 2 runs."""
    params = {"num_players": 3, "starting_chips": 1, **params}
    state = OverAndOutGame(**params).new_initial_state(np.random.default_rng(1))
    _random_play(state, 1, lambda s: bool(s.out_order))
    assert not state.is_terminal() and len(state.out_order) == 1
    d = copy.deepcopy(state.to_dict())
    State.from_dict(copy.deepcopy(d))
    return d


def _finished(seed: int, **params: Any) -> State:
    state = OverAndOutGame(**params).new_initial_state(np.random.default_rng(seed))
    return _random_play(state, seed, lambda s: s.is_terminal())


# --- env.py: metadata -----------------------------------------------------------------------------


def test_env_metadata_is_the_documented_one() -> None:
    """Env docstring: module ``envs.over_and_out_v0``, no parallel API
    (``is_parallelizable=False``), render modes ``ansi``, ``rgb_array``, ``human``."""
    e = over_and_out_v0.env()
    assert e.metadata["name"] == "over_and_out_v0"
    assert e.metadata["is_parallelizable"] is False
    assert e.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    human = over_and_out_v0.env(num_players=2, render_mode="human")
    human.reset(seed=0)  # accepted as a render mode


# --- game.py: facts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "zero_sum"),
    [
        ({"num_players": 2}, True),
        ({"num_players": 5}, True),
        ({"num_players": 2, "reward_mode": "winner_only"}, True),
        ({"num_players": 3, "reward_mode": "winner_only"}, False),
        ({"num_players": 8, "reward_mode": "winner_only"}, False),
    ],
)
def test_zero_sum_reward_range_and_game_length(params: dict[str, Any], zero_sum: bool) -> None:
    """§5: placement is zero-sum for every N; winner_only (+1 winner, -1 each eliminated) only
    with 2 players; rewards lie in [-1, 1]; ``max_game_length = max_plays`` decisions."""
    game = OverAndOutGame(max_plays=77, **params)
    assert game.zero_sum is zero_sum
    assert game.reward_range == (-1.0, 1.0)
    assert game.max_game_length == 77


def test_openspiel_reward_model_and_utility() -> None:
    """Env docstring "OpenSpiel": reward model ``REWARDS`` (a knocked-out seat is paid at once);
    ``GENERAL_SUM`` with winner_only and 3+ players, ``ZERO_SUM`` with 2."""
    pyspiel = pytest.importorskip("pyspiel")
    import envs.core.openspiel  # noqa: F401  (registers the games)

    three = pyspiel.load_game("eightfold_over_and_out", {"num_players": 3, "reward_mode": "winner_only"})
    two = pyspiel.load_game("eightfold_over_and_out", {"num_players": 2, "reward_mode": "winner_only"})
    assert three.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert two.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_new_initial_state_needs_a_generator() -> None:
    """The game draws its chance from a numpy Generator; a seed or None is refused, not used."""
    for bad in (None, 0):
        with pytest.raises(ValueError, match="rng must be a numpy Generator"):
            OverAndOutGame().new_initial_state(bad)  # type: ignore[arg-type]


# --- game.py: reset options ----------------------------------------------------------------------


def test_a_state_option_given_as_none_counts_as_absent() -> None:
    """Env docstring: "An option given as ``None`` counts as absent" -- ``state`` too."""
    e = over_and_out_v0.env(num_players=2, first_dealer=1)
    e.reset(seed=0, options={"state": None, "deck_top": S01_DECK, "tiptop_top": None})
    assert e.unwrapped.snapshot()["hands"][0] == ["1", "5", "x2", "-10"]
    e.reset(seed=0, options={"state": None})
    assert e.unwrapped.snapshot()["round"] == 1


def test_deck_top_tokens_are_read_case_insensitively() -> None:
    """Env docstring: ``deck_top`` tokens are read case-insensitively."""
    state = engine(["X2", "TOP-OUT", "Spin-Out", "Topsy-Turvy"], [22], num_players=2, first_dealer=1)
    assert state.snapshot()["hands"][0] == ["x2", "spin-out", "top-out", "topsy-turvy"]


def test_tiptop_top_takes_numpy_integers() -> None:
    """Env docstring: ``tiptop_top`` values are ints or numpy integers."""
    state = engine(tiptop_top=[np.int64(44), np.int32(66)], num_players=2)
    assert state.tiptop == 44 and state.tiptop_pile[-1] == 66


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck_top": ["x2"] * 5}, r"deck_top asks for more 'x2' cards than deck_counts holds"),
        ({"tiptop_top": [33, 33]}, r"tiptop_top names the Tip Top card 33 twice"),
        ({"tiptop_top": [23]}, r"tiptop_top holds 23, not a Tip Top value of \[22, 33, 44, 55, 66\]"),
        (
            {"tiptop_top": "22"},
            r"tiptop_top must be a list of Tip Top values \[22, 33, 44, 55, 66\], got '22'",
        ),
        (
            {"shuffle": 1},
            r"unknown reset option\(s\) \['shuffle'\]; allowed: \['deck_top', 'tiptop_top', 'state'\]",
        ),
    ],
)
def test_bad_reset_options_name_what_is_wrong(options: dict[str, Any], message: str) -> None:
    """§6 / env docstring: ``ValueError`` for anything else, naming the option and what it takes."""
    e = over_and_out_v0.env(num_players=2)
    with pytest.raises(ValueError, match=message):
        e.reset(seed=0, options=options)


# --- game.py: observe and resample_hidden --------------------------------------------------------


def test_observe_and_resample_check_the_seat() -> None:
    """A seat outside [0, N) is refused (a negative one would read another seat's view)."""
    game = OverAndOutGame()
    state = game.new_initial_state(np.random.default_rng(0))
    for seat in (-1, 4):
        with pytest.raises(ValueError, match=rf"seat must be an int in \[0, 3\], got {seat}"):
            game.observe(state, seat)
        with pytest.raises(ValueError, match=rf"seat must be an int in \[0, 3\], got {seat}"):
            game.resample_hidden(state, seat, np.random.default_rng(0))


def test_resample_gives_a_fresh_rng_and_a_fresh_legal_mask() -> None:
    """Env docstring: ``resample_hidden`` gives the state a fresh rng (not the caller's); the
    re-dealt hand of the player to move has its own legal moves."""
    game = OverAndOutGame()
    state = game.new_initial_state(np.random.default_rng(2))
    _random_play(state, 2, lambda s: s.plays >= 12)
    state.legal_mask()  # cache the mover's legal set in the original
    seat = (state.current_player() + 1) % 4
    rng = np.random.default_rng(9)
    for _ in range(20):
        other = game.resample_hidden(state, seat, rng)
        assert other.rng is not rng
        assert np.array_equal(other.legal_mask(), State.from_dict(other.to_dict()).legal_mask())


def test_resample_re_deals_an_eliminated_seats_last_card() -> None:
    """``resample_hidden``: an eliminated seat no longer sees the last card it keeps at the end
    (env docstring, decisions), so from its view that card is re-dealt like any unseen card."""
    for seed in range(40):
        state = _finished(seed, num_players=2, starting_chips=1)
        loser = state.out_order[-1]
        if len(state.hands[loser]) == 1:
            break
    else:  # pragma: no cover
        pytest.fail("no finished game with the loser holding its card")
    game = OverAndOutGame(num_players=2, starting_chips=1)
    rng = np.random.default_rng(0)
    seen = {tuple(game.resample_hidden(state, loser, rng).hands[loser]) for _ in range(30)}
    assert len(seen) > 1


# --- serial.py: to_dict ----------------------------------------------------------------------------


def test_to_dict_shares_no_list_with_the_state() -> None:
    """``to_dict`` is a snapshot: editing the dict does not change the state."""
    state = engine(S01_DECK, [22], num_players=2, first_dealer=1)
    before = copy.deepcopy(state.to_dict())
    d = state.to_dict()
    for key in ("chips", "tiptop_pile", "out_order", "draw_pile", "tiptop_discards"):
        d[key].append(1)
    d["hands"][0].append("0")
    assert state.to_dict() == before


def test_a_truncated_game_round_trips() -> None:
    """§5 truncation survives ``to_dict`` / ``from_dict``: flag, end and returns."""
    state = engine(S01_DECK, [22], num_players=2, first_dealer=1, max_plays=1)
    state.apply(5)
    assert state.is_truncated() and state.is_terminal()
    back = State.from_dict(copy.deepcopy(state.to_dict()))
    assert back.is_truncated() and back.is_terminal()
    assert back.to_dict() == state.to_dict()


def test_round_plays_round_trips_in_a_later_round() -> None:
    """Slot 59 (plays in this round) is restored as such, not as the plays of the game."""
    d = _one_out_dict()
    assert d["round_plays"] < d["plays"]
    assert State.from_dict(copy.deepcopy(d)).to_dict()["round_plays"] == d["round_plays"]


def test_from_dict_sorts_hands_and_tiptop_discards() -> None:
    """Snapshot hands are tokens sorted in action-space order (§8); the engine keeps the
    discarded Tip Top cards sorted, so a state read from a dict matches one played there."""
    d = _fresh_dict()
    d["hands"][0] = list(reversed(d["hands"][0]))
    d["tiptop_discards"], d["tiptop_pile"] = [44, 33], [66, 55]
    back = State.from_dict(d)
    assert back.snapshot()["hands"][0] == ["1", "5", "x2", "-10"]
    assert back.to_dict()["tiptop_discards"] == [33, 44]


# --- serial.py: from_dict refuses malformed fields -----------------------------------------------


def test_from_dict_refuses_what_is_no_state_dict() -> None:
    _refused([1, 2], "expected a dict from State.to_dict\\(\\), got list")
    d = _fresh_dict()
    d["game"] = "octi"
    _refused(d, "not an over_and_out state: game = 'octi'")
    d = _fresh_dict()
    del d["round"]
    d["extra"] = 1
    _refused(d, r"malformed state dict: missing keys \['round'\], unknown keys \['extra'\]")
    d = _fresh_dict()
    d["extra"] = 1
    _refused(d, r"missing keys \[\], unknown keys \['extra'\]")
    d = _fresh_dict()
    del d["round"]
    _refused(d, r"missing keys \['round'\], unknown keys \[\]")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("dealer", True, r"dealer must be an int in \[0, 1\], got True"),
        ("dealer", 2, r"dealer must be an int in \[0, 1\], got 2"),
        ("total", 1.0, r"total must be an int in \[0, 66\], got 1.0"),
        ("total", 67, r"total must be an int in \[0, 66\], got 67"),
        ("round", 0, r"round must be an int in \[1, 1000000000\], got 0"),
        ("plays", 5001, r"plays must be an int in \[0, 5000\], got 5001"),
        ("round_plays", 1, r"round_plays must be an int in \[0, 0\], got 1"),
        ("to_move", -2, r"to_move must be an int in \[-1, 1\], got -2"),
        ("out_order", [2], r"out_order\[\] must be an int in \[0, 1\], got 2"),
        ("direction", True, r"direction must be 1 or -1, got True"),
        ("truncated", 0, r"truncated must be true or false, got 0"),
        ("chips", [4, 4, 4], r"chips must be a list of length 2"),
        ("chips", (4, 4), r"chips must be a list of length 2"),
        (
            "hands",
            [["0", "3", "x2", "top-out"], [["1"], "5", "x2", "-10"]],
            r"hands\[\] holds \['1'\], not a card",
        ),
        ("play_pile", [["0", 1]], r"play_pile must be a dict token -> count"),
        ("play_pile", {"6": 1}, r"play_pile has unknown card token '6'"),
        ("tiptop_pile", [22, 33, 44, 55, 66], r"must be the cards \(22, 33, 44, 55, 66\) once each"),
        ("rng", {"bit_generator": "PCG64", "state": 1}, r"malformed rng state: \S"),
    ],
)
def test_from_dict_refuses_a_malformed_field(key: str, value: Any, message: str) -> None:
    """``serial.py``: ``from_dict`` checks every field (ints are ints, not bools or floats, in
    their range; lists of the right length; card tokens) and raises ``ValueError`` naming it."""
    d = _fresh_dict()
    d[key] = value
    _refused(d, message)


def test_from_dict_chips_are_bounded_by_starting_chips() -> None:
    """OAO-03: nobody holds more chips than ``starting_chips``."""
    d = _fresh_dict(starting_chips=3)
    d["chips"][0] = 4
    d["hands"][0].append(d["draw_pile"].pop())
    _refused(d, r"chips\[\] must be an int in \[0, 3\], got 4")


# --- serial.py: from_dict refuses states no game reaches (OAO-44 and the end flags) ----------------


def test_from_dict_counts_every_kind_not_only_the_total() -> None:
    """OAO-44: hands + draw pile + play pile make up the deck, kind by kind."""
    d = _fresh_dict()
    d["hands"][0] = ["0", "5", "x2", "-10"]  # a 1 became a 0: same number of cards
    _refused(d, "hands \\+ draw pile \\+ play pile do not make up the deck of deck_counts")


def test_from_dict_refuses_bad_hands_and_elimination_orders() -> None:
    """OAO-44 / OAO-34: an active hand has its chips' size; an eliminated seat is listed once in
    ``out_order`` and, while the game runs, holds no card."""
    d = _fresh_dict()
    d["chips"][0] = 3
    _refused(d, "each active player's hand size must equal its chips")
    d = _one_out_dict()
    out = d["out_order"][0]
    d["out_order"] = [out, out]
    _refused(d, "out_order must list each seat without chips exactly once")
    d = _one_out_dict()
    out = d["out_order"][0]
    d["hands"][out] = [d["draw_pile"].pop()]  # the next deal emptied its hand (OAO-35)
    _refused(d, "an eliminated player holds no cards, except its last card when its loss ended the game")


def test_from_dict_refuses_a_running_game_that_cannot_run() -> None:
    """A running game has two or more players left, plays < max_plays, no truncation flag, a
    player to move and a dealer with chips, and T <= L."""
    running = "a running game has two or more players left, plays < max_plays"
    d = _fresh_dict()
    d["truncated"] = True
    _refused(d, running)
    d = _fresh_dict(max_plays=3)
    d["plays"] = 3
    _refused(d, running)
    d = _fresh_dict(starting_chips=1)  # p0 out with its card, p1 alone and to move
    d["chips"], d["out_order"], d["to_move"], d["dealer"] = [0, 1], [0], 1, 1
    d["draw_pile"], d["hands"][0] = d["hands"][0] + d["draw_pile"], []
    _refused(d, running)
    d = _fresh_dict()
    d["total"] = 23
    _refused(d, "a running round has total <= tiptop")
    for key in ("to_move", "dealer"):
        d = _one_out_dict()
        d[key] = d["out_order"][0]
        _refused(d, "the player to move and the dealer must have chips")


def test_from_dict_refuses_inconsistent_end_flags() -> None:
    """§5: a finished game has one player left, or is truncated (with plays >= max_plays)."""
    d = _fresh_dict()
    d["to_move"] = -1
    _refused(d, "a finished game has one player left, or is truncated with more")
    d["truncated"] = True
    _refused(d, "a truncated game has plays >= max_plays")


# --- serial.py: returns follow from the elimination order and the end flags (§5) ------------------


@pytest.mark.parametrize(("n", "mode"), [(4, "placement"), (3, "winner_only"), (5, "placement")])
def test_from_dict_returns_of_a_finished_game(n: int, mode: str) -> None:
    """§5: the j-th out -1 + 2(j-1)/(N-1) (winner_only: -1), the winner +1; a restored
    finished game has the same returns as the game played."""
    state = _finished(n, num_players=n, starting_chips=1, reward_mode=mode)
    want = [0.0] * n
    for j, seat in enumerate(state.out_order, start=1):
        want[seat] = -1 + 2 * (j - 1) / (n - 1) if mode == "placement" else -1.0
    (winner,) = state.active_seats()
    want[winner] = 1.0
    assert state.returns() == pytest.approx(want)
    assert State.from_dict(copy.deepcopy(state.to_dict())).returns() == pytest.approx(want)


@pytest.mark.parametrize(("mode", "rest"), [("placement", 0.5), ("winner_only", 0.0)])
def test_from_dict_returns_of_a_truncated_game(mode: str, rest: float) -> None:
    """§5 truncation: each of the m remaining players gets (N - m)/(N - 1) (placement; 3
    players, one out: 1/2), winner_only 0 each; the one out keeps its -1."""
    d = _one_out_dict(reward_mode=mode, max_plays=5000)
    d["to_move"], d["truncated"], d["plays"] = -1, True, 5000
    back = State.from_dict(d)
    out = d["out_order"][0]
    assert back.returns().tolist() == [-1.0 if s == out else rest for s in range(3)]


def test_from_dict_returns_of_a_running_game_with_two_out() -> None:
    """§5: the first out -1, the second -1/3 (N = 4), the players still in 0."""
    state = OverAndOutGame(num_players=4, starting_chips=1).new_initial_state(np.random.default_rng(4))
    _random_play(state, 4, lambda s: len(s.out_order) == 2)
    first, second = state.out_order
    back = State.from_dict(copy.deepcopy(state.to_dict()))
    want = [0.0] * 4
    want[first], want[second] = -1.0, -1 / 3
    assert back.returns() == pytest.approx(want)
