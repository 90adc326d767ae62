"""Spec §9 conformance scenarios OCT-S01 .. OCT-S13, one test each (plus variants)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.octi.board import DIR_NAMES
from envs.octi_v0 import env
from tests.octi.helpers import S02_MOVES, S11_MOVES, S13_MOVES, board, diagram, legal, new, play, turns

S02_BEFORE_5 = """
7 .  .  .  .  .  .
6 .  R  +  +  R  .
5 .  .  .  R  .  .
4 .  .  .  .  R  .
3 .  .  B  .  .  .
2 .  B  +  B  B  .
1 .  .  .  .  .  .
"""


def _is_illegal(state: object, text: str) -> bool:
    try:
        a = state.string_to_action(text)  # type: ignore[attr-defined]
    except ValueError:
        return True
    return not state.legal_mask()[a]  # type: ignore[attr-defined]


def test_s01_opening() -> None:
    """OCT-S01 (OCT-03, OCT-07, OCT-12): opening legal set, socket used once, first step."""
    st = new()
    assert legal(st) == {f"prong {sq} {d}" for sq in ("b2", "c2", "d2", "e2") for d in DIR_NAMES}
    assert _is_illegal(st, "step c2 N")
    play(st, "1. prong c2 N / prong d6 S")
    assert _is_illegal(st, "prong c2 N") and _is_illegal(st, "jump c2 N")
    assert "step c2 N" in legal(st)
    assert len(legal(st)) == 32
    st.play("step c2 N")
    snap = st.snapshot()
    assert snap["board"]["c3"] == [[0, "N"]] and "c2" not in snap["board"]
    assert snap["supply"] == [11, 11] and snap["turn"] == 3 and snap["to_move"] == 1


def test_s02_rulebook_example_game() -> None:
    """OCT-S02: the rulebook's example game replayed move by move through the notation (OCT-42)."""
    steps = turns(S02_MOVES)
    st = new()
    st.play(*steps[:8])  # up to and including Red's jump of move 4
    assert st.snapshot()["phase"] == "CAPTURE"
    assert legal(st) == {"capture d5", "spare d5"}
    st.play(steps[8])
    assert st.snapshot()["supply"] == [9, 10]
    assert diagram(st) == "\n".join(r.replace("  ", "  ") for r in S02_BEFORE_5.strip().splitlines())
    prongs = {sq: pods[0][1] for sq, pods in board(st).items() if pods[0][1]}
    assert prongs == {"b2": "N,NE", "c3": "N", "d5": "S", "e4": "SE"}
    st.play(steps[9])
    assert st.snapshot()["phase"] == "CHAIN" and legal(st) == {"jump d4 N", "stop"}
    st.play(steps[10])
    assert st.is_terminal() and st.snapshot()["phase"] == "OVER"
    assert list(st.returns()) == [1.0, -1.0]


def test_s02_through_env() -> None:
    """OCT-S02 through env(): both agents terminated, rewards +1 / -1 (OCT-46)."""
    e = env()
    e.reset(seed=0)
    for s in turns(S02_MOVES):
        e.step(e.unwrapped.string_to_action(s))
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    # the doc page: once over, the turn and phase planes are 0, though the base win came
    # midway through a turn whose origin the state keeps
    assert e.unwrapped.state.to_dict()["origin"] >= 0
    turn_planes = [*range(20, 32), 38, *range(40, 48)]
    for agent in e.agents:
        assert not e.observe(agent)["observation"][turn_planes].any()


def test_s03a_capture_own_then_capture() -> None:
    """OCT-S03 (a) (OCT-25, OCT-26): Red captures its own pod; Black then captures its own c3."""
    st = play(new(), S02_MOVES.replace("spare d5", "capture d5").split("5.")[0])
    snap = st.snapshot()
    assert snap["supply"] == [9, 11] and "d5" not in snap["board"]
    st.play("jump b2 NE")
    assert st.snapshot()["phase"] == "CAPTURE" and legal(st) == {"capture c3", "spare c3"}
    st.play("capture c3")
    snap = st.snapshot()
    assert snap["supply"] == [10, 11] and snap["to_move"] == 1 and not st.is_terminal()
    black = sorted(sq for sq, pods in snap["board"].items() if pods[0][0] == 0)
    assert black == ["d2", "d4", "e2"]


def test_s03b_stop_then_capture_phase() -> None:
    """OCT-S03 (b) (OCT-20): stopping a series leads to the capture decision."""
    st = play(new(), S02_MOVES.split("5.")[0])
    st.play("jump b2 NE", "stop")
    assert st.snapshot()["phase"] == "CAPTURE" and legal(st) == {"capture c3", "spare c3"}


S04_MOVES = """
1. prong b2 NW / prong b6 S
2. step b2 NW / step b6 S
3. prong c2 NW / step b5 S
4. step c2 NW / prong c6 S
5. prong a3 E / step c6 S
6. prong a3 N / step c5 S
7. prong a3 SW / prong e6 S
"""


def test_s04_series_return_to_origin_captures() -> None:
    """OCT-S04 (OCT-18, OCT-19, OCT-23, OCT-28): series back onto the origin, capture order."""
    st = play(new(), S04_MOVES)
    snap = st.snapshot()
    assert snap["supply"] == [7, 9]
    assert diagram(st).splitlines()[1:6] == [
        "6 .  +  +  R  R  .",
        "5 .  .  .  .  .  .",
        "4 .  R  R  .  .  .",
        "3 B  B  .  .  .  .",
        "2 .  +  +  B  B  .",
    ]
    assert snap["board"]["a3"] == [[0, "N,E,SW,NW"]]
    st.play("jump a3 E")
    assert legal(st) == {"jump c3 N", "jump c3 NW", "stop"}
    st.play("jump c3 N")
    assert legal(st) == {"jump c5 SW", "stop"}
    st.play("jump c5 SW")
    assert st.snapshot()["phase"] == "CAPTURE"
    assert [st.geo.names[st.pos[g]] for g in st.cqueue] == ["b3", "c4", "b4"]
    st.play("spare b3", "capture c4", "capture b4")
    snap = st.snapshot()
    red = sorted(sq for sq, pods in snap["board"].items() if pods[0][0] == 1)
    assert red == ["d6", "e6"]
    assert snap["board"]["a3"] == [[0, "N,E,SW,NW"]]
    assert snap["supply"] == [9, 9] and snap["turn"] == 15 and snap["to_move"] == 1


def test_s05_no_legal_action_loses() -> None:
    """OCT-S05 (OCT-44, OCT-13, OCT-06): Red blocked with an empty supply loses."""
    black = ["prong b2 S", "prong b2 N"] + ["step b2 S" if i % 2 == 0 else "step b1 N" for i in range(15)]
    red = [
        "prong b6 N",
        "step b6 N",
        "prong c6 N",
        "step c6 N",
        "prong d6 N",
        "step d6 N",
        "prong e6 N",
        "step e6 N",
        "prong b7 NE",
        "prong b7 NW",
        "prong c7 NE",
        "prong c7 NW",
        "prong d7 NE",
        "prong d7 NW",
        "prong e7 NE",
        "prong e7 NW",
    ]
    st = new()
    for b, r in zip(black[:16], red, strict=True):
        st.play(b, r)
    assert st.supply[1] == 0 and not st.is_terminal()
    st.play(black[16])
    assert st.is_terminal() and st.turn == 33
    assert list(st.returns()) == [1.0, -1.0]


def test_s06_truncation() -> None:
    """OCT-S06 (OCT-45): max_turns=4 truncates as a draw."""
    e = env(max_turns=4)
    e.reset(seed=0)
    for s in turns("1. prong c2 N / prong d6 S\n2. prong b2 N / prong e6 S"):
        e.step(e.unwrapped.string_to_action(s))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


S07_MOVES = "1. prong b2 N / prong e6 S\n2. prong b2 S / prong e6 N\n" + (
    "3. step b2 N / step e6 S\n4. step b3 S / step e5 N\n" * 2
)


@pytest.mark.parametrize("flag", [True, False])
def test_s07_repetition(flag: bool) -> None:
    """OCT-S07 (OCT-52): threefold repetition draws only with the flag."""
    st = play(new(repetition_draw=flag), S07_MOVES)
    assert st.turn == 12
    assert st.is_terminal() is flag
    if flag:
        assert not st.is_truncated() and list(st.returns()) == [0.0, 0.0]


def test_s08_illegal_action() -> None:
    """OCT-S08 (OCT-48): an illegal index ends the game, -1 to the mover only."""
    e = env()
    e.reset(seed=0)
    assert e.last()[0]["action_mask"][32] == 0
    e.step(32)
    assert all(e.terminations.values())
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}


S09_MOVES = """
1. enter c3 / prong g7 S
2. prong c3.0 N / prong e7 S
3. prong c3.1 N / prong c7 S
"""


def test_s09_stack_move_with() -> None:
    """OCT-S09 (a) (OCT-30..OCT-34, OCT-36): a stack steps together after `with`."""
    st = new("x_fast")
    prongs = {f"prong {sq} {d}" for sq in ("c3", "e3", "g3") for d in DIR_NAMES}
    assert legal(st) == prongs | {"enter c3", "enter e3", "enter g3"}
    play(st, S09_MOVES)
    assert board(st)["c3"] == [[0, "N"], [0, "N"]]
    st.play("step c3.0 N")
    assert st.snapshot()["phase"] == "DECLARE" and legal(st) == {"with c3", "without c3"}
    st.play("with c3")
    assert st.snapshot()["phase"] == "MOVER" and legal(st) == {"step c3 N"}
    st.play("step c3 N")
    assert board(st)["c4"] == [[0, "N"], [0, "N"]] and "c3" not in board(st)
    assert st.to_move == 1


def test_s09_stack_move_without() -> None:
    """OCT-S09 (b) (OCT-34, OCT-17): `without` leaves the pod; it can be jumped next turn."""
    st = play(new("x_fast"), S09_MOVES)
    st.play("step c3.0 N", "without c3")
    assert st.to_move == 1 and len(board(st)["c4"]) == 1 and len(board(st)["c3"]) == 1
    st.play("prong g7 SW", "jump c3 N")
    assert st.snapshot()["phase"] == "CAPTURE" and legal(st) == {"capture c4", "spare c4"}


S10_MOVES = """
1. enter c3 / prong c7 S
2. prong c3.0 N / step c7 S
3. prong c3.1 N / step c6 S
4. prong e3 N / step c5 S
"""


def test_s10_co_movers_jump_same_pod() -> None:
    """OCT-S10 (OCT-19 per pod, OCT-29, OCT-32): both stack pods jump c4; one decision."""
    st = play(new("x_fast"), S10_MOVES)
    st.play("jump c3.0 N", "with c3")
    assert legal(st) == {"jump c3 N"}
    st.play("jump c3 N")
    assert legal(st) == {"capture c4", "spare c4"}
    st.play("capture c4")
    snap = st.snapshot()
    assert snap["board"]["c5"] == [[0, "N"], [0, "N"]]
    assert snap["supply"] == [23, 24] and snap["captured"] == [0, 1]


def test_s11_return_to_vacated_origin() -> None:
    """OCT-S11 (OCT-33, OCT-35, OCT-19, OCT-22): landing on O is legal once every pod there moves."""
    st = play(new("x_fast"), S11_MOVES)
    b = board(st)
    assert b["e3"] == [[0, "N,E,SW"], [0, "S"]] and b["f3"] == [[0, "W"]] and b["f4"] == [[0, "NW"]]
    assert b["g4"] == [[1, "S"]] and "g3" not in b and st.snapshot()["supply"] == [19, 18]
    st.play("jump e3.0 E", "with e3")
    assert st.snapshot()["phase"] == "CHAIN" and legal(st) == {"jump g3 N", "stop"}
    st.play("jump g3 N")
    assert legal(st) == {"jump g5 SW", "stop"}
    st.play("jump g5 SW")
    assert st.snapshot()["phase"] == "MOVER" and legal(st) == {"step e3.1 S"}
    st.play("step e3.1 S")
    assert [st.geo.names[st.pos[g]] for g in st.cqueue] == ["f3", "g4", "f4"]
    st.play("spare f3", "capture g4", "spare f4")
    b = board(st)
    assert b["e3"] == [[0, "N,E,SW"]] and b["e2"] == [[0, "S"]] and "g4" not in b
    assert st.snapshot()["supply"] == [20, 18]


def test_s11_variant_without() -> None:
    """OCT-S11 variant (FAQ #8, OCT-33): with pod 4 staying, the return to e3 is not offered."""
    st = play(new("x_fast"), S11_MOVES)
    st.play("jump e3.0 E", "without e3", "jump g3 N")
    assert st.snapshot()["phase"] == "CAPTURE" and legal(st) == {"capture f3", "spare f3"}


S12_MOVES = """
1. prong e3 N / prong e7 SE
2. step e3 N / step e7 SE
3. enter e3 / prong g7 N
4. prong e3 N / prong g7 NE
5. jump e3 N, capture e4 / prong c7 N
6. step e5 N / prong c7 NW
7. step e6 N / prong g7 E
"""


def test_s12_liberation_and_enemy_base_entry() -> None:
    """OCT-S12 (OCT-38, OCT-40, OCT-41, OCT-27, OCT-43): classic liberation, entry on an enemy base."""
    st = play(new("x_classic"), S12_MOVES)
    assert not st.is_terminal()
    assert {s for s in legal(st) if not s.startswith("prong")} == {
        "enter c3",
        "enter e3",
        "enter g3",
        "enter e7",
        "liberate c3",
        "liberate g3",
        "liberate e7",
        "step e7 N",
    }
    st.play("liberate e7")
    snap = st.snapshot()
    assert snap["board"]["e7"] == [[0, ""], [0, "N"]]
    assert snap["supply"] == [24, 19] and snap["captured"] == [0, 0]


def test_s12_fast_wins_on_landing() -> None:
    """OCT-S12 in x_fast (OCT-42): the same moves end at Black's `step e6 N`."""
    st = new("x_fast")
    steps = turns(S12_MOVES)
    assert steps[-2] == "step e6 N"
    st.play(*steps[:-2])
    assert not st.is_terminal()
    st.play(steps[-2])
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0]


def test_s13_three_base_win() -> None:
    """OCT-S13 (OCT-43, OCT-31): three stack pods land on the three Red bases; win at END."""
    st = play(new("x_classic"), S13_MOVES)
    b = board(st)
    assert b["e5"] == [[0, "N"], [0, "N,NW"], [0, "N,NE"]]
    assert all(sq in b and b[sq][0][0] == 1 for sq in ("d6", "e6", "f6"))
    assert not any(sq in b for sq in ("c7", "e7", "g7"))
    st.play("jump e5.0 N", "with e5.0", "with e5.1", "jump e5.0 NW", "jump e5 NE")
    assert [st.geo.names[st.pos[g]] for g in st.cqueue] == ["e6", "d6", "f6"]
    st.play("spare e6", "spare d6")
    assert not st.is_terminal()
    st.play("spare f6")
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0]


def test_scenarios_replay_through_env_keeps_masks_consistent() -> None:
    """Every §9 move is the legal action of the agent to act in env() (OCT-46)."""
    for variant, moves in (("x_fast", S11_MOVES), ("x_classic", S13_MOVES)):
        e = env(variant=variant)
        e.reset(seed=0)
        for s in turns(moves):
            a = e.unwrapped.string_to_action(s)
            assert e.last()[0]["action_mask"][a] == 1
            e.step(a)
        assert np.isfinite(e.last()[0]["observation"]).all()
