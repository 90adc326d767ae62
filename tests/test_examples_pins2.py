"""Second round of pins on the example scripts and ``envs.core.playthrough``: what each
example prints and writes for tiny budgets, its command-line defaults and their errors, and
its reproducibility for a fixed seed. Each test fails under a plausible wrong change that
``tests/test_examples.py`` and ``tests/test_examples_pins.py`` let through (a seed or default
changed, a validation dropped, a printed value computed from the wrong thing).

The examples are scripts: they are imported from their files, or run in this process with
``runpy`` and tiny budgets; where a script would train or play for long, the project's own
function it calls is wrapped to record its arguments and stop it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.registry import GAMES, get_game
from tests.test_examples_pins import _example_module, _run_script


class Stop(Exception):
    """Raised by a recording wrapper to end a script once what it was given is known."""


def _script_error(
    name: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Any, str]:
    """The ``SystemExit`` of ``python examples/<name>.py argv...``: (its code, stderr)."""
    with pytest.raises(SystemExit) as exc:
        _run_script(name, argv, monkeypatch, capsys)
    return exc.value.code, capsys.readouterr().err


# -------------------------------------------------------------------------- envs.core.playthrough
def test_config_id_spells_list_values_as_json() -> None:
    """A list parameter is written as JSON (``true``, ``null``), like a dict, not as Python's
    ``str`` (``True``, ``None``): the golden file names follow the JSON spelling."""
    from envs.core.playthrough import config_id

    assert config_id({"x": [True, None], "y": False}) == "x=-true--null-_y=False"


def test_playthrough_stops_at_400_steps_by_default() -> None:
    """``playthrough`` stops after ``max_steps=400`` steps unless told otherwise: the 8-player
    Over and Out game of seed 0 runs 488 steps, so its text ends with the stop line after
    exactly 400 numbered steps, then the returns so far."""
    from envs.core.playthrough import playthrough

    lines = playthrough("over_and_out", {"num_players": 8}).splitlines()
    steps = [line for line in lines if re.match(r"\[\d+\] ", line)]
    assert len(steps) == 400 and steps[-1].startswith("[399] ")
    assert lines[-2] == "# stopped after 400 steps" and lines[-1].startswith("final returns: [")


# ------------------------------------------------------------------------------- random_play
def _replay_random_play(name: str, params: dict[str, Any]) -> str:
    """What ``random_play.py`` promises to print: the deal of ``reset(seed=42)``, each move
    drawn from ``default_rng([42, 1])`` among the legal ones, then the returns."""
    import pettingzoo

    import envs  # noqa: F401  (registers the ids)

    env = pettingzoo.make("aec", f"eightfold/{name}-v0", **params)
    env.reset(seed=42)
    rng = np.random.default_rng([42, 1])
    lines = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        lines.append(f"{agent}: {env.unwrapped.action_to_string(action)}")
        env.step(action)
    lines.append(f"returns: {env.unwrapped.state.returns()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("argv", "name", "params"),
    [([], "over_and_out", {}), (["otto_octopus_v0", "num_players=3"], "otto_octopus", {"num_players": 3})],
)
def test_random_play_prints_the_game_of_seed_42_and_its_returns(
    argv: list[str],
    name: str,
    params: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The printed moves are those of the deal ``reset(seed=42)`` and the policy
    ``default_rng([42, 1])`` (the docstring's seeds), for the game and parameters named (by
    default Over and Out, 4 players); the last line is the state's returns."""
    _, out = _run_script("random_play", argv, monkeypatch, capsys)
    assert out == _replay_random_play(name, params)
    assert "player_2: " in out and ("player_3: " in out) == (name == "over_and_out")


# --------------------------------------------------------------------------- engine_and_bots
def test_engine_and_bots_prints_the_seed_0_state_and_a_clones_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over and Out for 2 from ``default_rng(0)``: who moves, the legal moves as notation, the
    snapshot of a clone after its first legal move, then heuristic vs random over 100 games
    from seed 0 (``play_match``'s own summary)."""
    from envs.core.arena import play_match
    from envs.core.bots import make_bot

    globs, out = _run_script("engine_and_bots", [], monkeypatch, capsys)
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    state = game.new_initial_state(np.random.default_rng(0))
    probe = state.clone()
    probe.apply(probe.legal_actions()[0])
    bots = [make_bot(game, "heuristic", entry.bots()), make_bot(game, "random", entry.bots())]
    match = play_match(game, bots, games=100, seed=0)
    assert out.splitlines() == [
        f"to move: {state.current_player()}",
        f"legal: {[state.action_to_string(a) for a in state.legal_actions()]}",
        f"snapshot after one move on a clone: {probe.snapshot()}",
        f"heuristic vs random: {match}",
    ]
    assert globs["state"].snapshot() == state.snapshot()  # the clone moved, not the state


# ------------------------------------------------------------------------------- render_png
def test_render_png_defaults_to_octi_20_moves_into_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without arguments: Octi, 20 seeded random moves, written to ``octi.png`` in the current
    folder."""
    monkeypatch.chdir(tmp_path)
    globs, out = _run_script("render_png", [], monkeypatch, capsys)
    assert out.endswith("\nwrote octi.png\n") and (tmp_path / "octi.png").exists()
    assert globs["played"] == 20 and globs["entry"].name == "octi"
    globs, out = _run_script("render_png", ["otto_octopus_v0", "0"], monkeypatch, capsys)
    assert out.endswith("\nwrote otto_octopus.png\n") and (tmp_path / "otto_octopus.png").exists()


def test_render_png_stops_at_the_end_of_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """More steps than the game lasts: the final position is drawn (the loop ends with the game,
    rather than stepping a finished env)."""
    png = tmp_path / "end.png"
    globs, out = _run_script("render_png", ["otto_octopus", "100000", str(png)], monkeypatch, capsys)
    state = globs["env"].unwrapped.state
    assert state.is_terminal() and globs["played"] < 100000 and out.endswith(f"wrote {png}\n")


# -------------------------------------------------------------------------- gym_single_agent
def _gym_kwargs(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    """The keywords of the first single-agent env the script makes (stopped there)."""
    import training.single_agent as single_agent

    made: list[dict[str, Any]] = []

    def stop(**kwargs: Any) -> Any:
        made.append({k: v for k, v in kwargs.items() if k != "render_mode"})
        raise Stop

    monkeypatch.setattr(single_agent, "make_env", stop)
    import stable_baselines3.common.vec_env as vec_env

    monkeypatch.setattr(vec_env, "SubprocVecEnv", vec_env.DummyVecEnv)
    with pytest.raises(Stop):
        _run_script("gym_single_agent", argv, monkeypatch, capsys)
    return made[0]


def test_gym_single_agent_defaults_to_otto_the_octopus_and_octi_has_no_player_count(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without arguments: Otto the Octopus for 2 against ``random`` (the docstring's first
    line); Octi is built without ``num_players`` (it has no such parameter)."""
    assert _gym_kwargs([], monkeypatch, capsys) == {
        "game": "otto_octopus",
        "opponents": ["random"],
        "num_players": 2,
    }
    assert _gym_kwargs(["octi", "10"], monkeypatch, capsys) == {"game": "octi", "opponents": ["random"]}


# ----------------------------------------------------------------------------- mcts_strength
def _strength_main(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[list[Any], list[tuple[str, str, int]], str]:
    """``mcts_strength.main()`` with ``argv``, its chunks run in threads and each answering
    (1, 0, 1, 0.0): (the chunks asked for, the speed measurements asked for, stdout)."""
    mod = _example_module("mcts_strength")
    tasks: list[Any] = []
    measured: list[tuple[str, str, int]] = []

    def chunk(task: Any) -> tuple[int, int, int, float]:
        tasks.append(task)
        return 1, 0, 1, 0.0

    def speed(game: Any, spec: str, seed: int = 0) -> float:
        measured.append((game.name, spec, seed))
        return 123.0

    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(mod, "run_chunk", chunk)
    monkeypatch.setattr(mod, "worker_pool", ThreadPoolExecutor)  # a context manager too
    monkeypatch.setattr(mod, "measure_sims_per_second", speed)
    monkeypatch.setattr(sys, "argv", ["mcts_strength.py", *argv])
    capsys.readouterr()
    mod.main()
    return tasks, measured, capsys.readouterr().out


def test_mcts_strength_defaults_are_two_budgets_three_opponents_100_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The documented defaults: budgets 50 and 200, opponents random, greedy and heuristic,
    100 games a pairing, seed 0; the speed table measures ``mcts:sims=200`` (no stray comma
    without ``--mcts``) and labels a game without ``--config`` as ``default``."""
    tasks, measured, out = _strength_main(["--games", "octi", "--jobs", "1", "--quiet"], monkeypatch, capsys)
    pairings = sorted({(t[2], t[3]) for t in tasks})
    assert pairings == sorted(
        (f"mcts:sims={b}", o) for b in (50, 200) for o in ("random", "greedy", "heuristic")
    )
    for spec, opp in pairings:
        assert sum(t[4] for t in tasks if (t[2], t[3]) == (spec, opp)) == 100
    assert {t[5] for t in tasks} == set(range(10)) and {t[6] for t in tasks} == {None}
    assert measured == [("octi", "mcts:sims=200", 0)]
    assert out.splitlines()[:3] == [
        "| game | config | sims/s (mcts:sims=200) |",
        "|---|---|---|",
        "| octi | default | 123 |",
    ]


def test_mcts_strength_measures_speed_with_the_seed_and_mcts_parameters_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seed`` and ``--mcts`` reach the speed measurement and its header, not only the matches."""
    argv = ["--games", "otto_octopus", "--budgets", "2", "--opponents", "random", "-n", "2"]
    _, measured, out = _strength_main(
        [*argv, "--jobs", "1", "--quiet", "--seed", "3", "--mcts", "c=0.7"], monkeypatch, capsys
    )
    assert measured == [("otto_octopus", "mcts:sims=200,c=0.7", 3)]
    assert out.splitlines()[0] == "| game | config | sims/s (mcts:sims=200,c=0.7) |"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "octi", "--seed", "-1"], "argument --seed: must be >= 0, got -1"),
        (
            ["--games", "octi", "--oracle", "hands"],
            "--oracle hands: only for over_and_out, otto_octopus, not octi",
        ),
        (["--games", "octi", "--budgets", "0"], "argument --budgets: must be >= 1, got 0"),
    ],
)
def test_mcts_strength_usage_errors(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative seed, ``--oracle hands`` for a game without face-down piles and a zero budget
    are usage errors (exit 2) naming the option, before anything runs."""
    with pytest.raises(SystemExit) as exc:
        _strength_main([*argv, "--jobs", "1", "--quiet"], monkeypatch, capsys)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_mcts_strength_oracle_game_refuses_an_unknown_reveal() -> None:
    """``oracle_game`` names the reveal modes it knows when given another."""
    mod = _example_module("mcts_strength")
    with pytest.raises(ValueError, match=r"--oracle: expected one of") as exc:
        mod.oracle_game(get_game("octi").game_class()(), "cards")
    assert str(exc.value) == "--oracle: expected one of ['all', 'deal', 'hands'], got 'cards'"


def test_mcts_strength_landed_lists_every_game_of_the_registry() -> None:
    """Every registered game has its ``env`` and ``bots`` modules, so all are measured by default."""
    assert _example_module("mcts_strength").landed() == list(GAMES)


def test_mcts_strength_script_names_a_bad_config_and_an_interrupt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run as a script: a ``ValueError`` (an unknown game in ``--config``) is one line
    ``mcts_strength.py: error: --config: ...`` with usage status 2 (it was status 1, the message
    as the exit code); Ctrl-C ends it with status 130 and ``interrupted`` on stderr."""
    code, err = _script_error(
        "mcts_strength", ["--games", "octi", "--config", "chess:x=1"], monkeypatch, capsys
    )
    assert code == 2 and "mcts_strength.py: error: --config: unknown game 'chess'" in err
    import envs.core.mcts

    def interrupt(*args: Any, **kwargs: Any) -> float:
        raise KeyboardInterrupt

    monkeypatch.setattr(envs.core.mcts, "measure_sims_per_second", interrupt)
    code, err = _script_error("mcts_strength", ["--games", "octi", "--jobs", "1"], monkeypatch, capsys)
    assert code == 130 and err == "\nmcts_strength.py: interrupted\n"


# ------------------------------------------------------------------------- oao_best_response
def test_oao_best_response_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented defaults: ``--knows nothing``, 50 playouts, 150 games, seed 11, against
    ``random`` (stopped at the first decision)."""
    mod = _example_module("oao_best_response")
    seen: list[Any] = []

    def stop(game: Any, st: Any, me: int, bots: Any, args: Any, rng: Any) -> int:
        seen.append(args)
        raise Stop

    monkeypatch.setattr(mod, "best_response", stop)
    monkeypatch.setattr(sys, "argv", ["oao_best_response.py"])
    with pytest.raises(Stop):
        mod.main()
    args = seen[0]
    assert (args.knows, args.playouts, args.games, args.seed, args.opponent) == (
        "nothing",
        50,
        150,
        11,
        "random",
    )


def test_oao_best_response_deals_game_g_from_seed_times_100000_plus_g(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Game g is dealt from ``default_rng(seed * 100_000 + g)`` (a new deal every game, 2
    players); every 25 games the running win rate is printed, over the games played so far."""
    from envs.over_and_out.game import OverAndOutGame

    mod = _example_module("oao_best_response")
    seeds: list[Any] = []
    real = OverAndOutGame.new_initial_state

    def recording(self: Any, rng: Any = None) -> Any:
        bits = rng.bit_generator  # numpy < 1.25 names it _seed_seq only
        seeds.append((self.num_players, (getattr(bits, "seed_seq", None) or bits._seed_seq).entropy))
        return real(self, rng)

    monkeypatch.setattr(OverAndOutGame, "new_initial_state", recording)
    monkeypatch.setattr(sys, "argv", ["oao_best_response.py", "--playouts", "0", "-n", "26", "--seed", "2"])
    capsys.readouterr()
    mod.main()
    assert seeds == [(2, 200_000 + g) for g in range(26)]
    lines = capsys.readouterr().out.splitlines()
    m = re.fullmatch(r"knows=nothing playouts=0 seed=2: (\d+) / 26 = .*", lines[-1])
    assert m is not None and len(lines) == 2, lines
    progress = re.fullmatch(r"25 games: ([\d.]+) \(\d+ s\)", lines[0])
    assert progress is not None, lines
    # the 26th game adds at most one win
    assert int(m.group(1)) - 1 <= round(float(progress.group(1)) * 25) <= int(m.group(1))


def test_oao_best_response_refuses_zero_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-n 0`` is a usage error naming the value, not a division by zero at the end."""
    mod = _example_module("oao_best_response")
    monkeypatch.setattr(sys, "argv", ["oao_best_response.py", "-n", "0"])
    with pytest.raises(SystemExit) as exc:
        mod.main()
    assert exc.value.code == 2 and "argument -n/--games: must be >= 1, got 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------- openspiel_play
def _openspiel() -> tuple[ModuleType, Any]:
    pytest.importorskip("pyspiel")
    import envs.core.openspiel as eos

    return _example_module("openspiel_play"), eos


def test_openspiel_play_builds_openspiel_bots_with_200_sims_uct_2_and_their_own_seed() -> None:
    """``ismcts`` / ``os-mcts`` default to 200 simulations with ``uct_c=2`` (the docstring);
    each bot's search stream is drawn from its seed: equal seeds search alike, others not."""
    mod, eos = _openspiel()
    otto = eos.load_game("otto_octopus", num_players=2, rng_seed=0)
    octi = eos.load_game("octi")
    ismcts = mod.make_bot(otto, "ismcts", 0)
    plain = mod.make_bot(octi, "os-mcts", 0)
    assert (ismcts._max_simulations, ismcts._uct_c) == (200, 2.0)
    assert (plain.max_simulations, plain.uct_c) == (200, 2.0)

    def draws(seed: int) -> list[int]:
        return list(mod.make_bot(otto, "ismcts:sims=5", seed)._random_state.randint(1 << 30, size=4))

    assert draws(3) == draws(3) and draws(3) != draws(4)


def test_openspiel_play_refuses_a_boolean_sims() -> None:
    """``sims=true`` is no simulation count (a bool is an int in Python): refused by name."""
    mod, eos = _openspiel()
    game = eos.load_game("otto_octopus", num_players=2, rng_seed=0)
    with pytest.raises(ValueError, match=r"sims must be an int") as exc:
        mod.make_bot(game, "ismcts:sims=true", 0)
    assert str(exc.value) == "ismcts: sims must be an int >= 2, got True"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed must be >= 0, got -1"),
        (["--param", "num_players=3"], "this script scores 2-player games; pass --param num_players=2"),
    ],
)
def test_openspiel_play_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative seed and a game for more than 2 are usage errors (exit 2) saying so."""
    mod, _ = _openspiel()
    with pytest.raises(SystemExit) as exc:
        mod.main([*argv, "--bot", "random", "-n", "1"])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_openspiel_play_defaults(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without options: ``ismcts:sims=50`` against ``random`` in 2-player Otto the Octopus,
    10 games from seed 0 (the bots' moves made here by the suite's random bot, so it is quick)."""
    mod, eos = _openspiel()
    built: list[tuple[str, int]] = []

    def recording(game: Any, spec: str, seed: int) -> Any:
        built.append((spec, seed))
        return eos.EightfoldBot(game, "random", seed=seed)

    monkeypatch.setattr(mod, "make_bot", recording)
    capsys.readouterr()
    assert mod.main([]) == 0
    out = capsys.readouterr().out
    assert (
        "eightfold_otto_octopus {'num_players': 2, 'rng_seed': 0}: ismcts:sims=50 vs random, 10 games: "
        in out
    )
    games = [b for b in built[2:]]
    assert games == [
        (spec, 2 * g + k) for g in range(10) for k, spec in enumerate(("ismcts:sims=50", "random"))
    ]


# -------------------------------------------------------------------------------- offline_bc
def _bc_tournament(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Any, ...]:
    """The tournament ``offline_bc.py argv...`` asks for (stopped there)."""
    import training.evaluate

    asked: list[tuple[Any, ...]] = []

    def stop(env: str, params: dict[str, Any], players: list[str], games: int, **kw: Any) -> Any:
        asked.append((env, params, players, games, kw))
        raise Stop

    monkeypatch.setattr(training.evaluate, "run_tournament", stop)
    with pytest.raises(Stop):
        _run_script("offline_bc", argv, monkeypatch, capsys)
    return asked[0]


def test_offline_bc_defaults_to_200_heuristic_games_of_over_and_out_for_two(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without arguments: 200 games of the ``heuristic`` teacher against ``random`` in 2-player
    Over and Out, kept with records; Octi is played with its own parameters."""
    assert _bc_tournament([], monkeypatch, capsys) == (
        "over_and_out",
        {"num_players": 2},
        ["heuristic", "random"],
        200,
        {"workers": 1, "records": True},
    )
    assert _bc_tournament(["octi", "3"], monkeypatch, capsys)[:4] == ("octi", {}, ["heuristic", "random"], 3)


@pytest.mark.parametrize(("counts", "shown"), [(["0"], "['0', '10']"), (["5", "0"], "['5', '0']")])
def test_offline_bc_refuses_zero_games_or_epochs(
    counts: list[str], shown: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A count of 0 is named in one line on stderr (with the default filled in), before any
    game, with usage status 2 (it was status 1: the message was the ``SystemExit`` code)."""
    code, err = _script_error("offline_bc", ["over_and_out", *counts], monkeypatch, capsys)
    assert code == 2
    assert err == f"offline_bc.py: error: games and epochs must be integers >= 1, got {shown}\n"


# ------------------------------------------------------------------------------- rllib_train
def _rllib_main(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], str]:
    """``rllib_train.main()`` with ``argv``, the training replaced by a run directory holding
    ``progress.json`` and the evaluation recorded: (training calls, evaluations, stdout)."""
    pytest.importorskip("ray")
    import json

    mod = _example_module("rllib_train")
    (tmp_path / "progress.json").write_text(
        json.dumps([{"env_steps_per_s": 50.0}, {"env_steps_per_s": 321.4}])
    )
    trained: list[tuple[Any, ...]] = []
    judged: list[tuple[Any, ...]] = []

    def train(args: Any, params: dict[str, Any], config: dict[str, Any]) -> Path:
        trained.append((args, params, config))
        return tmp_path

    def rate(run_dir: str, games: int, seed: int = 0) -> float:
        judged.append((run_dir, games, seed))
        return 0.25

    monkeypatch.setattr(mod, "train_rllib", train)
    monkeypatch.setattr(mod, "win_rate_vs_random", rate)
    monkeypatch.setattr(sys, "argv", ["rllib_train.py", *argv])
    capsys.readouterr()
    mod.main()
    return trained, judged, capsys.readouterr().out


def test_rllib_train_defaults_are_the_sb3_trainers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The docstring's settings: Over and Out for 2 against ``random``, 20 000 steps, seed 0,
    rollout 256 x 8 envs, minibatch 512, 4 epochs, MLP 256 x 256; then 200 evaluation games and
    the last progress entry's env steps/s."""
    trained, judged, out = _rllib_main([], tmp_path, monkeypatch, capsys)
    args, params, config = trained[0]
    assert (args.env, args.timesteps, args.opponents, args.out, args.resume, args.seed) == (
        "over_and_out",
        20_000,
        "random",
        None,
        False,
        0,
    )
    assert params == {"num_players": 2}
    assert config == {"n_steps": 256, "n_envs": 8, "batch_size": 512, "n_epochs": 4, "net_arch": [256, 256]}
    assert judged == [(str(tmp_path), 200, 0)]
    assert out == "env steps/s over the run: 321\nwin rate vs random: 25.0% (200 games)\n"


def test_rllib_train_games_0_skips_the_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--games 0`` (documented: none) prints only the throughput."""
    _, judged, out = _rllib_main(["--games", "0"], tmp_path, monkeypatch, capsys)
    assert judged == [] and out == "env steps/s over the run: 321\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--resume"], "--resume continues the run in --out: name it"), (["chess"], "unknown game 'chess'")],
)
def test_rllib_train_usage_errors(
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--resume`` without ``--out`` and an unknown game are usage errors (exit 2) before any training."""
    with pytest.raises(SystemExit) as exc:
        _rllib_main(argv, tmp_path, monkeypatch, capsys)
    assert exc.value.code == 2 and message in capsys.readouterr().err


# -------------------------------------------------------------------------------- train_tiny
def test_train_tiny_config_is_the_documented_tiny_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole config: 30 000 steps into ``runs/tiny`` (the docstring), 4 envs, against random
    and itself, MLP 64 x 64, judged and snapshotted every 10 000 steps (the training replaced)."""
    import training.train

    seen: list[Any] = []

    def stop(cfg: Any) -> Path:
        seen.append(cfg)
        raise Stop

    monkeypatch.setattr(training.train, "train", stop)
    with pytest.raises(Stop):
        _run_script("train_tiny", [], monkeypatch, capsys)
    cfg = seen[0]
    assert (cfg.timesteps, cfg.out, cfg.n_envs, cfg.opponents, cfg.net_arch) == (
        30_000,
        "runs/tiny",
        4,
        {"random": 1.0, "self": 1.0},
        [64, 64],
    )
    assert (cfg.eval_every, cfg.eval_games, cfg.eval_opponents, cfg.snapshot_every) == (
        10_000,
        20,
        ["random"],
        10_000,
    )


@pytest.mark.slow
def test_gym_single_agent_win_rate_is_over_40_judged_games(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The printed win rate is the share of positive returns among the 40 episodes that
    ``evaluate_policy`` really played (its own call recorded), as the line says."""
    import sb3_contrib.common.maskable.evaluation as evaluation
    import stable_baselines3.common.vec_env as vec_env

    calls: list[tuple[int, list[float]]] = []
    real = evaluation.evaluate_policy

    def recording(*args: Any, **kwargs: Any) -> Any:
        returns, lengths = real(*args, **kwargs)
        calls.append((kwargs["n_eval_episodes"], list(returns)))
        return returns, lengths

    monkeypatch.setattr(vec_env, "SubprocVecEnv", vec_env.DummyVecEnv)
    monkeypatch.setattr(evaluation, "evaluate_policy", recording)
    _, out = _run_script("gym_single_agent", ["over_and_out", "1"], monkeypatch, capsys)
    ((n, returns),) = calls
    wins = sum(r > 0 for r in returns)
    assert n == 40 and len(returns) == 40
    assert out == f"over_and_out: 1 PPO steps; against random over 40 games: win rate {wins / 40:.2f}\n"


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("render_png", ["octi", "²"], "render_png.py: error: steps must be an integer >= 0, got '²'"),
        (
            "offline_bc",
            ["over_and_out", "²"],
            "offline_bc.py: error: games and epochs must be integers >= 1, got ['²', '10']",
        ),
        (
            "gym_single_agent",
            ["octi", "²"],
            "gym_single_agent.py: error: steps must be an integer >= 1, got '²'",
        ),
    ],
)
def test_step_counts_that_are_not_decimal_integers_are_named_as_such(
    name: str,
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A count the script cannot read gets the script's own message, naming the value: ``'²'``
    passed ``str.isdigit()`` and then got ``int()``'s own message. One line on stderr, status 2."""
    code, err = _script_error(name, argv, monkeypatch, capsys)
    assert code == 2 and err == message + "\n"


def test_oao_best_response_plays_a_forced_move_without_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    """A decision with one legal move is played at once: no world sampled and the shared
    generator untouched (so the rest of a seeded run is what it was)."""
    mod = _example_module("oao_best_response")
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    state, rng = game.new_initial_state(np.random.default_rng(0)), np.random.default_rng(0)
    for _ in range(12):  # random play from seed 0 reaches a forced move after 12 moves
        state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    (forced,) = np.flatnonzero(state.legal_mask())

    def refuse(*args: Any) -> Any:
        raise AssertionError("a forced move needs no sampled world")

    monkeypatch.setattr(mod, "sample_world", refuse)
    bot = make_bot(game, "heuristic", entry.bots())
    gen = np.random.default_rng(9)
    before = gen.bit_generator.state
    args = argparse.Namespace(playouts=3, knows="nothing")
    assert mod.best_response(game, state, state.current_player(), (bot, bot), args, gen) == forced
    assert gen.bit_generator.state == before


def test_oao_round_playout_reports_a_lost_chip_as_not_kept() -> None:
    """``round_playout`` is True only when ``me`` still has its chips when the round ends: over
    a few seeds seat 0 loses some rounds and keeps others, and each answer says which."""
    mod = _example_module("oao_best_response")
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    bot = make_bot(game, "random", entry.bots())
    answers = set()
    for seed in range(12):
        state = game.new_initial_state(np.random.default_rng(seed))
        before = list(state.chips)
        kept = mod.round_playout(state, 0, bot, bot, np.random.default_rng(seed))
        assert kept == (state.chips[0] == before[0]) and state.chips != before
        answers.add(kept)
    assert answers == {True, False}


# ------------------------------------------------------------------ bad input: status 2, one line
def test_render_png_refuses_a_directory_as_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``render_png.py octi 5 <dir>`` is one line naming the directory, status 2, before any
    move; it was a traceback (``IsADirectoryError``, status 1) after the moves were played."""
    code, err = _script_error("render_png", ["octi", "5", str(tmp_path)], monkeypatch, capsys)
    assert code == 2
    assert err == f"render_png.py: error: out {str(tmp_path)!r} is a directory; give a .png file name\n"


def test_engine_and_bots_refuses_a_second_argument(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``engine_and_bots.py octi extra`` is a usage error (status 2) naming the arguments; the
    extra argument used to be ignored and the script ran (status 0)."""
    code, err = _script_error("engine_and_bots", ["octi", "extra"], monkeypatch, capsys)
    assert code == 2 and err == (
        "engine_and_bots.py: error: expected at most one argument, the game; got ['octi', 'extra']\n"
    )


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("engine_and_bots", ["chess"], "engine_and_bots.py: error: unknown game 'chess'"),
        ("random_play", ["octi", "--help"], "random_play.py: error: malformed parameter '--help'"),
        ("gym_single_agent", ["octi", "0"], "gym_single_agent.py: error: steps must be an integer >= 1"),
    ],
)
def test_sys_argv_examples_exit_2_on_bad_input(
    name: str,
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The scripts that read ``sys.argv`` by hand end bad input with usage status 2 and one line
    on stderr, as argparse does; they exited with the message as the ``SystemExit`` code (status 1)."""
    code, err = _script_error(name, argv, monkeypatch, capsys)
    assert code == 2 and err.startswith(message) and err.count("\n") == 1, err


def test_train_tiny_help_prints_usage_and_trains_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train_tiny.py --help`` prints its usage and exits 0 without training; every argument
    used to be ignored, so ``--help`` started the 30 000-step run."""
    import training.train

    def refuse(cfg: Any) -> Path:
        raise AssertionError("--help must not train")

    monkeypatch.setattr(training.train, "train", refuse)
    with pytest.raises(SystemExit) as exc:
        _run_script("train_tiny", ["--help"], monkeypatch, capsys)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: train_tiny.py [-h]") and "Over and Out" in out


def test_train_tiny_refuses_unknown_arguments(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train_tiny.py --bogus`` is a usage error (status 2, the usage line) before any training;
    it used to be ignored and the run started."""
    import training.train

    def refuse(cfg: Any) -> Path:
        raise AssertionError("a bad argument must not train")

    monkeypatch.setattr(training.train, "train", refuse)
    code, err = _script_error("train_tiny", ["--bogus"], monkeypatch, capsys)
    assert code == 2 and "usage: train_tiny.py [-h]" in err
    assert "train_tiny.py: error: unrecognized arguments: --bogus" in err


def test_mcts_strength_points_sims_in_mcts_to_budgets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--mcts sims=100`` says the simulations are set with ``--budgets`` (status 2, before any
    game); it said ``bot parameter 'sims' given twice in 'mcts:sims=200,sims=100'``, quoting the
    script's own ``sims=200``, with status 1."""
    code, err = _script_error("mcts_strength", ["--games", "octi", "--mcts", "sims=100"], monkeypatch, capsys)
    assert code == 2
    assert "mcts_strength.py: error: --mcts: set the simulations per move with --budgets, not sims=100" in err
    assert "given twice" not in err
