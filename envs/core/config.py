"""Validation helpers for game configs.

Every game's ``Config`` is a frozen dataclass whose ``__post_init__`` validates each
field with these helpers, so a bad parameter always raises ``ValueError`` naming the
parameter and the allowed values.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

C = TypeVar("C")


def check_choice(name: str, value: object, allowed: Iterable[object]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed`` (type-strict for bools)."""
    allowed = tuple(allowed)
    for a in allowed:
        if type(a) is type(value) and a == value:  # None among the choices too
            return
    raise ValueError(f"{name} must be one of {list(allowed)!r}, got {value!r}")


def check_int(name: str, value: object, lo: int | None = None, hi: int | None = None) -> None:
    """Raise ``ValueError`` unless ``value`` is an int (not bool) within ``[lo, hi]``."""
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and lo is not None and value < lo:  # type: ignore[operator]
        ok = False
    if ok and hi is not None and value > hi:  # type: ignore[operator]
        ok = False
    if not ok:
        lo_s = "-inf" if lo is None else str(lo)
        hi_s = "inf" if hi is None else str(hi)
        raise ValueError(f"{name} must be an int in [{lo_s}, {hi_s}], got {value!r}")


def check_seed(value: object, name: str = "seed") -> int:
    """``value`` as an int seed: a Python or numpy integer >= 0 (not a bool, not ``None``:
    nothing falls back to fresh entropy), else ``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return int(value)


def check_bool(name: str, value: object) -> None:
    """Raise ``ValueError`` unless ``value`` is a bool."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def is_real(value: object) -> bool:
    """A real number, numpy's included (``np.float32(0.5)``), never a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def plain(value: Any) -> Any:
    """``value`` with numpy scalars turned into the Python ``bool`` / ``int`` / ``float`` / ``str``
    of the same value, inside lists, tuples and dict values too (a parameter swept with numpy reads
    like the literal). Anything else is returned unchanged, for the config to validate."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):  # a namedtuple too: read as the plain tuple it holds
        return tuple(plain(v) for v in value)
    return value


def plain_fields(config: object) -> None:
    """Turn the numpy scalars among a config dataclass's fields (and inside its lists, tuples
    and dicts) into Python values in place, as :func:`make_config` does for its parameters: a
    config built directly reads ``np.int64(3)`` as ``3`` too. Each ``__post_init__`` calls it
    before validating (frozen dataclasses are set through ``object.__setattr__``)."""
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        if isinstance(value, (np.generic, dict, list, tuple)):
            object.__setattr__(config, f.name, plain(value))


def make_config(config_cls: type[C], params: Mapping[str, Any]) -> C:
    """Build ``config_cls(**params)``; unknown names raise ``ValueError`` listing the allowed ones.

    Numpy scalars are read as the Python value they hold (:func:`plain`)."""
    fields = [f.name for f in dataclasses.fields(config_cls)]  # type: ignore[arg-type]
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for {_owner(config_cls)}; allowed: {fields}")
    return config_cls(**{k: plain(v) for k, v in params.items()})


def _owner(config_cls: type) -> str:
    """Whose parameters ``config_cls`` holds: ``octi`` for ``envs.octi.rules.Config`` (a game's
    configs are all named ``Config``), else the class's module and name."""
    from envs.core.registry import GAMES

    package, _, rest = config_cls.__module__.partition(".")
    game = rest.partition(".")[0]
    if package == "envs" and game in GAMES:
        return game
    return f"{config_cls.__module__}.{config_cls.__qualname__}"


def config_to_dict(config: object) -> dict[str, Any]:
    """A JSON-friendly dict of a config dataclass (plain dicts and lists inside, whatever
    read-only types the config keeps, so YAML and editing work on it too)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    out: dict[str, Any] = plain(dataclasses.asdict(config))  # type: ignore[call-overload]
    return out


def describe_params(config_cls: type) -> list[tuple[str, str, str]]:
    """(name, default, help) of each config field, for ``eightfold list``."""
    rows = []
    for f in dataclasses.fields(config_cls):
        default: object
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = "(required)"
        rows.append((f.name, repr(default), str(f.metadata.get("help", ""))))
    return rows
