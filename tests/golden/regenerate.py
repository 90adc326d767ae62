"""Regenerate the golden playthrough files: ``python -m tests.golden.regenerate [game ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

from envs.core.playthrough import config_id, playthrough
from envs.core.registry import GAMES, installed_games

HERE = Path(__file__).resolve().parent


def golden_path(game: str, params: dict[str, object]) -> Path:
    return HERE / f"{game}__{config_id(params)}.txt"


def main(argv: list[str]) -> int:
    names = argv or installed_games()
    for name in names:
        for params in GAMES[name].game_class().golden_configs:
            path = golden_path(name, params)
            path.write_text(playthrough(name, dict(params)))
            print(f"wrote {path.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
