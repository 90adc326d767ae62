"""What testers found in the training, evaluation and run tools: each test names the finding it
pins and what the old code did."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from envs.core.bots import RandomBot
from tests.training.toy_game import ToyGame
from training.callbacks import BaselineEvalCallback, CheckpointEvery
from training.config import TrainConfig, merge, save_config
from training.evaluate import format_table
from training.tournament import PairResult


# ------------------------------------------------------------------ the eval table's names
def _pair(a: str, b: str, **extra: Any) -> dict[str, Any]:
    pair = {"a": a, "b": b, "games": 4, "wins": 2, "draws": 0, "losses": 2, "win_rate": 0.5,
            "win_rate_ci95": [0.15, 0.85], "mean_placement": 1.5}  # fmt: skip
    return {**pair, **extra}


def _result(players: list[str], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    elo = {p: 1000.0 + 10 * i for i, p in enumerate(players)}
    return {"num_players": 2, "sides": 2, "players": players, "pairs": pairs, "elo": elo}


def test_long_names_of_two_runs_stay_apart_in_the_table_and_the_elo_line() -> None:
    """Two runs' checkpoints of one step count differ only in their folder, at the head of the
    name: the table and the Elo line keep the head and the tail (an ellipsis in the middle), so
    they read apart, and the columns stay in line. Old: ``...heckpoints/model_1024_steps.zip``
    for both (cut from the left), and a name longer than the ``vs`` column pushed the row out."""
    a = "runs/ra/checkpoints/model_1024_steps.zip"
    c = "runs/rc/checkpoints/model_1024_steps.zip"
    res = _result([a, c, "heuristic"], [_pair(a, c), _pair(a, "heuristic")])
    from training.evaluate import short_names

    lines = format_table(res).splitlines()
    shown = short_names([a, c, "heuristic"])
    assert shown[a] != shown[c] and len(shown[a]) <= 34 and "..." in shown[a]
    assert shown[a].startswith("runs/ra") and shown[c].startswith("runs/rc")
    assert shown[a].endswith("model_1024_steps.zip")
    assert shown[a] in lines[2] and shown[c] in lines[2] and shown[a] in lines[3]
    elo = lines[-1]
    assert shown[a] in elo and shown[c] in elo
    column = lines[0].index("games") + len("games")  # right-aligned: the numbers end under it
    assert all(line[column - 1] == "4" and line[column] == " " for line in lines[2:4])


def test_names_alike_but_for_the_middle_are_widened_or_shown_whole() -> None:
    """Names that the middle ellipsis would make one are widened until they differ, and shown
    whole when no shorter form tells them apart."""
    from training.evaluate import short_names

    a = "x" * 20 + "A" + "y" * 30
    b = "x" * 20 + "B" + "y" * 30
    shown = short_names([a, b])
    assert shown[a] != shown[b]
    assert short_names(["short", "names"]) == {"short": "short", "names": "names"}
    assert len(set(short_names([a, b], width=10).values())) == 2
    assert short_names(["abc...xyz", "abc" + "m" * 40 + "xyz"], width=9)["abc...xyz"] == "abc...xyz"


# ------------------------------------------------------------------ games cut off
def test_the_note_says_how_games_cut_off_at_the_step_limit_were_counted() -> None:
    """A cut-off game counts by the returns the game pays there, which in Over and Out with
    3+ players are no draw where a seat was knocked out (its placement, or -1 under
    winner_only): the pair's summary counts the cut-off wins,
    draws and losses and the note under the table names them. Old: "counted as draws
    (returns 0)" beside a table that counted them as wins and losses."""
    res = PairResult("random", "greedy")
    for result, cut in (("loss", True), ("draw", True), ("loss", True), ("win", False)):
        res.add(result, 2.0, 0.0, cut)
    other = PairResult("random", "greedy")
    other.add("win", 1.0, 1.0, True)
    res.merge(other)
    summary = res.summary()
    assert summary["truncated"] == 4
    assert summary["truncated_results"] == {"wins": 1, "draws": 1, "losses": 2}
    table = format_table(_result(["random", "greedy"], [summary]))
    assert (
        "cut off at the step limit, counted by the returns the game pays there: "
        "4 of 5 (random vs greedy: 1 win, 1 draw, 2 losses)" in table
    )
    assert "counted as draws" not in table
    old = {k: v for k, v in summary.items() if k != "truncated_results"}  # a result file of before
    assert "4 of 5 (random vs greedy)" in format_table(_result(["random", "greedy"], [old]))


def test_a_four_player_over_and_out_tournament_counts_cut_off_games_as_it_scores_them() -> None:
    """The testers' case, smaller: 4-player Over and Out cut off at 110 plays. The cut-off games
    the table counts as losses are named as losses."""
    from envs.core.registry import GAMES
    from envs.over_and_out.game import OverAndOutGame
    from training.players import game_bots, make_player
    from training.tournament import play_pairing

    game = OverAndOutGame(num_players=4, max_plays=110)
    bots = game_bots(GAMES["over_and_out"])
    a, b = (make_player(game, s, bots) for s in ("random", "greedy"))
    summary = play_pairing(game, a, b, ("random", "greedy"), range(4)).summary()
    cut = summary["truncated_results"]
    assert sum(cut.values()) == summary["truncated"] > 0
    assert cut["losses"] > 0  # counted as losses, not draws


# ------------------------------------------------------------------ the periodic evaluation
class _Model:
    def __init__(self, steps: int) -> None:
        self.num_timesteps = steps
        self.saved: list[str] = []

    def save(self, path: Any) -> None:
        self.saved.append(str(path))
        Path(path).write_bytes(b"")


def _drive(callback: Any, model: _Model, until: int, n_envs: int) -> None:
    callback.init_callback(model)
    callback.on_training_start({}, {})
    while model.num_timesteps < until:
        model.num_timesteps += n_envs
        callback.on_step()


@pytest.mark.parametrize(
    ("start", "until", "want"),
    [(0, 4200, [2049, 4098]), (2048, 6200, [4097, 6146]), (1000, 3100, [2050])],
)
def test_checkpoints_come_at_the_first_step_past_each_multiple_of_the_run(
    tmp_path: Path, start: int, until: int, want: list[int]
) -> None:
    """``checkpoint_every: 2048`` on 3 envs: a checkpoint at the first step at or past each
    multiple of 2048 of the run's total steps, a resumed part (at 2048, or at 1000) on the same
    grid. Old: every ``2048 // 3`` calls of the current ``learn()``, so 2046, 4092 in a fresh run
    and 4094, 6140 after a resume at 2048: ``model_3071_steps.zip`` in the testers' run."""
    cb = CheckpointEvery(2048, tmp_path)
    model = _Model(start)
    _drive(cb, model, until, n_envs=3)
    got = sorted(int(p.name.split("_")[1]) for p in tmp_path.glob("model_*_steps.zip"))
    assert got == want


def test_evaluations_come_at_the_first_step_past_each_multiple_of_the_run(tmp_path: Path) -> None:
    """``eval_every: 2048`` on 3 envs, resumed at 1000: evaluations at 2050 and 4096, the first
    steps at or past 2048 and 4096. Old: 2048 steps after the resume's start, then 2048 after the
    last one: 3049, then 5098 (the testers' ``[eval @ 3,074 steps]``)."""
    cb = BaselineEvalCallback(ToyGame(num_players=2), {"random": RandomBot}, ["random"], 2048, 2, tmp_path)
    seen: list[int] = []
    cb.evaluate = lambda: seen.append(cb.num_timesteps)  # type: ignore[method-assign,assignment,return-value]
    _drive(cb, _Model(1000), 4200, n_envs=3)
    assert seen == [2050, 4096]


class _Cut:
    def summary(self) -> dict[str, Any]:
        return {"games": 4, "wins": 1, "draws": 3, "losses": 0, "truncated": 3, "win_rate": 0.25,
                "win_rate_ci95": [0.05, 0.7], "score": 0.625, "mean_placement": 1.4}  # fmt: skip


def test_an_evaluation_row_counts_draws_and_games_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each baseline's ``eval.jsonl`` entry holds ``draws`` and ``truncated`` (as
    ``final_eval.json`` does) and the printed line says how many games were cut off. Old:
    neither, so an Octi run whose games hit ``max_turns`` read as one of close draws."""
    import training.callbacks as cb_module

    class _Policy:
        def set_training_mode(self, mode: bool) -> None:
            pass

    monkeypatch.setattr(cb_module, "play_pairing", lambda *a, **k: _Cut())
    monkeypatch.setattr(cb_module, "PolicyPlayer", lambda *a, **k: None)
    cb = BaselineEvalCallback(ToyGame(num_players=2), {"random": RandomBot}, ["random"], 8, 4, tmp_path)
    model = _Model(64)
    model.policy = _Policy()  # type: ignore[attr-defined]
    model.logger = type("L", (), {"record": lambda *a, **k: None})()  # type: ignore[attr-defined]
    cb.init_callback(model)  # type: ignore[arg-type]
    cb.evaluate()
    row = json.loads((tmp_path / "eval.jsonl").read_text())
    assert (row["random"]["draws"], row["random"]["truncated"]) == (3, 3)
    assert "win rate vs random: 0.25; cut off at the step limit: random 3/4" in capsys.readouterr().out


def test_old_evaluation_rows_are_still_drawn(tmp_path: Path) -> None:
    """Rows written before ``draws`` and ``truncated`` still make the learning curve."""
    from training.plots import learning_curve

    row = {"timesteps": 64, "wall_s": 1.0, "random": {"games": 4, "win_rate": 0.5,
           "win_rate_ci95": [0.2, 0.8], "score": 0.5, "mean_placement": 1.5}}  # fmt: skip
    (tmp_path / "eval.jsonl").write_text(json.dumps(row) + "\n")
    assert learning_curve(tmp_path, tmp_path / "c.png").is_file()


# ------------------------------------------------------------------ rollback by the save's time
def _zip(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps(data))


def test_a_copied_run_sets_aside_the_episodes_after_the_model_by_its_recorded_time(tmp_path: Path) -> None:
    """``cp -r`` gives the checkpoint a new file time, later than every episode: the episodes
    logged after the model are still set aside, by the time of the save the model file records
    (``save_model``). Old: by the file's time, so none was set aside and the curve counted the
    stretch twice."""
    from training.callbacks import SAVED_AT
    from training.train import rollback_run

    t_start = 1_700_000_000.0
    model = tmp_path / "checkpoints" / "model_512_steps.zip"
    _zip(model, {"num_timesteps": 512, SAVED_AT: t_start + 100})
    os.utime(model, (t_start + 10_000, t_start + 10_000))  # the copy's time
    (tmp_path / "monitor").mkdir()
    header = ["#" + json.dumps({"t_start": t_start, "env_id": None}), "r,l,t,outcome,placement,return"]
    (tmp_path / "monitor" / "0.monitor.csv").write_text(
        "\n".join([*header, "1,10,50.0,win,1,1", "-1,12,150.0,loss,2,-1"]) + "\n"
    )
    assert rollback_run(tmp_path, 512, model)["episodes"] == 1
    assert (tmp_path / "monitor" / "0.monitor.csv").read_text().splitlines()[2:] == ["1,10,50.0,win,1,1"]


def test_a_model_saved_by_the_run_records_the_time_of_the_save(tmp_path: Path) -> None:
    """A real MaskablePPO model saved by ``save_model`` holds the time in its ``data``, which
    ``saved_time`` reads back; a file without it is dated by its file time, as before."""
    import time

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.callbacks import save_model
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv
    from training.train import saved_time

    game = ToyGame(num_players=2)
    env = SingleAgentEnv(game, OpponentPool.from_specs(game, ["random"], {"random": RandomBot}))
    ppo = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: env]), n_steps=8, batch_size=8,
                      policy_kwargs={"net_arch": [4]}, device="cpu")  # fmt: skip
    before = time.time()
    path = save_model(ppo, tmp_path / "m.zip")
    os.utime(path, (1.0, 1.0))
    assert before <= saved_time(path) <= time.time()
    _zip(tmp_path / "old.zip", {"num_timesteps": 8})
    os.utime(tmp_path / "old.zip", (123.0, 123.0))
    assert saved_time(tmp_path / "old.zip") == 123.0


# ------------------------------------------------------------------ train's options
def _resolve(*argv: str) -> TrainConfig:
    from training.cli import build_parser
    from training.train import resolve_config

    return resolve_config(build_parser().parse_args(["train", *argv]))


def test_a_resume_refuses_a_new_seed_and_takes_the_same_one(tmp_path: Path) -> None:
    """``--resume --seed 5`` (or ``--set seed=5``) on a run begun at seed 0 is refused by name;
    ``--seed 0`` passes the seed check. Old: taken silently and written into ``config.yaml``,
    which then no longer described the run."""
    out = tmp_path / "run"
    save_config(TrainConfig(env="over_and_out", out=str(out), seed=0, params={"num_players": 2}), out)
    base = ["over_and_out", "--out", str(out), "--resume", "--timesteps", "4096"]
    for extra in (["--seed", "5"], ["--set", "seed=5"]):
        with pytest.raises(ValueError, match=r"--resume: seed cannot change \(the run began with seed 0"):
            _resolve(*base, *extra)
    with pytest.raises(ValueError, match="no model in"):  # past the seed check: no model saved here
        _resolve(*base, "--seed", "0")


def test_a_partner_for_a_game_without_a_partner_seat_is_refused() -> None:
    """``--set partner=heuristic`` on 2-player Over and Out is refused, naming the option (the
    single-agent view refuses it too). A config file's partner stays for its 2v2 runs: OTTO Game
    Over's config names ``partner: self`` and trains its 2-player game. Old: trained without a word."""
    with pytest.raises(ValueError, match=r"--set partner='heuristic': partner is for 2v2 games only"):
        _resolve("over_and_out", "--param", "num_players=2", "--set", "partner=heuristic")
    assert _resolve("otto_game_over").partner == "self"
    cfg = _resolve(
        "otto_game_over", "--param", "num_players=4", "--param", "teams=true", "--set", "partner=random"
    )
    assert cfg.partner == "random"


def test_eval_opponents_read_a_comma_list_as_opponents_do() -> None:
    """``--set eval_opponents=random,heuristic`` is the list of both (``mcts:sims=5,c=0.5`` kept
    whole, as in ``opponents``). Old: refused (a string is no list)."""
    cfg = _resolve("over_and_out", "--set", "eval_opponents=random,mcts:sims=5,c=0.5")
    assert cfg.eval_opponents == ["random", "mcts:sims=5,c=0.5"]
    with pytest.raises(ValueError, match=r"eval_opponents: no bot or model 'runs/a' .*a comma separates"):
        merge(TrainConfig(), {"eval_opponents": "random,runs/a"}, "test")


def test_shaping_on_over_and_out_is_used() -> None:
    """Over and Out has an ``evaluate``: ``shaping`` acts there (not a silently ignored option)."""
    from training.train import build_single_env

    cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, shaping=1.0)
    env, _game, _bots = build_single_env(cfg.to_dict())
    assert env.shaping == 1.0 and env._evaluate is not None


def test_a_2v2_run_names_its_partner(tmp_path: Path) -> None:
    """The start line and ``train_summary.json`` name who plays the partner seat. Old: neither
    (only ``config.yaml`` did)."""
    from envs.core.registry import get_game
    from training.train import partner_of, write_summary

    two_v_two = {"num_players": 4, "teams": True}
    game = get_game("otto_game_over").game_class()(**two_v_two)
    cfg = TrainConfig(env="otto_game_over", params=two_v_two, partner="self")
    assert partner_of(cfg, game) == "self"
    assert partner_of(TrainConfig(env="otto_game_over", params=two_v_two), game) == "drawn from the opponents"
    assert partner_of(cfg, get_game("otto_game_over").game_class()(num_players=2)) is None
    write_summary(cfg, tmp_path, 64, 64, 1.0, partner="self")
    assert json.loads((tmp_path / "train_summary.json").read_text())["partner"] == "self"
    write_summary(TrainConfig(), tmp_path, 64, 64, 1.0)
    assert "partner" not in json.loads((tmp_path / "train_summary.json").read_text())


def test_the_final_evaluation_says_seats_rotated_for_more_than_two_seats(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """3-player Over and Out: "seats rotated", as the JSON says; 2 players: "seats swapped".
    Old: "seats swapped" for any number of seats."""
    import training.evaluate as ev

    class _Stop(Exception):
        pass

    def stop(*a: Any, **k: Any) -> None:
        raise _Stop

    monkeypatch.setattr(ev, "run_tournament", stop)
    for n, words in ((3, "seats rotated"), (2, "seats swapped")):
        cfg = TrainConfig(env="over_and_out", params={"num_players": n}, final_eval_games=6)
        with pytest.raises(_Stop):
            ev.evaluate_model_vs_baselines(cfg, tmp_path / "model.zip", tmp_path)
        assert f"6 games each, {words}" in capsys.readouterr().out


def test_a_solo_game_with_a_partner_says_1_player() -> None:
    """The refusal of a partner in a solo game reads "1 player". Old: "1 players"."""
    import gymnasium

    import envs  # noqa: F401 - registers the ids

    with pytest.raises(ValueError, match=r"this otto_game_over game \(1 player\) has no partner seat"):
        gymnasium.make("eightfold/otto_game_over-single-v0", num_players=1, partner="greedy")


def test_a_resume_may_leave_the_game_out_and_reads_the_runs(tmp_path: Path) -> None:
    """``eightfold train --resume --out DIR`` reads the game (and its parameters) from the
    run's ``config.yaml``; without ``--resume --out`` the game must be named, and a folder
    with no run is named as such. Old: argparse's "the following arguments are required: env"."""
    out = tmp_path / "run"
    save_config(TrainConfig(env="octi", out=str(out), seed=0, params={"variant": "x_fast"}), out)
    with pytest.raises(ValueError, match="no model in"):  # past the game: no model saved here
        _resolve("--out", str(out), "--resume", "--timesteps", "4096")
    with pytest.raises(ValueError, match="no model in"):  # the game named: the same
        _resolve("octi", "--out", str(out), "--resume", "--timesteps", "4096")
    for argv in (("--timesteps", "5"), ("--out", str(out)), ("--resume",)):
        with pytest.raises(
            ValueError, match=r"^name the game to train \(eightfold train <game>, one of octi, "
        ):
            _resolve(*argv)
    with pytest.raises(ValueError, match=r"no run to continue in .*drop --resume and name the game"):
        _resolve("--resume", "--out", str(tmp_path / "none"))
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "config.yaml").write_text("seed: 0\n")
    with pytest.raises(ValueError, match=r"no game named \(env\); name it: eightfold train <game> --resume"):
        _resolve("--resume", "--out", str(tmp_path / "bare"))


def test_a_resume_without_the_game_continues_the_run(tmp_path: Path) -> None:
    """The whole command, as a user types it after a run: ``train --resume --out DIR``."""
    from training.cli import main
    from training.train import model_steps

    out = tmp_path / "run"
    tiny = ["--set", "n_envs=1", "--set", "n_steps=64", "--set", "batch_size=64", "--set", "eval_every=0"]
    argv = ["train", "over_and_out", "--param", "num_players=2", "--timesteps", "64", *tiny, "--no-progress"]
    assert main([*argv, "--out", str(out)]) == 0
    assert main(["train", "--resume", "--out", str(out), "--timesteps", "128", "--no-progress"]) == 0
    assert model_steps(out / "model.zip") == 128
