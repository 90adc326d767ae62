"""The bot interface shared by every game.

A bot chooses an action for ``player`` in an engine state::

    action = bot.act(state, player, rng)

Bots must be honest: they read only what ``player`` could see at the table. A bot that
simulates the future first calls ``game.resample_hidden(state, player, rng)`` (which also
replaces the engine's RNG, so future chance events are unknown too) and never looks at
another seat's hidden cards or the deck order. All randomness comes from ``rng``.

Each game's ``bots.py`` exports ``BOTS``: a dict name -> factory ``(game, **params) -> Bot``.
:func:`make_bot` parses specs such as ``"random"`` or ``"mcts:sims=200,rollout=heuristic"``.
A game's own bot classes name their game (:attr:`Bot.game_name`) and refuse to be built for
another; :class:`RandomBot` and the core search bots play any game.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from envs.core.game import Game, GameState, check_game, hides_nothing, legal_indices, same_game_config

BotFactory = Callable[..., "Bot"]


class Bot(ABC):
    """A scripted player."""

    name: str = "bot"
    #: the game this bot class reads the states of (``envs/<game>/bots.py`` sets it), or
    #: ``None`` for a bot that plays any game through the engine protocol alone
    game_name: ClassVar[str | None] = None

    def __init__(self, game: Game[Any, Any]) -> None:
        """``ValueError`` when ``game`` is not an engine game object, or the class is a bot of
        one game (:attr:`game_name`) and ``game`` is not that game: it would read another
        game's positions as its own."""
        if self.game_name is None:
            check_game(game, self.name)
        elif not _is_game_of(game, self.game_name):
            cls = f"{type(self).__module__}.{type(self).__qualname__}"
            if isinstance(game, Game):
                raise ValueError(
                    f"{self.name}: {cls} is a bot of {self.game_name} and cannot play {game.name}; "
                    f"use {_own_bots(game)}"
                )
            raise ValueError(
                f"{self.name}: game must be a Game object of {self.game_name}, got {type(game).__name__}"
            )
        self.game = game

    @abstractmethod
    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        """A legal action for ``player``, who must be the player to act (else ``ValueError``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _is_game_of(game: Any, game_name: str) -> bool:
    """``game`` is an object of the registered game ``game_name``'s class, or of a subclass of it
    (a user's variant keeps the bots of the game it extends)."""
    from envs.core.registry import GAMES

    if game_name not in GAMES:
        return isinstance(game, Game) and game.name == game_name
    return isinstance(game, GAMES[game_name].game_class())


def _own_bots(game: Game[Any, Any]) -> str:
    """Where ``game``'s own bots are, for an error message."""
    from envs.core.registry import GAMES

    return f"GAMES[{game.name!r}].bots()" if game.name in GAMES else "that game's own bots"


def check_engine_state(state: Any, bot: str) -> None:
    """``ValueError`` unless ``state`` is an engine state (a :class:`GameState`): an env's
    observation dict or ``None`` is not one (a bot calls this before it reads the state)."""
    if not isinstance(state, GameState):
        raise ValueError(
            f"{bot}: state must be an engine state (a GameState: env.unwrapped.state, not an env's "
            f"observation), got {type(state).__name__}"
        )


def check_mover(
    state: GameState, player: int, bot: str, rng: Any, game: Game[Any, Any] | None = None
) -> None:
    """``ValueError`` unless ``state`` is an engine state (:func:`check_engine_state`: not an
    env's observation dict, not ``None``) and, when ``game`` is given, a position of ``game``
    (the bot's game, in any of its configs: the bots read the player count and the rules from
    the state; OpenSpiel's ``ismcts``, which rebuilds the game from its parameters, asks for the
    same parameters), ``player`` is
    the one to act in it (a seat index: an int) and ``rng`` a numpy ``Generator``: a bot asked
    for another seat would score the mover's legal moves from that seat's point of view (and,
    for hidden information, from that seat's knowledge), silently; a bot given another game's
    position would read it as its own (the check compares the class of the state's ``config``
    with the game's, as the four games' states carry one). Callers check for a finished game
    first (its message is "no legal action: the game is over"), after
    :func:`check_engine_state` where they read the state before this."""
    check_engine_state(state, bot)
    own = getattr(game, "config", None)
    theirs = getattr(state, "config", own)  # a state without a config is not checked
    if game is not None and not same_game_config(own, theirs):
        raise ValueError(
            f"{bot}: the state is not a position of this bot's game: the bot plays {type(game).__name__}, "
            f"the state is {type(state).__module__}.{type(state).__name__}"
        )
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
        raise ValueError(f"{bot}: player must be a seat index (an int), got {player!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"{bot}: rng must be a numpy Generator, e.g. np.random.default_rng(seed), got {type(rng).__name__}"
        )
    mover = state.current_player()
    if mover != player:
        raise ValueError(f"{bot}: player {player} is not to move (mover {mover})")


class RandomBot(Bot):
    """Uniformly random among the legal actions."""

    name = "random"

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        check_engine_state(state, self.name)
        legal = legal_indices(state.legal_mask())
        if legal.size == 0:
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        return int(legal[rng.integers(legal.size)])


class ScoringBot(Bot):
    """Picks the legal action with the highest ``score`` (ties broken at random).

    Subclasses define ``score(state, player, action, rng)``; a greedy bot scores the
    immediate outcome, a heuristic bot adds rules of thumb.
    """

    @abstractmethod
    def score(self, state: GameState, player: int, action: int, rng: np.random.Generator) -> float:
        """Higher is better."""

    def scores(
        self, state: GameState, player: int, actions: list[int], rng: np.random.Generator
    ) -> list[float]:
        """``score`` of each of ``actions`` (a bot may override it to share work between them;
        the MCTS prior calls this)."""
        return [self.score(state, player, a, rng) for a in actions]

    def scored_actions(
        self, state: GameState, player: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions and their scores (a single legal action is not scored: 0.0)."""
        check_engine_state(state, self.name)
        legal = legal_indices(state.legal_mask())
        if legal.size == 0:
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        if legal.size == 1:
            return legal, np.zeros(1)
        return legal, np.array(self.scores(state, player, [int(a) for a in legal], rng), dtype=np.float64)

    def best_actions(self, state: GameState, player: int, rng: np.random.Generator) -> list[int]:
        """The legal actions of the highest score (all of them: ties are equally good)."""
        legal, scores = self.scored_actions(state, player, rng)
        return [int(a) for a in legal[scores >= scores.max() - 1e-9]]

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        return self.pick(self.best_actions(state, player, rng), rng)

    @staticmethod
    def pick(best: list[int], rng: np.random.Generator) -> int:
        """The move :meth:`act` plays from :meth:`best_actions`: a uniform one of them
        (a single best move draws nothing from ``rng``)."""
        return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:sims=200,rollout=random"`` -> ``("mcts", {"sims": 200, "rollout": "random"})``."""
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec is a string such as 'heuristic' or 'mcts:sims=200', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    params: dict[str, Any] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"malformed bot parameter {item!r} in {spec!r}; expected key=value")
            if key.strip() in params:
                raise ValueError(f"bot parameter {key.strip()!r} given twice in {spec!r}")
            params[key.strip()] = _parse_value(value.strip())
    if not name:
        raise ValueError(f"malformed bot spec {spec!r}; expected name[:key=value,...]")
    return name, params


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def make_bot(game: Game[Any, Any], spec: str, bots: Mapping[str, BotFactory]) -> Bot:
    """Build the bot named by ``spec`` from a game's ``BOTS`` table (``GAMES[name].bots()``).
    ``ValueError`` when ``game`` is not an engine game object, ``bots`` not a mapping, or the
    bot named is one of another game's (a table of another game)."""
    check_game(game, "make_bot")
    if not isinstance(bots, Mapping):
        raise ValueError(
            f"make_bot: bots must be a game's table of bots, a dict name -> factory "
            f"(GAMES[{game.name!r}].bots()), got {type(bots).__name__}"
        )
    name, params = parse_bot_spec(spec)
    factory = bots.get(name)
    plays = getattr(factory, "game_name", None) if isinstance(factory, type) else None
    if isinstance(plays, str) and not _is_game_of(game, plays):
        raise ValueError(f"bot {name!r} of the {plays} table cannot play {game.name}; use {_own_bots(game)}")
    if factory is None and name == "mcts":  # the core search bot works for every game
        from envs.core.mcts import MCTSBot

        factory = MCTSBot
    if factory is None and name == "ismcts":  # OpenSpiel's, for every game (the openspiel extra)
        try:
            from envs.core.openspiel import OpenSpielISMCTSBot
        except ImportError as exc:
            raise ValueError(f"bot 'ismcts' is OpenSpiel's: {exc}") from None
        factory = OpenSpielISMCTSBot
    if factory is None:
        core = {"mcts"} | (set() if hides_nothing(game) else {"ismcts"})
        raise ValueError(f"unknown bot {name!r}; available: {sorted(set(bots) | core)}")
    names = _parameter_names(factory)
    allowed = None if names is None else [n for n in names if not n.startswith("_")]  # _x: not in specs
    unknown = sorted(set(params) - set(allowed)) if allowed is not None else []
    if unknown:
        takes = f"allowed: {allowed}" if allowed else "it takes none"
        raise ValueError(f"unknown parameter(s) {unknown} for bot {name!r}; {takes}")
    if names is not None and "_bots" in names:
        params = {**params, "_bots": bots}  # a bot built of others (mcts: rollout, prior) uses this table
    try:
        return factory(game, **params)
    except TypeError as exc:
        raise ValueError(f"bad parameters for bot {name!r}: {exc}") from exc


def _parameter_names(factory: BotFactory) -> list[str] | None:
    """The keyword parameters a bot factory takes after ``game`` (None: it takes any)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return [p.name for p in list(sig.parameters.values())[1:] if p.kind in kinds]
