"""A tiny engine-protocol game for testing the training layer without the real games.

"Bust at ten": players in turn add 1, 2 or 3 to a running total. Whoever brings the
total to ``target`` or beyond is *eliminated* (paid -1 + 2(j-1)/(N-1) as the j-th out,
like Over and Out's placement rewards) and the total restarts at 0. The last player
left gets +1. Solo (``num_players=1``): bust ends the game; the return is the number
of additions made, divided by ``target``. ``teams=True`` (4 players) pays the same
placement reward to both partners (seats 0+2 and 1+3) - only used to exercise the
partner logic of the single-agent view. ``reach=True``: whoever reaches the target
wins at once (+1, the others -1), so a game can be lost on an opponent's move.

Observation (egocentric, float32): one-hot of the total (``target`` entries), then
alive flags of the seats starting with the observer (4 entries). ``planes=True``
reshapes it to ``(1, 2, (target + 4) // 2)`` so the CNN path can be tested.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from envs.core.aec import EightfoldAECEnv
from envs.core.config import check_bool, check_int
from envs.core.game import TERMINAL, Game, GameState, rng_to_dict


@dataclass(frozen=True)
class ToyConfig:
    num_players: int = field(default=2, metadata={"help": "1-4"})
    target: int = field(default=10, metadata={"help": "bust total (even)"})
    planes: bool = field(default=False, metadata={"help": "3-D observation"})
    teams: bool = field(default=False, metadata={"help": "2v2 (4 players)"})
    reach: bool = field(default=False, metadata={"help": "reaching the target wins (2 players)"})

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 1, 4)
        check_int("target", self.target, 4, 30)
        check_bool("planes", self.planes)
        check_bool("teams", self.teams)
        check_bool("reach", self.reach)


class ToyState(GameState):
    def __init__(self, config: ToyConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.total = 0
        self.to_move = 0
        self.alive = [True] * config.num_players
        self.out_order: list[int] = []
        self.adds = 0
        self.winner = -1
        self._returns = np.zeros(config.num_players)

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.to_move

    def legal_mask(self) -> np.ndarray:
        return np.zeros(3, np.int8) if self.is_terminal() else np.ones(3, np.int8)

    def is_terminal(self) -> bool:
        if self.winner >= 0:
            return True
        if self.config.num_players == 1:
            return not self.alive[0]
        return sum(self.alive) <= 1

    def returns(self) -> np.ndarray:
        return self._returns.copy()

    def eliminated(self) -> frozenset[int]:
        return frozenset() if self.is_terminal() else frozenset(self.out_order)

    def apply(self, action: int) -> None:
        if self.is_terminal() or action not in (0, 1, 2):
            raise ValueError(f"illegal action {action}")
        n = self.config.num_players
        self.total += action + 1
        self.adds += 1
        if self.total >= self.config.target and self.config.reach:
            self.winner = self.to_move
            self._returns[:] = -1.0
            self._returns[self.to_move] = 1.0
            return
        if self.total >= self.config.target:
            self.alive[self.to_move] = False
            self.out_order.append(self.to_move)
            self.total = 0
            self._pay(self.to_move, len(self.out_order))
        if n == 1:
            if self.is_terminal():
                self._returns[0] = (self.adds - 1) / self.config.target
            return
        if self.is_terminal():
            winner = self.alive.index(True)
            self._pay(winner, n)
            return
        nxt = (self.to_move + 1) % n
        while not self.alive[nxt]:
            nxt = (nxt + 1) % n
        self.to_move = nxt

    def _pay(self, seat: int, place: int) -> None:
        n = self.config.num_players
        if n == 1:
            return
        value = -1.0 + 2.0 * (place - 1) / (n - 1)
        seats = [seat, (seat + 2) % 4] if self.config.teams else [seat]
        for s in seats:
            self._returns[s] += value / len(seats) if self.config.teams else value

    def to_dict(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "total": self.total, "rng": rng_to_dict(self.rng)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToyState:
        raise ValueError("not supported by the toy game")

    def action_to_string(self, action: int) -> str:
        return f"add {action + 1}" if action in (0, 1, 2) else f"illegal {action}"

    def string_to_action(self, text: str) -> int:
        parts = text.lower().split()
        if len(parts) == 2 and parts[0] == "add" and parts[1] in ("1", "2", "3"):
            return int(parts[1]) - 1
        raise ValueError(f"expected 'add 1', 'add 2' or 'add 3', got {text!r}")

    def snapshot(self) -> dict[str, Any]:
        return {"total": self.total, "alive": list(self.alive)}


class ToyGame(Game[ToyConfig, ToyState]):
    name: ClassVar[str] = "toy"
    config_class: ClassVar[type[Any]] = ToyConfig

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return 3

    @property
    def observation_shape(self) -> tuple[int, ...]:
        size = self.config.target + 4
        return (1, 2, size // 2) if self.config.planes else (size,)

    @property
    def reward_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def max_game_length(self) -> int:
        return self.config.target * max(1, self.config.num_players)

    def new_initial_state(
        self, rng: np.random.Generator, options: Mapping[str, Any] | None = None
    ) -> ToyState:
        state = ToyState(self.config, rng)
        if options and "total" in options:
            state.total = int(options["total"])
        return state

    def observe(self, state: ToyState, seat: int) -> np.ndarray:
        obs = np.zeros(self.config.target + 4, np.float32)
        obs[state.total] = 1.0
        n = self.config.num_players
        for k in range(n):
            obs[self.config.target + k] = float(state.alive[(seat + k) % n])
        return obs.reshape(self.observation_shape)

    def render_ansi(self, state: ToyState) -> str:
        return f"total {state.total}/{self.config.target}  alive {state.alive}  to move {state.to_move}"

    def render_rgb(self, state: ToyState) -> np.ndarray:
        return np.zeros((8, 8, 3), np.uint8)


class ToyAECEnv(EightfoldAECEnv):
    """The toy game through the project's PettingZoo adapter."""

    game_class = ToyGame
    metadata: ClassVar[dict[str, Any]] = {
        "name": "toy_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }
