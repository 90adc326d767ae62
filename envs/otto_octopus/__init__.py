"""Otto the Octopus: tile laying around an octopus, with fish (1-4 players). See ``env.py``."""
