"""Parsing ``--param key=value`` options of the command line."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable
from pathlib import Path
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


def parse_params(
    items: Iterable[str] | None, variant: str | None = None, flag: str = "--param"
) -> dict[str, Any]:
    """``["num_players=3", "deck_counts={\\"0\\": 9}"]`` -> dict; ``ValueError`` naming ``flag``
    if malformed. A key given twice keeps its last value, as argparse keeps a repeated flag's
    last (a script's defaults, then an override)."""
    if isinstance(items, (str, bytes)):
        raise ValueError(f"{flag} items must be a list of 'key=value' strings, got the string {items!r}")
    params: dict[str, Any] = {}
    for item in items or []:
        if not isinstance(item, str):
            raise ValueError(f"{flag} items must be 'key=value' strings, got {item!r}")
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"malformed {flag} {item!r}; expected key=value")
        key = key.strip()
        if key == "render_mode":
            raise ValueError(f"{flag} render_mode: not a game parameter (each command sets the render mode)")
        parsed = parse_value(value.strip())
        params[key] = parsed  # a key given twice keeps its last value, as a repeated flag does
    if variant is not None:
        if "variant" in params and params["variant"] != variant:
            raise ValueError(
                f"--variant {variant!r} and {flag} variant={params['variant']!r} disagree; give the variant once"
            )
        params["variant"] = variant
    return params


def int_at_least(low: int, high: int | None = None) -> Any:
    """An ``argparse`` type: an int ``>= low`` (and ``<= high`` when given); anything else is a
    usage error saying so."""
    allowed = f">= {low}" if high is None else f"from {low} to {high:,}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    parse.__name__ = f"int {allowed}"
    return parse


def float_at_least(low: float, strict: bool = False) -> Any:
    """An ``argparse`` type: a finite float ``>= low`` (``> low`` with ``strict``)."""
    relation = ">" if strict else ">="

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {relation} {low:g}, got {text!r}") from None
        if not math.isfinite(value) or value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"must be a number {relation} {low:g}, got {text}")
        return value

    parse.__name__ = f"number {relation} {low:g}"
    return parse


#: what the command writes under each output option, by the file name's ending
OUTPUT_KINDS = {
    "--out": (".png", "a PNG"),
    "--plot": (".png", "a PNG"),
    "--gif": (".gif", "a GIF"),
    "--dataset": (".npz", "a NumPy .npz archive"),
}


def output_file(option: str, path: str | Path) -> Path:
    """A file the command will write, checked before the work starts: not a directory, named
    for what it holds (:data:`OUTPUT_KINDS`: ``--out x.jpg`` would hold a PNG), and its folder
    created if missing (``ValueError`` naming ``option`` when that cannot be)."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a directory; give a file name")
    suffix, kind = OUTPUT_KINDS.get(option, ("", ""))
    if suffix and p.suffix.lower() != suffix:
        raise ValueError(f"{option} writes {kind}: give a file name ending in {suffix}, got {str(path)!r}")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{option} {str(path)!r}: cannot create its folder ({exc})") from None
    return p
