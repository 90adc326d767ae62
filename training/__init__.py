"""eightfold training and evaluation: the single-agent view, MaskablePPO training,
self-play, tournaments and the ``eightfold`` command line."""
