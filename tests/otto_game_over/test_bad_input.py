"""Bad input: parameters, reset positions, state dicts and notation give clear ValueErrors."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.rules import State
from tests.otto_game_over.helpers import make


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"num_players": 5}, "num_players"),
        ({"num_players": 3, "teams": True}, "teams"),
        ({"episode": "round"}, "episode"),
        ({"target_score": 0}, "target_score"),
        ({"max_matches": True}, "max_matches"),
        ({"eight_lobes": "square"}, "eight_lobes"),
        ({"blind": 1}, "blind"),
    ],
)
def test_bad_params(params: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        OttoGameOverGame(**params)


@pytest.mark.parametrize(
    ("position", "match"),
    [
        ({"board": {"z9": "A4/0"}}, "unknown square"),
        ({"board": {"b3": "A4/7"}}, "design"),
        ({"board": {"c3": "A4/0"}}, "fixed centre"),
        ({"tables": ["B7"]}, "tables"),
        ({"tables": ["B7", "X1"]}, "tile"),
        ({"hands": [["bogus"], []]}, "card"),
        ({"shapes": {"small@vz9": 0}}, "small@vf1"),
        ({"shapes": {"small@va1": 0}}, "not a closed"),
        ({"markers": [{"small": 9}, {}]}, "small"),
        ({"to_move": 2}, "to_move"),
        ({"phase": "dance"}, "phase"),
        ({"phase": "kidnap"}, "kidnapped"),
        ({"drawn": "A4"}, "drawn"),
        ({"nonsense": 1}, "unknown position key"),
        ([1, 2], "dict"),
    ],
)
def test_bad_position(position: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make(position)


def test_bad_reset_options() -> None:
    game = OttoGameOverGame()
    with pytest.raises(ValueError, match="unknown reset option"):
        game.new_initial_state(np.random.default_rng(0), {"deck_top": []})
    with pytest.raises(ValueError, match=r"reset options must be a dict"):
        game.new_initial_state(np.random.default_rng(0), "position")  # type: ignore[arg-type]


def test_blind_position_has_no_tables() -> None:
    """OGO-33, OGO-53, OGO-60 (doc page): no table tiles in a blind or solo match, and no
    cards wherever none are in play; the S9 blind variant's own position loads."""
    with pytest.raises(ValueError, match="blind"):
        make({"tables": ["B7", "G16"]}, blind=True)
    for params in ({"blind": True}, {"secret_cards": False}, {"num_players": 1}):
        for key, value in (
            ("deck", ["meteorite"]),
            ("hands", [["meteorite"]] + [[]] * (params.get("num_players", 2) - 1)),
        ):
            with pytest.raises(
                ValueError, match=r"position\['hands'\] and \['deck'\] must be empty when no cards"
            ):
                make({key: value}, **params)
    assert make({"tower": ["DARK", "A4"]}, blind=True).to_move == 1  # p0's dark: turn skipped


@pytest.mark.parametrize(
    "text",
    [
        "",
        "drawn",
        "drawn a6 r0",
        "table b3 r4",
        "card",
        "card joker",
        "card quantum-leap a1",
        "keep",
        "no  cards",
        12,
        None,
    ],
)
def test_string_to_action_garbage(text: Any) -> None:
    st = make({"tables": ["B7", "G16"]})
    with pytest.raises(ValueError, match=r"malformed action|action string"):
        st.string_to_action(text)


def test_notation_normalised_and_out_of_range() -> None:
    st = make({"tables": ["B7", "G16"]})
    assert st.string_to_action("  DRAWN   b3 R1 ") == st.string_to_action("drawn b3 r1") == 45
    assert st.action_to_string(-1) == "illegal -1" and st.action_to_string(5228) == "illegal 5228"
    assert st.action_to_string(5227) == "keep infinity"


def test_apply_rejects_illegal() -> None:
    st = make({"tables": ["B7", "G16"]})
    for bad in (0, -1, 5228, 200):
        with pytest.raises(ValueError, match=r"illegal action|must be an int"):
            st.apply(bad)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("rng"), r"state dict lacks \['rng'\]"),
        (lambda d: d["config"].update(num_players=3), r"position\['tables'\] must be a list of 3"),
        (lambda d: d["position"].update(tables="B7"), r"position\['tables'\] must be a list of 2, got 'B7'"),
        (
            lambda d: d["position"].update(phase="over"),
            r"position\['drawn'\] needs phase 'place', got phase 'over'",
        ),
        # an ended game without its result (the drawn tile, above, is refused first)
        (lambda d: d["position"].update(phase="over", drawn=None), r"position\['result'\] must be a dict"),
        (lambda d: d["position"]["hands"].append([]), r"position\['hands'\] must be a list of 2"),
        (
            lambda d: d["position"].update(actor=1),
            r"position\['actor'\] differs from 'to_move' only in phase",
        ),
        (lambda d: d["position"].update(totals=[-1, 0]), r"position\['totals\[0\]'\] must be an int in"),
    ],
)
def test_from_dict_malformed(mutate: Any, message: str) -> None:
    st = make({"tables": ["B7", "G16"], "tower": ["A4"]})
    d = json.loads(json.dumps(st.to_dict()))
    mutate(d)
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def test_snapshot_round_trip() -> None:
    """A snapshot fed back to reset reproduces the position (mid-turn included)."""
    game = OttoGameOverGame(num_players=3)
    st = game.new_initial_state(np.random.default_rng(2))
    rng = np.random.default_rng(3)
    for _ in range(40):
        if st.is_terminal():
            break
        snap = st.snapshot()
        again = game.new_initial_state(np.random.default_rng(9), {"position": snap})
        assert again.snapshot() == snap
        assert np.array_equal(again.legal_mask(), st.legal_mask())
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])


def test_position_names_are_read_in_any_case_and_a_tiebreak_holds_no_cards() -> None:
    """The position hook reads card, shape, vertex, square, marker and phase names in any case, as the
    notation (§8) and the tile names are; two keys differing only in case are an error. A
    tie-break match position with cards in a hand is refused (OGO-33: they are void)."""
    from tests.otto_game_over.helpers import make, p_eight

    lower = make(
        p_eight(
            hands=[["time-travel"], []],
            removed_cards={"meteorite": 1},
            shapes={"small@vf1": 0, "small@va6": 1},
            markers=[{"small": 3}, {"small": 3}],
            phase="place",
        )
    )
    upper = make(
        p_eight(
            hands=[["Time-Travel"], []],
            removed_cards={"METEORITE": 1},
            shapes={"SMALL@VF1": 0, "small@VA6": 1},
            markers=[{"Small": 3}, {"small": 3}],
            phase="PLACE",
        )
    )
    assert lower.snapshot() == upper.snapshot()
    squares = make(p_eight(board={k.upper(): v.lower() for k, v in p_eight()["board"].items()}))
    assert squares.snapshot() == make(p_eight()).snapshot()  # square names too ('D3' is d3)
    with pytest.raises(ValueError, match=r"position\['board'\] names a key twice"):
        make(p_eight(board={"d3": "E12/0", "D3": "E12/1"}))
    with pytest.raises(ValueError, match=r"position\['removed_cards'\] names a key twice"):
        make(p_eight(removed_cards={"meteorite": 1, "Meteorite": 1}))
    with pytest.raises(ValueError, match=r"must be empty in the tie-break match.*OGO-33"):
        make({"tiebreak": True, "hands": [["meteorite"], []], "totals": [24, 24]})
    assert make({"tiebreak": True, "voided_cards": 1, "totals": [24, 24]}).voided == 1
