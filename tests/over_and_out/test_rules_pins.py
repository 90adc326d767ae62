"""Pins closing gaps found by a third mutation sweep of the Over and Out engine
(``rules.py``, ``cards.py``, ``config.py``) against ``rules/over_and_out.md``.

Each test names the rule or section of the spec it checks.
"""

from __future__ import annotations

import pickle

import pytest

from envs.over_and_out.config import Config, config_from_params
from tests.over_and_out.helpers import engine


@pytest.mark.parametrize(("num_players", "bad"), [(3, 5), (3, 3), (4, -2)])
def test_s6_first_dealer_error_names_the_bad_value(num_players: int, bad: int) -> None:
    """§6 ``first_dealer``: None or int 0..N-1. The error must name the value that was given
    (not only the allowed range); otherwise a user who passed a seat out of range, e.g.
    first_dealer=N from 1-based counting, cannot tell which value was refused."""
    with pytest.raises(ValueError, match="first_dealer") as info:
        Config(num_players=num_players, first_dealer=bad)
    assert f"got {bad}" in str(info.value)
    assert f"[0, {num_players - 1}]" in str(info.value)


def test_oao_14_engine_refuses_a_masked_action_naming_it_the_player_and_the_legal_set() -> None:
    """OAO-14, OAO-15 (scenario OAO-S11): p0 holds 1, 2, 3, 4 at T 0, so `bust` is masked.
    Applying it to the engine directly must raise a ValueError that names the action, the
    player to move and the legal actions; a bare "illegal action" would hide which step of a
    replayed game went wrong and what could have been played instead."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    with pytest.raises(ValueError, match=r"illegal action 11") as info:
        state.apply(11)
    message = str(info.value)
    assert "11" in message
    assert "player_0" in message
    for text in ("play 1", "play 2", "play 3", "play 4"):
        assert text in message
    assert state.snapshot()["plays"] == 0  # nothing was applied


def test_s6_config_from_params_reports_malformed_names_as_value_error() -> None:
    """§6 / ``config_from_params``: anything malformed is a ValueError (a saved state's
    ``config`` read by ``from_dict`` goes through it). Two unknown names of different types
    (a YAML ``1:`` key beside a misspelt one) must not escape as a bare TypeError."""
    with pytest.raises(ValueError, match="malformed config"):
        config_from_params({1: 2, "colour": 3})


def test_oao_40_engine_legal_mask_is_a_fresh_writable_copy() -> None:
    """OAO-40 / §7 mask: ``State.legal_mask()`` is an int8 vector the caller owns. A view of
    the shared precomputed table would be read-only (a bot that zeroes an entry crashes) or,
    if made writable, would corrupt every later mask with the same legal set."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    mask = state.legal_mask()
    assert mask.dtype.name == "int8" and mask.flags.writeable
    assert mask.tolist() == [0, 1, 1, 1, 1] + [0] * 7
    mask[1] = 0
    assert state.legal_mask().tolist() == [0, 1, 1, 1, 1] + [0] * 7


@pytest.mark.parametrize("bad", [-1, -12, 12])
def test_s7_engine_refuses_out_of_range_indices_naming_them(bad: int) -> None:
    """§7 action space Discrete(12): an index outside 0..11 is never legal. The engine must
    refuse it with its own message naming the index and the legal set; a negative index
    must not reach a bit shift (Python's "negative shift count" names nothing) or wrap
    around to `bust` as a negative list index would."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    with pytest.raises(ValueError, match=f"illegal action {bad} for player_0") as info:
        state.apply(bad)
    assert "play 1" in str(info.value)
    assert state.snapshot()["plays"] == 0


def test_s6_pickled_config_keeps_its_deck_read_only() -> None:
    """§6 ``deck_counts``: a Config is frozen, and it crosses process boundaries by pickle
    (vectorised envs, evaluation workers). After a round trip the deck must still refuse an
    in-place change; a plain dict there would let ``deck_counts["0"] = 0`` pass silently
    while the engine keeps dealing from the stale cached counts."""
    config = Config(num_players=2, deck_counts={"0": 10, "5": 6})
    assert config.counts[0] == 10
    twin = pickle.loads(pickle.dumps(config))
    assert twin == config and twin.counts == config.counts
    with pytest.raises(TypeError, match="read-only"):
        twin.deck_counts["0"] = 0
    assert twin.deck_counts["0"] == 10


@pytest.mark.parametrize("params", [[("num_players", 3)], None, "num_players=3"])
def test_s6_config_from_params_wants_a_dict(params: object) -> None:
    """§6 / ``config_from_params``: the parameters are a dict. A list of pairs, None or a
    string must be refused as "not a dict" naming what was given, not reported as unknown
    parameter names made of the pieces of the wrong container."""
    with pytest.raises(ValueError, match="must be a dict of parameters") as info:
        config_from_params(params)
    assert repr(params) in str(info.value)


def test_s8_unknown_deck_token_error_lists_the_allowed_tokens() -> None:
    """§6 / §8: ``deck_counts`` uses the card tokens of the notation. A near miss such as
    "spinout" or "X2" must be refused naming it and listing the allowed tokens, so the user
    sees the right spelling ("spin-out", "x2") instead of guessing."""
    for bad in ("spinout", "X2", "minus10"):
        with pytest.raises(ValueError, match="unknown card token") as info:
            Config(num_players=2, deck_counts={"0": 20, bad: 4})
        message = str(info.value)
        assert repr(bad) in message
        for token in ("0", "5", "x2", "-10", "spin-out", "top-out", "topsy-turvy"):
            assert repr(token) in message


def test_s6_deck_counts_not_a_dict_error_names_the_value() -> None:
    """§6 ``deck_counts``: a dict token -> count. A list of pairs (or a bare number) must be
    refused naming the value given, so the user sees which argument was malformed."""
    for bad in ([("0", 40)], 72):
        with pytest.raises(ValueError, match="deck_counts must be a dict") as info:
            Config(num_players=2, deck_counts=bad)  # type: ignore[arg-type]
        assert repr(bad) in str(info.value)


@pytest.mark.parametrize(
    ("params", "held", "needed"),
    [
        ({"num_players": 8, "deck_counts": {"0": 31}}, 31, 32),
        ({"num_players": 3, "starting_chips": 2, "deck_counts": {"0": 2, "5": 3}}, 5, 6),
    ],
)
def test_s6_small_deck_error_gives_held_and_needed_in_their_places(
    params: dict[str, object], held: int, needed: int
) -> None:
    """§6: the deck total must be >= starting_chips * N. The error must say how many cards
    the deck holds and how many must be dealt, each in its place; swapped numbers would
    tell the user to add cards to a deck that already has the count they were told."""
    with pytest.raises(ValueError, match=r"deck_counts holds") as info:
        Config(**params)  # type: ignore[arg-type]
    message = str(info.value)
    assert f"holds {held} cards" in message
    assert f"= {needed} must be dealt" in message


@pytest.mark.parametrize("bad", ["play 5", 2.0, True, None])
def test_s7_engine_refuses_a_non_integer_action_naming_it(bad: object) -> None:
    """§7: an action is an int index. A string, a float or a bool handed to ``apply`` (a
    common slip: the notation instead of ``string_to_action`` of it) must be refused naming
    the value given, so the caller sees what was passed; nothing is applied."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    with pytest.raises(ValueError, match="action must be an int") as info:
        state.apply(bad)  # type: ignore[arg-type]
    assert repr(bad) in str(info.value)
    assert state.snapshot()["plays"] == 0


def test_s8_string_to_action_not_legal_error_lists_the_legal_actions() -> None:
    """§8 notation: "play 5" is well formed but p0 (holding 1, 2, 3, 4) cannot play it.
    The error must say it is not legal now and list the canonical legal actions, so a user
    typing moves sees what could be played."""
    state = engine(["1", "2", "3", "4", "0", "0", "0", "0"], num_players=2, first_dealer=1)
    with pytest.raises(ValueError, match="not legal now") as info:
        state.string_to_action("  PLAY 5 ")
    message = str(info.value)
    assert "'play 5'" in message
    for text in ("play 1", "play 2", "play 3", "play 4"):
        assert text in message
