"""Pins of ``training/evaluate.py`` and ``training/plots.py`` (``eightfold eval``) that a
second mutation round found loose: the command's documented defaults, when the games go to
worker processes, the Elo of a game of more than two sides or of two teams, the final
evaluation's seed, output paths checked before any game, the note on unbalanced seats,
``--curve``, the monitor files a learning curve reads, and the numbers each plot draws."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.registry import installed_games
from tests.training.test_evaluate_pins import _greedy_moves
from training.cli import build_parser, main
from training.evaluate import run_tournament
from training.tournament import PairResult, bradley_terry_elo

needs = pytest.mark.skipif(
    not {"octi", "over_and_out", "otto_game_over"} <= set(installed_games()), reason="games not installed"
)
pytestmark = needs

OAO2 = ["over_and_out", "--param", "num_players=2"]


def test_the_commands_defaults_are_the_documented_ones() -> None:
    """``eightfold eval`` without options plays 200 games a pairing, the first player against
    each other one, at tournament seed 0, in two worker processes, with models playing their
    best move (as ``--help`` and :func:`run_tournament` say; another default played another
    tournament than the one a user asked for, and seed 0 is the Python API's too)."""
    args = build_parser().parse_args(["eval", "--players", "random", "greedy"])
    assert (args.games, args.mode, args.seed, args.workers) == (200, "first", 0, 2)
    assert not args.stochastic and args.env is None
    assert (args.json, args.plot, args.records, args.options, args.moves) == (None,) * 5


class _Pooled(Exception):
    """Raised where the tournament would start its worker processes."""


@pytest.fixture
def pool_spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, list[int]]]:
    """Games are not played (each chunk comes back empty, its game numbers noted) and starting
    the worker pool raises :class:`_Pooled`: which way a tournament goes, in milliseconds."""
    import training.evaluate as evaluate
    import training.interrupt as interrupt

    chunks: list[tuple[str, str, list[int]]] = []

    def play(game: Any, pa: Any, pb: Any, names: tuple[str, str], ids: list[int], **kw: Any) -> PairResult:
        chunks.append((names[0], names[1], list(ids)))
        return PairResult(names[0], names[1])

    def pooled() -> None:
        raise _Pooled

    monkeypatch.setattr(evaluate, "play_pairing", play)
    monkeypatch.setattr(interrupt, "start_forkserver", pooled)
    return chunks


def test_forty_games_of_the_whole_tournament_go_to_the_workers(
    pool_spy: list[tuple[str, str, list[int]]],
) -> None:
    """Worker processes play once the whole tournament (all pairings together) holds 40 games
    and more than one worker is asked for; 39 games, or ``--workers 1``, play in this process,
    every game of every pairing once (a per-pairing count kept 2 x 20 games in one process;
    ``--workers 1`` is documented as "in this process")."""
    params = {"num_players": 2}
    three = ["random", "greedy", "heuristic"]
    with pytest.raises(_Pooled):
        run_tournament("over_and_out", params, three, 20, workers=2)  # 2 pairings x 20
    with pytest.raises(_Pooled):
        run_tournament("over_and_out", params, three[:2], 40, workers=3)
    pool_spy.clear()
    run_tournament("over_and_out", params, three, 13, mode="all", workers=2)  # 3 pairings x 13
    run_tournament("over_and_out", params, three[:2], 40, workers=1)
    played: dict[tuple[str, str], list[int]] = {}
    for a, b, ids in pool_spy:
        played.setdefault((a, b), []).extend(ids)
    assert {k: sorted(v) for k, v in played.items()} == {
        ("random", "greedy"): sorted([*range(13), *range(40)]),
        ("random", "heuristic"): list(range(13)),
        ("greedy", "heuristic"): list(range(13)),
    }


@pytest.mark.parametrize(
    ("name", "params", "sides"),
    [("over_and_out", {"num_players": 3}, 3), ("otto_game_over", {"num_players": 4, "teams": True}, 2)],
)
def test_the_elo_rates_the_places_among_the_games_sides(
    name: str, params: dict[str, Any], sides: int
) -> None:
    """The Elo is fitted to the first player's places among the game's sides: three in a
    3-player game, two teams in a 2v2 one (fitted among four seats, a team game's wins and
    losses were rated as places among four players)."""
    players = ["random", "greedy"]
    res = run_tournament(name, params, players, 4, workers=1)
    assert res["sides"] == sides
    pairs = []
    for p in res["pairs"]:
        one = PairResult(p["a"], p["b"], p["games"], p["wins"], p["draws"], p["losses"])
        one.placements = [p["mean_placement"]] * p["games"]  # the placement score is linear
        pairs.append(one)
    assert res["elo"] == pytest.approx(bradley_terry_elo(players, pairs, sides=sides), abs=1e-6)


class _Stop(Exception):
    """Raised by a spy once it has seen its call."""


def test_the_final_evaluation_deals_other_games_than_the_periodic_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train --eval-games N`` plays its final evaluation at tournament seed ``seed + 104729``
    (README), not at the run's own seed nor at the periodic evaluations' ``seed + 7919``: its
    games are not the ones the run's best model was picked on."""
    import training.evaluate as evaluate
    from training.config import TrainConfig

    seen: dict[str, Any] = {}

    def spy(*args: Any, **kw: Any) -> dict[str, Any]:
        seen["args"] = args
        raise _Stop

    monkeypatch.setattr(evaluate, "run_tournament", spy)
    cfg = TrainConfig(env="octi", params={"max_turns": 8}, eval_opponents=["random"], seed=5, eval_workers=1)
    with pytest.raises(_Stop):
        evaluate.evaluate_model_vs_baselines(cfg, tmp_path / "model.zip", tmp_path)
    env, params, players, games, mode, seed, workers = seen["args"]
    assert (env, params, mode, seed) == ("octi", {"max_turns": 8}, "first", 5 + 104729)
    assert players == [str(tmp_path / "model.zip"), "random"] and games == cfg.final_eval_games
    capsys.readouterr()


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        ("--records", "{tmp}", "--records '{tmp}' is a directory"),
        ("--plot", "{tmp}/t.jpg", "--plot writes a PNG: give a file name ending in .png"),
        ("--json", "{tmp}", "--json '{tmp}' is a directory"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_any_game(
    option: str, path: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad ``--records``, ``--plot`` or ``--json`` is a usage error before the games are
    played (after them, the tournament's results were lost, or half its files written)."""
    bad = path.format(tmp=tmp_path)
    args = ["eval", *OAO2, "--players", "random", "greedy", "--games", "2", "--workers", "1"]
    assert main([*args, option, bad]) == 2
    printed = capsys.readouterr()
    assert message.format(tmp=tmp_path) in printed.err
    assert printed.out == "", "no game played, no table printed"


@pytest.mark.parametrize(("games", "seats"), [(4, 3), (5, 3), (6, 3), (2, 2)])
def test_the_note_on_unbalanced_seats_names_the_seats_played_once_more(
    games: int, seats: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Games not a multiple of the seats put the first player in seats ``0..r-1`` once more
    (``r`` the remainder: 4 games over 3 seats, seat 0 only); a multiple gets no note."""
    args = ["eval", "over_and_out", "--param", f"num_players={seats}", "--players", "random", "greedy"]
    assert main([*args, "--games", str(games), "--workers", "1"]) == 0
    err = capsys.readouterr().err
    if games % seats:
        where = "seat 0" if games % seats == 1 else f"seats 0..{games % seats - 1}"
        note = f"note: {games} games over {seats} seats put the first player in {where} once"
        assert note in err
    else:
        assert "note:" not in err


def _monitor(path: Path, t_start: float, rows: list[tuple[float, int, float, str, float]]) -> None:
    """A monitor file as training writes it: shaped reward ``r``, length, time, outcome and
    the true return."""
    lines = [f'#{{"t_start": {t_start}, "env_id": "x"}}', "r,l,t,outcome,placement,return"]
    lines += [f"{r},{length},{t},{outcome},1.0,{ret}" for r, length, t, outcome, ret in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def test_a_learning_curve_reads_every_monitor_file_in_wall_clock_order(tmp_path: Path) -> None:
    """Episodes of all monitor files in the order they ended (each file's times count from its
    own ``t_start``; a file cut before its first episode is passed over), with their true
    returns (not the shaped reward), won only on a win (a draw is not), and steps counted
    cumulatively (the x axis of the curve)."""
    from training.plots import read_monitor

    _monitor(
        tmp_path / "monitor" / "0.monitor.csv",
        1000.0,
        [(5.0, 10, 1.0, "win", 1.0), (-3.0, 20, 3.0, "loss", -1.0)],
    )
    _monitor(tmp_path / "monitor" / "1.monitor.csv", 1001.0, [(0.5, 30, 1.0, "draw", 0.0)])
    (tmp_path / "monitor" / "2.monitor.csv").write_text("")  # an env killed before its first write
    (tmp_path / "monitor" / "3.monitor.csv").write_text('#{"t_start": 0}\n')
    mon = read_monitor(tmp_path)
    assert mon["t"].tolist() == [1001.0, 1002.0, 1003.0]
    assert mon["r"].tolist() == [1.0, 0.0, -1.0]
    assert mon["won"].tolist() == [1.0, 0.0, 0.0]
    assert mon["steps"].tolist() == [10, 40, 60]


def test_the_rolling_mean_of_the_first_episodes_is_their_mean() -> None:
    """The curve's rolling mean over ``window`` episodes; before ``window`` episodes, the mean
    of those so far (a sum divided by the window drew a false slow start)."""
    from training.plots import _rolling

    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert _rolling(x, 3).tolist() == pytest.approx([1.0, 1.5, 2.0, 3.0, 4.0])
    assert _rolling(x, 1).tolist() == pytest.approx(x.tolist())
    assert _rolling(x, 500).tolist() == pytest.approx([1.0, 1.5, 2.0, 2.5, 3.0])


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """What the plots hand matplotlib: every ``plot``, ``fill_between``, ``barh`` and
    ``set_yticks`` and ``set_xlabel`` call's arguments (each call still draws)."""
    import matplotlib.axes

    calls: dict[str, list[Any]] = {}
    for name in ("plot", "fill_between", "barh", "set_yticks", "set_xlabel"):
        real = getattr(matplotlib.axes.Axes, name)

        def spy(self: Any, *args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            calls.setdefault(_name, []).append((args, kw))
            return _real(self, *args, **kw)

        monkeypatch.setattr(matplotlib.axes.Axes, name, spy)
    return calls


def test_the_learning_curve_draws_the_win_fraction_and_each_baselines_win_rate(
    tmp_path: Path, drawn: dict[str, list[Any]]
) -> None:
    """The left plot draws the rolling return and the rolling win fraction; the right one each
    baseline's win rate (not its score) and the band of its interval, at the steps of its
    evaluations (every baseline of any evaluation: a resumed run may play others)."""
    from training.plots import learning_curve

    _monitor(
        tmp_path / "monitor" / "0.monitor.csv",
        0.0,
        [(5.0, 10, 1.0, "win", 1.0), (-3.0, 20, 3.0, "loss", -1.0)],
    )
    rows = [
        {
            "timesteps": 100,
            "random": {"win_rate": 0.25, "score": 0.5, "win_rate_ci95": [0.1, 0.6]},
            "greedy": {"win_rate": 0.5, "score": 0.5, "win_rate_ci95": [0.2, 0.8]},
        },
        {"timesteps": 200, "random": {"win_rate": 0.75, "score": 0.8, "win_rate_ci95": [0.4, 0.9]}},
    ]
    (tmp_path / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    learning_curve(tmp_path, tmp_path / "c.png")
    lines = {kw["label"]: [np.asarray(a).tolist() for a in args] for args, kw in drawn["plot"]}
    assert lines["episode return (rolling 500)"] == [[10, 30], [1.0, 0.0]]
    assert lines["win fraction vs training opponents"] == [[10, 30], [1.0, 0.5]]
    assert lines["vs random"] == [[100, 200], [0.25, 0.75]]
    assert lines["vs greedy"] == [[100], [0.5]], "a baseline of an earlier evaluation only"
    (args, _), _ = drawn["fill_between"]
    x, *band = (np.asarray(a).tolist() for a in args)
    assert x == [100, 200] and sorted(band) == [[0.1, 0.4], [0.6, 0.9]]  # the band, either edge first


def test_the_tournament_plot_draws_each_pairings_win_rate_interval_and_elo(
    tmp_path: Path, drawn: dict[str, list[Any]]
) -> None:
    """Each bar is its pairing's win rate (not its score), labelled first player vs second,
    with error bars reaching down to the interval's low bound and up to its high one; each
    Elo bar ends at its own player's rating (a swapped bound or label drew another result)."""
    from training.plots import plot_tournament

    pairs = [
        PairResult("runs/a/model.zip", "random", games=10, wins=2, draws=6, losses=2),
        PairResult("runs/a/model.zip", "runs/b/model.zip", games=10, wins=9, losses=1),
    ]
    res: dict[str, Any] = {
        "env": "toy", "params": {}, "games_per_pairing": 10, "pairs": [p.summary() for p in pairs],
        "elo": {"runs/a/model.zip": 1000.0, "random": 1100.0, "runs/b/model.zip": 700.0},
    }  # fmt: skip
    out = plot_tournament(res, tmp_path / "new" / "t.png")  # its folder is made
    assert out.read_bytes()[:4] == b"\x89PNG"
    (wins_args, wins_kw), (elo_args, elo_kw) = drawn["barh"]
    assert np.asarray(wins_args[1]).tolist() == [0.2, 0.9]
    err = np.asarray(wins_kw["xerr"])
    for i, p in enumerate(res["pairs"]):
        lo, hi = p["win_rate_ci95"]
        assert err[:, i].tolist() == pytest.approx([p["win_rate"] - lo, hi - p["win_rate"]])
    assert list(drawn["set_yticks"][0][0][1]) == ["a/model.zip vs random", "a/model.zip vs b/model.zip"]
    assert "95% Wilson CI (10 games, seats rotated)" in drawn["set_xlabel"][0][0][0]
    ends = {name: elo_kw["left"] + width for name, width in zip(elo_args[0], elo_args[1], strict=True)}
    assert ends == pytest.approx({"a/model.zip": 1000.0, "random": 1100.0, "b/model.zip": 700.0})


def test_curve_of_a_run_with_evaluations_only_goes_to_the_runs_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval --curve RUN`` without ``--plot`` writes ``RUN/learning_curve.png`` (where
    ``train`` puts it); a run with ``eval.jsonl`` and no ``monitor/`` (or the reverse) is a
    run (one of them missing refused a run it can draw)."""
    row = {"timesteps": 0, "random": {"win_rate": 0.5, "win_rate_ci95": [0.2, 0.8]}}
    (tmp_path / "eval.jsonl").write_text(json.dumps(row) + "\n")
    assert main(["eval", "--curve", str(tmp_path)]) == 0
    assert (tmp_path / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert f"wrote {tmp_path / 'learning_curve.png'}" in capsys.readouterr().out
    other = tmp_path / "other"
    _monitor(other / "monitor" / "0.monitor.csv", 0.0, [(1.0, 10, 1.0, "win", 1.0)])
    assert main(["eval", "--curve", str(other), "--plot", str(tmp_path / "new" / "c.png")]) == 0
    assert (tmp_path / "new" / "c.png").stat().st_size > 1000, "its folder is made"


def test_players_whose_paths_look_alike_keep_their_full_names() -> None:
    """Two players whose labels cannot be told apart (the same path spelt two ways) are
    labelled by their full names: one label for both drew a single Elo bar for two players."""
    from training.plots import short_names

    names = ["runs/model.zip", "./runs/model.zip", "random"]
    assert short_names(names) == {n: n for n in names}


def test_variant_reaches_the_game_of_a_named_env(tmp_path: Path) -> None:
    """``eval octi --variant x_fast`` plays Octi-X, as ``--param variant=x_fast`` does (the
    variant dropped played the basic game under a table the user took for Octi-X's)."""
    out = tmp_path / "r.json"
    args = ["eval", "octi", "--variant", "x_fast", "--param", "max_turns=4", "--players", "random", "greedy"]
    assert main([*args, "--games", "2", "--workers", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["params"] == {"max_turns": 4, "variant": "x_fast"}


def test_a_model_second_in_its_pairing_samples_with_stochastic(
    octi_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--stochastic`` makes every model sample, the second player of a pairing too (only the
    first player's flag passed on played the second model greedily under a sampling table)."""
    records = tmp_path / "games.jsonl"
    args = ["eval", "octi", "--param", "max_turns=8", "--players", "random", str(octi_model)]
    assert main([*args, "--games", "4", "--workers", "1", "--records", str(records), "--stochastic"]) == 0
    greedy, total = _greedy_moves(records, octi_model)
    assert total >= 8 and greedy < total, "--stochastic samples"
    capsys.readouterr()


def test_the_table_prints_the_win_rate_not_the_score() -> None:
    """The table's rate is the wins' share, the one its Wilson interval is of; the score
    (half a point a draw) printed there overstated a drawing player's wins."""
    from training.evaluate import format_table

    pair = PairResult("octi-model.zip", "random", games=10, wins=2, draws=6, losses=2)
    res: dict[str, Any] = {
        "num_players": 2,
        "sides": 2,
        "pairs": [pair.summary()],
        "elo": {"octi-model.zip": 1000.0, "random": 990.0},
    }
    row = format_table(res).splitlines()[2].split()
    lo, hi = pair.summary()["win_rate_ci95"]
    assert row[2:] == ["10", "2", "6", "2", "0.200", f"[{lo:.3f},", f"{hi:.3f}]"]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--players", "random", "greedy"], "--players"),
        (["--json", "r.json"], "--json"),
        (["octi", "--games", "10"], "ENV, --games"),
        (["--records", "r.jsonl", "--stochastic"], "--stochastic, --records"),
    ],
)
def test_curve_refuses_the_tournaments_options(
    extra: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``eval --curve RUN --players ... --json r.json`` drew the curve and quietly wrote no
    ``r.json``: with ``--curve`` the tournament's options are a usage error naming them, and
    nothing is drawn."""
    (tmp_path / "eval.jsonl").write_text("")
    assert main(["eval", "--curve", str(tmp_path), *extra]) == 2
    assert f"{named} has no effect with --curve" in capsys.readouterr().err
    assert not (tmp_path / "learning_curve.png").exists()
