"""Over and Out: the running-total card game for 2-8 players (``eightfold/over_and_out-v0``).

The doc page is the docstring of :mod:`envs.over_and_out.env`."""
