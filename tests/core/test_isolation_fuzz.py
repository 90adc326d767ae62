"""Isolation between envs, engine states, bots and seeds living in one process (a research
script, a vectorised trainer): a bounded, seeded fuzz of the contract, then the tests of the
defects it found, fixed since: info dicts handed out were the env's stored ones (a caller's change
came back), every agent's observation space held one shared ``Box`` (and the RLlib env shared
whole spaces), and OTTO Game Over's ``symmetries()`` handed out its module's writeable arrays.

Contract fuzzed:

1. interleaving: envs of different games / configs / seeds stepped in a random interleaving give
   the same observations, masks, rewards, infos, ansi renders and notation strings as each run
   alone (in this process, and in a fresh one that built the configs in another order);
2. no aliasing: mutating in place what ``observe()``, ``last()``, ``snapshot()``,
   ``state.to_dict()``, ``state.legal_mask()`` and ``render()`` return changes nothing later
   (README: "``last()`` and ``observe()`` return new arrays at every call, safe to store and to
   modify"); nor does mutating a reset option after the reset;
3. ``state.clone()`` and ``from_dict(to_dict())`` are independent of the original, generator
   and nested containers included (``GameState.clone``: "A deep, independent copy (the
   generator included)"; Octi's repetition history, OCT-52, is such a container);
4. bots (random, greedy, heuristic, MCTS) leave the state they are given as it was, and two
   instances with the same ``rng`` seed choose alike whatever either did before;
5. module-level caches give the same results whatever order configs were first built in.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.registry import GAMES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    (name, dict(p)) for name, g in GAMES.items() for p in g.game_class().test_configs
]


# ----------------------------------------------------------------------------- helpers
def _canon(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return ("nd", str(x.dtype), x.shape, hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest())
    if isinstance(x, dict):
        return ("d", tuple((repr(k), _canon(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_canon(v) for v in x))
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return ("np", type(x).__name__, x.item())
    return ("o", repr(x))


def _digest(x: Any) -> str:
    return hashlib.sha1(repr(_canon(x)).encode()).hexdigest()[:16]


def _mutate(x: Any, depth: int = 0) -> None:
    """Scribble over every array, list and dict reachable from ``x``, in place."""
    if depth > 8:
        return
    if isinstance(x, np.ndarray):
        if x.flags.writeable and x.size:
            if x.dtype.kind == "f":
                x[...] = 0.625
            elif x.dtype.kind in "iu":
                x[...] = 1 - x
            elif x.dtype.kind == "b":
                x[...] = ~x
    elif isinstance(x, list):
        for v in x:
            _mutate(v, depth + 1)
        for i, v in enumerate(x):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                x[i] = v + 3
        x.append(99)
    elif isinstance(x, dict):
        for v in list(x.values()):
            _mutate(v, depth + 1)
        for k, v in list(x.items()):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                x[k] = v + 3
        x["__junk__"] = [1]
    elif isinstance(x, tuple):
        for v in x:
            _mutate(v, depth + 1)


def _make(name: str, params: dict[str, Any]) -> Any:
    return GAMES[name].env(render_mode="ansi", **params)


def _record(env: Any, with_infos: bool = True) -> str:
    """Everything observable after a step, as one digest (changes nothing)."""
    raw = env.unwrapped
    rec: list[Any] = [
        list(raw.agents),
        raw.agent_selection,
        [raw.observe(a) for a in raw.possible_agents],
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        env.render(),
        raw.snapshot(),
        raw.state.to_dict(),
    ]
    if raw.agents:
        obs, rew, term, trunc, info = env.last()
        rec.append((obs, rew, term, trunc, info if with_infos else None))
    if with_infos:
        rec.append(raw.infos)
    return _digest(rec)


def _choose(env: Any, rng: np.random.Generator) -> tuple[Any, Any]:
    raw = env.unwrapped
    agent = raw.agent_selection
    if raw.terminations[agent] or raw.truncations[agent]:
        return None, None
    legal = np.flatnonzero(raw.observe(agent)["action_mask"])
    action = int(legal[rng.integers(legal.size)])
    text = raw.action_to_string(action)
    assert raw.string_to_action(text) == action
    return action, text


def _play(env: Any, seed: int, pseed: int, max_steps: int, episodes: int):
    """Generator: the digest of every step of a seeded random-policy run (unseeded resets after
    the first continue the seed's stream)."""
    env.reset(seed=seed)
    rng = np.random.default_rng([pseed, 7])
    yield _record(env)
    ep = 1
    for _ in range(max_steps):
        if not env.unwrapped.agents:
            if ep >= episodes:
                return
            ep += 1
            env.reset()
            yield _record(env) + "reset"
            continue
        action, text = _choose(env, rng)
        env.step(action)
        yield _record(env) + repr((action, text))


def _solo(job: tuple[str, dict[str, Any], int, int, int, int]) -> list[str]:
    name, params, seed, pseed, max_steps, episodes = job
    return list(_play(_make(name, params), seed, pseed, max_steps, episodes))


def _jobs(master: np.random.Generator, k: int, max_steps: int) -> list[tuple[Any, ...]]:
    picks = [CONFIGS[i] for i in master.choice(len(CONFIGS), size=k)]
    return [
        (
            n,
            p,
            int(master.integers(2**31)),
            int(master.integers(2**31)),
            max_steps,
            int(master.integers(1, 3)),
        )
        for n, p in picks
    ]


def _state_json(st: Any) -> str:
    return json.dumps(st.to_dict(), sort_keys=True, default=repr)


def _random_moves(st: Any, rng: np.random.Generator, k: int) -> None:
    for _ in range(k):
        if st.is_terminal():
            return
        legal = st.legal_actions()
        st.apply(int(legal[rng.integers(len(legal))]))


def _observations(game: Any, st: Any) -> list[str]:
    return [_digest(game.observe(st, s)) for s in range(game.num_players)]


# ------------------------------------------------------------------ (1) interleaving
@pytest.mark.parametrize("fuzz_seed", [0, 1, 2])
def test_interleaved_envs_match_solo_runs(fuzz_seed: int) -> None:
    master = np.random.default_rng([fuzz_seed, 50])
    jobs = _jobs(master, 8, 60)
    gens = [_play(_make(n, p), s, ps, m, e) for n, p, s, ps, m, e in jobs]
    traces: list[list[str]] = [[] for _ in jobs]
    live = list(range(len(jobs)))
    while live:
        i = live[int(master.integers(len(live)))]
        try:
            traces[i].append(next(gens[i]))
        except StopIteration:
            live.remove(i)
    for job, trace in zip(jobs, traces, strict=True):
        assert trace == _solo(job), f"interleaved run differs from the solo run: {job[:4]}"


# ---------------------------------------------- (5) module caches, build order, fresh process
_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {root!r})
from tests.core import test_isolation_fuzz as t
spec = json.loads(sys.stdin.read())
for name, params in spec["warm"]:  # build (and play a little) every config first, in this order
    for _ in t._play(t._make(name, params), 123, 456, 12, 1):
        pass
print(json.dumps([t._solo(tuple(j)) for j in spec["jobs"]]))
"""


def test_fresh_process_with_configs_built_in_reverse_order_gives_the_same_runs() -> None:
    master = np.random.default_rng(5050)
    # every config once, the variants first in the child (module caches keyed by config)
    jobs = [(n, p, int(master.integers(2**31)), int(master.integers(2**31)), 25, 1) for n, p in CONFIGS]
    env = dict(os.environ, PYTHONHASHSEED="4321")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(root=ROOT)],
        input=json.dumps({"warm": CONFIGS[::-1], "jobs": jobs}),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    theirs = json.loads(out.stdout)
    for job, trace in zip(jobs, theirs, strict=True):
        assert trace == _solo(job), f"run differs in a fresh process built in another order: {job[:3]}"


# ------------------------------------------------------------------------ (2) aliasing
_POKES = ("observe", "last_observation", "snapshot", "to_dict", "state_legal_mask", "render")


def _poke(env: Any, what: str) -> None:
    raw = env.unwrapped
    if what == "observe":
        for a in raw.possible_agents:
            _mutate(raw.observe(a))
    elif what == "last_observation" and raw.agents:
        _mutate(env.last()[0])
    elif what == "snapshot":
        _mutate(raw.snapshot())
    elif what == "to_dict":
        _mutate(raw.state.to_dict())
    elif what == "state_legal_mask":
        _mutate(raw.state.legal_mask())
    elif what == "render":
        _mutate(env.render())


@pytest.mark.parametrize("what", _POKES)
def test_mutating_returned_values_changes_nothing_later(what: str) -> None:
    master = np.random.default_rng([_POKES.index(what), 2])
    for name, params in CONFIGS[:: 2 if what != "observe" else 1]:
        seed = int(master.integers(2**31))
        a, b = _make(name, params), _make(name, params)
        a.reset(seed=seed)
        b.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for step in range(40):
            assert _record(a, with_infos=False) == _record(b, with_infos=False), (name, params, what, step)
            if not b.unwrapped.agents:
                break
            _poke(a, what)
            action, _ = _choose(b, rng)
            b.step(action)
            a.step(action)


def test_mutating_a_reset_option_after_the_reset_changes_nothing() -> None:
    rng = np.random.default_rng(77)
    for name, params in CONFIGS[::3]:
        src = _make(name, params)
        src.reset(seed=3)
        for _ in range(int(rng.integers(0, 12))):
            if not src.unwrapped.agents:
                break
            src.step(_choose(src, rng)[0])
        if not src.unwrapped.agents or src.unwrapped.state.is_terminal():
            continue
        options = {"state": src.unwrapped.state.to_dict()}
        if name != "over_and_out":
            options = {"position": src.unwrapped.snapshot()} if rng.random() < 0.5 else options
        a, b = _make(name, params), _make(name, params)
        mine = copy.deepcopy(options)
        a.reset(seed=9, options=mine)
        b.reset(seed=9, options=copy.deepcopy(options))
        _mutate(mine)
        for _ in range(20):
            assert _record(a) == _record(b), (name, params, sorted(options))
            if not b.unwrapped.agents:
                break
            action, _ = _choose(b, rng)
            a.step(action)
            b.step(action)


def test_seeding_one_envs_spaces_does_not_change_another_envs_sampling() -> None:
    for g in GAMES.values():
        params = dict(g.game_class().test_configs[0])
        x, y, z = (g.env(**params) for _ in range(3))
        for e in (x, y, z):
            e.reset(seed=0)
        agent = x.possible_agents[0]
        for e in (y, z):
            e.action_space(agent).seed(5)
            e.observation_space(agent).seed(5)
        x.action_space(agent).seed(123)  # the other env's spaces: seeded and drawn from
        x.observation_space(agent).seed(123)
        x.action_space(agent).sample()
        x.observation_space(agent).sample()
        assert [y.action_space(agent).sample() for _ in range(5)] == [
            z.action_space(agent).sample() for _ in range(5)
        ]
        assert _digest(y.observation_space(agent).sample()) == _digest(z.observation_space(agent).sample())


# ------------------------------------------------------------------------ (3) clones
@pytest.mark.parametrize("name_params", CONFIGS, ids=lambda c: f"{c[0]}-{json.dumps(c[1], sort_keys=True)}")
def test_clone_and_dict_round_trip_are_independent(name_params: tuple[str, dict[str, Any]]) -> None:
    name, params = name_params
    game = GAMES[name].game_class()(**params)
    master = np.random.default_rng([len(CONFIGS), CONFIGS.index(name_params)])
    for _ in range(2):
        seed = int(master.integers(2**31))
        rng = np.random.default_rng(seed)
        st = game.new_initial_state(np.random.default_rng(seed + 1))
        _random_moves(st, rng, int(rng.integers(0, 60)))
        if rng.random() < 0.5:  # warm the observation / mask caches first
            _observations(game, st)
            st.legal_mask()
        before, seen = _state_json(st), _observations(game, st)
        for kind in ("clone", "from_dict"):
            copy_ = st.clone() if kind == "clone" else type(st).from_dict(st.to_dict())
            assert _state_json(copy_) == before and _observations(game, copy_) == seen, kind
            # moves and draws on the copy leave the original alone
            _random_moves(copy_, np.random.default_rng([seed, 1]), 20)
            copy_.rng.random(3)
            assert _state_json(st) == before and _observations(game, st) == seen, kind
            # ... and the copy went exactly where a fresh restore goes (same chance)
            ref = type(st).from_dict(json.loads(before))
            _random_moves(ref, np.random.default_rng([seed, 1]), 20)
            ref.rng.random(3)
            assert _state_json(ref) == _state_json(copy_), kind
        # moves and draws on the original leave earlier copies alone
        c, d = st.clone(), type(st).from_dict(st.to_dict())
        src = json.loads(before)
        e = type(st).from_dict(src)
        _mutate(src)  # from_dict keeps no reference into its input
        _random_moves(st, np.random.default_rng([seed, 2]), 20)
        st.rng.random(5)
        for x in (c, d, e):
            assert _state_json(x) == before and _observations(game, x) == seen


# -------------------------------------------------------------------------- (4) bots
_BOT_SPECS = ("random", "greedy", "heuristic", "mcts:sims=6")


def _start(game: Any, rng: np.random.Generator) -> Any:
    while True:
        st = game.new_initial_state(np.random.default_rng(int(rng.integers(2**31))))
        _random_moves(st, rng, int(rng.integers(0, 40)))
        if not st.is_terminal():
            return st


@pytest.mark.parametrize("name", list(GAMES))
def test_bots_leave_the_state_alone_and_share_no_choice_changing_cache(name: str) -> None:
    table = GAMES[name].bots()
    configs = [p for n, p in CONFIGS if n == name]
    master = np.random.default_rng([7, len(name)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for params in configs[::2]:
            game = GAMES[name].game_class()(**params)
            for spec in _BOT_SPECS:
                seed = int(master.integers(2**31))
                rng = np.random.default_rng(seed)
                st = _start(game, rng)
                before, seen = _state_json(st), _observations(game, st)
                mask = st.legal_mask().tobytes()
                player = st.current_player()
                first, other = make_bot(game, spec, table), make_bot(game, spec, table)
                a1 = first.act(st, player, np.random.default_rng([seed, 9]))
                assert _state_json(st) == before, (name, params, spec, "act mutated the state")
                assert _observations(game, st) == seen and st.legal_mask().tobytes() == mask
                for _ in range(2):  # both instances play other positions in between
                    o = _start(game, rng)
                    other.act(o, o.current_player(), np.random.default_rng(int(rng.integers(2**31))))
                    first.act(o, o.current_player(), np.random.default_rng(int(rng.integers(2**31))))
                for bot in (other, first, make_bot(game, spec, table)):
                    fresh = type(st).from_dict(json.loads(before))
                    assert bot.act(fresh, player, np.random.default_rng([seed, 9])) == a1, (
                        name,
                        params,
                        spec,
                    )


# ============================================================================ defects
def _play_to_end_mutating_infos(name: str, params: dict[str, Any]) -> None:
    """Twin envs, same seed and moves; in ``a`` every info dict handed out (``last()`` and
    ``infos``) is scribbled over. What ``b`` shows must be what ``a`` shows."""
    a, b = _make(name, params), _make(name, params)
    a.reset(seed=4)
    b.reset(seed=4)
    rng = np.random.default_rng(4)
    for step in range(400):
        if not b.unwrapped.agents:
            return
        assert a.last()[4] == b.last()[4], f"step {step}: a mutated info dict came back"
        assert a.unwrapped.infos == b.unwrapped.infos, f"step {step}: a mutated info dict came back"
        _mutate(a.last()[4])
        for info in a.unwrapped.infos.values():
            _mutate(info)
        action, _ = _choose(b, rng)
        a.step(action)
        b.step(action)


@pytest.mark.parametrize(
    "name, params",
    [
        ("octi", {}),
        ("over_and_out", {"num_players": 2}),
        ("otto_game_over", {"episode": "match"}),
        ("otto_octopus", {}),
    ],
)
def test_mutating_an_info_dict_does_not_change_later_infos(name: str, params: dict[str, Any]) -> None:
    _play_to_end_mutating_infos(name, params)


@pytest.mark.parametrize("name", list(GAMES))
def test_one_agents_observation_space_seed_does_not_change_another_agents_sampling(name: str) -> None:
    params = {"num_players": 2} if name != "octi" else {}

    def sample_player_1(touch_player_0: bool) -> str:
        env = GAMES[name].env(**params)
        env.reset(seed=0)
        env.observation_space("player_1").seed(7)
        if touch_player_0:
            env.observation_space("player_0").seed(999)
            env.observation_space("player_0").sample()
        return _digest(env.observation_space("player_1").sample())

    assert sample_player_1(False) == sample_player_1(True)


def test_mutating_returned_symmetries_does_not_change_another_games_symmetries() -> None:
    cls = GAMES["otto_game_over"].game_class()
    keep = [(s.obs_index.copy(), s.action_index.copy()) for s in cls().symmetries()]
    for sym in cls(num_players=3).symmetries():
        try:
            sym.obs_index[:2] = sym.obs_index[1::-1]  # e.g. an in-place augmentation
            sym.action_index[:] = np.arange(sym.action_index.size)
        except ValueError:  # read-only arrays are a fix too
            pass
    try:
        now = [(s.obs_index, s.action_index) for s in cls().symmetries()]
        assert all(
            np.array_equal(o, ko) and np.array_equal(a, ka)
            for (o, a), (ko, ka) in zip(now, keep, strict=True)
        )
    finally:  # leave the process's tables as they were for the other tests
        from envs.otto_game_over import encode

        for sym, (o, a) in zip(encode.SYMMETRIES, keep, strict=True):
            if sym.obs_index.flags.writeable:
                sym.obs_index[:] = o
                sym.action_index[:] = a


@pytest.mark.parametrize("name", ["octi", "otto_octopus"])
def test_the_rllib_envs_agents_have_spaces_of_their_own(name: str) -> None:
    """The RLlib env as ``env()``: seeding or sampling ``player_0``'s observation or action
    space leaves ``player_1``'s samples as they were."""
    pytest.importorskip("ray")
    from training.rllib.env import EightfoldMultiAgentEnv

    def sample_player_1(touch_player_0: bool) -> tuple[str, int]:
        env = EightfoldMultiAgentEnv({"game": name})
        obs, act = env.observation_spaces["player_1"], env.action_spaces["player_1"]
        obs.seed(7)
        act.seed(7)
        if touch_player_0:
            for space in (env.observation_spaces["player_0"], env.action_spaces["player_0"]):
                space.seed(999)
                space.sample()
        return _digest(obs.sample()), int(act.sample())

    assert sample_player_1(False) == sample_player_1(True)
