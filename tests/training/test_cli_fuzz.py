"""Bounded, seeded fuzzing of the ``eightfold`` commands other than ``train`` and ``play``:
``eval``, ``replay``, ``render``, ``list`` and ``bench`` (training/cli.py, evaluate.py,
replay.py, tournament.py, bench.py; the README's "Command line" section).

The contract (README): "A bad value is a usage error that names the option and what it allows
(exit status 2); nothing is clamped"; a file that cannot be read or written is exit status 1
with no traceback (``training.cli.main``); ``eightfold replay FILE N`` "plays game N again,
every position and move, and checks that it ends with the recorded returns"; a record "that
does not replay (another version of the game, an edited file) is an error that names the move".

The focused tests at the end each pin one defect the fuzzing found (fixed since) and state the
correct behaviour.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import random
import subprocess
import sys
import traceback
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.registry import installed_games
from training.cli import main

pytestmark = pytest.mark.skipif(
    not {"octi", "over_and_out", "otto_octopus"} <= set(installed_games()),
    reason="needs Octi, Over and Out and Otto the Octopus",
)

ROOT = Path(__file__).resolve().parents[2]

#: the tournaments whose records the replay fuzz mutates (tiny, quick games)
RECORD_CASES = {
    "octi": ["octi", "--param", "max_turns=6"],
    "oao": ["over_and_out", "--param", "num_players=2"],
    "solo": ["otto_octopus", "--param", "num_players=1"],
}


def run_cli(argv: list[str]) -> tuple[int | str, str, str, str | None]:
    """``main(argv)`` in process: (exit code, stdout, stderr, traceback or None)."""
    out, err = io.StringIO(), io.StringIO()
    tb = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | str = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # noqa: BLE001 - a traceback is what the contract forbids
            code = "traceback"
            tb = "".join(traceback.format_exception(exc))
    return code, out.getvalue(), err.getvalue(), tb


def assert_contract(argv: list[str], code: int | str, err: str, tb: str | None) -> None:
    """No traceback; exit 0, 1 (a file) or 2 (usage); an error ends in one line that names the
    command (argparse prints its usage lines above it)."""
    assert tb is None, f"{argv}: traceback\n{tb}"
    assert code in (0, 1, 2), f"{argv}: exit {code}"
    if code != 0:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert last.startswith(("eightfold ", "eightfold:")), f"{argv}: message {err!r}"
        assert "error" in last, f"{argv}: message {err!r}"
        if not err.startswith("usage:"):  # a handler's error: one line (after any notes)
            lines = [ln for ln in err.strip().splitlines() if not ln.startswith("note:")]
            assert len(lines) == 1, f"{argv}: message of {len(lines)} lines: {err!r}"


# ------------------------------------------------------------------------- fixtures
def _env_of(name: str, **params: Any) -> Any:
    from envs.core.bots import RandomBot
    from envs.core.registry import GAMES
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    game = GAMES[name].game_class()(**params)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    return SingleAgentEnv(game, pool)


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Untrained models: MaskablePPO of Over and Out (2 players) and of Octi (another shape),
    a plain PPO of Over and Out (another algorithm), and files that are no model."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    d = tmp_path_factory.mktemp("models")
    kw: dict[str, Any] = {"policy_kwargs": {"net_arch": [8]}, "seed": 0, "n_steps": 64, "batch_size": 32}
    MaskablePPO("MlpPolicy", DummyVecEnv([lambda: _env_of("over_and_out", num_players=2)]), **kw).save(
        d / "oao.zip"
    )
    MaskablePPO("MlpPolicy", DummyVecEnv([lambda: _env_of("octi")]), **kw).save(d / "octi.zip")
    PPO("MlpPolicy", DummyVecEnv([lambda: _env_of("over_and_out", num_players=2)]), **kw).save(d / "ppo.zip")
    (d / "empty.zip").write_bytes(b"")
    (d / "text.zip").write_text("not a zip")
    whole = (d / "oao.zip").read_bytes()
    (d / "cut.zip").write_bytes(whole[: len(whole) // 2])
    with zipfile.ZipFile(d / "emptyzip.zip", "w"):
        pass
    with zipfile.ZipFile(d / "nodata.zip", "w") as z:
        z.writestr("readme.txt", "no model here")
    return {p.stem: p for p in d.iterdir()}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``eval --records`` files of three tiny tournaments."""
    d = tmp_path_factory.mktemp("records")
    files = {}
    for key, env in RECORD_CASES.items():
        path = d / f"{key}.jsonl"
        argv = ["eval", *env, "--players", "random", "greedy", "--games", "2", "--workers", "1"]
        code, _o, err, tb = run_cli([*argv, "--records", str(path), "--json", str(d / f"{key}.json")])
        assert code == 0 and tb is None, err
        files[key] = path
    return files


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------ fuzz: arguments
GAME_NAMES = ["octi", "over_and_out", "otto_octopus", "eightfold/octi-v0", "nosuch", "", "Octi", "octi-v9"]
COUNTS = ["0", "1", "2", "-1", "1.5", "x", "", "1e3", "nan", "inf", "0x10"]
PARAMS = ["num_players=2", "num_players=9", "num_players=x", "variant=x_fast", "variant=nope", "bogus=1"]
PARAMS += ["=3", "noeq", "render_mode=human", "max_turns=-1", "max_turns=4"]
BOTS = ["random", "greedy", "nosuchbot", "mcts:sims=2", "mcts:sims=0", "mcts:bogus=1", "RANDOM", "/"]


def _gen_argv(rng: random.Random, tmp: Path, models: dict[str, Path]) -> list[str]:
    def out(ext: str) -> str:
        return rng.choice(
            [
                str(tmp / f"o{rng.randrange(9)}{ext}"),
                str(tmp),
                str(tmp / "new" / f"x{ext}"),
                str(tmp / "x.txt"),
            ]
        )

    cmd = rng.choice(["eval", "eval", "eval", "render", "render", "bench", "list"])
    if cmd == "list":
        return ["list", *([rng.choice(["octi", "--json"])] if rng.random() < 0.4 else [])]
    if cmd == "bench":
        argv = ["bench", "--seconds", rng.choice(["0", "-1", "x", "nan", "inf", "0.0005"])]
        argv += ["--games", rng.choice(["octi", "nosuch", "over_and_out"])]
        if rng.random() < 0.3:
            argv += ["--seed", rng.choice(COUNTS)]
        if rng.random() < 0.3:
            argv += ["--json", out(".json")]
        if rng.random() < 0.2:
            argv += ["--param", rng.choice(PARAMS)]
        if rng.random() < 0.2:
            argv += ["--learner", "octi", "--timesteps", rng.choice(["0", "-1", "x"])]
        return argv
    game = rng.choice(GAME_NAMES[:3]) if rng.random() < 0.8 else rng.choice(GAME_NAMES)
    if cmd == "render":
        argv = ["render", game]
        for flag, values in (
            ("--steps", COUNTS),
            ("--seed", COUNTS),
            ("--param", PARAMS),
            ("--variant", ["x_fast", "nope", ""]),
            (
                "--options",
                ["{}", "[]", "null", "{", '{"state": null}', '{"bogus": 1}', f"@{tmp}", "@/nope.json"],
            ),
            ("--moves", ["", ";", "zz", "prong c2 N", " ; "]),
        ):
            if rng.random() < 0.25:
                argv += [flag, rng.choice(values)]
        return [*argv, "--out", out(".png")]
    argv = ["eval", *([game] if rng.random() < 0.85 else [])]
    pool = BOTS + [str(models[k]) for k in ("oao", "octi", "empty", "text", "cut")] + ["/nope/m.zip"]
    argv += ["--players", *[rng.choice(pool) for _ in range(rng.choice([0, 1, 2, 2, 3]))]]
    argv += [
        "--games",
        rng.choice(["1", "2", "2", *COUNTS]),
        "--workers",
        rng.choice(["1", "1", "1", "0", "x"]),
    ]
    for flag, values in (
        ("--param", PARAMS),
        ("--seed", COUNTS),
        ("--mode", ["all", "first", "both"]),
        ("--json", [out(".json")]),
        ("--records", [out(".jsonl")]),
        ("--plot", [out(".png")]),
        ("--options", ["{}", "[]", '{"bogus": 1}']),
        ("--moves", ["zz", ";"]),
    ):
        if rng.random() < 0.15:
            argv += [flag, rng.choice(values)]
    return argv


def test_fuzz_arguments(tmp_path: Path, models: dict[str, Path]) -> None:
    """Seeded argument lists of eval, render, bench and list: no traceback, exit 0, 1 or 2,
    and an error is one line naming the command."""
    rng = random.Random(20261207)
    codes: dict[int | str, int] = {}
    for _ in range(120):
        argv = _gen_argv(rng, tmp_path, models)
        code, _out, err, tb = run_cli(argv)
        assert_contract(argv, code, err, tb)
        codes[code] = codes.get(code, 0) + 1
    assert codes.get(2, 0) > 40 and codes.get(0, 0) > 5, codes  # both kinds exercised


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["eval", "octi", "--players", "random", "heuristic", "--games", "0"], "--games"),
        (["eval", "octi", "--players", "random", "heuristic", "--games", "1.5"], "--games"),
        (["eval", "octi", "--players", "random", "heuristic", "--seed", "-1"], "--seed"),
        (["eval", "octi", "--players", "random", "heuristic", "--workers", "0"], "--workers"),
        (["eval", "nosuch", "--players", "random", "heuristic"], "nosuch"),
        (["eval", "octi", "--players", "random", "nosuchbot", "--games", "1"], "nosuchbot"),
        (["eval", "octi", "--players", "random", "--games", "1"], "two players"),
        (["eval", "octi", "--players", "random", "random", "--games", "1"], "distinct"),
        (["eval", "octi", "--variant", "nope", "--players", "random", "greedy"], "variant"),
        (["eval", "octi", "--param", "nope=3", "--players", "random", "greedy"], "nope"),
        (["eval", "--players", "random", "greedy", "--games", "1"], "name the env"),
        (
            ["eval", "octi", "--players", "random", "/nope/m.zip", "--games", "1", "--workers", "1"],
            "/nope/m.zip",
        ),
        (["eval", "--curve", "/nope"], "--curve"),
        (["render", "octi", "--steps", "-1", "--out", "x.png"], "--steps"),
        (["render", "octi", "--out", "x.jpg"], "--out"),
        (["render", "octi", "--options", "[1]", "--out", "x.png"], "--options"),
        (["render", "octi", "--options", '{"bogus": 1}', "--out", "x.png"], "bogus"),
        (["render", "octi", "--moves", "zz", "--out", "x.png"], "--moves"),
        (["bench", "--seconds", "0"], "--seconds"),
        (["bench", "--games", "nosuch", "--seconds", "0.01"], "nosuch"),
        (["bench", "--games", "octi", "octi", "--seconds", "0.01"], "twice"),
        (["bench", "--learner", "octi", "--games", "octi"], "--games"),
        (["bench", "--param", "num_players=2"], "--param"),
    ],
)
def test_usage_errors_name_the_option(argv: list[str], names: str, tmp_path: Path) -> None:
    argv = [str(tmp_path / a) if a.endswith((".png", ".jpg")) else a for a in argv]
    code, _out, err, tb = run_cli(argv)
    assert_contract(argv, code, err, tb)
    assert code == 2 and names in err.strip().splitlines()[-1], err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("model", "names"),
    [
        ("octi", "trained on observations"),  # the wrong game: another observation shape
        ("empty", "zip"),
        ("text", "zip"),
        ("cut", "zip"),
    ],
)
def test_eval_refuses_a_model_that_does_not_fit(model: str, names: str, models: dict[str, Path]) -> None:
    path = str(models[model])
    argv = ["eval", "over_and_out", "--param", "num_players=2", "--players", path, "random"]
    code, _out, err, tb = run_cli([*argv, "--games", "2", "--workers", "1"])
    assert_contract(argv, code, err, tb)
    assert code == 2 and names in err and path in err, err


def test_eval_plays_a_fitting_model(models: dict[str, Path], tmp_path: Path) -> None:
    argv = ["eval", "over_and_out", "--param", "num_players=2", "--players", str(models["oao"]), "random"]
    code, out, err, tb = run_cli(
        [*argv, "--games", "2", "--workers", "1", "--json", str(tmp_path / "r.json")]
    )
    assert code == 0 and tb is None, err
    res = json.loads((tmp_path / "r.json").read_text())
    assert {"env", "params", "num_players", "games_per_pairing", "players", "pairs", "elo"} <= set(res)
    assert res["players"] == [str(models["oao"]), "random"]
    pair = res["pairs"][0]
    assert pair["games"] == 2 and pair["wins"] + pair["draws"] + pair["losses"] == 2
    assert {"win_rate", "win_rate_ci95", "score", "mean_placement", "mean_return"} <= set(pair)


# --------------------------------------------------------------------- fuzz: records
WEIRD: list[Any] = ["", "x", 0, -1, 1.5, [], {}, [1], {"a": 1}, ["a"], [None], "octi"]
#: mutations that change what a record's game is: its replay must be refused, naming the game
SEMANTIC = {"returns", "moves_cut", "moves_extra", "moves_illegal", "options_other", "env_other"}


def _mutate(
    rng: random.Random, rec: dict[str, Any], others: list[dict[str, Any]]
) -> tuple[str, dict[str, Any]]:
    r = copy.deepcopy(rec)
    kind = rng.choice(
        ["drop", "type", "params", "seats", "returns", "moves_cut", "moves_extra", "moves_illegal"]
        + ["options_other", "env_other", "result", "truncated", "pairing", "game", "render_mode"]
    )
    if kind == "drop":
        r.pop(rng.choice(sorted(r)))
    elif kind == "type":
        key = rng.choice(sorted(r))
        r[key] = rng.choice(WEIRD)
    elif kind == "params":
        r["params"] = rng.choice(
            [{"bogus": 1}, {"num_players": 9}, {"num_players": "x"}, {"variant": "nope"}]
        )
    elif kind == "seats":
        r["seats"] = [*r["seats"], "random"] if rng.random() < 0.5 else r["seats"][:-1]
    elif kind == "returns":
        r["returns"] = [x + rng.choice([0.5, -1.0, 1e-3]) for x in r["returns"]]
    elif kind == "moves_cut":
        r["moves"] = r["moves"][: rng.randrange(len(r["moves"]))]
    elif kind == "moves_extra":
        r["moves"] = [*r["moves"], rng.choice(r["moves"])]
    elif kind == "moves_illegal":
        r["moves"][rng.randrange(len(r["moves"]))] = rng.choice(["zz", "pass", "prong z9 N", "play 99"])
    elif kind == "options_other":
        other = rng.choice([o for o in others if o["env"] != rec["env"]])
        r["options"] = other["options"]
    elif kind == "env_other":
        r["env"] = rng.choice(sorted({o["env"] for o in others} - {rec["env"]}) + ["nosuch"])
    elif kind == "result":
        r["result"] = rng.choice(["WIN", None, 1])
    elif kind == "truncated":
        r["truncated"] = rng.choice([0, "no", None])
    elif kind == "pairing":
        r["pairing"] = rng.choice([["a"], ["a", "b", "c"], "ab", [1, 2]])
    elif kind == "game":
        r["game"] = rng.choice([-1, 1.0, True, "0"])
    elif kind == "render_mode":
        r["params"] = {**r["params"], "render_mode": "human"}
    return kind, r


def test_fuzz_replay_records(tmp_path: Path, records: dict[str, Path]) -> None:
    """Mutated records and broken files: no traceback, exit 1 or 2 with one line; a record
    whose game was changed (returns, moves, options or env of another game) is refused."""
    rng = random.Random(7)
    pool = [rec for path in records.values() for rec in _lines(path)]
    refused = 0
    for i in range(150):
        rec = rng.choice(pool)
        kind, mutated = _mutate(rng, rec, pool)
        path = tmp_path / f"m{i}.jsonl"
        line = json.dumps(mutated)
        form = rng.choice(
            ["one"] * 6 + ["empty", "blank", "cut", "notjson", "array", "binary", "bom", "after"]
        )
        if form == "one":
            path.write_text(line + "\n")
        elif form == "empty":
            path.write_text("")
        elif form == "blank":
            path.write_text("\n  \n")
        elif form == "cut":
            path.write_text(line[: rng.randrange(1, len(line))])
        elif form == "notjson":
            path.write_text("hello\n")
        elif form == "array":
            path.write_text(json.dumps([mutated]) + "\n")
        elif form == "binary":
            path.write_bytes(bytes(rng.randrange(256) for _ in range(40)))
        elif form == "bom":
            path.write_text(line + "\n", encoding="utf-8-sig")
        else:  # a good record, then the mutated one
            path.write_text(json.dumps(rec) + "\n" + line + "\n")
        number = "2" if form == "after" else "1"
        extra = rng.choice([[], [], ["--upto", "2"], ["--dataset", str(tmp_path / f"d{i}.npz")]])
        argv = ["replay", str(path), *([number] if rng.random() < 0.8 else []), *extra]
        code, _out, err, tb = run_cli(argv)
        assert_contract(argv, code, err, tb)
        changed = mutated != rec
        whole = form in ("one", "after") and "--upto" not in extra and number in argv
        if kind in SEMANTIC and changed and whole:
            assert code == 2, f"{kind}: {argv} accepted a changed game ({err!r})"
            assert f"game {number}" in err or "line" in err, err
            refused += 1
        if form in ("empty", "blank", "notjson", "binary", "cut", "array"):
            assert code == 2, f"{form}: {argv} -> {code} {err!r}"
    assert refused > 10


@pytest.mark.parametrize(
    ("content", "names"),
    [
        ("", "holds no game records"),
        ("{}\n", "lacks"),
        ("[1, 2]\n", "not a game record"),
        ('{"env": "octi"\n', "not JSON"),
    ],
)
def test_replay_refuses_a_broken_file(content: str, names: str, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(content)
    code, _out, err, tb = run_cli(["replay", str(path)])
    assert tb is None and code == 2 and names in err and str(path) in err, err


def test_replay_of_a_missing_file_or_a_folder(tmp_path: Path) -> None:
    """A usage error (exit status 2) naming the path, as every other command's (exit 1 with a raw
    errno before)."""
    for path in (tmp_path / "none.jsonl", tmp_path):
        code, _out, err, tb = run_cli(["replay", str(path)])
        assert tb is None and code == 2 and str(path) in err and "Errno" not in err, err


# ------------------------------------------------------------------ round trips
def test_records_replay_exactly(records: dict[str, Path], tmp_path: Path) -> None:
    """Every record replays to its recorded returns; the dataset has one row per move, with the
    record's returns, players and truncation; the JSON summary counts the same wins."""
    for key, path in records.items():
        recs = _lines(path)
        res = json.loads(path.with_suffix(".json").read_text())
        solo = res["num_players"] == 1
        assert len(recs) == res["pairs"][0]["games"] * (2 if solo else 1)
        assert sum(r["result"] == "win" for r in recs) // (2 if solo else 1) == res["pairs"][0]["wins"]
        for n, rec in enumerate(recs, 1):
            assert set(rec) >= {"env", "params", "pairing", "game", "seed", "seats", "options", "moves"}
            code, out, err, tb = run_cli(["replay", str(path), str(n)])
            assert code == 0 and tb is None, err
            assert f"game over after {len(rec['moves'])} moves" in out
        npz = tmp_path / f"{key}.npz"
        code, _out, err, _tb = run_cli(["replay", str(path), "--dataset", str(npz)])
        assert code == 0, err
        with np.load(npz) as z:
            assert len(z["actions"]) == sum(len(r["moves"]) for r in recs)
            for row in range(len(z["actions"])):
                rec = recs[int(z["games"][row]) - 1]
                seat = int(z["seats"][row])
                assert z["returns"][row] == pytest.approx(rec["returns"][seat], abs=1e-6)
                assert z["players"][row] == rec["seats"][seat]
                assert bool(z["truncated"][row]) == rec["truncated"]


def test_truncated_game_round_trip(tmp_path: Path) -> None:
    """OCT-45 / OCT-S06: Octi is truncated as a draw after ``max_turns``; the record says
    ``truncated`` and replays to the 0, 0 returns."""
    path = tmp_path / "t.jsonl"
    argv = ["eval", "octi", "--param", "max_turns=1", "--players", "random", "greedy", "--games", "2"]
    code, _out, err, _tb = run_cli([*argv, "--workers", "1", "--records", str(path)])
    assert code == 0, err
    for n, rec in enumerate(_lines(path), 1):
        assert rec["truncated"] is True and rec["returns"] == [0.0, 0.0] and rec["result"] == "draw"
        code, out, err, _tb = run_cli(["replay", str(path), str(n)])
        assert code == 0 and "game over after" in out, err


def test_saved_position_renders_as_replayed(records: dict[str, Path], tmp_path: Path) -> None:
    """``replay N --upto K --save pos.json --out a.png`` then ``render --options @pos.json``
    draws the same picture (README: "--save pos.json writes the position as reset options")."""
    for key, path in records.items():
        rec = _lines(path)[0]
        pos, a, b = tmp_path / f"{key}.json", tmp_path / f"{key}a.png", tmp_path / f"{key}b.png"
        code, _o, err, _tb = run_cli(
            ["replay", str(path), "1", "--upto", "3", "--save", str(pos), "--out", str(a)]
        )
        assert code == 0, err
        params = [x for k, v in rec["params"].items() for x in ("--param", f"{k}={json.dumps(v)}")]
        code, _o, err, _tb = run_cli(["render", rec["env"], *params, "--options", f"@{pos}", "--out", str(b)])
        assert code == 0, err
        assert a.read_bytes() == b.read_bytes()


def test_bench_json_fields(tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    code, _o, err, _tb = run_cli(
        ["bench", "--games", "over_and_out", "--seconds", "0.0005", "--json", str(out)]
    )
    assert code == 0, err
    rows = json.loads(out.read_text())
    assert rows and all(set(r) == {"name", "mode", "steps_per_s", "games_per_s", "ratio"} for r in rows)
    assert {r["mode"] for r in rows if r["name"].startswith("over_and_out")} == {"env()", "engine"}


def test_list_names_every_game() -> None:
    code, out, _err, tb = run_cli(["list"])
    assert code == 0 and tb is None
    for name in installed_games():
        assert f"eightfold/{name}-v0" in out and f"eightfold/{name}-single-v0" in out


def test_subprocess_exit_codes(tmp_path: Path) -> None:
    """As a process: no traceback on stderr, the documented exit status."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv, expected in (
        (["replay", str(bad)], 2),
        (["replay", str(tmp_path / "none.jsonl")], 2),
        (["render", "octi", "--steps", "x", "--out", str(tmp_path / "a.png")], 2),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "training.cli", *argv], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert proc.returncode == expected, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr and proc.stderr.strip().splitlines()[-1].startswith("eightfold")


# ------------------------------------------------------------------ defects, fixed


@pytest.mark.parametrize("model", ["emptyzip", "nodata"])
def test_fixed_zip_without_a_model_is_a_usage_error(model: str, models: dict[str, Path]) -> None:
    """A valid zip that holds no model (an empty archive, or one without SB3's ``data``) must be
    refused like any other file that is no model ("wasn't a zip-file", exit 2), naming it."""
    path = str(models[model])
    argv = ["eval", "over_and_out", "--param", "num_players=2", "--players", path, "random", "--games", "2"]
    code, _out, err, tb = run_cli([*argv, "--workers", "1"])
    assert tb is None, tb
    assert code == 2 and path in err


def test_fixed_model_of_another_algorithm_names_the_model(models: dict[str, Path]) -> None:
    """A plain PPO model is refused (exit 2), but the message, "Policy must subclass
    MaskableActorCriticPolicy", names neither the player/file nor what is expected."""
    path = str(models["ppo"])
    argv = ["eval", "over_and_out", "--param", "num_players=2", "--players", path, "random", "--games", "2"]
    code, _out, err, tb = run_cli([*argv, "--workers", "1"])
    assert tb is None and code == 2
    assert path in err and "MaskablePPO" in err, err


@pytest.mark.parametrize("seats", [None, 3, True])
def test_fixed_record_seats_not_a_list(seats: Any, records: dict[str, Path], tmp_path: Path) -> None:
    """_check_record promises "a ValueError naming the field and the line"; a number or null as
    ``seats`` reaches ``len(rec["seats"])`` first (TypeError)."""
    rec = {**_lines(records["octi"])[0], "seats": seats}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    code, _out, err, tb = run_cli(["replay", str(path)])
    assert tb is None, tb
    assert code == 2 and "seats" in err and "line 1" in err


def test_fixed_record_return_too_large(records: dict[str, Path], tmp_path: Path) -> None:
    """A JSON integer return beyond a float (10**400) passes the "list of numbers" check and
    then raises OverflowError when the list is formatted."""
    rec = {**_lines(records["octi"])[0], "returns": ["BIG", 0.0]}
    line = json.dumps(rec).replace('"BIG"', "1" + "0" * 400)
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n")
    code, _out, err, tb = run_cli(["replay", str(path)])
    assert tb is None, tb
    assert code == 2 and "returns" in err


def test_fixed_record_overlong_integer_names_the_line(records: dict[str, Path], tmp_path: Path) -> None:
    """json's digit limit raises a plain ValueError, not JSONDecodeError: the message is
    Python's "Exceeds the limit (4300 digits)..." without the file and line load_records names
    for other JSON it cannot read."""
    rec = {**_lines(records["octi"])[0], "returns": ["BIG", 0.0]}
    line = json.dumps(rec).replace('"BIG"', "1" + "0" * 5000)
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n")
    code, _out, err, tb = run_cli(["replay", str(path)])
    assert tb is None and code == 2
    assert str(path) in err and "line 1" in err, err


def test_fixed_eval_huge_game_count() -> None:
    """``int_at_least(1)`` takes any int; 10**20 games then fail in ``list(range(games))`` with
    OverflowError. Either a usage error naming --games or a run, never a traceback."""
    argv = ["eval", "octi", "--players", "random", "heuristic", "--games", str(10**20), "--workers", "1"]
    code, _out, err, tb = run_cli(argv)
    assert tb is None, tb
    assert code == 2 and "--games" in err


def test_fixed_bench_games_given_empty() -> None:
    """``bench --games`` with no name is taken as "all games" (``if args.games``), though the
    command treats ``--games`` as given (``--learner`` refuses it): nothing is to be silently
    substituted, so an empty --games is a usage error naming --games."""
    code, out, err, _tb = run_cli(["bench", "--games", "--seconds", "0.0005"])
    assert code == 2 and "--games" in err, out[-300:]


def test_fixed_eval_json_and_records_same_file(tmp_path: Path) -> None:
    """``--json F --records F`` writes the summary, then the records over it, and says "wrote F"
    twice: the results asked for with --json are silently lost. Two outputs into one file is a
    usage error naming both options (checked before the games, as the paths are)."""
    same = str(tmp_path / "out")
    argv = ["eval", "octi", "--param", "max_turns=4", "--players", "random", "greedy", "--games", "1"]
    code, _out, err, _tb = run_cli([*argv, "--workers", "1", "--json", same, "--records", same])
    assert code == 2 and "--json" in err and "--records" in err
