"""A malformed action string says where it leaves the notation and what the table has there
(``envs.core.notation.WordTable``), for the games whose §8 notation is a fixed table of
strings (Octi's strings name pods and squares of the position; its parser reports the
grammar and, for a well-formed string, the legal moves)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from envs.core.notation import WordTable
from envs.otto_game_over import notation as ogo
from envs.otto_octopus import encode as oto
from envs.over_and_out.cards import ACTION_STRINGS as OAO_STRINGS
from envs.over_and_out.game import OverAndOutGame


def test_word_table_says_where_the_text_departs() -> None:
    table = WordTable(["go", "go far", "stop here", *(f"jump {i}" for i in range(20))])
    assert table.hint("") == "the text is empty"
    assert table.hint("run") == "the first word is one of go, stop, jump, got 'run'"
    assert table.hint("go near") == "after 'go' comes one of far (or nothing), got 'near'"
    assert table.hint("stop") == "'stop' is incomplete: one of here must follow"
    assert table.hint("stop here now") == "'stop here' is a whole action, got 'now' after it"
    assert table.hint("go far away fast") == "'go far' is a whole action, got 'away fast' after it"
    # many choices: the table's first six and last two, and how many
    assert (
        table.hint("jump x") == "after 'jump' comes one of 0, 1, 2, 3, 4, 5, ..., 18, 19 (20 words), got 'x'"
    )


def _oao_parse() -> Callable[[str], int]:
    return OverAndOutGame(num_players=2).new_initial_state(np.random.default_rng(0)).string_to_action


PARSERS = {
    "otto_game_over": (ogo.ACTION_STRINGS, lambda: ogo.string_to_action),
    "otto_octopus": (oto.ACTION_STRINGS, lambda: oto.parse_action),
    "over_and_out": (OAO_STRINGS, _oao_parse),
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_malformed_strings_name_the_word_that_breaks_them(name: str) -> None:
    """Each §8 notation: a wrong word, a missing last word and an extra word are each
    reported at their place, with the words the table allows there."""
    strings, make_parse = PARSERS[name]
    parse = make_parse()
    table = set(strings)
    rng = np.random.default_rng(5)
    for i in rng.choice(len(strings), size=min(200, len(strings)), replace=False):
        words = strings[int(i)].split(" ")
        j = int(rng.integers(len(words)))
        bad = " ".join([*words[:j], "zz", *words[j + 1 :]])
        with pytest.raises(ValueError, match="malformed") as err:
            parse(bad)
        where = f"after '{' '.join(words[:j])}' comes one of " if j else "the first word is one of "
        assert where in str(err.value) and "got 'zz'" in str(err.value)
        allowed = {
            s.split(" ")[j] for s in strings if s.split(" ")[:j] == words[:j] and len(s.split(" ")) > j
        }
        listed = str(err.value).split(" one of ", 1)[1].split(", got", 1)[0]
        if len(allowed) <= 16:
            assert set(listed.replace(" (or nothing)", "").split(", ")) == allowed
        with pytest.raises(ValueError, match="is a whole action, got 'zz' after it"):
            parse(strings[int(i)] + " zz")
        if len(words) > 1 and " ".join(words[:-1]) not in table:
            with pytest.raises(ValueError, match=f"'{' '.join(words[:-1])}' is incomplete: one of "):
                parse(" ".join(words[:-1]))
