"""Pins on what the example scripts compute and print, and on ``envs.core.playthrough``,
``envs.core.registry`` and ``envs.core.draw``: each test fails under a plausible bug that the
smoke tests of ``tests/test_examples.py`` would let through (a seat measured wrongly, an
option ignored, a score or interval computed over the wrong count, a lookup naming the wrong
value). The examples are scripts: they are imported from their files, or run in this process
with ``runpy`` and tiny budgets, rather than in a subprocess where it can be helped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import runpy
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.registry import GAMES, get_game
from training.tournament import wilson

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _example_module(name: str) -> ModuleType:
    """``examples/<name>.py`` imported as a module (its ``__main__`` block not run)."""
    spec = importlib.util.spec_from_file_location(f"_pinned_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run_script(
    name: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str]:
    """``python examples/<name>.py argv...`` in this process: (its globals, its stdout)."""
    monkeypatch.setattr(sys, "argv", [str(EXAMPLES / f"{name}.py"), *argv])
    capsys.readouterr()
    globs = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    return globs, capsys.readouterr().out


# ----------------------------------------------------------------------------- mcts_strength
@pytest.mark.parametrize(
    ("name", "params", "n"), [("over_and_out", {"num_players": 3}, 20), ("octi", {}, 27)]
)
def test_mcts_strength_chunks_cover_n_games_in_whole_seat_rotations(
    name: str, params: dict[str, Any], n: int
) -> None:
    """``-n`` games in all, every chunk but the last a multiple of the player count (each seat
    used equally), and ``--seed`` moving every chunk's seed: otherwise a pairing plays more or
    fewer games than asked, favours a seat, or repeats the same deals whatever the seed."""
    mod = _example_module("mcts_strength")
    players = get_game(name).game_class()(**params).num_players
    tasks = mod.match_tasks(name, params, "mcts:sims=3", "random", n, 0, "deal")
    assert sum(t[4] for t in tasks) == n
    assert all(t[4] % players == 0 for t in tasks[:-1]) and len(tasks) > 1
    assert all(t[:4] == (name, params, "mcts:sims=3", "random") and t[6] == "deal" for t in tasks)
    seeds = {s: {t[5] for t in mod.match_tasks(name, params, "x", "y", n, s)} for s in (0, 1, 2)}
    assert all(len(v) == len(tasks) for v in seeds.values())
    assert not (seeds[0] & seeds[1]) and not (seeds[1] & seeds[2]) and not (seeds[0] & seeds[2])


def test_mcts_strength_run_chunk_counts_the_measured_bot() -> None:
    """A chunk's wins / draws / losses are those of the measured (mcts) spec, whatever seat it
    takes: swapped with its opponent, the table would print the opponent's score."""
    mod = _example_module("mcts_strength")
    params = {"num_players": 2}
    w, d, l_, secs = mod.run_chunk(("over_and_out", params, "heuristic", "random", 10, 0, None))
    assert w + d + l_ == 10 and w > l_ and secs >= 0
    w, d, l_, _ = mod.run_chunk(("over_and_out", params, "random", "heuristic", 10, 0, None))
    assert w + d + l_ == 10 and w < l_


def test_mcts_strength_oracle_is_handed_to_the_measured_bot_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--oracle`` builds the measured bot on the oracle game and every opponent on the honest
    one: an oracle lost on the way, or handed to the opponent, measures something else."""
    mod = _example_module("mcts_strength")
    built: list[tuple[str, str]] = []
    real = mod.make_bot

    def recording(game: Any, spec: str, table: Any) -> Any:
        built.append((type(game).__name__, spec))
        return real(game, spec, table)

    monkeypatch.setattr(mod, "make_bot", recording)
    mod.run_chunk(("over_and_out", {"num_players": 2}, "heuristic", "random", 2, 0, "all"))
    assert built == [("OracleOverAndOutGame", "heuristic"), ("OverAndOutGame", "random")]


def test_mcts_strength_reads_game_aliases_in_configs() -> None:
    """``--config`` takes any spelling of a game, keyed by its short name as ``--games`` is."""
    mod = _example_module("mcts_strength")
    assert mod.parse_configs(["over_and_out_v0:num_players=3", "octi:variant=x_fast"]) == {
        "over_and_out": {"num_players": 3},
        "octi": {"variant": "x_fast"},
    }


def _strength_main(
    argv: list[str],
    result: tuple[int, int, int, float],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[list[Any], str, str]:
    """``mcts_strength.main()`` with ``argv``, its chunks run in threads and each answering
    ``result``: (the chunks asked for, stdout, stderr)."""
    mod = _example_module("mcts_strength")
    tasks: list[Any] = []

    def chunk(task: Any) -> tuple[int, int, int, float]:
        tasks.append(task)
        return result

    monkeypatch.setattr(mod, "run_chunk", chunk)
    monkeypatch.setattr(mod, "worker_pool", ThreadPoolExecutor)  # a context manager too
    monkeypatch.setattr(mod, "measure_sims_per_second", lambda game, spec, seed=0: 123.0)
    monkeypatch.setattr(sys, "argv", ["mcts_strength.py", *argv])
    capsys.readouterr()
    mod.main()
    out = capsys.readouterr()
    return tasks, out.out, out.err


def test_mcts_strength_table_scores_draws_as_halves_with_their_interval(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table row and the running tally: W / D / L summed over the chunks, the score
    (wins + draws/2 per game) and the Wilson interval of that same score; the chunks carry the
    game's ``--config``, the ``--mcts`` parameters and ``--seed``."""
    argv = ["--games", "over_and_out", "--config", "over_and_out:num_players=2", "--budgets", "7"]
    argv += ["--opponents", "greedy", "-n", "16", "--jobs", "1", "--mcts", "rollout=random", "--seed", "3"]
    tasks, out, err = _strength_main(argv, (3, 2, 1, 1.2), monkeypatch, capsys)
    assert len(tasks) == 2 and sum(t[4] for t in tasks) == 16
    mod = _example_module("mcts_strength")
    want = mod.match_tasks("over_and_out", {"num_players": 2}, "mcts:sims=7,rollout=random", "greedy", 16, 3)
    assert sorted(tasks) == sorted(want)
    assert "| over_and_out | {'num_players': 2} | 123 |" in out
    w, d, n = 6, 4, 12
    lo, hi = wilson(w + d / 2, n)
    row = f"| over_and_out | mcts:sims=7,rollout=random | greedy | 6 / 4 / 2 | {(w + d / 2) / n:.3f} |"
    assert f"{row} [{lo:.3f}, {hi:.3f}] | 0.2 |" in out, out
    assert f"2/2 chunks, 6 / 4 / 2, score {(w + d / 2) / n:.3f}" in err


def test_mcts_strength_plays_every_budget_against_every_opponent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One row per (budget, opponent), in that order; ``--oracle deal`` is labelled as the
    deal-only ceiling, not as the full one."""
    argv = ["--games", "otto_octopus", "--budgets", "2", "3", "--opponents", "random", "greedy", "-n", "2"]
    tasks, out, _ = _strength_main(
        [*argv, "--jobs", "1", "--quiet", "--oracle", "deal"], (1, 0, 1, 0.0), monkeypatch, capsys
    )
    rows = [line.split(" | ")[1:3] for line in out.splitlines() if line.startswith("| otto_octopus | mcts")]
    label = " (oracle: reads the hands and the pile order)"
    assert rows == [[f"mcts:sims={b}{label}", o] for b in (2, 3) for o in ("random", "greedy")]
    assert [(t[2], t[3], t[6]) for t in tasks] == [
        (f"mcts:sims={b}", o, "deal") for b in (2, 3) for o in ("random", "greedy")
    ]


def test_mcts_strength_oracle_hands_takes_a_game_alias(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--oracle hands`` is refused only for games without face-down piles, by what the name
    resolves to: ``otto_octopus_v0`` is Otto the Octopus and is measured."""
    argv = ["--games", "otto_octopus_v0", "--budgets", "2", "--opponents", "random", "-n", "2"]
    tasks, out, _ = _strength_main(
        [*argv, "--jobs", "1", "--quiet", "--oracle", "hands"], (1, 0, 1, 0.0), monkeypatch, capsys
    )
    assert "(oracle: reads every hand, not the pile order)" in out and [t[6] for t in tasks] == ["hands"]


def test_mcts_strength_finds_the_config_of_a_game_named_by_an_alias(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--games over_and_out_v0 --config over_and_out:num_players=2`` plays the 2-player game
    (the config was looked up by the spelling typed, so the game ran with its defaults, 4
    players, without a word); the rows name the game by its short name. An unknown game is a
    usage error naming it."""
    argv = ["--games", "over_and_out_v0", "--config", "over_and_out:num_players=2", "--budgets", "2"]
    tasks, out, _ = _strength_main(
        [*argv, "--opponents", "random", "-n", "2", "--jobs", "1", "--quiet"],
        (1, 0, 1, 0.0),
        monkeypatch,
        capsys,
    )
    assert tasks and all(t[1] == {"num_players": 2} for t in tasks), tasks
    assert "| over_and_out | {'num_players': 2} | 123 |" in out
    with pytest.raises(SystemExit) as exit_:
        _strength_main(["--games", "nogame"], (1, 0, 1, 0.0), monkeypatch, capsys)
    assert exit_.value.code == 2
    assert "--games: unknown game 'nogame'" in capsys.readouterr().err


# ------------------------------------------------------------------------- oao_best_response
def _oao() -> tuple[ModuleType, Any, Any, dict[str, Any]]:
    mod = _example_module("oao_best_response")
    entry = get_game("over_and_out")
    game = entry.game_class()(num_players=2)
    return mod, game, game.new_initial_state(np.random.default_rng(0)), entry.bots()


def test_oao_best_response_plays_the_move_that_keeps_the_chip_most_often(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Of the legal moves, the one whose playouts keep the round's chip most often is played
    (not the least often), the playouts continuing with (own heuristic, the opponent's bot) and
    the worlds sampled with ``--knows``."""
    mod, game, state, bots = _oao()
    legal = [int(a) for a in np.flatnonzero(state.legal_mask())]
    assert len(legal) == 3

    def hand_after(a: int) -> tuple[int, ...]:
        s = state.clone()
        s.apply(a)
        return tuple(sorted(s.hands[0]))

    assert len({hand_after(a) for a in legal}) == 3
    heuristic, opponent = make_bot(game, "heuristic", bots), make_bot(game, "random", bots)
    calls: list[tuple[Any, Any]] = []
    knows: list[str] = []
    real_sample = mod.sample_world

    chance: dict[tuple[int, ...], set[str]] = {}

    def playout(s: Any, me: int, own: Any, other: Any, rng: Any) -> bool:
        calls.append((own, other))
        chance.setdefault(tuple(sorted(s.hands[me])), set()).add(str(s.rng.bit_generator.state))
        return tuple(sorted(s.hands[me])) == hand_after(legal[1])

    def sample(game_: Any, st: Any, me: int, know: str, rng: Any) -> Any:
        knows.append(know)
        return real_sample(game_, st, me, know, rng)

    monkeypatch.setattr(mod, "round_playout", playout)
    monkeypatch.setattr(mod, "sample_world", sample)
    args = argparse.Namespace(playouts=4, knows="all")
    move = mod.best_response(game, state, 0, (heuristic, opponent), args, np.random.default_rng(1))
    assert move == legal[1]
    assert len(calls) == 4 * 3 and all(own is heuristic and other is opponent for own, other in calls)
    assert knows == ["all"] * 4
    # each sampled world's later chance is drawn afresh (``all`` reads the deal, not the future)
    assert len(chance) == 3 and all(len(states) == 4 for states in chance.values())


def test_oao_best_response_without_playouts_is_the_heuristic() -> None:
    """``--playouts 0`` plays the heuristic bot's own move (the documented baseline)."""
    mod, game, state, bots = _oao()
    heuristic = make_bot(game, "heuristic", bots)
    args = argparse.Namespace(playouts=0, knows="nothing")
    for seed in range(8):
        st = game.new_initial_state(np.random.default_rng(seed))
        want = heuristic.act(st, st.current_player(), np.random.default_rng(seed))
        got = mod.best_response(
            game, st, st.current_player(), (heuristic, heuristic), args, np.random.default_rng(seed)
        )
        assert got == want


def test_oao_best_response_hands_reshuffles_both_piles() -> None:
    """``--knows hands`` re-shuffles the tiptop pile too (only the hands are known)."""
    mod, game, state, _ = _oao()
    assert len(state.tiptop_pile) > 1
    rng = np.random.default_rng(0)
    orders = {tuple(mod.sample_world(game, state, 0, "hands", rng).tiptop_pile) for _ in range(8)}
    assert len(orders) > 1 and all(sorted(o) == sorted(state.tiptop_pile) for o in orders)


def test_oao_best_response_main_alternates_seats_and_counts_its_own_wins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Game g seats the best response at g mod 2 and counts a win by its own return; the last
    line is wins / games with the Wilson interval of all the games. With ``--playouts 0`` it
    is the heuristic, which beats ``random`` in most games; the deals follow ``--seed``."""
    mod = _example_module("oao_best_response")
    seats: list[tuple[int, tuple[int, ...]]] = []
    real = mod.best_response

    def recording(game: Any, st: Any, me: int, bots: Any, args: Any, rng: Any) -> int:
        seats.append((me, tuple(st.hands[me])))
        return int(real(game, st, me, bots, args, rng))

    monkeypatch.setattr(mod, "best_response", recording)
    monkeypatch.setattr(sys, "argv", ["oao_best_response.py", "--playouts", "0", "-n", "20", "--seed", "4"])
    capsys.readouterr()
    mod.main()
    out = capsys.readouterr().out
    m = re.search(
        r"knows=nothing playouts=0 seed=4: (\d+) / 20 = ([\d.]+) \[([\d.]+), ([\d.]+)\] against random", out
    )
    assert m is not None, out
    wins = int(m.group(1))
    lo, hi = wilson(wins, 20)
    assert (m.group(2), m.group(3), m.group(4)) == (f"{wins / 20:.3f}", f"{lo:.3f}", f"{hi:.3f}")
    assert wins >= 13  # the heuristic against random; its own losses counted instead: <= 7
    assert {me for me, _ in seats} == {0, 1}
    first = seats[0][1]
    seats.clear()
    monkeypatch.setattr(sys, "argv", ["oao_best_response.py", "--playouts", "0", "-n", "1", "--seed", "5"])
    mod.main()
    assert seats[0][1] != first  # another seed, another deal


# ---------------------------------------------------------------------------- openspiel_play
def _openspiel_main(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[list[tuple[str, int, int]], str]:
    """``openspiel_play.main(argv)`` with each bot's moves recorded: ([(spec, seed, seat)], stdout)."""
    pytest.importorskip("pyspiel")
    mod = _example_module("openspiel_play")
    moves: list[tuple[str, int, int]] = []
    real = mod.make_bot

    class Recording:
        def __init__(self, bot: Any, spec: str, seed: int) -> None:
            self.bot, self.spec, self.seed = bot, spec, seed

        def step(self, state: Any) -> int:
            moves.append((self.spec, self.seed, state.current_player()))
            return int(self.bot.step(state))

    monkeypatch.setattr(
        mod, "make_bot", lambda game, spec, seed: Recording(real(game, spec, seed), spec, seed)
    )
    capsys.readouterr()
    assert mod.main(argv) == 0
    return moves, capsys.readouterr().out


def test_openspiel_play_seats_the_measured_bot_in_turn_with_its_own_seed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Game g: ``--bot`` in seat g mod 2, ``--vs`` in the other, each on a seed of its own drawn
    from ``--seed``; the deals too (``rng_seed``); the heuristic beats random in most games."""
    argv = ["--game", "otto_octopus", "--bot", "heuristic", "--vs", "random", "-n", "4", "--seed", "5"]
    moves, out = _openspiel_main(argv, monkeypatch, capsys)
    assert "eightfold_otto_octopus {'num_players': 2, 'rng_seed': 5}: heuristic vs random, 4 games: " in out
    for g in range(4):
        mine = {seat for spec, seed, seat in moves if (spec, seed) == ("heuristic", 5000 + 2 * g)}
        theirs = {seat for spec, seed, seat in moves if (spec, seed) == ("random", 5000 + 2 * g + 1)}
        assert mine == {g % 2} and theirs == {1 - g % 2}, g
    m = re.search(r"4 games: (\d+) / (\d+) / (\d+)", out)
    assert m is not None and int(m.group(1)) > int(m.group(3)), out


def test_openspiel_play_scores_draws_as_halves_and_takes_params(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Octi cut at ``--param max_turns=2`` is a draw every game: score 0.5 with the Wilson
    interval of 2 of 4, not of the wins alone; the parameter reaches the game."""
    argv = ["--game", "octi", "--param", "max_turns=2", "--bot", "random", "--vs", "random", "-n", "4"]
    _, out = _openspiel_main(argv, monkeypatch, capsys)
    lo, hi = wilson(2, 4)
    assert (
        f"eightfold_octi {{'max_turns': 2}}: random vs random, 4 games: 0 / 4 / 0, score 0.500 [{lo:.3f}, {hi:.3f}]"
        in out
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-n", "0"], "--games must be >= 1, got 0"),
        (
            ["--bot", "ismcts:simz=5", "-n", "1"],
            "unknown parameter(s) ['simz'] for 'ismcts'; allowed: ['sims']",
        ),
        (
            ["--game", "octi", "--bot", "random", "--vs", "os-mcts:sims=5,c=1", "-n", "1"],
            "unknown parameter(s) ['c'] for 'os-mcts'",
        ),
    ],
)
def test_openspiel_play_refuses_bad_counts_and_parameters(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-n 0`` is a usage error naming the value, not a division by zero; a misspelt OpenSpiel
    bot parameter is refused by name, not silently left at its default."""
    pytest.importorskip("pyspiel")
    mod = _example_module("openspiel_play")
    with pytest.raises(SystemExit) as exc:
        mod.main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


# -------------------------------------------------------- random_play, render_png, engine_and_bots
def test_random_play_is_the_same_game_every_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script seeds the deal (``reset(seed=42)``) and its policy: two runs print the same game."""
    _, first = _run_script("random_play", ["otto_octopus", "num_players=2"], monkeypatch, capsys)
    _, second = _run_script("random_play", ["otto_octopus", "num_players=2"], monkeypatch, capsys)
    assert first == second and "returns:" in first and "player_2" not in first


@pytest.mark.parametrize(("name", "steps"), [("octi", 3), ("otto_octopus", 5), ("over_and_out", 150)])
def test_render_png_draws_the_position_after_exactly_steps_moves(
    name: str, steps: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The frame and the printed board are the position after ``steps`` seeded random moves
    (deal ``reset(seed=0)``, moves ``default_rng([0, 1])``), written to the path given; in
    Over and Out a knocked-out seat's dead step (after move 100 here) is stepped over."""
    png = tmp_path / "sub" / "pos.png"
    _, out = _run_script("render_png", [name, str(steps), str(png)], monkeypatch, capsys)
    env = get_game(name).env(render_mode="rgb_array")
    env.reset(seed=0)
    rng = np.random.default_rng([0, 1])
    played = 0
    while played < steps:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:  # a knocked-out seat's dead step is no move
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        played += 1
    assert out == env.unwrapped.game.render_ansi(env.unwrapped.state) + f"\nwrote {png}\n"
    from PIL import Image

    assert np.array_equal(np.asarray(Image.open(png).convert("RGB")), env.render())


def test_engine_and_bots_measures_the_heuristic_against_random(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The printed match is heuristic (bots[0]) against random: it wins most of the 100 games."""
    globs, out = _run_script("engine_and_bots", ["over_and_out"], monkeypatch, capsys)
    m = re.search(r"heuristic vs random: 100 games: (\d+) W / (\d+) D / (\d+) L", out)
    assert m is not None, out
    assert int(m.group(1)) > 2 * int(m.group(3)) and globs["name"] == "over_and_out"


# ------------------------------------------------------------------------------- envs.core.draw
def test_contrast_is_the_wcag_ratio() -> None:
    """WCAG 2 contrast: black on white 21, a colour on itself 1, symmetric; #767676 on white
    4.54 (the lightest grey that passes 4.5:1), #808080 on white 3.95, #404040 on black 2.03
    (the sRGB curve above its linear toe), pure green on black 15.3 (the green weight)."""
    from envs.core import draw

    white, black = (255, 255, 255), (0, 0, 0)
    assert draw.contrast(black, white) == pytest.approx(21.0)
    assert draw.contrast(white, black) == pytest.approx(21.0)
    assert draw.contrast(draw.BACKGROUND, draw.BACKGROUND) == pytest.approx(1.0)
    assert draw.contrast((118, 118, 118), white) == pytest.approx(4.54, abs=0.01)
    assert draw.contrast((119, 119, 119), white) < 4.5
    assert draw.contrast((128, 128, 128), white) == pytest.approx(3.95, abs=0.01)
    assert draw.contrast((64, 64, 64), black) == pytest.approx(2.03, abs=0.01)
    assert draw.contrast((0, 255, 0), black) == pytest.approx(15.3, abs=0.01)
    assert draw.contrast((0, 0, 255), black) == pytest.approx(2.44, abs=0.01)


def test_text_colours_are_darkened_no_more_than_needed() -> None:
    """Each seat's text colour is its seat colour, or that colour darkened by the fewest 5%
    steps that reach 4.5:1 on the background (the same hue, as light as it can be)."""
    from envs.core import draw

    for seat, text in zip(draw.SEAT_COLORS, draw.TEXT_COLORS, strict=True):
        scale, want = 1.0, seat
        while draw.contrast(want, draw.BACKGROUND) < 4.5:
            scale -= 0.05
            want = (round(seat[0] * scale), round(seat[1] * scale), round(seat[2] * scale))
        assert text == want
    assert sum(t != s for t, s in zip(draw.TEXT_COLORS, draw.SEAT_COLORS, strict=True)) >= 2


def test_save_gif_pads_frames_times_the_last_and_loops(tmp_path: Path) -> None:
    """Frames of other sizes are padded (at the top left) to the largest, each shown
    ``seconds``, the last ``last_seconds``, the animation looping forever."""
    from PIL import Image

    from envs.core import draw

    red = np.zeros((4, 6, 3), np.uint8)
    red[...] = (200, 0, 0)
    blue = np.zeros((6, 3, 3), np.uint8)
    blue[...] = (0, 0, 200)
    path = tmp_path / "a.gif"
    draw.save_gif([red, blue, red], str(path), seconds=0.2, last_seconds=1.5)
    with Image.open(path) as img:
        assert img.size == (6, 6) and img.n_frames == 3 and img.info.get("loop") == 0
        durations, frames = [], []
        for i in range(3):
            img.seek(i)
            durations.append(img.info["duration"])
            frames.append(np.asarray(img.convert("RGB")))
    assert durations == [200, 200, 1500]
    assert (frames[0][:4] == (200, 0, 0)).all() and (frames[0][4:] == draw.BACKGROUND).all()
    assert (frames[1][:, :3] == (0, 0, 200)).all() and (frames[1][:, 3:] == draw.BACKGROUND).all()


def test_font_takes_its_size() -> None:
    """``font(size)`` is that many pixels: a larger size draws taller text."""
    from envs.core import draw

    heights = [draw.font(size).getbbox("Hg")[3] - draw.font(size).getbbox("Hg")[1] for size in (10, 20, 40)]
    assert heights[0] < heights[1] < heights[2] and heights[2] >= 30


def test_save_png_makes_folders_and_to_array_is_writable(tmp_path: Path) -> None:
    """``save_png`` creates missing parent folders and writes the frame as given;
    ``to_array`` hands back a writable copy (renderers draw into it)."""
    from PIL import Image

    from envs.core import draw

    img, d = draw.canvas(5, 3)
    arr = draw.to_array(img)
    assert arr.shape == (3, 5, 3) and arr.flags.writeable and (arr == draw.BACKGROUND).all()
    arr[0, 0] = (1, 2, 3)
    path = tmp_path / "a" / "b" / "frame.png"
    draw.save_png(arr, str(path))
    assert np.array_equal(np.asarray(Image.open(path).convert("RGB")), arr)


# -------------------------------------------------------------------------- envs.core.playthrough
def test_playthrough_follows_its_seed() -> None:
    """``playthrough(seed=s)`` deals with ``reset(seed=s)`` and picks each move uniformly among the
    legal ones from ``default_rng(s)`` (the goldens use seed 0 only, so a seed dropped on either
    side would pass them)."""
    from envs.core.playthrough import playthrough

    text = playthrough("over_and_out", {"num_players": 2}, seed=3, max_steps=25)
    assert "seed=3" in text.splitlines()[0]
    env = get_game("over_and_out").env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    want = []
    for _ in range(25):
        legal = np.flatnonzero(env.last()[0]["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        want.append(f"    play: {action} = {env.unwrapped.action_to_string(action)}")
        env.step(action)
    assert [line for line in text.splitlines() if line.startswith("    play: ")] == want
    assert text != playthrough("over_and_out", {"num_players": 2}, seed=4, max_steps=25)


# ----------------------------------------------------------------------------- envs.core.registry
def test_unknown_game_names_the_value_given_and_the_known_games() -> None:
    """The error quotes the name as the user spelled it and lists every known game."""
    known = str(sorted(GAMES))
    assert known == "['octi', 'otto_game_over', 'otto_octopus', 'over_and_out']"
    for bad in ("eightfold/chess-v0", "chess_v0", "envs.chess_v0"):
        with pytest.raises(ValueError, match=r"unknown game") as exc:
            get_game(bad)
        assert str(exc.value) == f"unknown game {bad!r}; known: {known}"


@pytest.mark.parametrize("bad", [None, 3, ["octi"]])
def test_get_game_refuses_a_non_string_with_a_value_error(bad: Any) -> None:
    """A non-string is a ``ValueError`` naming it (what the CLI and examples turn into a usage
    error), not an ``AttributeError`` from ``.strip()``."""
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        get_game(bad)


@pytest.mark.parametrize("bad", ["other/octi-v0", "eightfold/octi-v1", "octi.v0", "eightfold_octi"])
def test_get_game_takes_only_its_own_namespace_and_version(bad: str) -> None:
    """Only ``eightfold/`` ids and version ``v0`` resolve; another namespace or version is unknown."""
    with pytest.raises(ValueError, match="unknown game"):
        get_game(bad)


def test_pettingzoo_make_builds_the_same_env_as_the_registry() -> None:
    """``pettingzoo.make("aec", id)`` (what ``random_play.py`` calls) is the wrapped ``env()``
    of that game, not its raw env."""
    import pettingzoo

    import envs  # noqa: F401  (registers the ids)

    for entry in GAMES.values():
        made = pettingzoo.make("aec", entry.env_id)
        assert type(made) is type(entry.env()) and made.unwrapped.game.name == entry.name


def test_config_id_spells_nested_parameters_as_sorted_json() -> None:
    """Dict and list parameters are written as sorted JSON, made file-name safe."""
    from envs.core.playthrough import config_id

    params = {"x": True, "seats": [1, 2], "deck_counts": {"b": 1, "a": 2}}
    assert config_id(params) == "deck_counts=--a---2---b---1-_seats=-1--2-_x=True"


def test_registry_entries_resolve_their_own_game() -> None:
    """Each entry's id, module, game class and player range belong to that game."""
    players = {"octi": "2", "over_and_out": "2-8", "otto_game_over": "1-4, 2v2", "otto_octopus": "1-4"}
    for name, entry in GAMES.items():
        assert entry.name == name and entry.env_id == f"eightfold/{name}-v0"
        assert entry.players == players[name]
        assert entry.game_class()().name == name
        assert entry.raw_env_class().game_class is entry.game_class()
        assert get_game(entry.env_id) is entry and get_game(f"{name}_v0") is entry


# ----------------------------------------------------- gym_single_agent, offline_bc, train_tiny
def _vec_envs_in_process(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record the keywords of every single-agent env made (``gymnasium.make`` reads the entry
    point at each call), the workers built in this process (SB3's own ``DummyVecEnv`` for
    ``SubprocVecEnv``)."""
    import stable_baselines3.common.vec_env as vec_env

    import training.single_agent as single_agent

    made: list[dict[str, Any]] = []
    real = single_agent.make_env

    def recording(**kwargs: Any) -> Any:
        made.append({k: v for k, v in kwargs.items() if k != "render_mode"})
        return real(**kwargs)

    monkeypatch.setattr(single_agent, "make_env", recording)
    monkeypatch.setattr(vec_env, "SubprocVecEnv", vec_env.DummyVecEnv)
    return made


def test_gym_single_agent_builds_its_game_for_two_against_random(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game named on the command line (any spelling), 2 players, against ``random``: the
    workers' envs (stopped before any training here)."""
    made = _vec_envs_in_process(monkeypatch)

    class Built(Exception):
        pass

    import training.single_agent as single_agent

    recording = single_agent.make_env

    def stop(**kwargs: Any) -> Any:
        recording(**kwargs)
        raise Built

    monkeypatch.setattr(single_agent, "make_env", stop)
    with pytest.raises(Built):
        _run_script("gym_single_agent", ["eightfold/otto_octopus-v0", "300"], monkeypatch, capsys)
    assert made == [{"game": "otto_octopus", "opponents": ["random"], "num_players": 2}]


@pytest.mark.slow
def test_gym_single_agent_trains_the_steps_given_against_random(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The step count given reaches ``main`` and is printed; every env it makes (two workers and
    the judged one) is that game with 2 players against ``random``."""
    made = _vec_envs_in_process(monkeypatch)
    _, out = _run_script("gym_single_agent", ["over_and_out_v0", "256"], monkeypatch, capsys)
    assert re.fullmatch(
        r"over_and_out: 256 PPO steps; against random over 40 games: win rate [01]\.\d\d\n", out
    ), out
    assert made == [{"game": "over_and_out", "opponents": ["random"], "num_players": 2}] * 3


def test_gym_single_agent_refuses_zero_steps(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A step count of 0 is refused by name before any env or model is built: one line on
    stderr, exit status 2."""
    with pytest.raises(SystemExit) as exc:
        _run_script("gym_single_agent", ["octi", "0"], monkeypatch, capsys)
    assert exc.value.code == 2
    assert "steps must be an integer >= 1, got '0'" in capsys.readouterr().err


def test_offline_bc_counts_games_epochs_and_the_teachers_decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``offline_bc.py game games epochs``: the dataset is the teacher's decisions in that many
    2-player games (as ``write_dataset`` extracts them for the teacher), fitted that many epochs; the
    printed chance level is the mean over decisions of 1 / legal moves."""
    from training.replay import write_dataset

    globs, out = _run_script("offline_bc", ["over_and_out", "6", "1"], monkeypatch, capsys)
    records = globs["records"]
    assert len(records) == 6 and all(r["params"] == {"num_players": 2} for r in records)
    rows = write_dataset(records, list(range(1, 7)), str(tmp_path / "d.npz"), "r.jsonl", "heuristic")
    with np.load(tmp_path / "d.npz") as data:
        assert np.array_equal(globs["actions"].numpy(), data["actions"])
    masks = globs["masks"].numpy()
    chance = float(np.mean(1.0 / masks.sum(1)))
    lines = out.splitlines()
    assert lines[0] == (
        f"{rows} decisions of heuristic from 6 games of over_and_out (a random legal move agrees on {chance:.3f})"
    )
    assert [line.split(":")[0] for line in lines[1:-1]] == ["epoch 1"]
    assert (
        lines[-1]
        == f"clone vs random over 100 games, seats rotated: win rate {globs['result'].summary()['win_rate']:.3f}"
    )
    assert globs["result"].games == 100


def test_train_tiny_trains_over_and_out_for_two_and_judges_the_model_against_random(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the README says of ``train_tiny.py``: MaskablePPO on 2-player Over and Out, then the
    saved model against ``random`` over 200 games (the training itself replaced here)."""
    import training.evaluate
    import training.train

    seen: dict[str, Any] = {}

    def train(cfg: Any) -> Path:
        seen["cfg"] = cfg
        return tmp_path

    def tournament(env: str, params: dict[str, Any], players: list[str], games: int, **kw: Any) -> str:
        seen["tournament"] = (env, params, players, games)
        return "table"

    monkeypatch.setattr(training.train, "train", train)
    monkeypatch.setattr(training.evaluate, "run_tournament", tournament)
    monkeypatch.setattr(training.evaluate, "format_table", lambda result: f"formatted {result}")
    _, out = _run_script("train_tiny", [], monkeypatch, capsys)
    cfg = seen["cfg"]
    assert (cfg.env, cfg.params, cfg.eval_opponents) == ("over_and_out", {"num_players": 2}, ["random"])
    assert seen["tournament"] == (
        "over_and_out",
        {"num_players": 2},
        [str(tmp_path / "model.zip"), "random"],
        200,
    )
    assert out == "formatted table\n"


def test_rllib_win_rate_counts_the_policys_own_wins_in_both_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    """``win_rate_vs_random``: the loaded policy plays seat i mod 2 of game i, and a game counts
    when its own return is positive, not a draw (bots of the game stand in for a trained run)."""
    pytest.importorskip("ray")
    mod = _example_module("rllib_train")
    seats: list[int] = []

    class Policy:
        game: Any = None
        spec = "heuristic"

        def __init__(self) -> None:
            self.bot = make_bot(self.game, self.spec, get_game(self.game.name).bots())

        @classmethod
        def load(cls, run_dir: str, deterministic: bool = True) -> Policy:
            return cls()

        def act(self, state: Any, seat: int, rng: Any) -> int:
            seats.append(seat)
            return int(self.bot.act(state, seat, rng))

    monkeypatch.setattr(mod, "RLlibPolicy", Policy)
    Policy.game = get_game("over_and_out").game_class()(num_players=2)
    assert mod.win_rate_vs_random("unused", 20, seed=0) >= 0.65 and set(seats) == {0, 1}
    # a draw (Octi cut after 2 turns: every return 0) is no win
    Policy.game, Policy.spec = get_game("octi").game_class()(max_turns=2), "random"
    assert mod.win_rate_vs_random("unused", 4, seed=0) == 0.0


def test_rllib_train_evaluates_with_the_runs_own_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rllib_train.py --seed S`` deals its evaluation games from S too: at seed 0 whatever the
    run, two seeds' runs were judged on the same 200 deals (the training itself replaced here)."""
    pytest.importorskip("ray")
    mod = _example_module("rllib_train")
    (tmp_path / "progress.json").write_text(json.dumps([{"env_steps_per_s": 123.0}]))
    seen: list[tuple[str, int, int]] = []

    def rate(run_dir: str, games: int, seed: int = 0) -> float:
        seen.append((run_dir, games, seed))
        return 0.5

    monkeypatch.setattr(mod, "train_rllib", lambda args, params, config: tmp_path)
    monkeypatch.setattr(mod, "win_rate_vs_random", rate)
    monkeypatch.setattr(sys, "argv", ["rllib_train.py", "--seed", "7", "--games", "30"])
    capsys.readouterr()
    mod.main()
    assert seen == [(str(tmp_path), 30, 7)]
    assert capsys.readouterr().out == "env steps/s over the run: 123\nwin rate vs random: 50.0% (30 games)\n"
