"""Hypothesis profiles for the property tests (``tests/core/test_bad_input.py``).

``ci`` (default): the same examples on every run, so CI's verdict depends on the code only.
``explore``: fresh random examples, 25 times as many, to hunt for new counter-examples:
``HYPOTHESIS_PROFILE=explore python -m pytest tests/core/test_bad_input.py``.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=60)
settings.register_profile("explore", derandomize=False, max_examples=1500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
