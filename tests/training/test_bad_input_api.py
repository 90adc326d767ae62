"""Bad input to the training layer's Python entry points and to ``eightfold replay``: a clear
``ValueError`` naming the parameter, what it got and what is allowed, at the call that takes it
(not an ``AttributeError`` or ``TypeError`` from deeper down, nor a silent change of behaviour).
(The misuse audit of 2026-12-07, docs/CHECKS.md "Misuse of the Python API".)"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.bots import RandomBot
from envs.core.registry import GAMES
from tests.training.test_cli_fuzz import run_cli
from tests.training.toy_game import ToyGame
from training.config import TrainConfig
from training.evaluate import run_tournament
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv
from training.tournament import play_pairing, wilson

OAO = "over_and_out"
TWO = {"num_players": 2}


def _oao() -> Any:
    return GAMES[OAO].game_class()(**TWO)


# ----------------------------------------------------------- SingleAgentEnv
@pytest.mark.parametrize("specs", [["heuristic"], "heuristic", {"random": 1}])
def test_single_agent_env_refuses_opponent_specs(specs: Any) -> None:
    """``SingleAgentEnv(game, ["heuristic"])`` (specs where a pool belongs) is refused at
    construction, pointing to ``OpponentPool.from_specs`` / ``make_env``. Old code: accepted,
    then ``AttributeError: 'list' object has no attribute 'act'`` at ``reset()``."""
    with pytest.raises(
        ValueError, match=r"opponents must be an OpponentPool .*OpponentPool\.from_specs.*make_env"
    ):
        SingleAgentEnv(ToyGame(num_players=2), specs)


def test_single_agent_env_refuses_a_game_name() -> None:
    """A game name where the engine Game belongs is refused naming ``game``. Old code:
    ``AttributeError: 'str' object has no attribute 'num_players'``."""
    with pytest.raises(
        ValueError,
        match=r"^SingleAgentEnv: game must be an engine Game object "
        r"\(get_game\('over_and_out'\)\.game_class\(\)\(\.\.\.\); or make_env\(name, \.\.\.\) by name\), got str$",
    ):
        SingleAgentEnv("over_and_out", OpponentPool())  # type: ignore[arg-type]


def test_single_agent_env_refuses_a_partner_spec() -> None:
    """A spec string as the 2v2 ``partner`` is refused at construction. Old code: accepted,
    then ``AttributeError: 'str' object has no attribute 'act'`` at the partner's first move
    (or, in a game without teams, a message about 2v2 that hides the type mistake)."""
    game = ToyGame(num_players=2)
    with pytest.raises(
        ValueError, match=r"partner must be a player with act\(state, seat, rng\).*got str 'heuristic'"
    ):
        SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game)), partner="heuristic")  # type: ignore[arg-type]


# ------------------------------------------------------------- OpponentPool
@pytest.mark.parametrize("size", [0, -1, 2.5, True, "10"])
def test_opponent_pool_refuses_a_bad_max_size(size: Any) -> None:
    """``max_size`` must be an int >= 1. Old code: accepted; with 0 or less every snapshot
    added was dropped at once (self-play silently played the fallback all run)."""
    with pytest.raises(ValueError, match=rf"max_size must be an int >= 1 .*got {re.escape(repr(size))}"):
        OpponentPool(max_size=size)
    for prob in (0, 1, 0.0, 1.0, np.float32(0.5)):  # the edges stay valid
        OpponentPool(latest_prob=prob, max_size=1)
    OpponentPool(max_size=np.int64(3))


@pytest.mark.parametrize("prob", [-0.1, 2, math.nan, True, "0.5"])
def test_opponent_pool_refuses_a_bad_latest_prob(prob: Any) -> None:
    """``latest_prob`` must be a number in [0, 1]. Old code: accepted (``2`` or NaN silently
    meant "always the newest snapshot", a string failed at the first draw)."""
    with pytest.raises(ValueError, match=r"latest_prob must be a number in \[0, 1\], got "):
        OpponentPool(latest_prob=prob)


def test_opponent_pool_refuses_a_fallback_that_is_no_player() -> None:
    """``fallback="random"`` (a spec, not a player) is refused. Old code: accepted, then
    ``AttributeError: 'str' object has no attribute 'act'`` at the first opponent move."""
    with pytest.raises(
        ValueError,
        match=r"fallback must be a player with act\(state, seat, rng\) .*make_player.*got 'random'",
    ):
        OpponentPool(fallback="random")  # type: ignore[arg-type]


@pytest.mark.parametrize("weight", [0, -1, math.inf, math.nan, True, "2"])
def test_opponent_pool_add_refuses_a_bad_weight(weight: Any) -> None:
    """``add(..., weight=w)`` takes what ``from_specs`` takes: a finite number > 0. Old code:
    ``-1`` failed later in numpy (``Probabilities contain NaN``), ``0`` was a group never drawn."""
    game = ToyGame(num_players=2)
    pool = OpponentPool()
    with pytest.raises(ValueError, match=r"weight must be a finite number > 0, got .* \(group 'a'\)"):
        pool.add("a", "x", RandomBot(game), weight=weight)
    assert len(pool) == 0 and not pool.groups


def test_opponent_pool_add_refuses_a_member_that_is_no_player() -> None:
    """A spec string added as a member is refused naming it and its group. Old code: accepted,
    then ``AttributeError`` at the move it was drawn for."""
    pool = OpponentPool()
    with pytest.raises(
        ValueError, match=r"member 'snap' of group 'self' must be a player with act\(state, seat, rng\)"
    ):
        pool.add("self", "snap", "runs/x/model.zip")  # type: ignore[arg-type]
    assert len(pool) == 0 and not pool.groups, "a refused member leaves no group behind"


def test_the_checks_take_what_was_taken_before() -> None:
    """What worked before the checks still works: a ``Fraction`` as ``latest_prob``, a range or
    a numpy array of game ids, an ``OpponentPool`` as the 2v2 partner, a numpy array of player
    specs and of start moves, numpy ints as counts."""
    from fractions import Fraction

    from envs.otto_game_over.game import OttoGameOverGame

    game = ToyGame(num_players=2)
    bot = RandomBot(game)
    pool = OpponentPool(latest_prob=Fraction(1, 2), max_size=np.int64(2), fallback=bot)
    pool.add("a", "x", bot, weight=np.float32(2))
    assert len(pool) == 1
    for ids in (range(2), np.arange(2)):
        assert play_pairing(game, bot, bot, ("a", "b"), ids).games == 2
    teams = OttoGameOverGame(num_players=4, teams=True)
    partners = OpponentPool(fallback=RandomBot(teams))
    env = SingleAgentEnv(teams, OpponentPool(fallback=RandomBot(teams)), partner=partners)
    env.reset(seed=0)
    res = run_tournament(
        "octi",
        {"max_turns": 4},
        np.array(["random", "greedy"]),
        2,
        workers=1,
        start=(None, np.array(["prong b2 N"])),
    )
    assert res["pairs"][0]["games"] == 2 and res["start"]["moves"] == ["prong b2 N"]


# --------------------------------------------------------- run_tournament
def test_run_tournament_refuses_players_as_one_string() -> None:
    """``players="random heuristic"`` is refused as a string. Old code: read one character at a
    time (``players must be distinct, got ['r', 'a', 'n', ...]``)."""
    with pytest.raises(
        ValueError, match=r"players must be a list of player specs .*got the string 'random heuristic'"
    ):
        run_tournament(OAO, TWO, "random heuristic", 2, workers=1)


def test_run_tournament_refuses_a_player_that_is_no_spec() -> None:
    """A non-string entry of ``players`` is named. Old code: ``TypeError: unhashable type``
    (a dict) from the distinctness check."""
    with pytest.raises(ValueError, match=r"^a player spec is a string: .*got \{'random': 1\} in players$"):
        run_tournament(OAO, TWO, ["heuristic", {"random": 1}], 2, workers=1)  # type: ignore[list-item]


@pytest.mark.parametrize("params", [None, "num_players=2", ["num_players", 2]])
def test_run_tournament_refuses_params_that_are_no_dict(params: Any) -> None:
    """``params`` must be a dict. Old code: ``TypeError: OverAndOutGame() argument after ** must
    be a mapping, not NoneType``."""
    with pytest.raises(ValueError, match=r"params must be a dict of game parameters .*got "):
        run_tournament(OAO, params, ["random", "heuristic"], 2, workers=1)


@pytest.mark.parametrize(
    ("start", "named"),
    [
        ({"deck_top": ["5"]}, r"start must be a pair \(reset options dict or None, list of moves .*got dict"),
        ({"a": 1, "b": 2}, r"start must be a pair .*got dict"),
        ((None, "play 3"), r"start\[1\], the moves, must be a list of moves .*got str 'play 3'"),
        (("seat=0", None), r"start\[0\], the reset options, must be a dict or None, got str"),
        ((None, ["x", 3]), r"start\[1\]\[1\] must be a move in notation \(a string\), got int 3"),
        ((None, None, None), r"start must be a pair .*got tuple"),
    ],
)
def test_run_tournament_refuses_a_malformed_start(start: Any, named: str) -> None:
    """``start`` is an ``(options dict or None, list of moves or None)`` pair. Old code: a
    dict was unpacked (``start_state() missing 1 required positional argument`` or a
    misleading ``--options: reset options must be a dict, got 'deck_top'``), a moves string was
    read one character at a time (``malformed action 'p'``)."""
    with pytest.raises(ValueError, match=named):
        run_tournament(OAO, TWO, ["random", "heuristic"], 2, workers=1, start=start)


def test_run_tournament_takes_no_moves_as_none() -> None:
    """``start=(options, None)`` means no moves, as :func:`training.tournament.check_start` allows. Old code: ``TypeError:
    'NoneType' object is not iterable``."""
    res = run_tournament(OAO, TWO, ["random", "heuristic"], 2, workers=1, start=({}, None))
    assert res["pairs"][0]["games"] == 2 and res["start"] == {"options": {}, "moves": []}


# ----------------------------------------------------- play_pairing, wilson
def test_play_pairing_names_the_seed_it_was_given() -> None:
    """``play_pairing(..., seed=-1)`` names ``seed=-1``. Old code: ``seed must be an int >= 0,
    got -1000003`` (the derived seed of game 0)."""
    game = ToyGame(num_players=2)
    bot = RandomBot(game)
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0, got -1$"):
        play_pairing(game, bot, bot, ("a", "b"), [0], seed=-1)


def test_play_pairing_names_a_bad_game_id() -> None:
    """A negative game id is named as one. Old code: ``seed must be an int >= 0, got -1``."""
    game = ToyGame(num_players=2)
    bot = RandomBot(game)
    with pytest.raises(ValueError, match=r"^game_ids\[1\] \(a game number\) must be an int >= 0, got -1$"):
        play_pairing(game, bot, bot, ("a", "b"), [0, -1])


@pytest.mark.parametrize("ids", [5, "01", None])
def test_play_pairing_refuses_game_ids_that_are_no_list(ids: Any) -> None:
    """``game_ids=5`` is refused naming ``game_ids``. Old code: ``TypeError: 'int' object is not
    iterable`` (and ``"01"`` failed as ``seed must be an int >= 0, got '0'``)."""
    game = ToyGame(num_players=2)
    bot = RandomBot(game)
    with pytest.raises(ValueError, match=r"game_ids must be a list of game numbers \(ints >= 0\), got "):
        play_pairing(game, bot, bot, ("a", "b"), ids)


@pytest.mark.parametrize(
    ("k", "n", "named"),
    [
        (5, 3, r"k \(the successes\) must be a number in \[0, n\], got k=5, n=3"),
        (-1, 3, r"k \(the successes\) must be a number in \[0, n\], got k=-1, n=3"),
        (math.nan, 3, r"got k=nan, n=3"),
        (1, 0, r"got k=1, n=0"),
        (0, -2, r"n \(the number of trials\) must be a number >= 0, got n=-2"),
        (1, math.inf, r"n \(the number of trials\) must be a number >= 0, got n=inf"),
        (1, True, r"n \(the number of trials\) must be a number >= 0, got n=True"),
        (3, 2.5, r"got k=3, n=2.5"),
    ],
)
def test_wilson_refuses_impossible_counts(k: Any, n: Any, named: str) -> None:
    """``wilson(k, n)`` needs ``0 <= k <= n``. Old code: ``ValueError: math domain error``."""
    with pytest.raises(ValueError, match=r"^wilson: .*" + named):
        wilson(k, n)


@pytest.mark.parametrize(
    ("k", "n"),
    [(5, 10.0), (np.int64(5), np.int64(10)), (np.array(5), np.array(10)), (2.5, 5), (10, 10), (0, 0)],
)
def test_wilson_takes_any_real_counts(k: Any, n: Any) -> None:
    """Counts from numpy sums (numpy ints and floats, 0-d arrays) and draws counted as halves are
    read as the numbers they are, as before the checks; ``k`` one rounding step above ``n`` is
    ``n``."""
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= hi <= 1.0
    assert (lo, hi) == wilson(float(k), float(n))
    assert wilson(10 * (1 + 1e-15), 10) == wilson(10, 10)


# ------------------------------------------------------------------ replay
def test_replay_of_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """``eightfold replay MISSING`` exits 2 with one line naming the path. Old code: exit 1,
    ``[Errno 2] No such file or directory``."""
    path = tmp_path / "none.jsonl"
    code, _out, err, tb = run_cli(["replay", str(path)])
    assert tb is None and code == 2, err
    assert (
        err
        == f"eightfold replay: error: no records file {str(path)!r} (eightfold eval --records FILE.jsonl or play --record FILE.jsonl writes one)\n"
    )


def test_replay_of_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    """``eightfold replay DIR`` exits 2 saying it is a directory. Old code: exit 1,
    ``[Errno 21] Is a directory``."""
    code, _out, err, tb = run_cli(["replay", str(tmp_path)])
    assert tb is None and code == 2, err
    assert (
        err
        == f"eightfold replay: error: {str(tmp_path)!r} is a directory; give a .jsonl file of eval --records or play --record\n"
    )


# ------------------------------------------------------------ TrainConfig
@pytest.mark.parametrize("params", ["num_players=2", ["num_players=2"], None])
def test_train_config_refuses_params_that_are_no_dict(params: Any) -> None:
    """``TrainConfig(params="num_players=2").validate()`` names ``params``. Old code:
    ``TypeError: OverAndOutGame() argument after ** must be a mapping, not str``."""
    with pytest.raises(ValueError, match=r"^params must be a dict of game parameters .*got "):
        TrainConfig(env=OAO, params=params).validate()


def test_train_config_refuses_params_keys_that_are_no_strings() -> None:
    """A key that is no string is named, as ``merge`` does. Old code: ``TypeError: keywords must
    be strings``."""
    with pytest.raises(ValueError, match=r"params names parameters by strings, got the key\(s\) \[2\]"):
        TrainConfig(env=OAO, params={2: "num_players"}).validate()
