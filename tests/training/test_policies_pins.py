"""Pins a mutation round of ``training/policies.py`` and ``training/callbacks.py`` found
unguarded: what the periodic evaluation writes (the ``eval.jsonl`` row, the TensorBoard
scalars, the printed line and its wall time), when a resumed run evaluates first, which earlier
rows set the best score a resume must beat, the note on a cut-short snapshot, and what
``MaskedPolicy`` does with the optimiser it is given, a wrong action space, the support
threshold and the run's network line. Each test failed under at least one planted mutant that
the earlier tests let pass."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from gymnasium import spaces

from envs.core.bots import RandomBot
from tests.training.toy_game import ToyGame
from training import callbacks as cb_module
from training.callbacks import BaselineEvalCallback, load_pool
from training.players import OpponentPool
from training.policies import (
    SUPPORT_MIN_ACTIONS,
    MaskedPolicy,
    SupportCategorical,
    describe,
    policy_class,
)
from training.single_agent import SingleAgentEnv


# ------------------------------------------------------------------- a real learner
def _model(steps: int) -> Any:
    """A real ``MaskablePPO`` on the two-player toy game, ``steps`` learner steps in, whose
    logger keeps what is recorded (``logger.name_to_value``) and prints nothing."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv

    game = ToyGame(num_players=2)
    pool = OpponentPool()
    pool.add("random", "random", RandomBot(game))
    vec = DummyVecEnv([lambda: SingleAgentEnv(game, pool)])
    model = MaskablePPO("MlpPolicy", vec, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")
    model.set_logger(configure(None, []))
    model.num_timesteps = steps
    return model


class _Clock:
    """``time`` for the callbacks module: ``time()`` reads ``now``."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


class _Summary:
    def __init__(self, win_rate: float, score: float) -> None:
        self.win_rate, self.score = win_rate, score

    def summary(self) -> dict[str, Any]:
        return {"games": 4, "win_rate": self.win_rate, "win_rate_ci95": [0.1, 0.9], "score": self.score,
                "mean_placement": 1.25, "draws": 1, "truncated": 0}  # fmt: skip


#: per baseline, the (win rate, score) the scripted pairings report: different numbers, so a
#: value logged under the wrong key shows
_RESULTS = {"a": (0.25, 0.375), "b": (0.75, 0.875)}


def _scripted(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Pairings that report ``_RESULTS``; the list it returns gets each pairing's game ids."""
    games: list[list[int]] = []

    def play(game: Any, me: Any, bot: Any, names: tuple[str, str], ids: Any, **k: Any) -> _Summary:
        games.append(list(ids))
        return _Summary(*_RESULTS[names[1]])

    monkeypatch.setattr(cb_module, "play_pairing", play)
    return games


def _drive(callback: Any, model: Any, until: int, n_envs: int = 2) -> None:
    """``learn()``'s calls: training start, then one ``on_step`` per vectorised env step."""
    callback.init_callback(model)
    callback.on_training_start({}, {})
    while model.num_timesteps < until:
        model.num_timesteps += n_envs
        callback.on_step()


# ------------------------------------------------------------------ periodic evaluation
def test_an_evaluation_writes_each_number_under_its_own_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One evaluation at 1,024 steps against ``a`` and ``b``: each baseline's win rate and
    score go to ``eval/win_rate_<bot>`` and ``eval/score_<bot>`` (not one under the other's
    name, not one key for all baselines), the ``eval.jsonl`` row keeps the summary fields the
    learning curve reads (the 95% interval included), the wall time counts from the training's
    start in seconds (not from the callback's construction), and the printed line shows the
    learner steps, those seconds and the win rates. Each baseline plays ``eval_games`` games
    (not one fewer), and ``best_model.json`` holds the mean score (not the mean win rate)."""
    games = _scripted(monkeypatch)
    clock = _Clock(100.0)
    monkeypatch.setattr(cb_module, "time", clock)
    game = ToyGame(num_players=2)
    cb = BaselineEvalCallback(game, {"a": RandomBot, "b": RandomBot}, ["a", "b"], 0, 4, tmp_path)
    model = _model(1024)
    cb.init_callback(model)
    clock.now = 200.0  # a warm start (or building the envs) took 100 s before PPO started
    cb.on_training_start({}, {})
    clock.now = 250.0
    row = cb.evaluate()
    assert games == [[0, 1, 2, 3], [0, 1, 2, 3]], "eval_games (4) games against each baseline"
    assert dict(model.logger.name_to_value) == {
        "eval/win_rate_a": 0.25, "eval/score_a": 0.375, "eval/win_rate_b": 0.75, "eval/score_b": 0.875,
    }  # fmt: skip
    [line] = (tmp_path / "eval.jsonl").read_text().splitlines()
    assert json.loads(line) == row
    assert row["timesteps"] == 1024 and row["wall_s"] == pytest.approx(50.0)
    for bot, (win_rate, score) in _RESULTS.items():
        assert row[bot] == {"games": 4, "win_rate": win_rate, "win_rate_ci95": [0.1, 0.9], "score": score,
                            "mean_placement": 1.25, "draws": 1, "truncated": 0}  # fmt: skip
    out = capsys.readouterr().out
    assert "[eval @ 1,024 steps, 50s] win rate vs a: 0.25  b: 0.75" in out
    # the best model is the best mean *score* (draws count half), not the best win rate
    assert json.loads((tmp_path / "best_model.json").read_text()) == {"timesteps": 1024, "score": 0.625}


def test_the_evaluation_line_is_flushed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The "[eval @ ...]" line is flushed as it is printed: with stdout a file or a pipe (a run
    under ``nohup``, ``tee``) it would otherwise show up only when the buffer fills."""
    _scripted(monkeypatch)
    printed: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(cb_module, "print", lambda *a, **k: printed.append((" ".join(a), k)), raising=False)
    cb = BaselineEvalCallback(ToyGame(num_players=2), {"a": RandomBot}, ["a"], 0, 4, tmp_path)
    cb.init_callback(_model(64))
    cb.on_training_start({}, {})
    cb.evaluate()
    [(line, kwargs)] = printed
    assert line.startswith("[eval @ 64 steps") and kwargs.get("flush") is True


def test_a_resumed_run_evaluates_on_the_grid_of_its_first_part(tmp_path: Path) -> None:
    """A run resumed at step 100 with ``eval_every: 8`` evaluates at 104 and 112, the multiples
    of 8 of the run's total steps (as its first part did), not at its first step (counted from
    0, 100 steps were "due") and not at 108 and 116 (``every`` steps after the resume: the grid
    drifted with each resume)."""
    game = ToyGame(num_players=2)
    cb = BaselineEvalCallback(game, {"random": RandomBot}, ["random"], 8, 2, tmp_path)
    seen: list[int] = []
    cb.evaluate = lambda: seen.append(cb.num_timesteps)  # type: ignore[method-assign,assignment,return-value]
    _drive(cb, _model(100), 116)
    assert seen == [104, 112]


def _row(steps: int, scores: dict[str, float]) -> str:
    cell = {"games": 4, "win_rate": 0.5, "win_rate_ci95": [0.15, 0.85], "mean_placement": 1.5}
    return json.dumps(
        {"timesteps": steps, "wall_s": 1.0, **{b: {**cell, "score": s} for b, s in scores.items()}}
    )


def _best(tmp_path: Path, lines: list[str], baselines: list[str]) -> float:
    (tmp_path / "eval.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "best_model.zip").write_bytes(b"kept")
    bots = dict.fromkeys(baselines, RandomBot)
    return BaselineEvalCallback(ToyGame(num_players=2), bots, baselines, 8, 2, tmp_path).best


def test_a_resume_beats_the_mean_of_rows_against_the_same_baselines_only(tmp_path: Path) -> None:
    """The best score a resumed run must beat to replace ``best_model.zip`` is the best *mean*
    over its baselines (not their sum) of rows against exactly those baselines: a row against
    more baselines (scored on another set) does not count, nor does one of fewer."""
    lines = [
        _row(100, {"a": 0.5, "b": 0.25}),  # mean 0.375
        _row(200, {"a": 1.0, "b": 1.0, "c": 0.0}),  # another baseline set
        _row(300, {"a": 1.0}),  # another baseline set
    ]
    assert _best(tmp_path, lines, ["a", "b"]) == pytest.approx(0.375)


def test_a_cut_line_in_the_log_hides_no_later_row(tmp_path: Path) -> None:
    """A line a kill cut short (the run then went on, appending below it) is passed over: the
    rows after it still count towards the best score."""
    lines = [_row(100, {"a": 0.25}), '{"timesteps": 2', _row(300, {"a": 0.75}), _row(400, {"a": 0.5})]
    assert _best(tmp_path, lines, ["a"]) == pytest.approx(0.75)


# ------------------------------------------------------------------- the snapshot pool
def test_a_cut_short_snapshot_is_named_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The note on a snapshot that is no whole zip goes to stderr (stdout may be a log the user
    parses) and names the file, so the user can find and remove it."""

    class Env:
        def env_method(self, *args: Any) -> None:
            pass

    with zipfile.ZipFile(tmp_path / "snap_000000000.zip", "w") as z:
        z.writestr("data", "{}")
    bad = tmp_path / "snap_000000128.zip"
    bad.write_bytes(b"PK\x03\x04 cut short")
    assert load_pool(Env(), tmp_path, ["self"], 5) == 1
    captured = capsys.readouterr()
    assert str(bad) in captured.err and "no whole model file" in captured.err
    assert captured.out == ""


# ---------------------------------------------------------------------- MaskedPolicy
_OBS = spaces.Box(0.0, 1.0, (6,), np.float32)


def test_the_optimiser_the_user_asks_for_is_kept() -> None:
    """The fused-Adam default applies only when nothing else is asked for: ``optimizer_kwargs``
    given are kept as they are (not replaced by ``eps=1e-5``), and another optimiser class
    gets none of Adam's keywords (SGD would fail on ``eps``)."""
    policy = MaskedPolicy(
        _OBS, spaces.Discrete(4), lambda _: 1e-3, net_arch=[8], optimizer_kwargs={"eps": 1e-3}
    )
    assert policy.optimizer.defaults["eps"] == 1e-3
    assert not policy.optimizer.defaults["fused"]
    sgd = MaskedPolicy(
        _OBS, spaces.Discrete(4), lambda _: 1e-3, net_arch=[8], optimizer_class=torch.optim.SGD
    )
    assert type(sgd.optimizer) is torch.optim.SGD and "eps" not in sgd.optimizer.defaults


def test_a_masked_policy_names_the_action_space_it_cannot_take() -> None:
    """``MaskedPolicy`` on a non-Discrete action space is a ``ValueError`` naming that space
    (not an ``AttributeError`` from deep inside the distribution)."""
    with pytest.raises(ValueError, match=r"MaskedPolicy needs a Discrete action space, got MultiDiscrete"):
        MaskedPolicy(_OBS, spaces.MultiDiscrete([2, 3]), lambda _: 1e-3, net_arch=[8])


def test_the_support_shortcut_starts_at_its_threshold() -> None:
    """From ``SUPPORT_MIN_ACTIONS`` actions on (that many included) the policy computes on the
    legal support, as documented."""
    policy = MaskedPolicy(_OBS, spaces.Discrete(SUPPORT_MIN_ACTIONS), lambda _: 1e-3, net_arch=[8])
    dist = policy.get_distribution(torch.zeros(2, 6)).distribution
    assert isinstance(dist, SupportCategorical)


def test_an_unknown_policy_name_is_repeated_in_the_error() -> None:
    """``policy_class`` names the value it got, not only the ones it accepts."""
    with pytest.raises(ValueError, match=r"policy must be one of \['masked', 'sb3'\], got 'fast'"):
        policy_class("fast")


def test_the_network_line_names_the_critic_of_a_cnn() -> None:
    """The run's "training ..." line names a critic of its own on board planes too."""
    assert (
        describe((3, 7, 6), [16], [8], [4]) == "CNN [8] over (3, 7, 6) planes + MLP heads [16] (critic [4])"
    )
    assert describe((3, 7, 6), [16], [8], [16]) == "CNN [8] over (3, 7, 6) planes + MLP heads [16]"
