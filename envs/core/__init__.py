"""Game-agnostic parts shared by every eightfold game: the engine protocol
(:mod:`envs.core.game`), config validation (:mod:`envs.core.config`), the PettingZoo AEC
adapter (:mod:`envs.core.aec`), the registry (:mod:`envs.core.registry`), bots
(:mod:`envs.core.bots`) and drawing helpers (:mod:`envs.core.draw`)."""
