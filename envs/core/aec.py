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


class EightfoldAECEnv(AECEnv):  # type: ignore[misc]
    """PettingZoo AEC environment over an eightfold engine (see module docstring)."""

    game_class: ClassVar[type[Game[Any, Any]]]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {[None, *RENDER_MODES]}, got {render_mode!r}")
        self.render_mode = render_mode
        self.game: Game[Any, Any] = self.game_class(**params)
        n = self.game.num_players
        self.possible_agents = [self.game.agent_name(i) for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        lo, hi = self.game.observation_bounds
        obs_box = spaces.Box(low=lo, high=hi, shape=self.game.observation_shape, dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(self.game.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self._zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._state: GameState | None = None
        self._np_random_seed: int | None = None

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

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
        """Canonical notation of ``action`` for the agent to act (spec §8)."""
        return self.state.action_to_string(int(action))

    def string_to_action(self, text: str) -> int:
        """Action index of the notation ``text`` for the agent to act; ``ValueError`` if not legal."""
        return self.state.string_to_action(text)

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self._np_random_seed = seed
        rng = np.random.default_rng(seed)
        self._state = self.game.new_initial_state(rng, options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._returns = np.zeros(self.game.num_players)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._update_after_move()

    def _update_after_move(self) -> None:
        state = self.state
        new_returns = state.returns()
        for a in self.agents:
            seat = self._seat_of[a]
            self.rewards[a] = float(new_returns[seat] - self._returns[seat])
        self._returns = np.array(new_returns, dtype=np.float64)
        if state.is_terminal():
            flag = self.truncations if state.is_truncated() else self.terminations
            for a in self.agents:
                flag[a] = True
        else:
            out = state.eliminated()
            for a in self.agents:
                if self._seat_of[a] in out:
                    self.terminations[a] = True
        for a in self.agents:
            self.infos[a] = self.game.infos(state, self._seat_of[a])
        self._accumulate_rewards()
        player = state.current_player()
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
        elif self.agents:
            self.agent_selection = self.agents[0]
        self._deads_step_first()

    # ------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(int(action))
        self._update_after_move()
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        state = self.state
        obs = self.game.observe(state, seat)
        if (
            agent == self.agent_selection
            and not (self.terminations.get(agent) or self.truncations.get(agent))
            and state.current_player() == seat
        ):
            mask = state.legal_mask()
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

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


def make_env_factory(raw_env_cls: type[EightfoldAECEnv]) -> Callable[..., AECEnv]:
    """The PettingZoo-classic ``env()`` factory: illegal action ends the game (-1 to the
    mover), out-of-bounds actions assert, and calls must follow the AEC order."""

    def env(**kwargs: Any) -> AECEnv:
        e: AECEnv = raw_env_cls(**kwargs)
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
        e = wrappers.AssertOutOfBoundsWrapper(e)
        e = wrappers.OrderEnforcingWrapper(e)
        return e

    env.__doc__ = f"The wrapped ``{raw_env_cls.__name__}`` (see the module docstring)."
    return env
