"""Parsing ``--param key=value`` options of the command line."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def parse_value(text: str) -> Any:
    """JSON when it parses (numbers, true/false/null, lists, dicts), else the raw string.

    ``None``/``True``/``False`` are accepted in Python spelling too.
    """
    py = {"None": None, "True": True, "False": False}
    if text in py:
        return py[text]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_params(items: Iterable[str] | None, variant: str | None = None) -> dict[str, Any]:
    """``["num_players=3", "deck_counts={\\"0\\": 9}"]`` -> dict; ``ValueError`` if malformed."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"malformed --param {item!r}; expected key=value")
        params[key.strip()] = parse_value(value.strip())
    if variant is not None:
        params["variant"] = variant
    return params
