"""Pins from a mutation round over the fixes of 2026-12-07 (state restore's read-back,
a run config's empty ``params``, ``eval``'s player cache): each test fails on a mutant that the
tests before it let pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core import game as core_game


def test_read_back_compares_the_generators_keys() -> None:
    """``_read_back_differs``: a key the generator keeps but the given state lacks differs; a
    given state that is no mapping where the generator keeps one differs (no TypeError); numpy
    arrays in the given state compare as their lists (no ambiguous-truth ValueError)."""
    differs = core_game._read_back_differs
    assert differs({"a": 1}, {"a": 1, "b": 2})
    assert differs({"state": 5}, {"state": {"key": [1, 2]}})
    assert differs(None, {"a": 1})
    assert not differs({"state": {"key": np.arange(3)}, "extra": 1}, {"state": {"key": [0, 1, 2]}})
    assert differs({"state": {"key": np.arange(3)}}, {"state": {"key": [0, 1, 3]}})


@pytest.mark.parametrize("name", sorted(core_game.BIT_GENERATORS))
def test_read_back_path_round_trips_states_and_refuses_a_changed_word(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The numpy < 2 path of ``rng_from_dict`` (forced here on any numpy): a state as numpy
    gives it (arrays included) or as ``rng_to_dict`` writes it restores the same stream; one
    the generator reads back otherwise (numpy turns ``has_uint32=1.5`` into 1, as numpy 1
    wraps an out-of-range word) is refused as malformed (numpy 1 may refuse the float itself)."""
    monkeypatch.setattr(core_game, "_NUMPY_WRAPS_WORDS", True)
    src = np.random.Generator(core_game.BIT_GENERATORS[name](7))
    src.random(3)
    want = src.bit_generator.random_raw(4).tolist()
    src = np.random.Generator(core_game.BIT_GENERATORS[name](7))
    src.random(3)
    raw: dict[str, Any] = dict(src.bit_generator.state)
    for d in (raw, core_game.rng_to_dict(src)):
        assert core_game.rng_from_dict(d).bit_generator.random_raw(4).tolist() == want
    if "has_uint32" in raw:
        with pytest.raises(ValueError, match="^malformed rng state"):
            core_game.rng_from_dict({**core_game.rng_to_dict(src), "has_uint32": 1.5})


@pytest.mark.parametrize("text", ["env: octi\nparams:\n", "env: octi\n", "env: octi\nparams: {}\n"])
def test_a_run_config_with_empty_or_no_params_is_the_default_game(tmp_path: Path, text: str) -> None:
    """``trained_with``: a run's ``config.yaml`` whose ``params:`` is left empty (YAML null) or
    absent names the game with no parameters, like ``params: {}`` (not "is not a run's
    config", which ``params: []`` or ``false`` get)."""
    from training.players import trained_with

    (tmp_path / "config.yaml").write_text(text)
    model = tmp_path / "model.zip"
    model.write_bytes(b"")
    assert trained_with(str(model)) == ("octi", {})


def test_eval_player_cache_keeps_both_determinisms_of_a_spec() -> None:
    """``eval``'s player cache drops the entries of an older version of the same file, not the
    other determinism of the same spec: both players stay cached side by side."""
    import training.evaluate as ev

    ev._CACHE.clear()
    try:
        sampled = ev._player("octi", "{}", "mcts:sims=1", False)
        greedy = ev._player("octi", "{}", "mcts:sims=1", True)
        assert sampled is not greedy and len(ev._CACHE) == 2
        assert ev._player("octi", "{}", "mcts:sims=1", False) is sampled
        assert ev._player("octi", "{}", "mcts:sims=1", True) is greedy
    finally:
        ev._CACHE.clear()


def test_eval_player_cache_holds_64_players_at_most() -> None:
    """``eval``'s per-process player cache holds 64 players at most (its bound, not just
    whatever ``CACHE_SIZE`` says): a tournament of more specs keeps the 64 last used."""
    import training.evaluate as ev

    ev._CACHE.clear()
    try:
        for i in range(70):
            ev._player("octi", "{}", f"mcts:sims={i + 1}", True)
        assert len(ev._CACHE) == 64
        assert sorted(int(k[2].split("=")[1]) for k in ev._CACHE) == list(range(7, 71))
    finally:
        ev._CACHE.clear()
