"""Names and helpers of the RLlib backend that do not import Ray (so ``eightfold train``
can add the backend's flags without the ``rllib`` extra installed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

META_FILE = "eightfold_rllib.json"
"""Run metadata (game, parameters, opponents, module id) next to the checkpoint."""
CHECKPOINT_DIR = "checkpoint"
MAIN = "main"
"""The learning module."""
OPPONENT = "opponent"
"""The frozen copy of ``main`` (``--self-play frozen``)."""
FROZEN_PREFIX = "frozen_"


def parse_opponents(value: Any) -> dict[str, float]:
    """``"random,self"``, a list, or ``{spec: weight}`` -> weights (``"self"``: learning agents)."""
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, Mapping):
        out = {str(k): float(v) for k, v in value.items()}
    else:
        out = dict.fromkeys((str(v) for v in value), 1.0)
    if not out or any(w <= 0 for w in out.values()):
        raise ValueError(f"opponents must name at least one opponent with a weight > 0, got {value!r}")
    return out
