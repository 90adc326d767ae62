"""Audit s14 of the Octi engine against rules/octi.md: deterministic scenarios for rules the
other tests reach only through random differential playouts (rule IDs cited in each test)."""

from __future__ import annotations

from envs.octi.game import OctiGame
from tests.octi.helpers import board, custom, legal


def test_oct_43_intermediate_landing_on_enemy_base_does_not_win() -> None:
    """OCT-43 [MODEL]: the three-base win is checked only at END; a series that passes through
    the third enemy base and ends elsewhere does not win, while stopping there does."""
    black = (("c7", ""), ("g7", ""), ("e5", "N,SE"))
    red = (("e6", ""), ("f6", ""), ("a1", ""))
    st = custom("x_classic", black=black, red=red)
    st.play("jump e5 N")  # over e6, lands on the empty Red base e7: Black now stands on all three
    assert not st.is_terminal() and legal(st) == {"jump e7 SE", "stop"}
    st.play("jump e7 SE", "spare e6", "spare f6")  # leaves e7 again
    snap = st.snapshot()
    assert not st.is_terminal() and snap["phase"] == "MAIN" and snap["to_move"] == 1
    assert "e7" not in board(st) and board(st)["g5"] == [[0, "N,SE"]]

    st = custom("x_classic", black=black, red=red)
    st.play("jump e5 N", "stop", "spare e6")
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0]


def test_oct_52_repetition_ignores_pod_ids() -> None:
    """OCT-52: pod ids are not part of the position. Each side swaps two identical pods in a
    3-turn cycle (jump over the neighbour, step back, step back), so the position repeats every
    3 own turns with the ids exchanged and only every 6 with the same ids. The position after
    turn 1 recurs (ids swapped) after turn 7 and (ids equal) after turn 13: draw at turn 13."""
    st = custom(
        black=(("b3", "E,W"), ("c3", "E,W")), red=(("b5", "E,W"), ("c5", "E,W")), repetition_draw=True
    )
    black = (("jump b3 E", "spare c3"), ("step c3 W",), ("step d3 W",))
    red = (("jump b5 E", "spare c5"), ("step c5 W",), ("step d5 W",))
    after: dict[int, list[int]] = {}
    for j in range(7):
        assert not st.is_terminal(), j
        st.play(*black[j % 3])
        after[st.snapshot()["turn"]] = list(st.pos)
        if j == 6:
            break
        st.play(*red[j % 3])
    d3, c3 = st.geo.square("d3"), st.geo.square("c3")
    assert after[1][:2] == [d3, c3] and after[13][:2] == [d3, c3]
    assert after[7][:2] == [c3, d3] and after[7][4:6] == [after[1][5], after[1][4]]  # ids exchanged
    # with ids counted the third occurrence would come only after turn 25
    assert st.is_terminal() and not st.is_truncated() and list(st.returns()) == [0.0, 0.0]


def test_oct_47_plane_22_in_declare_shows_the_first_movers_jumps() -> None:
    """OCT-47 / doc page plane 22: in DECLARE the pod whose series may continue (the first
    mover) is the active pod; plane 22 marks the square it jumped, plane 21 the asked pod."""
    game = OctiGame(variant="x_fast")
    st = custom("x_fast", black=(("c3", "N"), ("c3", "E")), red=(("c4", ""), ("i9", "")))
    st.play("jump c3.0 N")
    assert legal(st) == {"with c3", "without c3"}
    o = game.observe(st, 0)
    assert o[22, 3, 2] == 1 and o[22].sum() == 1  # c4 = row 3, column 2
    assert o[21, 2, 2] == 1 and o[21].sum() == 1  # the asked pod on c3
    assert o[28].all()  # DECLARE
    st.play("without c3")  # no further jump: CAPTURE has no active pod, plane 22 is empty
    assert legal(st) == {"capture c4", "spare c4"}
    assert not game.observe(st, 0)[22].any()
