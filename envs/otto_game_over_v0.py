"""``eightfold/otto_game_over-v0``: OTTO Game Over (see ``envs.otto_game_over.env``)."""

from envs.otto_game_over.env import env, raw_env

__all__ = ["env", "raw_env"]
