"""One scenario per rule ID of spec §4 not already exercised by the §9 scenarios (and a few more).

Boards in docstrings use the §9 legend: B/R pod, B2 stack, + empty base, . empty square.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.octi.board import DIR_NAMES
from envs.octi.game import OctiGame
from envs.octi.rules import CAPTURED, RESERVE, Config, State
from tests.octi.helpers import board, custom, legal, new, play


def test_basic_board_and_bases() -> None:
    """OCT-01: 6 files x 7 ranks; bases b2-e2 (Black) and b6-e6 (Red)."""
    st = new()
    assert (st.geo.width, st.geo.height) == (6, 7)
    assert {st.geo.names[s] for s in st.geo.bases[0]} == {"b2", "c2", "d2", "e2"}
    assert {st.geo.names[s] for s in st.geo.bases[1]} == {"b6", "c6", "d6", "e6"}


def test_x_board_and_bases() -> None:
    """OCT-02: 9x9, bases c3 e3 g3 / c7 e7 g7 (one constant for both X variants)."""
    for variant in ("x_fast", "x_classic"):
        st = new(variant)
        assert (st.geo.width, st.geo.height) == (9, 9)
        assert [st.geo.names[s] for s in st.geo.bases[0]] == ["c3", "e3", "g3"]
        assert sorted(st.geo.names[s] for s in st.geo.bases[1]) == ["c7", "e7", "g7"]


@pytest.mark.parametrize(
    "variant,on_board,reserve,supply", [("basic", 4, 0, 12), ("x_fast", 3, 4, 25), ("x_classic", 3, 4, 25)]
)
def test_setup(variant: str, on_board: int, reserve: int, supply: int) -> None:
    """OCT-03: prongless pods on every own base, the rest in reserve, supply 12 / 25."""
    snap = new(variant).snapshot()
    assert snap["supply"] == [supply, supply] and snap["reserve"] == [reserve, reserve]
    assert all(pods == [[pods[0][0], ""]] for pods in snap["board"].values())
    assert len(snap["board"]) == 2 * on_board


def test_first_player_and_pod_ids() -> None:
    """OCT-04: player_0 moves first; ids follow each owner's left-to-right bases."""
    st = new()
    assert st.current_player() == 0
    assert [st.geo.names[s] for s in st.pos] == ["b2", "c2", "d2", "e2", "e6", "d6", "c6", "b6"]
    x = new("x_fast")
    assert [x.geo.names[s] if s >= 0 else "-" for s in x.pos] == (
        ["c3", "e3", "g3", "-", "-", "-", "-", "g7", "e7", "c7", "-", "-", "-", "-"]
    )


def test_absolute_directions_and_egocentric_index() -> None:
    """OCT-05: prong S on a Red pod points to rank 1; Red's index uses egocentric 'forward'."""
    st = play(new(), "1. prong c2 N / prong d6 S\n2. prong b2 N /")
    a = st.string_to_action("step d6 S")
    assert a == st.lay.step + 8 * 1 + 0  # d6 is Red's pod id 1; S is Red's forward (e = 0)
    st.apply(a)
    assert board(st)["d5"] == [[1, "S"]]


def test_hard_edge() -> None:
    """OCT-06: step or jump landing off the board is illegal.

    2 B .
    1 B .      Black b1 (S, W) and b2 (S): nothing may leave the board.
      a b
    """
    st = custom(black=(("b1", "S,W"), ("b2", "S")), red=(("e6", "N"),))
    assert "step b1 S" not in legal(st) and "step b1 W" in legal(st)
    assert "jump b2 S" not in legal(st)  # over b1, landing b0 is off the board


def test_moves_only_with_prongs() -> None:
    """OCT-07: no step or jump without a prong in that direction."""
    st = custom(black=(("c3", "N"),), red=(("e6", ""),))
    moves = {s for s in legal(st) if not s.startswith("prong")}
    assert moves == {"step c3 N"}


def test_socket_holds_one_prong() -> None:
    """OCT-08: a full pod (8 prongs) cannot take another prong."""
    st = custom(black=(("c3", ",".join(DIR_NAMES)),), red=(("e6", ""),))
    assert not any(s.startswith("prong c3") for s in legal(st))


def test_colours_never_share_a_square() -> None:
    """OCT-09: random X games never put both colours on one square."""
    game = OctiGame(variant="x_fast", max_turns=120)
    for seed in range(4):
        rng = np.random.default_rng(seed)
        st = game.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal():
            owners: dict[int, int] = {}
            for g, sq in enumerate(st.pos):
                if sq >= 0:
                    assert owners.setdefault(sq, g // st.P) == g // st.P
            legal_a = np.flatnonzero(st.legal_mask())
            st.apply(int(legal_a[rng.integers(legal_a.size)]))


def test_one_action_per_turn() -> None:
    """OCT-10 / OCT-11: one action, then the opponent; no pass action exists."""
    st = new()
    st.play("prong c2 N")
    assert st.current_player() == 1 and st.turn == 1
    with pytest.raises(ValueError, match=r"malformed Octi action"):
        st.string_to_action("pass")


def test_phases_are_steps_of_one_turn() -> None:
    """OCT-11: a jump series and its captures are agent steps of the same player."""
    st = custom(black=(("c3", "N,NE"),), red=(("c4", ""), ("a1", "")))
    st.play("jump c3 N")
    assert st.current_player() == 0 and st.snapshot()["phase"] == "CAPTURE"


def test_step_needs_an_empty_square() -> None:
    """OCT-14: basic: no step onto any occupied square."""
    st = custom(black=(("c3", "N,E"), ("d3", "")), red=(("c4", ""),))
    assert "step c3 N" not in legal(st) and "step c3 E" not in legal(st)


def test_x_step_stacks_on_own_not_enemy() -> None:
    """OCT-15 / OCT-30: X: a step may build a stack on own pods, never onto an enemy."""
    st = custom("x_fast", black=(("c3", "N,E"), ("d3", "")), red=(("c4", ""),))
    assert "step c3 E" in legal(st) and "step c3 N" not in legal(st)
    st.play("step c3 E")
    assert len(board(st)["d3"]) == 2


def test_step_ends_movement() -> None:
    """OCT-16: after a step the turn ends even if a jump were possible from there."""
    st = custom(black=(("c3", "N"),), red=(("c5", ""), ("f6", "")))
    st.play("step c3 N")
    assert st.current_player() == 1 and st.snapshot()["phase"] == "MAIN"


def test_jump_over_either_colour_onto_vacant() -> None:
    """OCT-17: jump over own or enemy pod, never onto an occupied square, never over an empty one."""
    st = custom(black=(("c3", "N,E,W"), ("d3", "")), red=(("c4", ""), ("c5", ""), ("a1", "")))
    ls = legal(st)
    assert "jump c3 E" in ls and "jump c3 N" not in ls and "jump c3 W" not in ls


def test_series_of_jumps_any_direction() -> None:
    """OCT-18 / OCT-21: the series turns corners; stop offered only with a further jump."""
    st = custom(black=(("c3", "N,E"),), red=(("c4", ""), ("d5", ""), ("a1", "")))
    st.play("jump c3 N")
    assert legal(st) == {"jump c5 E", "stop"}
    st.play("jump c5 E")
    assert legal(st) == {"capture c4", "spare c4"}


def test_no_square_twice() -> None:
    """OCT-19: a pod may not jump the same square twice in a turn.

    4 . R .
    3 . . .      Black b3 (E, W): jump c... back over the same square is refused.
    """
    st = custom(black=(("b4", "E,W"),), red=(("c4", ""), ("a1", "")))
    st.play("jump b4 E")
    assert st.snapshot()["phase"] == "CAPTURE"  # jump d4 W over c4 again is not offered


def test_jumping_is_optional() -> None:
    """OCT-20: with a jump available, steps and prongs remain legal."""
    st = custom(black=(("c3", "N,E"),), red=(("c4", ""), ("a1", "")))
    assert {"jump c3 N", "step c3 E", "prong c3 S"} <= legal(st)


def test_jumped_pods_stay_until_end() -> None:
    """OCT-22 / OCT-24: jumped pods keep blocking and are removed only at END."""
    st = custom(black=(("b3", "E,N"),), red=(("c3", ""), ("c4", ""), ("a1", "")))
    st.play("jump b3 E")  # over c3 to d3; c3 stays and still blocks
    assert "jump d3 W" not in legal(st)
    st = play(
        custom(black=(("c3", "N,E"),), red=(("c4", ""), ("d5", ""), ("a1", ""))),
        "1. jump c3 N, jump c5 E, capture c4",
    )
    before = st.snapshot()["captured"]
    assert st.snapshot()["phase"] == "CAPTURE" and "c4" in board(st)  # kept while d5 is decided
    st.play("capture d5")
    assert "c4" not in board(st) and "d5" not in board(st)
    assert st.snapshot()["captured"] == [before[0], before[1] + 2]


def test_capture_either_colour_pod_by_pod() -> None:
    """OCT-23 / OCT-25 / OCT-26: own and enemy pods captured; all prongs to the capturer."""
    st = custom(black=(("c3", "N,E"), ("c4", "S,W")), red=(("c6", "N,S,E"), ("a1", "")))
    before = st.snapshot()["captured"]
    st.play("jump c3 N", "jump c5 N", "capture c4", "capture c6")
    snap = st.snapshot()
    assert snap["captured"] == [before[0] + 1, before[1] + 1] and snap["supply"][0] == 12 - 4 + 2 + 3


def test_prongs_conserved() -> None:
    """OCT-26: prongs on pods + both supplies stay 24 / 50 in random play."""
    for variant, total in (("basic", 24), ("x_classic", 50)):
        game = OctiGame(variant=variant, max_turns=150)
        rng = np.random.default_rng(5)
        st = game.new_initial_state(rng)
        while not st.is_terminal():
            assert sum(bin(m).count("1") for m in st.prongs) + sum(st.supply) == total
            legal_a = np.flatnonzero(st.legal_mask())
            st.apply(int(legal_a[rng.integers(legal_a.size)]))


def test_captured_pods_have_no_way_back_in_basic_and_fast() -> None:
    """OCT-27 / OCT-37 / OCT-39 / OCT-40: captured pods go to the captured pool; only x_classic
    liberates (a pod on an enemy base and a captured pod); basic and x_fast cannot."""
    moves = (
        "1. prong e3 N / prong e7 SE\n2. step e3 N / step e7 SE\n3. enter e3 / prong g7 N\n"
        "4. prong e3 N / prong g7 NE\n5. jump e3 N, capture e4 / prong c7 N"
    )
    st = play(new("x_fast"), moves)
    assert st.snapshot()["captured"] == [1, 0] and st.snapshot()["reserve"] == [3, 4]
    assert not any(s.startswith("liberate") for s in legal(st))
    # Black on Red's base e7 and on c3, Black pod 2 captured: the OCT-40 conditions hold
    for variant, liberations in (("x_fast", set()), ("x_classic", {"liberate c3", "liberate e7"})):
        d = custom(variant, black=(("e7", ""), ("c3", "")), red=(("a9", ""),)).to_dict()
        d["pos"][2] = CAPTURED  # instead of in reserve
        st = State.from_dict(d)
        assert st.snapshot()["captured"] == [1, 0] and st.snapshot()["phase"] == "MAIN"
        assert {s for s in legal(st) if s.startswith("liberate")} == liberations, variant
    # basic: Black on Red's base c6, Black pods 2 and 3 captured
    st = custom(black=(("c6", ""), ("c2", "")), red=(("a1", ""),))
    assert st.snapshot()["captured"][0] == 2 and st.snapshot()["phase"] == "MAIN"
    assert not any(s.startswith("liberate") for s in legal(st))


def test_stack_jumped_pod_by_pod() -> None:
    """OCT-28: each pod of a jumped stack is decided on its own."""
    st = custom("x_fast", black=(("c3", "N"),), red=(("c4", ""), ("c4", "S"), ("a9", "")))
    st.play("jump c3 N")
    assert legal(st) == {"capture c4.0", "spare c4.0"}
    st.play("spare c4.0")
    assert legal(st) == {"capture c4.1", "spare c4.1"}
    st.play("capture c4.1")
    assert board(st)["c4"] == [[1, ""]]


def test_x_enter_rules() -> None:
    """OCT-36: enter on an own base that is empty or holds own pods, never one holding an enemy."""
    st = custom("x_fast", black=(("c3", ""),), red=(("e3", ""), ("a9", "")))
    ents = {s for s in legal(st) if s.startswith("enter")}
    assert ents == {"enter c3", "enter g3"}


def test_enter_takes_lowest_reserve_id() -> None:
    """OCT-36 / §1 pod ids: ENTER brings the lowest reserve id; it has no prongs."""
    st = new("x_fast")
    st.play("enter g3")
    assert st.pos[3] == st.geo.square("g3") and st.prongs[3] == 0


def test_classic_enter_on_enemy_base() -> None:
    """OCT-38: classic: reserve pods may stack on an own pod standing on an enemy base."""
    st = custom("x_classic", black=(("e7", ""),), red=(("a9", ""),))
    assert "enter e7" in legal(st) and "enter c7" not in legal(st)
    st = custom("x_fast", black=(("e6", ""),), red=(("a9", ""),))
    assert not any(s in legal(st) for s in ("enter e7", "enter c7"))


def test_capture_to_reserve_flag() -> None:
    """OCT-51: an own pod captured by its owner returns to reserve with the flag (X only)."""
    moves = (
        "1. prong e3 N / prong e7 SE\n2. step e3 N / step e7 SE\n3. enter e3 / prong g7 N\n"
        "4. prong e3 N / prong g7 NE\n5. jump e3 N, capture e4 /"
    )
    st = play(new("x_classic", capture_to_reserve=True), moves)
    assert st.snapshot()["captured"] == [0, 0] and st.snapshot()["reserve"] == [4, 4]
    assert st.count(0, RESERVE) == 4 and st.count(0, CAPTURED) == 0


def test_lose_with_no_pods() -> None:
    """OCT-44: capturing the last enemy pod wins at END."""
    st = custom(black=(("c3", "N"),), red=(("c4", ""),))
    st.play("jump c3 N")
    assert not st.is_terminal()
    st.play("capture c4")
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0]


def test_only_mover_wins_and_truncation_draw() -> None:
    """OCT-45: the default limit truncates as a draw; classic runs 1000 turns."""
    assert Config().turn_limit == 300 and Config(variant="x_fast").turn_limit == 500
    assert Config(variant="x_classic").turn_limit == 1000
    st = play(new(max_turns=2), "1. prong c2 N / prong d6 S")
    assert st.is_terminal() and st.is_truncated() and list(st.returns()) == [0.0, 0.0]


def test_egocentric_observation() -> None:
    """OCT-47: player_1 sees the board rotated 180 degrees with directions turned by 4."""
    game = OctiGame()
    st = game.new_initial_state(np.random.default_rng(0))
    assert np.array_equal(game.observe(st, 0), game.observe(st, 1))  # symmetric start
    st.play("prong c2 N", "prong d6 S")  # each gives its pod a forward prong: symmetric again
    o0, o1 = game.observe(st, 0), game.observe(st, 1)
    assert np.array_equal(o0, o1)
    assert o0[2, 1, 2] == pytest.approx(1 / 4)  # own forward prong at c2 = row 1, column 2


def test_reposition_flag() -> None:
    """OCT-49: move a prong to an empty socket of the same pod, supply unchanged, even with supply 0."""
    st = custom(black=(("c3", "N"),), red=(("e6", ""),), allow_reposition=True)
    st.supply[0] = 0
    st._legal = None
    assert {s for s in legal(st) if s.startswith("reposition")} == {
        f"reposition c3 N {d}" for d in DIR_NAMES if d != "N"
    }
    st.play("reposition c3 N NE")
    assert board(st)["c3"] == [[0, "NE"]] and st.supply[0] == 0
    assert not any(s.startswith("reposition") for s in legal(custom(black=(("c3", "N"),))))


def test_edgeless_flag() -> None:
    """OCT-50: on the torus a step off rank 1 arrives on rank 7, jumps wrap too."""
    st = custom(black=(("b1", "S,W"),), red=(("e6", ""), ("f1", "")), edgeless=True)
    assert {"step b1 S", "step b1 W"} <= legal(st)
    st2 = custom(black=(("a1", "W"),), red=(("f1", ""), ("e6", "")), edgeless=True)
    assert "jump a1 W" in legal(st2)  # over f1, landing on e1
    st.play("step b1 S")
    assert board(st)["b7"] == [[0, "S,W"]]


def test_out_of_scope_options_rejected() -> None:
    """OCT-53: superprongs and other out-of-scope rules are not parameters."""
    with pytest.raises(ValueError, match="superprongs"):
        OctiGame(superprongs=True)
    with pytest.raises(ValueError, match="num_players"):
        OctiGame(num_players=4)
