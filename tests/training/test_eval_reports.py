"""What ``eval`` and ``replay --dataset`` report, after a reader used them as a researcher
would: a tournament's JSON keeps how it ran, games cut off at the step limit are counted, the
same model named by two paths is one player, ``--stochastic`` without a model has no effect,
an SB3 run's folder is named as a folder, and a dataset counts the games that gave rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.training.test_cli_fuzz import _env_of, run_cli


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as an SB3 run: an untrained Over and Out (2 players) ``model.zip``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    d = tmp_path_factory.mktemp("run")
    kw: dict[str, Any] = {"policy_kwargs": {"net_arch": [8]}, "seed": 0, "n_steps": 64, "batch_size": 32}
    MaskablePPO("MlpPolicy", DummyVecEnv([lambda: _env_of("over_and_out", num_players=2)]), **kw).save(
        d / "model.zip"
    )
    return d


def _eval(*argv: str) -> tuple[int | str, str, str]:
    code, out, err, tb = run_cli(["eval", *argv])
    assert tb is None, tb
    return code, out, err


def test_the_json_keeps_how_the_tournament_ran(tmp_path: Path) -> None:
    """``seed``, ``mode`` and ``stochastic`` are in the JSON (a result file is reproducible from
    itself). Old: none of the three was written."""
    out = tmp_path / "r.json"
    code, _out, err = _eval("octi", "--players", "heuristic", "random", "--games", "2", "--workers", "1",
                            "--seed", "7", "--mode", "all", "--json", str(out))  # fmt: skip
    assert code == 0, err
    res = json.loads(out.read_text())
    assert (res["seed"], res["mode"], res["stochastic"]) == (7, "all", False)


def test_games_cut_off_at_the_step_limit_are_counted() -> None:
    """A game cut off at its step limit is counted by the returns the game pays there (0 here, a
    draw): the table says how many there were and how it counted them, and the JSON's pair holds
    ``truncated``. Old: four draws, no word that no game was finished."""
    code, out, err = _eval("over_and_out", "--param", "max_plays=1", "--players", "heuristic", "random",
                           "--games", "4", "--workers", "1")  # fmt: skip
    assert code == 0, err
    assert (
        "cut off at the step limit, counted by the returns the game pays there: 4 of 4 "
        "(heuristic vs random: 4 draws)" in out
    )
    code, out, err = _eval("octi", "--players", "heuristic", "random", "--games", "2", "--workers", "1")
    assert code == 0 and "cut off" not in out, (out, err)


def test_the_pair_summary_counts_truncated_games() -> None:
    from envs.core.registry import GAMES
    from envs.over_and_out.game import OverAndOutGame
    from training.players import game_bots, make_player
    from training.tournament import play_pairing

    game = OverAndOutGame(num_players=2, max_plays=1)
    bots = game_bots(GAMES["over_and_out"])
    a, b = (make_player(game, s, bots) for s in ("heuristic", "random"))
    summary = play_pairing(game, a, b, ("heuristic", "random"), range(3)).summary()
    assert summary["truncated"] == summary["draws"] == 3
    long = play_pairing(OverAndOutGame(num_players=2), a, b, ("heuristic", "random"), range(3)).summary()
    assert long["truncated"] == 0
    merged = play_pairing(game, a, b, ("heuristic", "random"), [0, 1])  # eval --workers merges chunks
    merged.merge(play_pairing(game, a, b, ("heuristic", "random"), [2]))
    assert merged.summary() == summary


def test_one_model_named_by_two_paths_is_one_player(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``run/model.zip`` and ``./run/model.zip`` name one file: it would play itself, rated as two
    players. Old: the tournament ran."""
    monkeypatch.chdir(run_dir.parent)
    first, second = f"{run_dir.name}/model.zip", f"./{run_dir.name}/model.zip"
    code, _out, err = _eval(
        "over_and_out", "--param", "num_players=2", "--players", first, second, "--games", "2"
    )
    assert code == 2 and f"players must be distinct: {first!r} and {second!r} name the same file" in err


def test_stochastic_without_a_model_has_no_effect(run_dir: Path) -> None:
    """``--stochastic`` makes models sample; among bots alone it would change nothing. Old:
    accepted without a word."""
    code, _out, err = _eval("octi", "--players", "heuristic", "random", "--stochastic", "--games", "2")
    assert code == 2 and "--stochastic has no effect: no saved model or RLlib run among the players" in err
    code, _out, err = _eval("over_and_out", "--param", "num_players=2", "--players", str(run_dir / "model.zip"), "random", "--stochastic", "--games", "2",
                            "--workers", "1")  # fmt: skip
    assert code == 0, err


def test_an_sb3_run_folder_is_named_as_a_folder(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's folder given for its model (``runs/x``), with or without a slash: named as a
    folder with its ``model.zip``. Old: ``unknown bot 'run'; available: [...]``. A folder that
    shares a bot's name does not hide the bot."""
    monkeypatch.chdir(run_dir.parent)
    for spec in (run_dir.name, run_dir.name + "/"):
        code, _out, err = _eval(
            "over_and_out", "--param", "num_players=2", "--players", spec, "random", "--games", "2"
        )
        model = str(Path(spec) / "model.zip")
        assert code == 2 and f"{spec!r} is a folder: its model is {model!r})" in err, err
    (run_dir.parent / "random").mkdir(exist_ok=True)
    code, _out, err = _eval("octi", "--players", "heuristic", "random", "--games", "2", "--workers", "1")
    assert code == 0, err


def test_a_dataset_counts_the_games_that_gave_rows_and_is_an_npz(tmp_path: Path) -> None:
    """With ``--player`` a game where that player did not sit gives no row: the message counts
    the games in the file. ``--dataset`` must end in ``.npz`` (it writes one). Old: the games
    chosen were counted, and ``x.csv`` was written as an npz."""
    import numpy as np

    records = tmp_path / "r.jsonl"
    code, _out, err = _eval("over_and_out", "--param", "num_players=3", "--players", "heuristic", "greedy", "random",
                            "--mode", "all", "--games", "3", "--workers", "1", "--records", str(records))  # fmt: skip
    assert code == 0, err
    data = tmp_path / "d.npz"
    code, out, err, tb = run_cli(["replay", str(records), "--dataset", str(data), "--player", "random"])
    assert tb is None and code == 0, err
    with np.load(data) as arrays:
        games = len(np.unique(arrays["games"]))
    total = len(records.read_text().splitlines())
    assert games < total and f"decisions of random from {games} game(s)" in out
    code, out, err, tb = run_cli(["replay", str(records), "--dataset", str(tmp_path / "d.csv")])
    assert code == 2 and "--dataset writes a NumPy .npz archive: give a file name ending in .npz" in err
