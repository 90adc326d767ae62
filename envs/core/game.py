"""The engine protocol every eightfold game implements.

A game is two classes:

* ``State`` (subclass of :class:`GameState`): the whole position, hidden information
  included, plus the engine's own ``numpy.random.Generator``. ``apply`` mutates it in
  place; ``clone`` copies it (generator included, so a clone continues identically).
* ``Game`` (subclass of :class:`Game`): the game's facts for one validated config
  (players, action count, observation shape, reward bounds, length limit) and the
  functions that are not a state's own business: new initial states, observations,
  re-dealing hidden information, rendering.

Neither class imports gymnasium, pettingzoo or torch; :mod:`envs.core.aec` adapts any
``Game`` to PettingZoo, :mod:`training` to Gymnasium.

Rewards are exposed as *cumulative* returns (``GameState.returns()``): the adapters
pay the difference between two steps, so a reward paid mid-game (an elimination) and
one paid at the end use the same mechanism, and the sum over an episode is the final
``returns()``.
"""

from __future__ import annotations

import copy
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar, cast

import numpy as np

from envs.core.config import make_config

TERMINAL = -1
"""``current_player()`` of a finished game."""


BIT_GENERATORS: dict[str, Any] = {
    "PCG64": np.random.PCG64,
    "PCG64DXSM": np.random.PCG64DXSM,
    "Philox": np.random.Philox,
    "SFC64": np.random.SFC64,
    "MT19937": np.random.MT19937,
}
"""Bit generators a serialised state may name (nothing else of ``np.random`` is reachable)."""


def legal_indices(mask: np.ndarray) -> np.ndarray:
    """The indices of a legal mask's nonzero entries, ascending (``np.flatnonzero(mask)``).

    numpy's ``nonzero`` runs an element-by-element loop on ``int8`` and a vectorised one on
    ``bool``: on OTTO Game Over's 5,228 actions ``np.flatnonzero`` of the ``int8`` mask takes
    15 µs, of ``mask != 0`` under 3 µs (numpy 2.4). Every scan of a mask in the engine and the
    bots goes through here.
    """
    return np.flatnonzero(np.asarray(mask) != 0)


def team_seats(game: Game[Any, Any], seat: int) -> frozenset[int]:
    """``seat`` and its partner in a 2v2 game (``config.teams`` with 4 players: partners sit
    opposite and share the team's return), else just ``seat``."""
    if bool(getattr(game.config, "teams", False)) and game.num_players == 4:
        return frozenset({seat, (seat + 2) % 4})
    return frozenset({seat})


def _plain(value: Any) -> Any:
    """``value`` with its numpy arrays as lists, in nested dicts too (JSON-serialisable)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def rng_to_dict(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's full state as a JSON-serialisable dict (the array states of SFC64,
    Philox and MT19937 as lists; PCG64's is plain ints already)."""
    out: dict[str, Any] = _plain(dict(rng.bit_generator.state))
    return out


_NUMPY_WRAPS_WORDS = int(np.__version__.split(".")[0]) < 2


def _read_back_differs(given: Any, back: Any) -> bool:
    """Whether a state read back from the bit generator lost what ``given`` said (a word that
    numpy wrapped into range): the keys the generator keeps are compared."""
    if isinstance(back, dict):
        return not isinstance(given, Mapping) or any(
            k not in given or _read_back_differs(given[k], v) for k, v in back.items()
        )
    return bool(_plain(given) != back)


def rng_from_dict(d: Mapping[str, Any]) -> np.random.Generator:
    """Inverse of :func:`rng_to_dict` (``ValueError`` on a malformed dict)."""
    if not isinstance(d, Mapping):
        raise ValueError(f"rng state must be a dict, got {type(d).__name__}")
    name = d.get("bit_generator")
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise ValueError(f"rng bit_generator must be one of {sorted(BIT_GENERATORS)}, got {name!r}")
    try:
        bit_gen = BIT_GENERATORS[name]()
        bit_gen.state = dict(d)
    # (a DeprecationWarning under ``-W error`` on numpy < 2, which wraps a word into range)
    except (KeyError, TypeError, ValueError, OverflowError, DeprecationWarning) as exc:
        raise ValueError(f"malformed rng state: {exc!r}") from exc
    # numpy < 2 wraps a negative or oversized word into range (with a DeprecationWarning) where
    # numpy 2 raises OverflowError: refuse it on every numpy alike, by reading the state back
    # (the warning filters are the process's, shared by every thread: they stay untouched)
    if _NUMPY_WRAPS_WORDS and _read_back_differs(d, _plain(bit_gen.state)):
        raise ValueError("malformed rng state: a word out of its range (negative or too large)")
    return np.random.Generator(bit_gen)


def check_seat(seat: Any, n: int, name: str = "seat") -> None:
    """``ValueError`` naming ``name`` unless ``seat`` is an int (numpy ints too, not bool) in
    ``[0, n)``: a negative index would silently read another seat's view."""
    if type(seat) is int and 0 <= seat < n:  # the common case, first: these sit on hot paths
        return
    if isinstance(seat, np.integer) and 0 <= seat < n:
        return
    raise ValueError(f"{name} must be an int in [0, {n - 1}], got {seat!r}")


def check_rng(rng: Any) -> None:
    """``ValueError`` unless ``rng`` is a numpy ``Generator`` (a game draws its chance from it)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy Generator, e.g. np.random.default_rng(seed), got {type(rng).__name__}"
        )


def clone_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state."""
    bit_gen = type(rng.bit_generator)()
    bit_gen.state = rng.bit_generator.state
    return np.random.Generator(bit_gen)


_ST = TypeVar("_ST", bound="GameState")

#: the attribute of a probe clone that :func:`note_event` fills (a game's own states have none)
EVENT_LOG = "events"


def note_event(state: Any, *event: Any) -> None:
    """Log an automatic step of the rules for ``Game.step_events``: only the probe clone
    :func:`applied_noting` makes carries the log, so a game's own states (and its search's
    clones) pay one dictionary lookup and keep nothing."""
    log = state.__dict__.get(EVENT_LOG)
    if log is not None:
        log.append(event)


def applied_noting(state: _ST, action: int) -> tuple[_ST, list[tuple[Any, ...]]]:
    """A clone of ``state`` after ``action``, and the events :func:`note_event` logged on the
    way (``ValueError`` for an illegal action, as ``apply``); ``state`` is not changed."""
    probe = cast(_ST, state.clone())
    log: list[tuple[Any, ...]] = []
    probe.__dict__[EVENT_LOG] = log
    probe.apply(action)
    del probe.__dict__[EVENT_LOG]
    return probe, log


class Symmetry(NamedTuple):
    """A symmetry of a game's rules (e.g. a quarter turn of the board), as two gathers.

    For every state ``s`` with image ``g(s)`` under the symmetry:
    ``observe(g(s), seat).ravel() == observe(s, seat).ravel()[obs_index]`` and
    ``g(s).legal_mask() == s.legal_mask()[action_index]``: action ``b`` in the image is
    action ``action_index[b]`` in the original, and playing them leads to images again
    (a game's doc page names any rule that breaks this). Both are permutations (``int64``),
    read-only where a game shares them between its objects (copy before changing one).
    """

    name: str
    obs_index: np.ndarray
    action_index: np.ndarray


class GameState(ABC):
    """A position of one game, hidden information and the engine's RNG included."""

    rng: np.random.Generator

    # ------------------------------------------------------------------ flow
    @abstractmethod
    def current_player(self) -> int:
        """Seat to act now, or :data:`TERMINAL` when the game is over."""

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """``int8`` vector of length ``Game.num_actions``: 1 = legal for the player to act.

        All zeros once the game is over.
        """

    def legal_actions(self) -> list[int]:
        """Indices of the legal actions, ascending."""
        return legal_indices(self.legal_mask()).tolist()  # type: ignore[no-any-return]

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to act; ``ValueError`` if it is not legal."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over, for any reason (win, draw or truncation)."""

    def is_truncated(self) -> bool:
        """True when the game was ended by its length limit rather than by its rules."""
        return False

    @abstractmethod
    def returns(self) -> np.ndarray:
        """``float64[num_players]``: rewards paid to each seat so far (final at the end)."""

    def eliminated(self) -> frozenset[int]:
        """Seats that are out of a game still running (they are terminated early). Once the
        game is over the seats knocked out before its end stay in it (Over and Out); the others
        end with the game."""
        return frozenset()

    # ----------------------------------------------------------- (de)serialising
    def clone(self) -> GameState:
        """A deep, independent copy (the generator included)."""
        return copy.deepcopy(self)

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of the full state (config, hidden information, RNG)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict`; ``ValueError`` if malformed or inconsistent."""

    # --------------------------------------------------------------- notation
    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """Canonical notation of ``action`` for the player to act (spec §8).

        An illegal index gives ``"illegal <index>"``, where a game's spec does not say more:
        OTTO Game Over and Otto the Octopus write every in-range index canonically, legal or
        not (their strings come from a fixed table), and keep ``"illegal <index>"`` for indices
        out of range. Test legality with :meth:`legal_mask`, not with the string.
        """

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Index of the legal action written as ``text``; ``ValueError`` otherwise. OTTO Game
        Over and Otto the Octopus read any well-formed string to its index, legal now or not
        (their specs, §8); a malformed one is a ``ValueError`` in every game."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The inspection hook of the spec (§8)."""


S = TypeVar("S", bound=GameState)

#: the reset option of every game: a whole engine state (:meth:`Game.restored_state`)
STATE_OPTION = "state"
C = TypeVar("C")


#: what a game whose notation names squares of the position says when asked without one
_NOTATION_NEEDS_A_POSITION = (
    "{}'s notation depends on the position: ask a state (state.action_to_string / "
    "state.string_to_action), or call the env's reset() first"
)


class Game(ABC, Generic[C, S]):
    """The facts and stateless functions of one game under one config."""

    #: short name, e.g. ``"octi"``; the env id is ``eightfold/<name>-v0``
    name: ClassVar[str]
    #: the keys ``new_initial_state`` takes in ``options`` (the doc page explains each);
    #: every game takes :data:`STATE_OPTION`
    reset_options: ClassVar[tuple[str, ...]] = (STATE_OPTION,)
    #: the frozen, validating dataclass of parameters
    config_class: ClassVar[type[Any]]
    #: parameter dicts the conformance harness runs (every variant / player count)
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    #: parameter dicts with a golden playthrough file each (one per variant)
    golden_configs: ClassVar[tuple[dict[str, Any], ...]] = ({},)
    #: True when ``returns()`` can pay a seat before the game ends (a player knocked out); the
    #: OpenSpiel adapter then declares ``RewardModel.REWARDS`` instead of ``TERMINAL``
    pays_before_end: ClassVar[bool] = False

    def __init__(self, config: C | None = None, **params: Any) -> None:
        if config is None:
            config = make_config(self.config_class, params)
        elif params:
            raise ValueError("pass either a config or parameters, not both")
        elif not isinstance(config, self.config_class):
            want, got = self.config_class, type(config)  # every game's class is named Config
            raise ValueError(
                f"config must be a {want.__module__}.{want.__qualname__}, "
                f"got {got.__module__}.{got.__qualname__}"
            )
        self.config: C = config

    # ---------------------------------------------------------------- facts
    @property
    @abstractmethod
    def num_players(self) -> int:
        """Number of seats (agents)."""

    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the flat ``Discrete`` action space."""

    @property
    @abstractmethod
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of the ``float32`` observation array."""

    @property
    def observation_bounds(self) -> tuple[float, float]:
        """(low, high) of every observation entry."""
        return (0.0, 1.0)

    @property
    @abstractmethod
    def reward_range(self) -> tuple[float, float]:
        """Bounds of each seat's episode return."""

    @property
    def zero_sum(self) -> bool:
        """True when the returns of every finished episode sum to zero."""
        return True

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """Upper bound on the decisions (``apply`` calls) of one game, truncation included.
        Through the AEC env an episode adds at most one dead step per agent to it."""

    # ------------------------------------------------------------- functions
    @abstractmethod
    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> S:
        """A new game; all randomness from ``rng`` (the state keeps it). Every game takes the
        reset option :data:`STATE_OPTION` (see :meth:`restored_state`) besides its own."""

    def restored_state(self, state_class: type[S], options: Mapping[str, Any]) -> S | None:
        """The reset option ``"state"`` that every game takes: a whole engine state as
        ``state.to_dict()`` wrote it (hidden parts and the state's own generator included, so
        the rest of the game's chance follows from it, not from the reset's ``rng``); ``None``
        when the option is absent or ``None``. It sets everything, so it takes no other option
        (one given as ``None`` is absent, as everywhere),
        and its parameters must be this game's (``ValueError`` naming the ones that differ)."""
        d = options.get(STATE_OPTION)
        if d is None:
            return None
        others = sorted(str(k) for k, v in options.items() if k != STATE_OPTION and v is not None)
        if others:
            raise ValueError(
                f"reset option {STATE_OPTION!r} sets the whole game and takes no other option; got also {others}"
            )
        if not isinstance(d, Mapping):
            raise ValueError(
                f"reset option {STATE_OPTION!r} must be a dict written by state.to_dict(), got {type(d).__name__}"
            )
        self._check_state_game(d)
        try:
            state = cast(S, state_class.from_dict(d))
        except ValueError as exc:
            raise ValueError(f"reset option {STATE_OPTION!r}: {exc}") from None
        theirs = getattr(state, "config", None)
        if theirs != self.config:
            raise ValueError(
                f"reset option {STATE_OPTION!r} holds a game of other parameters: {self._differences(theirs)}"
            )
        if theirs is not None:
            state.config = self.config  # type: ignore[attr-defined]  # equal: observe's identity test then holds
        return state

    def _differences(self, theirs: Any) -> str:
        """The parameters in which config ``theirs`` differs from this game's, as
        ``name=value (this game: value)``."""
        differ = f"{theirs!r} (this game: {self.config!r})"
        if dataclasses.is_dataclass(theirs) and dataclasses.is_dataclass(self.config):
            # the parameters (fields), not whatever else a config caches in its __dict__
            names = [f.name for f in dataclasses.fields(self.config)]
            mine = {k: getattr(self.config, k) for k in names}
            got = {k: getattr(theirs, k, None) for k in names}
            differ = ", ".join(f"{k}={got[k]!r} (this game: {v!r})" for k, v in mine.items() if got[k] != v)
            if not differ:  # equal fields, another class (a game subclass's config)
                differ = (
                    f"config class {type(theirs).__qualname__} (this game: {type(self.config).__qualname__})"
                )
        return differ

    def check_state(self, state: Any, what: str, same_parameters: bool = True) -> None:
        """``ValueError`` naming ``what`` (the method asked) unless ``state`` is a position of
        this game: an engine state (a :class:`GameState`, as ``env.unwrapped.state`` is, not an
        env's observation), of this game (not another game's; a subclass's config counts as
        its game's), and with ``same_parameters`` of these parameters (``observe`` and
        ``infos``, whose answers are shaped by the game's parameters: an Octi x_fast state
        observed by a basic Octi game gave an observation of the wrong shape, silently;
        ``evaluate`` and the pictures read everything from the state, so a position of any
        config of the game is theirs to read, as it is the bots'). The common case, a state
        made by this game, is one identity test (``observe`` runs it at every step); an equal
        config (a state of another game object of these parameters) passes too. A
        :class:`GameState` without a ``config`` attribute (a test game's) is not checked further."""
        theirs = getattr(state, "config", None)
        if theirs is self.config:
            return
        if not isinstance(state, GameState):
            raise ValueError(
                f"{what}: state must be an engine state of {self.name} (a GameState, such as "
                f"env.unwrapped.state or game.new_initial_state(rng)), got {type(state).__name__}"
            )
        if not hasattr(state, "config") or theirs == self.config:
            return
        if not same_game_config(theirs, self.config):
            raise ValueError(f"{what}: the state is a position of {_game_of(theirs)}, not of {self.name}")
        if not same_parameters:
            return
        raise ValueError(
            f"{what}: the state is a position of {self.name} with other parameters: {self._differences(theirs)}"
        )

    def _check_state_game(self, d: Mapping[str, Any]) -> None:
        """A state dict of another game is named as such (its parameters tell the game), not
        reported as keys this game's state lacks."""
        conf = d.get("config")
        if not (isinstance(conf, Mapping) and dataclasses.is_dataclass(self.config)):
            return
        if set(conf) == {f.name for f in dataclasses.fields(self.config)}:
            return
        from envs.core.registry import GAMES, installed_games

        for name in installed_games():
            other = GAMES[name].game_class().config_class
            if name != self.name and set(conf) == {f.name for f in dataclasses.fields(other)}:
                raise ValueError(f"reset option {STATE_OPTION!r} holds a state of {name}, not of {self.name}")

    @abstractmethod
    def observe(self, state: S, seat: int) -> np.ndarray:
        """``float32`` observation of ``seat``: egocentric, only what that seat may know."""

    def resample_hidden(self, state: S, seat: int, rng: np.random.Generator) -> S:
        """A state that ``seat`` cannot tell apart from ``state``.

        Everything hidden from ``seat`` is re-dealt at random from ``rng`` consistently
        with what ``seat`` sees now (its observation and legal moves are unchanged), and the
        state gets a fresh generator drawn from ``rng`` (future chance is unknown too). The
        re-deal keeps no memory beyond that view: a fact that ``seat`` was shown once and that
        its observation does not keep (Otto the Octopus: the kinds of a pufferfish swap it took
        part in, the tile it returned with a seahorse; Over and Out: which cards a reshuffle put
        into the draw pile) is re-dealt like the rest, as a player without memory would. It
        never uses more than ``seat`` saw. The default, a plain clone, is for games with
        neither hidden information nor chance (Octi); a game with chance but nothing hidden
        should still give the clone a fresh generator. ``rng`` must be a numpy ``Generator``
        (:func:`check_rng`), as for :meth:`new_initial_state`.
        """
        check_seat(seat, self.num_players)
        check_rng(rng)
        return state.clone()  # type: ignore[return-value]

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The game's symmetries other than the identity (see :class:`Symmetry`): the
        behaviour-cloning warm start can augment its data with them
        (``pretrain_symmetries``). None by default."""
        return ()

    def infos(self, state: S, seat: int) -> dict[str, Any]:
        """Extra per-agent ``infos`` (public facts only)."""
        self.check_state(state, "infos")
        check_seat(seat, self.num_players)
        return {}

    def action_to_string(self, action: int) -> str:
        """Notation of ``action`` where a game's notation does not depend on the state
        (its spec says "whatever the state"): the env uses it before the first ``reset()``.
        Games whose strings name squares of the current position raise ``RuntimeError``."""
        raise RuntimeError(_NOTATION_NEEDS_A_POSITION.format(self.name))

    def string_to_action(self, text: str) -> int:
        """Index of the notation ``text`` where it does not depend on the state (see
        :meth:`action_to_string`); ``RuntimeError`` for the other games."""
        raise RuntimeError(_NOTATION_NEEDS_A_POSITION.format(self.name))

    @abstractmethod
    def render_ansi(self, state: S) -> str:
        """Readable text picture of the position."""

    def public_action_string(self, state: S, action: int, viewer: int) -> str:
        """``action`` of the player to act in ``state`` as ``viewer`` sees it at the table: its
        notation, with what ``viewer`` may not see left out (a game with hidden moves
        overrides this; ``eightfold play`` prints the other seats' moves this way)."""
        check_seat(viewer, self.num_players, "viewer")
        return state.action_to_string(action)

    def private_text(self, state: S, seat: int) -> str:
        """What ``seat`` alone knows, as text for a person playing it (own cards, a partner's
        cards, tiles shown to it...) beyond what :meth:`render_ansi` shows; ``""`` if nothing."""
        check_seat(seat, self.num_players)
        return ""

    def step_events(self, state: S, action: int) -> list[str]:
        """What happens at the table beyond the move itself when the player to act in
        ``state`` takes ``action``, as sentences for people: the game's automatic steps that
        follow it (a round or match lost and scored, a new deal, skipped turns, automatic
        passes, the end of the game). Public facts only, so every seat (and a spectator) may
        read them. ``state`` is not changed (the move is applied to a clone, which raises
        ``ValueError`` for an illegal action as :meth:`GameState.apply` does). ``eightfold
        play`` prints them after each move; ``[]`` where nothing happens by itself (a game
        without automatic steps keeps this default)."""
        self.check_state(state, "step_events", same_parameters=False)
        state.clone().apply(action)
        return []

    @abstractmethod
    def render_rgb(self, state: S) -> np.ndarray:
        """``uint8[H, W, 3]`` picture of the position."""

    def agent_name(self, seat: int) -> str:
        check_seat(seat, self.num_players)
        return f"player_{seat}"


def check_game(game: Any, where: str, also: str = "") -> None:
    """``ValueError`` naming ``where`` unless ``game`` is an engine :class:`Game` object: what
    the bots, the arena, the single-agent view, the positions, the memory benchmark and
    ``ismcts`` take. A game's name, an env or an OpenSpiel game is not one, and the message
    says how to get one from it (``also``: a caller's own way, added to the hint)."""
    if isinstance(game, Game):
        return
    if isinstance(game, str):
        hint = f" (get_game({game!r}).game_class()(...))"
    elif isinstance(getattr(game, "engine", None), Game):
        hint = " (an OpenSpiel game: pass its .engine)"
    elif isinstance(getattr(getattr(game, "unwrapped", None), "game", None), Game):
        hint = " (an env: pass env.unwrapped.game)"
    else:
        hint = " (get_game(name).game_class()(...))"
    if also:
        hint = f"{hint[:-1]}; {also})"
    raise ValueError(f"{where}: game must be an engine Game object{hint}, got {type(game).__name__}")


def same_game_config(a: Any, b: Any) -> bool:
    """Two configs of one game, whatever their parameters: the same class, or one a subclass of
    the other's (a game subclass with a config of its own)."""
    return isinstance(a, type(b)) or isinstance(b, type(a))


def _game_of(config: Any) -> str:
    """The name of the installed game whose config class ``config`` is an instance of, else
    the config's class name (a game outside the registry)."""
    from envs.core.registry import GAMES, installed_games

    for name in installed_games():
        if type(config) is GAMES[name].game_class().config_class:
            return name
    return f"a game of config {type(config).__module__}.{type(config).__qualname__}"


def hides_nothing(game: Game[Any, Any] | type[Game[Any, Any]]) -> bool:
    """True for a game with neither hidden information nor chance (Octi): one that keeps
    :meth:`Game.resample_hidden`'s default, a plain clone. The OpenSpiel adapter declares such a
    game deterministic with perfect information, and OpenSpiel's ISMCTS does not play it."""
    cls = game if isinstance(game, type) else type(game)
    return cls.resample_hidden is Game.resample_hidden
