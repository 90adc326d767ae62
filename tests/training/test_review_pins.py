"""Pins from a mutation round over the review fixes since f87a628 (what the earlier tests of
those changes let through):

* ``training.train.run_seeded``: its exact values (a Python int shifted, for numpy 1.x; the
  numbers must not change, or every seeded run deals other games);
* ``training.rllib.train.train_rllib``: the missing extra is refused before the env's module
  imports Ray, with the whole message; a solo run's closing line says ``--watch RUN`` (a
  solo game has no seat to play against), a game of several players' ``--vs RUN``;
* ``eightfold replay --save``'s advice: ``--vs`` with no ``--seat`` where ``player_0`` is
  still in, ``--seat`` of the lowest seat still in where it is out, nothing for a solo game;
* ``eightfold play``'s refusal of ``--max-steps``/``--delay`` in a solo game, whole message;
* ``SingleAgentEnv``: ``info["opponents"]`` per episode (built at each reset, each info a copy
  of its own) and ``metadata`` per instance (Gymnasium's vector envs write into it);
* ``envs.over_and_out.render``: the seat boxes sit on whole pixels, round() of the ellipse.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from training.cli import main

# ------------------------------------------------------------------------- run_seeded


def test_run_seeded_values_do_not_change() -> None:
    """``run_seeded(seed, run_seed)``: the first uint64 word of ``SeedSequence([seed,
    run_seed])`` shifted right once, as a Python int (the numpy 1.x fix kept the values)."""
    from training.train import run_seeded

    expected = {
        (0, 0): 7896617691693857887,
        (1, 0): 3717377837946358015,
        (0, 1): 2918264622725855778,
        (5, 3): 4032576983210384345,
        (2**40, 9): 8515647138893926874,
    }
    for (seed, run), value in expected.items():
        got = run_seeded(seed, run)
        assert type(got) is int and got == value, (seed, run)
        word = np.random.SeedSequence([seed, run]).generate_state(1, np.uint64)[0]
        assert got == int(word) >> 1


# ------------------------------------------------------------------------------ RLlib
RAY_MESSAGE = (
    "--backend rllib needs Ray RLlib, which is not installed: pip install 'eightfold[rllib]' "
    "(ray[rllib] >= 2.60, < 3)"
)


def test_rllib_without_ray_is_refused_before_the_envs_module_imports_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without Ray (``ray`` unimportable, the env's module not yet imported) ``train --backend
    rllib`` is the usage error naming the extra, whole, not the env module's ImportError."""
    import training.rllib.common as common
    import training.rllib.train  # noqa: F401 (imported before Ray goes missing, as the CLI does)

    real = importlib.util.find_spec
    monkeypatch.setattr(
        common.importlib.util,
        "find_spec",
        lambda name, *a: None if name.split(".")[0] == "ray" else real(name, *a),
    )
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "training.rllib.env", raising=False)
    out = tmp_path / "run"
    assert main(["train", "over_and_out", "--backend", "rllib", "--out", str(out)]) == 2
    assert RAY_MESSAGE in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``train_rllib`` on ``test_rllib_pins2``'s stand-in ``Algorithm``: Ray is not started."""
    pytest.importorskip("ray.rllib")
    import torch

    import training.rllib.train as rt
    from tests.training.test_rllib_pins2 import _Algo

    class _Config:
        def build_algo(self) -> Any:
            return _Algo()

    monkeypatch.setattr(rt, "_init_ray", lambda args: None)
    monkeypatch.setattr(rt, "build_config", lambda *a, **k: _Config())
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(
    ("env", "params", "how"),
    [
        ("otto_game_over", {"num_players": 1}, "--watch"),
        ("otto_game_over", {"num_players": 2}, "--vs"),
        ("over_and_out", {}, "--vs"),
    ],
)
def test_an_rllib_run_says_watch_for_a_solo_game_and_vs_otherwise(
    env: str,
    params: dict[str, Any],
    how: str,
    tmp_path: Path,
    no_ray: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The closing line: ``eightfold play GAME [--param ...] --watch RUN`` for a solo game (its
    parameters make it one), ``--vs RUN`` where there is a seat to play against."""
    import training.rllib.train as rt
    from tests.training.test_rllib_pins import _args

    run = tmp_path / "run"
    config = {"opponents": "random", "timesteps": 128, "checkpoint_every": 256}
    rt.train_rllib(_args(env, run, "--iterations", "1"), dict(params), config)
    (line,) = (x for x in capsys.readouterr().out.splitlines() if x.startswith("saved "))
    flags = "".join(f" --param {k}={json.dumps(v)}" for k, v in sorted(params.items()))
    assert (
        line
        == f"saved {run.resolve() / 'checkpoint'} (play it with: eightfold play {env}{flags} {how} {run.resolve()})"
    )


# ----------------------------------------------------------------------- replay --save
def _record(tmp_path: Path, name: str, *argv: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    assert main(["play", *argv, "--random", "--record", str(path)]) == 0
    return path


def _saved_line(record: Path, upto: int, pos: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["replay", str(record), "1", "--upto", str(upto), "--save", str(pos)]) == 0
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_replay_save_advice_names_no_seat_while_player_0_is_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A two-player game saved after one move: ``--vs <bot or model>`` and no ``--seat`` (seat
    0 is play's default); a solo game: neither."""
    pos = tmp_path / "pos.json"
    two = _record(tmp_path, "two", "over_and_out", "--param", "num_players=2", "--seed", "1")
    assert _saved_line(two, 1, pos, capsys) == (
        f"wrote {pos}; play on from there: eightfold play over_and_out --param num_players=2 "
        f"--options @{pos} --vs <bot or model>"
    )
    solo = _record(tmp_path, "solo", "otto_game_over", "--param", "num_players=1", "--seed", "1")
    assert _saved_line(solo, 2, pos, capsys) == (
        f"wrote {pos}; play on from there: eightfold play otto_game_over --param num_players=1 --options @{pos}"
    )


def test_replay_save_advice_seats_the_lowest_player_still_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OAO-34: where ``player_0`` is out and two others play on, the advice's ``--seat`` is the
    lowest seat still in, exactly."""
    from tests.training.test_replay import player_0_out_record

    pos = tmp_path / "pos.json"
    record, k, out = player_0_out_record(tmp_path, capsys)
    still_in = [s for s in range(3) if s not in out]
    assert len(still_in) == 2
    assert _saved_line(record, k, pos, capsys) == (
        f"wrote {pos}; play on from there: eightfold play over_and_out --param num_players=3 "
        f"--options @{pos} --vs <bot or model> --seat {min(still_in)}"
    )


# ------------------------------------------------------------------------------- play
@pytest.mark.parametrize("extra", [["--max-steps", "3"], ["--delay", "0.1"]])
def test_a_solo_game_refuses_max_steps_and_delay_with_the_whole_message(
    extra: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A solo game you play is played to its end: ``--max-steps``/``--delay`` are refused."""
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "otto_game_over", "--param", "num_players=1", *extra]) == 2
    assert (
        "--max-steps and --delay are for --random and --watch; a game you play (--vs, or a solo game) "
        "is played to its end" in capsys.readouterr().err
    )


# ----------------------------------------------------------------------- single agent
def test_info_opponents_is_each_episodes_and_a_copy_of_its_own() -> None:
    """``info["opponents"]`` maps agent names to the players seated for *this* episode (drawn
    again at each reset) and each info holds its own dict: changing one leaves the next alone."""
    from training.single_agent import make_env

    env = make_env("over_and_out", opponents={"random": 1, "heuristic": 1}, num_players=3, seat=0)
    seen = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        assert set(info["opponents"]) == {"player_1", "player_2"}
        assert info["opponents"] == {env.game.agent_name(s): n for s, (n, _) in env.players.items()}
        seen.add(tuple(sorted(info["opponents"].values())))
        info["opponents"]["player_1"] = "changed"
        mask = env.action_masks()
        _, _, _, _, after = env.step(int(np.flatnonzero(mask)[0]))
        assert after["opponents"]["player_1"] != "changed"
    assert len(seen) > 1, "the opponents of every episode were the first episode's"


def test_each_view_has_a_metadata_dict_of_its_own() -> None:
    """A vector env (gymnasium 1.1-1.2) writes ``autoreset_mode`` into its first env's ``metadata``: the view's
    class and every other view keep theirs as they were."""
    from training.single_agent import SingleAgentEnv, make_env

    before = dict(SingleAgentEnv.metadata)
    a, b = make_env("otto_game_over", num_players=1), make_env("otto_game_over", num_players=1)
    assert a.metadata == before and a.metadata is not SingleAgentEnv.metadata
    assert a.metadata is not b.metadata
    vec = gym.vector.SyncVectorEnv([lambda: a])
    try:
        # gymnasium 1.1-1.2 write it themselves; 1.0 has no modes and 1.4 writes it elsewhere
        a.metadata.setdefault("autoreset_mode", "written into the first env's dict")
        assert SingleAgentEnv.metadata == before and "autoreset_mode" not in b.metadata
    finally:
        vec.close()


# ---------------------------------------------------------------- Over and Out picture
@pytest.mark.parametrize("n", range(2, 9))
def test_over_and_out_seat_boxes_sit_on_whole_pixels(n: int) -> None:
    """Seat k's box is centred on ``round`` of the ellipse point (380 + 284 cos a, 250 + 195
    sin a), a = -pi/2 + 2 pi k / n: its frame, in the seat's colour, starts exactly 85 px left
    and 42 px above that centre, and the pixel before it is not the frame."""
    from envs.core.draw import SEAT_COLORS
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=n)
    img = game.render_rgb(game.new_initial_state(np.random.default_rng(0)))
    for seat in range(n):
        a = -math.pi / 2 + 2 * math.pi * seat / n
        x, y = round(380 + 284 * math.cos(a)), round(250 + 195 * math.sin(a))
        colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
        assert tuple(img[y, x - 85]) == colour and tuple(img[y, x - 86]) != colour, (seat, "left")
        assert tuple(img[y - 42, x]) == colour and tuple(img[y - 43, x]) != colour, (seat, "top")


@pytest.mark.parametrize("n", range(3, 9))
def test_over_and_out_seats_draw_alike_wherever_they_sit(n: int) -> None:
    """On whole pixels every seat not to move draws its chips and card backs (the rows from
    16 above to 12 below its centre) exactly alike, shifted to its centre: a fractional centre
    shifts some chips or cards by a pixel, as Pillow rounds it."""
    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=n)
    state = game.new_initial_state(np.random.default_rng(0))
    img = game.render_rgb(state)
    fill = np.array((235, 230, 218))
    masks = []
    for seat in range(n):
        if seat == state.to_move:
            continue
        a = -math.pi / 2 + 2 * math.pi * seat / n
        x, y = round(380 + 284 * math.cos(a)), round(250 + 195 * math.sin(a))
        assert state.chips[seat] == state.chips[state.to_move]
        masks.append((img[y - 16 : y + 13, x - 80 : x + 81] != fill).any(-1))
    assert all((m == masks[0]).all() for m in masks[1:])
