"""Training callbacks: self-play snapshots and periodic evaluation against the baselines."""

from __future__ import annotations

import json
import sys
import time
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from envs.core.files import append_line, replacing, write_text
from envs.core.game import Game
from training.players import PolicyPlayer, make_player
from training.tournament import play_pairing

BEST_MODEL_INFO = "best_model.json"
"""The steps and mean score of the evaluation ``best_model.zip`` comes from."""

EVAL_ROW_KEYS = ("games", "win_rate", "win_rate_ci95", "score", "mean_placement", "draws", "truncated")
"""What an ``eval.jsonl`` row keeps of each baseline's pairing (rows written before ``draws``
and ``truncated`` were kept lack those two; their readers take the others)."""

SAVED_AT = "eightfold_saved_at"
"""The model attribute :func:`save_model` sets to the time of the save (``time.time()``): SB3
saves it in the zip's ``data`` with the model's other attributes, so the run's own clock says
when a model was saved however the file was copied since (``--resume`` sets aside the episodes
logged after it: ``training.train.rollback_run``)."""


def save_model(model: Any, path: Path) -> Path:
    """``model.save(path)`` in one step: written to a hidden file beside it, then renamed, so a
    kill or a Ctrl-C while sb3 writes leaves the earlier file (or none), never a cut-short one.
    The file records the time of the save (:data:`SAVED_AT`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    setattr(model, SAVED_AT, time.time())
    with replacing(path) as tmp:
        model.save(tmp)
    return path


class CheckpointEvery(BaseCallback):
    """Save the model to ``<folder>/model_<steps>_steps.zip`` (sb3's ``CheckpointCallback``
    names, written in one step by :func:`save_model`) at the first env step at or past each
    multiple of ``every`` learner steps, counted in the run's total steps (a resumed run keeps
    the grid of its first part; with ``n_envs`` envs a step adds ``n_envs``, so a checkpoint may
    come up to ``n_envs - 1`` steps past the multiple, and its name says where)."""

    def __init__(self, every: int, folder: Path) -> None:
        super().__init__()
        self.every = every
        self.folder = folder
        self._mark = 0  # the multiples of ``every`` passed so far

    def _on_training_start(self) -> None:
        self._mark = self.num_timesteps // self.every

    def _on_step(self) -> bool:
        if self.num_timesteps // self.every > self._mark:
            self._mark = self.num_timesteps // self.every
            save_model(self.model, self.folder / f"model_{self.num_timesteps}_steps.zip")
        return True


class StopWhenAsked(BaseCallback):
    """Ends ``learn()`` at the next env step once ``interrupt.requested`` (a first Ctrl-C,
    :class:`training.interrupt.GracefulInterrupt`)."""

    def __init__(self, interrupt: Any) -> None:
        super().__init__()
        self.interrupt = interrupt

    def _on_step(self) -> bool:
        return not self.interrupt.requested


class SelfPlayCallback(BaseCallback):
    """Every ``every`` steps, freeze the current policy into ``pool_dir`` and hand it to
    every env's opponent pool (``add_policy_opponent``), so opponents are drawn per episode
    from a pool of past selves. A snapshot is also taken when training starts, so the
    ``self`` group is never empty. ``groups``: the pool groups to add to (``self``, and
    ``partner`` when a 2v2 partner is played by the learner's past selves)."""

    def __init__(self, pool_dir: Path, every: int, groups: Sequence[str] = ("self",)) -> None:
        super().__init__()
        self.pool_dir = pool_dir
        self.every = every
        self.groups = tuple(groups)
        self._last = 0

    def _snapshot(self) -> None:
        self.pool_dir.mkdir(parents=True, exist_ok=True)
        path = save_model(self.model, self.pool_dir / f"snap_{self.num_timesteps:09d}.zip")
        for group in self.groups:
            self.training_env.env_method("add_policy_opponent", str(path), group)
        self._last = self.num_timesteps

    def _on_training_start(self) -> None:
        if not list(self.pool_dir.glob("snap_*.zip")):
            self._snapshot()
        self._last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self._snapshot()
        return True


def _snapshot_step(path: Path) -> tuple[int, str]:
    """``snap_<steps>.zip`` in step order (the names' 9 digits grow past a billion steps)."""
    digits = path.stem.removeprefix("snap_")
    return (int(digits) if digits.isdigit() else -1, path.name)


def load_pool(env: Any, pool_dir: Path, groups: Sequence[str], keep: int) -> int:
    """On ``--resume``: give the envs the newest ``keep`` snapshots again (a file that is no
    whole zip, cut short by a kill in a run before snapshots were written in one step, is
    passed over with a note)."""
    snaps = []
    for path in sorted(pool_dir.glob("snap_*.zip"), key=_snapshot_step):
        if zipfile.is_zipfile(path):
            snaps.append(path)
        else:
            print(
                f"note: {path} is no whole model file (cut short by a kill?): left out of the pool",
                file=sys.stderr,
            )
    snaps = snaps[-keep:]
    for path in snaps:
        for group in groups:
            env.env_method("add_policy_opponent", str(path), group)
    return len(snaps)


class BaselineEvalCallback(BaseCallback):
    """At the first env step at or past each multiple of ``every`` learner steps (counted in the
    run's total steps, so a resumed run keeps the grid; it may come up to ``n_envs - 1`` steps
    past the multiple), play ``games`` games against each baseline with the current policy
    (greedy action: ``deterministic``), the agent's seat rotating (:func:`play_pairing`); log
    ``eval/win_rate_<bot>`` and ``eval/score_<bot>`` to TensorBoard, append a line to
    ``eval.jsonl`` (per baseline: games, win rate and its interval, score, mean placement, draws
    and games cut off at the step limit, ``truncated``) and save ``best_model.zip`` when the
    mean score over the baselines improves. ``at_start``: also evaluate the policy PPO starts
    from (after a behaviour-cloning warm start), so ``best_model.zip`` may be that policy."""

    def __init__(
        self,
        game: Game[Any, Any],
        bots: Mapping[str, Any],
        baselines: Sequence[str],
        every: int,
        games: int,
        out_dir: Path,
        seed: int = 0,
        deterministic: bool = True,
        at_start: bool = False,
    ) -> None:
        super().__init__()
        self.at_start = at_start  # also evaluate the starting policy (a pretrained one)
        self.game = game
        self.opponents = {spec: make_player(game, spec, bots) for spec in baselines}
        self.every = every
        self.games = games
        self.out_dir = out_dir
        self.seed = seed
        self.deterministic = deterministic
        self.best = self._best_so_far()  # a resumed run keeps its best_model.zip unless beaten
        self._mark = 0  # the multiples of ``every`` passed so far
        self._start = time.time()

    def _best_so_far(self) -> float:
        """The best mean score of the run's earlier evaluations against these same baselines
        (``eval.jsonl``, written before a ``--resume``); -1 when there are none."""
        path = self.out_dir / "eval.jsonl"
        best = -1.0
        if not path.exists() or not (self.out_dir / "best_model.zip").exists():
            return best
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and {k for k, v in row.items() if isinstance(v, dict)} == set(
                self.opponents
            ):
                best = max(best, sum(row[s]["score"] for s in self.opponents) / max(1, len(self.opponents)))
        return best

    def _on_training_start(self) -> None:
        self._mark = self.num_timesteps // self.every if self.every > 0 else 0
        self._start = time.time()
        if self.at_start:
            self.evaluate()

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps // self.every > self._mark:
            self._mark = self.num_timesteps // self.every
            self.evaluate()
        return True

    def evaluate(self) -> dict[str, Any]:
        me = PolicyPlayer(self.model.policy, self.game, deterministic=self.deterministic, name="agent")
        row: dict[str, Any] = {"timesteps": int(self.num_timesteps), "wall_s": time.time() - self._start}
        scores = []
        for spec, bot in self.opponents.items():
            res = play_pairing(self.game, me, bot, ("agent", spec), range(self.games), seed=self.seed)
            summary = res.summary()
            row[spec] = {k: summary[k] for k in EVAL_ROW_KEYS}
            self.logger.record(f"eval/win_rate_{spec}", summary["win_rate"])
            self.logger.record(f"eval/score_{spec}", summary["score"])
            scores.append(summary["score"])
        self.model.policy.set_training_mode(False)
        append_line(self.out_dir / "eval.jsonl", json.dumps(row))
        text = "  ".join(f"{s}: {row[s]['win_rate']:.2f}" for s in self.opponents)
        cut = [f"{s} {row[s]['truncated']}/{row[s]['games']}" for s in self.opponents if row[s]["truncated"]]
        text += f"; cut off at the step limit: {', '.join(cut)}" if cut else ""
        print(f"[eval @ {self.num_timesteps:,} steps, {row['wall_s']:.0f}s] win rate vs {text}", flush=True)
        mean = sum(scores) / max(1, len(scores))
        if mean > self.best:
            self.best = mean
            save_model(self.model, self.out_dir / "best_model.zip")
            # which evaluation it is (a resume from an earlier checkpoint sets a later one aside)
            write_text(
                self.out_dir / BEST_MODEL_INFO, json.dumps({"timesteps": row["timesteps"], "score": mean})
            )
        return row
