"""``OverAndOutGame``: the facts and stateless functions of Over and Out for one config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from envs.core.game import STATE_OPTION, Game, check_rng, check_seat
from envs.over_and_out.cards import KIND_OF, NUM_ACTIONS, NUM_KINDS, TIPTOP_VALUES, TOKENS
from envs.over_and_out.config import Config
from envs.over_and_out.encode import OBS_SIZE, observe
from envs.over_and_out.rules import State

RESET_OPTIONS = ("deck_top", "tiptop_top", STATE_OPTION)


class OverAndOutGame(Game[Config, State]):
    """Over and Out (spec ``rules/over_and_out.md``)."""

    name = "over_and_out"
    reset_options: ClassVar[tuple[str, ...]] = RESET_OPTIONS
    pays_before_end: ClassVar[bool] = True  # a seat knocked out is paid its placement at once
    config_class = Config
    test_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {"num_players": 2},
        {"num_players": 3},
        {},
        {"num_players": 8},
        {"minus10_rule": "lose_below_zero"},
        {"num_players": 3, "reward_mode": "winner_only"},
        {"num_players": 3, "max_plays": 40},
        {"num_players": 5, "starting_chips": 1},
    )
    golden_configs: ClassVar[tuple[dict[str, Any], ...]] = (
        {"num_players": 2},
        {},
        {"num_players": 3, "minus10_rule": "lose_below_zero", "reward_mode": "winner_only"},
    )

    # ---------------------------------------------------------------- facts
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
    def reward_range(self) -> tuple[float, float]:
        return (-1.0, 1.0)

    @property
    def zero_sum(self) -> bool:
        return self.config.reward_mode == "placement" or self.config.num_players == 2

    @property
    def max_game_length(self) -> int:
        # decisions, as every game counts them: each is a play (a bust too), and the game is cut
        # off at max_plays; the AEC env adds at most one dead step per agent to an episode
        return self.config.max_plays

    # ------------------------------------------------------------ functions
    def new_initial_state(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> State:
        check_rng(rng)
        if isinstance(options, Mapping):
            restored = self.restored_state(State, options)
            if restored is not None:
                return restored
        deck_top, tiptop_top = self._parse_options(options)
        return State.new_game(self.config, rng, deck_top, tiptop_top)

    def _parse_options(self, options: Mapping[str, Any] | None) -> tuple[list[int], list[int]]:
        """§6 reset options ``deck_top`` (card tokens, first = top) and ``tiptop_top``."""
        if options is None:
            return [], []
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict, got {options!r}")
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; allowed: {list(RESET_OPTIONS)}")
        # an option given as None is the same as leaving it out
        deck_top, tiptop_top = options.get("deck_top"), options.get("tiptop_top")
        deck_kinds = self._deck_top(() if deck_top is None else deck_top)
        return deck_kinds, _tiptop_top(() if tiptop_top is None else tiptop_top)

    def _deck_top(self, value: Any) -> list[int]:
        if not isinstance(value, Sequence) or isinstance(value, str):
            raise ValueError(f"deck_top must be a list of card tokens {list(TOKENS)}, got {value!r}")
        kinds, left = [], list(self.config.counts)
        for t in value:
            k = KIND_OF.get(t.strip().lower()) if isinstance(t, str) else None
            if k is None:
                raise ValueError(f"deck_top holds {t!r}, not a card token of {list(TOKENS)}")
            if left[k] == 0:
                raise ValueError(f"deck_top asks for more {TOKENS[k]!r} cards than deck_counts holds")
            left[k] -= 1
            kinds.append(k)
        return kinds

    def observe(self, state: State, seat: int) -> np.ndarray:
        if getattr(state, "config", None) is not self.config:  # a hot path: one identity test
            self.check_state(state, "observe")
        check_seat(seat, self.num_players)
        return observe(state, seat)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """Re-deal what ``seat`` cannot see: the other hands, the draw pile order and the
        Tip Top pile order, from the cards not in its hand nor in the play pile. Which cards a
        reshuffle put into the draw pile is not remembered (the observation does not hold it):
        they are re-dealt with the other unseen cards."""
        check_seat(seat, self.num_players)
        check_rng(rng)
        s = state.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        mine = bool(state.chips[seat])  # an eliminated seat no longer sees its last hand
        unseen = [c - p for c, p in zip(state.config.counts, state.play_pile, strict=True)]
        for k in state.hands[seat] if mine else ():
            unseen[k] -= 1
        pool: list[int] = rng.permutation(np.repeat(np.arange(NUM_KINDS), unseen)).tolist()
        for o in range(s.n):
            if o == seat and mine:
                continue
            c = len(s.hands[o])
            s.hands[o] = sorted(pool[len(pool) - c :])
            del pool[len(pool) - c :]
        s.draw_pile = pool
        s.tiptop_pile = rng.permutation(sorted(state.tiptop_pile)).tolist()  # blind to the true order
        s._bits = -1
        return s

    def evaluate(self, state: State) -> np.ndarray:
        """Static value estimate (in return units, summing like the returns) for the MCTS
        depth cutoff; it reads the whole (determinized) state."""
        self.check_state(state, "evaluate", same_parameters=False)
        from envs.over_and_out.evaluate import evaluate

        return evaluate(state)

    def render_ansi(self, state: State) -> str:
        self.check_state(state, "render_ansi", same_parameters=False)
        from envs.over_and_out.render import render_ansi

        return render_ansi(state)

    def step_events(self, state: State, action: int) -> list[str]:
        """A round lost (OAO-15/28/42: who, why, the chip), a seat out (OAO-34), the next
        round's dealer and Tip Top (OAO-35..37), a new Tip Top card (OAO-24/29), a reshuffle
        (OAO-32), the step limit: public facts only, never a hand."""
        self.check_state(state, "step_events", same_parameters=False)
        from envs.over_and_out.events import step_events

        return step_events(state, action)

    def render_rgb(self, state: State) -> np.ndarray:
        self.check_state(state, "render_rgb", same_parameters=False)
        from envs.over_and_out.render import render_rgb

        return render_rgb(state)


def _tiptop_top(value: Any) -> list[int]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise ValueError(f"tiptop_top must be a list of Tip Top values {list(TIPTOP_VALUES)}, got {value!r}")
    out: list[int] = []
    for item in value:
        # ints and numpy integers, never bools or strings
        v = int(item) if isinstance(item, (int, np.integer)) and not isinstance(item, bool) else 0
        if v not in TIPTOP_VALUES:
            raise ValueError(f"tiptop_top holds {item!r}, not a Tip Top value of {list(TIPTOP_VALUES)}")
        if v in out:
            raise ValueError(f"tiptop_top names the Tip Top card {v} twice (there is one of each)")
        out.append(v)
    return out
