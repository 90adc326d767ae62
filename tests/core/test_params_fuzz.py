"""Seeded fuzz of the parameter contract: "a wrong parameter names the parameter and the allowed
values; nothing is silently substituted" (doc pages' parameter tables, ``envs.core.config``,
``training.params``, ``training.config``), plus one test per defect this fuzzing found, each fixed (2026-12-07)."""

from __future__ import annotations

import collections
import random
from typing import Any

import numpy as np
import pytest

from envs import octi_v0, otto_game_over_v0, otto_octopus_v0, over_and_out_v0
from envs.core.config import config_to_dict
from envs.octi.game import OctiGame
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_octopus.game import OttoOctopusGame
from envs.over_and_out.game import OverAndOutGame
from training.params import parse_params, parse_value

# name -> (Game class, env module, {parameter: spec}) after the doc pages' parameter tables
SPECS: dict[str, tuple[Any, Any, dict[str, tuple[Any, ...]]]] = {
    "octi": (
        OctiGame,
        octi_v0,
        {
            "variant": ("choice", ("basic", "x_fast", "x_classic")),
            "max_turns": ("int_or_none", 1, None),
            "allow_reposition": ("bool",),  # OCT-49
            "edgeless": ("bool",),  # OCT-50
            "capture_to_reserve": ("bool",),  # OCT-51
            "repetition_draw": ("bool",),  # OCT-52
        },
    ),
    "over_and_out": (
        OverAndOutGame,
        over_and_out_v0,
        {
            "num_players": ("int", 2, 8),
            "minus10_rule": ("choice", ("require_10", "lose_below_zero")),  # OAO-21 / OAO-42
            "reward_mode": ("choice", ("placement", "winner_only")),
            "max_plays": ("int", 1, None),
            "starting_chips": ("int", 1, 4),
            "first_dealer": ("dealer",),
        },
    ),
    "otto_game_over": (
        OttoGameOverGame,
        otto_game_over_v0,
        {
            "num_players": ("int", 1, 4),
            "teams": ("bool",),
            "secret_cards": ("bool",),  # OGO-59
            "blind": ("bool",),  # OGO-53
            "head_in_the_clouds": ("bool",),  # OGO-58
            "episode": ("choice", ("game", "match")),
            "target_score": ("int", 1, None),  # OGO-52
            "max_matches": ("int", 1, None),
            "eight_lobes": ("choice", ("round", "round_or_square")),  # OGO-06
        },
    ),
    "otto_octopus": (
        OttoOctopusGame,
        otto_octopus_v0,
        {
            "num_players": ("int", 1, 4),  # OTP-39/40
            "open_game": ("bool",),  # OTP-41
            "simplified": ("bool",),  # OTP-42
            "max_steps": ("int", 1, None),
        },
    ),
}

WRONG = [
    True, False, 1.0, 2.5, "2", "true", None, [2], {"a": 1}, np.float64(3.0), np.bool_(True),
    float("nan"), float("inf"), -1, 0, 10**20, np.int8(2), np.uint64(3), np.str_("basic"), b"basic",
    3 + 0j, (2,), "", " basic", "BASIC",
]  # fmt: skip
DEFAULT_PLAYERS = {"octi": 2, "over_and_out": 4, "otto_game_over": 2, "otto_octopus": 2}


def _py(v: Any) -> Any:
    """The Python value a numpy scalar holds (the doc pages read numpy scalars as their value)."""
    if isinstance(v, np.str_):
        return str(v)
    return v.item() if isinstance(v, np.generic) else v


def _valid(game: str, spec: tuple[Any, ...], v: Any, params: dict[str, Any]) -> bool:
    v = _py(v)
    kind = spec[0]
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "choice":
        return any(type(a) is type(v) and a == v for a in spec[1])
    if kind == "dealer":
        if v is None:
            return True
        n = _py(params.get("num_players", DEFAULT_PLAYERS[game]))
        return type(v) is int and type(n) is int and 0 <= v < n
    if v is None:
        return kind == "int_or_none"
    if type(v) is not int:
        return False
    return v >= spec[1] and (spec[2] is None or v <= spec[2])


def _draw(rng: random.Random, game: str) -> dict[str, Any]:
    """Mostly valid parameters, one of them (or an unknown name) from the wrong-value list."""
    spec = SPECS[game][2]
    params: dict[str, Any] = {}
    for name, s in spec.items():
        if rng.random() < 0.5:
            continue
        if s[0] == "bool":
            params[name] = rng.choice([True, False, np.bool_(False)])
        elif s[0] == "choice":
            params[name] = rng.choice([*s[1], np.str_(s[1][-1])])
        elif s[0] == "dealer":
            params[name] = rng.choice([None, 0, 1, np.int32(1)])
        else:
            hi = s[2] if s[2] is not None else s[1] + 50
            params[name] = rng.choice([rng.randint(s[1], hi), np.int64(rng.randint(s[1], hi))])
    bad = rng.choice([*spec, "unknown"])
    if bad == "unknown":
        params[rng.choice(["foo", "numplayers", "Variant", "seed", "max_cycles"])] = 1
    else:
        params[bad] = rng.choice([*WRONG, rng.randint(-5, 60)])
    return params


def _expected_ok(game: str, params: dict[str, Any]) -> bool:
    spec = SPECS[game][2]
    ok = all(k in spec and _valid(game, spec[k], v, params) for k, v in params.items())
    if game == "otto_game_over" and ok and _py(params.get("teams", False)):
        ok = _py(params.get("num_players", 2)) in (1, 4)  # OGO §6: teams needs 4 (solo ignores it)
    return ok


def test_fuzz_game_parameters() -> None:
    """Game(**p), env(**p), raw_env(**p): a valid set is taken as given (numpy scalars read as
    the value they hold), anything else is a ValueError naming the parameter."""
    rng = random.Random(48)
    seen = collections.Counter()
    for _ in range(800):
        game = rng.choice(list(SPECS))
        cls, mod, spec = SPECS[game]
        params = _draw(rng, game)
        how = rng.choice(["game", "game", "game", "env", "raw"])
        ok = _expected_ok(game, params)
        try:
            if how == "game":
                config = cls(**params).config
            elif how == "env":
                env = mod.env(**params)
                config = env.unwrapped.game.config
            else:
                config = mod.raw_env(**params).game.config
        except ValueError as exc:
            seen["refused"] += 1
            assert not ok, (game, how, params, exc)
            named = [k for k in params if k in str(exc)]
            assert named, (game, params, exc)
            continue
        seen["accepted"] += 1
        assert ok, (game, how, params)
        for k, v in params.items():  # no coercion: the value given (numpy scalars as their value)
            got = getattr(config, k)
            assert got == _py(v) and type(got) is type(_py(v)), (game, k, v, got)
        again = cls(**config_to_dict(config)).config  # round trip of the accepted config
        assert again == config and hash(again) == hash(config)
    assert seen["refused"] > 500 and seen["accepted"] > 40, seen


CLI_TEXTS = [
    "2", "3", "4", "1", "0", "-1", "2.0", "1e3", "true", "True", "false", "TRUE", "null", "None",
    "none", '"2"', "[2]", "{}", "NaN", "Infinity", " 2 ", "02", "+2", "0x2", "x_fast", "basic",
    '"basic"', "'basic'", "", "game", "match", "round_or_square", "placement", "winner_only",
    "lose_below_zero", "9999999999999999999999", "1.5", "[]",
]  # fmt: skip


def test_fuzz_param_flags() -> None:
    """``--param k=v``: the JSON value (or the raw string) reaches the game's Config unchanged;
    refusals are ValueErrors naming k; a malformed item names the flag."""
    rng = random.Random(4848)
    for _ in range(600):
        game = rng.choice(list(SPECS))
        key = rng.choice(list(SPECS[game][2]))
        text = rng.choice(CLI_TEXTS)
        params = parse_params([f"{key}={text}"])
        assert params == {key: parse_value(text.strip())}
        try:
            config = SPECS[game][0](**params).config
        except ValueError as exc:
            assert key in str(exc), (game, key, text, exc)
            assert not _expected_ok(game, params)
            continue
        assert _expected_ok(game, params), (game, key, text)
        got = getattr(config, key)
        assert got == params[key] and type(got) is type(params[key])
    for item in ["=3", "num_players", "", " =1"]:
        with pytest.raises(ValueError, match="--param"):
            parse_params([item])
    with pytest.raises(ValueError, match="render_mode"):
        parse_params(["render_mode=ansi"])
    with pytest.raises(ValueError, match="disagree"):
        parse_params(["variant=basic"], variant="x_fast")


TRAIN_VALUES = [
    True, False, 0, 1, -1, 2, 7, 0.5, 1.0, 1.5, -0.5, float("nan"), float("inf"), "x", "", "nan",
    None, [], [1], [64, 64], [0], [True], [1.5], ["random"], {}, {"random": 1}, {"random": 0},
    {"random": True}, {"random": float("nan")}, {"nope": 1}, 10**20, 2**32, "random", "self", "masked",
    "sb3", "dummy", "subproc", "heuristic", "random,", [[1]],
]  # fmt: skip


def test_fuzz_training_options() -> None:
    """A training YAML's options: merge + validate accept or raise a ValueError naming the option."""
    import dataclasses

    from training.config import TrainConfig, merge

    fields = [
        f.name for f in dataclasses.fields(TrainConfig) if f.name not in ("env", "out", "params", "rllib")
    ]
    rng = random.Random(480)
    counts = collections.Counter()
    base = TrainConfig(env="over_and_out", params={"num_players": 2})
    for _ in range(800):
        data = {rng.choice(fields): rng.choice(TRAIN_VALUES)}
        if rng.random() < 0.25:
            data[rng.choice(fields)] = rng.choice(TRAIN_VALUES)
        try:
            cfg = merge(base, data, "fuzz.yaml")
            cfg.validate()
        except ValueError as exc:
            counts["refused"] += 1
            assert any(k in str(exc) for k in data), (data, exc)
            continue
        counts["accepted"] += 1
        for k, v in data.items():
            got = getattr(cfg, k)
            if isinstance(v, bool) or isinstance(got, bool):
                assert got is v, (k, v, got)
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                assert got == v, (k, v, got)
    with pytest.raises(ValueError, match="unknown training option"):
        merge(base, {"learning_rat": 1e-3}, "fuzz.yaml")
    assert counts["refused"] > 400 and counts["accepted"] > 50, counts


# ------------------------------------------------------------- defects found, now fixed


def test_view_refuses_nan_shaping() -> None:
    """The view took ``shaping=nan`` (NaN fails ``< 0``) and paid NaN rewards; it says "a finite
    number >= 0" now, as TrainConfig does."""
    from training.single_agent import make_env

    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"^shaping must be a finite number >= 0, got (nan|inf)$"):
            make_env("over_and_out", opponents=["random"], num_players=2, shaping=bad)


def test_view_reads_numpy_numbers() -> None:
    """Numpy numbers are numbers: ``np.float32(0.5)`` was refused as "not a number in (0, 1]"
    while ``np.float64`` (a float subclass) passed; a numpy bool is still no number."""
    from training.single_agent import make_env

    env = make_env(
        "over_and_out", opponents=["random"], num_players=2, gamma=np.float32(0.5), shaping=np.int64(1)
    )
    assert env.gamma == 0.5 and env.shaping == 1.0
    env = make_env("over_and_out", opponents=["random"], num_players=2, illegal_reward=np.int64(-2))
    assert env.illegal_reward == -2.0
    with pytest.raises(ValueError, match=r"^gamma must be a number in \(0, 1\], got "):
        make_env("over_and_out", opponents=["random"], num_players=2, gamma=np.True_)


def test_namedtuple_parameter_is_a_value_error() -> None:
    """Every game's Config: a bad parameter always raises ValueError naming the parameter."""
    pair = collections.namedtuple("pair", "a b")
    with pytest.raises(ValueError, match="num_players"):
        OverAndOutGame(num_players=pair(2, 3))


def test_yaml_unknown_keys_of_mixed_types() -> None:
    from training.config import TrainConfig, merge

    with pytest.raises(ValueError, match=r"^x\.yaml: unknown training option\(s\) \['foo', 1\]; known: "):
        merge(TrainConfig(), {1: 2, "foo": 3}, "x.yaml")


def test_yaml_params_with_non_string_key() -> None:
    from training.config import TrainConfig, merge

    with pytest.raises(
        ValueError, match=r"^x\.yaml: params names parameters by strings, got the key\(s\) \[1\]$"
    ):
        merge(TrainConfig(env="over_and_out"), {"params": {1: 2}}, "x.yaml").validate()


def test_set_params_conflicting_with_param_flags(tmp_path: Any) -> None:
    """``--variant x_fast --param variant=basic`` is refused as a disagreement; the same clash
    through ``--set params=`` must not silently drop the flag's value either."""
    from training.cli import build_parser
    from training.train import resolve_config

    out = ["--out", str(tmp_path / "run")]
    for argv in (
        ["train", "octi", "--variant", "basic", "--set", 'params={"variant": "x_fast"}', *out],
        ["train", "over_and_out", "--param", "num_players=3", "--set", 'params={"num_players": 5}', *out],
    ):
        args = build_parser().parse_args(argv)
        with pytest.raises(
            ValueError, match=r"^--param/--variant and --set params=.* both set params; give it once$"
        ):
            resolve_config(args)
    args = build_parser().parse_args(["train", "octi", "--timesteps", "20", "--set", "timesteps=30", *out])
    with pytest.raises(
        ValueError, match=r"^--timesteps and --set timesteps=30 both set timesteps; give it once$"
    ):
        resolve_config(args)
    args = build_parser().parse_args(["train", "octi", "--timesteps", "20", "--set", "timesteps=20", *out])
    assert resolve_config(args).timesteps == 20  # the same value twice is no clash


def test_validate_checks_opponent_weights() -> None:
    """parse_opponents: "`true` is no weight (validate refuses bools everywhere)"."""
    from training.config import TrainConfig

    for opponents in ({"random": True}, {"random": "1"}, ["random"]):
        cfg = TrainConfig(env="over_and_out", params={"num_players": 2}, opponents=opponents)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"^opponents(: opponent weights must be| must be a mapping)"):
            cfg.validate()
