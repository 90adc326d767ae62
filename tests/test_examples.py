"""The README's examples run as written (subprocess smoke tests, seconds each)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_example(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python examples/<script> args...`` in ``cwd``; fails the test on a non-zero exit."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out


@pytest.mark.parametrize(
    "args",
    [
        ["random_play.py", "octi"],
        ["random_play.py", "over_and_out", "num_players=3"],
        ["random_play.py", "otto_game_over", 'episode="match"'],
        ["random_play.py", "otto_octopus"],
        ["engine_and_bots.py", "over_and_out"],
        ["gym_single_agent.py", "over_and_out", "1024"],
        ["offline_bc.py", "over_and_out", "30", "2"],
    ],
    ids=lambda a: "-".join(a),
)
def test_example_runs(args: list[str], tmp_path: Path) -> None:
    out = run_example(args[0], *args[1:], cwd=tmp_path)
    assert "returns" in out.stdout or "win rate" in out.stdout


def test_render_example_writes_png(tmp_path: Path) -> None:
    png = tmp_path / "pos.png"
    run_example("render_png.py", "octi", "12", str(png), cwd=tmp_path)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_render_and_list(tmp_path: Path) -> None:
    png = tmp_path / "g.png"
    cli = [sys.executable, "-m", "training.cli"]
    out = subprocess.run(
        [*cli, "render", "otto_octopus", "--steps", "9", "--out", str(png)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert png.exists()
    out = subprocess.run([*cli, "list"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "eightfold/otto_game_over-v0" in out.stdout
    assert "eightfold/otto_game_over-single-v0" in out.stdout  # the Gymnasium id of its view
    out = subprocess.run(
        [*cli, "play", "octi", "--param", "variant=nonsense", "--random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and "variant" in out.stderr


def _example_module(name: str):  # type: ignore[no-untyped-def]
    """``examples/<name>.py`` imported as a module (the examples are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _strength_module():  # type: ignore[no-untyped-def]
    return _example_module("mcts_strength")


def test_mcts_strength_oracle_reads_the_true_state() -> None:
    """``--oracle`` (a ceiling, not a bot): the search's 'determinization' is the true state,
    where the honest game re-deals what the seat cannot see."""
    import json

    import numpy as np

    from envs.over_and_out.game import OverAndOutGame

    game = OverAndOutGame(num_players=2)
    oracle = _strength_module().oracle_game(game)
    assert oracle.config == game.config and isinstance(oracle, OverAndOutGame)
    state = game.new_initial_state(np.random.default_rng(5))
    truth = json.dumps(state.to_dict(), sort_keys=True)
    from tests.core.helpers import position_json

    seen = {position_json(game.resample_hidden(state, 0, np.random.default_rng(k))) for k in range(5)}
    assert any(s != position_json(state) for s in seen)  # the honest re-deal changes the deal
    for k in range(3):
        assert (
            json.dumps(oracle.resample_hidden(state, 0, np.random.default_rng(k)).to_dict(), sort_keys=True)
            == truth
        )


def test_mcts_strength_partial_oracles_keep_only_their_part() -> None:
    """``--oracle hands`` keeps every hand and re-shuffles the piles; ``--oracle deal`` keeps
    hands and pile order and re-draws only later chance; other games refuse ``hands``."""
    import numpy as np
    import pytest

    from envs.core.registry import get_game

    mod = _strength_module()
    for name, piles in (("over_and_out", ("draw_pile", "tiptop_pile")), ("otto_octopus", ("pile",))):
        game = get_game(name).game_class()(num_players=2)
        state = game.new_initial_state(np.random.default_rng(7))
        hands = mod.oracle_game(game, "hands")
        deal = mod.oracle_game(game, "deal")
        orders = set()
        for k in range(5):
            h = hands.resample_hidden(state, 0, np.random.default_rng(k))
            d = deal.resample_hidden(state, 0, np.random.default_rng(k))
            assert h.hands == state.hands and d.hands == state.hands
            for pile in piles:
                assert sorted(getattr(h, pile)) == sorted(getattr(state, pile))
                assert getattr(d, pile) == getattr(state, pile)
            orders.add(tuple(getattr(h, piles[0])))
            assert d.rng.integers(2**62) != state.clone().rng.integers(2**62)  # later chance re-drawn
        assert len(orders) > 1
    with pytest.raises(ValueError, match="only for over_and_out, otto_octopus"):
        mod.oracle_game(get_game("octi").game_class()(), "hands")


def test_mcts_strength_script_runs(tmp_path: Path) -> None:
    common = ["--budgets", "5", "--opponents", "random", "-n", "2", "--jobs", "1", "--oracle"]
    args = ["--games", "over_and_out", "--config", "over_and_out:num_players=2", *common]
    out = run_example("mcts_strength.py", *args, cwd=tmp_path)
    assert "(oracle: reads the true state)" in out.stdout and "| over_and_out | mcts:sims=5" in out.stdout
    out = run_example("mcts_strength.py", "--games", "otto_octopus", *common, "hands", cwd=tmp_path)
    assert "(oracle: reads every hand, not the pile order)" in out.stdout
    assert "1/1 chunks, " in out.stderr and "chunks" not in out.stdout  # the running tally: stderr only


def test_openspiel_play_script_runs(tmp_path: Path) -> None:
    """OpenSpiel's ISMCTS and plain MCTS against suite bots through ``envs.core.openspiel``."""
    pytest.importorskip("pyspiel")
    out = run_example("openspiel_play.py", "-n", "2", "--bot", "ismcts:sims=5", cwd=tmp_path)
    assert (
        "eightfold_otto_octopus {'num_players': 2, 'rng_seed': 0}: ismcts:sims=5 vs random, 2 games"
        in out.stdout
    )
    out = run_example(
        "openspiel_play.py",
        "--game",
        "octi",
        "--bot",
        "os-mcts:sims=5",
        "--vs",
        "heuristic",
        "-n",
        "2",
        cwd=tmp_path,
    )
    assert "eightfold_octi {}: os-mcts:sims=5 vs heuristic, 2 games: " in out.stdout
    for args, message in (
        (["--bot", "ismcts:sims=0"], "sims must be an int >= 2, got 0"),
        (
            ["--game", "over_and_out", "--bot", "os-mcts:sims=5"],
            "os-mcts: OpenSpiel's MCTSBot takes only games that pay at the end",
        ),
    ):
        bad = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "openspiel_play.py"), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert bad.returncode != 0 and message in bad.stderr, bad.stderr


def test_oao_best_response_worlds_and_round_playouts() -> None:
    """The best-response measurement: ``nothing`` re-deals the other hand, ``hands`` keeps it and
    re-shuffles the piles, ``all`` is the true state; a playout stops when a round's chip is lost."""
    import numpy as np

    from envs.core.bots import make_bot
    from envs.over_and_out.bots import BOTS
    from envs.over_and_out.game import OverAndOutGame

    mod = _example_module("oao_best_response")
    game = OverAndOutGame(num_players=2)
    state = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(0)
    others, orders = set(), set()
    for _ in range(6):
        honest = mod.sample_world(game, state, 0, "nothing", rng)
        hands = mod.sample_world(game, state, 0, "hands", rng)
        true = mod.sample_world(game, state, 0, "all", rng)
        assert honest.hands[0] == hands.hands[0] == true.hands[0] == state.hands[0]
        assert sorted(honest.hands[1] + honest.draw_pile) == sorted(state.hands[1] + state.draw_pile)
        others.add(tuple(honest.hands[1]))
        assert hands.hands[1] == state.hands[1] and sorted(hands.draw_pile) == sorted(state.draw_pile)
        orders.add(tuple(hands.draw_pile))
        assert true.hands == state.hands and true.draw_pile == state.draw_pile
    assert len(others) > 1 and len(orders) > 1
    heuristic = make_bot(game, "heuristic", BOTS)
    for seed in range(6):
        s = state.clone()
        before = sum(s.chips)
        opponent = make_bot(game, ("random", "heuristic")[seed % 2], BOTS)
        kept = mod.round_playout(s, 0, heuristic, opponent, np.random.default_rng(seed))
        assert sum(s.chips) == before - 1 and kept == (s.chips[0] == state.chips[0])


def test_oao_best_response_script_runs(tmp_path: Path) -> None:
    out = run_example("oao_best_response.py", "--knows", "hands", "--playouts", "3", "-n", "2", cwd=tmp_path)
    assert "knows=hands playouts=3 seed=11:" in out.stdout and "against random" in out.stdout
    out = run_example(
        "oao_best_response.py", "--opponent", "heuristic", "--playouts", "2", "-n", "2", cwd=tmp_path
    )
    assert "knows=nothing playouts=2 seed=11:" in out.stdout and "against heuristic" in out.stdout


def _readme_python_blocks() -> list[str]:
    """The ```python blocks of README.md, dedented (some sit inside a list item)."""
    import re
    import textwrap

    text = (ROOT / "README.md").read_text()
    return [
        textwrap.dedent(m.group(2)) for m in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.M | re.S)
    ]


def test_readme_python_blocks_run(tmp_path: Path) -> None:
    """Every Python snippet of the README runs as written (a fresh interpreter each, in an
    empty folder, so a snippet cannot lean on another's names)."""
    import importlib.util

    blocks = _readme_python_blocks()
    assert len(blocks) >= 3
    for block in blocks:
        if "import pyspiel" in block and importlib.util.find_spec("pyspiel") is None:
            continue  # the OpenSpiel section: the openspiel extra (Python >= 3.11) is not installed
        out = subprocess.run(
            [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, f"{block}\n{out.stderr[-3000:]}"


def _readme_command_lines() -> list[str]:
    """The lines of the README's "Command line" block, without their comments and descriptions
    (two or more spaces, or ``#``) and without optional ``[...]`` parts."""
    import re

    text = (ROOT / "README.md").read_text()
    block = re.search(r"^## Command line\n+```\n(.*?)^```", text, re.M | re.S)
    assert block is not None
    lines = []
    for line in block.group(1).splitlines():
        line = re.split(r"\s#|\s{2,}", line, maxsplit=1)[0]
        lines.append(re.sub(r"\s*\[[^\]]*\]", "", line).strip())
    return lines


def test_readme_command_lines_parse() -> None:
    """Every command of the README's "Command line" block is accepted by the parser as written
    (the options exist and take the values shown; nothing is run)."""
    import shlex

    from training.cli import build_parser

    lines = _readme_command_lines()
    assert len(lines) >= 10
    for line in lines:
        words = shlex.split(line)
        assert words[0] == "eightfold", line
        try:
            build_parser().parse_args(words[1:])
        except SystemExit as exc:  # argparse's usage error
            raise AssertionError(f"README command does not parse: {line!r}") from exc


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random_play.py", "chess"], "unknown game 'chess'"),
        (["random_play.py", "over_and_out", "num_players"], "malformed parameter 'num_players'"),
        (["random_play.py", "over_and_out", "num_players=9"], "num_players must be an int in [2, 8]"),
        (["engine_and_bots.py", "chess"], "unknown game 'chess'"),
        (["render_png.py", "octi", "-3"], "steps must be an integer >= 0, got '-3'"),
        (["gym_single_agent.py", "octi", "x"], "steps must be an integer >= 1"),
        (["offline_bc.py", "over_and_out", "3", "1", "nobot"], "unknown bot 'nobot'"),
        (["oao_best_response.py", "--opponent", "nobot"], "--opponent: unknown bot 'nobot'"),
        (["openspiel_play.py", "--game", "octi", "--bot", "ismcts:sims=10"], "has no hidden information"),
        (["openspiel_play.py", "--vs", "nobot"], "unknown bot 'nobot'"),
    ],
    ids=lambda a: "-".join(a) if isinstance(a, list) else None,
)
def test_examples_name_bad_input_without_a_traceback(args: list[str], message: str, tmp_path: Path) -> None:
    """Each example refuses an unknown game, bot, parameter or count in one line naming it."""
    if args[0] == "openspiel_play.py":
        pytest.importorskip("pyspiel")
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / args[0]), *args[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert f"{args[0]}: error: " in out.stderr and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
