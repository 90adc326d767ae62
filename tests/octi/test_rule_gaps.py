"""Set-up positions closing gaps a review found with planted bugs (rule IDs cited).

Positions come from the ``position`` reset option (spec §8 snapshot schema); boards in
docstrings use the §9 legend: B/R pod, B4 stack, + empty base, . empty square.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.octi.board import DIR_NAMES
from envs.octi.game import OctiGame
from envs.octi.rules import State
from tests.octi.helpers import board, legal


def _load(position: dict[str, Any], **params: Any) -> State:
    return OctiGame(**params).new_initial_state(np.random.default_rng(0), {"position": position})


def test_oct_39_37_x_fast_captured_pods_never_enter_or_liberate() -> None:
    """OCT-39 / OCT-37 / OCT-36: in x_fast captured pods have no way back and are kept apart
    from reserve pods, so with an empty reserve no ``enter`` (even onto the empty own bases
    e3, g3) and no ``liberate`` is legal: only the prongs of the one board pod remain.

    3 .  .  B  .  +  .  +    Black: c3 (no prongs); reserve 0, captured 6
      a  b  c  d  e  f  g    Red: i9 (no prongs); reserve 0, captured 6
    """
    st = _load(
        {"board": {"c3": [[0, ""]], "i9": [[1, ""]]}, "reserve": [0, 0], "captured": [6, 6]},
        variant="x_fast",
    )
    snap = st.snapshot()
    assert snap["reserve"] == [0, 0] and snap["captured"] == [6, 6]
    assert legal(st) == {f"prong c3 {d}" for d in DIR_NAMES}


def test_oct_06_later_hop_of_a_series_may_not_land_off_the_board() -> None:
    """OCT-06: a landing square off the board makes a hop illegal, for every hop of a series
    (OCT-18), not only the first. Black b3 (N,E,W) jumps N over b4 to b5; from b5 the jump W
    over a5 would land off the board (file 0), so CHAIN offers only the jump E over c5 and
    ``stop``; f7, the last square (where an index -1 would wrap), is empty.

    5 R  .  R  .         after the first hop: b5 B, b4 jumped
    4 .  R  .  .
    3 .  B  .  .
      a  b  c  d
    """
    st = _load({"board": {"b3": [[0, "N,E,W"]], "a5": [[1, ""]], "b4": [[1, ""]], "c5": [[1, ""]]}})
    assert "f7" not in board(st)
    st.play("jump b3 N")
    assert st.snapshot()["phase"] == "CHAIN"
    assert legal(st) == {"jump b5 E", "stop"}
    st.play("jump b5 E")  # lands d5; from d5 nothing further: the capture queue b4, c5
    assert legal(st) == {"capture b4", "spare b4"}


def test_oct_34_declarations_come_in_ascending_id_order() -> None:
    """OCT-34 / OCT-35: after the first hop from a stack, each other pod on the origin with a
    legal first hop is asked ``with``/``without`` in ascending id, and the ``with`` pods then
    move in ascending id. Stack d4 = ids 0 (N), 1 (E), 2 (W), 3 (NE); pod 1 steps E first, so
    d4 holds 0, 2, 3 = d4.0, d4.1, d4.2 and is asked in that order.

    5 .  .  .  .
    4 .  .  B4 .         Red: i9 (no prongs)
      b  c  d  e
    """
    st = _load(
        {"board": {"d4": [[0, "N"], [0, "E"], [0, "W"], [0, "NE"]], "i9": [[1, ""]]}},
        variant="x_fast",
    )
    st.play("step d4.1 E")
    assert st.snapshot()["phase"] == "DECLARE"
    assert legal(st) == {"with d4.0", "without d4.0"}  # pod 0
    st.play("with d4.0")
    assert legal(st) == {"with d4.1", "without d4.1"}  # pod 2
    st.play("without d4.1")
    assert legal(st) == {"with d4.2", "without d4.2"}  # pod 3
    st.play("with d4.2")
    assert st.snapshot()["phase"] == "MOVER"
    assert legal(st) == {"step d4.0 N"}  # pod 0 moves before pod 3
    st.play("step d4.0 N")
    assert legal(st) == {"step d4.1 NE"}  # d4 now holds pods 2, 3
    st.play("step d4.1 NE")
    snap = st.snapshot()
    assert snap["phase"] == "MAIN" and snap["to_move"] == 1 and snap["turn"] == 1
    b = board(st)
    assert (b["d5"], b["e4"], b["d4"], b["e5"]) == ([[0, "N"]], [[0, "E"]], [[0, "W"]], [[0, "NE"]])


def test_declare_focus_planes_show_the_pod_asked_about() -> None:
    """The doc page's planes 40-47 (prongs of the focus pod, the queue head in DECLARE): with
    three pods left on the origin, each ``with``/``without`` question shows the prongs of the
    pod it is about (OCT-34's ascending order), not another pod of the stack."""
    game = OctiGame(variant="x_fast")
    st = _load(
        {"board": {"d4": [[0, "N"], [0, "E"], [0, "W"], [0, "NE"]], "i9": [[1, ""]]}},
        variant="x_fast",
    )
    st.play("step d4.1 E")

    def focus_prongs() -> set[str]:
        planes = game.observe(st, 0)[40:48].sum(axis=(1, 2))  # player_0: its own directions
        return {DIR_NAMES[e] for e in np.flatnonzero(planes)}

    assert legal(st) == {"with d4.0", "without d4.0"} and focus_prongs() == {"N"}  # pod 0
    st.play("with d4.0")
    assert focus_prongs() == {"W"}  # pod 2
    st.play("without d4.1")
    assert focus_prongs() == {"NE"}  # pod 3
