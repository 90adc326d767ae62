"""The :class:`~envs.core.game.Game` of Otto the Octopus (facts, observations, hidden info)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from envs.core.game import STATE_OPTION, Game, check_rng, check_seat
from envs.otto_octopus.encode import OBS_SIZE, action_to_string, hidden_tiles, observe, parse_action
from envs.otto_octopus.position import load_position, new_game
from envs.otto_octopus.rules import EXTRA, MAIN, NUM_ACTIONS, Config, State

RESET_OPTIONS = ("position", STATE_OPTION)


class OttoOctopusGame(Game[Config, State]):
    """Otto the Octopus for 1-4 players (solo, open and simplified variants)."""

    name = "otto_octopus"
    reset_options: ClassVar[tuple[str, ...]] = RESET_OPTIONS
    config_class = Config
    test_configs = (
        {},
        {"num_players": 1},
        {"num_players": 3},
        {"num_players": 4},
        {"open_game": True},
        {"num_players": 3, "open_game": True},
        {"simplified": True},
        {"num_players": 1, "simplified": True},
        {"num_players": 4, "open_game": True, "simplified": True},
        {"max_steps": 25},
    )
    golden_configs = (
        {},
        {"num_players": 1},
        {"num_players": 3, "open_game": True},
        {"num_players": 4, "simplified": True},
    )
    #: the ``mcts`` bot's tuned settings (measured on the doc page): new nodes' moves ordered and
    #: biased by the ``heuristic`` bot, leaves valued by ``evaluate`` at once (0.52 against
    #: ``heuristic`` at 200 simulations, 200 games; the core defaults 0.44)
    mcts_defaults = {"depth": 0, "prior": "heuristic"}

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (OBS_SIZE,)

    @property
    def observation_bounds(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def reward_range(self) -> tuple[float, float]:
        return _reward_range(self.config.num_players)

    @property
    def zero_sum(self) -> bool:
        return self.config.num_players > 1

    @property
    def max_game_length(self) -> int:
        n = self.config.num_players
        # spec §5: <= 60 placements, each with <= 1 sub-decision and 1 stop, <= n - 1 passes
        # between; plus what §5's count leaves out: a skipped turn is no pass (OTP-23/37), so
        # each of the <= 2 jellyfish skips lets the others pass once more (<= n - 1 each)
        return min(self.config.max_steps, 60 * (n + 2) + n + 2 * (n - 1))

    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> State:
        check_rng(rng)
        if options is None:
            return new_game(self.config, rng)
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        restored = self.restored_state(State, options)
        if restored is not None:
            return restored
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(RESET_OPTIONS)}")
        if options.get("position") is not None:  # None: absent, as for every reset option
            return load_position(self.config, options["position"], rng)
        return new_game(self.config, rng)

    def observe(self, state: State, seat: int) -> np.ndarray:
        if getattr(state, "config", None) is not self.config:  # a hot path: one identity test
            self.check_state(state, "observe")
        check_seat(seat, self.num_players)
        return observe(state, seat)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """Re-deal the pile and every tile of another hand that ``seat`` cannot see, uniformly
        over the deals that keep what every seat knows of the hands: before the first placement
        every hand is the one the mulligan kept, so it holds a placement (OTP-35/36); a seat
        asked to place holds one, or it would have passed automatically (OTP-19, OTP-33). Other
        deals are drawn again. What a pufferfish swap or a seahorse return showed ``seat``
        privately is not kept (its observation does not hold it either): those tiles are
        re-dealt with the rest."""
        check_seat(seat, self.num_players)
        check_rng(rng)
        st = state.clone()
        pool = sorted(st.pile + hidden_tiles(st, seat))  # sorted: the result may not depend on the deal
        slots = [  # the hidden places of the other hands
            (q, j)
            for q in range(st.n)
            if q != seat and st.hands[q]
            for j in range(len(st.hands[q]) - 1 if st.config.open_game else 0, len(st.hands[q]))
        ]
        known = self._hands_that_can_place(st, seat)
        while True:  # the true deal keeps them all, so a deal that does comes
            perm = [int(x) for x in rng.permutation(pool)] if pool else []
            st.pile = perm[: len(st.pile)]
            for (q, j), tile in zip(slots, perm[len(st.pile) :], strict=True):
                st.hands[q][j] = tile
            if all(st.ocean.can_place(st.hands[q], st.config.fish_rules) for q in known):
                break
        st.recount_pile()
        st.rng = np.random.default_rng(int(rng.integers(2**63)))
        st._mask = None
        return st

    @staticmethod
    def _hands_that_can_place(st: State, seat: int) -> list[int]:
        """The other seats whose hand every seat knows holds a placement: all of them before the
        first placement (the mulligan's hands), and the seat asked to place (MAIN or EXTRA).
        Only where the true hands do (a loaded position may hold others): the re-deal ends."""
        if st.over:
            return []
        if not st.ocean.placements:
            seats = [q for q in range(st.n) if q != seat and st.hands[q]]
        elif st.phase in (MAIN, EXTRA) and st.to_move != seat:
            seats = [st.to_move]
        else:
            return []
        return [q for q in seats if st.ocean.can_place(st.hands[q], st.config.fish_rules)]

    def evaluate(self, state: State) -> np.ndarray:
        """Static value estimate (in return units, zero-sum with 2+ players) for the MCTS
        depth cutoff; it reads the whole (determinized) state, in the units of the state's own
        player count."""
        self.check_state(state, "evaluate", same_parameters=False)
        from envs.otto_octopus.evaluate import evaluate

        return evaluate(state, *_reward_range(state.config.num_players))

    def action_to_string(self, action: int) -> str:
        """Spec §8: one canonical string per index, whatever the state (before ``reset()`` too)."""
        return action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Spec §8: the index of a canonical string, whatever the state."""
        return parse_action(text)

    def infos(self, state: State, seat: int) -> dict[str, Any]:
        self.check_state(state, "infos")
        check_seat(seat, self.num_players)
        info: dict[str, Any] = {"scores": state.scores[:]}
        if state.over:
            info["final_scores"] = state.final_scores()
            # a cut-off game has no winner (its returns are 0), as in OTTO Game Over
            info["winners"] = [] if state.truncated else state.winners()
        return info

    def public_action_string(self, state: State, action: int, viewer: int) -> str:
        """OTP-24 / OTP-26: only the two players of a pufferfish swap learn the tile given, and
        only the returning player the tile a seahorse returns; everything else is public."""
        check_seat(viewer, self.num_players, "viewer")
        text = action_to_string(action)
        words = text.split()
        if viewer == state.current_player() or words[0] not in ("return", "swap"):
            return text
        if words[0] == "return":
            return "return a tile to the pile"
        return text if words[2] == f"player_{viewer}" else f"swap a tile with {words[2]}"

    def private_text(self, state: State, seat: int) -> str:
        """The seat's own hand where :meth:`render_ansi` does not show it (another seat is to
        act, or the game is over), in the open game (OTP-41) with its secret (newest) tile
        named; ``""`` while the seat is to act, as the picture then shows its hand and the
        other seats' visible tiles."""
        check_seat(seat, self.num_players)
        from envs.otto_octopus.board import KINDS

        if not state.over and state.to_move == seat:
            return ""
        hand = [KINDS[k] for k in state.hands[seat]]
        text = "your hand: " + (", ".join(hand) or "none")
        if self.config.open_game and len(hand) > 1:
            text += f" (the newest, {hand[-1]}, is secret; the others are shown)"
        elif self.config.open_game and hand:
            text += " (secret)"
        return text

    def step_events(self, state: State, action: int) -> list[str]:
        """The mover's draws, counted (OTP-18/21/26), skipped turns (OTP-23), automatic passes
        (OTP-19) and the end (OTP-37, the step limit): public facts only, never a tile's kind."""
        self.check_state(state, "step_events", same_parameters=False)
        from envs.otto_octopus.events import step_events

        return step_events(state, action)

    def render_ansi(self, state: State) -> str:
        self.check_state(state, "render_ansi", same_parameters=False)
        from envs.otto_octopus.render import render_ansi

        return render_ansi(state)

    def render_rgb(self, state: State) -> np.ndarray:
        self.check_state(state, "render_rgb", same_parameters=False)
        from envs.otto_octopus.render import render_rgb

        return render_rgb(state)


def _reward_range(num_players: int) -> tuple[float, float]:
    """Bounds of a seat's return: solo, the final score / 100 (about -0.6 .. 2); an illegal
    action gives -1."""
    return (-1.0, 3.0) if num_players == 1 else (-1.0, 1.0)
