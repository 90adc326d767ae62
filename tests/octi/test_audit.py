"""Audit of the engine against the spec: edge cases beyond the §9 scenarios (rule IDs cited)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.octi.game import OctiGame
from envs.octi.rules import CAPTURED, RESERVE, Config, State
from tests.octi.helpers import S02_MOVES, board, custom, legal, new, play


def round_trip(st: State) -> State:
    d = json.loads(json.dumps(st.to_dict()))
    back = State.from_dict(d)
    assert back.to_dict() == st.to_dict()
    assert back.snapshot() == st.snapshot()
    assert np.array_equal(back.legal_mask(), st.legal_mask())
    return back


def test_round_trip_after_mid_turn_base_win() -> None:
    """OCT-42: a base win ends the game inside a turn; the finished state still round-trips."""
    st = play(new(), S02_MOVES)
    assert st.is_terminal() and list(st.returns()) == [1.0, -1.0]
    back = round_trip(st)
    assert back.is_terminal() and list(back.returns()) == [1.0, -1.0]
    game = OctiGame()
    assert np.array_equal(game.observe(back, 0), game.observe(st, 0))


def test_co_mover_landing_on_enemy_base_wins_at_once() -> None:
    """OCT-42 / OCT-34: a declared co-mover landing on an enemy base ends the game in MOVER."""
    st = custom("x_fast", black=(("c6", "E"), ("a1", ""), ("a2", ""), ("c6", "N")), red=(("i9", ""),))
    st.play("step c6.0 E")
    assert legal(st) == {"with c6", "without c6"}
    st.play("with c6")
    assert st.snapshot()["phase"] == "MOVER" and legal(st) == {"step c6 N"}
    st.play("step c6 N")
    snap = st.snapshot()
    assert snap["phase"] == "OVER" and list(st.returns()) == [1.0, -1.0]
    assert board(st)["c7"] == [[0, "N"]] and board(st)["d6"] == [[0, "E"]]
    round_trip(st)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_max_turns_error_names_allowed_values(bad: object) -> None:
    """§6: a bad max_turns names the parameter and both allowed forms (None or an int >= 1)."""
    with pytest.raises(ValueError, match=r"max_turns must be None or an int >= 1"):
        Config(max_turns=bad)  # type: ignore[arg-type]


def test_max_turns_one_truncates_after_first_turn() -> None:
    """OCT-45 / §6 lower bound: max_turns=1 truncates right after Black's first turn."""
    st = play(new(max_turns=1), "1. prong c2 N /")
    assert st.is_terminal() and st.is_truncated()
    assert st.snapshot()["turn"] == 1 and list(st.returns()) == [0.0, 0.0]
    round_trip(st)


def test_repetition_beats_truncation_on_the_same_turn() -> None:
    """§3 END step 5 before step 6 (OCT-52): the third occurrence at turn == max_turns is a
    termination draw, not a truncation."""
    st = new(repetition_draw=True, max_turns=12)
    play(
        st,
        """
    1. prong b2 N / prong e6 S
    2. prong b2 S / prong e6 N
    3. step b2 N / step e6 S
    4. step b3 S / step e5 N
    5. step b2 N / step e6 S
    6. step b3 S / step e5 N
    """,
    )
    assert st.is_terminal() and not st.is_truncated() and st.snapshot()["turn"] == 12


def test_declare_skips_pods_without_a_first_hop() -> None:
    """OCT-35: only the other pods on O with a legal first hop are asked, ascending id;
    a prongless stack-mate stays without a question."""
    st = custom("x_fast", black=(("c3", "N"), ("c3", ""), ("c3", "S"), ("c3", "E")), red=(("i9", ""),))
    st.play("step c3.0 N")
    # c3 now holds ids 1, 2, 3: id 1 has no prong, so ids 2 (c3.1) then 3 (c3.2) are asked
    assert legal(st) == {"with c3.1", "without c3.1"}
    st.play("without c3.1")
    assert legal(st) == {"with c3.2", "without c3.2"}
    st.play("with c3.2")
    assert legal(st) == {"step c3.2 E"}
    st.play("step c3.2 E")
    assert st.snapshot()["phase"] == "MAIN" and st.to_move == 1
    assert board(st)["c3"] == [[0, ""], [0, "S"]] and board(st)["d3"] == [[0, "E"]]


def test_classic_entry_on_enemy_base_needs_an_own_pod() -> None:
    """OCT-38 / OCT-36: classic enters on an enemy base only where an own pod stands;
    x_fast never enters on an enemy base."""
    black = (("e7", "N"), ("a1", ""), ("a2", ""))
    classic = custom("x_classic", black=black, red=(("c7", ""), ("g7", "")))
    enters = {s for s in legal(classic) if s.startswith("enter")}
    assert enters == {"enter c3", "enter e3", "enter g3", "enter e7"}
    fast = custom("x_fast", black=black, red=(("c7", ""), ("g7", "")))
    fast_enters = {s for s in legal(fast) if s.startswith("enter")}
    assert fast_enters == {"enter c3", "enter e3", "enter g3"}


def test_entry_never_on_own_base_holding_an_enemy() -> None:
    """OCT-36 [MODEL]: an own base holding an enemy pod takes no entry."""
    st = custom("x_fast", black=(("a1", "N"),), red=(("e3", ""),))
    assert {s for s in legal(st) if s.startswith("enter")} == {"enter c3", "enter g3"}


def test_liberate_needs_a_pod_on_an_enemy_base() -> None:
    """OCT-40: captured pods but no own pod on an enemy base: no liberate; once a pod stands on
    one, liberate onto every base (own or enemy) holding an own pod, never an empty base."""
    st = custom("x_classic", black=(("e6", "N"), ("c3", "")), red=(("a9", ""),))
    st.pos[2] = st.pos[3] = CAPTURED  # ids 2, 3 captured; 4..6 in reserve
    st.rebuild_board()
    assert not any(s.startswith("liberate") for s in legal(st))
    st.play("step e6 N")  # classic: landing on e7 does not win (OCT-43)
    st.play("prong a9 N")
    assert {s for s in legal(st) if s.startswith("liberate")} == {"liberate c3", "liberate e7"}
    st.play("liberate c3")
    assert board(st)["c3"] == [[0, ""], [0, ""]]
    assert st.pos[2] == st.geo.square("c3") and st.pos[3] == CAPTURED  # lowest captured id


def test_capture_to_reserve_only_own_pods_and_not_in_basic() -> None:
    """OCT-51: with the flag, an own pod captured by its owner goes to reserve, an enemy pod to
    the captured pool; basic ignores the flag."""
    for variant, own_to in (("x_fast", RESERVE), ("basic", CAPTURED)):
        st = custom(
            variant, black=(("a3", "N"), ("a4", "")), red=(("a6", ""), ("f1", "")), capture_to_reserve=True
        )
        st.play("jump a3 N", "jump a5 N")
        assert legal(st) == {"capture a4", "spare a4"}
        st.play("capture a4", "capture a6")
        assert st.pos[1] == own_to and st.pos[st.P] == CAPTURED
        assert board(st)["a7"] == [[0, "N"]] and "a4" not in board(st) and "a6" not in board(st)


def test_egocentric_indices_of_player_1() -> None:
    """§7: e = (abs + 4s) mod 8 and base b in the mover's left-to-right order (Red: descending
    file), own bases then enemy bases."""
    st = new("x_classic")
    lay = st.lay
    assert st.string_to_action("enter c3") == lay.enter + 0
    assert st.string_to_action("enter g3") == lay.enter + 2
    st.play("prong c3 N")
    assert st.string_to_action("enter g7") == lay.enter + 0
    assert st.string_to_action("enter c7") == lay.enter + 2
    # Red's pod 0 stands on g7; its "forward" (e = 0) is absolute S
    assert st.string_to_action("prong g7 S") == 0
    assert st.string_to_action("prong g7 N") == 4
    assert st.string_to_action("prong c7 E") == 8 * 2 + 6


def test_snapshot_exact_format() -> None:
    """§8: exact keys, value types, squares as names, pods in ascending id, prongs in N..NW order."""
    st = new("x_fast")
    st.play("enter c3", "prong g7 S", "prong c3.1 NW", "prong g7 N", "prong c3.1 E")
    snap = st.snapshot()
    assert list(snap) == ["to_move", "phase", "turn", "supply", "reserve", "captured", "board"]
    assert snap["to_move"] == 1 and snap["phase"] == "MAIN" and snap["turn"] == 5
    assert snap["supply"] == [23, 23] and snap["reserve"] == [3, 4] and snap["captured"] == [0, 0]
    assert snap["board"]["c3"] == [[0, ""], [0, "E,NW"]]
    assert snap["board"]["g7"] == [[1, "N,S"]]
    assert set(snap["board"]) == {"c3", "e3", "g3", "c7", "e7", "g7"}
    for pods in snap["board"].values():
        for seat, prongs in pods:
            assert type(seat) is int and type(prongs) is str
    assert json.loads(json.dumps(snap)) == snap


def test_illegal_index_string_matches_nothing() -> None:
    """§8: an illegal or out-of-range index prints as 'illegal <index>', which parses to nothing legal."""
    st = new()
    for a in (32, 116, 117, -1):
        text = st.action_to_string(a)
        assert text == f"illegal {a}"
        with pytest.raises(ValueError, match=r"malformed Octi action"):
            st.string_to_action(text)


def test_notation_errors_say_what_was_expected() -> None:
    """§8: malformed text names the expected grammar; a well-formed illegal action lists the legal ones."""
    st = new()
    with pytest.raises(ValueError, match="expected"):
        st.string_to_action("fly c2 N")
    with pytest.raises(ValueError, match="legal"):
        st.string_to_action("step c2 N")


def test_reserve_counts_in_snapshot_use_reserve_constant() -> None:
    """OCT-37: reserve and captured pools are kept apart in the snapshot."""
    st = custom("x_fast", black=(("c3", "N"),), red=(("a9", ""),))
    st.pos[1] = CAPTURED
    st.rebuild_board()
    snap = st.snapshot()
    assert snap["reserve"] == [5, 6] and snap["captured"] == [1, 0]
    assert st.pos.count(RESERVE) == 11


@pytest.mark.parametrize("params", [{}, {"variant": "x_fast"}, {"variant": "x_classic", "edgeless": True}])
def test_incremental_observation_equals_fresh_build(params: dict[str, object]) -> None:
    """OCT-47: the incrementally kept pod planes give byte-identical observations to a state
    rebuilt from scratch, through stacks, captures, clones and both observers."""
    game = OctiGame(**params)  # type: ignore[arg-type]
    rng = np.random.default_rng(3)
    for _ in range(4):
        st = game.new_initial_state(np.random.default_rng(0))
        steps = 0
        while not st.is_terminal() and steps < 400:
            if steps % 7 == 0:
                fresh = State.from_dict(st.to_dict())
                for seat in (0, 1):
                    assert game.observe(st, seat).tobytes() == game.observe(fresh, seat).tobytes()
            if steps % 13 == 5:
                st = st.clone()
            legal_now = st.legal_actions()
            st.apply(legal_now[int(rng.integers(len(legal_now)))])
            steps += 1


def test_pickle_and_deepcopy_keep_observations() -> None:
    """OCT-47: pickled / deep-copied states observe exactly like the original afterwards."""
    import copy
    import pickle

    game = OctiGame(variant="x_fast")
    st = play(game.new_initial_state(np.random.default_rng(0)), "1. enter c3 / prong g7 S")
    before = game.observe(st, 0)
    for other in (pickle.loads(pickle.dumps(st)), copy.deepcopy(st)):
        assert game.observe(other, 0).tobytes() == before.tobytes()
        other.play("prong c3.0 N")
        st2 = st.clone()
        st2.play("prong c3.0 N")
        for seat in (0, 1):
            assert game.observe(other, seat).tobytes() == game.observe(st2, seat).tobytes()
