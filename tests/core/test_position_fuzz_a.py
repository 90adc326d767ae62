"""Fuzzing the position and saved-state loaders of Octi and Over and Out.

The contract (each env's doc page, ``envs/<game>/position.py``, ``State.from_dict``): a
position or saved state either loads or raises ``ValueError`` naming the problem; a loaded
one round-trips through ``to_dict`` / JSON, keeps the game's invariants (conserved prongs /
cards and Tip Top cards, board counts, a non-empty legal set while running) and plays to
the end with random legal moves. The seeded fuzz test below checks that on bounded random
perturbations of reachable states; the tests after it pin the Octi defects this fuzzing found
and that are fixed (``State.from_dict`` accepted states no play can reach, one of which then
corrupted the board counts; spec rule IDs cited). Others it found are kept on purpose, as the
doc pages' decisions say: a saved state edited to set up a rule (a pod on an enemy base, a
round counter, the opening of a round) is taken as given.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest

from envs import octi_v0, over_and_out_v0
from envs.octi import bots as octi_bots
from envs.octi.game import OctiGame
from envs.octi.rules import State as OctiState
from envs.octi.turn import MAIN, POPCOUNT
from envs.over_and_out import bots as oao_bots
from envs.over_and_out.cards import TIPTOP_VALUES, TOKENS
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State as OaoState

OCTI_CONFIGS: tuple[dict[str, Any], ...] = (
    {"max_turns": 40},
    {"allow_reposition": True, "edgeless": True, "repetition_draw": True, "max_turns": 40},
    {"variant": "x_fast", "capture_to_reserve": True, "max_turns": 40},
    {"variant": "x_classic", "edgeless": True, "repetition_draw": True, "max_turns": 40},
)
OAO_CONFIGS: tuple[dict[str, Any], ...] = (
    {"num_players": 2, "first_dealer": 1, "starting_chips": 2},
    {"num_players": 3, "minus10_rule": "lose_below_zero", "max_plays": 120},
    {"num_players": 5, "reward_mode": "winner_only", "starting_chips": 1},
    {
        "num_players": 3,
        "starting_chips": 2,
        "deck_counts": {"0": 3, "x2": 2, "-10": 2, "top-out": 1, "topsy-turvy": 2, "spin-out": 1},
        "max_plays": 150,
    },
)
ODD_VALUES: tuple[Any, ...] = (None, True, False, 1.5, "x", "", [], {}, -1, 10**12)
PLAY_LIMIT = 3000  # agent steps when playing a loaded state out (every config above ends sooner)


def _json(d: Any) -> Any:
    return json.loads(json.dumps(d))


def _reachable(game: Any, bots: Any, seed: int, picks: int) -> list[Any]:
    """States of one seeded game (random play or the bots, seats mixed), at random steps."""
    rng = np.random.default_rng(seed)
    names = ("random", "greedy", "heuristic")
    players = [bots.BOTS[names[(seed + i) % 3]](game) for i in range(game.num_players)]
    state = game.new_initial_state(np.random.default_rng(seed + 100))
    trajectory = [state.clone()]
    while not state.is_terminal() and len(trajectory) < PLAY_LIMIT:
        p = state.current_player()
        state.apply(players[p].act(state, p, rng))
        trajectory.append(state.clone())
    steps = sorted({0, len(trajectory) - 1, *rng.integers(len(trajectory), size=picks).tolist()})
    return [trajectory[i] for i in steps]


# ----------------------------------------------------------------------------- invariants
def _octi_invariants(s: OctiState) -> None:
    on_board = sum(POPCOUNT[s.prongs[g]] for g in range(2 * s.P) if s.pos[g] >= 0)
    assert on_board + sum(s.supply) == 2 * s.config.start_supply, "prongs not conserved (OCT-26)"
    assert all(s.prongs[g] == 0 for g in range(2 * s.P) if s.pos[g] < 0), "an off-board pod has prongs"
    counts = list(s.cnt)
    s.rebuild_board()
    assert counts == s.cnt and min(counts) >= 0, "board counts drifted from the pods"
    if not s.is_terminal():
        assert s.legal_actions(), "a running game without a legal action"


def _oao_invariants(s: OaoState) -> None:
    counts = list(s.play_pile)
    for k in [*s.draw_pile, *(k for h in s.hands for k in h)]:
        counts[k] += 1
    assert tuple(counts) == s.config.counts, "cards not conserved (OAO-44)"
    assert sorted([*s.tiptop_pile, *s.tiptop_discards, s.tiptop]) == list(TIPTOP_VALUES), "OAO-44"
    if not s.is_terminal():
        assert s.legal_actions()
        assert all(len(s.hands[x]) == s.chips[x] for x in s.active_seats()), "hand size != chips (OAO-44)"
        assert 0 <= s.total <= s.tiptop, "OAO-44"


def _check_loaded(state: Any, state_class: Any, invariants: Any, seed: int) -> None:
    """Round trip through JSON, invariants, then random legal play to the end."""
    d = _json(state.to_dict())
    again = state_class.from_dict(d)
    assert _json(again.to_dict()) == d, "a loaded state does not round-trip"
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal() and steps < PLAY_LIMIT:
        invariants(state)
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
        steps += 1
    invariants(state)
    assert state.is_terminal(), "a loaded game did not end"


# ---------------------------------------------------------------------------- perturbing
def _perturb(d: dict[str, Any], rng: np.random.Generator) -> tuple[dict[str, Any], str, bool]:
    """``d`` with one field changed: ``(dict, key, changed_type)``; ``changed_type`` is True
    when the new value has another JSON type than a scalar field's old one."""
    e = copy.deepcopy(d)
    keys = [k for k in e if k != "rng"]
    key = keys[int(rng.integers(len(keys)))]
    old = e[key]
    mode = int(rng.integers(4))
    if mode == 0 or old is None:
        new = ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
        e[key] = new
        scalar = isinstance(old, (int, str)) and not isinstance(old, bool)
        changed = scalar and (
            new is None or isinstance(new, (float, list, dict)) or type(new) is not type(old)
        )
        changed = changed and not (
            isinstance(old, int) and isinstance(new, int) and not isinstance(new, bool)
        )
        return e, key, bool(changed)
    if isinstance(old, bool):
        e[key] = not old
    elif isinstance(old, int):
        e[key] = old + int(rng.choice([-2, -1, 1, 3, 50]))
    elif isinstance(old, float):
        e[key] = -old if old else 1.0
    elif isinstance(old, str):
        e[key] = str(rng.choice(["MAIN", "DECLARE", "CHAIN", "MOVER", "CAPTURE", "OVER", "main", "octi"]))
    elif isinstance(old, list):
        if not old or mode == 1:
            e[key] = [*old, copy.deepcopy(old[0]) if old else 0]
        else:
            i = int(rng.integers(len(old)))
            x = old[i]
            if isinstance(x, list):
                old[i] = [*x, x[0] if x else 0] if mode == 2 else x[1:]
            elif isinstance(x, int) and not isinstance(x, bool):
                old[i] = [x + 1, x - 1, old[int(rng.integers(len(old)))], None, 2.5][int(rng.integers(5))]
            else:
                old[i] = ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
    elif isinstance(old, dict):
        if old and mode >= 2:
            k = list(old)[int(rng.integers(len(old)))]
            v = old[k]
            old[k] = v + 1 if isinstance(v, int) and not isinstance(v, bool) else None
        else:
            old[str(rng.choice(["junk", "0", "spin-out", "variant"]))] = int(rng.integers(0, 3))
    return e, key, False


def _octi_board_perturb(d: dict[str, Any], s: OctiState, rng: np.random.Generator) -> dict[str, Any]:
    """``d`` with one pod moved anywhere (or off the board, its prongs back to the supply)."""
    e = copy.deepcopy(d)
    g = int(rng.integers(2 * s.P))
    new = int(rng.integers(-2, s.geo.size))
    if new < 0:
        e["supply"][g // s.P] += POPCOUNT[e["prongs"][g]]
        e["prongs"][g] = 0
    e["pos"][g] = new
    return e


def _position_perturb(p: dict[str, Any], names: list[str], rng: np.random.Generator) -> dict[str, Any]:
    e = copy.deepcopy(p)
    board = e["board"]
    mode = int(rng.integers(7))
    if mode == 0 and board:
        src = list(board)[int(rng.integers(len(board)))]
        board.setdefault(names[int(rng.integers(len(names)))], []).extend(board.pop(src))
    elif mode == 1 and board:
        pod = board[list(board)[int(rng.integers(len(board)))]][0]
        pod[int(rng.integers(2))] = [1 - pod[0], "N,N", " n , ne ", "X", None, 3, True][int(rng.integers(7))]
    elif mode == 2:
        e["to_move"] = [0, 1, "player_1", True, 1.0, "p1", None, np.int64(1)][int(rng.integers(8))]
    elif mode == 3:
        e["turn"] = [0, -1, True, 2.0, 39, 40, np.int64(3), None, "1"][int(rng.integers(9))]
    elif mode == 4:
        key = ["supply", "reserve", "captured"][int(rng.integers(3))]
        e[key] = [[e[key][0] + 1, e[key][1]], [e[key][0]], [True, 0], None, [-1, e[key][1]]][
            int(rng.integers(5))
        ]
    elif mode == 5:
        key = [None, 3, "A1", " c3 ", "z9", "c03", "phase"][int(rng.integers(7))]
        if key == "phase":
            e["phase"] = [None, "main", "OVER", 0, "CHAIN"][int(rng.integers(5))]
        else:
            board[key] = [[0, ""]]
    else:
        for key in ("supply", "reserve", "captured", "turn", "to_move"):
            if rng.integers(2):
                e.pop(key, None)
    return e


def _oao_options(rng: np.random.Generator) -> dict[str, Any]:
    tokens = [*TOKENS, " X2 ", "SPIN-OUT", "7", 3, None, True, "", "bust"]
    tiptops = [*TIPTOP_VALUES, np.int64(44), True, 22.0, "22", None, 0, 67]
    options: dict[str, Any] = {}
    if rng.integers(2):
        options["deck_top"] = [tokens[int(rng.integers(len(tokens)))] for _ in range(int(rng.integers(40)))]
    if rng.integers(2):
        options["tiptop_top"] = [
            tiptops[int(rng.integers(len(tiptops)))] for _ in range(int(rng.integers(6)))
        ]
    if rng.integers(6) == 0:
        options = {"deck_top": "0123", "tiptop_top": {22: 1}, "deck_top ": []}
    return options


def _load_or_value_error(load: Any, *args: Any, key: str | None = None, changed_type: bool = False) -> Any:
    """``load(*args)``, or None when it raised ``ValueError`` (which must name ``key`` when the
    perturbation only changed a field's type); any other exception fails the test."""
    try:
        return load(*args)
    except ValueError as exc:
        if changed_type and key is not None:
            assert key.split("_")[0] in str(exc), f"ValueError does not name {key!r}: {exc}"
        return None


# ----------------------------------------------------------------------------- the fuzz
def test_reachable_states_round_trip() -> None:
    """Every reachable state reloads identically (state option and Octi's MAIN snapshots)."""
    for cfg in OCTI_CONFIGS:
        game = OctiGame(**cfg)
        for seed in range(2):
            for s in _reachable(game, octi_bots, seed, 4):
                d = _json(s.to_dict())
                assert _json(OctiState.from_dict(d).to_dict()) == d
                if s.phase == MAIN:
                    p = _json(s.snapshot())
                    loaded = game.new_initial_state(np.random.default_rng(0), {"position": p})
                    assert loaded.snapshot() == p
    for cfg in OAO_CONFIGS:
        game = OverAndOutGame(**cfg)
        for seed in range(2):
            for s in _reachable(game, oao_bots, seed, 4):
                d = _json(s.to_dict())
                assert _json(OaoState.from_dict(d).to_dict()) == d


def test_fuzz_loaders_raise_value_error_or_load_a_playable_state() -> None:
    rng = np.random.default_rng(20261207)
    tried = accepted = 0
    for cfg in OCTI_CONFIGS:
        game = OctiGame(**cfg)
        names = list(game.new_initial_state(np.random.default_rng(0)).geo.names)
        for s in _reachable(game, octi_bots, int(rng.integers(1000)), 4):
            d = _json(s.to_dict())
            cases = [_perturb(d, rng) for _ in range(12)]
            cases += [(_octi_board_perturb(d, s, rng), "pos", False) for _ in range(4)]
            for e, key, changed in cases:
                queued, marked = e.get("capture_queue"), e.get("capture_marks")
                if (
                    isinstance(queued, list)
                    and isinstance(marked, list)
                    and set(map(str, queued)) & set(map(str, marked))
                ):
                    continue  # known defect, see test_octi_pod_both_queued_and_marked_is_rejected
                tried += 1
                x = _load_or_value_error(OctiState.from_dict, e, key=key, changed_type=changed)
                if x is not None:
                    accepted += 1
                    _check_loaded(x, OctiState, _octi_invariants, tried)
            if s.phase != MAIN:
                continue
            p = s.snapshot()
            for _ in range(8):
                e = _position_perturb(p, names, rng)
                tried += 1
                x = _load_or_value_error(game.new_initial_state, np.random.default_rng(0), {"position": e})
                if x is not None:
                    accepted += 1
                    _check_loaded(x, OctiState, _octi_invariants, tried)
    for cfg in OAO_CONFIGS:
        game = OverAndOutGame(**cfg)
        for s in _reachable(game, oao_bots, int(rng.integers(1000)), 3):
            d = _json(s.to_dict())
            for e, key, changed in (_perturb(d, rng) for _ in range(20)):
                tried += 1
                x = _load_or_value_error(OaoState.from_dict, e, key=key, changed_type=changed)
                if x is not None:
                    accepted += 1
                    _check_loaded(x, OaoState, _oao_invariants, tried)
        for _ in range(40):
            options = _oao_options(rng)
            tried += 1
            x = _load_or_value_error(game.new_initial_state, np.random.default_rng(tried), options)
            if x is not None:
                accepted += 1
                _check_loaded(x, OaoState, _oao_invariants, tried)
    assert tried > 500 and 0 < accepted < tried, (tried, accepted)


def test_env_reset_paths_take_loaded_states_and_refuse_bad_ones_with_value_error() -> None:
    env = octi_v0.env(variant="x_fast", max_turns=40)
    env.reset(seed=0, options={"position": {"board": {"d3": [[0, "N"], [0, "N"]], "d5": [[1, ""]]}}})
    assert env.unwrapped.state.snapshot()["board"]["d3"] == [[0, "N"], [0, "N"]]
    with pytest.raises(ValueError, match="turn"):
        env.reset(seed=0, options={"position": {"board": {"d3": [[0, "N"]]}, "turn": True}})
    d = _json(env.unwrapped.state.to_dict())
    env.reset(seed=1, options={"state": d})
    assert _json(env.unwrapped.state.to_dict()) == d
    d["supply"] = [d["supply"][0] + 1, d["supply"][1]]
    with pytest.raises(ValueError, match="prongs"):
        env.reset(seed=1, options={"state": d})
    env = over_and_out_v0.env(num_players=3)
    env.reset(seed=0, options={"deck_top": ["x2", " Spin-Out "], "tiptop_top": [np.int64(22)]})
    assert env.unwrapped.state.tiptop == 22
    with pytest.raises(ValueError, match="tiptop_top"):
        env.reset(seed=0, options={"tiptop_top": [True]})
    d = _json(env.unwrapped.state.to_dict())
    d["total"] = "0"
    with pytest.raises(ValueError, match="total"):
        env.reset(seed=0, options={"state": d})


# ----------------------------------------------------------------------------- defects
def _octi(**params: Any) -> OctiState:
    return OctiGame(**params).new_initial_state(np.random.default_rng(0))


def _octi_from(params: dict[str, Any], position: dict[str, Any], moves: list[str]) -> OctiState:
    options = {"position": position, "moves": moves}
    return OctiGame(**params).new_initial_state(np.random.default_rng(0), options)


def _refused(d: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        OctiState.from_dict(d)


def test_octi_pod_both_queued_and_marked_is_rejected() -> None:
    """OCT-29: a jumped pod is decided once, so a pod is never both in the capture queue and
    marked. Accepted, capturing it again removed it twice and the count of the square h9
    (x_fast) went to -1: a phantom pod the game then played around."""
    # Red pod d4 is jumped by Black's d3 -> d5; the capture queue holds it (global code 7).
    s = _octi_from({"variant": "x_fast"}, {"board": {"d3": [[0, "N"]], "d4": [[1, ""]]}}, ["jump d3 N"])
    d = s.to_dict()
    assert d["phase"] == "CAPTURE" and d["capture_queue"] == [7]
    d["capture_marks"] = [7]  # already marked, yet still queued: no play gives this
    _refused(d, "a pod is either in capture_queue or decided in capture_marks, not both (OCT-29)")


def _octi_over(**changes: Any) -> dict[str, Any]:
    d = _octi().to_dict()
    d.update(phase="OVER", **changes)
    return d


@pytest.mark.parametrize(
    ("d", "message"),
    [
        (_octi_over(truncated=True), "a truncated game is at the turn limit 300, got turn 0"),
        (
            _octi_over(),
            "a drawn game ended at the turn limit (truncated, OCT-45) or on a third repetition",
        ),
        (
            _octi_over(result=[-1.0, 1.0]),
            "only the player who made the last move wins: result must give to_move +1",
        ),
    ],
    ids=["truncated-at-turn-0", "draw-without-a-rule", "non-mover-wins"],
)
def test_octi_finished_state_must_match_an_ending(d: dict[str, Any], message: str) -> None:
    """OCT-42..45, OCT-52: a game ends by a win of the player who just moved, a draw at the
    turn limit (truncated) or a third repetition; the initial board marked over fits none.
    A real repetition draw (spec S07) still loads."""
    _refused(d, message)
    from tests.octi.helpers import new, play
    from tests.octi.test_scenarios import S07_MOVES

    drawn = play(new(repetition_draw=True), S07_MOVES).to_dict()
    assert drawn["phase"] == "OVER" and not drawn["truncated"]
    assert OctiState.from_dict(drawn).to_dict() == drawn


def test_octi_running_state_holds_no_third_repetition() -> None:
    """OCT-52: the third occurrence of a position ends the game as a draw, so a running game's
    history never counts 3."""
    d = _octi(repetition_draw=True).to_dict()
    d["history"] = {key: 3 for key in d["history"]}
    _refused(d, "a running game holds no history count of 3 (OCT-52: the third occurrence is a draw)")


def _octi_bookkeeping_states() -> list[dict[str, Any]]:
    x = {"variant": "x_fast"}
    stepped = _octi_from(x, {"board": {"d3": [[0, "N"], [0, "N"]], "d5": [[1, ""]]}}, ["step d3.0 N"])
    after_step = stepped.to_dict()
    assert after_step["phase"] == "DECLARE" and after_step["last_jump"] is False
    after_step["last_jump"] = True  # the first mover stepped (nothing jumped) yet "last hop was a jump"
    jumped = _octi_from(
        x, {"board": {"d3": [[0, "N"], [0, "N"]], "d4": [[1, ""]], "d6": [[1, ""]]}}, ["jump d3.0 N"]
    )
    undeclared = jumped.to_dict()
    assert undeclared["phase"] == "DECLARE" and undeclared["declare_queue"] == [1]
    undeclared["phase"] = "CHAIN"  # a series continuing before the declare queue was asked
    stale = _octi_from(x, {"board": {"d3": [[0, "N"]], "d4": [[1, ""]], "d6": [[1, ""]]}}, []).to_dict()
    stale["jumped"][0] = [48]  # MAIN, yet pod 0 "has jumped" d6: its series would stop at d5
    stale["jumped_order"] = [48]
    return [after_step, undeclared, stale]


@pytest.mark.parametrize(
    ("d", "message"),
    [
        *zip(
            _octi_bookkeeping_states(),
            [
                "last_jump needs a pod that has jumped this turn (the active one, if any; OCT-16)",
                "inconsistent turn state for phase CHAIN",
                "phase MAIN cannot carry turn state",
            ],
            strict=True,
        )
    ],
    ids=["last-jump-after-step", "chain-before-declare", "jumped-in-main"],
)
def test_octi_turn_bookkeeping_inconsistent_with_the_phase_is_rejected(
    d: dict[str, Any], message: str
) -> None:
    """OCT-16 (a step ends the pod's movement: the stepped pod jumped on), §3 FOLLOW-UP (the
    declare queue is asked before a series goes on, OCT-34), OCT-18/19 (squares jumped only
    after a hop: a stale one cut a legal series short). Each changed the legal moves."""
    _refused(d, message)


def test_octi_jumped_order_lists_the_jumped_squares() -> None:
    """``jumped_order`` (the capture queue's order, OCT-29) lists each jumped square once."""
    s = _octi_from({"variant": "x_fast"}, {"board": {"d3": [[0, "N"]], "d4": [[1, ""]]}}, ["jump d3 N"])
    d = s.to_dict()
    d["jumped_order"].append(next(sq for sq in range(9) if sq not in d["jumped_order"]))  # never jumped
    _refused(d, "jumped_order must list each square of jumped once")
