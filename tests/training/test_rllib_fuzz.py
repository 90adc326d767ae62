"""Seeded fuzzing of the RLlib multi-agent env (``training.rllib.env.EightfoldMultiAgentEnv``)
against the AEC env (``env()``) and the engine, over every game's test configurations, with
self-play (shared, frozen), bot opponents and weighted mixes.

Each episode plays random legal actions (now and then an illegal one) and replays every move,
the bots' included, in ``env()`` started from the same engine state (reset option ``"state"``)
with the engine's generator set as the RLlib env's was before each move (the env shares one
generator between the game's chance and its bots). Checked against the module docstring:

* exactly one agent is asked to act (non-zero mask), the seat the engine moves; ids are
  ``player_<seat>``, or ``frozen_<seat>`` for all seats but the learner in frozen self-play;
* its observation is the AEC observation of that seat flattened, its mask the AEC mask as
  float32; every observation lies in the agent's space;
* per-agent reward sums equal the AEC env's cumulative rewards of those seats (only the learning
  seat against a bot); terminated / truncated per agent match the AEC env at every step
  (knock-outs, OAO-41; truncation limits, OCT-45 and Over and Out's ``max_plays``, section 5);
* ``__all__`` is set exactly at the end; an illegal action ends the episode as ``env()`` does
  (OCT-48, OAO-43, OGO-63, OTP-44: the mover -1, other learners 0, all terminated);
* the same seed gives the same episode.

The tests at the end state the correct behaviour of three defects this fuzzing found (fixed
since). Skipped without the ``rllib`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from envs.core.game import clone_rng  # noqa: E402
from envs.core.registry import GAMES, installed_games  # noqa: E402
from training.rllib.env import EightfoldMultiAgentEnv  # noqa: E402

OPPONENTS: list[dict[str, Any]] = [
    {"opponents": "self", "self_play": "shared"},
    {"opponents": "self", "self_play": "frozen"},
    {"opponents": "random"},
    {"opponents": "heuristic"},
    {"opponents": {"self": 1.0, "greedy": 2.0}, "self_play": "frozen"},
    {"opponents": "random,self"},
    {"opponents": {"mcts:sims=4": 1.0, "self": 1.0}, "self_play": "shared"},
]


def _record(env: EightfoldMultiAgentEnv) -> dict[str, Any]:
    """Each episode's first engine state, and every bot move with the engine's generator just
    before it is applied (the bots draw from the generator the state deals from)."""
    rec: dict[str, Any] = {"init": None, "moves": []}
    deal = env.game.new_initial_state

    def new_initial_state(rng: Any, options: Any = None) -> Any:
        state = deal(rng, options)
        rec["init"], rec["moves"] = state.to_dict(), []
        return state

    env.game.new_initial_state = new_initial_state  # type: ignore[method-assign]
    for bot in env._bots.values():

        def act(state: Any, seat: int, rng: Any, _act: Any = bot.act) -> int:
            action = int(_act(state, seat, rng))
            rec["moves"].append((seat, action, clone_rng(state.rng)))
            return action

        bot.act = act
    return rec


class _Mirror:
    """``env()`` replaying the moves; reward sums as PettingZoo's ``last()`` hands them out."""

    def __init__(self, name: str, params: dict[str, Any], init: dict[str, Any]) -> None:
        self.env = GAMES[name].env(**params)
        self.env.reset(options={"state": init})
        self.raw = self.env.unwrapped
        self.totals: dict[str, float] = {}
        self.final: dict[str, str] = {}

    def drain(self) -> None:
        while self.env.agents:
            agent = self.env.agent_selection
            _, reward, term, trunc, _ = self.env.last()
            if not (term or trunc):
                return
            self.totals[agent] = self.totals.get(agent, 0.0) + reward
            self.final[agent] = "both" if term and trunc else ("term" if term else "trunc")
            self.env.step(None)

    def play(self, seat: int, action: int, rng: Any = None) -> None:
        self.drain()
        agent = self.env.agent_selection
        assert agent == self.raw.possible_agents[seat], f"AEC selects {agent}, the move is seat {seat}'s"
        if rng is not None:
            self.raw.state.rng = clone_rng(rng)
        self.totals[agent] = self.totals.get(agent, 0.0) + self.env.last()[1]
        self.env.step(action)

    def done(self, seat: int) -> str | None:
        agent = self.raw.possible_agents[seat]
        if agent not in self.raw.agents:
            return self.final.get(agent, "term")
        if self.raw.terminations[agent]:
            return "term"
        return "trunc" if self.raw.truncations[agent] else None


def _flat(obs: Any) -> np.ndarray:
    return np.asarray(obs, dtype=np.float32).reshape(-1)


def _episode(
    name: str, params: dict[str, Any], config: dict[str, Any], seed: int, stats: dict[str, int]
) -> tuple[list[tuple[int, int]], dict[str, float]]:
    """One checked episode; its moves and per-agent reward sums."""
    env = EightfoldMultiAgentEnv({"game": name, "params": params, **config})
    rec = _record(env)
    rng = np.random.default_rng(seed + 1000)
    obs, _ = env.reset(seed=seed)
    n = env.game.num_players
    mirror = _Mirror(name, params, rec["init"])
    names = [env.agent_id(s) for s in range(n)]
    learners = {names[s] for s in env._learners}
    if config.get("self_play") == "frozen" and len(learners) == n:
        assert sum(a.startswith("player_") for a in names) == 1, names
        assert all(a in (f"player_{s}", f"frozen_{s}") for s, a in enumerate(names)), names
    else:
        assert names == [f"player_{s}" for s in range(n)], names
    moves: list[tuple[int, int]] = []
    for seat, action, state_rng in rec["moves"]:  # the bots' moves inside reset
        mirror.play(seat, action, state_rng)
        moves.append((seat, action))
    totals: dict[str, float] = {}
    done: dict[str, str] = {}
    illegal = False
    for _ in range(20_000):
        for agent, o in obs.items():
            assert env.observation_spaces[agent].contains(o), agent
            assert o["action_mask"].dtype == np.float32
        to_act = [a for a, o in obs.items() if o["action_mask"].any()]
        assert len(to_act) == 1, f"exactly one agent asked to act, got {to_act}"
        (agent,) = to_act
        seat = names.index(agent)
        assert env.state.current_player() == seat
        mirror.drain()
        assert mirror.env.agent_selection == mirror.raw.possible_agents[seat]
        for other, o in obs.items():
            aec = mirror.raw.observe(mirror.raw.possible_agents[names.index(other)])
            np.testing.assert_array_equal(o["observations"], _flat(aec["observation"]), err_msg=other)
        aec_mask = mirror.raw.observe(mirror.raw.possible_agents[seat])["action_mask"]
        np.testing.assert_array_equal(obs[agent]["action_mask"], aec_mask.astype(np.float32))
        mask = obs[agent]["action_mask"]
        if rng.random() < 0.02 and not mask.all():
            action, illegal = int(rng.choice(np.flatnonzero(mask == 0))), True
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        rec["moves"] = [(seat, action, clone_rng(env.state.rng))]
        obs, rewards, terms, truncs, _ = env.step({agent: action})
        for s, a, state_rng in rec["moves"]:
            mirror.play(s, a, None if illegal else state_rng)
            moves.append((s, a))
        assert set(rewards) <= learners and set(obs) <= learners
        assert not (set(obs) | set(rewards)) & set(done), "an agent reappeared after it was done"
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        for a in (set(terms) | set(truncs)) - {"__all__"}:
            assert a in learners and a in obs and not (terms.get(a) and truncs.get(a)), a
            done[a] = "term" if terms.get(a) else "trunc"
        if not illegal:
            for a in learners:
                kind = mirror.done(names.index(a))
                assert done.get(a) == kind, f"{a}: {done.get(a)} here, {kind} in the AEC env"
        end = terms["__all__"] or truncs["__all__"]
        assert end == (illegal or env.state.is_terminal()), "__all__ set exactly at the end"
        if done and not end:
            stats["knocked_out"] += 1
        if end:
            assert not (terms["__all__"] and truncs["__all__"]) and set(done) == learners
            if illegal:
                assert set(done.values()) == {"term"} and rewards[agent] == -1.0
                assert all(r == 0.0 for a, r in rewards.items() if a != agent)
                stats["illegal"] += 1
            elif truncs["__all__"]:
                stats["truncated"] += 1
            break
    else:
        pytest.fail("the episode did not end")
    mirror.drain()
    assert not mirror.env.agents
    for a in learners:
        expected = mirror.totals.get(mirror.raw.possible_agents[names.index(a)], 0.0)
        assert totals.get(a, 0.0) == pytest.approx(expected, abs=1e-9), a
    stats["episodes"] += 1
    return moves, totals


@pytest.mark.parametrize("name", installed_games())
def test_the_rllib_env_plays_as_the_aec_env(name: str) -> None:
    """Every test configuration of the game against each opponent setting in turn (three seeds,
    the first replayed in a fresh env to check that the seed repeats the episode)."""
    stats = dict.fromkeys(("episodes", "illegal", "truncated", "knocked_out"), 0)
    for i, params in enumerate(GAMES[name].game_class().test_configs):
        for seed in (i, i + 50, i + 100):
            config = OPPONENTS[(i + seed) % len(OPPONENTS)]
            moves, totals = _episode(name, dict(params), config, seed, stats)
            if seed == i:
                assert _episode(name, dict(params), config, seed, stats) == (moves, totals)
    assert stats["episodes"] >= 3 * len(GAMES[name].game_class().test_configs)


def test_the_fuzz_reaches_truncation_knock_outs_and_illegal_ends() -> None:
    """The fuzz above is not vacuous: over these configurations it truncates (Over and Out's
    ``max_plays``), knocks seats out mid-game (OAO-41) and ends on illegal actions (OAO-43)."""
    stats = dict.fromkeys(("episodes", "illegal", "truncated", "knocked_out"), 0)
    for seed in range(6):
        for config in OPPONENTS[:2]:
            _episode("over_and_out", {"num_players": 3, "max_plays": 40}, config, seed, stats)
            _episode("over_and_out", {"num_players": 5, "starting_chips": 1}, config, seed, stats)
    for seed in range(12):
        _episode("otto_octopus", {"max_steps": 25}, OPPONENTS[seed % 3], seed, stats)
    assert stats["truncated"] and stats["knocked_out"] and stats["illegal"], stats


# ------------------------------------------------------------------ defects, fixed
def _finished(config: dict[str, Any]) -> tuple[EightfoldMultiAgentEnv, str, int]:
    """An env whose episode has just ended by the rules (random legal play, seed 0)."""
    env = EightfoldMultiAgentEnv(config)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    while True:
        agent = next(a for a, o in obs.items() if o["action_mask"].any())
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, _, terms, truncs, _ = env.step({agent: action})
        if terms["__all__"] or truncs["__all__"]:
            return env, agent, action


def test_a_step_after_the_end_says_the_episode_is_over() -> None:
    env, last_mover, action = _finished({"game": "over_and_out", "params": {"num_players": 2}})
    assert last_mover == "player_0"  # the seat the message names is another
    with pytest.raises(ValueError, match="call reset") as info:
        env.step({last_mover: action})
    assert "the agent to act" not in str(info.value)


def _state_with_a_seat_knocked_out() -> dict[str, Any]:
    """Over and Out, 5 players, 1 chip each: a position after seat 1 was knocked out (OAO-41)."""
    game = GAMES["over_and_out"].game_class()(num_players=5, starting_chips=1)
    rng = np.random.default_rng(0)
    state = game.new_initial_state(np.random.default_rng(0))
    while not state.eliminated():
        state.apply(int(rng.choice(state.legal_actions())))
    assert not state.is_terminal() and state.eliminated() == {1} and state.returns()[1] == -1.0
    return state.to_dict()


def test_a_state_reset_does_not_pay_what_was_paid_before() -> None:
    d = _state_with_a_seat_knocked_out()
    params = {"num_players": 5, "starting_chips": 1}
    env = EightfoldMultiAgentEnv({"game": "over_and_out", "params": params})
    aec = GAMES["over_and_out"].env(**params)
    obs, _ = env.reset(seed=0, options={"state": d})
    aec.reset(options={"state": d})
    assert "player_1" not in aec.agents
    (agent,) = obs
    action = int(np.flatnonzero(obs[agent]["action_mask"])[0])
    _, rewards, terms, _, _ = env.step({agent: action})
    aec.step(action)
    assert "player_1" not in rewards and "player_1" not in terms
    assert rewards == {a: r for a, r in aec.rewards.items() if r != 0.0 or a == agent}


def test_a_finished_state_is_refused_by_name() -> None:
    env, _, _ = _finished({"game": "over_and_out", "params": {"num_players": 2}})
    d = env.state.to_dict()
    fresh = EightfoldMultiAgentEnv({"game": "over_and_out", "params": {"num_players": 2}})
    with pytest.raises(ValueError, match="state") as info:
        fresh.reset(seed=0, options={"state": d})
    assert "bots" not in str(info.value)
