"""Memory over long runs: what a training run or a research loop repeats must not make memory grow
with the number of repetitions (README, "Memory": "Beyond the env's own buffers, what it retains is
the games' module-level caches, shared by every env of a process and each bounded ... Nothing grows
with the number of games played").

Each growth test runs a seeded piece of work (reset/step over many games, envs created, rendered and
closed, the single-agent view's episodes against bots, bots' moves, MCTS included, arena matches,
notation and position round trips) for a warm-up, then for two equal phases under ``tracemalloc``,
and asserts that the second phase retains less than ``ALLOWANCE`` bytes. A leak grows with the work
done, so it shows in every phase; a cache that fills up shows in the warm-up only. The games' own
bounded caches (``lru_cache``s and memos) are emptied before each reading, so their filling (slow,
bounded, documented) does not count as retained by the phase; that they stay bounded is tested on its
own. ``test_growth_helper_sees_a_leak`` checks that the helper fails on a deliberate leak.

Two defects this round found, fixed since (2026-12-07), have tests below: Over and Out's
observation kept a 1/count table per deck composition for good (a module memo; the config holds
it now), and ``training.evaluate``'s player cache kept every version of a checkpoint rewritten
between tournaments (the stale entry is dropped now, and the cache holds 64 at most). A longer
soak of every config (25 games a phase, a greedy bot's moves mixed in) is marked ``slow``.
"""

from __future__ import annotations

import ast
import gc
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core import mcts as core_mcts
from envs.core.arena import play_match
from envs.core.bots import make_bot
from envs.core.registry import GAMES, get_game
from envs.octi import bots as octi_bots
from envs.otto_game_over import bots as ogo_bots
from envs.otto_game_over import scoring as ogo_scoring
from envs.otto_octopus import board as oto_board
from envs.over_and_out import encode as oao_encode
from envs.over_and_out import rules as oao_rules

ROOT = Path(__file__).resolve().parents[2]

#: bytes a phase may retain without a leak (numpy's small-block caches, interned strings,
#: gymnasium's one-time warnings); a leak of one observation per step over a phase exceeds it
ALLOWANCE = 32 * 1024

#: the four games with a 2-player and a larger (or other variant) config each
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("octi", {}),
    ("octi", {"variant": "x_fast"}),
    ("over_and_out", {"num_players": 2}),
    ("over_and_out", {"num_players": 8}),
    ("otto_game_over", {}),
    ("otto_game_over", {"num_players": 4, "teams": True}),
    ("otto_octopus", {"num_players": 2}),
    ("otto_octopus", {"num_players": 4}),
]
GAME_NAMES = ["octi", "over_and_out", "otto_game_over", "otto_octopus"]
LARGER = {
    "octi": {"variant": "x_fast"},
    "over_and_out": {"num_players": 5},
    "otto_game_over": {"num_players": 3},
    "otto_octopus": {"num_players": 3},
}


def _ids(config: tuple[str, dict[str, Any]]) -> str:
    name, params = config
    return name + "".join(f"-{k}={v}" for k, v in sorted(params.items()))


def _clear_bounded_caches() -> None:
    """Empty the games' bounded module caches (tested bounded in ``test_module_caches_are_bounded``)."""
    for fn in (oao_encode._hand_part, oao_encode._tiptop_part, oao_encode._seats_part, oao_rules._deck_array):
        fn.cache_clear()
    octi_bots._reach.cache_clear()
    oto_board._ARRAY_MEMO.clear()
    ogo_scoring._CACHE.clear()
    ogo_bots._SIG_BEST.clear()


def _traced() -> int:
    _clear_bounded_caches()
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _growth(work: Callable[[int], None], n: int) -> tuple[int, int, str]:
    """``work(i)`` for a warm-up of ``n`` iterations, then two phases of ``n`` under tracemalloc:
    the bytes each phase retained, and the top allocating lines of the second (for messages)."""
    for i in range(n):
        work(i)
    _clear_bounded_caches()
    gc.collect()
    tracemalloc.start(1)
    try:
        m0 = _traced()
        for i in range(n, 2 * n):
            work(i)
        m1 = _traced()
        before = tracemalloc.take_snapshot()
        for i in range(2 * n, 3 * n):
            work(i)
        m2 = _traced()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    top = "\n".join(str(s) for s in after.compare_to(before, "lineno")[:5])
    return m1 - m0, m2 - m1, top


def _assert_bounded(label: str, work: Callable[[int], None], n: int) -> None:
    a, b, top = _growth(work, n)
    assert b < ALLOWANCE, (
        f"{label}: the phase after the warm-up retained {a} B and the next equal phase {b} B "
        f"(allowed {ALLOWANCE}); largest growth:\n{top}"
    )


def _play(env: Any, rng: np.random.Generator, max_steps: int) -> None:
    """Random legal moves through the AEC loop (dead steps included) for at most ``max_steps``."""
    for steps, _agent in enumerate(env.agent_iter()):
        if steps >= max_steps:
            return
        obs, _reward, term, trunc, _info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_growth_helper_sees_a_leak() -> None:
    """Guards the helper itself: work that keeps 2 KiB an iteration fails the assertion."""
    kept: list[bytes] = []
    with pytest.raises(AssertionError, match="retained"):
        _assert_bounded("deliberate leak", lambda i: kept.append(bytes(2048) + bytes([i % 256])), 40)


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_reset_and_step_do_not_grow(config: tuple[str, dict[str, Any]]) -> None:
    """One env reset and stepped over many seeded games (a training run's loop) keeps no memory per game."""
    name, params = config
    env = get_game(name).env(**params)
    rng = np.random.default_rng(11)

    def work(i: int) -> None:
        env.reset(seed=i)
        _play(env, rng, 60)

    _assert_bounded(f"{name} {params} reset/step", work, 3)
    env.close()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
def test_creating_rendering_and_closing_envs_do_not_grow(name: str, render_mode: str | None) -> None:
    """Envs created, played a little, rendered and closed in a loop (research code) leave nothing behind:
    ``close()`` keeps no image, font or figure alive."""
    rng = np.random.default_rng(12)
    params = LARGER[name]

    def work(i: int) -> None:
        env = get_game(name).env(render_mode=render_mode, **params)
        env.reset(seed=i)
        _play(env, rng, 6)
        if render_mode is not None:
            env.render()
        env.close()

    _assert_bounded(f"{name} create/{render_mode}/close", work, 2 if render_mode == "rgb_array" else 4)


@pytest.mark.parametrize(
    ("name", "params", "opponents"),
    [
        ("octi", {}, ["greedy"]),
        ("over_and_out", {"num_players": 4}, ["heuristic", "random"]),
        ("otto_game_over", {"num_players": 2}, ["random"]),
        ("otto_octopus", {"num_players": 3}, ["mcts:sims=3", "greedy"]),
    ],
)
def test_single_agent_view_episodes_do_not_grow(
    name: str, params: dict[str, Any], opponents: list[str]
) -> None:
    """The Gymnasium single-agent view (``training/single_agent.py``) over many episodes against bot
    opponents keeps no memory per episode."""
    from training.single_agent import make_env

    env = make_env(name, opponents=opponents, **params)
    rng = np.random.default_rng(13)

    def work(i: int) -> None:
        env.reset(seed=i)
        for _ in range(30):
            _obs, _r, term, trunc, _info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if term or trunc:
                break

    _assert_bounded(f"view {name} {opponents}", work, 2)
    env.close()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("spec", ["heuristic", "mcts:sims=4"])
def test_bot_moves_do_not_grow(name: str, spec: str) -> None:
    """A bot choosing move after move over several games (every bot kind; MCTS's tree freed after each
    move) keeps no memory per move."""
    entry = get_game(name)
    game = entry.game_class()(**LARGER[name])
    bot = make_bot(game, spec, entry.bots())
    rng = np.random.default_rng(14)
    held: dict[str, Any] = {"state": None}

    def work(i: int) -> None:
        state = held["state"]
        if state is None or state.is_terminal():
            state = held["state"] = game.new_initial_state(np.random.default_rng(i))
        for _ in range(2):
            if state.is_terminal():
                break
            p = state.current_player()
            state.apply(bot.act(state, p, rng))

    _assert_bounded(f"{name} {spec}", work, 2)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_mcts_keeps_no_tree_after_its_move(name: str) -> None:
    """``mcts``'s search tree is freed once its move is chosen: no tree node is alive after ``act``."""
    entry = get_game(name)
    game = entry.game_class()()
    bot = make_bot(game, "mcts:sims=12", entry.bots())
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(3):
        if state.is_terminal():
            break
        state.apply(bot.act(state, state.current_player(), rng))
        gc.collect()
        alive = sum(1 for o in gc.get_objects() if type(o) is core_mcts._Node)
        assert alive == 0, f"{name}: {alive} MCTS nodes alive after act"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_arena_matches_do_not_grow(name: str) -> None:
    """``envs.core.arena.play_match`` called again and again (a baseline sweep) keeps nothing per match."""
    entry = get_game(name)
    game = entry.game_class()(**LARGER[name])
    bots = [make_bot(game, "random", entry.bots()) for _ in range(game.num_players)]
    _assert_bounded(f"{name} play_match", lambda i: play_match(game, bots, games=1, seed=i), 2)


@pytest.mark.parametrize("config", CONFIGS[::2], ids=_ids)
def test_notation_and_positions_do_not_grow(config: tuple[str, dict[str, Any]]) -> None:
    """Notation (``action_to_string``/``string_to_action`` of every legal move), ``snapshot()``, the
    ``to_dict``/``from_dict`` round trip and a reset to ``{"state": ...}`` repeated along games keep nothing."""
    name, params = config
    env = get_game(name).env(**params)
    raw = env.unwrapped
    rng = np.random.default_rng(15)
    env.reset(seed=0)

    def work(i: int) -> None:
        if not env.agents:
            env.reset(seed=i)
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            return
        legal = np.flatnonzero(obs["action_mask"])
        for a in legal[:12]:
            assert raw.string_to_action(raw.action_to_string(int(a))) == int(a)
        raw.snapshot()
        d = raw.state.to_dict()
        type(raw.state).from_dict(d)
        if i % 10 == 0:
            env.reset(options={"state": d})
        env.step(int(rng.choice(legal)))

    _assert_bounded(f"{name} notation/positions", work, 20)
    env.close()


def test_module_caches_are_bounded() -> None:
    """Every ``lru_cache`` in ``envs/`` and ``training/`` has a finite size; unbounded ``functools.cache``
    only where the key set is a handful of parameters (Octi's action layout per board); Otto the
    Octopus's mask memo clears itself at its ceiling; OTTO Game Over's outcome memo stays within its
    documented key set (1296 signatures x 8 designs x 2)."""
    unbounded_ok = {("envs/octi/actions.py", "layout")}
    for path in sorted([*ROOT.glob("envs/**/*.py"), *ROOT.glob("training/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                dname = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if dname == "cache" or (dname == "lru_cache" and not isinstance(dec, ast.Call)):
                    assert (rel, node.name) in unbounded_ok, (
                        f"{rel}:{node.lineno} {node.name}: unbounded cache"
                    )
                elif dname == "lru_cache":
                    size = {k.arg: k.value for k in dec.keywords}.get(
                        "maxsize", dec.args[0] if dec.args else None
                    )
                    assert isinstance(size, ast.Constant) and isinstance(size.value, int), (
                        f"{rel}:{node.lineno} {node.name}: lru_cache without a finite maxsize"
                    )
    for bits in range(1, 6000):
        oto_board._memo_array(bits << 7)
    assert len(oto_board._ARRAY_MEMO) <= 4097
    oto_board._ARRAY_MEMO.clear()
    env = get_game("otto_game_over").env()
    env.reset(seed=3)
    _play(env, np.random.default_rng(3), 200)
    assert len(ogo_scoring._CACHE) <= 1296 * 8 * 2
    assert len(ogo_bots._SIG_BEST) <= 1296 * 2


def test_deck_count_sweep_does_not_grow() -> None:
    """A research sweep (or domain randomisation) building games with ever new ``deck_counts`` must not
    keep memory per composition once its games are dropped: the README promises module caches that are
    each bounded. Each composition's 1/count table is kept forever (about 550 B each)."""
    from envs.over_and_out.config import TOKENS
    from envs.over_and_out.game import OverAndOutGame

    rng = np.random.default_rng(16)

    def work(i: int) -> None:
        for _ in range(50):
            counts = {t: int(rng.integers(1, 9)) for t in TOKENS}
            game = OverAndOutGame(num_players=2, deck_counts=counts)
            game.observe(game.new_initial_state(np.random.default_rng(i)), 0)

    _assert_bounded("over_and_out deck_counts sweep", work, 3)


def test_tournaments_of_a_rewritten_checkpoint_do_not_grow(tmp_path: Path) -> None:
    """A notebook or script that trains, saves ``model.zip`` and runs ``run_tournament`` on it in turn
    must not keep every earlier version of the model: the docstring says a rewritten file "is played
    anew, not from the cache", but the stale entry stays in the cache forever."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from envs.core.bots import RandomBot
    from envs.over_and_out.game import OverAndOutGame
    from training.evaluate import run_tournament
    from training.players import OpponentPool, PolicyPlayer
    from training.policies import MaskedPolicy
    from training.single_agent import SingleAgentEnv

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        game = OverAndOutGame(num_players=2)
        model = MaskablePPO(
            MaskedPolicy, SingleAgentEnv(game, OpponentPool(fallback=RandomBot(game))), seed=0, n_steps=64
        )
        path = tmp_path / "model.zip"
        for i in range(3):
            model.save(path)  # the periodic checkpoint, rewritten in place
            os.utime(path, ns=(10**9 * (i + 1), 10**9 * (i + 1)))  # a new mtime even on a coarse clock
            run_tournament("over_and_out", {"num_players": 2}, [str(path), "random"], games=2, workers=1)
        gc.collect()
        # this checkpoint's players only: earlier tests' tournaments may hold others in the cache
        alive = sum(1 for o in gc.get_objects() if type(o) is PolicyPlayer and o.name == str(path))
        assert alive <= 1, f"{alive} loaded versions of one checkpoint kept after its 3 tournaments"
    finally:
        torch.set_num_threads(threads)


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_soak_reset_step_and_bots(config: tuple[str, dict[str, Any]]) -> None:
    """Soak (slow): 25 games a phase per config through ``env()``, every other move a greedy bot's, up to
    400 steps a game; the second phase must retain no more than the fast tests allow."""
    name, params = config
    entry = get_game(name)
    env = entry.env(**params)
    bot = make_bot(env.unwrapped.game, "greedy", entry.bots())
    rng = np.random.default_rng(17)

    def work(i: int) -> None:
        env.reset(seed=i)
        for steps, _agent in enumerate(env.agent_iter()):
            if steps >= 400:
                return
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            elif steps % 2:
                state = env.unwrapped.state
                env.step(bot.act(state, state.current_player(), rng))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    _assert_bounded(f"soak {name} {params}", work, 25)
    env.close()


def test_registry_lists_the_four_games() -> None:
    """Guards the parametrisation above: it covers every registered game."""
    assert sorted(GAMES) == sorted(GAME_NAMES)
