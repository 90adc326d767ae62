"""``OctiGame``: the facts and stateless functions of Octi for one config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from envs.core.game import STATE_OPTION, Game, Symmetry, check_rng, check_seat
from envs.octi import encode
from envs.octi.position import load as load_position
from envs.octi.rules import Config, State

RESET_OPTIONS = ("moves", "position", STATE_OPTION)


class OctiGame(Game[Config, State]):
    """Octi: basic 6x7, Octi-X fast and Octi-X classic (spec ``rules/octi.md``)."""

    name: ClassVar[str] = "octi"
    reset_options: ClassVar[tuple[str, ...]] = RESET_OPTIONS
    config_class: ClassVar[type[Any]] = Config
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"allow_reposition": True, "edgeless": True, "repetition_draw": True, "max_turns": 120},
        {"variant": "x_fast", "max_turns": 150},
        {"variant": "x_fast", "capture_to_reserve": True, "allow_reposition": True, "max_turns": 80},
        {"variant": "x_classic", "max_turns": 150},
        {
            "variant": "x_classic",
            "edgeless": True,
            "capture_to_reserve": True,
            "repetition_draw": True,
            "max_turns": 80,
        },
    )
    golden_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"variant": "x_fast", "max_turns": 60},
        {"variant": "x_classic", "max_turns": 60},
    )

    #: the ``mcts`` bot's tuned settings here (measured on this doc page): every new node's moves
    #: ordered and biased by the ``heuristic`` bot's scores, leaves valued by ``evaluate`` at once
    mcts_defaults: ClassVar[dict[str, Any]] = {"depth": 0, "prior": "heuristic"}

    def __init__(self, config: Config | None = None, **params: Any) -> None:
        super().__init__(config, **params)
        c = self.config
        probe = State(c, np.random.default_rng(0))
        self._num_actions = probe.lay.size
        self._shape = (encode.num_channels(c.pods), probe.geo.height, probe.geo.width)
        self._max_len = c.turn_limit * c.pods * (probe.geo.size + 3)

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        return self._num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def reward_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def max_game_length(self) -> int:
        # spec §5: a turn has at most P * (W * H + 3) agent steps
        return self._max_len

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> State:
        """The §2 setup, or option ``position`` (:mod:`envs.octi.position`, a turn's start in the
        schema of ``snapshot()``); option ``moves`` (notation strings) is then played from it."""
        check_rng(rng)
        state = State(self.config, rng)
        if options is None:
            return state
        if not isinstance(options, Mapping):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        if not options:
            return state
        restored = self.restored_state(State, options)
        if restored is not None:
            return restored
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(RESET_OPTIONS)}")
        if options.get("position") is not None:
            state = load_position(self.config, rng, options["position"])
        moves = options.get("moves")
        moves = [] if moves is None else moves  # None: absent, as for every reset option
        if not isinstance(moves, (list, tuple)) or not all(isinstance(m, str) for m in moves):
            raise ValueError("option 'moves' must be a list of notation strings")
        for i, m in enumerate(moves):
            try:
                state.apply(state.string_to_action(m))
            except ValueError as exc:
                raise ValueError(f"option 'moves'[{i}] {m!r}: {exc}") from exc
        return state

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board's left-right mirror (:func:`encode.symmetries`; the doc page's "Symmetries"):
        every rule of every variant and option is the same under it."""
        return encode.symmetries(self.config)

    def observe(self, state: State, seat: int) -> np.ndarray:
        if getattr(state, "config", None) is not self.config:  # a hot path: one identity test
            self.check_state(state, "observe")
        check_seat(seat, self.num_players)
        return encode.observe(state, seat)

    def evaluate(self, state: State) -> np.ndarray:
        """Static value estimate (zero-sum, in return units) for the MCTS depth cutoff."""
        self.check_state(state, "evaluate", same_parameters=False)
        from envs.octi.evaluate import evaluate

        return evaluate(state)

    def step_events(self, state: State, action: int) -> list[str]:
        """The end of the game the move brings, with how it came (OCT-42..45, OCT-52: a base
        reached, every enemy base held, the opponent left without a move, threefold
        repetition, the turn limit); nothing else in Octi happens by itself."""
        self.check_state(state, "step_events", same_parameters=False)
        after = state.clone()
        after.apply(action)
        if not after.is_terminal():
            return []
        from envs.octi.render import _end

        result, how = _end(after)
        return [f"game over: {result}, {how}"]

    def render_ansi(self, state: State) -> str:
        self.check_state(state, "render_ansi", same_parameters=False)
        from envs.octi.render import render_ansi

        return render_ansi(state)

    def render_rgb(self, state: State) -> np.ndarray:
        self.check_state(state, "render_rgb", same_parameters=False)
        from envs.octi.render import render_rgb

        return render_rgb(state)
