"""Every bot refuses a seat that is not the one to act (``Bot.act``'s precondition, checked).

A scoring bot asked for another seat used to score the mover's legal moves from that seat's
point of view (and with that seat's knowledge of hidden information) without a word."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.registry import GAMES

BOT_SPECS = ("random", "greedy", "heuristic", "mcts:sims=4")


def _positions(game: Any, count: int, seed: int) -> list[Any]:
    """``count`` running positions of a random game, the first one at the start."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    out = [state.clone()]
    while len(out) < count and not (state.is_terminal() or state.is_truncated()):
        for _ in range(int(rng.integers(1, 6))):
            legal = np.flatnonzero(state.legal_mask())
            if legal.size == 0:
                break
            state.apply(int(rng.choice(legal)))
        if not (state.is_terminal() or state.is_truncated()):
            out.append(state.clone())
    return out


def test_a_bot_asked_for_a_seat_not_to_move_raises(game_config: tuple[str, dict[str, Any]]) -> None:
    name, params = game_config
    entry = GAMES[name]
    game = entry.game_class()(**params)
    if game.num_players < 2:
        pytest.skip("one seat: always the mover")
    bots = {spec: make_bot(game, spec, entry.bots()) for spec in BOT_SPECS}
    for state in _positions(game, 6, seed=7):
        mover = state.current_player()
        before = state.to_dict()
        for spec, bot in bots.items():
            for seat in range(game.num_players):
                if seat == mover:
                    continue
                with pytest.raises(ValueError, match=rf"player {seat} is not to move \(mover {mover}\)"):
                    bot.act(state, seat, np.random.default_rng(0))
            action = bot.act(state, mover, np.random.default_rng(0))  # the mover is still served
            assert state.legal_mask()[action], spec
        assert state.to_dict() == before


def test_a_bot_given_another_games_position_raises(game_config: tuple[str, dict[str, Any]]) -> None:
    """Every bot refuses a position of another game by name: one once read it as its own and
    answered a move (the bots of Octi and Over and Out answered on an OTTO Game Over position,
    where one move is legal), the others failed a bare ``assert``. A position of the bot's own
    game made by another game object is served."""
    name, params = game_config
    entry = GAMES[name]
    game = entry.game_class()(**params)
    bots = {spec: make_bot(game, spec, entry.bots()) for spec in BOT_SPECS}
    foreign = [GAMES[other].game_class()().new_initial_state(np.random.default_rng(1)) for other in GAMES]
    foreign = [s for s in foreign if type(s.config) is not type(game.config)]
    assert len(foreign) == len(GAMES) - 1
    for spec, bot in bots.items():
        for state in foreign:
            with pytest.raises(
                ValueError,
                match=rf"the state is not a position of this bot's game: the bot plays {type(game).__name__}, the state "
                rf"is envs\.\w+\.rules\.State",
            ):
                bot.act(state, state.current_player(), np.random.default_rng(0))
        twin = entry.game_class()(**params).new_initial_state(np.random.default_rng(2))
        assert twin.legal_mask()[bot.act(twin, twin.current_player(), np.random.default_rng(0))], spec
