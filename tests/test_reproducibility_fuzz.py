"""Fuzzing the promise that the same seed gives the same game everywhere (``/tmp/s49/repro``).

Seeded random configurations of all four games (every variant and player count) are played
twice under conditions that must not matter, and compared exactly:

* the engine: a game continued from ``State.clone()`` or from ``to_dict()`` through JSON and
  ``from_dict()``, with fresh bots and copies of the bots' generators, plays on move for move as
  the original (the state carries its own generator: OGO-64, OTP-45, OAO-05; Octi has no chance,
  OCT-04); a bot's ``act`` leaves the state alone;
* the AEC env: ``reset(seed=s)`` after other episodes plays the game of a fresh env's
  ``reset(seed=s)``, and a later ``reset()`` continues the stream seed ``s`` started (README:
  "same seed, same game; a later env.reset() continues the stream seed 42 started");
* the single-agent view: ``reset(seed=s)`` repeats seats, opponents and deals, and its first game
  is the AEC env's ``reset(seed=s)``;
* ``PYTHONHASHSEED``: two fresh processes play the same games, bots, views and OpenSpiel deals;
* ``eightfold eval``: ``--workers`` 1, 2 and 3 give the same games, records and counts (the
  documented per-game seeds); every record replays through the env to its returns;
* OpenSpiel: the k-th initial state of ``load_game(..., rng_seed=s)`` is the engine's deal from
  ``default_rng([s, k])``, and a clone, ``serialize``/``deserialize_state`` and a pickle go on
  with the same chance;
* ``train``: the same ``--seed`` trains the same weights (``torch_threads: 1``).

The fuzzing (about 350 random configurations played through engine, env and view, 5,300 clone
and ``to_dict`` cut points in long games, 20 ``eval`` configurations run with ``--workers``
1/2/3 under four hash seeds, 15 short training runs, 24 ``play --record`` pairs, 400 OpenSpiel
games) found no break of a documented promise.
A tournament's ``mean_return`` used to differ in its last bits with ``--workers`` (the chunks'
games were averaged in another order); the means now sum exactly (``math.fsum``), and the
results are compared to the last bit.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.game import clone_rng
from envs.core.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")
BOTS = ("random", "greedy", "heuristic", "mcts:sims=4")


def random_params(name: str, rng: np.random.Generator) -> dict[str, Any]:
    """A random valid configuration of ``name`` (every variant and player count), kept short."""

    def pick(xs: list[Any]) -> Any:
        return xs[int(rng.integers(len(xs)))]

    def flag() -> bool:
        return bool(rng.integers(2))

    while True:
        if name == "octi":
            p: dict[str, Any] = dict(
                variant=pick(["basic", "x_fast", "x_classic"]),
                max_turns=pick([2, 5, 12, 30]),
                allow_reposition=flag(),
                edgeless=flag(),
                capture_to_reserve=flag(),
                repetition_draw=flag(),
            )
        elif name == "over_and_out":
            n = int(rng.integers(2, 9))
            p = dict(
                num_players=n,
                starting_chips=int(rng.integers(1, 4)),
                minus10_rule=pick(["require_10", "lose_below_zero"]),
                reward_mode=pick(["placement", "winner_only"]),
                max_plays=pick([3, 20, 80]),
                first_dealer=pick([None, *range(n)]),
            )
        elif name == "otto_game_over":
            n = int(pick([1, 2, 3, 4]))
            p = dict(
                num_players=n,
                teams=n == 4 and flag(),
                secret_cards=flag(),
                blind=flag(),
                head_in_the_clouds=flag(),
                episode=pick(["game", "match"]),
                target_score=pick([1, 4]),
                max_matches=pick([1, 2]),
                eight_lobes=pick(["round", "round_or_square"]),
            )
        else:
            p = dict(
                num_players=int(pick([1, 2, 3, 4])),
                open_game=flag(),
                simplified=flag(),
                max_steps=pick([2, 10, 60]),
            )
        try:
            GAMES[name].game_class()(**p)
        except ValueError:
            continue
        return p


def configs(seed: int, per_game: int) -> list[tuple[str, dict[str, Any], int]]:
    rng = np.random.default_rng(seed)
    return [
        (name, random_params(name, rng), int(rng.integers(2**40))) for name in NAMES for _ in range(per_game)
    ]


def _play(state: Any, bots: list[Any], rngs: list[np.random.Generator], limit: int) -> list[int]:
    moves = []
    for _ in range(limit):
        if state.is_terminal():
            break
        p = state.current_player()
        moves.append(int(bots[p].act(state, p, rngs[p])))
        state.apply(moves[-1])
    return moves


def _dump(state: Any) -> str:
    return json.dumps(state.to_dict(), sort_keys=True, default=str)


def _episode(env: Any, seed: int | None, pick_seed: int) -> list[Any]:
    env.reset(seed=seed)
    rng = np.random.default_rng([pick_seed, 1])
    trace: list[Any] = []
    for agent in env.agent_iter(max_iter=300):
        obs, reward, term, trunc, _info = env.last()
        trace.append((agent, float(reward), term, trunc, obs["observation"].tobytes()))
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append(action)
        env.step(action)
    return trace


# ------------------------------------------------------------------------------ the engine
@pytest.mark.parametrize("name", NAMES)
def test_a_cloned_or_reloaded_state_plays_on_like_the_original(name: str) -> None:
    entry = GAMES[name]
    for i, (_, params, seed) in enumerate(c for c in configs(11, 5) if c[0] == name):
        game = entry.game_class()(**params)
        spec = BOTS[i % len(BOTS)]

        def bots() -> list[Any]:
            return [make_bot(game, spec, entry.bots()) for _ in range(game.num_players)]  # noqa: B023

        rngs = [np.random.default_rng([seed, s]) for s in range(game.num_players)]
        state = game.new_initial_state(np.random.default_rng(seed))
        first = _play(state, bots(), rngs, int(seed % 25))
        clone, clone_rngs = state.clone(), [clone_rng(r) for r in rngs]
        loaded = type(state).from_dict(json.loads(json.dumps(state.to_dict())))
        loaded_rngs = [clone_rng(r) for r in rngs]
        before = _dump(state)
        players = bots()
        p = None if state.is_terminal() else state.current_player()
        if p is not None:  # a bot's act leaves the state (and its generator) alone
            players[p].act(state, p, clone_rng(rngs[p]))
            assert _dump(state) == before, (name, params, spec)
        rest = _play(state, players, rngs, 300)
        assert _play(clone, bots(), clone_rngs, 300) == rest, (name, params, seed, spec, "clone")
        assert _play(loaded, bots(), loaded_rngs, 300) == rest, (name, params, seed, spec, "to_dict")
        assert _dump(clone) == _dump(loaded) == _dump(state)
        again = game.new_initial_state(np.random.default_rng(seed))  # from scratch: the same game
        fresh_rngs = [np.random.default_rng([seed, s]) for s in range(game.num_players)]
        assert _play(again, bots(), fresh_rngs, len(first) + len(rest)) == first + rest


# ------------------------------------------------------------------------------ the AEC env
@pytest.mark.parametrize("name", NAMES)
def test_reset_with_a_seed_after_other_episodes_plays_a_fresh_envs_game(name: str) -> None:
    for _, params, seed in (c for c in configs(12, 5) if c[0] == name):
        used = GAMES[name].env(**params)
        first = _episode(used, seed, seed)
        _episode(used, seed + 1, 5)
        _episode(used, None, 6)
        assert _episode(used, seed, seed) == first, (name, params, seed)
        assert _episode(GAMES[name].env(**params), seed, seed) == first, (name, params, seed)
        # the stream seed s started: reset() after reset(seed=s) repeats too
        a, b = GAMES[name].env(**params), GAMES[name].env(**params)
        _episode(b, seed + 2, 3)
        runs = [[_episode(e, seed, 1), _episode(e, None, 2), _episode(e, None, 2)] for e in (a, b)]
        assert runs[0] == runs[1], (name, params, seed)


# ------------------------------------------------------------------------------ the single-agent view
def _view_episodes(env: Any, seed: int, episodes: int) -> list[Any]:
    rng = np.random.default_rng([seed, 7])
    trace: list[Any] = []
    obs, info = env.reset(seed=seed)
    for e in range(episodes):
        if e:
            obs, info = env.reset()
        trace.append((obs.tobytes(), env.unwrapped.seat, repr(info.get("opponents"))))
        for _ in range(200):
            action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
            obs, reward, term, trunc, info = env.step(action)
            trace.append((action, reward, term, trunc, obs.tobytes()))
            if term or trunc:
                break
    return trace


def test_the_single_agent_view_repeats_seats_opponents_and_deals() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import training  # noqa: F401  (registers eightfold/<game>-single-v0)
    from envs.core.bots import RandomBot
    from training.players import OpponentPool
    from training.single_agent import SingleAgentEnv

    opponents: list[Any] = [["random"], ["heuristic", "greedy"], {"random": 1, "mcts:sims=4": 2}]
    for i, (name, params, seed) in enumerate(configs(13, 4)):
        if params.get("num_players", 2) == 1:
            continue
        opps = opponents[i % len(opponents)]

        def make() -> Any:
            return gymnasium.make(f"eightfold/{name}-single-v0", opponents=opps, **params)  # noqa: B023

        used = make()
        first = _view_episodes(used, seed, 3)
        _view_episodes(used, seed + 1, 2)
        assert _view_episodes(used, seed, 3) == first, (name, params, seed, opps)
        assert _view_episodes(make(), seed, 3) == first, (name, params, seed, opps)
        # its first game is the AEC env's reset(seed=s), the learner in the first mover's seat
        game = GAMES[name].game_class()(**params)
        env = GAMES[name].env(**params)
        env.reset(seed=seed)
        view = SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game)))
        view.reset(seed=seed, options={"seat": env.unwrapped.state.current_player()})
        assert _dump(view.state) == _dump(env.unwrapped.state), (name, params, seed)


# ------------------------------------------------------------------------------ PYTHONHASHSEED
HASH_SCRIPT = r"""
import hashlib, json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
sys.path.insert(0, sys.argv[1])
from tests.test_reproducibility_fuzz import BOTS, configs, _episode, _play, _view_episodes
from envs.core.bots import make_bot
from envs.core.registry import GAMES

def h(x):
    return hashlib.md5(repr(x).encode()).hexdigest()

out = []
for i, (name, params, seed) in enumerate(configs(14, 2)):
    entry = GAMES[name]
    game = entry.game_class()(**params)
    spec = BOTS[i % len(BOTS)]
    bots = [make_bot(game, spec, entry.bots()) for _ in range(game.num_players)]
    rngs = [np.random.default_rng([seed, s]) for s in range(game.num_players)]
    st = game.new_initial_state(np.random.default_rng(seed))
    out.append(h((_play(st, bots, rngs, 300), list(map(float, st.returns())))))
    out.append(h(_episode(entry.env(**params), seed, seed)))
    if game.num_players > 1:
        import gymnasium, training
        view = gymnasium.make(f"eightfold/{name}-single-v0", opponents={"random": 1, "heuristic": 1, spec: 1}, **params)
        out.append(h(_view_episodes(view, seed, 2)))
    try:
        import envs.core.openspiel as eos
    except ImportError:
        continue
    if name != "octi":
        g = eos.load_game(name, **params, rng_seed=seed % 2**31)
        st = g.new_initial_state()
        out.append(h((st.observation_string(0), st.legal_actions())))
print(json.dumps(out))
"""


def test_games_bots_views_and_deals_do_not_depend_on_the_hash_seed() -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", HASH_SCRIPT, str(ROOT)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": hs},
        )
        for hs in ("1", "4242")
    ]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        outs.append(json.loads(out))
    assert len(outs[0]) >= 2 * 2 * len(NAMES)
    assert outs[0] == outs[1]


# ------------------------------------------------------------------------------ eval --workers
def _same_results(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Equal to the last bit, the means over the games and the Elo ratings included."""
    assert a["records"] == b["records"]
    assert a == b


def test_eval_plays_the_same_games_with_any_number_of_workers() -> None:
    pytest.importorskip("training.evaluate")
    from training.evaluate import run_tournament

    rng = np.random.default_rng(15)
    for name, params, seed in configs(15, 1):
        players = [BOTS[j] for j in rng.permutation(len(BOTS))[: 2 + int(rng.integers(2))]]
        mode = "all" if rng.random() < 0.4 else "first"
        games = int(rng.integers(5, 9))
        runs = [
            run_tournament(
                name, params, players, games, mode=mode, seed=seed % 10**6, workers=w, records=True
            )
            for w in (1, 2, 3)
        ]
        for other in runs[1:]:
            _same_results(runs[0], other)
        for rec in runs[0]["records"]:  # every record replays through the env to its returns
            env = GAMES[name].env(**rec["params"])
            env.reset(options=json.loads(json.dumps(rec["options"])))
            for move in rec["moves"]:
                while env.last()[2] or env.last()[3]:
                    env.step(None)  # a knocked-out seat's dead step
                env.step(env.unwrapped.string_to_action(move))
            state = env.unwrapped.state
            assert [float(x) for x in state.returns()] == rec["returns"], (name, params, rec["game"])
            assert state.is_terminal() and bool(state.is_truncated()) == rec["truncated"]


# ------------------------------------------------------------------------------ OpenSpiel
def _os_play(state: Any, seed: int) -> list[Any]:
    rng = np.random.default_rng([seed, 3])
    trace: list[Any] = []
    while not state.is_terminal() and len(trace) < 150:
        p = state.current_player()
        legal = state.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        trace.append((p, a, np.asarray(state.observation_tensor(p), dtype=np.float32).tobytes()))
        state.apply_action(a)
    return [trace, list(state.returns())]


def test_openspiel_deals_are_the_engines_and_copies_keep_them() -> None:
    pytest.importorskip("pyspiel")
    import pickle

    import envs.core.openspiel as eos

    for name, params, seed in configs(16, 4):
        if name == "octi":  # deterministic: no rng_seed
            continue
        rs = seed % 2**31
        game = eos.load_game(name, **params, rng_seed=rs)
        engine = GAMES[name].game_class()(**params)
        for k in range(3):
            state = game.new_initial_state()
            if k == 1:
                state.clone()  # a copy keeps its original's deal
                game.new_initial_state()  # dropped untouched: its number is given back
            mine = engine.new_initial_state(np.random.default_rng([rs, k]))
            rng = np.random.default_rng([rs + k, 3])
            steps = 0
            while not state.is_terminal() and steps < 150:
                p = state.current_player()
                assert np.array_equal(
                    np.asarray(state.observation_tensor(p), dtype=np.float32),
                    engine.observe(mine, p).ravel(),
                ), (name, params, rs, k)
                legal = state.legal_actions()
                assert legal == list(np.flatnonzero(mine.legal_mask()))
                a = int(legal[rng.integers(len(legal))])
                state.apply_action(a)
                mine.apply(a)
                steps += 1
            assert list(state.returns()) == [float(x) for x in mine.returns()]
        state = game.new_initial_state()
        _os_play(state.clone(), seed)  # any play of a copy leaves the original's chance alone
        copies = [state.clone(), game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state))]
        expected = _os_play(state, seed)
        for copy in copies:
            assert _os_play(copy, seed) == expected, (name, params, rs)


# ------------------------------------------------------------------------------ train --seed
def test_the_same_seed_trains_the_same_weights(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import torch

    from training.config import TrainConfig
    from training.train import train

    def run(out: Path) -> dict[str, Any]:
        cfg = TrainConfig(
            env="over_and_out",
            params={"num_players": 3},
            timesteps=128,
            seed=3,
            out=str(out),
            n_envs=2,
            opponents={"random": 1.0, "heuristic": 1.0},
            n_steps=64,
            batch_size=64,
            n_epochs=1,
            net_arch=[16, 16],
            eval_every=0,
            snapshot_every=64,
            checkpoint_every=10_000,
            progress_bar=False,
            torch_threads=1,
        )
        threads = torch.get_num_threads()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                run_dir = train(cfg)
            finally:
                torch.set_num_threads(threads)
        from sb3_contrib import MaskablePPO

        policy = MaskablePPO.load(str(run_dir / "model.zip"), device="cpu").policy
        return {k: v.numpy().tobytes() for k, v in policy.state_dict().items()}

    assert run(tmp_path / "a") == run(tmp_path / "b")


def test_a_pairings_means_do_not_depend_on_the_order_its_chunks_merge_in() -> None:
    """``eval --workers`` merges its chunks' games in chunk order; the means sum exactly, so a
    pairing split another way reports the same ``mean_return`` and ``mean_placement`` to the
    last bit (``np.mean`` of these returns differs in the last digits with their order)."""
    pytest.importorskip("training.tournament")
    from training.tournament import PairResult

    returns = [-1.0, 1 / 3, 1 / 3, 1 / 3, -1.0, 2 / 3, 1.0, -1 / 3, 0.1, 0.7] * 4
    shuffled = [returns[i] for i in np.random.default_rng(0).permutation(len(returns))]
    assert float(np.mean(shuffled)) != float(np.mean(returns))  # the case that once differed
    summaries = []
    for order in (returns, shuffled):
        merged = PairResult("a", "b")
        for k in range(3):  # three chunks
            part = PairResult("a", "b")
            for r in order[k::3]:
                part.add("win" if r > 0 else "loss", 1.0 + (r <= 0), r)
            merged.merge(part)
        summaries.append(merged.summary())
    assert summaries[0] == summaries[1]
    assert summaries[0]["mean_return"] == math.fsum(returns) / len(returns)
