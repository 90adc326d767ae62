"""Golden playthroughs: a fresh seeded game must match its file in tests/golden/ line by line.

After an intended change of rules, encoding or seeding: ``python -m tests.golden.regenerate``
and review the diff.
"""

from __future__ import annotations

from typing import Any

from envs.core.playthrough import playthrough
from tests.golden.regenerate import golden_path


def test_golden_playthrough(golden_config: tuple[str, dict[str, Any]]) -> None:
    name, params = golden_config
    path = golden_path(name, params)
    assert path.exists(), f"missing {path.name}: run python -m tests.golden.regenerate {name}"
    expected = path.read_text().splitlines()
    actual = playthrough(name, params).splitlines()
    for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
        assert e == a, f"{path.name} line {i + 1} differs:\n  golden: {e}\n  now:    {a}"
    assert len(expected) == len(actual), f"{path.name}: {len(expected)} golden lines, {len(actual)} now"
