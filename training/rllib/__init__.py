"""The Ray RLlib backend of ``eightfold train --backend rllib`` (optional extra ``rllib``).

* :mod:`training.rllib.env` - ``EightfoldMultiAgentEnv``, an RLlib ``MultiAgentEnv`` over
  an eightfold engine, with ``{"observations", "action_mask"}`` observations.
* :mod:`training.rllib.train` - PPO with an action-masking RLModule, self-play or bot
  opponents, on a local or remote Ray cluster (``--address``).
* :mod:`training.rllib.policy` - ``RLlibPolicy``: a trained checkpoint behind the
  ``act(state, player, rng)`` interface of bots and SB3 policies, for ``eval`` and ``play``.

Importing this package does not import Ray; the submodules do.
"""
