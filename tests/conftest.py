"""Hypothesis profiles for the property tests (``tests/core/test_bad_input.py``), and a home for
Stable-Baselines3's default log folders.

``ci`` (default): the same examples on every run, so CI's verdict depends on the code only.
``explore``: fresh random examples, 25 times as many, to hunt for new counter-examples:
``HYPOTHESIS_PROFILE=explore python -m pytest tests/core/test_bad_input.py``.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=60)
settings.register_profile("explore", derandomize=False, max_examples=1500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def _sb3_logdir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """``MaskablePPO.learn()`` without a logger of its own makes a folder ``SB3-<time>`` under
    ``$SB3_LOGDIR`` (default: the system's temp folder); the tests' go to pytest's temp tree."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
