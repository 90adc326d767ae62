"""Pins from a mutation round over the isolation / ecosystem changes (``envs.core.aec``'s fresh
info dicts and per-agent spaces, ``make_env_factory``'s picklable ``env``, OTTO Game Over's
read-only symmetry arrays, the RLlib env's per-agent spaces, the single-agent view's
``info["opponents"]`` and the Gymnasium entry point ``ViewOf``).

Each test fails under a planted change that the suite did not notice before:

* the AEC env hands out a new info dict per agent at every step, dead steps included, for the
  games with no infos (``{}``) as for the others, and ``infos`` names exactly the live agents;
* ``envs.<game>_v0.env`` is a module-level function of ``envs.<game>.env`` by its name
  ``env``, so ``pickle`` round-trips it to the very same object;
* every array of OTTO Game Over's ``symmetries()`` is read-only (``envs.core.game.Symmetry``:
  "read-only where a game shares them between its objects");
* the RLlib env's frozen self-play agents have spaces of their own, apart from the seats';
* ``eightfold/<game>-single-v0``'s entry point (a ``ViewOf``) carries the view's metadata,
  builds its own game when called without ``game``, accepts its own game by any of its names,
  refuses another game with a message naming the right id, lets an unknown name raise the
  registry's error, and has a ``repr`` naming its class and game; the ids keep their
  ``kwargs``.

The last test pins the defect this round found, fixed since: a callable entry point made
Gymnasium's ``EnvSpec.to_json()`` raise for the made views (the ids name a string now).
"""

from __future__ import annotations

import pickle
import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import training  # noqa: F401  (registers eightfold/<game>-single-v0)
from envs.core.registry import GAMES
from training.single_agent import SingleAgentEnv, ViewOf

TWO_PLAYERS: dict[str, dict[str, Any]] = {
    "octi": {},
    "over_and_out": {"num_players": 2},
    "otto_game_over": {"num_players": 2},
    "otto_octopus": {"num_players": 2},
}


def _aec(name: str, **params: Any) -> Any:
    return GAMES[name].env(**params)


def _first_legal(env: Any) -> int | None:
    obs, _r, term, trunc, _info = env.last()
    if term or trunc:
        return None
    return int(np.flatnonzero(obs["action_mask"])[0])


# ------------------------------------------------------------------------------ AEC infos


@pytest.mark.parametrize("name", ["octi", "over_and_out"])
def test_games_without_infos_hand_each_agent_a_dict_of_its_own(name: str) -> None:
    """Changing the info dict ``last()`` gave the mover leaves every other agent's ``{}``."""
    env = _aec(name, **TWO_PLAYERS[name])
    env.reset(seed=0)
    for _ in range(6):
        raw = env.unwrapped
        mover = raw.agent_selection
        env.last()[4]["mine"] = 1
        assert all(raw.infos[a] == {} for a in raw.agents if a != mover)
        env.step(_first_legal(env))


@pytest.mark.parametrize(("name", "params"), [("octi", {}), ("otto_octopus", {"num_players": 2})])
def test_dead_steps_hand_out_new_info_dicts(name: str, params: dict[str, Any]) -> None:
    """Played to the end, then dead steps: a dict scribbled on before a dead step never comes
    back after it (the agents still to take theirs get the game's infos afresh)."""
    env, twin = _aec(name, **params), _aec(name, **params)
    env.reset(seed=3)
    twin.reset(seed=3)
    dead_steps = 0
    for _ in range(2000):
        if not env.unwrapped.agents:
            break
        action = _first_legal(env)
        if action is None:  # a dead step comes next: scribble on what was handed out
            dead_steps += 1
            env.last()[4]["junk"] = 1
            for info in env.unwrapped.infos.values():
                info["junk"] = 1
        env.step(action)
        twin.step(action)
        assert env.unwrapped.infos == twin.unwrapped.infos
        assert all("junk" not in info for info in env.unwrapped.infos.values())
    assert dead_steps == 2 and not env.unwrapped.agents


def test_infos_name_exactly_the_live_agents_through_the_dead_steps() -> None:
    """PettingZoo's AEC API: ``infos`` is keyed by ``agents`` (an agent leaves both at its dead
    step), also in a game that adds infos."""
    env = _aec("otto_octopus", num_players=3)
    env.reset(seed=1)
    for _ in range(3000):
        raw = env.unwrapped
        assert set(raw.infos) == set(raw.agents)
        if not raw.agents:
            break
        env.step(_first_legal(env))
    assert not env.unwrapped.agents


# ------------------------------------------------------------------------- env() factories


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_env_factory_pickles_by_reference(name: str) -> None:
    module = __import__(f"envs.{name}_v0", fromlist=["env"])
    factory = module.env
    assert (factory.__module__, factory.__qualname__, factory.__name__) == (f"envs.{name}.env", "env", "env")
    assert pickle.loads(pickle.dumps(factory)) is factory


# ----------------------------------------------------------------------- OTTO symmetries


def test_otto_game_over_symmetry_arrays_are_read_only() -> None:
    """OGO-04 (the board is symmetrical): the three turns ``symmetries()`` shares between every
    game object are read-only ``int64`` permutations, composed as turns compose."""
    syms = GAMES["otto_game_over"].game_class()(num_players=3).symmetries()
    assert [s.name for s in syms] == ["quarter turn clockwise", "half turn", "quarter turn anticlockwise"]
    for sym in syms:
        for arr in (sym.obs_index, sym.action_index):
            assert arr.dtype == np.int64 and not arr.flags.writeable
            with pytest.raises(ValueError, match="read-only"):
                arr[0] = arr[1]
    # the half turn is the quarter turn done twice, the anticlockwise turn three times
    q, h, a = syms
    assert np.array_equal(h.action_index, q.action_index[q.action_index])
    assert np.array_equal(a.obs_index, h.obs_index[q.obs_index])


# ------------------------------------------------------------------------------ RLlib env


def test_the_rllib_frozen_agents_have_spaces_of_their_own() -> None:
    """Self-play ``frozen``: seeding or sampling a frozen copy's spaces (or another seat's)
    leaves ``player_0``'s samples as they were."""
    pytest.importorskip("ray")
    from training.rllib.env import EightfoldMultiAgentEnv

    def sample_player_0(touch: str | None) -> tuple[bytes, bytes, int]:
        env = EightfoldMultiAgentEnv({"game": "octi", "self_play": "frozen"})
        assert env.possible_agents == ["player_0", "player_1", "frozen_0", "frozen_1"]
        obs, act = env.observation_spaces["player_0"], env.action_spaces["player_0"]
        obs.seed(7)
        act.seed(7)
        if touch is not None:
            for space in (env.observation_spaces[touch], env.action_spaces[touch]):
                space.seed(999)
                space.sample()
        sample = obs.sample()
        return sample["observations"].tobytes(), sample["action_mask"].tobytes(), int(act.sample())

    alone = sample_player_0(None)
    for other in ("frozen_0", "frozen_1", "player_1"):
        assert sample_player_0(other) == alone, other


# --------------------------------------------------------------- the Gymnasium entry point


def test_the_ids_entry_points_are_view_ofs_with_the_views_metadata() -> None:
    """Each id's entry point is the string ``training.single_agent:view_of_<game>`` (so its
    spec stays JSON), which resolves to that game's ``ViewOf``."""
    from gymnasium.envs.registration import load_env_creator

    import training.single_agent as single_agent

    for name in GAMES:
        spec = gym.spec(f"eightfold/{name}-single-v0")
        assert spec.entry_point == f"training.single_agent:view_of_{name}"
        view = load_env_creator(spec.entry_point)
        assert isinstance(view, ViewOf) and view.game == name
        assert spec.kwargs == {"game": name}
        assert repr(view) == f"training.single_agent.ViewOf({name!r})"
        assert view.metadata == SingleAgentEnv.metadata
    with pytest.raises(AttributeError, match="has no attribute 'view_of_chess'"):
        _ = single_agent.view_of_chess
    assert SingleAgentEnv.metadata == {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}


def test_a_view_of_called_without_game_builds_its_own_game() -> None:
    env = ViewOf("otto_octopus")(num_players=2, opponents=["greedy"])
    assert isinstance(env, SingleAgentEnv) and env.game.name == "otto_octopus"
    assert env.game.num_players == 2


@pytest.mark.parametrize("same", ["octi", "eightfold/octi-v0", "octi_v0", "envs.octi_v0"])
def test_the_id_accepts_its_own_game_by_any_of_its_names(same: str) -> None:
    env = gym.make("eightfold/octi-single-v0", game=same)
    assert env.unwrapped.game.name == "octi"


@pytest.mark.parametrize(
    ("view", "other", "right"),
    [
        ("octi", "over_and_out", "over_and_out"),
        ("otto_octopus", "eightfold/otto_game_over-v0", "otto_game_over"),
    ],
)
def test_the_id_refuses_another_game_naming_the_right_id(view: str, other: str, right: str) -> None:
    message = (
        f"game: eightfold/{view}-single-v0 is the view of {view}, got game={other!r}; "
        f"use eightfold/{right}-single-v0"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        gym.make(f"eightfold/{view}-single-v0", game=other, **TWO_PLAYERS[view])
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ViewOf(view)(game=other)


def test_an_unknown_game_keyword_raises_the_registrys_error() -> None:
    known = re.escape(str(sorted(GAMES)))
    with pytest.raises(ValueError, match=rf"^unknown game 'chess'; known: {known}$"):
        gym.make("eightfold/octi-single-v0", game="chess")


def test_the_made_views_spec_converts_to_json() -> None:
    """Gymnasium's ``EnvSpec.to_json``: "Converts the environment spec into a json compatible
    string" (dataset tools store ``env.spec`` so); every keyword here is JSON."""
    import json

    env = gym.make("eightfold/octi-single-v0", opponents=["greedy"])
    assert json.loads(env.spec.to_json())["kwargs"] == {"game": "octi", "opponents": ["greedy"]}


def test_a_wrapper_writing_into_an_envs_metadata_leaves_the_others_alone() -> None:
    """PettingZoo's ``CaptureStdoutWrapper`` appends ``"ansi"`` to its env's render modes, and
    Gymnasium 1.1-1.2's vector envs write ``autoreset_mode`` into their first env's metadata: each env
    and view has a metadata dict (and render-mode list) of its own, so no other one changes."""
    from pettingzoo.utils.wrappers import CaptureStdoutWrapper

    from envs.octi.env import raw_env

    before = {**raw_env.metadata, "render_modes": list(raw_env.metadata["render_modes"])}
    CaptureStdoutWrapper(raw_env(render_mode="human"))
    assert raw_env.metadata == before and raw_env().metadata == before
    venv = gym.make_vec("eightfold/octi-single-v0", num_envs=2, vectorization_mode="sync")
    first, second = (e.unwrapped for e in venv.unwrapped.envs)
    # gymnasium 1.1-1.2 write it there themselves; 1.0 has no modes and 1.4 writes it elsewhere
    first.metadata.setdefault("autoreset_mode", "written into the first env's dict")
    assert "autoreset_mode" not in SingleAgentEnv.metadata and "autoreset_mode" not in second.metadata
    venv.close()
