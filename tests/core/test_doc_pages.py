"""The code on each env's doc page (its module docstring) runs as written."""

from __future__ import annotations

import importlib
import json
import re
import textwrap
from typing import Any

import numpy as np
import pytest

from tests.core.conftest import available_games


def _indented_blocks(doc: str) -> list[str]:
    """The blocks indented by 4 spaces (reST literal blocks), dedented."""
    return [textwrap.dedent(m.group(0)) for m in re.finditer(r"(?:^    \S.*\n(?:^ {4,}.*\n)*)+", doc, re.M)]


@pytest.mark.parametrize("name", available_games())
def test_usage_example_runs(name: str) -> None:
    """The page's usage block (``from envs ...``) runs, and a random game then plays out."""
    doc = importlib.import_module(f"envs.{name}.env").__doc__ or ""
    blocks = [b for b in _indented_blocks(doc) if b.startswith("from envs")]
    assert blocks, f"envs/{name}/env.py has no usage example"
    for block in blocks:
        scope: dict[str, Any] = {}
        exec(block, scope)
        # the env the block built: ``env`` (or ``e`` where ``env`` is the imported factory)
        env = scope["e"] if callable(scope.get("env")) else scope["env"]
        for _agent in env.agent_iter(max_iter=200):  # then it plays
            obs, _r, term, trunc, _i = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_otto_game_over_position_example_loads_with_the_legal_moves_it_names() -> None:
    """OTTO Game Over's page: the spec §9 S3 example position loads through ``reset`` and has
    exactly the legal moves the page lists (it once carried a ``shapes`` entry of another
    position and raised)."""
    from envs import otto_game_over_v0
    from envs.otto_game_over import env as module

    doc = module.__doc__ or ""
    _, _, rest = doc.partition("Example (spec §9 S3")
    assert rest, "the example is gone from the page"
    named = set(re.findall(r"``((?:drawn|table) [a-e][1-5] r[0-3])``", rest.split("::", 1)[0]))
    block = next(b for b in _indented_blocks(rest) if b.startswith("{"))
    position = json.loads(block)
    env = otto_game_over_v0.env()
    env.reset(seed=0, options={"position": position})
    raw = env.unwrapped
    legal = {raw.action_to_string(int(a)) for a in np.flatnonzero(raw.state.legal_mask())}
    assert len(named) == 6 and legal == named
