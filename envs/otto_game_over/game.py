"""``OttoGameOverGame``: the facts and stateless functions of OTTO Game Over."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from envs.core.game import STATE_OPTION, Game, Symmetry, check_rng, check_seat
from envs.otto_game_over import actions as A
from envs.otto_game_over import encode, flow, notation, position
from envs.otto_game_over.flow import PLACE
from envs.otto_game_over.geometry import TILE_NAMES
from envs.otto_game_over.rules import Config, State

OPTION_KEYS = ("position", STATE_OPTION)


class OttoGameOverGame(Game[Config, State]):
    """OTTO Game Over under one :class:`Config`."""

    name: ClassVar[str] = "otto_game_over"
    reset_options: ClassVar[tuple[str, ...]] = OPTION_KEYS
    config_class: ClassVar[type[Any]] = Config
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {"episode": "match"},
        {"target_score": 8},
        {"num_players": 3, "episode": "match"},
        {"num_players": 4, "target_score": 6},
        {"num_players": 4, "teams": True, "target_score": 8},
        {"num_players": 1},
        {"blind": True, "target_score": 8},
        {"secret_cards": False, "episode": "match", "head_in_the_clouds": True},
        {"eight_lobes": "round_or_square", "episode": "match", "num_players": 3},
        {"target_score": 4, "max_matches": 2},
        {},
    )
    golden_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {},
        {"num_players": 4, "teams": True, "episode": "match"},
        {"num_players": 1},
        {"blind": True, "episode": "match"},
    )
    #: the ``mcts`` bot's tuned settings (doc page): new nodes' moves ordered and biased by the
    #: ``heuristic`` bot (which sees the next player's threats, 8s above all), leaves valued by
    #: ``evaluate`` at once: 0.545 against ``heuristic`` per match at 200 simulations (200
    #: matches) where the core defaults score 0.350; about 1.6 times slower per simulation
    mcts_defaults: ClassVar[dict[str, Any]] = {"depth": 0, "prior": "heuristic"}

    # ---------------------------------------------------------------- facts
    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return A.N_ACTIONS

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (encode.OBS_SIZE,)

    @property
    def reward_range(self) -> tuple[float, float]:
        if self.config.solo:
            return (-1.0, (24 + 8 + 2 * 24) / flow.MAX_MATCH_SCORE)
        return (-1.0, 1.0)

    @property
    def zero_sum(self) -> bool:
        return not self.config.solo

    @property
    def max_game_length(self) -> int:
        """A loose bound: per match at most ~ (24 placements + 4 dark skips + tower-empty
        rounds) turns of two decisions, plus kidnaps and Infinity answers; the tie-break match
        and card-driven extras (33 cards) on top."""
        n = self.config.num_players
        matches = 1 if self.config.episode == "match" or self.config.solo else self.config.max_matches + 1
        per_match = 2 * (24 + 8 + n * (n + 34)) + n
        return matches * per_match + 4 * 33

    # ------------------------------------------------------------- functions
    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> State:
        check_rng(rng)
        if options is not None:
            if not isinstance(options, Mapping):
                raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
            restored = self.restored_state(State, options)
            if restored is not None:
                return restored
            unknown = sorted(str(k) for k in options if k not in OPTION_KEYS)
            if unknown:
                raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(OPTION_KEYS)}")
            if options.get("position") is not None:  # None: absent, as for every reset option
                return position.load(self.config, rng, options["position"])
        state = State(self.config, rng)
        flow.new_game(state)
        return state

    def observe(self, state: State, seat: int) -> np.ndarray:
        if getattr(state, "config", None) is not self.config:  # a hot path: one identity test
            self.check_state(state, "observe")
        check_seat(seat, self.num_players)
        return encode.observe(state, seat)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        check_seat(seat, self.num_players)
        check_rng(rng)
        return encode.resample_hidden(state, seat, rng)

    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board's three turns (:data:`encode.SYMMETRIES`; the doc page's "Symmetries")."""
        return encode.SYMMETRIES

    def evaluate(self, state: State) -> np.ndarray:
        """Static value estimate (in return units, zero-sum with 2+ players) for the MCTS
        depth cutoff; it reads the whole (determinized) state."""
        self.check_state(state, "evaluate", same_parameters=False)
        from envs.otto_game_over.evaluate import evaluate

        return evaluate(state)

    def action_to_string(self, action: int) -> str:
        """Spec §8: one canonical string per index, whatever the state (before ``reset()`` too)."""
        return notation.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Spec §8: the index of a canonical string, whatever the state."""
        return notation.string_to_action(text)

    def infos(self, state: State, seat: int) -> dict[str, Any]:
        self.check_state(state, "infos")
        check_seat(seat, self.num_players)
        info: dict[str, Any] = {
            "match_scores": list(state.match_scores),
            "totals": list(state.totals),
            "winners": list(state.winners),
        }
        if self.config.solo:
            info["solo_score"] = state.match_scores[0]
        return info

    def public_action_string(self, state: State, action: int, viewer: int) -> str:
        """The move's notation; a placement also names the tile placed (shown face up: the
        drawn tile and the table tile are public, OGO-10)."""
        check_seat(viewer, self.num_players, "viewer")
        text = state.action_to_string(action)
        if 0 <= action < A.NO_CARD and state.phase == PLACE:
            tile = state.drawn if action < 100 else state.tables[state.to_move]
            if tile >= 0:
                text += f" ({TILE_NAMES[tile]})"
        return text

    def step_events(self, state: State, action: int) -> list[str]:
        """Claims (OGO-22), skipped turns and dark tiles (OGO-16..18, 53), Time Travel's extra
        turn (OGO-34), a kidnapped card (OGO-42/43), an 8 (OGO-24), match ends with their scores
        and totals, new and tie-break matches (OGO-53..56), the solo result (OGO-61): public
        facts only (a card drawn is counted, never named)."""
        self.check_state(state, "step_events", same_parameters=False)
        from envs.otto_game_over.events import step_events

        return step_events(state, action)

    def private_text(self, state: State, seat: int) -> str:
        """The seat's secret cards, and its 2v2 partner's (shown to it, OGO-27)."""
        check_seat(seat, self.num_players)
        names = [", ".join(A.CARD_NAMES[c] for c in sorted(state.hands[s])) or "none" for s in range(state.n)]
        text = f"your cards: {names[seat]}"
        if self.config.team_play:
            partner = (seat + 2) % 4
            text += f"; your partner player_{partner}'s cards: {names[partner]}"
        return text

    def render_ansi(self, state: State) -> str:
        self.check_state(state, "render_ansi", same_parameters=False)
        from envs.otto_game_over.render import render_ansi

        return render_ansi(state)

    def render_rgb(self, state: State) -> np.ndarray:
        self.check_state(state, "render_rgb", same_parameters=False)
        from envs.otto_game_over.render import render_rgb

        return render_rgb(state)
