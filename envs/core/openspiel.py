"""The four games as OpenSpiel games, for OpenSpiel's own algorithms and tools.

``import envs.core.openspiel`` registers each game with ``pyspiel`` under the name
``eightfold_<game>`` (``eightfold_octi``, ``eightfold_over_and_out``, ``eightfold_otto_game_over``,
``eightfold_otto_octopus``), so that OpenSpiel code loads them like its own games::

    import pyspiel
    import envs.core.openspiel  # registers the games
    game = pyspiel.load_game("eightfold_octi", {"variant": "x_fast"})
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    print(state.returns())

:func:`load_game` does the same in one call (``load_game("octi", variant="x_fast")``). It needs
the ``openspiel`` extra (``pip install "eightfold[openspiel]"``: ``open_spiel`` >= 2.0, which
needs Python >= 3.11).

**What maps to what.** A state wraps one engine state (``state.engine``); every move goes through
the engine, so the rules, the legal moves and the returns are the env's.

- *Parameters* are the game's own, with its defaults (``game.get_parameters()`` lists them):
  a parameter whose default is ``None`` (Octi's ``max_turns``, Over and Out's ``first_dealer``)
  takes ``-1`` for ``None``, since OpenSpiel parameters have no ``None``; Over and Out's
  ``deck_counts`` is a nested parameter (``{"deck_counts": {"0": 8, ...}}``). A value the game
  refuses raises the game's ``ValueError``, naming the parameter and the values allowed.
- *Chance.* Octi has none (``DETERMINISTIC``). The other three deal and draw inside the
  engine, from the state's own generator (``SAMPLED_STOCHASTIC``, like OpenSpiel's C++ games
  that draw internally): the game parameter ``rng_seed`` (default 0) seeds the deals, and the
  k-th initial state a program makes from a game object is dealt from
  ``numpy.random.default_rng([rng_seed, k])``, so the same program gives the same games.
  Copies of a state carry its deal; a state OpenSpiel makes to overwrite as a copy, or one
  dropped untouched before the next is made, gives its number back; a state used in any way
  (played, observed, copied, written out) keeps it; shape questions asked here make no state
  (``EightfoldState``).
- *Information.* Octi is a perfect-information game: its information state is the history of
  moves (OpenSpiel's public-information observer). The other three are imperfect-information
  games and provide observations, not perfect-recall information states: the observation
  tensor is the env's ``"observation"`` (egocentric, only what the seat may know, flattened;
  the observer's ``dict["observation"]`` has the env's shape), and the observation string is
  that observation written sparsely (the indices of its non-zero entries, with the value
  where it is not 1), a key that holds exactly what the seat sees (the games' pictures show
  the hand of the seat to move, so they are no seat's view). OpenSpiel's ISMCTS runs on them
  with ``use_observation_string=True``. Octi's observation string is its board's picture.
- *Hidden information, honestly.* ``state.resample_from_infostate(player, sampler)`` is the
  engine's ``resample_hidden``: everything ``player`` cannot see is re-dealt, and the future
  chance too (the sampler's first number seeds it). A search that samples its worlds this way
  (OpenSpiel's ISMCTS does) never reads another seat's cards; one that searches the true state
  (OpenSpiel's plain ``MCTSBot``) does read them and, through the state's generator, the draws
  to come.
- *Returns and rewards.* ``returns()`` is the engine's; ``rewards()`` is what the last move paid.
  Over and Out pays a seat knocked out before the end (``RewardModel.REWARDS``); the other
  games pay at the end (``TERMINAL``). Utility is ``ZERO_SUM`` where every finished game sums to
  zero, ``GENERAL_SUM`` otherwise (the solo modes, Over and Out's ``winner_only`` with 3 or more
  players).
- *Actions* are the env's flat action indices; ``action_to_string`` is the spec's notation.
- *Serialisation.* ``state.serialize()`` / ``game.deserialize_state(text)`` and pickling work
  (OpenSpiel's Python-game form: a pickle of the wrapped engine state, hidden parts and
  generator included; reading it back checks that the same game and parameters wrote it);
  ``state.engine.to_dict()`` is the readable form. ``str(game)`` loads back with
  ``pyspiel.load_game`` (a nested parameter holds OpenSpiel's empty ``"name"``).
- *Not provided:* a public-only observer (``IIGObservationType`` with no private information),
  perfect-recall information states of the hidden-information games, information-state
  tensors, and explicit chance nodes. ``make_py_observer`` gives ``None`` for an observation
  type the game lacks (as OpenSpiel's ``make_observation`` documents), and the state's
  ``information_state_string`` / ``information_state_tensor`` raise ``ValueError`` saying so.
- *OpenSpiel's limits for Python games:* its C++ bots (``pyspiel.MCTSBot``,
  ``pyspiel.ISMCTSBot``) crash on every Python game, OpenSpiel's own included (use the Python
  ones in ``open_spiel.python.algorithms``), and the Python ``MCTSBot`` takes only games that
  pay at the end, so not Over and Out. A Python game cannot hand its generator to OpenSpiel,
  so ``pyspiel.serialize_game_and_state`` and ``rl_environment``'s ``include_full_state`` work
  for Octi only.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "envs.core.openspiel needs OpenSpiel: pip install 'eightfold[openspiel]' "
        "(open_spiel >= 2.0, Python >= 3.11)"
    ) from exc

from envs.core.bots import Bot, check_engine_state, check_mover
from envs.core.config import check_int, check_seed
from envs.core.game import TERMINAL, Game, GameState, check_game, check_rng, check_seat, hides_nothing
from envs.core.registry import GAMES, get_game

#: prefix of the names registered with ``pyspiel``
PREFIX = "eightfold_"
#: the OpenSpiel value of a parameter whose default is ``None``
NONE = -1
#: the parameter that seeds the deals of the games with chance
RNG_SEED = "rng_seed"

ISMCTS_MAX_C = 1e6
"""The largest exploration constant of the ``ismcts`` bot spec (``OpenSpielISMCTSBot``)."""

_SEQUENTIAL = pyspiel.GameType.Dynamics.SEQUENTIAL
_Chance = pyspiel.GameType.ChanceMode
_Info = pyspiel.GameType.Information
_Utility = pyspiel.GameType.Utility
_Reward = pyspiel.GameType.RewardModel


def _perfect(name: str) -> bool:
    """A game with neither hidden information nor chance (Octi)."""
    return hides_nothing(get_game(name).game_class())


def _player_range(name: str) -> tuple[int, int]:
    """The fewest and most players, from the registry's ``players`` (``"2-8"``, ``"1-4, 2v2"``)."""
    counts = [int(n) for n in re.findall(r"\d+", GAMES[name].players.split(",")[0])]
    return min(counts), max(counts)


class _Shared:
    """What the states of one OpenSpiel game share: the engine game, the seed of the deals and
    the number of deals so far. Kept by reference when OpenSpiel deep-copies a state's
    attributes to clone it; it holds no reference to the OpenSpiel game (a cycle through the
    C++ object crashes the interpreter at exit)."""

    __slots__ = ("deals", "engine", "game_id", "params", "rng_seed", "short_name")

    def __init__(
        self, engine: Game[Any, Any], short_name: str, params: dict[str, Any], rng_seed: int
    ) -> None:
        self.engine = engine
        self.short_name = short_name
        self.params = params
        self.rng_seed = rng_seed
        self.deals = 0  # deal numbers taken so far
        # the game and parameters a state belongs to (the seed of the deals aside: a state
        # carries its own generator)
        rules = ",".join(f"{k}={v!r}" for k, v in sorted(params.items()) if k != RNG_SEED)
        self.game_id = f"{short_name}({rules})"

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled with a state's attributes (state.serialize()) as a placeholder: the state is
        # always read back by a game (game.deserialize_state), whose own it keeps
        return (_placeholder, ())


def _placeholder() -> None:
    return None


def _unpickle_game(short_name: str, params: dict[str, Any], deals: int) -> EightfoldGame:
    game = pyspiel.load_game(short_name, params)
    game._shared.deals = deals
    return game  # type: ignore[no-any-return]


def _unpickle_state(game: EightfoldGame, text: str) -> EightfoldState:
    return game.deserialize_state(text)


def _no_info_state(short_name: str, kind: str) -> str:
    if kind == "string":
        return (
            f"{short_name} provides no information-state string (a hidden-information game with "
            "observations only); use observation_string, or OpenSpiel's ISMCTS with "
            "use_observation_string=True"
        )
    return f"{short_name} provides no information-state tensor; use observation_tensor"


def _plain(value: Any) -> Any:
    """A parameter value as the game takes it: OpenSpiel reads a nested parameter back from a
    game's string with an empty ``name`` (its form for nested games), which is dropped here."""
    if isinstance(value, Mapping) and value.get("name") == "":
        return {k: v for k, v in value.items() if k != "name"}
    return value


def _defaults(name: str) -> dict[str, Any]:
    """The OpenSpiel parameter specification of one game: its parameters with their defaults
    (``None`` written as :data:`NONE`), and :data:`RNG_SEED` where the game has chance."""
    cls = get_game(name).game_class()
    config = cls().config
    spec: dict[str, Any] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        spec[f.name] = NONE if value is None else copy.deepcopy(value)
    if not _perfect(name):
        spec[RNG_SEED] = 0
    return spec


def _check_seed(seed: Any) -> None:
    # OpenSpiel's int parameters are C++ ints
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise ValueError(f"{RNG_SEED} must be an int in [0, 2**31 - 1], got {seed!r}")


def _optional(config_class: type[Any]) -> set[str]:
    """The parameters that take ``None``."""
    hints = typing.get_type_hints(config_class)
    out = set()
    for f in dataclasses.fields(config_class):
        hint = hints[f.name]
        union = isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union
        if union and type(None) in typing.get_args(hint):
            out.add(f.name)
    return out


def _game_type(name: str, engine: Game[Any, Any] | None = None, spec: dict[str, Any] | None = None) -> Any:
    lo, hi = _player_range(name)
    cls = get_game(name).game_class()
    perfect = _perfect(name)
    zero_sum = engine is None or (engine.zero_sum and engine.num_players > 1)
    return pyspiel.GameType(
        short_name=PREFIX + name,
        long_name=f"eightfold {GAMES[name].title}",
        dynamics=_SEQUENTIAL,
        chance_mode=_Chance.DETERMINISTIC if perfect else _Chance.SAMPLED_STOCHASTIC,
        information=_Info.PERFECT_INFORMATION if perfect else _Info.IMPERFECT_INFORMATION,
        utility=_Utility.ZERO_SUM if zero_sum else _Utility.GENERAL_SUM,
        reward_model=_Reward.REWARDS if cls.pays_before_end else _Reward.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=perfect,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_defaults(name) if spec is None else spec,
        default_loadable=True,
        provides_factored_observation_string=False,
    )


class EightfoldGame(pyspiel.Game):  # type: ignore[misc]
    """One eightfold game under one set of parameters, as a ``pyspiel.Game``. Made by
    ``pyspiel.load_game("eightfold_<game>", params)`` or :func:`load_game`."""

    def __init__(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        params = {k: _plain(v) for k, v in (params or {}).items()}
        spec = _defaults(name)
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown} of {PREFIX + name}; known: {sorted(spec)}")
        full = {**spec, **params}
        cls = get_game(name).game_class()
        optional = _optional(cls.config_class)
        kwargs = {
            k: (None if k in optional and v == NONE and not isinstance(v, bool) else v)
            for k, v in full.items()
            if k != RNG_SEED
        }
        try:
            engine: Game[Any, Any] = cls(**kwargs)
        except ValueError as exc:
            named = sorted(k for k in optional if k in str(exc))
            hint = f" (here {NONE} stands for None in {named})" if named else ""
            raise ValueError(f"{PREFIX + name}: {exc}{hint}") from None
        seed = full.get(RNG_SEED, 0)
        _check_seed(seed)
        lo, hi = engine.reward_range
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=0,
            num_players=engine.num_players,
            min_utility=float(lo),
            max_utility=float(hi),
            utility_sum=0.0 if (engine.zero_sum and engine.num_players > 1) else None,
            max_game_length=engine.max_game_length,
        )
        # a nested parameter keeps OpenSpiel's empty "name" (its tools read it)
        nested = {k: ({"name": "", **v} if isinstance(v, Mapping) else v) for k, v in full.items()}
        super().__init__(_game_type(name, engine, spec), info, nested)
        self.name = name
        self.engine = engine
        self._shared = _Shared(engine, PREFIX + name, full, int(seed))

    def __reduce__(self) -> tuple[Any, ...]:
        # OpenSpiel pickles a game with its generator, which its Python games cannot give
        return (_unpickle_game, (self._shared.short_name, self._shared.params, self._shared.deals))

    def deserialize_state(self, text: str) -> EightfoldState:
        """The state ``state.serialize()`` wrote; ``ValueError`` unless an eightfold state of
        this game and its parameters wrote it (another OpenSpiel game's text read as a fresh
        deal claiming that game's history)."""
        state: EightfoldState = super().deserialize_state(text)
        if not state.__dict__.pop("_read_back", False):
            raise ValueError(
                f"this state was written by another game (no eightfold state), not by this game "
                f"({self._shared.game_id})"
            )
        return state

    def new_initial_state(self, serialized: Any = None) -> EightfoldState:
        """A new game, the next deal of this game object (see the module's docstring)."""
        if serialized is not None:
            raise ValueError(
                "new_initial_state takes no argument here; use game.deserialize_state(text) "
                "for a state written by state.serialize()"
            )
        return EightfoldState(self)

    def observation_tensor_shape(self) -> list[int]:
        """The env's observation shape (pyspiel would make and observe a new state to learn it)."""
        return list(self.engine.observation_shape)

    def observation_tensor_size(self) -> int:
        return int(np.prod(self.engine.observation_shape))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The observer OpenSpiel asks for: the game's own for the default observation type;
        the move history (OpenSpiel's public-information observer) for Octi's other types;
        ``None`` for a type the game does not provide (the form that OpenSpiel's
        ``make_observation`` documents)."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        perfect = _perfect(self.name)
        if iig_obs_type is None:
            return _Observer(self.engine, picture=perfect)
        if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            raise ValueError(
                "make_py_observer: iig_obs_type must be a pyspiel.IIGObservationType or None, "
                f"got {type(iig_obs_type).__name__} {iig_obs_type!r}"
            )
        default = (
            iig_obs_type.public_info
            and not iig_obs_type.perfect_recall
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        if default or (perfect and not iig_obs_type.perfect_recall):
            return _Observer(self.engine, picture=perfect)
        if perfect:
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        return None


class EightfoldState(pyspiel.State):  # type: ignore[misc]
    """One position: the wrapped engine state is ``state.engine``.

    Deal numbers: a new initial state takes the game's next one. It gives the number back if
    OpenSpiel makes it a copy of another state (OpenSpiel clones and deserialises by making a
    new initial state and overwriting its attributes), or if it is dropped untouched while it
    is still the newest (a number taken later is never moved). Anything else uses the deal:
    playing it, asking it anything, observing it, copying it (``clone``, ``child``,
    ``serialize``, pickling) or resampling it. So the k-th initial state a program makes is the
    k-th deal, however its copies are played. The Python methods here answer shape
    questions without a state; OpenSpiel's C++ code that asks for a tensor from C++
    (``random_sim_test``) makes and observes a new state each time to learn its size, which
    uses a deal number as any observed state does."""

    def __init__(self, game: EightfoldGame) -> None:
        if not isinstance(game, EightfoldGame):  # pyspiel's C++ constructor crashes the process on it
            raise TypeError(
                f"EightfoldState(game): game must be an EightfoldGame (load_game('octi')), got {game!r}"
            )
        super().__init__(game)
        shared = game._shared
        self._shared = shared
        self._made = shared.deals  # the deal number this object took; never overwritten
        self._deal = shared.deals  # the deal it holds (a copy holds its original's)
        shared.deals += 1
        self._engine: GameState | None = None
        self._used = False  # its deal is in use: played, looked at, copied or written out
        self._game_id = game._shared.game_id  # checked when a serialised state is read back
        self._before = np.zeros(shared.engine.num_players)  # the returns before the last move

    def __setattr__(self, key: str, value: Any) -> None:
        d = self.__dict__
        if key in ("_shared", "_made") and key in d:
            return  # a copy keeps its game's and its own (a deserialised _shared is a placeholder)
        if key == "_game_id" and key in d:
            if value != d[key]:
                raise ValueError(f"this state was written by {value}, not by this game ({d[key]})")
            object.__setattr__(self, "_read_back", True)  # deserialize_state checks it came
        if key == "_deal" and "_deal" in d and d["_deal"] == d["_made"]:
            shared = d["_shared"]  # becoming a copy: give the deal number back
            if shared.deals == d["_made"] + 1:
                shared.deals -= 1
        object.__setattr__(self, key, value)

    def __del__(self) -> None:
        try:
            d = self.__dict__
            shared = d["_shared"]
            if not d["_used"] and d["_deal"] == d["_made"] and shared.deals == d["_made"] + 1:
                shared.deals -= 1  # dropped untouched (OpenSpiel's shape probes): give it back
        except (KeyError, AttributeError):  # a half-built object, or the interpreter's end
            pass

    @property
    def engine(self) -> GameState:
        """The wrapped engine state (dealt on first use)."""
        if self._engine is None:
            shared = self._shared
            self._engine = shared.engine.new_initial_state(
                np.random.default_rng([shared.rng_seed, self._deal])
            )
        if not self._used:
            self._used = True
        return self._engine

    # ------------------------------------------------------------------ the game
    def current_player(self) -> int:
        s = self.engine
        if s.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        p = s.current_player()
        assert p != TERMINAL
        return int(p)

    # copies and written forms: the deal they carry is in use (pyspiel's own methods copy the
    # Python attributes; these only mark the original first)
    def clone(self) -> EightfoldState:
        self._used = True
        copy: EightfoldState = super().clone()
        copy.__dict__.pop("_read_back", None)  # set as the copy took the game id
        return copy

    def child(self, action: int) -> EightfoldState:
        self._used = True
        copy: EightfoldState = super().child(action)
        copy.__dict__.pop("_read_back", None)
        return copy

    def serialize(self) -> str:
        self.engine  # noqa: B018 - dealt now: the text carries the deal, not the reader's rng_seed
        return super().serialize()  # type: ignore[no-any-return]

    # observations, computed here: the same as the observer's, without the initial state that
    # pyspiel's C++ path makes, deals and observes at every call to learn the tensor's size
    def observation_tensor(self, player: int | None = None) -> list[float]:
        game = self._shared.engine
        seat = self.current_player() if player is None else player
        check_seat(seat, game.num_players, "player")
        return game.observe(self.engine, seat).ravel().tolist()

    def observation_string(self, player: int | None = None) -> str:
        # the seat checked here, as for observation_tensor (pyspiel's own check is a bare SpielError)
        if player is None:
            return super().observation_string()  # type: ignore[no-any-return]
        check_seat(player, self._shared.engine.num_players, "player")
        return super().observation_string(int(player))  # type: ignore[no-any-return]

    def information_state_string(self, player: int | None = None) -> str:
        if not _perfect(self._shared.engine.name):
            raise ValueError(_no_info_state(self._shared.short_name, "string"))
        if player is None:
            return super().information_state_string()  # type: ignore[no-any-return]
        check_seat(player, self._shared.engine.num_players, "player")
        return super().information_state_string(int(player))  # type: ignore[no-any-return]

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        raise ValueError(_no_info_state(self._shared.short_name, "tensor"))

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions()

    def _apply_action(self, action: int) -> None:
        s = self.engine
        before = s.returns()
        s.apply(int(action))  # ValueError on an illegal action, from the engine
        self._before = before  # rewards() is what the move changed

    def _action_to_string(self, player: int, action: int) -> str:
        s = self.engine
        if not s.is_terminal() and player == s.current_player():
            return s.action_to_string(int(action))
        try:
            return str(self._shared.engine.action_to_string(int(action)))
        except RuntimeError:  # Octi's and Over and Out's notation need the position (README)
            return f"action {int(action)}"

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal())

    def returns(self) -> list[float]:
        return [float(x) for x in self.engine.returns()]

    def rewards(self) -> list[float]:
        return [float(x) for x in self.engine.returns() - self._before]

    def __reduce__(self) -> tuple[Any, ...]:
        # as the game and OpenSpiel's serialisation of the state (see EightfoldGame.__reduce__)
        return (_unpickle_state, (self.get_game(), self.serialize()))

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> EightfoldState:
        """A state ``player`` cannot tell from this one (:meth:`resample`), seeded by the
        sampler's first number. OpenSpiel's ISMCTS calls it with an unseeded sampler; for a
        reproducible search give it :func:`seeded_resampler` instead."""
        seed = int(float(probability_sampler()) * 2**53)
        return self.resample(player, np.random.default_rng(seed))

    def resample(self, player: int, rng: np.random.Generator) -> EightfoldState:
        """A state ``player`` cannot tell from this one: the engine's ``resample_hidden``
        re-deals everything hidden from ``player`` and the future chance, from ``rng`` (a numpy
        ``Generator``, as for ``new_initial_state``)."""
        check_seat(player, self._shared.engine.num_players, "player")
        check_rng(rng)
        out = self.clone()
        out._engine = self._shared.engine.resample_hidden(self.engine, player, rng)
        return out

    def __str__(self) -> str:
        """The position for a person reading it: the game's picture (in the card and tile games
        it shows the hand of the seat to move), then each seat's private text."""
        game, s = self._shared.engine, self.engine
        parts = [game.render_ansi(s)]
        for seat in range(game.num_players):
            private = game.private_text(s, seat)
            if private:
                parts.append(f"[{game.agent_name(seat)}] {private}")
        return "\n".join(parts)


class _Observer:
    """The default observation (OpenSpiel's PyObserver interface): the env's observation of
    the seat as ``tensor`` (flat) and ``dict["observation"]`` (the env's shape). As a string:
    in Octi the board's picture (``render_ansi``: nothing is hidden); in the other games the
    observation itself, written sparsely (``player_1: 3 17 40=0.25 ...``: the indices of its
    non-zero entries, with the value where it is not 1), since their pictures show the hand of
    the seat to move and so are not any one seat's view."""

    def __init__(self, engine: Game[Any, Any], picture: bool) -> None:
        self._engine = engine
        self._picture = picture
        shape = tuple(engine.observation_shape)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: EightfoldState, player: int) -> None:
        self.tensor[:] = self._engine.observe(state.engine, player).ravel()

    def string_from(self, state: EightfoldState, player: int) -> str:
        game = self._engine
        if self._picture:
            check_seat(player, game.num_players, "player")
            return str(game.render_ansi(state.engine))
        obs = game.observe(state.engine, player).ravel()
        words = [str(i) if obs[i] == 1 else f"{i}={float(obs[i])!r}" for i in np.flatnonzero(obs).tolist()]
        return f"{game.agent_name(player)}: {' '.join(words)}"


def seeded_resampler(seed: int) -> Any:
    """A resampler for OpenSpiel's ISMCTS (``bot.set_resampler(seeded_resampler(0))``) that
    draws its worlds from ``numpy.random.default_rng(seed)``, so the search repeats
    (``seed``: an int >= 0, else ``ValueError``)."""
    rng = np.random.default_rng(check_seed(seed))

    def resample(state: EightfoldState, player: int) -> EightfoldState:
        return state.resample(player, rng)

    return resample


class EightfoldBot(pyspiel.Bot):  # type: ignore[misc]
    """One of the suite's bots as a ``pyspiel.Bot``, to play OpenSpiel's bots (for instance
    with ``open_spiel.python.algorithms.evaluate_bots``): ``EightfoldBot(game, "heuristic",
    seed=0)``, any spec that ``eval`` takes for a bot (``"mcts:sims=200"``). Like every bot of
    the suite it reads only what its seat may see."""

    def __init__(self, game: EightfoldGame, spec: str, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        from envs.core.bots import make_bot

        if not isinstance(game, EightfoldGame):
            raise ValueError(f"game must be an eightfold OpenSpiel game (load_game), got {game!r}")
        self._bot = make_bot(game.engine, spec, dict(get_game(game.name).bots()))
        self._rng = np.random.default_rng(check_seed(seed))
        self.spec = spec

    def step(self, state: EightfoldState) -> int:
        if not isinstance(state, EightfoldState):
            raise ValueError(
                f"EightfoldBot.step: state must be a state of an eightfold OpenSpiel game "
                f"(game.new_initial_state()), got {type(state).__name__}"
            )
        return int(self._bot.act(state.engine, state.current_player(), self._rng))

    def restart_at(self, state: EightfoldState) -> None:
        pass

    def inform_action(self, state: EightfoldState, player_id: int, action: int) -> None:
        pass

    def __repr__(self) -> str:
        return f"EightfoldBot({self.spec!r})"


def spiel_params(config: Any) -> dict[str, Any]:
    """An engine config as OpenSpiel parameters (``None`` written as :data:`NONE`)."""
    return {
        f.name: NONE if getattr(config, f.name) is None else getattr(config, f.name)
        for f in dataclasses.fields(config)
    }


class OpenSpielISMCTSBot(Bot):
    """OpenSpiel's information-set MCTS as one of the suite's bots, bot spec ``ismcts``
    (``ismcts:sims=200,c=2,rollouts=1``), for ``eval``, ``play --vs`` and training opponents.

    ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with random rollouts
    (``RandomRolloutEvaluator``), nodes keyed on the observation string, and its worlds drawn by
    the engine's ``resample_hidden`` from the state it is asked about: it reads nothing the seat
    cannot see. Every number it draws comes from the ``rng`` of ``act``, so a seeded match
    repeats. Needs the ``openspiel`` extra. OpenSpiel's ISMCTS takes imperfect-information
    games only, so Octi refuses it (its ``mcts`` is the search there)."""

    name = "ismcts"

    def __init__(self, game: Game[Any, Any], sims: Any = 200, c: Any = 2.0, rollouts: Any = 1) -> None:
        check_game(game, "ismcts")
        super().__init__(game)
        if hides_nothing(game):
            raise ValueError(
                f"ismcts: {game.name} has no hidden information, and OpenSpiel's ISMCTS takes "
                "imperfect-information games only; use mcts"
            )
        # OpenSpiel's ISMCTS asserts a visited child after its search (one simulation leaves
        # none) and picks among the children within 1e-5 of the best UCT value (past about
        # c = 1e11 the floats are coarser than that, and no child is within it of itself)
        check_int("ismcts: sims", sims, 2)
        check_int("ismcts: rollouts", rollouts, 1)
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 < c <= ISMCTS_MAX_C:
            raise ValueError(f"ismcts: c must be a number in (0, {ISMCTS_MAX_C:g}], got {c!r}")
        self.sims, self.c, self.rollouts = int(sims), float(c), int(rollouts)
        self._spiel = EightfoldGame(game.name, spiel_params(game.config))

    def act(self, state: GameState, player: int, rng: np.random.Generator) -> int:
        from open_spiel.python.algorithms import ismcts, mcts

        check_engine_state(state, self.name)
        if state.is_terminal():
            raise ValueError("no legal action: the game is over")
        check_mover(state, player, self.name, rng, self.game)
        theirs = getattr(state, "config", None)
        if theirs is not None and theirs != self.game.config:  # the pyspiel game is rebuilt from these
            raise ValueError(
                f"{self.name}: the state is a position of {self.game.name} with other parameters "
                f"({self.game._differences(theirs)}); OpenSpiel's search replays the bot's own "
                "parameters, so build the bot on the state's game"
            )
        root = self._spiel.new_initial_state()
        root._engine = state.clone()
        root._used = True
        seeds = rng.integers(2**31, size=3)
        bot = ismcts.ISMCTSBot(
            game=self._spiel,
            evaluator=mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(int(seeds[0]))),
            uct_c=self.c,
            max_simulations=self.sims,
            random_state=np.random.RandomState(int(seeds[1])),
            use_observation_string=True,
        )
        bot.set_resampler(seeded_resampler(int(seeds[2])))
        return int(bot.step(root))

    def __repr__(self) -> str:
        return f"ismcts:sims={self.sims},c={self.c:g},rollouts={self.rollouts}"


def _game_class(name: str) -> type[EightfoldGame]:
    """The class pyspiel makes ``eightfold_<name>`` with. A class, not a closure: pyspiel keeps
    its creators until the process ends, past the interpreter's own end, and a closure freed
    then crashes the interpreter; a class is still held by its own references."""

    def __init__(self: EightfoldGame, params: Mapping[str, Any] | None = None) -> None:
        EightfoldGame.__init__(self, name, params)

    title = "".join(part.title() for part in name.split("_"))
    return type(f"Eightfold{title}Game", (EightfoldGame,), {"__init__": __init__, "__module__": __name__})


_CLASSES: dict[str, type[EightfoldGame]] = {}


def register_games() -> list[str]:
    """Register every game with ``pyspiel`` (done on import; registering again is harmless).
    Returns the registered names."""
    names = []
    for name in GAMES:
        cls = _CLASSES.setdefault(name, _game_class(name))
        pyspiel.register_game(_game_type(name), cls)
        names.append(PREFIX + name)
    return names


def load_game(name: str, **params: Any) -> EightfoldGame:
    """An eightfold game as a ``pyspiel.Game``: ``load_game("over_and_out", num_players=3)``.
    ``name`` is any name :func:`envs.core.registry.get_game` knows (or ``eightfold_<game>``);
    ``params`` are the game's, ``None`` included, and ``rng_seed`` (module docstring)."""
    entry = get_game(name.removeprefix(PREFIX) if isinstance(name, str) else name)
    cls = entry.game_class()
    fields = {f.name for f in dataclasses.fields(cls.config_class)}
    if any(v is None and k in fields - _optional(cls.config_class) for k, v in params.items()):
        # OpenSpiel has no None: a parameter that does not take it is refused by the game
        # itself, naming None (written as -1 it would name a value the caller never gave)
        try:
            cls(**{k: v for k, v in params.items() if k != RNG_SEED})
        except ValueError as exc:
            raise ValueError(f"{PREFIX + entry.name}: {exc}") from None
    if params.get(RNG_SEED, 0) is None:
        _check_seed(None)
    params = {k: (NONE if v is None else v) for k, v in params.items()}
    if RNG_SEED in params:
        _check_seed(params[RNG_SEED])  # before pyspiel, whose own message names no parameter
    game = pyspiel.load_game(PREFIX + entry.name, params)
    assert isinstance(game, EightfoldGame)
    return game


register_games()
