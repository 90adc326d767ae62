"""Every ``configs/<game>.yaml`` is a valid training configuration for a registered game."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.core.registry import get_game
from training.config import CONFIG_DIR, TrainConfig, merge, read_yaml
from training.players import game_bots, make_player

CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))
RESULTS = sorted((CONFIG_DIR.parent / "docs" / "results").glob("*_config.yaml"))


def test_there_is_a_config_per_game() -> None:
    assert {p.stem for p in CONFIGS} >= {"octi", "over_and_out", "otto_octopus", "otto_game_over"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_config_is_valid_for_its_game(path: Path) -> None:
    cfg = merge(TrainConfig(env=path.stem), read_yaml(path), str(path))
    cfg.validate()
    entry = get_game(path.stem)
    game = entry.game_class()(**cfg.params)
    bots = game_bots(entry)
    for spec in [*cfg.opponents, *cfg.eval_opponents, cfg.pretrain_teacher]:
        if spec != "self":
            make_player(game, spec, bots)  # every named bot exists and takes its parameters


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_published_run_configs_still_load(path: Path) -> None:
    """The resolved configs of the README's runs (docs/results) are valid with today's options."""
    data = read_yaml(path)
    cfg = merge(TrainConfig(), data, str(path))
    cfg.validate()
    assert cfg.env == path.stem.removesuffix("_config")
