"""The fast placement predictor agrees with tracing (OGO-05, OGO-06, OGO-08) on random boards."""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over import flow
from envs.otto_game_over.geometry import LINK, closed_shapes
from envs.otto_game_over.rules import Config, State
from envs.otto_game_over.scoring import eight_bits_from_x, outcome, signature, x_needs


def test_links_are_symmetric() -> None:
    """OGO-05: every port is joined to exactly one other port (neighbour or frame)."""
    assert all(LINK[LINK[g]] == g and LINK[g] != g for g in range(200))


@pytest.mark.parametrize("square_lobes", [False, True])
def test_predictor_matches_tracing(square_lobes: bool) -> None:
    """OGO-08, OGO-12: the mask's closure prediction equals a trace of the placed tile."""
    rng = np.random.default_rng(7)
    config = Config(eight_lobes="round_or_square" if square_lobes else "round")
    checked = 0
    for _ in range(150):
        st = State(config, np.random.default_rng(0))
        for s in rng.permutation(25)[: rng.integers(8, 24)]:
            if s != 12:
                flow.set_tile(st, int(s), int(rng.integers(8)), int(rng.integers(4)))
        empty = [s for s in range(25) if st.design[s] < 0]
        xn = x_needs(st.near, st.design, st.rot, square_lobes)
        for s in empty:
            sig = signature(st.near, st.far, s)
            for d in range(8):
                score, eight, pts = outcome(sig, d, square_lobes)
                eight |= eight_bits_from_x(xn.get(s, []), d)
                for k in range(4):
                    flow.set_tile(st, s, d, k)
                    shapes, eights = closed_shapes(st.design, st.rot, s, square_lobes)
                    flow.clear_tile(st, s)
                    assert bool(eight >> k & 1) == bool(eights)
                    assert pts[k] == sum((1, 2, 4)[sh] for sh, _v in shapes)
                    checked += 1
    assert checked > 10_000
