"""``eightfold/octi-v0``: Octi as a PettingZoo AEC environment (see :mod:`envs.octi.env`)."""

from envs.octi.env import env, raw_env

__all__ = ["env", "raw_env"]
