"""A run directory's logs across resumes and reruns, and the plots drawn from them (defects a
user audit found on 2026-12-03: each test fails on the code before its fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.core.bots import RandomBot
from tests.training.toy_game import ToyGame
from training.callbacks import BaselineEvalCallback
from training.config import parse_opponents
from training.plots import learning_curve, short_names


def _row(steps: int, scores: dict[str, float]) -> str:
    cell = {"games": 4, "win_rate": 0.5, "win_rate_ci95": [0.15, 0.85], "mean_placement": 1.5}
    return json.dumps(
        {"timesteps": steps, "wall_s": 1.0, **{b: {**cell, "score": s} for b, s in scores.items()}}
    )


def test_a_resumed_run_keeps_its_best_score(tmp_path: Path) -> None:
    """The best mean score of earlier evaluations against the same baselines survives a
    resume, so a worse model does not replace ``best_model.zip`` (it started again at -1)."""
    lines = [_row(100, {"random": 0.75}), _row(200, {"random": 0.25}), _row(300, {"greedy": 1.0})]
    (tmp_path / "eval.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "best_model.zip").write_text("x")
    game = ToyGame(num_players=2)
    cb = BaselineEvalCallback(game, {"random": RandomBot}, ["random"], 100, 2, tmp_path)
    assert cb.best == 0.75  # the row against another baseline set does not count
    (tmp_path / "best_model.zip").unlink()  # no best model kept: the next evaluation saves one
    assert BaselineEvalCallback(game, {"random": RandomBot}, ["random"], 100, 2, tmp_path).best == -1.0


def test_learning_curve_with_baselines_changed_on_resume(tmp_path: Path) -> None:
    """A resume with other ``eval_opponents``: the plot drew only the first row's baselines
    and failed with KeyError on a row without one (after the training had finished)."""
    lines = [
        _row(100, {"random": 0.5, "greedy": 0.5}),
        _row(200, {"greedy": 0.75}),
        _row(300, {"heuristic": 1}),
    ]
    (tmp_path / "eval.jsonl").write_text("\n".join(lines) + "\n")
    out = learning_curve(tmp_path, tmp_path / "c.png")
    assert out.stat().st_size > 1000


def test_tournament_labels_tell_two_models_apart() -> None:
    names = ["runs/a/model.zip", "runs/b/model.zip", "random", "x/best_model.zip", "mcts:sims=5"]
    short = short_names(names)
    assert short["runs/a/model.zip"] == "a/model.zip" and short["runs/b/model.zip"] == "b/model.zip"
    assert short["random"] == "random" and short["mcts:sims=5"] == "mcts:sims=5"
    assert len(set(short.values())) == len(names)
    assert short_names(["r/model.zip", "random"]) == {"r/model.zip": "model.zip", "random": "random"}


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("random,mcts:sims=50,c=0.5", ["random", "mcts:sims=50,c=0.5"]),
        ("mcts:sims=5,c=0.5,depth=0,heuristic", ["mcts:sims=5,c=0.5,depth=0", "heuristic"]),
        ("random, heuristic ,self", ["random", "heuristic", "self"]),
        ("runs/a/model.zip,mcts:sims=3", ["runs/a/model.zip", "mcts:sims=3"]),
    ],
)
def test_opponents_comma_list_keeps_a_specs_parameters(text: str, specs: list[str]) -> None:
    """``--opponents random,mcts:sims=50,c=0.5`` split ``c=0.5`` off as a bot of its own."""
    assert list(parse_opponents(text)) == specs
