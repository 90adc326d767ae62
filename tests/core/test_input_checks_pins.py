"""Pins of the input checks added on 2026-12-07 (since 54f123a) that the earlier tests let change
unnoticed (a mutation round over the changed lines):

* the AEC adapter: ``_index`` takes a 0-d numpy array of a signed or unsigned integer dtype and
  refuses a 0-d bool or float array; ``step()`` after the episode names the problem; a ``reset()``
  refused (a bad option, a ``KeyboardInterrupt``) leaves the seed stream, and ``env()``'s
  "never reset" state, as they were;
* ``envs.core.config.check_seed`` and its callers (numpy bools refused, the name in the message);
* ``training``: ``int_at_least``'s upper bound and messages, ``eval``'s same-file check and
  ``--games`` bound, ``replay``'s record checks, ``OpponentPool.sample`` with overflowing weights,
  ``PolicyPlayer.load`` of a file that is no MaskablePPO model;
* MCTS progressive widening, the ``ismcts`` bounds, and the engines' action-index checks
  (Over and Out's ``apply``, Octi's and OTTO Game Over's notation).
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

import numpy as np
import pytest

from envs.core.registry import GAMES

GAME_NAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")


def _openspiel() -> Any:
    """``envs.core.openspiel``, or a skip without OpenSpiel (its ImportError is no
    ModuleNotFoundError, which is all pytest 9's ``importorskip`` skips on)."""
    pytest.importorskip("pyspiel")
    import envs.core.openspiel

    return envs.core.openspiel


def _legal(raw: Any) -> int:
    return int(np.flatnonzero(raw.legal_mask())[0])


# ------------------------------------------------------------------- AEC adapter
@pytest.mark.parametrize("name", GAME_NAMES)
def test_raw_env_plays_a_0d_unsigned_array(name: str) -> None:
    """``_index``: "Python and numpy integers (a 0-d numpy integer array too)": unsigned dtypes
    included."""
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    a = _legal(raw)
    ref = GAMES[name].raw_env_class()()
    ref.reset(seed=0)
    ref.step(a)
    raw.step(np.array(a, dtype=np.uint16))
    assert raw.state.to_dict() == ref.state.to_dict()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("bad", [np.array(True), np.array(False), np.array(1.0), np.array(0.0)])
def test_raw_env_refuses_0d_bool_and_float_arrays(name: str, bad: Any) -> None:
    """``_index``: ``TypeError`` for a bool and for floats, so ``raw_env.step`` raises its
    "action must be an integer index" ``ValueError`` (not an illegal-move error) and changes
    nothing; ``env()`` fails the action-space assert."""
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    before = json.dumps(raw.state.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match=r"^action must be an integer index in \[0, "):
        raw.step(bad)
    assert json.dumps(raw.state.to_dict(), sort_keys=True) == before
    env = GAMES[name].env()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="^action is not in action space$"):
        env.step(bad)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_env_takes_a_0d_unsigned_array(name: str) -> None:
    """``action_in_range``: "what ``_index`` takes (every numpy integer dtype ...)", so ``env()``'s
    assert passes a legal ``np.array(a, dtype=uint32)``."""
    env = GAMES[name].env()
    env.reset(seed=0)
    a = _legal(env.unwrapped)
    env.step(np.array(a, dtype=np.uint32))
    assert env.unwrapped._cumulative_rewards[env.possible_agents[0]] == 0.0
    assert env.agents == env.possible_agents  # no illegal-move ending


@pytest.mark.parametrize("name", GAME_NAMES)
def test_step_after_the_episode_says_so(name: str) -> None:
    """``raw_env.step`` once every agent is done: the adapter's own message."""
    raw = GAMES[name].raw_env_class()()
    raw.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in raw.agent_iter():
        obs, _, term, trunc, _ = raw.last()
        raw.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(
        ValueError,
        match=r"^step\(\) after the episode ended: every agent is done; call reset\(\) for a new one$",
    ):
        raw.step(0)


@pytest.mark.parametrize("name", ["over_and_out", "otto_octopus"])
def test_an_unseeded_refused_reset_leaves_the_seed_stream_alone(name: str) -> None:
    """``reset``: "a reset the game refuses (a bad option) leaves the seed stream as it was: the
    run seeded once still repeats after it" -- an unseeded ``reset()`` too, whose draw from the
    stream is put back."""
    clean = GAMES[name].raw_env_class()()
    clean.reset(seed=5)
    clean.reset()
    env = GAMES[name].raw_env_class()()
    env.reset(seed=5)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"zzz": 1})
    env.reset()
    assert env.state.to_dict() == clean.state.to_dict()


@pytest.mark.parametrize("name", ["over_and_out", "otto_octopus"])
def test_a_reset_interrupted_leaves_the_seed_stream_alone(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for a ``KeyboardInterrupt`` while the game deals (``except BaseException``)."""
    clean = GAMES[name].raw_env_class()()
    clean.reset(seed=5)
    clean.reset()
    env = GAMES[name].raw_env_class()()
    env.reset(seed=5)

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(env.game, "new_initial_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        env.reset()
    monkeypatch.undo()
    env.reset()
    assert env.state.to_dict() == clean.state.to_dict()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_interrupted_first_reset_keeps_the_order_enforcement(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``StandardWrapper.reset``: a reset that did not finish (``KeyboardInterrupt`` too) leaves
    ``env()`` never reset, with PettingZoo's order-enforcing messages."""
    env = GAMES[name].env()

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(env.unwrapped.game, "new_initial_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        env.reset(seed=0)
    with pytest.raises(AttributeError, match="^agents cannot be accessed before reset$"):
        _ = env.agents


# -------------------------------------------------------------------- check_seed
def test_check_seed_returns_a_python_int_and_names_its_argument() -> None:
    """``envs.core.config.check_seed``: "``value`` as an int seed ... else ``ValueError`` naming
    ``name``"."""
    from envs.core.config import check_seed

    for value in (np.int64(3), np.uint8(3), 3):
        out = check_seed(value)
        assert out == 3 and type(out) is int
    assert check_seed(2**70) == 2**70
    for bad, shown in (
        (-1, "-1"),
        (True, "True"),
        (np.bool_(True), re.escape(repr(np.True_))),
        (None, "None"),
        (1.0, "1.0"),
    ):
        with pytest.raises(ValueError, match=rf"^rng_seed must be an int >= 0, got {shown}$"):
            check_seed(bad, "rng_seed")
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0, got -2$"):
        check_seed(-2)


# ---------------------------------------------------------------------- training
def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``eightfold ARGV`` in process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from training.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def test_int_at_least_with_an_upper_bound() -> None:
    """``training.params.int_at_least(low, high)``: "an int ``>= low`` (and ``<= high`` when
    given); anything else is a usage error saying so"."""
    from training.params import int_at_least

    parse = int_at_least(1, 10**9)
    assert parse("1") == 1 and parse("1000000000") == 10**9
    assert parse.__name__ == "int from 1 to 1,000,000,000"
    for text, value in (("1000000001", "1000000001"), ("0", "0")):
        with pytest.raises(
            argparse.ArgumentTypeError, match=rf"^must be from 1 to 1,000,000,000, got {value}$"
        ):
            parse(text)
    with pytest.raises(
        argparse.ArgumentTypeError, match=r"^expected an integer from 1 to 1,000,000,000, got 'x'$"
    ):
        parse("x")
    low = int_at_least(2)
    assert low.__name__ == "int >= 2" and low(str(10**30)) == 10**30
    with pytest.raises(argparse.ArgumentTypeError, match=r"^expected an integer >= 2, got '1.5'$"):
        low("1.5")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^must be >= 2, got 1$"):
        low("1")


def test_eval_games_bound_is_a_billion() -> None:
    """``eightfold eval --games``: "at most 1,000,000,000" (``MAX_GAMES``); one more is a usage
    error naming ``--games`` (parsed only: nothing is played)."""
    from training.cli import build_parser
    from training.evaluate import MAX_GAMES

    assert MAX_GAMES == 10**9
    base = ["eval", "octi", "--players", "random", "greedy", "--games"]
    assert build_parser().parse_args([*base, "1000000000"]).games == 10**9
    code, _out, err = _run_cli([*base, "1000000001"])
    assert code == 2
    assert "argument --games: must be from 1 to 1,000,000,000, got 1000000001" in err


def test_eval_two_outputs_into_one_file_named_two_ways(tmp_path: Any) -> None:
    """``eval``: two options naming the same file (after ``..`` and relative parts resolve) is
    a usage error naming both, before any game."""
    same = tmp_path / "out.jsonl"
    other = tmp_path / "sub" / ".." / "out.jsonl"
    argv = ["eval", "octi", "--param", "max_turns=4", "--players", "random", "greedy", "--games", "1"]
    code, _out, err = _run_cli([*argv, "--workers", "1", "--json", str(same), "--records", str(other)])
    assert code == 2
    assert f"--json and --records name the same file {str(same.resolve())!r}; give each its own" in err
    assert not same.exists()


def test_eval_note_of_one_extra_first_seat() -> None:
    """``eval``: 3 games over 2 seats put the first player "in seat 0" once more (not "seats
    0..0")."""
    argv = ["eval", "octi", "--param", "max_turns=2", "--players", "random", "greedy", "--games", "3"]
    code, _out, err = _run_cli([*argv, "--workers", "1"])
    assert code == 0
    assert (
        "note: 3 games over 2 seats put the first player in seat 0 once more than in the others; "
        "a multiple of 2 balances first-move advantages"
    ) in err


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the overflowing sum must not warn either
def test_opponent_pool_samples_weights_whose_sum_overflows() -> None:
    """``OpponentPool.sample`` "draws a group by weight": finite weights whose sum overflows
    (1e308 twice) are drawn in proportion too, a tiny third weight (almost) never."""
    from envs.core.bots import RandomBot
    from envs.over_and_out.game import OverAndOutGame
    from training.players import OpponentPool

    pool = OpponentPool()
    player = RandomBot(OverAndOutGame())  # any player: the draws read only the names
    pool.add("a", "a", player, weight=1e308)
    pool.add("b", "b", player, weight=1e308)
    pool.add("c", "c", player, weight=1e-300)
    rng = np.random.default_rng(0)
    drawn = [pool.sample(rng)[0] for _ in range(2000)]
    assert set(drawn) == {"a", "b"}
    assert 900 < drawn.count("a") < 1100


@pytest.fixture(scope="module")
def octi_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One game record of ``eightfold eval --records`` (Octi, 2 turns)."""
    path = tmp_path_factory.mktemp("rec") / "r.jsonl"
    argv = ["eval", "octi", "--param", "max_turns=2", "--players", "random", "greedy", "--games", "1"]
    code, _out, err = _run_cli([*argv, "--workers", "1", "--records", str(path)])
    assert code == 0, err
    rec: dict[str, Any] = json.loads(path.read_text().splitlines()[0])
    return rec


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "true"])
def test_replay_refuses_returns_that_are_no_finite_number(
    bad: str, octi_record: dict[str, Any], tmp_path: Any
) -> None:
    """``replay``: ``returns`` must be "a list of numbers, one per seat" that a float holds
    (``_finite_number``): NaN, infinities and bools are refused, naming the field and line."""
    from training.replay import load_records

    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({**octi_record, "returns": ["BAD", 0.0]}).replace('"BAD"', bad) + "\n")
    with pytest.raises(ValueError, match=r"line 1: returns must be a list of numbers, one per seat, got "):
        load_records(path)
    code, _out, err = _run_cli(["replay", str(path)])
    assert code == 2 and "returns must be a list of numbers, one per seat" in err


@pytest.mark.parametrize(
    ("files", "cause"),
    [
        ({}, "AssertionError: No data found in the saved file"),
        ({"data": "not json"}, "JSONDecodeError: "),
        ({"data": "{}"}, "KeyError: "),
    ],
)
def test_policy_player_load_of_a_zip_that_is_no_model(
    files: dict[str, str], cause: str, tmp_path: Any
) -> None:
    """``PolicyPlayer.load``: a zip without sb3's data (``AssertionError``), with unreadable data
    (``ValueError``) or with data of no model (``KeyError``) is a ``ValueError`` naming the path,
    what is expected and the cause."""
    import zipfile

    from training.players import PolicyPlayer

    pytest.importorskip("sb3_contrib")
    path = tmp_path / "m.zip"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    game = GAMES["over_and_out"].game_class()(num_players=2)
    with pytest.raises(ValueError, match=r"is not a MaskablePPO model") as info:
        PolicyPlayer.load(str(path), game)
    assert str(info.value).startswith(
        f"{str(path)!r} is not a MaskablePPO model (what eightfold train saves): {cause}"
    ), str(info.value)


# ----------------------------------------------------------------------- engines
def test_oao_apply_takes_numpy_integers_and_refuses_bools_and_floats() -> None:
    """OAO-40 / §7 ``Discrete(12)``: ``State.apply`` takes a Python or numpy integer index;
    a bool or a float is no index: ``ValueError("action must be an int in [0, 11], got ...")``
    before anything changes."""
    game = GAMES["over_and_out"].game_class()(num_players=2)
    state = game.new_initial_state(np.random.default_rng(0))
    a = int(np.flatnonzero(state.legal_mask())[0])
    ref = state.clone()
    ref.apply(a)
    for kind in (np.int64, np.uint8, np.int16):
        played = state.clone()
        played.apply(kind(a))
        assert played.to_dict() == ref.to_dict()
    for bad, shown in (
        (True, "True"),
        (np.bool_(True), re.escape(repr(np.True_))),
        (float(a), f"{float(a)}"),
    ):
        before = state.to_dict()
        with pytest.raises(ValueError, match=rf"^action must be an int in \[0, 11\], got {shown}$"):
            state.apply(bad)
        assert state.to_dict() == before


def test_octi_notation_of_numpy_indices_and_non_indices() -> None:
    """Octi §8: ``action_to_string`` gives the canonical string of a legal action (a numpy
    integer index too); a bool, a float or a string is no index: ``"illegal <repr>"``."""
    game = GAMES["octi"].game_class()()
    state = game.new_initial_state(np.random.default_rng(0))
    a = int(np.flatnonzero(state.legal_mask())[0])
    text = state.action_to_string(a)
    assert not text.startswith("illegal")
    assert state.action_to_string(np.int32(a)) == state.action_to_string(np.uint16(a)) == text
    assert state.action_to_string("7") == "illegal '7'"
    assert state.action_to_string(True) == "illegal True"
    assert state.action_to_string(np.bool_(True)) == f"illegal {np.True_!r}"
    assert state.action_to_string(1.0) == "illegal 1.0"


def test_otto_game_over_notation_of_every_edge_index() -> None:
    """OTTO Game Over §8: "exactly one canonical string per action index, whatever the state":
    index 0 and ``N_ACTIONS - 1`` (numpy integers too); out of range, bools and floats are
    ``"illegal <action>"``."""
    from envs.otto_game_over import actions as A
    from envs.otto_game_over.notation import ACTION_STRINGS, action_to_string

    last = A.N_ACTIONS - 1
    assert action_to_string(0) == ACTION_STRINGS[0] == "drawn a1 r0"
    assert action_to_string(np.uint8(0)) == "drawn a1 r0"
    assert action_to_string(np.int64(last)) == ACTION_STRINGS[last]
    assert action_to_string(A.N_ACTIONS) == f"illegal {A.N_ACTIONS}"
    assert action_to_string(np.int64(A.N_ACTIONS)) == f"illegal {A.N_ACTIONS}"
    assert action_to_string(-1) == "illegal -1"
    assert action_to_string(True) == "illegal True"
    assert action_to_string(np.bool_(False)) == "illegal False"
    assert action_to_string(0.0) == "illegal 0.0"


# ------------------------------------------------------------------- ismcts bounds
def test_ismcts_takes_sims_from_2_and_c_up_to_a_million() -> None:
    """``OpenSpielISMCTSBot``: ``sims`` >= 2 (one simulation leaves OpenSpiel no visited child)
    and ``c`` in ``(0, ISMCTS_MAX_C]`` with ``ISMCTS_MAX_C = 1e6``, both ends as stated; the
    bound plays a move."""
    openspiel = _openspiel()
    game = GAMES["over_and_out"].game_class()(num_players=2)
    assert openspiel.ISMCTS_MAX_C == 1e6
    bot = openspiel.OpenSpielISMCTSBot(game, sims=2, c=1e6)
    assert (bot.sims, bot.c) == (2, 1e6)
    state = game.new_initial_state(np.random.default_rng(0))
    move = bot.act(state, state.current_player(), np.random.default_rng(1))
    assert state.legal_mask()[move] == 1
    with pytest.raises(ValueError, match=r"^ismcts: sims must be an int in \[2, inf\], got 1$"):
        openspiel.OpenSpielISMCTSBot(game, sims=1)
    for bad in (0, 0.0, -1.0, 1e6 * (1 + 1e-9), 1e7, float("inf")):
        with pytest.raises(ValueError, match=rf"^ismcts: c must be a number in \(0, 1e\+06\], got {bad!r}$"):
            openspiel.OpenSpielISMCTSBot(game, c=bad)


def test_openspiel_example_sims_bounds() -> None:
    """``examples/openspiel_play.py``: ``ismcts`` needs ``sims`` >= 2 (OpenSpiel's ISMCTS
    asserts a visited child), ``os-mcts`` takes ``sims=1``."""
    import importlib.util
    from pathlib import Path

    pyspiel = pytest.importorskip("pyspiel")
    import envs.core.openspiel  # noqa: F401  (registers the eightfold games with pyspiel)

    path = Path(__file__).resolve().parents[2] / "examples" / "openspiel_play.py"
    spec = importlib.util.spec_from_file_location("_openspiel_play_example", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    octi = pyspiel.load_game("eightfold_octi")
    bot = example.make_bot(octi, "os-mcts:sims=1", 0)
    assert isinstance(bot, pyspiel.Bot)
    cards = pyspiel.load_game("eightfold_otto_octopus", {"num_players": 2})
    assert isinstance(example.make_bot(cards, "ismcts:sims=2", 0), pyspiel.Bot)
    with pytest.raises(ValueError, match=r"^ismcts: sims must be an int >= 2, got 1$"):
        example.make_bot(cards, "ismcts:sims=1", 0)


@pytest.mark.parametrize("data", ["[]", "null", "3"])
def test_policy_player_load_of_a_zip_whose_data_is_no_object(data: str, tmp_path: Any) -> None:
    """``PolicyPlayer.load``: a zip that is no MaskablePPO model is a ``ValueError`` naming the
    path (``eightfold eval`` exits 2 without a traceback)."""
    import zipfile

    from training.players import PolicyPlayer

    pytest.importorskip("sb3_contrib")
    path = tmp_path / "m.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", data)
    game = GAMES["over_and_out"].game_class()(num_players=2)
    with pytest.raises(ValueError, match="is not a MaskablePPO model"):
        PolicyPlayer.load(str(path), game)
