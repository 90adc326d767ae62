"""Bad input to the training layer's Python entry points, second round: ``--options @<dir>`` and
``--config <dir>``, the warm start's ``fit``, ``Demonstrations.of``, ``symmetry_tables`` and
``concat``, the position helpers, and the benchmark functions. Each is a ``ValueError`` naming
the parameter, what it got and what is allowed, raised by the call that takes it (not an errno,
an ``AttributeError``, NaN losses or a silent change of behaviour deeper down).
(The second misuse audit of 2026-12-07, findings 1, 6, 7, 8, 10 and 12.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from envs.core.registry import GAMES
from training.pretrain import Demonstrations, concat, fit, symmetry_tables

N, A = 20, 10


def _policy(obs_dim: int = 4, num_actions: int = A) -> Any:
    """A fresh small ``MaskableActorCriticPolicy``."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    space = gym.spaces.Box(-1.0, 1.0, (obs_dim,), np.float32)
    return MaskableActorCriticPolicy(space, gym.spaces.Discrete(num_actions), lambda _: 1e-3, net_arch=[8])


def _arrays(n: int = N, obs_dim: int = 4, num_actions: int = A) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    obs = rng.random((n, obs_dim)).astype(np.float32)
    masks = np.ones((n, num_actions), dtype=bool)
    actions = rng.integers(num_actions, size=n)
    return obs, masks, actions, rng.normal(size=n).astype(np.float32)


def _demos(n: int = N, obs_dim: int = 4, num_actions: int = A) -> Demonstrations:
    obs, masks, actions, returns = _arrays(n, obs_dim, num_actions)
    return Demonstrations.of(obs, masks, actions, returns, 1)


# ------------------------------------------------------------------ 1: a directory as a file
def test_options_at_a_directory_or_at_nothing_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--options @<dir>`` and a bare ``--options @`` exit 2 with one line naming the option and
    the path; they exited 1 with ``[Errno 21] Is a directory`` (``'.'`` for the bare ``@``)."""
    from training.cli import main
    from training.position import parse_reset_options

    png = str(tmp_path / "x.png")
    assert main(["render", "octi", "--out", png, "--options", f"@{tmp_path}"]) == 2
    assert capsys.readouterr().err == (
        f"eightfold render: error: --options file {str(tmp_path)!r} is a directory; give a JSON file\n"
    )
    assert main(["render", "octi", "--out", png, "--options", "@"]) == 2
    assert capsys.readouterr().err == (
        "eightfold render: error: --options '@' names no file; give @path of a JSON file\n"
    )
    with pytest.raises(ValueError, match=r"is a directory; give a JSON file"):
        parse_reset_options(f"@{tmp_path}")


def test_config_that_is_a_directory_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train --config <dir>`` exits 2 naming ``--config`` and the path, and ``read_yaml(<dir>)``
    is a ``ValueError``; they were exit 1 with ``[Errno 21] Is a directory`` and an
    ``IsADirectoryError``."""
    from training.cli import main
    from training.config import read_yaml

    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "cfgs"
    folder.mkdir()
    assert main(["train", "over_and_out", "--config", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"eightfold train: error: --config {str(folder)!r} is a directory; give a YAML file\n"
    )
    with pytest.raises(ValueError, match=r"config file '.*cfgs' is a directory; give a YAML file"):
        read_yaml(folder)
    assert main(["train", "over_and_out", "--config", ""]) == 2
    assert capsys.readouterr().err == "eightfold train: error: --config '' names no file; give a YAML file\n"


# ------------------------------------------------------------------ 6: fit
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": -1}, r"fit: batch_size must be an int >= 1, got -1"),
        ({"batch_size": 0}, r"fit: batch_size must be an int >= 1, got 0"),
        ({"batch_size": 8.0}, r"fit: batch_size must be an int >= 1, got 8\.0"),
        ({"epochs": -1}, r"fit: epochs must be an int >= 0, got -1"),
        ({"seed": -1}, r"fit: seed must be an int >= 0, got -1"),
        ({"holdout": 1.5}, r"fit: holdout must be a number in \[0, 1\) .*got 1\.5"),
        ({"holdout": -0.5}, r"fit: holdout must be a number in \[0, 1\) .*got -0\.5"),
        ({"holdout": 1.0}, r"fit: holdout must be a number in \[0, 1\) .*got 1\.0"),
        ({"learning_rate": -1}, r"fit: learning_rate must be a finite number > 0 or None, got -1"),
        ({"learning_rate": float("nan")}, r"fit: learning_rate must be a finite number > 0 or None, got nan"),
        ({"learning_rate": "1e-3"}, r"fit: learning_rate must be a finite number > 0 or None, got '1e-3'"),
    ],
)
def test_fit_refuses_impossible_arguments_by_name(kwargs: dict[str, Any], message: str) -> None:
    """Each impossible ``fit`` argument is a ``ValueError`` naming it, and the policy is left
    untouched. Before: batch_size -1 and holdout 1.5 trained to NaN losses, epochs -1 did nothing,
    learning_rate -1 climbed the loss, holdout -0.5 was an ``IndexError``, batch_size 0 a
    ``range()`` error, seed -1 numpy's own."""
    policy = _policy()
    before = [p.detach().clone() for p in policy.parameters()]
    args: dict[str, Any] = {"epochs": 1, "batch_size": 8, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        fit(policy, _demos(), vf_coef=0.5, max_grad_norm=0.5, **args)
    assert all(torch.equal(a, b) for a, b in zip(before, policy.parameters(), strict=True))


def test_fit_refuses_an_empty_dataset_and_a_holdout_that_keeps_everything() -> None:
    """No decisions to fit on is an error naming it: an empty ``Demonstrations`` trained to NaN
    losses, and a holdout that rounds to every decision (0.96 of 11) did the same."""
    policy = _policy()
    empty = Demonstrations.of(*(a[:0] for a in _arrays()), 0)
    with pytest.raises(ValueError, match=r"fit: demos is empty \(0 decisions\); nothing to fit"):
        fit(policy, empty, 1, 8, 0.5, 0.5, 0)
    with pytest.raises(ValueError, match=r"fit: holdout 0\.96 keeps all 11 decisions out of training"):
        fit(policy, _demos(11), 1, 8, 0.5, 0.5, 0, holdout=0.96)


def test_fit_points_a_maskableppo_model_to_its_policy() -> None:
    """Passing the ``MaskablePPO`` model itself names ``model.policy``; it was an
    ``AttributeError: 'MaskablePPO' object has no attribute 'optimizer'``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tests.training.test_pretrain import _cfg
    from training.train import build_single_env

    cfg = _cfg()
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: build_single_env(cfg)[0]]), device="cpu")
    shape = model.observation_space.shape
    assert shape is not None
    demos = _demos(obs_dim=int(np.prod(shape)), num_actions=int(model.action_space.n))  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"fit: policy must be .*\(pass model\.policy.*got MaskablePPO"):
        fit(model, demos, 1, 8, 0.5, 0.5, 0)


def test_fit_refuses_demonstrations_of_another_shape() -> None:
    """Observations or actions of another game are named with both shapes; they were torch's
    ``mat1 and mat2 shapes cannot be multiplied`` from inside the forward pass (or, for a wider
    action space, an index error). The right shapes, with numpy-int sizes, still fit: the checks
    change nothing for valid input."""
    with pytest.raises(
        ValueError, match=r"fit: demos observations have shape \(4,\) but the policy takes \(6,\)"
    ):
        fit(_policy(obs_dim=6), _demos(), 1, 8, 0.5, 0.5, 0)
    with pytest.raises(ValueError, match=r"fit: demos have 10 actions, the policy 12"):
        fit(_policy(num_actions=12), _demos(), 1, 8, 0.5, 0.5, 0)
    log = fit(_policy(), _demos(), np.int64(1), np.int64(8), 0.5, 0.5, np.int64(0), learning_rate=1e-3)
    assert log["train"] == 18 and len(log["epochs"]) == 1
    assert np.isfinite(log["epochs"][0]["policy_loss"])


# ------------------------------------------------------------------ 7: Demonstrations.of
def test_of_refuses_row_counts_that_disagree() -> None:
    """obs, masks, actions and returns of different lengths are named with every count; 5
    actions for 20 observations gave 5 demonstrations (15 observations silently unused) and 5
    masks for 20 rows failed only when a later row was read."""
    obs, masks, actions, returns = _arrays()
    with pytest.raises(ValueError, match=r"same number of rows, got obs 20, masks 20, actions 5, returns 20"):
        Demonstrations.of(obs, masks, actions[:5], returns, 1)
    with pytest.raises(ValueError, match=r"same number of rows, got obs 20, masks 5, actions 20, returns 20"):
        Demonstrations.of(obs, masks[:5], actions, returns, 1)


def test_of_refuses_targets_of_another_width_and_a_single_mask_row() -> None:
    """Targets wider than the masks were cut to the masks' width without a word; a 1-D mask was
    numpy's ``AxisError``."""
    obs, masks, actions, returns = _arrays()
    with pytest.raises(ValueError, match=r"targets must have the masks' shape \(20, 10\), got \(20, 13\)"):
        Demonstrations.of(obs, masks, actions, returns, 1, targets=np.ones((N, A + 3), bool))
    with pytest.raises(ValueError, match=r"masks must be a bool array \[N, num_actions\], got shape \(10,\)"):
        Demonstrations.of(obs, np.ones(A, bool), actions, returns, 1)


def test_of_refuses_actions_that_are_not_integers_in_range() -> None:
    """Float actions and actions past the masks' width are named when built; they were an
    ``IndexError`` at the first ``target_mask``."""
    obs, masks, actions, returns = _arrays()
    with pytest.raises(ValueError, match=r"actions must be integers in \[0, 10\), got dtype float64"):
        Demonstrations.of(obs, masks, actions.astype(float), returns, 1)
    with pytest.raises(
        ValueError, match=r"actions must be integers in \[0, 10\) \(the masks' width\), got 1[0-9]"
    ):
        Demonstrations.of(obs, masks, actions + A, returns, 1)
    with pytest.raises(ValueError, match=r"actions must be integers in \[0, 10\) .*got -1"):
        Demonstrations.of(obs, masks, actions - actions - 1, returns, 1)
    edge = actions.copy()
    edge[3] = A  # the first index past the masks' width
    with pytest.raises(
        ValueError, match=r"actions must be integers in \[0, 10\) \(the masks' width\), got 10$"
    ):
        Demonstrations.of(obs, masks, edge, returns, 1)
    edge[3] = A - 1
    assert len(Demonstrations.of(obs, masks, edge, returns, 1)) == len(actions)


def test_of_takes_a_list_of_actions_as_an_array_and_checks_soft_rows() -> None:
    """A list of actions is stored as an array (``subset`` was an ``AttributeError`` on the list),
    and soft targets with too few row pointers are named (an ``IndexError`` when read)."""
    obs, masks, actions, returns = _arrays()
    d = Demonstrations.of(obs, masks, list(actions), returns, 1)
    assert isinstance(d.actions, np.ndarray) and len(d.subset(np.arange(3))) == 3
    soft = (np.zeros(3, np.int64), np.zeros(1, np.int32), np.zeros(1, np.float32))
    with pytest.raises(ValueError, match=r"soft must be \(ptr \[N\+1\].*N = 20, got ptr of shape \(3,\)"):
        Demonstrations.of(obs, masks, actions, returns, 1, soft=soft)
    n = len(actions)
    ptr = np.arange(n + 1, dtype=np.int64)  # one soft target a row
    act, w = actions.astype(np.int32), np.ones(n, np.float32)
    assert len(Demonstrations.of(obs, masks, actions, returns, 1, soft=(ptr, act, w))) == n
    for bad in (ptr + 1, np.concatenate([ptr[:-1], [n + 1]])):  # starts past 0, ends past the rows
        with pytest.raises(ValueError, match=r"soft must be \(ptr \[N\+1\] running from 0 to len\(act\)"):
            Demonstrations.of(obs, masks, actions, returns, 1, soft=(bad, act, w))


# ------------------------------------------------------------------ 12: symmetry_tables, concat
def test_symmetry_tables_and_concat_refuse_what_they_cannot_use() -> None:
    """A symmetry given by name and ``concat([])`` are named; they were ``AttributeError: 'str'
    object has no attribute 'obs_index'`` and ``IndexError: list index out of range``."""
    with pytest.raises(
        ValueError, match=r"symmetries must be Symmetry objects \(game\.symmetries\(\)\), got str 'rot'"
    ):
        symmetry_tables(["rot"], (4,), 10)  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"symmetries must be a sequence of Symmetry objects .*got str"):
        symmetry_tables("rot", (4,), 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"concat needs at least one Demonstrations, got an empty list"):
        concat([])


# ------------------------------------------------------------------ 8: position helpers
def test_start_state_refuses_one_moves_string_and_points_to_split_moves() -> None:
    """``start_state(..., "prong c2 N")`` names ``split_moves``; the string was read one
    character at a time (``move 1 'p'``), ``None`` was ``'NoneType' object is not iterable`` and
    a game name ``'str' object has no attribute 'new_initial_state'``."""
    from envs.octi.game import OctiGame
    from training.position import start_state

    rng = np.random.default_rng(0)
    with pytest.raises(
        ValueError,
        match=r"moves must be a list of notation strings, got the string 'prong c2 N' \(split it with split_moves\)",
    ):
        start_state(OctiGame(), rng, None, "prong c2 N")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"moves must be a list of notation strings \(or \[\]\), got NoneType"
    ):
        start_state(OctiGame(), rng, None, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^start_state: game must be an engine Game object .*got str$"):
        start_state("octi", rng, None, [])
    assert start_state(OctiGame(), rng, None, ["prong c2 N"]).is_terminal() is False


def test_reset_to_position_refuses_a_dict_or_list_where_text_is_expected() -> None:
    """``reset_to_position`` takes the ``--options``/``--moves`` text: a dict of options or a list
    of moves is named; they were ``AttributeError``s (``startswith``, ``split``)."""
    from envs import octi_v0
    from training.position import reset_to_position

    with pytest.raises(
        ValueError,
        match=r"options must be the --options text .*got dict; for a dict call env\.reset\(options=\.\.\.\)",
    ):
        reset_to_position(octi_v0.env(), 0, {"moves": ["prong c2 N"]}, None)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"moves must be the --moves text \(moves separated by ';'\), got list"
    ):
        reset_to_position(octi_v0.env(), 0, None, ["prong c2 N"])  # type: ignore[arg-type]


# ------------------------------------------------------------------ 10: benchmarks
def test_bench_functions_refuse_a_bare_game_string() -> None:
    """``games="octi"`` is named (write ``['octi']``); it was iterated into ``unknown game 'o'``."""
    from training.bench import run_bench
    from training.memory import run_memory_bench

    with pytest.raises(
        ValueError, match=r"games must be a list of game names, got the string 'octi' \(write \['octi'\]\)"
    ):
        run_memory_bench("octi", 0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"games must be a list of game names, got the string 'octi'"):
        run_bench("octi", 0.1)  # type: ignore[arg-type]


@pytest.mark.parametrize("seconds", [0, -1.0, float("nan"), float("inf")])
def test_bench_functions_refuse_seconds_that_are_not_positive(seconds: float) -> None:
    """``seconds`` must be a finite number > 0 (the command line's wording); ``measure_memory``
    took -1 and NaN, and ``run_bench`` timed empty loops."""
    from training.bench import run_bench
    from training.memory import measure_memory, run_memory_bench

    with pytest.raises(ValueError, match=r"seconds must be a number > 0, got"):
        measure_memory("octi", {}, seconds, positions=2)
    with pytest.raises(ValueError, match=r"seconds must be a number > 0, got"):
        run_memory_bench(["octi"], seconds)
    with pytest.raises(ValueError, match=r"seconds must be a number > 0, got"):
        run_bench(["octi"], seconds)


def test_memory_functions_refuse_counts_and_a_game_name() -> None:
    """``positions`` 0 or -1 and a negative count are named, and ``random_positions`` wants an
    engine game; they were ``ZeroDivisionError`` and ``AttributeError: 'str' object has no
    attribute 'new_initial_state'``."""
    from training.memory import measure_memory, random_positions

    with pytest.raises(ValueError, match=r"positions must be >= 1, got -1"):
        measure_memory("octi", {}, 0.05, positions=-1)
    with pytest.raises(ValueError, match=r"positions must be >= 1, got 0"):
        measure_memory("octi", {}, 0.05, positions=0)
    with pytest.raises(ValueError, match=r"^random_positions: game must be an engine Game object .*got str$"):
        random_positions("octi", 2, np.random.default_rng(0))
    game = GAMES["octi"].game_class()()
    with pytest.raises(ValueError, match=r"^count must be >= 0, got -1$"):
        random_positions(game, -1, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^count must be an int >= 0, got 1\.5$"):
        random_positions(game, 1.5, np.random.default_rng(0))
    assert len(random_positions(game, np.int64(2), np.random.default_rng(0))) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"timesteps": 0}, r"timesteps must be >= 1, got 0"),
        ({"timesteps": 64, "repeats": 0}, r"repeats must be >= 1, got 0"),
        ({"timesteps": 64, "repeats": -2}, r"repeats must be >= 1, got -2"),
        ({"settings": "n_envs=2"}, r"settings must be a dict of option=value .*got 'n_envs=2'"),
    ],
)
def test_learner_bench_refuses_zero_counts_and_a_settings_string(
    kwargs: dict[str, Any], message: str
) -> None:
    """``run_learner_bench`` names a zero ``timesteps`` or ``repeats`` and a ``settings`` string;
    they were ``ZeroDivisionError``, ``max() arg is an empty sequence`` and the string iterated
    into ``--set: unknown training option(s) ['2', '=', ...]``."""
    from training.throughput import run_learner_bench

    with pytest.raises(ValueError, match=message):
        run_learner_bench("over_and_out", {"num_players": 2}, **kwargs)


def test_start_state_takes_a_numpy_array_of_moves() -> None:
    """A 1-D numpy array of move strings (a column read with numpy or pandas) is the list it
    holds, as before the moves check; ``start_of`` takes it too."""
    from training.position import start_state

    game = GAMES["octi"].game_class()()
    moves = np.array(["prong b2 N", "prong b6 S"])
    a = start_state(game, np.random.default_rng(0), None, moves)
    b = start_state(game, np.random.default_rng(0), None, list(moves))
    assert a.to_dict() == b.to_dict()


def test_the_engine_game_checks_say_how_to_get_the_game_from_an_env_or_an_openspiel_game() -> None:
    """One check (``envs.core.game.check_game``) serves every place that takes an engine game,
    and from an env or an OpenSpiel game it says where the engine game is. Old: ``start_state``
    and ``random_positions`` let anything with a ``new_initial_state`` through (a pyspiel game
    has one), which then failed on the engine's missing methods."""
    from envs import octi_v0
    from training.memory import random_positions
    from training.position import start_state

    rng = np.random.default_rng(0)
    env = octi_v0.env()
    with pytest.raises(
        ValueError,
        match=r"^start_state: game must be an engine Game object \(an env: pass env\.unwrapped\.game\), got ",
    ):
        start_state(env, rng, None, [])
    assert start_state(env.unwrapped.game, rng, None, []).is_terminal() is False
    pytest.importorskip("pyspiel")
    import envs.core.openspiel as eos

    spiel = eos.load_game("octi")
    with pytest.raises(
        ValueError,
        match=r"^random_positions: game must be an engine Game object \(an OpenSpiel game: pass its \.engine\)",
    ):
        random_positions(spiel, 1, rng)
    assert len(random_positions(spiel.engine, 1, rng)) == 1
