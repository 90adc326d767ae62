"""Hypothesis profiles for the property tests (``tests/core/test_bad_input.py``), a home for
Stable-Baselines3's default log folders, and Ctrl-C as a terminal delivers it.

``ci`` (default): the same examples on every run, so CI's verdict depends on the code only.
``explore``: fresh random examples, 25 times as many, to hunt for new counter-examples:
``HYPOTHESIS_PROFILE=explore python -m pytest tests/core/test_bad_input.py``.
"""

import os
import signal

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


# A suite started in the background by a shell without job control (``cmd &``, ``nohup``)
# inherits SIGINT ignored, and so does every process it starts: the tests of Ctrl-C (real
# signals to the commands, in-process handlers) would then test nothing. Ctrl-C is put back
# to Python's default here; the processes the tests start inherit that.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
