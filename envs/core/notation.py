"""The reading rule every game's notation shares (each spec's §8): a string is read
case-insensitively, with surrounding whitespace ignored (any Unicode whitespace, as ``str.strip``
removes it) and runs of spaces collapsed; anything else (a tab or line break between the words,
a character outside ASCII inside the text) is malformed."""

from __future__ import annotations

__all__ = ["canonical_text"]


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
