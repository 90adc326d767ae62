"""eightfold training and evaluation: the single-agent view, MaskablePPO training,
self-play, tournaments and the ``eightfold`` command line.

``import training`` registers the single-agent view of every game with Gymnasium::

    import gymnasium, training
    env = gymnasium.make("eightfold/otto_octopus-single-v0", opponents=["heuristic"], num_players=2)
"""

from training.single_agent import register_gymnasium

register_gymnasium()
