"""The README's examples run as written (subprocess smoke tests, seconds each)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args",
    [
        ["random_play.py", "octi"],
        ["random_play.py", "over_and_out", "num_players=3"],
        ["random_play.py", "otto_game_over", 'episode="match"'],
        ["random_play.py", "otto_octopus"],
        ["engine_and_bots.py", "over_and_out"],
    ],
    ids=lambda a: "-".join(a),
)
def test_example_runs(args: list[str], tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / args[0]), *args[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "returns" in out.stdout or "win rate" in out.stdout


def test_render_example_writes_png(tmp_path: Path) -> None:
    png = tmp_path / "pos.png"
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "render_png.py"), "octi", "12", str(png)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
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
    out = subprocess.run(
        [*cli, "play", "octi", "--param", "variant=nonsense", "--random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 2 and "variant" in out.stderr
