"""Starting ``eightfold play`` and ``eightfold render`` from a chosen position.

``--options JSON`` (or ``--options @file.json``) is passed to ``env.reset(seed, options=...)``:
each game's reset options, documented on its doc page (Octi: ``{"moves": [...]}`` and
``{"position": {...}}``; OTTO Game Over and Otto the Octopus: ``{"position": {...}}``, the
schema ``env.unwrapped.snapshot()`` writes; Over and Out: ``{"deck_top": [...], "tiptop_top":
[...]}``; every game: ``{"state": ...}``, a whole state as ``state.to_dict()`` writes it). ``--moves "m1; m2; ..."``
then plays moves in the game's notation, separated by ``;`` (no notation string of the suite
holds one), each of which must be legal for the seat to act; the seeded chance of the reset
(deals, draws) decides everything else, so ``--seed S --moves ...`` names one position.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.game import check_game, legal_indices

#: legal moves shown in the error for an illegal ``--moves`` entry
SHOWN_LEGAL = 20
#: what ``json.loads`` returns, by the names JSON gives its values
JSON_KINDS = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def parse_reset_options(text: str | None) -> dict[str, Any] | None:
    """``--options``: a JSON object, or ``@path`` of a file holding one; ``None`` if not given."""
    if text is None:
        return None
    source = "--options"
    if not isinstance(text, str):
        raise ValueError(
            f"options must be the --options text (a JSON object, or @path of a file holding one), "
            f"got {type(text).__name__}; for a dict call env.reset(options=...) yourself"
        )
    if text.startswith("@"):
        if not text[1:]:
            raise ValueError("--options '@' names no file; give @path of a JSON file")
        path = Path(text[1:])
        source = f"--options file {str(path)!r}"
        try:
            # (a BOM, as Windows editors write, is skipped; OSError: the command line reports it)
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise ValueError(f"{source}: no such file") from None
        except IsADirectoryError:
            raise ValueError(f"{source} is a directory; give a JSON file") from None
        except UnicodeDecodeError:
            raise ValueError(f"{source} is not a text file (UTF-8); expected a JSON object") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{source} is not valid JSON ({exc}); expected a "
            """JSON object of the game's reset options, e.g. '{"moves": ["prong c2 N"]}' for Octi"""
        ) from None
    if not isinstance(value, dict):
        raise ValueError(
            f"{source} must be a JSON object of the game's reset options (see its doc page), "
            f"got a JSON {JSON_KINDS.get(type(value), type(value).__name__)}"
        )
    return value


def split_moves(text: str | None) -> list[str]:
    """``--moves "prong c2 N; prong d6 S"`` -> the notation strings (empty entries refused)."""
    if text is None:
        return []
    if not isinstance(text, str):
        raise ValueError(
            f"moves must be the --moves text (moves separated by ';'), got {type(text).__name__}; "
            "a list of moves goes to play_moves or start_state"
        )
    moves = [m.strip() for m in text.split(";")]
    if moves and not moves[-1]:  # a trailing ';' is harmless
        moves.pop()
    for i, m in enumerate(moves, 1):
        if not m:
            raise ValueError(
                f"--moves: move {i} is empty; expected moves in the game's notation separated by ';'"
            )
    return moves


def checked_action(state: Any, i: int, text: str, moves_left: int, who: str, source: str = "--moves") -> int:
    """The action of move ``i`` (``text``, notation) in engine ``state``, legal for ``who``, the
    seat to act; ``ValueError`` naming the move (and its ``source``) if the game is over, the
    text malformed or the move not legal (with the legal moves)."""
    if state.is_terminal():
        raise ValueError(
            f"{source}: the game is over before move {i} {text!r}; {moves_left} move(s) not played"
        )
    try:
        action = int(state.string_to_action(text))
    except ValueError as exc:
        raise ValueError(f"{source}: move {i} {text!r} ({who} to act): {exc}") from None
    mask = state.legal_mask()
    if not 0 <= action < mask.size or not mask[action]:
        legal = [state.action_to_string(int(a)) for a in legal_indices(mask)]
        more = f", ... ({len(legal)} in all)" if len(legal) > SHOWN_LEGAL else ""
        raise ValueError(
            f"{source}: move {i} {text!r} is not legal for {who} here; legal: "
            + ", ".join(legal[:SHOWN_LEGAL])
            + more
        )
    return action


def play_moves(env: Any, moves: list[str]) -> int:
    """Play ``moves`` (notation) in the reset AEC ``env``, each legal for the seat to act;
    dead steps of finished seats are taken on the way. Returns the number played; a malformed
    or illegal move, or one after the end, raises ``ValueError`` naming it."""
    raw = env.unwrapped
    for i, text in enumerate(moves, 1):
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        env.step(checked_action(raw.state, i, text, len(moves) - i + 1, env.agent_selection))
    return len(moves)


def start_state(game: Any, rng: np.random.Generator, options: dict[str, Any] | None, moves: list[str]) -> Any:
    """The engine's version of :func:`reset_to_position`: ``game.new_initial_state(rng,
    options)``, then ``moves`` (notation), checked the same way (``eightfold eval`` starts every
    game there)."""
    check_game(game, "start_state")
    if isinstance(moves, str):
        raise ValueError(
            f"moves must be a list of notation strings, got the string {moves!r} (split it with split_moves)"
        )
    if isinstance(moves, np.ndarray) and moves.ndim == 1:
        moves = moves.tolist()
    if not isinstance(moves, (list, tuple)):
        raise ValueError(f"moves must be a list of notation strings (or []), got {type(moves).__name__}")
    try:
        state = game.new_initial_state(rng, options)
    except ValueError as exc:
        if options is None:
            raise
        raise ValueError(f"--options: {exc}") from None
    for i, text in enumerate(moves, 1):
        who = f"player_{state.current_player()}" if not state.is_terminal() else ""
        state.apply(checked_action(state, i, text, len(moves) - i + 1, who))
    return state


def reset_to_position(
    env: Any, seed: int, options: str | None, moves: str | None, to_play: bool = False
) -> int:
    """``env.reset(seed, options)`` from ``--options``, then ``--moves``; returns the moves played.
    With ``to_play`` (``play``; ``render`` draws any position) a position where the game is
    already over is a ``ValueError``."""
    parsed = parse_reset_options(options)
    listed = split_moves(moves)
    try:
        env.reset(seed=seed, options=parsed)
    except ValueError as exc:
        if parsed is None:
            raise
        raise ValueError(f"--options: {exc}") from None
    played = play_moves(env, listed)
    if to_play and env.unwrapped.state.is_terminal():
        given = " and ".join(x for x, v in (("--options", options), ("--moves", moves)) if v is not None)
        raise ValueError(f"the game is over in the position of {given}: nothing to play")
    return played
