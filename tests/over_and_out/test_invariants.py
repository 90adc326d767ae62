"""Invariants over random games (OAO-44) and the AEC conventions (OAO-40, OAO-41, OAO-43)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from envs.over_and_out.cards import NUM_KINDS, TIPTOP_VALUES
from envs.over_and_out.game import OverAndOutGame
from envs.over_and_out.rules import State
from envs.over_and_out_v0 import env

CONFIGS = [
    {"num_players": 2},
    {"num_players": 4},
    {"num_players": 7, "minus10_rule": "lose_below_zero"},
    {"num_players": 3, "deck_counts": {"0": 3, "5": 3, "topsy-turvy": 6}},
]


def _check(state: State, before: State | None) -> None:
    counts = list(state.play_pile)
    for k in state.draw_pile:
        counts[k] += 1
    for h in state.hands:
        for k in h:
            counts[k] += 1
    assert tuple(counts) == state.config.counts  # OAO-44: every card once
    assert sorted([*state.tiptop_pile, *state.tiptop_discards, state.tiptop]) == list(TIPTOP_VALUES)
    if state.is_terminal():
        return
    for seat in state.active_seats():  # OAO-44, OAO-17: hand size = chips
        assert len(state.hands[seat]) == state.chips[seat]
    assert 0 <= state.total <= state.tiptop  # OAO-13
    if before is not None and before.round == state.round:
        assert state.chips == before.chips and state.dealer == before.dealer


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: json.dumps(p))
def test_random_game_invariants(params: dict[str, Any]) -> None:
    """OAO-44: card conservation, hand size = chips, 0 <= T <= L, Tip Top cards complete."""
    game = OverAndOutGame(**params)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(np.random.default_rng(100 + seed))
        _check(state, None)
        chips_total = sum(state.chips)
        while not state.is_terminal():
            before = state.clone()
            legal = state.legal_actions()
            assert legal and (legal == [11]) == (not any(a < 11 for a in legal))
            state.apply(legal[rng.integers(len(legal))])
            _check(state, before)
            lost = chips_total - sum(state.chips)
            assert lost in (0, 1)  # OAO-33: a round removes exactly one chip
            chips_total = sum(state.chips)
        assert state.is_truncated() or len(state.active_seats()) == 1


def test_only_mover_has_a_mask() -> None:
    """OAO-40: every agent but agent_selection sees an all-zero mask; hands are private."""
    e = env(num_players=4)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        mover = e.agent_selection
        for a in e.agents:
            obs = e.observe(a)
            assert obs["action_mask"].any() == (a == mover)
        obs, *_ = e.last()
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))


def test_dead_step_convention() -> None:
    """OAO-41: an eliminated agent is terminated at once, dead-stepped with None, removed;
    the others play on and the eliminated agent never acts again."""
    e = env(num_players=4, starting_chips=1)
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    gone: list[str] = []
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        assert agent not in gone
        if term or trunc:
            if e.agents and len(e.agents) > 1 and not all(e.terminations.values()):
                assert term and not trunc and rew == pytest.approx(-1 + 2 * len(gone) / 3)
                assert e.unwrapped.snapshot()["to_move"] != e.possible_agents.index(agent)
            with pytest.raises(ValueError, match=r"only valid action is None"):
                e.unwrapped.step(0)  # raw env: only None is accepted for a dead agent
            e.step(None)
            gone.append(agent)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))
    assert sorted(gone) == sorted(e.possible_agents)


def test_illegal_action_keeps_paid_rewards() -> None:
    """OAO-43: after an elimination, an illegal action ends the game: -1 to the mover, 0 to
    the others; the eliminated player's reward stands."""
    e = env(num_players=3, starting_chips=1, first_dealer=2)
    e.reset(seed=0, options={"deck_top": ["5", "top-out", "0", "5", "5", "5"], "tiptop_top": [22]})
    for text in ("play 5", "play top-out", "play 0", "bust"):
        e.step(e.unwrapped.string_to_action(text))
    assert e.rewards["player_0"] == -1
    e.step(None)
    obs, *_ = e.last()
    mover = e.agent_selection
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert e.rewards[mover] == -1 and all(e.terminations.values())
    assert all(e.rewards[a] == 0 for a in e.agents if a != mover)
    assert [a for a in e.possible_agents if a not in e.agents] == ["player_0"]


def test_play_pile_observation_since_reshuffle() -> None:
    """OAO-32, OAO-44: the play pile counted in the observation empties at each reshuffle."""
    game = OverAndOutGame(num_players=2, deck_counts={"0": 9, "1": 3})
    state = game.new_initial_state(np.random.default_rng(0))
    for _ in range(30):
        state.apply(state.legal_actions()[0])
        obs = game.observe(state, state.current_player())
        assert obs[22:33].sum() > 0 or sum(state.play_pile) == 0
        assert len(state.draw_pile) + sum(state.play_pile) == 12 - 8
    assert NUM_KINDS == 11
