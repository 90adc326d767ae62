"""The README's Development checks, run by CI: ``ruff check`` and ``ruff format --check`` over the
packages, the tests and the examples, and strict ``mypy`` over the packages and the examples.

Each check runs the installed tool in a subprocess, exactly as the README's lines do, so a lint
error or a type error fails the suite instead of waiting for someone to run the tools by hand.
The dev extra bounds both tools to one minor release (``pyproject.toml``): their rules change
between minor releases, and CI installs whatever the bounds allow. The typed libraries (numpy,
torch, gymnasium, ...) are not bounded that way, so a release of one of them may bring new
mypy errors: annotate for it, or bound it, as numpy 1's stubs are skipped below.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=540)


def _ruff_or_skip() -> None:
    pytest.importorskip("ruff", reason="ruff is in the dev extra")


def test_ruff_check_passes() -> None:
    _ruff_or_skip()
    done = _run(["ruff", "check", "--no-cache", "envs", "training", "tests", "examples"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_check_passes() -> None:
    _ruff_or_skip()
    done = _run(["ruff", "format", "--check", "--no-cache", "envs", "training", "tests", "examples"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_passes(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    import numpy as np

    if int(np.__version__.split(".")[0]) < 2:  # .ci/lowest-versions.txt's numpy 1.24
        pytest.skip(
            "the annotations are checked against numpy 2's stubs (numpy 1's want ndarray's type arguments)"
        )
    done = _run(["mypy", "--cache-dir", str(tmp_path / "mypy"), "envs", "training", "examples"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout, done.stdout


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """The three checks fail on a file with a lint error, a badly formatted line and a type
    error, read with the project's own settings: a check that cannot fail checks nothing."""
    _ruff_or_skip()
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import os\n\nimport pytest\n\n\ndef f(x: int) -> str:\n    return x+1\n\n\n"
        "def g(y):\n    with pytest.raises(ValueError):\n        int(y)\n"
    )
    linted = _run(["ruff", "check", "--no-cache", "--output-format", "concise", "bad.py"], cwd=tmp_path)
    assert linted.returncode == 1 and "F401" in linted.stdout, linted.stdout  # os unused
    assert "PT011" in linted.stdout, linted.stdout  # selected by the project's settings only
    assert _run(["ruff", "format", "--check", "--no-cache", "bad.py"], cwd=tmp_path).returncode == 1  # x+1
    typed = _run(["mypy", "--cache-dir", str(tmp_path / "mypy"), "bad.py"], cwd=tmp_path)
    assert typed.returncode == 1 and "Incompatible return value type" in typed.stdout, typed.stdout
    assert "[no-untyped-def]" in typed.stdout, typed.stdout  # strict = true, from the project's settings
