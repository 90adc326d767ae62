"""Octi (basic 6x7, Octi-X fast, Octi-X classic): engine, codec, env, bots and rendering."""
