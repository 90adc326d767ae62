"""The reading rule every game's notation shares (each spec's §8): a string is read
case-insensitively, with surrounding whitespace ignored (any Unicode whitespace, as ``str.strip``
removes it) and runs of spaces collapsed; anything else (a tab or line break between the words,
a character outside ASCII inside the text) is malformed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["WordTable", "canonical_text"]


def canonical_text(text: str, expected: str) -> str:
    """``text`` in canonical spelling (lowercase, single spaces), or ``ValueError``.

    ``expected`` describes the game's grammar for the error message. Whether the result is a
    well-formed or legal action is for the game's parser to decide.
    """
    body = text.strip()
    if not body.isascii():
        raise ValueError(f"malformed action {text!r}: notation is ASCII text; expected {expected}")
    if any(c.isspace() and c != " " for c in body):
        raise ValueError(
            f"malformed action {text!r}: the words are separated by spaces (no tabs or line breaks); "
            f"expected {expected}"
        )
    return " ".join(w for w in body.split(" ") if w).lower()


_END = ""  # a trie key no word can be: canonical text has no empty words


class WordTable:
    """The words of a fixed notation table (every canonical action string of a game), to say
    *where* a malformed string leaves it: ``hint("card magnetic-inversion player_4")`` gives
    ``"after 'card magnetic-inversion' comes one of player_0, player_1, player_2, player_3,
    got 'player_4'"``. Built on the first error only (error paths alone use it)."""

    def __init__(self, strings: Iterable[str]) -> None:
        self._strings = tuple(strings)
        self._root: dict[str, Any] | None = None

    def _trie(self) -> dict[str, Any]:
        if self._root is None:
            root: dict[str, Any] = {}
            for s in self._strings:
                node = root
                for w in s.split(" "):
                    node = node.setdefault(w, {})
                node[_END] = {}
            self._root = root
        return self._root

    def hint(self, key: str) -> str:
        """Where canonical text ``key`` (not in the table) departs from it, and what the table
        has there instead."""
        words = key.split(" ") if key else []
        node, i = self._trie(), 0
        while i < len(words) and words[i] in node:
            node, i = node[words[i]], i + 1
        done = " ".join(words[:i])
        nexts = [w for w in node if w != _END]
        if i == len(words):
            return (
                f"'{done}' is incomplete: one of {_listing(nexts)} must follow"
                if done
                else "the text is empty"
            )
        if not nexts:
            return f"'{done}' is a whole action, got '{' '.join(words[i:])}' after it"
        where = f"after '{done}' comes" if done else "the first word is"
        end = " (or nothing)" if _END in node else ""
        return f"{where} one of {_listing(nexts)}{end}, got '{words[i]}'"


def _listing(words: list[str]) -> str:
    """The words in table order, shortened to its ends when there are many."""
    if len(words) <= 16:
        return ", ".join(words)
    return f"{', '.join(words[:6])}, ..., {', '.join(words[-2:])} ({len(words)} words)"
