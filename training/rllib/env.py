"""An RLlib ``MultiAgentEnv`` over an eightfold rules engine.

Built on the engine (``Game`` / ``GameState``) rather than on the AEC wrapper: RLlib's
multi-agent API wants only the agent to act in the observation dict, and rewards may be
paid to any agent at any step (RLlib holds them until that agent's next observation).

* Agent ids are the PettingZoo names ``player_0 ... player_{n-1}`` (and ``frozen_<seat>``, below).
* Each observation is ``{"observations": float32[D], "action_mask": float32[A]}`` - the
  layout RLlib's ``ActionMaskingTorchRLModule`` expects. The engine's observation
  (``game.observe(state, seat)``, egocentric, never hidden information) is flattened to
  one dimension so RLlib's default MLP encoder applies to every game.
* Rewards are the differences of the engine's cumulative ``returns()``, paid to every
  learning agent whose return changed - so the terminal reward also reaches the agents
  that did not make the last move, and placement rewards of eliminations mid-game reach
  the eliminated agent, who is then terminated (with a final observation, all-zero mask).
* ``env_config`` takes the keys of :data:`ENV_CONFIG_KEYS` (``game`` or ``game_class``,
  ``params``: a dict of game parameters, ``opponents`` (or ``opponent``, not both),
  ``self_play``, ``seed``: an int >= 0, ``bots``); another key, or a value of the wrong type,
  is a ``ValueError``.
* ``env_config["opponents"]``: ``{spec: weight}`` (or ``"random,self"``), one drawn per
  episode like the SB3 opponent pool. ``"self"``: every seat is an RLlib agent - with
  ``self_play="shared"`` all are ``player_<seat>`` (one learning module plays them all);
  with ``self_play="frozen"`` one seat drawn at random is ``player_<seat>`` and the others
  are ``frozen_<seat>``, which the policy mapping sends to a frozen copy. A bot spec
  (``"random"``, ``"heuristic"``, ``"mcts:sims=50"``): one seat drawn at random is the
  learning agent and the bot moves for the other seats inside ``reset``/``step``.
* Truncation (the game's length limit) sets ``truncateds``; the rules end sets ``terminateds``.
* An illegal action (in the action space, mask entry 0) ends the episode as the AEC env's
  ``env()`` does (PettingZoo's ``TerminateIllegalWrapper``; OCT-48, OAO-43, OGO-63, OTP-44):
  the mover gets -1, every other learning agent still playing 0, and all are terminated
  (RLlib's own ``check_multiagent_environments`` steps with ``action_space.sample()``). An
  action outside the action space, or a non-integer, raises ``ValueError``; so do a ``step()``
  whose argument is no ``{agent_id: action}`` dict and a ``step()`` after the episode ended
  (call ``reset()``).
* ``reset(options=...)`` takes the game's reset options; a position set up mid-game (the
  ``state`` option) starts the episode there as in the AEC env: seats already knocked out are
  no agents of it and what was paid before it is no reward of it. Options that give a
  finished game are a ``ValueError``. A seed is a Python or numpy integer >= 0.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from envs.core.aec import action_in_range
from envs.core.config import check_seed
from envs.core.game import Game, GameState
from training.rllib.common import FROZEN_PREFIX, parse_opponents

#: the keys ``env_config`` takes (any other is a ``ValueError``: a misspelt key would train
#: against other opponents without a word)
ENV_CONFIG_KEYS = ("game", "game_class", "params", "opponents", "opponent", "self_play", "seed", "bots")


def make_game(env_config: Mapping[str, Any]) -> Game[Any, Any]:
    """The engine ``Game`` named by ``env_config``: ``game`` (a registered name or id) or
    ``game_class`` (a ``Game`` subclass, for tests), with ``params`` (a dict of game
    parameters, else ``ValueError``)."""
    given = env_config.get("params")
    if given is not None and not isinstance(given, Mapping):
        raise ValueError(
            f"env_config params must be a dict of game parameters (e.g. {{'num_players': 3}}), got {given!r}"
        )
    params = dict(given or {})
    game_class = env_config.get("game_class")
    if game_class is None:
        from envs.core.registry import get_game

        if "game" not in env_config:
            raise ValueError("env_config must name the game: {'game': 'octi', ...} (or give a game_class)")
        game_class = get_game(str(env_config["game"])).game_class()
    game: Game[Any, Any] = game_class(**params)
    return game


def build_spaces(game: Game[Any, Any]) -> tuple[gym.spaces.Dict, gym.spaces.Discrete[Any]]:
    """(observation space, action space) of one agent."""
    lo, hi = game.observation_bounds
    size = int(np.prod(game.observation_shape))
    obs_space = gym.spaces.Dict(
        {
            "observations": gym.spaces.Box(low=lo, high=hi, shape=(size,), dtype=np.float32),
            "action_mask": gym.spaces.Box(low=0.0, high=1.0, shape=(game.num_actions,), dtype=np.float32),
        }
    )
    return obs_space, gym.spaces.Discrete(game.num_actions)


def encode_observation(
    game: Game[Any, Any], state: GameState, seat: int, to_act: bool
) -> dict[str, np.ndarray]:
    """What ``seat`` sees: the flattened engine observation and (when it is to act) its mask."""
    obs = np.asarray(game.observe(state, seat), dtype=np.float32).reshape(-1)
    mask = state.legal_mask().astype(np.float32) if to_act else np.zeros(game.num_actions, np.float32)
    return {"observations": obs, "action_mask": mask}


class EightfoldMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """Turn-based multi-agent env over one eightfold game (see the module docstring)."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        # RLlib's EnvContext carries the EnvRunner and copy indices as attributes (lost by dict())
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        config = dict(config or {})
        unknown = sorted((k for k in config if k not in ENV_CONFIG_KEYS), key=repr)
        if unknown:
            raise ValueError(f"unknown env_config key(s) {unknown}; known: {list(ENV_CONFIG_KEYS)}")
        if "opponents" in config and "opponent" in config:
            raise ValueError(
                f"env_config gives both opponents ({config['opponents']!r}) and opponent "
                f"({config['opponent']!r}); give one"
            )
        seed = config.get("seed")
        if isinstance(seed, float) and seed.is_integer():  # a whole float (a YAML 3.0, a search space)
            seed = int(seed)
        seed = 0 if seed is None else check_seed(seed, "env_config seed")
        self.game = make_game(config)
        n = self.game.num_players
        self.self_play = str(config.get("self_play", "shared"))
        if self.self_play not in ("shared", "frozen"):
            raise ValueError(f"self_play must be 'shared' or 'frozen', got {self.self_play!r}")
        seats = [self.game.agent_name(i) for i in range(n)]
        frozen = [f"{FROZEN_PREFIX}{i}" for i in range(n)] if self.self_play == "frozen" else []
        self.possible_agents: list[Any] = seats + frozen
        self.agents = list(self.possible_agents)
        # each agent's spaces are its own: seeding or sampling one leaves another's stream alone
        spaces_of = {a: build_spaces(self.game) for a in self.possible_agents}
        self.observation_spaces = {a: obs for a, (obs, _act) in spaces_of.items()}
        self.action_spaces = {a: act for a, (_obs, act) in spaces_of.items()}
        self.opponents = parse_opponents(config.get("opponents", config.get("opponent", "self")))
        self._specs = list(self.opponents)
        weights = np.array([self.opponents[k] for k in self._specs], dtype=np.float64)
        self._weights = weights / weights.sum()
        self._bots = {k: env_bot(self.game, config, k) for k in self._specs if k != "self"}
        # Distinct streams per EnvRunner and per vectorised copy (EnvContext attributes), and per
        # run: the run's seed goes into every seeded reset too (below).
        self._stream = (worker, vector, seed)
        self._rng = np.random.default_rng([seed, worker, vector])
        self._state: GameState | None = None
        self._names = list(seats)  # agent id of each seat in this episode
        self._learners: set[int] = set()  # seats that are RLlib agents in this episode
        self._bot: Any = None
        self._done: set[int] = set()
        self._paid = np.zeros(n)
        self._illegal_end = False

    @property
    def state(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def agent_id(self, seat: int) -> str:
        """The RLlib agent id of ``seat`` in the current episode."""
        return self._names[seat]

    # ------------------------------------------------------------------ reset
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, Any]:
        if seed is not None:
            seed = check_seed(seed)
            # RLlib seeds copy v of runner w with seed + w + v (its MultiAgentEnvRunner builds
            # every copy from one EnvContext, vector_index 0): that number repeats across the
            # runners of a run, kept apart by w, and across runs at neighbouring seeds (copy v + 1
            # of the run at S is copy v of the run at S + 1), kept apart by the run's own seed.
            self._rng = np.random.default_rng([seed, *self._stream])
        for _ in range(100):
            self._new_episode(options)
            if self.state.is_terminal():  # set up by the options: no bot finished it
                given = ", ".join(map(str, options or {}))
                raise ValueError(
                    f"the reset options ({given}) give a finished game: there is no move to play"
                )
            self._play_bots()
            if not self.state.is_terminal():
                seat = self.state.current_player()
                return {self._names[seat]: self._observe(seat, True)}, {}
        raise RuntimeError("the bots keep finishing the game before the learning agent moves")

    def _new_episode(self, options: Mapping[str, Any] | None) -> None:
        """Deal a game and draw this episode's opponent and learning seat."""
        n = self.game.num_players
        self._state = state = self.game.new_initial_state(self._rng, options)
        # a position set up mid-game (the "state" option) starts the episode there, as in the
        # AEC env: seats already knocked out are no agents of it (never the learner), and what
        # was paid before it is no reward of it
        out = set() if state.is_terminal() else set(state.eliminated())
        spec = self._specs[int(self._rng.choice(len(self._specs), p=self._weights))]
        live = [s for s in range(n) if s not in out]
        learner = live[int(self._rng.integers(len(live)))]
        self._names = [self.game.agent_name(i) for i in range(n)]
        self._bot = self._bots.get(spec)
        if self._bot is not None:
            self._learners = {learner}
        else:
            self._learners = set(range(n))
            if self.self_play == "frozen":
                self._names = [
                    name if i == learner else f"{FROZEN_PREFIX}{i}" for i, name in enumerate(self._names)
                ]
        self._done = out
        self._paid = np.array(state.returns(), dtype=np.float64)
        self._illegal_end = False

    # ------------------------------------------------------------------- step
    def step(self, action_dict: Mapping[Any, Any]) -> tuple[Any, Any, Any, Any, Any]:
        if type(action_dict) is not dict and not isinstance(action_dict, Mapping):
            raise ValueError(
                f"step() takes a dict {{agent_id: action}}, e.g. {{'player_0': 3}}, "
                f"got {type(action_dict).__name__} {action_dict!r}"
            )
        state = self.state
        if self._illegal_end:
            raise ValueError("the episode ended on an illegal action; call reset()")
        if state.is_terminal():
            raise ValueError("the episode ended; call reset()")
        seat = state.current_player()
        agent = self._names[seat]
        if agent not in action_dict:
            raise ValueError(f"expected an action for {agent} (the agent to act), got {sorted(action_dict)}")
        action = action_dict[agent]
        if not action_in_range(action, self.game.num_actions):
            raise ValueError(
                f"action of {agent} must be an int in [0, {self.game.num_actions}), got {action!r}"
            )
        if not state.legal_mask()[int(action)]:
            return self._end_by_illegal_action(seat)
        state.apply(int(action))
        self._play_bots()
        return self._emit(seat)

    def _end_by_illegal_action(self, mover: int) -> tuple[Any, Any, Any, Any, Any]:
        """The mover -1, every other learning agent still playing 0, all terminated; the
        engine state stays the position before the action."""
        self._illegal_end = True
        live = [s for s in sorted(self._learners) if s not in self._done]
        obs = {self._names[s]: self._observe(s, False) for s in live}
        rewards = {self._names[s]: -1.0 if s == mover else 0.0 for s in live}
        terms: dict[str, bool] = {self._names[s]: True for s in live}
        terms["__all__"] = True
        self._done.update(live)
        return obs, rewards, terms, {"__all__": False}, {}

    def _play_bots(self) -> None:
        """Bot seats (and every seat once the learners are all out) move until a learner is to act."""
        state = self.state
        while not state.is_terminal():
            seat = state.current_player()
            if seat in self._learners and seat not in self._done:
                return
            if self._bot is None:
                raise RuntimeError(f"seat {seat} is to act but is neither a learning agent nor a bot")
            state.apply(self._bot.act(state, seat, self._rng))

    def _emit(self, mover: int) -> tuple[Any, Any, Any, Any, Any]:
        state = self.state
        returns = state.returns()
        delta = returns - self._paid
        self._paid = np.array(returns, dtype=np.float64)
        live = [s for s in sorted(self._learners) if s not in self._done]
        rewards = {self._names[s]: float(delta[s]) for s in live if delta[s] != 0.0 or s == mover}
        obs: dict[str, Any] = {}
        terms: dict[str, bool] = {}
        truncs: dict[str, bool] = {}
        if state.is_terminal():
            truncated = state.is_truncated()
            # a seat knocked out by the very move that hits the step limit is terminated,
            # as in the AEC env: only the seats still playing are cut off
            out = state.eliminated() if truncated else set()
            for s in live:
                obs[self._names[s]] = self._observe(s, False)
                (terms if not truncated or s in out else truncs)[self._names[s]] = True
            (truncs if truncated else terms)["__all__"] = True
            self._done.update(live)
        else:
            for s in state.eliminated() & set(live):
                name = self._names[s]
                obs[name] = self._observe(s, False)
                terms[name] = True
                self._done.add(s)
            seat = state.current_player()
            obs[self._names[seat]] = self._observe(seat, True)
        terms.setdefault("__all__", False)
        truncs.setdefault("__all__", False)
        return obs, rewards, terms, truncs, {}

    def _observe(self, seat: int, to_act: bool) -> dict[str, np.ndarray]:
        return encode_observation(self.game, self.state, seat, to_act)

    def render(self) -> str:  # type: ignore[override]  # text, like the AEC env's "ansi"
        return self.game.render_ansi(self.state)


def env_bot(game: Game[Any, Any], config: Mapping[str, Any], spec: str) -> Any:
    """The bot for ``spec`` from the game's ``BOTS`` (``random`` always exists)."""
    from envs.core.bots import RandomBot, make_bot

    bots: dict[str, Any] = {"random": RandomBot}
    if config.get("bots") is not None:
        bots.update(config["bots"])
    elif "game" in config:
        from envs.core.registry import get_game

        # Before a game's bots.py lands only "random" and "mcts" exist.
        with contextlib.suppress(ImportError):
            bots.update(get_game(str(config["game"])).bots())
    return make_bot(game, spec, bots)
