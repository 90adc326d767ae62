"""Engine pins from a second mutation sweep of the Octi engine (rule IDs cited in each test)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from envs.octi.game import OctiGame
from envs.octi.rules import CAPTURED, RESERVE, State
from tests.octi.helpers import S02_MOVES, board, custom, legal, new, play, turns

S07_MOVES = "1. prong b2 N / prong e6 S\n2. prong b2 S / prong e6 N\n" + (
    "3. step b2 N / step e6 S\n4. step b3 S / step e5 N\n" * 2
)

S09_MOVES = """
1. enter c3 / prong g7 S
2. prong c3.0 N / prong e7 S
3. prong c3.1 N / prong c7 S
"""


def test_oct_52_a_clone_keeps_its_own_repetition_history() -> None:
    """OCT-52 / END step 5: a cloned state (what search and the env's copies use) counts its own
    repetitions. Playing the S07 shuffle on a clone must not add occurrences to the original; if the
    history were shared, the original would be drawn at turn 8 instead of turn 12."""
    steps = turns(S07_MOVES)
    st = new(repetition_draw=True)
    st.play(*steps[:4])  # after turn 4: the position that recurs
    twin = st.clone()
    twin.play(*steps[4:])
    assert twin.is_terminal() and twin.turn == 12 and list(twin.returns()) == [0.0, 0.0]
    st.play(*steps[4:8])  # through turn 8: only the second occurrence
    assert not st.is_terminal() and st.turn == 8
    st.play(*steps[8:])
    assert st.is_terminal() and st.turn == 12 and not st.is_truncated()


def test_section_7_single_action_indices_follow_the_documented_order() -> None:
    """Spec §7 / env docstring (OCT-34, OCT-20, OCT-23): WITH, WITHOUT, STOP, CAPTURE, SPARE are
    the indices 24P+4K+0..4 in that order. An agent acting by index must get what the table says:
    a swap would make a trained policy spare when it means to capture (or move the wrong pods)."""
    st = play(new("x_fast"), S09_MOVES)
    single = 24 * st.P + 4 * st.K
    st.play("step c3.0 N")
    assert st.action_to_string(single) == "with c3"
    assert st.action_to_string(single + 1) == "without c3"
    st.apply(single)  # with: both pods move
    assert st.snapshot()["phase"] == "MOVER"

    st = play(new(), S02_MOVES.split("5.")[0])
    single = 24 * st.P + 4 * st.K
    st.play("jump b2 NE")  # over own c3 to d4; a further jump d4 N exists
    assert st.snapshot()["phase"] == "CHAIN"
    assert st.action_to_string(single + 2) == "stop"
    st.apply(single + 2)
    assert st.snapshot()["phase"] == "CAPTURE"
    assert st.action_to_string(single + 3) == "capture c3"
    assert st.action_to_string(single + 4) == "spare c3"
    st.apply(single + 3)  # capture: Black's own pod c3 (prong N) goes, its prong to Black
    snap = st.snapshot()
    assert "c3" not in snap["board"] and snap["supply"] == [10, 10] and snap["captured"] == [1, 0]


def test_oct_47_plane_25_marks_movers_that_have_finished() -> None:
    """OCT-47 / env docstring plane 25 (OCT-34): in MOVER the first mover, done moving, is marked
    on its square with 1/P; the declared co-mover that has yet to move is not. Without it an agent
    cannot tell which pod of the stack is still to move."""
    game = OctiGame(variant="x_fast")
    st = play(new("x_fast"), S09_MOVES)
    st.play("step c3.0 N", "with c3")
    assert st.snapshot()["phase"] == "MOVER"
    obs = game.observe(st, 0)
    c3, c4 = (2, 2), (3, 2)  # (rank - 1, file) in player_0's frame
    assert obs[25][c4] == pytest.approx(1 / 7)
    assert obs[25][c3] == 0.0
    assert obs[25].sum() == pytest.approx(1 / 7)
    assert obs[24][c4] == pytest.approx(1 / 7) and obs[24][c3] == pytest.approx(1 / 7)


def _mid_turn(moves: str, then: tuple[str, ...]) -> dict[str, Any]:
    st = play(new("x_fast"), moves)
    st.play(*then)
    d = copy.deepcopy(st.to_dict())
    State.from_dict(copy.deepcopy(d))  # the untouched dict loads
    return d


def test_from_dict_rejects_a_result_in_a_running_game() -> None:
    """OCT-46 / §5: rewards exist only once the game is over; a state dict of a running game (phase
    MAIN) carrying a win must be refused, not loaded as a game that pays out later."""
    d = new().to_dict()
    d["result"] = [1.0, -1.0]
    with pytest.raises(ValueError, match="result"):
        State.from_dict(d)


def test_from_dict_rejects_reserve_pods_in_basic() -> None:
    """OCT-03 / OCT-37: basic has no reserve (all 4 pods start on the bases); a basic state dict
    with a pod in reserve must be refused (else the pod could never come back yet would count)."""
    d = new().to_dict()
    d["pos"][0] = RESERVE
    with pytest.raises(ValueError, match="reserve"):
        State.from_dict(d)


def test_from_dict_rejects_prongs_on_a_pod_off_the_board() -> None:
    """OCT-26 / OCT-27 / OCT-36: a captured pod's prongs went to the capturer and a reserve pod
    enters without prongs, so an off-board pod holding prongs is impossible: it must be refused,
    even when the supplies alone add up to the total."""
    d = new().to_dict()
    d["pos"][0] = CAPTURED
    d["prongs"][0] = 1
    with pytest.raises(ValueError, match="prongs"):
        State.from_dict(d)
    d = new("x_fast").to_dict()
    d["prongs"][5] = 1  # pod 5 is in reserve
    with pytest.raises(ValueError, match="prongs"):
        State.from_dict(d)


def test_from_dict_rejects_a_declared_pod_off_the_origin() -> None:
    """OCT-34 / OCT-35: only the other pods on the origin O are asked `with`/`without`; a DECLARE
    state whose queued pod stands elsewhere cannot arise and must be refused."""
    d = _mid_turn(S09_MOVES, ("step c3.0 N",))
    assert d["phase"] == "DECLARE" and d["declare_queue"] == [3]
    d["pos"][3] = 0  # pod 3 moved to a1 (empty), prong N kept: pieces still conserved
    with pytest.raises(ValueError, match="origin"):
        State.from_dict(d)


def test_from_dict_rejects_a_mover_phase_for_the_wrong_pod() -> None:
    """OCT-34: in MOVER the active pod is the lowest-id declared mover that has not moved; a state
    dict naming the finished first mover as active cannot arise and must be refused."""
    d = _mid_turn(S09_MOVES, ("step c3.0 N", "with c3"))
    assert d["phase"] == "MOVER" and d["pending"] == [3] and d["active"] == 3
    d["active"] = 0
    with pytest.raises(ValueError, match="MOVER"):
        State.from_dict(d)


def test_from_dict_state_option_restores_the_same_legal_actions() -> None:
    """§8 / OCT-34: a mid-turn state restored from its dict offers exactly the same legal actions
    (strings and mask) as the original."""
    st = play(new("x_fast"), S09_MOVES)
    st.play("step c3.0 N", "with c3")
    back = State.from_dict(copy.deepcopy(st.to_dict()))
    assert legal(back) == legal(st) == {"step c3 N"}
    assert np.array_equal(back.legal_mask(), st.legal_mask())
    back.play("step c3 N")
    assert board(back)["c4"] == [[0, "N"], [0, "N"]]


def test_from_dict_rejects_a_chain_phase_after_a_step() -> None:
    """OCT-16 / OCT-18 / OCT-21: CHAIN follows only a jump that has a legal further jump; a CHAIN
    state dict whose last hop was a step (or whose active pod is not a mover) must be refused."""
    st = play(new(), S02_MOVES.split("5.")[0])
    st.play("jump b2 NE")
    d = copy.deepcopy(st.to_dict())
    assert d["phase"] == "CHAIN" and d["last_jump"] is True
    State.from_dict(copy.deepcopy(d))
    bad = copy.deepcopy(d)
    bad["last_jump"] = False
    with pytest.raises(ValueError, match="CHAIN"):
        State.from_dict(bad)


def test_from_dict_restores_the_states_own_generator() -> None:
    """OCT-46 / §8 state option (env docstring): a state dict restores the state's own generator, not a
    fresh one, so a restored game continues exactly (records replayed by ``eval --records``)."""
    st = State(new().config, np.random.default_rng(12345))
    st.play("prong c2 N")
    back = State.from_dict(copy.deepcopy(st.to_dict()))
    assert back.to_dict()["rng"] == st.to_dict()["rng"]
    assert back.rng.integers(1 << 30) == st.clone().rng.integers(1 << 30)


def test_illegal_apply_names_the_index_phase_and_player() -> None:
    """OCT-48 (raw engine): applying an illegal index raises ``ValueError`` naming the index, the
    phase and the player, so a caller can see which action was refused."""
    st = new()
    with pytest.raises(ValueError, match=r"illegal action 32 \(step pod id 0 .*MAIN for player_0"):
        st.apply(32)


@pytest.mark.parametrize("decision,wins", [("capture e7", False), ("spare e7", True)])
def test_oct_43_three_base_win_is_checked_after_the_captures(decision: str, wins: bool) -> None:
    """OCT-43 / OCT-24 / END order (captures at step 1, the three-base check at step 3): the first
    mover of the f6 stack jumps its own pod on e7, the co-mover steps onto g7, c7 is already held.
    Capturing the e7 pod empties a Red base before the check, so no win; sparing it wins.

    8 .  .  .  .  .       f6 {0: NW, 1: NE}: jump f6.0 NW (over e7 to d8), with f6, step f6 NE
    7 .  B  .  B  .  .    c7, e7: Black pods on Red bases; g7 empty base
    6 .  .  .  .  B2 .
      b  c  d  e  f  g
    """
    st = custom(
        "x_classic",
        black=(("f6", "NW"), ("f6", "NE"), ("e7", ""), ("c7", "")),
        red=(("a1", ""),),
    )
    st.play("jump f6.0 NW", "with f6")
    assert legal(st) == {"step f6 NE"}
    st.play("step f6 NE")
    assert legal(st) == {"capture e7", "spare e7"}
    st.play(decision)
    assert st.is_terminal() is wins
    if wins:
        assert list(st.returns()) == [1.0, -1.0]
    else:
        snap = st.snapshot()
        assert snap["to_move"] == 1 and "e7" not in snap["board"] and snap["captured"] == [1, 0]


def test_from_dict_rejects_finished_or_pending_pods_that_are_not_movers() -> None:
    """OCT-34: only movers (the first mover and the `with` pods) can be pending or finished; a
    state dict listing another pod there (here a reserve pod) cannot arise and must be refused."""
    d = _mid_turn(S09_MOVES, ("step c3.0 N", "with c3"))
    assert d["movers"] == [0, 3] and d["finished"] == [0]
    for key in ("finished", "pending"):
        bad = copy.deepcopy(d)
        bad[key] = [*bad[key], 5]
        with pytest.raises(ValueError, match="must be movers"):
            State.from_dict(bad)


def test_legal_actions_are_ascending_and_match_the_mask() -> None:
    """§7 mask (OCT-10, OCT-12, OCT-14, OCT-17, OCT-36): ``legal_actions()`` lists exactly the
    indices whose mask entry is 1, ascending (the GameState contract that search and the bots rely
    on), also after a turn change, when prong, step and jump indices of several pods mix."""
    for st in (play(new(), S02_MOVES.split("5.")[0]), play(new("x_fast"), S09_MOVES)):
        for _ in range(3):
            acts = st.legal_actions()
            assert acts == sorted(acts) == np.flatnonzero(st.legal_mask()).tolist()
            st.apply(acts[-1])


def test_oct_45_from_dict_rejects_a_running_game_at_the_turn_limit() -> None:
    """OCT-45: a game reaching ``max_turns`` is over, a draw; a saved running game at the limit
    cannot arise and is refused (it was loaded and played a turn beyond the limit). One turn
    below it loads, and an OVER state at the limit (the draw itself) loads too."""
    d = new(max_turns=4).to_dict()
    d["turn"] = 4
    with pytest.raises(ValueError, match=r"turn 4 of a running game must be below the turn limit 4 \(OCT-45"):
        State.from_dict(d)
    d["turn"] = 3
    st = State.from_dict(d)
    st.play("prong c2 N")  # the fourth turn ends the game: a draw by the limit
    assert st.is_terminal() and st.is_truncated() and list(st.returns()) == [0.0, 0.0]
    assert State.from_dict(st.to_dict()).is_terminal()
