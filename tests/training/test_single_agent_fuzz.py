"""Seeded fuzz of the single-agent Gymnasium view (``training/single_agent.py``, README
"Training your own MaskablePPO"): configs x opponent specs x seats x reset options, random
legal learner moves; plus one test per defect this fuzzing found, each fixed (2026-12-07;
non-finite and numpy ``shaping``/``gamma`` are in ``tests/core/test_params_fuzz.py``)."""

from __future__ import annotations

import importlib
import math
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import training  # noqa: F401  (registers eightfold/<game>-single-v0)
from envs.core.registry import get_game
from tests.training.sa_checks import play_episode, random_view
from training.single_agent import SingleAgentEnv, make_env

GAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")

#: (game, params) covering player counts, teams (2v2) and solo
CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("octi", {}),
    ("octi", {"variant": "x_fast", "max_turns": 40}),
    ("over_and_out", {"num_players": 2}),
    ("over_and_out", {"num_players": 5, "starting_chips": 1}),
    ("over_and_out", {"num_players": 3, "reward_mode": "winner_only"}),
    ("over_and_out", {"num_players": 3, "max_plays": 30}),
    ("otto_game_over", {"episode": "match"}),
    ("otto_game_over", {"num_players": 4, "teams": True, "target_score": 6}),
    ("otto_game_over", {"num_players": 1}),
    ("otto_octopus", {}),
    ("otto_octopus", {"num_players": 1}),
    ("otto_octopus", {"num_players": 4, "open_game": True, "simplified": True}),
)

OPPONENTS: tuple[Any, ...] = (
    None,
    ["heuristic"],
    {"random": 1, "heuristic": 2},
    ["random", "random", "greedy"],
)


def _masks(env: Any) -> np.ndarray:
    return np.asarray(env.get_wrapper_attr("action_masks")())


def _episode(
    env: Any, seed: int, options: dict[str, Any] | None = None
) -> tuple[list[bytes], list[float], int, dict[str, Any]]:
    """One seeded episode with random legal moves, checking the contract at every step."""
    u: SingleAgentEnv = env.unwrapped
    obs, info = env.reset(seed=seed, options=options)
    assert u.observation_space.contains(obs)
    rng = np.random.default_rng(seed)
    trace, rewards = [obs.tobytes()], []
    for _ in range(u.game.max_game_length + 1):
        mask = _masks(env)
        assert mask.dtype == bool and mask.shape == (u.game.num_actions,) and mask.any()
        legal = np.flatnonzero(mask)
        obs, r, term, trunc, info = env.step(int(legal[rng.integers(legal.size)]))
        assert u.observation_space.contains(obs)
        assert isinstance(r, float) and math.isfinite(r)
        trace.append(obs.tobytes())
        rewards.append(r)
        if term or trunc:
            state = u.state
            final = float(state.returns()[u.seat])
            assert not (term and trunc)
            assert abs(sum(rewards) - final) < 1e-9  # the learner's own return
            assert info["return"] == final and info["seat"] == u.seat
            assert info["outcome"] in ("win", "draw", "loss")
            if trunc:
                assert state.is_terminal() and state.is_truncated()
            if term and not u._team <= state.eliminated():
                assert state.is_terminal() and not state.is_truncated()
            with pytest.raises(RuntimeError, match="reset"):
                env.step(int(legal[0]))
            return trace, rewards, u.seat, info
    raise AssertionError("the episode did not end within max_game_length")


def _make(game: str, by_id: bool, kw: dict[str, Any]) -> Any:
    """The view through ``gymnasium.make`` (its registered id) or ``make_env``."""
    return gymnasium.make(f"eightfold/{game}-single-v0", **kw) if by_id else make_env(game, **kw)


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=[f"{g}-{p}" for g, p in CONFIGS])
def test_fuzz_random_play_keeps_the_contract_and_reproduces(game: str, params: dict[str, Any]) -> None:
    n = get_game(game).game_class()(**params).num_players
    cases = 0
    for i, opp in enumerate(OPPONENTS if n > 1 else (None,)):
        for seat in (None, 0, n - 1):
            kw: dict[str, Any] = dict(params)
            if opp is not None:
                kw["opponents"] = opp
            if seat is not None:
                kw["seat"] = seat
            seed = 17 * i + (seat or 0) + 3
            by_id = (i + (seat or 0)) % 2 == 0
            first = _episode(_make(game, by_id, kw), seed)
            assert _episode(_make(game, not by_id, kw), seed)[:3] == first[:3]  # same seed, same episode
            if seat is not None:
                assert first[2] == seat
            cases += 1
    assert cases >= 1


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_state_option_round_trips_from_random_positions(game: str) -> None:
    """``{"state": to_dict(), "seat": s}``: an episode starts there (the rewards sum to the
    return), or a ValueError names the option when the learner's seat cannot move there."""
    cls = get_game(game).game_class()
    starts = ran = 0
    for params in cls.test_configs[:4]:
        g = cls(**params)
        for k in range(4):
            rng = np.random.default_rng(k)
            st = g.new_initial_state(np.random.default_rng(k))
            for _ in range(int(rng.integers(0, 40))):
                if st.is_terminal():
                    break
                legal = np.flatnonzero(st.legal_mask())
                st.apply(int(legal[rng.integers(legal.size)]))
            d = st.to_dict()
            for seat in range(g.num_players):
                opts = {"state": d, "seat": seat}
                ran += 1
                try:
                    out = _episode(make_env(game, **params), k, opts)
                except ValueError as err:
                    assert "'state'" in str(err)
                    continue
                assert not st.is_terminal() and seat not in st.eliminated()
                assert _episode(make_env(game, **params), k, opts)[:3] == out[:3]
                assert st.to_dict() == d  # the option dict is not consumed
                starts += 1
    assert ran > 0 and starts > 0


def _aec_identity(game: str, params: dict[str, Any], options: dict[str, Any], seed: int, seat: int) -> None:
    g = get_game(game).game_class()(**params)
    log: list[tuple[int, int]] = []
    view = random_view(g, log)
    out = play_episode(
        view, np.random.default_rng(seed + 1), log, seed=seed, options={**options, "seat": seat}
    )
    raw = importlib.import_module(f"envs.{game}_v0").raw_env(**params)
    raw.reset(seed=seed, options=options or None)
    decisions = iter(out["seen"])
    for mover, action in log:
        while raw.agents and (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            raw.step(None)
        assert raw.agent_selection == raw.possible_agents[mover]
        if mover == seat:
            obs, mask = next(decisions)
            got = raw.observe(raw.possible_agents[seat])
            np.testing.assert_array_equal(got["observation"], obs)
            np.testing.assert_array_equal(got["action_mask"], mask)
        raw.step(action)
    assert next(decisions, None) is None
    np.testing.assert_array_equal(raw.state.returns(), view.state.returns())


@pytest.mark.parametrize(
    ("game", "params", "options"),
    [
        ("octi", {}, {}),
        ("octi", {}, {"moves": ["prong c2 N"]}),
        ("over_and_out", {"num_players": 3}, {}),
        ("over_and_out", {"num_players": 3}, {"deck_top": ["5", "0", "x2"], "tiptop_top": [33]}),
        ("otto_game_over", {"episode": "match"}, {}),
        ("otto_octopus", {"num_players": 3}, {}),
    ],
)
def test_fuzz_first_game_of_a_seed_is_the_aec_envs(
    game: str, params: dict[str, Any], options: dict[str, Any]
) -> None:
    """Module docstring: "the first game of reset(seed=s) is dealt exactly like the AEC env's
    reset(seed=s)"; observations and masks are the AEC env's for the same moves."""
    n = get_game(game).game_class()(**params).num_players
    for seed in range(3):
        _aec_identity(game, params, options, seed, seed % n)


BAD_CONSTRUCTION: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("octi", {"opponents": "random"}, "opponents"),
    ("octi", {"opponents": []}, "empty"),
    ("octi", {"opponents": ["nosuchbot"]}, "nosuchbot"),
    ("octi", {"opponents": {"random": 0}}, "weight"),
    ("octi", {"opponents": {"random": float("nan")}}, "weight"),
    ("octi", {"opponents": ["mcts:sims=0"]}, "sims"),
    ("octi", {"opponents": ["mcts:bogus=1"]}, "bogus"),
    ("octi", {"seat": 2}, "seat"),
    ("octi", {"seat": True}, "seat"),
    ("octi", {"partner": "random"}, "partner"),
    ("otto_game_over", {"num_players": 1, "opponents": ["random"]}, "opponents"),
    ("otto_game_over", {"num_players": 4, "teams": True, "partner": "self"}, "partner"),
    ("octi", {"gamma": 0}, "gamma"),
    ("octi", {"shaping": -1}, "shaping"),
    ("octi", {"illegal_reward": float("nan")}, "illegal_reward"),
    ("octi", {"render_mode": "bogus"}, "render_mode"),
    ("over_and_out", {"num_players": 99}, "num_players"),
)


@pytest.mark.parametrize(("game", "kw", "name"), BAD_CONSTRUCTION)
def test_fuzz_bad_specs_raise_value_error_naming_them(game: str, kw: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        make_env(game, **kw)
    with pytest.raises(ValueError, match=name):
        gymnasium.make(f"eightfold/{game}-single-v0", **kw)


BAD_OPTIONS: tuple[tuple[str, Any, str], ...] = (
    ("octi", {"bogus": 1}, r"bogus.*'seat'"),
    ("octi", {"seat": -1}, "seat"),
    ("octi", {"seat": 1.0}, "seat"),
    ("octi", [("seat", 0)], "options"),
    ("octi", {"state": 5}, "'state'"),
    ("octi", {"state": {}}, "'state'"),
    ("octi", {"moves": "a1"}, "moves"),
    ("octi", {"moves": ["zz"]}, "moves"),
    ("octi", {"position": 3}, "position"),
    ("over_and_out", {"deck_top": ["x"]}, "deck_top"),
    ("over_and_out", {"tiptop_top": [99]}, "tiptop_top"),
    ("over_and_out", {"position": {}}, "position"),
    ("otto_game_over", {"moves": []}, "moves"),
    ("otto_octopus", {"position": 7}, "position"),
)


@pytest.mark.parametrize(("game", "options", "name"), BAD_OPTIONS)
def test_fuzz_bad_reset_options_raise_value_error_naming_them(game: str, options: Any, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        make_env(game).reset(seed=0, options=options)


def test_fuzz_actions_out_of_range_raise_and_illegal_ones_end_the_episode() -> None:
    """Module docstring: a masked-out move ends the episode with ``illegal_reward`` as its
    return (``info["illegal_action"]``); an index outside ``[0, num_actions)`` (or no integer)
    raises ``ValueError``."""
    for k, game in enumerate(GAMES):
        env = make_env(game)
        n = env.game.num_actions
        for bad in (-1, n, 2**70, 1.0, True, "0", None, np.array([0, 1]), np.array([0.0])):
            env.reset(seed=k)
            with pytest.raises(ValueError, match="action"):
                env.step(bad)
        for r in (-1.0, -3.5):
            env = make_env(game, illegal_reward=r)
            env.reset(seed=k)
            illegal = np.flatnonzero(~env.action_masks())
            assert illegal.size
            _, reward, term, trunc, info = env.step(int(illegal[0]))
            assert (reward, term, trunc) == (r, True, False)
            assert info["illegal_action"] is True and info["return"] == r and info["outcome"] == "loss"


def test_fuzz_a_knocked_out_learner_is_placed_behind_the_rivals_still_in() -> None:
    """Module docstring: a learner knocked out while others play on (Over and Out, 3+ players;
    OAO-41) ends its episode: outcome loss, placement 1 + the rivals still playing."""
    seen = 0
    for seed in range(40):
        env = make_env("over_and_out", num_players=5, starting_chips=1, seat=seed % 5)
        _, _, seat, info = _episode(env, seed)
        st = env.state
        if not st.is_terminal():
            assert seat in st.eliminated()
            assert info["outcome"] == "loss"
            assert info["placement"] == 1 + sum(1 for s in range(5) if s not in st.eliminated())
            seen += 1
    assert seen > 0


@pytest.mark.parametrize(
    ("game", "kw"),
    [
        ("octi", {}),
        ("over_and_out", {"num_players": 2}),
        ("otto_game_over", {"num_players": 4, "teams": True, "target_score": 6, "partner": "heuristic"}),
        ("otto_octopus", {"num_players": 1}),
    ],
)
def test_fuzz_gymnasium_env_checker(game: str, kw: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(make_env(game, render_mode="ansi", **kw), skip_render_check=False)


# ----------------------------------------------------------------------------- defects


OAO_S12 = {"num_players": 4, "first_dealer": 3, "starting_chips": 1, "max_plays": 5}
OAO_S12_OPTIONS = {"deck_top": ["5", "top-out", "0", "0", "5", "5", "5", "5"], "tiptop_top": [22]}


def test_a_learner_knocked_out_on_the_truncating_step_is_terminated_oao_s12() -> None:
    """OAO-S12 (rules §5, §AEC binding order: "set terminations True for an eliminated agent";
    truncation is "for all remaining agents"): player_0's bust is the 5th play, eliminating it
    and truncating the game. The AEC env terminates player_0; the view must too (a knocked-out
    seat has no future to bootstrap). The view reported it truncated."""
    env = make_env("over_and_out", seat=0, **OAO_S12)
    env.reset(seed=0, options=OAO_S12_OPTIONS)
    while True:
        _, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if term or trunc:
            break
    assert 0 in env.state.eliminated() and env.state.is_truncated()
    assert (term, trunc) == (True, False)


def test_an_unknown_keyword_names_the_views_keywords_too() -> None:
    """README: the id's "keywords are the opponents' specs ..., seat, partner, shaping and the
    game's parameters"; a misspelt ``oponents`` was told only the game Config's list."""
    with pytest.raises(
        ValueError,
        match=r"^unknown keyword\(s\) \['oponents'\] for the single-agent view of octi; the view's: "
        r"\['opponents', 'seat', 'partner', 'shaping', 'gamma', 'illegal_reward', 'render_mode'\]; "
        r"the game's parameters: \['allow_reposition', ",
    ):
        gymnasium.make("eightfold/octi-single-v0", oponents=["heuristic"])
