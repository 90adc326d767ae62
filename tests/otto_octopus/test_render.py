"""Otto the Octopus's picture against the state."""

from __future__ import annotations

import numpy as np

from envs.otto_octopus import board as B
from envs.otto_octopus.game import OttoOctopusGame


def test_render_marks_the_start_square_of_each_arm_not_begun() -> None:
    """The text marks an unstarted arm's start square with an arrow (only that arm's first tile
    may go there); the picture does too, and drops it once the arm has begun."""
    from envs.otto_octopus.render import CELL, OTTO_C, _origin, render_rgb

    game = OttoOctopusGame(num_players=2)
    st = game.new_initial_state(np.random.default_rng(3))
    rng = np.random.default_rng(3)
    for _ in range(12):
        st.apply(int(rng.choice(st.legal_actions())))

    def purple(img: np.ndarray, sq: int) -> int:
        x0, y0 = _origin(sq)
        return int((img[y0 : y0 + CELL, x0 : x0 + CELL] == OTTO_C).all(axis=-1).sum())

    img = render_rgb(st)
    unstarted = [sq for sq, a in B.ARM_OF_START.items() if st.ocean.arm_state[a] == B.UNSTARTED]
    assert unstarted and len(unstarted) < len(B.ARM_OF_START)
    for sq in unstarted:  # an arrow: a few hundred pixels, far fewer than an arm tile's
        assert 100 < purple(img, sq) < 600, sq
    # the empty squares that start no arm have no arrow
    water = [sq for sq in range(64) if st.ocean.tiles[sq] < 0 and sq not in B.ARM_OF_START]
    assert water and all(purple(img, sq) < 50 for sq in water)  # an arm beside it may touch the edge
