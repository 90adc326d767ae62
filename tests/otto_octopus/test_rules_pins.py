"""Third mutation sweep of the Otto engine (``rules.py``, ``board.py``) against spec
``rules/otto_octopus.md``: scenario tests for the gaps it found.

Most of them pin that :meth:`State.clone` is an independent position: search bots (``mcts``)
and ``resample_hidden`` play moves in clones, so a clone that shares a list with its original
plays (or lets the original play) a game with wrong rules. Each test names the rule IDs it
checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_octopus.encode import parse_action
from envs.otto_octopus.rules import State
from tests.otto_octopus.helpers import P1, is_legal, make, play


def test_otp37_a_pass_in_a_clone_is_not_a_pass_of_the_original() -> None:
    """OTP-37: the game ends once every player has passed since the last placement. Passes
    played in a clone must not count in the original, or the original ends a turn early
    (player_0's single pass would end it, and player_1 would never move)."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    twin = st.clone()
    play(twin, "pass")
    play(twin, "pass")
    assert twin.is_terminal()
    assert st.passed == [False, False]
    play(st, "pass")
    assert not st.is_terminal() and st.current_player() == 1


def test_otp23_skips_consumed_in_a_clone_stay_pending_in_the_original() -> None:
    """OTP-23: pending skipped turns (two jellyfish = two skips) belong to one position; a
    skip consumed in a clone must still skip player_1's turn in the original."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]], skips=[0, 2])
    twin = st.clone()
    play(twin, "pass")  # player_1's first skip is consumed in the clone
    assert twin.skips == [0, 1]
    assert st.skips == [0, 2]
    play(st, "place starfish e7")  # skip 1 of 2: player_0 moves again
    assert st.current_player() == 0 and st.skips == [0, 1]
    play(st, "pass")  # skip 2 of 2: still player_0
    assert st.current_player() == 0 and st.skips == [0, 0]


def test_otp12_an_arm_grown_in_a_clone_keeps_its_length_in_the_original() -> None:
    """OTP-12: an end scores 1 + the arm tiles of its arm. Arm d6 holds 2 arm tiles in the
    original, so ``end d8`` scores 3, however long a clone grew the same arm (4 there)."""
    st = make(P1, [["end", "turn-out", "bubbles"]])
    twin = st.clone()
    play(twin, "place turn-out d8")
    assert twin.ocean.arm_len[0] == 3
    assert play(st, "place end d8") == 3


def test_otp06_an_arm_finished_in_a_clone_stays_open_in_the_original() -> None:
    """OTP-06 / OTP-04: an end finishes its arm. In the original, where no end was placed,
    arm d6 is still started: its tip d8 still takes arm tiles and an end."""
    st = make(P1, [["end", "turn-out", "bubbles"]])
    twin = st.clone()
    play(twin, "place end d8")
    assert twin.ocean.arm_state[0] == 2  # finished
    play(st, "place bubbles e7")  # a new board: the placement table is recomputed
    play(st, "pass")  # player_1
    assert st.ocean.arm_state[0] == 1  # still started
    assert is_legal(st, "place turn-out d8") and is_legal(st, "place end d8")


def test_otp10_a_clone_keeps_the_moray_exclusion_zone() -> None:
    """OTP-10: once a moray is placed no new fish may be placed next to it. A clone of the
    position (as a search bot plays in) must enforce that too after its next placement."""
    st = make([*P1, "moray c7"], [["bubbles", "bubbles", "bubbles"], ["minnow", "starfish", "bubbles"]])
    twin = st.clone()
    for s in (st, twin):
        play(s, "place bubbles e7")  # the board changes: the placement table is recomputed
        assert s.current_player() == 1
        assert not is_legal(s, "place minnow c8") and not is_legal(s, "place starfish b7")
        assert is_legal(s, "place bubbles c8") and is_legal(s, "place minnow e8")


def test_otp44_legal_mask_is_a_fresh_array_each_call() -> None:
    """OTP-44 / §3: the engine refuses exactly the actions whose mask entry is 0. A caller
    editing the array ``legal_mask()`` returned must not change what the engine allows."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    mask = st.legal_mask()
    mask[:] = 0
    assert st.legal_mask()[parse_action("pass")] == 1
    st.apply(parse_action("pass"))
    assert st.current_player() == 1


def test_otp44_illegal_action_error_names_the_action_and_the_player() -> None:
    """OTP-44: the raw engine raises ``ValueError`` for an illegal action; the message must
    name the action (index and notation) and the seat, or the user cannot tell what failed."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    a = parse_action("place starfish a1")
    with pytest.raises(ValueError, match=rf"{a}.*place starfish a1.*player_0"):
        st.apply(a)
    assert np.count_nonzero(st.legal_mask()) > 0  # the state is untouched


def test_otp38_s5_a_saved_finished_game_keeps_its_winner() -> None:
    """OTP-38 / §5: a game that ended normally (T14: player_1 wins 9 to 8) is not truncated;
    saved with ``to_dict`` and loaded with ``from_dict`` it must still pay -1 / +1, not the
    zeros of a game cut off at ``max_steps``."""
    st = make(P1, [["starfish", "end"], ["bubbles"]], pile=[], scores=[10, 9])
    play(st, "pass")
    play(st, "place bubbles e7")
    play(st, "pass")
    assert st.is_terminal() and not st.is_truncated()
    d = st.to_dict()
    assert d["truncated"] is False
    back = State.from_dict(d)
    assert back.is_terminal() and not back.is_truncated()
    assert list(back.returns()) == [-1.0, 1.0]
    assert back.winners() == [1]


def test_s7_engine_accepts_numpy_integer_actions() -> None:
    """§7 / OTP-44: actions are indices into the mask; the raw engine must take the numpy
    integers that ``np.flatnonzero(mask)`` and policies produce, not only Python ints."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    st.apply(np.int64(parse_action("place starfish e7")))  # type: ignore[arg-type]
    assert st.scores == [3, 0] and st.current_player() == 1
    st.apply(np.int32(parse_action("pass")))  # type: ignore[arg-type]
    assert st.current_player() == 0


def test_otp44_out_of_range_action_error_names_the_value() -> None:
    """OTP-44: an index outside ``Discrete(1106)`` raises ``ValueError`` naming the bad
    index and the valid range, so the user sees which value was wrong."""
    st = make(P1, [["starfish", "bubbles", "bubbles"]])
    with pytest.raises(ValueError, match=r"1106.*\[0, 1106\)"):
        st.apply(1106)
    with pytest.raises(ValueError, match=r"-3"):
        st.apply(-3)
