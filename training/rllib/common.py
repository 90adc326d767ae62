"""Names and helpers of the RLlib backend that do not import Ray (so ``eightfold train``
can add the backend's flags without the ``rllib`` extra installed)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

META_FILE = "eightfold_rllib.json"
"""Run metadata (game, parameters, opponents, module id) next to the checkpoint."""
CHECKPOINT_DIR = "checkpoint"
MAIN = "main"
"""The learning module."""
OPPONENT = "opponent"
"""The frozen copy of ``main`` (``--self-play frozen``)."""
FROZEN_PREFIX = "frozen_"
#: how an RLlib run is evaluated (it has no periodic or final evaluation of its own)
EVAL_AFTERWARDS = "eightfold eval <game> --players <run dir> random heuristic"


def require_rllib(what: str) -> None:
    """A usage error naming the extra to install when Ray RLlib is missing (``what`` needs it),
    instead of a ``ModuleNotFoundError`` traceback from deep inside the backend."""
    try:
        found = (
            importlib.util.find_spec("ray") is not None and importlib.util.find_spec("ray.rllib") is not None
        )
    except (ImportError, ValueError):  # a broken or partial ray install
        found = False
    if not found:
        raise ValueError(
            f"{what} needs Ray RLlib, which is not installed: pip install 'eightfold[rllib]' "
            "(ray[rllib] >= 2.60, < 3)"
        )


def parse_opponents(value: Any) -> dict[str, float]:
    """``"random,self"``, a list, or ``{spec: weight}`` -> weights (``"self"``: learning agents),
    read as the SB3 trainer reads them (:func:`training.config.parse_opponents`: a ``k=v`` item
    continues the bot spec before it, a spec named twice weighs 2)."""
    from training.config import parse_opponents as read_weights

    out = read_weights(value)
    if not out or not all(0 < w < math.inf for w in out.values()):  # NaN too
        raise ValueError(
            f"opponents must name at least one opponent, each with a finite weight > 0, got {value!r}"
        )
    return out


def find_run_dir(path: str | Path) -> Path | None:
    """The run directory of an RLlib run at ``path``, or above it when ``path`` is the run's
    ``checkpoint/`` (``None`` if it is not one; a bare name such as ``random`` never is)."""
    p = Path(path)
    candidates = (p, p.parent) if p.name == CHECKPOINT_DIR else (p,)
    for candidate in candidates:
        if (candidate / META_FILE).is_file():
            return candidate
    return None


def is_rllib_spec(spec: str) -> bool:
    """True when ``spec`` names an RLlib run (directory with ``eightfold_rllib.json``)."""
    return find_run_dir(spec.strip()) is not None


def read_meta(path: str | Path) -> dict[str, Any]:
    """``eightfold_rllib.json`` of the run at ``path`` (game name, parameters, module id)."""
    run_dir = find_run_dir(path)
    if run_dir is None:
        raise ValueError(f"{str(path)!r} is not an RLlib run directory (no {META_FILE})")
    path = run_dir / META_FILE
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{str(path)!r} is not the JSON eightfold train --backend rllib writes ({exc})"
        ) from None
    missing = [k for k in ("game",) if not isinstance(meta, dict) or k not in meta]
    if missing:
        raise ValueError(
            f"{str(path)!r} lacks {missing}: not the run metadata eightfold train --backend rllib writes"
        )
    # the keys its readers use, by type (a wrong one failed later, naming neither file nor key)
    for key, kind, what in (
        ("game", str, "a game name"),
        ("params", dict, "a mapping of game parameters"),
        ("module", str, "a module id"),
    ):
        if key in meta and not isinstance(meta[key], kind):
            raise ValueError(
                f"{str(path)!r}: {key} must be {what}, got {meta[key]!r}: not the run metadata "
                "eightfold train --backend rllib writes"
            )
    return dict(meta)
