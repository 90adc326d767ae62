"""Seeded fuzz of the bot contract: spec strings (``envs.core.bots.make_bot``), every MCTS parameter
(``envs.core.mcts``), and the bots they build on every game.

Contract (README "Command line" and "MCTS", ``envs/core/bots.py``, ``envs/core/mcts.py``, each
env's doc page): a spec is ``name[:key=value,...]``; a wrong name, key or value is a
``ValueError`` naming it and what is allowed, and nothing is silently substituted; a bot plays
only legal actions; "every random draw comes from the ``rng`` passed to act" (the same seed
gives the same move); a bot "reads only what ``player`` could see at the table" (the blindness
test: a world that differs only in hidden information, ``resample_hidden``, gives the same
choice for a fixed seed); ``time`` stops between simulations; ``rollout`` and ``epsilon`` act only
with ``depth`` >= 1, ``bias`` only with a ``prior``. ``--opponents`` keeps a spec's parameters
together and each item weighs 1.

The tests at the end each state the correct behaviour of a defect this fuzzing found (fixed
since).
"""

from __future__ import annotations

import math
import random
import time
import warnings
from typing import Any

import numpy as np
import pytest

from envs.core.arena import play_game, play_match
from envs.core.bots import Bot, make_bot, parse_bot_spec
from envs.core.game import hides_nothing, legal_indices
from envs.core.mcts import MCTSBot, measure_sims_per_second
from envs.core.registry import GAMES
from training.config import parse_opponents
from training.players import OpponentPool

# one small config per game, plus the variants whose seats or hidden information differ
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("octi", {}),
    ("octi", {"variant": "x_fast"}),
    ("over_and_out", {"num_players": 2}),
    ("over_and_out", {"num_players": 5}),
    ("otto_game_over", {"episode": "match"}),
    ("otto_game_over", {"num_players": 1}),
    ("otto_game_over", {"num_players": 4, "teams": True, "episode": "match"}),  # OGO-27 partner cards
    ("otto_octopus", {}),
    ("otto_octopus", {"num_players": 3, "open_game": True}),  # OTP-41
]
MCTS_KEYS = ["sims", "time", "rollout", "c", "depth", "epsilon", "prior", "bias", "widen"]
VALUES = [
    "0", "-1", "1", "2", "0.5", "2.5", "1e3", "1e309", "-0", "nan", "inf", "-inf", "true", "false",
    "none", "auto", "full", "AUTO", "random", "heuristic", "greedy", "mcts", "x", "", "1_000", "1e-400",
]  # fmt: skip


def _openspiel() -> Any:
    """``envs.core.openspiel``, or a skip without OpenSpiel (its ImportError is no
    ModuleNotFoundError, which is all pytest 9's ``importorskip`` skips on)."""
    pytest.importorskip("pyspiel")
    import envs.core.openspiel

    return envs.core.openspiel


def _game(name: str, params: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    return GAMES[name].game_class()(**params), dict(GAMES[name].bots())


def _make(game: Any, spec: str, bots: dict[str, Any]) -> Bot:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the documented "no effect" warnings
        return make_bot(game, spec, bots)


def _random_spec(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return rng.choice(
            ["random", "greedy", "heuristic", "mcts", "MCTS", "Random", " random ", "", "self", "ismcts"]
        )
    items = []
    for _ in range(rng.choice([0, 1, 2, 3])):
        key = rng.choice([*MCTS_KEYS, "frob", "SIMS", " sims ", "card_margin", "rollouts", ""])
        items.append(f"{key}{rng.choice(['=', '=', ' = ', ':', ''])}{rng.choice(VALUES)}")
    name = rng.choice(["mcts", "mcts", "mcts", "heuristic", "random", "ismcts"])
    return f"{name}:" + rng.choice([",", ", "]).join(items) if items else name


def _positions(game: Any, seed: int, count: int) -> list[Any]:
    """Positions with a choice, from seeded random play."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed + 1))
    out = []
    for _ in range(400):
        if state.is_terminal() or len(out) >= count:
            break
        legal = legal_indices(state.legal_mask())
        if legal.size > 1 and rng.random() < 0.3:
            out.append(state.clone())
        state.apply(int(legal[rng.integers(legal.size)]))
    return out


# ------------------------------------------------------------------------------ spec strings
def test_fuzzed_specs_build_a_bot_or_name_what_is_wrong() -> None:
    """Every spec either builds a bot that keeps the given numbers or raises ``ValueError`` naming
    the bot, the key or the malformed part; never another exception, never a bool read as a
    number, never a value silently changed."""
    rng = random.Random(20261207)
    games = [_game(n, p) for n, p in CONFIGS[::2]]
    specs = sorted({_random_spec(rng) for _ in range(400)})
    outcomes = {"ok": 0, "refused": 0}
    for spec in specs:
        try:
            name, params = parse_bot_spec(spec)
        except ValueError as exc:
            assert spec.strip() == "" or "malformed" in str(exc) or "twice" in str(exc), (spec, exc)
            continue
        for game, bots in games:
            try:
                bot = _make(game, spec, bots)
            except ValueError as exc:
                outcomes["refused"] += 1
                msg = str(exc)
                assert name in msg or any(k in msg for k in params), (spec, msg)
                continue
            outcomes["ok"] += 1
            assert isinstance(bot, Bot)
            if isinstance(bot, MCTSBot):
                for key, value in params.items():
                    assert not isinstance(value, bool), (spec, key)  # no bool taken as a number
                    if key in ("sims", "time", "c"):
                        assert float(getattr(bot, key)) == float(value), (spec, key)
                    if key == "depth" and value not in ("auto", "full"):
                        assert bot.depth == value, spec
                    if key in ("epsilon", "widen"):
                        assert float(getattr(bot, key)) == float(value), (spec, key)
                    if key == "bias":
                        assert bot.bias_weight == float(value), spec
    assert outcomes["ok"] > 20 and outcomes["refused"] > 200, outcomes


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("mcts:sims=0", "sims"),
        ("mcts:sims=-1", "sims"),
        ("mcts:sims=2.5", "sims"),
        ("mcts:sims=true", "sims"),
        ("mcts:sims=inf", "sims"),
        ("mcts:time=0", "time"),
        ("mcts:time=nan", "time"),
        ("mcts:time=1e-400", "time"),  # underflows to 0: refused, not a zero budget
        ("mcts:c=0", "c"),
        ("mcts:c=1e309", "c"),
        ("mcts:depth=-1", "depth"),
        ("mcts:depth=1.5", "depth"),
        ("mcts:depth=AUTO", "depth"),
        ("mcts:depth=false", "depth"),
        ("mcts:epsilon=1.0000001", "epsilon"),
        ("mcts:epsilon=-0.1", "epsilon"),
        ("mcts:epsilon=nan", "epsilon"),
        ("mcts:bias=-1", "bias"),
        ("mcts:bias=inf", "bias"),
        ("mcts:widen=-1", "widen"),
        ("mcts:widen=1,prior=none", "widen"),
        ("mcts:rollout=mcts", "rollout"),
        ("mcts:rollout=Heuristic", "rollout"),
        ("mcts:prior=random", "prior"),
        ("mcts:prior=None", "prior"),
        ("mcts:frob=1", "frob"),
        ("mcts:SIMS=5", "SIMS"),
        ("mcts:sims=5,sims=6", "sims"),
        ("mcts:sims=5,", "malformed"),
        ("MCTS", "MCTS"),
        ("random:seed=1", "seed"),
        ("heuristic:card_margin=1", "card_margin"),  # Over and Out's heuristic takes none
    ],
)
def test_bad_spec_names_the_parameter_and_what_it_allows(spec: str, named: str) -> None:
    game, bots = _game("over_and_out", {"num_players": 2})
    with pytest.raises(ValueError, match=named) as info:
        make_bot(game, spec, bots)
    allowed = ("must be", "expected", "allowed", "available", "one of", "it takes none", "needs", "twice")
    assert any(word in str(info.value) for word in allowed), str(info.value)


def test_card_margin_of_otto_game_over_heuristic() -> None:
    game, bots = _game("otto_game_over", {"episode": "match"})
    assert _make(game, "heuristic:card_margin=3", bots).card_margin == 3.0  # type: ignore[attr-defined]
    for bad in ("nan", "inf", "true", "x"):
        with pytest.raises(ValueError, match="card_margin"):
            make_bot(game, f"heuristic:card_margin={bad}", bots)


def test_ismcts_is_refused_where_nothing_is_hidden() -> None:
    """README "OpenSpiel": "Octi refuses it"."""
    pytest.importorskip("pyspiel")
    game, bots = _game("octi", {})
    with pytest.raises(ValueError, match="ismcts"):
        make_bot(game, "ismcts", bots)


def test_tuned_defaults_as_documented() -> None:
    """README "MCTS": Octi and both Otto games tune ``depth=0,prior=heuristic``; Over and Out
    keeps the core defaults (2-step random rollouts, then ``evaluate``); 200 simulations."""
    for name in GAMES:
        game, bots = _game(name, {})
        bot = _make(game, "mcts", bots)
        assert isinstance(bot, MCTSBot) and bot.sims == 200 and bot.time is None
        if name == "over_and_out":
            assert (bot.depth, bot.prior_bot) == (2, None)
        else:
            assert bot.depth == 0 and bot.prior_bot is not None


# ---------------------------------------------------------------------- bots on every game
SPECS = [
    "random",
    "greedy",
    "heuristic",
    "mcts:sims=3",
    "mcts:sims=3,depth=2,rollout=heuristic,epsilon=0.3,prior=none",
    "mcts:sims=4,prior=heuristic,widen=1,bias=2,depth=1",
]


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_bots_play_legal_reproducible_and_blind(name: str, params: dict[str, Any]) -> None:
    game, bots = _game(name, params)
    hidden = not hides_nothing(game)
    rng = random.Random(f"{name}{sorted(params.items())}")  # str seeds are hashed stably (sha512)
    specs = [*SPECS, *(["ismcts:sims=2"] if hidden and _has_pyspiel() else [])]
    for spec in specs:
        bot = _make(game, spec, bots)
        for pos in _positions(game, rng.randrange(10**6), 3):
            seat = pos.current_player()
            seed = rng.randrange(2**32)
            action = bot.act(pos.clone(), seat, np.random.default_rng(seed))
            assert pos.legal_mask()[action] == 1, (spec, action)
            assert bot.act(pos.clone(), seat, np.random.default_rng(seed)) == action, spec  # same seed
            if hidden:  # only hidden cards / tiles and the engine's generator differ
                other = game.resample_hidden(pos, seat, np.random.default_rng(rng.randrange(10**6)))
                assert bot.act(other, seat, np.random.default_rng(seed)) == action, (spec, "reads hidden")


def _has_pyspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("name", sorted(GAMES))
def test_time_budget_ends_and_runs_at_least_one_simulation(name: str) -> None:
    game, bots = _game(name, {})
    pos = _positions(game, 3, 1)[0]
    for spec, most in (
        ("mcts:time=0.02", 2.0),
        ("mcts:time=0.02,sims=100000000", 2.0),
        ("mcts:time=1e-9", 2.0),
    ):
        bot = _make(game, spec, bots)
        assert isinstance(bot, MCTSBot)
        start = time.perf_counter()
        action = bot.act(pos, pos.current_player(), np.random.default_rng(0))
        assert time.perf_counter() - start < most and pos.legal_mask()[action] == 1
        assert bot.last_sims >= 1
    bot = _make(game, "mcts:sims=3,time=100", bots)
    bot.act(pos, pos.current_player(), np.random.default_rng(0))
    assert bot.last_sims == 3  # whichever ends first


# name: (spec a, spec b, should the search differ on some position)
EFFECTS = {
    "c": ("mcts:sims=30,c=0.01,prior=none,depth=1", "mcts:sims=30,c=5,prior=none,depth=1", True),
    "depth": ("mcts:sims=20,prior=none,depth=0", "mcts:sims=20,prior=none,depth=4", True),
    "rollout": ("mcts:sims=12,prior=none,depth=2", "mcts:sims=12,prior=none,depth=2,rollout=heuristic", True),
    "epsilon": (
        "mcts:sims=12,prior=none,depth=2,rollout=heuristic",
        "mcts:sims=12,prior=none,depth=2,rollout=heuristic,epsilon=0.9",
        True,
    ),
    "prior": ("mcts:sims=12,prior=none,depth=0", "mcts:sims=12,prior=heuristic,depth=0", True),
    "bias": (
        "mcts:sims=40,prior=heuristic,depth=0,bias=0",
        "mcts:sims=40,prior=heuristic,depth=0,bias=20",
        True,
    ),
    "widen": ("mcts:sims=20,prior=heuristic,depth=0", "mcts:sims=20,prior=heuristic,depth=0,widen=0.3", True),
    "rollout at depth 0": (
        "mcts:sims=12,prior=none,depth=0",
        "mcts:sims=12,prior=none,depth=0,rollout=heuristic",
        False,
    ),
    "epsilon, random rollouts": (
        "mcts:sims=12,prior=none,depth=2",
        "mcts:sims=12,prior=none,depth=2,epsilon=0.7",
        False,
    ),
    "bias without prior": (
        "mcts:sims=12,prior=none,depth=2",
        "mcts:sims=12,prior=none,depth=2,bias=7",
        False,
    ),
    "depth auto is 2": ("mcts:sims=12,prior=none,depth=auto", "mcts:sims=12,prior=none,depth=2", False),
    "sims=1e1 is 10": ("mcts:sims=1e1,prior=none,depth=1", "mcts:sims=10,prior=none,depth=1", False),
}


@pytest.mark.parametrize("name", ["octi", "over_and_out", "otto_octopus"])
def test_documented_parameters_change_the_search_and_inert_ones_do_not(name: str) -> None:
    game, bots = _game(name, {})
    positions = [p for p in _positions(game, 11, 12) if legal_indices(p.legal_mask()).size > 3][:5]
    assert positions
    for label, (a, b, differs) in EFFECTS.items():
        bot_a, bot_b = _make(game, a, bots), _make(game, b, bots)
        assert isinstance(bot_a, MCTSBot) and isinstance(bot_b, MCTSBot)
        changed = 0
        for pos in positions:
            seat = pos.current_player()
            move_a, _, visits_a = bot_a.act_with_visits(pos, seat, np.random.default_rng(9))
            move_b, _, visits_b = bot_b.act_with_visits(pos, seat, np.random.default_rng(9))
            changed += move_a != move_b or not np.array_equal(visits_a, visits_b)
        assert (changed > 0) == differs, (name, label, changed)


def test_inert_parameters_warn() -> None:
    """README: given with ``depth=0`` (``rollout``, ``epsilon``) they draw a warning, as do
    ``epsilon`` with random rollouts and ``bias`` without a ``prior``."""
    game, bots = _game("over_and_out", {"num_players": 2})
    for spec, word in (
        ("mcts:depth=0,rollout=heuristic", "rollout"),
        ("mcts:depth=0,epsilon=0.5,rollout=heuristic", "epsilon"),
        ("mcts:epsilon=0.5", "epsilon"),
        ("mcts:bias=2", "bias"),
    ):
        with pytest.warns(UserWarning, match=word):
            make_bot(game, spec, bots)
    octi, octi_bots = _game("octi", {})
    with pytest.warns(UserWarning, match="tuned default"):
        make_bot(octi, "mcts:rollout=heuristic", octi_bots)


@pytest.mark.parametrize("bad", [None, 5, np.random.RandomState(0), np.random.SeedSequence(1), 1.5])
def test_bots_refuse_an_rng_that_is_not_a_generator(bad: Any) -> None:
    for name in GAMES:
        game, bots = _game(name, {})
        pos = _positions(game, 5, 1)[0]
        for spec in ("random", "greedy", "heuristic", "mcts:sims=2"):
            with pytest.raises(ValueError, match="rng must be a numpy Generator"):
                _make(game, spec, bots).act(pos, pos.current_player(), bad)


# ---------------------------------------------------------------------------- --opponents
def test_opponent_lists_keep_spec_parameters_together() -> None:
    """README: ``--opponents random,mcts:sims=50,c=0.5`` keeps a spec's parameters together; each
    item weighs 1."""
    assert parse_opponents("random,mcts:sims=50,c=0.5") == {"random": 1.0, "mcts:sims=50,c=0.5": 1.0}
    assert parse_opponents("mcts:sims=50, c=0.5,random") == {"mcts:sims=50,c=0.5": 1.0, "random": 1.0}
    assert parse_opponents("random,random,heuristic") == {"random": 2.0, "heuristic": 1.0}
    game, bots = _game("over_and_out", {"num_players": 2})
    pool = OpponentPool.from_specs(game, {"random": 1.0, "mcts:sims=2": 3.0}, bots)
    drawn = [pool.sample(np.random.default_rng(i))[0] for i in range(200)]
    assert 100 < drawn.count("mcts:sims=2") < 190
    for bad in (0, -1, math.nan, math.inf, True):
        with pytest.raises(ValueError, match="weight"):
            OpponentPool.from_specs(game, {"random": bad}, bots)


def test_seeded_match_repeats() -> None:
    game, bots = _game("otto_octopus", {})
    players = [_make(game, "mcts:sims=3", bots), _make(game, "heuristic", bots)]
    first = play_match(game, players, 2, seed=5)
    again = play_match(game, players, 2, seed=5)
    assert (first.wins, first.draws, first.losses) == (again.wins, again.draws, again.losses)
    for bad in (-1, True, 1.5, None):
        with pytest.raises(ValueError, match="seed"):
            play_match(game, players, 1, seed=bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- defects, fixed
def _play_game_arena(seed: Any) -> Any:
    game, bots = _game("over_and_out", {"num_players": 2})
    return play_game(game, [_make(game, "random", bots)] * 2, seed)


def _play_game_tournament(seed: Any) -> Any:
    from training.tournament import play_game as tournament_play_game

    game, bots = _game("over_and_out", {"num_players": 2})
    return tournament_play_game(game, [_make(game, "random", bots)] * 2, seed)


def _run_tournament(seed: Any) -> Any:
    from training.evaluate import run_tournament

    return run_tournament(
        "over_and_out", {"num_players": 2}, ["random", "greedy"], games=1, seed=seed, workers=1
    )


def _eightfold_bot(seed: Any) -> Any:
    eos = _openspiel()
    return eos.EightfoldBot(eos.load_game("over_and_out", num_players=2), "random", seed=seed)


@pytest.mark.parametrize("entry", [_play_game_arena, _play_game_tournament, _run_tournament, _eightfold_bot])
@pytest.mark.parametrize("seed", [None, True, -1, 1.5])
def test_every_seeded_entry_point_checks_its_seed(entry: Any, seed: Any) -> None:
    with pytest.raises(ValueError, match="seed"):
        entry(seed)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the overflowing sum must not warn either
def test_opponent_weights_that_are_accepted_can_be_sampled() -> None:
    game, bots = _game("octi", {})
    try:
        pool = OpponentPool.from_specs(game, {"random": 1e308, "greedy": 1e308}, bots)
    except ValueError as exc:  # refusing them up front, naming the weights, would honour the contract
        assert "weight" in str(exc)
        return
    drawn = {pool.sample(np.random.default_rng(i))[0] for i in range(20)}
    assert drawn == {"random", "greedy"}  # equal weights: both drawn


@pytest.mark.parametrize("kwargs", [{"positions": 2.5}, {"positions": True}, {"seed": None}])
def test_measure_sims_per_second_checks_its_arguments(kwargs: dict[str, Any]) -> None:
    game, _ = _game("over_and_out", {"num_players": 2})
    args: dict[str, Any] = {"positions": 2, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        measure_sims_per_second(game, "mcts:sims=2", **args)


@pytest.mark.parametrize(
    "spec", ["mcts:sims=6,prior=heuristic,widen=1.2e308", "mcts:sims=400,prior=heuristic,widen=1e307"]
)
def test_an_accepted_widen_plays(spec: str) -> None:
    game, bots = _game("octi", {})
    state = game.new_initial_state(np.random.default_rng(1))
    try:
        bot = _make(game, spec, bots)
    except ValueError as exc:  # refused up front, naming widen: the contract holds too
        assert "widen" in str(exc)
        return
    assert state.legal_mask()[bot.act(state, 0, np.random.default_rng(0))] == 1


@pytest.mark.parametrize("spec", ["ismcts:sims=1", "ismcts:sims=4,c=1e308"])
def test_an_accepted_ismcts_spec_plays(spec: str) -> None:
    pytest.importorskip("pyspiel")
    game, bots = _game("over_and_out", {"num_players": 2})
    try:
        bot = _make(game, spec, bots)
    except ValueError as exc:  # refused up front, naming the parameter: the contract holds too
        assert spec.split(":")[1].split(",")[-1].split("=")[0] in str(exc)
        return
    for pos in _positions(game, 2, 6):
        assert pos.legal_mask()[bot.act(pos, pos.current_player(), np.random.default_rng(3))] == 1
