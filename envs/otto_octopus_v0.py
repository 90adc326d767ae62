"""``eightfold/otto_octopus-v0``: Otto the Octopus (see :mod:`envs.otto_octopus.env`)."""

from envs.otto_octopus.env import env, raw_env

__all__ = ["env", "raw_env"]
