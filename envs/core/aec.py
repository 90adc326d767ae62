"""One PettingZoo ``AECEnv`` adapter for every eightfold game.

A game's ``env.py`` only names its :class:`~envs.core.game.Game` class and its doc page:

    class raw_env(EightfoldAECEnv):
        game_class = OctiGame
        metadata = {...}

    env = make_env_factory(raw_env)

The adapter owns the PettingZoo bookkeeping: agents, rewards (differences of the
engine's cumulative returns, so mid-game rewards such as eliminations just work),
terminations and truncations, PettingZoo's dead-step convention for agents that are
out, egocentric ``{"observation", "action_mask"}`` observations, cached spaces, seeding
and rendering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.game import Game, GameState

RENDER_MODES = ("ansi", "rgb_array", "human")


def _index(action: Any) -> int:
    """``action`` as an int index: Python and numpy integers (a 0-d numpy integer array too);
    ``TypeError`` for anything else: ``True`` / ``False`` (a bool is an int to Python, never an
    action here), floats, and other libraries' numbers (a torch tensor: convert it with
    ``int()``; ``operator.index`` would take a bool tensor as 1 and a batch of one as its
    element)."""
    if type(action) is int:  # the common case first
        return action
    if isinstance(action, (bool, np.bool_)):
        raise TypeError("a bool is not an action index")
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    raise TypeError(f"not an integer: {type(action).__name__}")


def action_in_range(action: Any, n: int) -> bool:
    """Whether ``action`` is in ``Discrete(n)`` (``env()``'s assert, the RLlib env): what :func:`_index`
    takes (every numpy integer dtype, ``uint64`` too, which Gymnasium's ``Discrete.contains``
    refuses; any size of int, where it overflows past 64 bits), no bool, inside ``[0, n)``."""
    try:
        return 0 <= _index(action) < n
    except TypeError:
        return False


def check_seed(seed: Any) -> int:
    """A ``reset`` seed: a Python or numpy integer >= 0 (``ValueError`` naming ``seed``;
    numpy's own messages did not say which argument was wrong)."""
    try:
        value = _index(seed)
    except TypeError:
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}") from None
    if value < 0:
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    return value


class EightfoldAECEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC environment over an eightfold engine (see module docstring)."""

    game_class: ClassVar[type[Game[Any, Any]]]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {[None, *RENDER_MODES]}, got {render_mode!r}")
        self.render_mode = render_mode
        # a copy of its own (its render modes too): wrappers write into their env's metadata
        # (PettingZoo's CaptureStdoutWrapper appends "ansi"), which would change every env's
        self.metadata = own_metadata(type(self).metadata)  # type: ignore[misc]
        self.game: Game[Any, Any] = self.game_class(**params)
        n = self.game.num_players
        self.possible_agents = [self.game.agent_name(i) for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        lo, hi = self.game.observation_bounds
        # each agent's spaces are its own (as PettingZoo classic's): seeding or sampling one
        # agent's space leaves another's stream alone
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=lo, high=hi, shape=self.game.observation_shape, dtype=np.float32
                    ),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.game.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents
        }
        # games that add no infos skip the per-step call
        self._has_infos = type(self.game).infos is not Game.infos
        self.n_actions: int = self.game.num_actions
        self._zero_mask = np.zeros(self.n_actions, dtype=np.int8)
        self._state: GameState | None = None
        self._mask: np.ndarray | None = None
        self._np_random_seed: int | None = None
        # where unseeded resets draw their episode seeds (Gymnasium/PettingZoo: reset() after
        # reset(seed=s) continues the stream that s started, so the run stays reproducible)
        self._seed_stream: np.random.Generator | None = None

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Space[Any]:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: Any) -> KeyError:
        """PettingZoo's ``KeyError`` for an agent name the env does not have, saying which it has
        (a seat index such as ``0`` is the usual slip)."""
        return KeyError(f"unknown agent {agent!r}; this env's agents are {self.possible_agents}")

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> GameState:
        """The engine state (hidden information included: for research and tests)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def snapshot(self) -> dict[str, Any]:
        """The spec's inspection hook (§8) of the current position."""
        return self.state.snapshot()

    def action_to_string(self, action: int) -> str:
        """Canonical notation of ``action`` for the agent to act (spec §8). Before the first
        ``reset()`` only games whose notation does not depend on the state answer. Like
        :meth:`step`, it takes an int or a numpy integer and raises ``ValueError`` for anything
        else (a string or a float is never converted to an index)."""
        try:
            index = _index(action)
        except TypeError:
            raise ValueError(f"action_to_string needs an integer action index, got {action!r}") from None
        if self._state is None:
            return self.game.action_to_string(index)
        return self._state.action_to_string(index)

    def string_to_action(self, text: str) -> int:
        """Action index of the notation ``text`` for the agent to act (spec §8 of the game).

        Malformed text raises ``ValueError``; for well-formed text naming an action that is not
        legal now, each game does what its spec allows (a ``ValueError``, or an index whose
        mask entry is 0): see the game's doc page. Before the first ``reset()`` only games
        whose notation does not depend on the state answer."""
        if self._state is None:
            return self.game.string_to_action(text)
        return self._state.string_to_action(text)

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """New episode. ``reset(seed=s)`` deals exactly like every other ``reset(seed=s)``;
        a later ``reset()`` draws its episode seed from the stream ``s`` started (from fresh
        entropy if no seed was ever given), as Gymnasium does, so a run seeded once repeats."""
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be None or a dict of reset options, got {type(options).__name__}")
        if options is not None and "options" in options:
            # PettingZoo's api_test probes reset(seed=0, options={"options": 1}); the key is reserved
            options = {k: v for k, v in options.items() if k != "options"}
        # a reset the game refuses (a bad option) leaves the seed stream as it was: the run
        # seeded once still repeats after it
        stream, drawn_from = self._seed_stream, None
        if seed is not None:
            seed = check_seed(seed)
            stream = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
        else:
            if stream is None:
                stream = np.random.default_rng()
            drawn_from = stream.bit_generator.state
            seed = int(stream.integers(2**63))
        try:
            state = self.game.new_initial_state(np.random.default_rng(seed), options or None)
        except BaseException:
            if drawn_from is not None:
                stream.bit_generator.state = drawn_from
            raise
        self._seed_stream, self._np_random_seed = stream, seed
        self._state = state
        self._mask = None
        # a position set up mid-game (the "state" option) starts an episode there: seats already
        # knocked out are no agents of it, and what was paid before it is no reward of it
        out = set() if state.is_terminal() else set(state.eliminated())
        self.agents = [a for a in self.possible_agents if self._seat_of[a] not in out]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._returns: list[float] = state.returns().tolist()  # as Python floats: cheap to compare
        self._rewards_dirty = False
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._update_after_move()
        if self.render_mode == "human":  # the starting position too, as Gymnasium's envs do
            self.render()

    def _update_after_move(self) -> None:
        state = self.state
        new_returns = state.returns().tolist()
        changed = new_returns != self._returns
        if changed or self._rewards_dirty:
            # rewards of this step = change of the engine's cumulative returns
            for a in self.agents:
                seat = self._seat_of[a]
                self.rewards[a] = float(new_returns[seat] - self._returns[seat])
            self._returns = new_returns
            self._rewards_dirty = changed
            self._accumulate_rewards()
        someone_done = False
        # seats knocked out are terminated, even in the step that ends the game by truncation
        out = state.eliminated()
        if out:
            for a in self.agents:
                if self._seat_of[a] in out and not self.terminations[a]:
                    self.terminations[a] = someone_done = True
        if state.is_terminal():
            flag = self.truncations if state.is_truncated() else self.terminations
            for a in self.agents:
                if not self.terminations[a]:
                    flag[a] = someone_done = True
        self._fresh_infos()
        player = state.current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        elif self.agents:
            self.agent_selection = self.agents[0]
        if someone_done:
            self._deads_step_first()

    # ------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        if self._state is None:  # agent_selection does not exist yet
            raise RuntimeError("call reset() before using the environment")
        if not self.agents:
            raise ValueError(
                "step() after the episode ended: every agent is done; call reset() for a new one"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            self._fresh_infos()
            return
        try:
            index = _index(action)  # ints and numpy integers; never a float rounded down
        except TypeError:
            raise ValueError(
                f"action must be an integer index in [0, {self.n_actions}), got {action!r}"
            ) from None
        self.state.apply(index)  # ValueError for an illegal move, before anything changes here
        self._cumulative_rewards[agent] = 0.0
        self._mask = None
        self._update_after_move()
        if self.render_mode == "human":
            self.render()

    def _fresh_infos(self) -> None:
        """New info dicts at every step, dead steps included: what ``last()`` and ``infos``
        handed out before may be changed by the caller without coming back."""
        if self._has_infos:
            state = self.state
            for a in self.agents:
                self.infos[a] = self.game.infos(state, self._seat_of[a])
        else:
            for a in self.agents:
                self.infos[a] = {}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._state is None:  # agent_selection does not exist yet
            raise RuntimeError("call reset() before using the environment")
        return super().last(observe)  # type: ignore[no-any-return]

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self._seat_of[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        state = self.state
        obs = self.game.observe(state, seat)
        # only the selected agent, when it is the seat the engine has to move (OAO-40: every
        # other agent's mask is all zeros, also while a knocked-out seat takes its dead step)
        if (
            agent == self.agent_selection
            and state.current_player() == seat
            and not (self.terminations.get(agent) or self.truncations.get(agent))
        ):
            mask = self.legal_mask().copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def legal_mask(self) -> np.ndarray:
        """The engine's mask for the player to act, computed once per position (do not mutate)."""
        if self._mask is None:
            self._mask = self.state.legal_mask()
        return self._mask

    # ----------------------------------------------------------------- render
    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the env")
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.state)
        text = self.game.render_ansi(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class StandardWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo classic's three wrappers in one layer, with their exact behaviour.

    * ``TerminateIllegalWrapper(illegal_reward=-1)``: an action whose mask entry is 0 ends
      the game: the mover gets -1, every other agent 0, all agents are terminated and
      truncated (then dead-stepped);
    * ``AssertOutOfBoundsWrapper``: an action outside the action space raises ``AssertionError``
      (an explicit raise, so under ``python -O`` too);
    * ``OrderEnforcingWrapper`` (the base class): calls before ``reset`` raise.

    One layer instead of three saves most of the wrappers' per-step cost (each attribute
    read otherwise walks three ``__getattr__`` levels); the hot attributes are forwarded
    by properties.
    """

    illegal_reward = -1.0
    _has_reset: bool  # OrderEnforcingWrapper's

    # hot attributes, forwarded without __getattr__ (order checks kept)
    def _raw(self, name: str) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    agent_selection = property(lambda self: self._raw("agent_selection"))
    agents = property(lambda self: self._raw("agents"))
    rewards = property(lambda self: self._raw("rewards"))
    terminations = property(lambda self: self._raw("terminations"))
    truncations = property(lambda self: self._raw("truncations"))
    infos = property(lambda self: self._raw("infos"))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        raw = self.env
        if not self._has_reset or not raw.agents:
            super().step(action)  # the order-enforcing error / warning
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        in_space = (type(action) is int and 0 <= action < raw.n_actions) or action_in_range(
            action, raw.n_actions
        )
        if not ((action is None and dead) or in_space):
            # PettingZoo's AssertOutOfBoundsWrapper fails an assert; an explicit raise keeps the
            # refusal under ``python -O`` too (-1 would otherwise read the mask from its end)
            raise AssertionError("action is not in action space")
        self._has_updated = True
        if dead:
            raw.step(action)
        elif not raw.legal_mask()[action]:
            self._end_by_illegal_action(agent)
        else:
            raw.step(action)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # PettingZoo's wrapper counts a reset the env refused as done; the env is still where
        # it was (never reset: the order checks keep naming the call that came too early)
        had_reset = self._has_reset
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset = had_reset
            raise

    def _end_by_illegal_action(self, agent: str) -> None:
        from pettingzoo.utils.env_logger import EnvLogger

        raw = self.env
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0)
        raw.rewards[agent] = float(self.illegal_reward)
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self.env)


def own_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A copy of a class's ``metadata`` for one env, its ``render_modes`` list too."""
    out = dict(metadata)
    if isinstance(out.get("render_modes"), list):
        out["render_modes"] = list(out["render_modes"])
    return out


def make_env_factory(raw_env_cls: type[EightfoldAECEnv]) -> Callable[..., AECEnv]:
    """The PettingZoo-classic ``env()`` factory: illegal action ends the game (-1 to the
    mover), out-of-bounds actions assert, and calls must follow the AEC order
    (:class:`StandardWrapper`, equivalent to PettingZoo's three wrappers). Bind it as ``env``
    in ``raw_env_cls``'s module (``env = make_env_factory(raw_env)``, as every game's
    ``env.py`` does): the standard pickle finds it there by name."""

    def env(**kwargs: Any) -> AECEnv:
        return StandardWrapper(raw_env_cls(**kwargs))

    env.__doc__ = f"The wrapped ``{raw_env_cls.__name__}`` (see the module docstring)."
    # named where it lives (``envs.<game>.env.env``), so the standard pickle finds it by
    # reference, as PettingZoo's own factories (a spawned process pool pickles it so)
    env.__module__ = raw_env_cls.__module__
    env.__qualname__ = env.__name__ = "env"
    return env
