"""``eightfold/over_and_out-v0``: Over and Out (see :mod:`envs.over_and_out.env`)."""

from envs.over_and_out.env import env, raw_env

__all__ = ["env", "raw_env"]
