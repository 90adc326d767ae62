"""``eightfold`` command-line behaviour that mutation testing of ``training/cli.py`` and
``envs/core/registry.py`` found unpinned: what ``list`` prints for each game, what
``render`` plays, prints and draws, which ``bench`` options reach the measurement (and
which are refused before it), ``play``'s bounds and the registry's error message.

Everything runs in-process through :func:`training.cli.main`; the measurements of
``bench`` are replaced by stand-ins that record what they were asked (no timing)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from envs.core.config import describe_params
from envs.core.game import hides_nothing
from envs.core.registry import GAMES, get_game
from training.bench import Row
from training.cli import main

OAO2 = ["over_and_out", "--param", "num_players=2"]


# --------------------------------------------------------------------------- list
def _list_sections(capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """``eightfold list``'s lines, by game (the header line first)."""
    assert main(["list"]) == 0
    sections: dict[str, list[str]] = {}
    current = ""
    for line in capsys.readouterr().out.splitlines():
        if not line.startswith(" "):
            current = line.split()[0]
            sections[current] = []
        sections[current].append(line)
    return sections


def test_list_describes_each_games_spaces_parameters_and_ids(capsys: pytest.CaptureFixture[str]) -> None:
    """Each game's section gives its action count and observation shape, each parameter with
    its default, its reset options and the OpenSpiel name ``pyspiel.load_game`` takes: a
    wrong shape, a dropped default or a wrong name would send a user astray."""
    sections = _list_sections(capsys)
    assert list(sections) == [entry.env_id for entry in GAMES.values()]
    for name, entry in GAMES.items():
        lines = sections[entry.env_id]
        game_cls = entry.game_class()
        game = game_cls()
        assert lines[0] == f"{entry.env_id}  ({entry.title}; players {entry.players})"
        assert (
            f"    module envs.{name}_v0   actions {game.num_actions}   observation {game.observation_shape}"
            in lines
        )
        for pname, default, _help in describe_params(game_cls.config_class):
            (row,) = [line for line in lines if line.startswith(f"      {pname} ")]
            assert re.match(rf"^ {{6}}{re.escape(pname)} +default {re.escape(default)} ", row), row
        assert f"    reset options: {', '.join(game_cls.reset_options)} (see the env's doc page)" in lines
        assert f"pyspiel.load_game('eightfold_{name}')" in lines[-1]


def test_list_names_every_bot_a_spec_can_use(capsys: pytest.CaptureFixture[str]) -> None:
    """The bots line lists the game's own bots, ``mcts`` (every game takes it) and OpenSpiel's
    ``ismcts`` only for games with hidden information (Octi hides nothing)."""
    sections = _list_sections(capsys)
    for name, entry in GAMES.items():
        (bots_line,) = [line for line in sections[entry.env_id] if line.startswith("    bots: ")]
        bots = bots_line.removeprefix("    bots: ").split(", ")
        assert set(entry.bots()) <= set(bots) and "mcts" in bots, bots_line
        has_ismcts = any(b.startswith("ismcts") for b in bots)
        assert has_ismcts == (not hides_nothing(entry.game_class())), name
    assert not any("ismcts" in line for line in sections["eightfold/octi-v0"])


def test_list_says_which_games_are_not_installed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a partial install a game without its package is listed with ``(not installed)``
    and nothing more (its spaces cannot be read); the installed ones are described."""
    import training.cli

    monkeypatch.setattr(training.cli, "installed_games", lambda: ["octi"])
    sections = _list_sections(capsys)
    assert len(sections["eightfold/octi-v0"]) > 2
    for entry in GAMES.values():
        if entry.name != "octi":
            assert sections[entry.env_id][1:] == ["    (not installed)"], entry.name


def test_list_gives_the_player_counts_each_game_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    """The header's ``players a-b`` is the range of ``num_players`` the game takes (a game
    without that parameter has its fixed count): a user reads the range there."""
    sections = _list_sections(capsys)
    for entry in GAMES.values():
        players = re.search(r"; players ([0-9-]+)", sections[entry.env_id][0])
        assert players is not None, sections[entry.env_id][0]
        low, _, high = players.group(1).partition("-")
        lo, hi = int(low), int(high or low)
        game_cls = entry.game_class()
        if "num_players" not in {pname for pname, _d, _h in describe_params(game_cls.config_class)}:
            assert lo == hi == game_cls().num_players
            continue
        accepted = []
        for n in range(lo - 1, hi + 2):
            try:
                game_cls(num_players=n)
            except ValueError:
                continue
            accepted.append(n)
        assert accepted == list(range(lo, hi + 1)), entry.name


# ------------------------------------------------------------------------- render
class _Counted:
    """What ``render`` played: the env it built and its real (not dead) steps."""

    def __init__(self) -> None:
        self.moves = 0
        self.dead = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> _Counted:
    """Counts the env steps ``render`` takes after the reset (``reset_to_position`` is
    wrapped: its own ``--moves`` are not counted)."""
    import training.position

    seen = _Counted()
    real = training.position.reset_to_position

    def reset(env: Any, *args: Any, **kwargs: Any) -> int:
        given = real(env, *args, **kwargs)
        step = env.step

        def counting_step(action: Any) -> None:
            if action is None:
                seen.dead += 1
            else:
                seen.moves += 1
            step(action)

        env.step = counting_step
        return int(given)

    monkeypatch.setattr(training.position, "reset_to_position", reset)
    return seen


def test_render_plays_exactly_steps_real_moves_and_none_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], counted: _Counted
) -> None:
    """``--steps N`` is N random moves (a knocked-out seat's dead step is no move), and the
    message says so; without ``--steps`` the position drawn is the reset's own."""
    out = tmp_path / "r.png"
    args = ["over_and_out", "--param", "num_players=8", "--param", "starting_chips=1", "--out", str(out)]
    assert main(["render", *args, "--steps", "40"]) == 0
    assert counted.moves == 40 and counted.dead > 0, "this game knocks seats out within 40 moves"
    assert "after 40 random steps, seed 0" in capsys.readouterr().out
    counted.moves = counted.dead = 0
    assert main(["render", *OAO2, "--out", str(out)]) == 0
    assert counted.moves == 0
    assert "after 0 random steps, seed 0" in capsys.readouterr().out


def test_render_reports_the_moves_given_the_pictures_size_and_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message names the ``--moves`` played, the PNG's width x height (as an image viewer
    gives them) and the seed used."""
    from PIL import Image

    out = tmp_path / "r.png"
    assert main(["render", "octi", "--moves", "prong c2 N; prong d6 S", "--steps", "1", "--seed", "5",
                 "--out", str(out)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    width, height = Image.open(out).size
    assert width != height, "a square picture would not tell width from height"
    assert printed == (
        f"wrote {out} ({width}x{height}) after 2 moves of --moves and 1 random steps, seed 5\n"
    )


def test_render_random_steps_follow_the_seed(tmp_path: Path) -> None:
    """Octi deals nothing at the reset, so only the random steps can tell two seeds apart:
    the same seed draws the same picture, other seeds other pictures (a generator not seeded
    by ``--seed`` draws one position whatever the seed)."""
    pictures = []
    for k, seed in enumerate((0, 0, 1, 2)):
        out = tmp_path / f"r{k}.png"
        assert main(["render", "octi", "--steps", "8", "--seed", str(seed), "--out", str(out)]) == 0
        pictures.append(out.read_bytes())
    assert pictures[0] == pictures[1]
    assert len({pictures[0], pictures[2], pictures[3]}) == 3


def test_render_variant_draws_that_variants_board(tmp_path: Path) -> None:
    """``--variant x_fast`` is ``--param variant=x_fast`` (Octi-X's 9x9 board): the two draw
    the same picture, and not the basic game's (a dropped ``--variant`` drew that silently)."""
    pictures = {}
    for label, extra in (
        ("basic", []),
        ("variant", ["--variant", "x_fast"]),
        ("param", ["--param", "variant=x_fast"]),
    ):
        out = tmp_path / f"{label}.png"
        assert main(["render", "octi", *extra, "--out", str(out)]) == 0
        pictures[label] = out.read_bytes()
    assert pictures["variant"] == pictures["param"] != pictures["basic"]


def test_a_short_output_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``render``'s one line stays in Python's buffer until the end: the command flushes it
    itself, where a closed pipe is caught, so it ends with status 0 and no error (``list``
    and ``play`` fill the buffer and fail at a ``print``; a one-line output failed only in
    the interpreter's own flush at exit: status 120 and a ``BrokenPipeError`` message)."""
    import os
    import subprocess
    import sys

    code = "import sys; from training.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # a buffered stdout, as by default
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, "render", "octi", "--out", str(tmp_path / "r.png")],
            stdout=write,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
        )
    finally:
        os.close(write)
    err = proc.stderr.decode()
    assert proc.returncode == 0 and err == "", err
    assert (tmp_path / "r.png").exists()


def test_render_deals_from_the_seed(tmp_path: Path) -> None:
    """Over and Out deals at the reset: with no random step, ``--seed`` alone picks the deal
    drawn (a reset not given the seed drew one deal for every seed)."""
    pictures: list[bytes] = []
    for seed in (0, 1, 0):
        out = tmp_path / f"d{len(pictures)}.png"
        assert main(["render", *OAO2, "--seed", str(seed), "--out", str(out)]) == 0
        pictures.append(out.read_bytes())
    assert pictures[0] == pictures[2] != pictures[1]


# -------------------------------------------------------------------------- bench
class _BenchSpy:
    """What the measurements of ``bench`` were asked; they measure nothing."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []


@pytest.fixture
def bench_spy(monkeypatch: pytest.MonkeyPatch) -> _BenchSpy:
    import envs.core.mcts
    import training.bench
    import training.memory

    spy = _BenchSpy()

    def run_bench(
        games: Any, seconds: float, seed: int = 0, openspiel: bool = False, on_row: Any = None
    ) -> Any:
        spy.calls.append(
            {"what": "play", "games": games, "seconds": seconds, "seed": seed, "openspiel": openspiel}
        )
        rows = [Row("pettingzoo connect_four_v3 (reference)", "env()", 100.0, 2.0, 1.0)]
        for row in rows:
            on_row(row)
        return rows

    def learner_bench(env: str, params: Any, timesteps: int, json_path: Any = None, **kwargs: Any) -> int:
        spy.calls.append({"what": "learner", "env": env, "params": params, "timesteps": timesteps,
                          "json": json_path, **kwargs})  # fmt: skip
        return 0

    def sims(game: Any) -> float:
        spy.calls.append({"what": "mcts", "game": type(game).__name__})
        return 1234.0

    def memory(games: Any, seconds: float, seed: int = 0, on_row: Any = None) -> list[Any]:
        spy.calls.append({"what": "memory", "games": games, "seconds": seconds, "seed": seed})
        return []

    monkeypatch.setattr(training.bench, "run_bench", run_bench)
    monkeypatch.setattr(training.bench, "learner_bench", learner_bench)
    monkeypatch.setattr(envs.core.mcts, "measure_sims_per_second", sims)
    monkeypatch.setattr(training.memory, "run_memory_bench", memory)
    return spy


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timesteps", "64"], "--timesteps has no effect with random play (no --learner)"),
        (["--policy", "sb3"], "--policy has no effect with random play (no --learner)"),
        (["--learner", "octi", "--games", "octi"], "--games has no effect with --learner"),
        (["--learner", "octi", "--seconds", "1"], "--seconds has no effect with --learner"),
    ],
)
def test_bench_refuses_options_of_the_other_mode_before_measuring(
    args: list[str], message: str, bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """An option the chosen mode would ignore is a usage error naming it, and nothing is
    measured (``--timesteps`` without ``--learner`` used to look like it had been obeyed)."""
    assert main(["bench", *args]) == 2
    assert f"eightfold bench: error: {message}\n" == capsys.readouterr().err
    assert bench_spy.calls == []


def test_bench_json_that_is_a_directory_is_refused_before_measuring(
    tmp_path: Path, bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json DIR`` is a usage error (2) before the seconds of measuring, not an OSError (1)
    once they are spent and the rows lost."""
    for extra in ([], ["--learner", "octi"]):
        assert main(["bench", *extra, "--json", str(tmp_path)]) == 2
        assert f"eightfold bench: error: --json {str(tmp_path)!r} is a directory" in capsys.readouterr().err
    assert bench_spy.calls == []


def test_bench_passes_its_options_to_the_measurement(
    tmp_path: Path, bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seconds``, ``--seed``, ``--openspiel`` and the games (env ids resolved to names)
    reach the random-play rows, and ``--memory`` gets the same seconds and seed."""
    out = tmp_path / "b.json"
    args = ["bench", "--games", "eightfold/octi-v0", "over_and_out_v0", "--seconds", "0.25", "--seed", "7",
            "--openspiel", "--memory", "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    assert bench_spy.calls == [
        {"what": "play", "games": ["octi", "over_and_out"], "seconds": 0.25, "seed": 7, "openspiel": True},
        {"what": "memory", "games": ["octi", "over_and_out"], "seconds": 0.25, "seed": 7},
    ]
    assert json.loads(out.read_text())[0]["name"] == "pettingzoo connect_four_v3 (reference)"
    bench_spy.calls.clear()
    assert main(["bench", "--games", "octi"]) == 0  # the documented default: 3 s a row, seed 0
    assert bench_spy.calls == [
        {"what": "play", "games": ["octi"], "seconds": 3.0, "seed": 0, "openspiel": False}
    ]
    capsys.readouterr()


def test_bench_refuses_a_game_named_twice_under_two_spellings(
    bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--games octi eightfold/octi-v0`` names one game twice: refused before measuring (the
    table would hold each of its rows twice)."""
    assert main(["bench", "--games", "octi", "eightfold/octi-v0"]) == 2
    assert "--games names a game twice" in capsys.readouterr().err
    assert bench_spy.calls == []


def test_bench_learner_passes_policy_params_settings_and_json(tmp_path: Path, bench_spy: _BenchSpy) -> None:
    """``bench --learner``: every option reaches the learner measurement (a dropped
    ``--policy`` measured the default policy under the name asked for)."""
    out = tmp_path / "l.json"
    args = ["bench", "--learner", "octi", "--param", "max_turns=9", "--timesteps", "64", "--policy", "sb3",
            "--set", "n_steps=32", "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    assert bench_spy.calls == [
        {"what": "learner", "env": "octi", "params": ["max_turns=9"], "timesteps": 64, "json": str(out),
         "policy": "sb3", "settings": ["n_steps=32"]},
    ]  # fmt: skip


def test_bench_mcts_measures_the_games_named_and_writes_simulations_per_second(
    tmp_path: Path, bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--mcts`` measures only the ``--games`` given, prints simulations/s as measured and
    writes them under ``simulations_per_s`` in the ``--json`` rows."""
    out = tmp_path / "b.json"
    assert main(["bench", "--games", "octi", "--mcts", "--json", str(out)]) == 0
    assert [c for c in bench_spy.calls if c["what"] == "mcts"] == [{"what": "mcts", "game": "OctiGame"}]
    assert "mcts octi (default config, 2 players): 1,234 simulations/s\n" in capsys.readouterr().out
    rows = json.loads(out.read_text())
    assert rows[-1] == {"name": "octi", "mode": "mcts", "num_players": 2, "simulations_per_s": 1234.0}


# --------------------------------------------------------------------------- play
def test_a_negative_seat_without_vs_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """``--seat`` is only for ``--vs``: any seat other than the default, negative too, is a
    usage error in the other modes (nothing is played)."""
    assert main(["play", *OAO2, "--random", "--seat", "-1", "--max-steps", "2"]) == 2
    captured = capsys.readouterr()
    assert "--seat is your seat with --vs" in captured.err and captured.out == ""


def test_max_steps_0_plays_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    """``--max-steps 0`` is the documented "play to the end", not a usage error."""
    assert main(["play", "octi", "--param", "max_turns=3", "--random", "--max-steps", "0"]) == 0
    assert "game over after" in capsys.readouterr().out


# ----------------------------------------------------------------------- registry
def test_an_unknown_game_is_named_with_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error repeats the name given and lists the names that work, in the API and on
    the command line."""
    known = sorted(GAMES)
    with pytest.raises(ValueError, match=r"unknown game 'chess'") as exc:
        get_game("chess")
    assert str(exc.value) == f"unknown game 'chess'; known: {known}"
    assert main(["render", "eightfold/chess-v0", "--out", str(tmp_path / "x.png")]) == 2
    assert (
        capsys.readouterr().err
        == f"eightfold render: error: unknown game 'eightfold/chess-v0'; known: {known}\n"
    )


# ----------------------------------------------- defects the round found (fixed with these tests)
def test_variant_given_twice_must_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--param variant=x_classic --variant x_fast`` drew x_fast without a word; two
    spellings of one setting that disagree are a usage error naming both (and agreeing
    ones are fine)."""
    out = tmp_path / "v.png"
    args = ["render", "octi", "--param", "variant=x_classic", "--variant", "x_fast", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--variant 'x_fast' and --param variant='x_classic' disagree" in err
    assert not out.exists()
    assert (
        main(["render", "octi", "--param", "variant=x_fast", "--variant", "x_fast", "--out", str(out)]) == 0
    )
    assert out.exists()


def test_bench_learner_empty_is_a_learner_bench_not_random_play(
    bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--learner ""`` (an unset shell variable) ran the whole random-play table; it is the
    learner bench of a game named "", so the learner's checks apply to it."""
    assert main(["bench", "--learner", "", "--games", "octi"]) == 2
    assert "--games has no effect with --learner" in capsys.readouterr().err
    assert main(["bench", "--learner", ""]) == 0
    assert [c["what"] for c in bench_spy.calls] == ["learner"] and bench_spy.calls[0]["env"] == ""


def test_bench_learner_without_the_spy_names_the_empty_game(capsys: pytest.CaptureFixture[str]) -> None:
    """Through the real measurement, ``--learner ""`` stops at once with the registry's error."""
    assert main(["bench", "--learner", "", "--timesteps", "1"]) == 2
    assert "unknown game ''" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--timesteps", "20000"], "--timesteps has no effect with random play (no --learner)"),
        (["--learner", "octi", "--seconds", "3"], "--seconds has no effect with --learner"),
        (["--learner", "octi", "--seed", "0"], "--seed has no effect with --learner"),
    ],
)
def test_bench_refuses_the_other_modes_option_even_at_its_default(
    args: list[str], message: str, bench_spy: _BenchSpy, capsys: pytest.CaptureFixture[str]
) -> None:
    """An option the mode ignores was refused only when its value differed from the default,
    so ``--seconds 3`` with ``--learner`` was silently ignored while ``--seconds 2`` was not."""
    assert main(["bench", *args]) == 2
    assert message in capsys.readouterr().err
    assert bench_spy.calls == []


def test_bench_learner_default_timesteps_reach_the_measurement(bench_spy: _BenchSpy) -> None:
    """Without ``--timesteps`` the learner bench measures the documented 20,000 steps."""
    assert main(["bench", "--learner", "octi"]) == 0
    assert bench_spy.calls[0]["timesteps"] == 20_000


def test_render_with_a_bad_param_makes_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A usage error in the game's parameters left ``--out``'s new folder behind."""
    folder = tmp_path / "new"
    assert main(["render", "octi", "--param", "variant=bogus", "--out", str(folder / "v.png")]) == 2
    assert "variant" in capsys.readouterr().err
    assert not folder.exists()


def test_list_names_one_game_and_its_spaces_under_given_parameters() -> None:
    """``eightfold list octi --variant x_classic`` prints Octi's entry alone, with the spaces of
    that variant (a network is sized for them); ``--param`` without a game is refused, and a
    bad parameter or game is named. Old: ``list`` took no argument (``unrecognized arguments:
    octi``) and showed each game's default spaces only."""
    from tests.training.test_cli_fuzz import run_cli

    code, out, err, tb = run_cli(["list", "octi", "--variant", "x_classic"])
    assert tb is None and code == 0, err
    assert out.count("eightfold/") == 2 and out.startswith("eightfold/octi-v0  (")  # the entry, its view id
    assert "actions 185   observation (111, 9, 9)   (with {'variant': 'x_classic'})" in out
    code, out, err, tb = run_cli(["list", "eightfold/over_and_out-v0", "--param", "num_players=8"])
    assert code == 0 and out.startswith("eightfold/over_and_out-v0  (") and "(with {'num_players': 8})" in out
    code, out, _err, _tb = run_cli(["list", "octi"])
    assert code == 0 and "actions 117   observation (84, 7, 6)\n" in out
    code, _out, err, _tb = run_cli(["list", "--variant", "x_fast"])
    assert code == 2 and "--param and --variant give one game's spaces: name it" in err
    code, _out, err, _tb = run_cli(["list", "octi", "--param", "num_players=2"])
    assert code == 2 and "unknown parameter(s) ['num_players'] for octi" in err
