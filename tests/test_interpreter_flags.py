"""The suite under other interpreter modes: ``python -O``, warnings as errors and dev mode.

Contract:

* ``python -O`` strips ``assert`` statements; every documented check of user input must still
  hold there: bad parameters and variants (the error names the parameter), malformed notation,
  bad reset options and positions, bad bot specs (``mcts:sims=-1``), ``raw_env`` and the engine
  refusing an illegal or non-integer action with ``ValueError`` (README "Use in research code"),
  the single-agent view's ``step`` with an out-of-range or illegal action, the CLI's refusals
  (exit status 2 naming the option). Each scenario runs in a child interpreter with and without
  ``-O`` and must give the same outcome.
* Warnings as errors / dev mode (``-X dev -W error::DeprecationWarning -W error::ResourceWarning``,
  ``PYTHONWARNINGS=error``): the README's Python blocks, each doc page's usage block, PettingZoo's
  ``api_test`` on every env, Gymnasium's ``check_env`` on every single-agent view, and short
  ``eval`` / ``play`` / ``render`` / ``train`` runs raise nothing and print no warning that the
  project causes. (Library-internal warnings are let through by name: importing
  ``pettingzoo.test`` loads ``connect_four_v3`` by PettingZoo's deprecated path, and ``api_test``
  warns about every ``Dict`` observation space, PettingZoo's own classic envs included.)

The two tests at the end pin the defects this round found and fixed (2026-12-07, docs/CHECKS.md).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")
# matplotlib < 3.8 calls pyparsing's camelCase names, which pyparsing >= 3.3 deprecates: the
# library's own warnings (the oldest versions allowed meet them), whatever the caller does
LIBRARY_WARNINGS = [
    "ignore::DeprecationWarning:matplotlib._fontconfig_pattern",
    "ignore::DeprecationWarning:matplotlib._mathtext",
]
WARN_FLAGS = ["-X", "dev", "-W", "error::DeprecationWarning", "-W", "error::ResourceWarning"]
WARN_FLAGS += [flag for lib in LIBRARY_WARNINGS for flag in ("-W", lib)]


def _child(code: str, flags: list[str]) -> tuple[int, str, str]:
    """Run ``code`` in a fresh interpreter with ``flags``, in the repository root."""
    proc = subprocess.run(
        [sys.executable, *flags, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    return proc.returncode, proc.stdout, proc.stderr


# ------------------------------------------------------------------------------------ python -O

# Seeded bad inputs of every documented check, one JSON line of outcomes per scenario.
_SCENARIOS = r"""
import importlib, json, random, warnings
import numpy as np
warnings.simplefilter("ignore")
from envs.core.registry import get_game
from envs.core.bots import make_bot
from envs.core.bots import RandomBot
from training.players import OpponentPool
from training.single_agent import SingleAgentEnv

out = {}
def run(name, fn):
    try:
        out[name] = ["ok", repr(fn())[:120]]
    except Exception as exc:
        out[name] = [type(exc).__name__, str(exc)[:120]]

R = random.Random(5)
for g in ("octi", "over_and_out", "otto_game_over", "otto_octopus"):
    G = get_game(g).game_class()
    mod = importlib.import_module(f"envs.{g}.env")
    bots = importlib.import_module(f"envs.{g}.bots").BOTS
    for k, v in [("variant", "nope"), ("nonsense", 1), ("num_players", 0), ("num_players", "2"), ("max_turns", -1)]:
        run(f"{g} param {k}={v!r}", lambda: G(**{k: v}))
        run(f"{g} env() param {k}={v!r}", lambda: mod.env(**{k: v}))
    for spec in ["mcts:sims=-1", "mcts:c=nan", "mcts:time=inf", "mcts:sims=1.5", "nobot", "heuristic:x=1", "mcts:sims"]:
        run(f"{g} bot {spec}", lambda: make_bot(G(), spec, bots))
    env = mod.env()
    env.reset(seed=3)
    raw = env.unwrapped
    legal = [raw.action_to_string(int(a)) for a in np.flatnonzero(raw.legal_mask())]
    for i in range(12):  # mutated legal strings: a word added, dropped, replaced, shuffled
        s, m = R.choice(legal), R.randrange(4)
        words = s.split()
        s = [s + " extra", " ".join(words[:-1]), s.replace(R.choice(words), "zz", 1), "".join(R.sample(s, len(s)))][m]
        run(f"{g} notation {s!r}", lambda: raw.string_to_action(s))
    for opts in [{"nope": 1}, {"state": {}}, {"state": "x"}, {"position": "junk"}, {"moves": ["zz"]}]:
        def reset(opts=opts):
            e = mod.env()
            e.reset(seed=1, options=opts)
        run(f"{g} reset {opts!r}", reset)
    for a in [-1, -2, None, "3", 1.5, True, np.int64(-1), np.array([0]), 10**30]:
        def raw_step(a=a):
            e = mod.raw_env()
            e.reset(seed=1)
            e.step(a)
        def engine(a=a):
            G().new_initial_state(np.random.default_rng(1)).apply(a)
        def view(a=a):
            gg = G()
            v = SingleAgentEnv(gg, OpponentPool(fallback=RandomBot(gg)))
            v.reset(seed=1)
            return v.step(a)[1:4]
        run(f"{g} raw_env step {a!r}", raw_step)
        run(f"{g} engine apply {a!r}", engine)
        run(f"{g} view step {a!r}", view)
    def view_illegal():  # an illegal (in-range) action ends the view's episode, as the AEC env
        gg = G()
        v = SingleAgentEnv(gg, OpponentPool(fallback=RandomBot(gg)))
        v.reset(seed=1)
        a = int(np.flatnonzero(v.action_masks() == 0)[0])
        _, r, term, trunc, info = v.step(a)
        return r, term, trunc, info["illegal_action"]
    run(f"{g} view illegal", view_illegal)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def scenario_outcomes() -> dict[str, dict[str, list[str]]]:
    """The scenarios' outcomes in a child interpreter, with and without ``-O``."""
    res = {}
    for label, flags in (("default", []), ("-O", ["-O"])):
        code, out, err = _child(_SCENARIOS, flags)
        assert code == 0, err
        res[label] = json.loads(out.strip().splitlines()[-1])
    return res


def test_documented_input_checks_hold_under_O(scenario_outcomes: dict[str, dict[str, list[str]]]) -> None:
    """Every documented refusal (parameters, bot specs, notation, reset options, raw_env /
    engine / single-agent-view actions) gives the same outcome under ``-O`` as without it."""
    default, optimised = scenario_outcomes["default"], scenario_outcomes["-O"]
    assert len(default) > 200 and default.keys() == optimised.keys()  # 223 on the oldest versions allowed
    differ = {k: (default[k], optimised[k]) for k in default if default[k] != optimised[k]}
    assert not differ


def test_the_scenarios_are_refused_with_ValueError(
    scenario_outcomes: dict[str, dict[str, list[str]]],
) -> None:
    """The scenarios are bad inputs: each is a ``ValueError`` (no ``AssertionError`` that ``-O``
    would remove), a bad parameter's message names it, and an illegal view action ends the
    episode (-1, terminated, ``info["illegal_action"]``)."""
    for name, (kind, msg) in scenario_outcomes["-O"].items():
        if name.endswith("view illegal"):
            assert (kind, msg) == ("ok", "(-1.0, True, False, True)"), name
            continue
        # the view takes a one-element integer array (``training.single_agent._action_index``)
        if name.endswith("view step array([0])"):
            assert kind == "ok", (name, kind, msg)
            continue
        assert kind == "ValueError", (name, kind, msg)
        param = re.search(r" param (\w+)=", name)
        if param:
            assert param.group(1) in msg, (name, msg)


_CLI_REFUSALS = r"""
import contextlib, io, json, sys
from training.cli import main
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    out.append([rc, err.getvalue().strip().splitlines()[-1]])
print(json.dumps(out))
"""


def test_cli_refusals_hold_under_O(tmp_path: Path) -> None:
    """The CLI's usage errors (README "Command line": "A bad value is a usage error that names
    the option and what it allows (exit status 2)") are the same under ``-O``."""
    png = str(tmp_path / "x.png")
    cases = [
        (["play", "octi", "--vs", "mcts:sims=-1"], "sims"),
        (["play", "octi", "--variant", "nope", "--random"], "variant"),
        (["render", "octi", "--moves", "prong zz N", "--out", png], "prong zz N"),
        (["render", "octi", "--options", '{"nope": 1}', "--out", png], "nope"),
        (["eval", "octi", "--players", "random", "mcts:c=nan", "--games", "2"], "c must be"),
        (["play", "octi", "--vs", "heuristic", "--seat", "5"], "--seat"),
        (["play", "otto_octopus", "--param", "num_players=1", "--vs", "heuristic"], "--vs"),
    ]
    argv = json.dumps([c for c, _ in cases])
    results = {}
    for flags in ([], ["-O"]):
        code, out, err = _child(_CLI_REFUSALS.replace("sys.argv[1]", repr(argv)), flags)
        assert code == 0, err
        results[tuple(flags)] = json.loads(out.strip().splitlines()[-1])
    assert results[()] == results[("-O",)]
    for (rc, msg), (_argv, word) in zip(results[("-O",)], cases, strict=True):
        assert rc == 2 and word in msg, (_argv, rc, msg)


# --------------------------------------------------------------------- warnings as errors, dev mode

_LIBRARY_WARNINGS = (
    "Observation space for each agent probably should be",  # api_test on any Dict space
    "Observation is not a NumPy array",  # api_test on any Dict observation
)

_PY_PATHS = r"""
import importlib, re, textwrap, warnings
from pathlib import Path
import numpy as np
import torch
torch.set_num_threads(1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # PettingZoo's own import of connect_four_v3 (library)
    from pettingzoo.test import api_test
    import matplotlib.pyplot  # matplotlib < 3.8 with pyparsing >= 3.3 (library; LIBRARY_WARNINGS)
import gymnasium
import training
from gymnasium.utils.env_checker import check_env

seen = []
def record(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for cat in (DeprecationWarning, ResourceWarning, PendingDeprecationWarning, FutureWarning):
            warnings.simplefilter("error", cat)
        fn()
    seen.extend(f"{x.category.__name__}: {x.message} ({x.filename}:{x.lineno})" for x in w)

readme = Path("README.md").read_text(encoding="utf-8")
for block in re.findall(r"```python\n(.*?)```", readme, re.S):
    block = textwrap.dedent(block)
    if "pyspiel" in block or "openspiel" in block:
        if importlib.util.find_spec("pyspiel") is None:
            continue
    # the MaskablePPO block: a rollout of 64 steps instead of 2048 x 2 (same calls)
    block = block.replace("seed=0).learn(4_096)", "seed=0, n_steps=64, batch_size=64).learn(64)")
    record(lambda: exec(compile(block, "README", "exec"), {}))
for g in ("octi", "over_and_out", "otto_game_over", "otto_octopus"):
    mod = importlib.import_module(f"envs.{g}.env")
    blocks = [textwrap.dedent(m.group(0)) for m in re.finditer(r"(?:^    \S.*\n(?:^ {4,}.*\n)*)+", mod.__doc__, re.M)]
    def page(block=next(b for b in blocks if b.startswith("from envs"))):
        scope = {}
        exec(block, scope)
        env = scope["e"] if callable(scope.get("env")) else scope["env"]
        for _ in env.agent_iter(max_iter=200):
            obs, _r, term, trunc, _i = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        env.close()
    record(page)
    record(lambda: api_test(mod.env(), num_cycles=30))
    def rendered(mod=mod):
        for mode in ("ansi", "rgb_array"):
            e = mod.env(render_mode=mode)
            e.reset(seed=1)
            e.render()
            e.close()
    record(rendered)
    def view(g=g):
        e = gymnasium.make(f"eightfold/{g}-single-v0", opponents=["random"], render_mode="rgb_array")
        check_env(e.unwrapped)
        e.close()
    record(view)
import json
print("WARNINGS", json.dumps(seen))
"""


_CLI_RUNS = r"""
import gc, io, json, sys
from training.cli import main
codes = []
for argv, stdin in json.loads(sys.stdin.read()):
    sys.stdin = io.StringIO(stdin)  # what a user types into ``play``
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    gc.collect()  # unclosed files / processes warn here
    codes.append(rc)
print("CODES", json.dumps(codes))
"""


def _cli_runs(tmp: Path) -> list[tuple[list[str], str]]:
    """Short ``eval`` (worker processes too), ``play`` with scripted input, ``render``, ``replay``
    and a 512-step ``train`` with a tiny config."""
    cfg = tmp / "tiny.yaml"
    cfg.write_text(
        "n_envs: 2\nn_steps: 256\nbatch_size: 256\nn_epochs: 1\nnet_arch: [16]\nfeatures_dim: 16\n"
        "snapshot_every: 100000\neval_every: 100000\neval_workers: 1\ncheckpoint_every: 100000\n"
        "progress_bar: false\n",
        encoding="utf-8",
    )
    return [
        (["eval", "over_and_out", "--param", "num_players=3", "--players", "random", "greedy", "heuristic"]
         + ["--games", "3", "--workers", "2", "--seed", "1", "--records", str(tmp / "g.jsonl")], ""),
        (["play", "octi", "--vs", "heuristic"], "zz\nprong c2 N\n"),
        (["play", "otto_octopus", "--param", "num_players=1"], "quit\n"),
        (["render", "otto_game_over", "--steps", "30", "--out", str(tmp / "p.png")], ""),
        (["replay", str(tmp / "g.jsonl"), "1", "--upto", "4", "--out", str(tmp / "r.png")], ""),
        (["train", "over_and_out", "--param", "num_players=2", "--timesteps", "512", "--config", str(cfg)]
         + ["--out", str(tmp / "run")], ""),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def dev_mode_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One child interpreter under ``-X dev``, deprecation and resource warnings as errors and
    ``PYTHONWARNINGS=error`` (which the eval / vec-env worker processes inherit): the Python
    paths first (warnings recorded), then the CLI runs (warnings raised)."""
    tmp = tmp_path_factory.mktemp("devmode")
    proc = subprocess.run(
        [sys.executable, *WARN_FLAGS, "-c", _PY_PATHS + _CLI_RUNS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONWARNINGS": ",".join(["error", *LIBRARY_WARNINGS])},
        input=json.dumps(_cli_runs(tmp)),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, tmp


def test_python_paths_raise_no_warning_in_dev_mode(
    dev_mode_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """README Python blocks, doc-page usage blocks, ``api_test``, renders and ``check_env`` warn
    of nothing the project causes (library-internal warnings excepted, module docstring)."""
    proc, _tmp = dev_mode_run
    seen = json.loads(proc.stdout.split("WARNINGS", 1)[1].split("\n", 1)[0])
    assert not [w for w in seen if not any(lib in w for lib in _LIBRARY_WARNINGS)]


def test_cli_runs_raise_no_warning_in_dev_mode(
    dev_mode_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    """The CLI runs exit 0 with every warning an error, and nothing (an unclosed file or worker
    process, a deprecation) is reported on stderr."""
    proc, tmp = dev_mode_run
    codes = json.loads(proc.stdout.split("CODES", 1)[1])
    assert codes == [0] * len(_cli_runs(tmp)), proc.stderr[-3000:]
    assert not re.search(r"Warning|Exception ignored", proc.stderr), proc.stderr[-3000:]
    assert (tmp / "run" / "model.zip").is_file() and (tmp / "p.png").is_file()


# ------------------------------------------------------------------------------------- defects


def test_env_refuses_an_action_outside_the_action_space_under_O() -> None:
    """README: ``env()`` "... an out-of-range action raises ``AssertionError`` (under ``python -O``
    too)"; "a bool, a torch tensor or a one-element batch is no action index". Under ``-O`` the
    refusal must hold: an error, and the game goes on (-1 once read the mask from its end)."""
    script = textwrap.dedent(
        r"""
        import json, warnings
        import numpy as np
        warnings.simplefilter("ignore")
        from envs.octi.env import env as make
        out = []
        for a in (-1, np.int64(-1), np.array([0]), None, True):
            e = make()
            e.reset(seed=0)
            try:
                e.step(a)
                out.append([repr(a), "taken", any(e.terminations.values())])
            except (AssertionError, ValueError) as exc:
                out.append([repr(a), "refused", "action" in str(exc)])
        print(json.dumps(out))
        """
    )
    code, out, err = _child(script, ["-O"])
    assert code == 0, err
    outcomes = json.loads(out.strip().splitlines()[-1])
    assert all(kind == "refused" and named for _a, kind, named in outcomes), outcomes


def test_opponent_weights_that_overflow_their_sum_sample_without_a_warning() -> None:
    """``OpponentPool.sample`` draws finite weights whose sum overflows (CHECKS.md: "opponent weights
    of 1e308 passed and then failed in the pool's sampling", fixed since); the fix must not warn,
    or ``python -W error`` (PYTHONWARNINGS=error) fails at every draw."""
    from envs.core.bots import RandomBot
    from envs.over_and_out.game import OverAndOutGame
    from training.players import OpponentPool

    pool = OpponentPool()
    player = RandomBot(OverAndOutGame())  # any player: the draws read only the names
    pool.add("a", "a", player, weight=1e308)
    pool.add("b", "b", player, weight=1e308)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = {pool.sample(np.random.default_rng(i))[0] for i in range(20)}
    assert drawn == {"a", "b"}
