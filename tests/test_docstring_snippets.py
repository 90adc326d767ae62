"""Every code snippet and usage line in the docstrings of ``envs/`` and ``training/`` (and the
module docstrings of ``examples/``) runs as written and does what the text around it says.

The four ``envs/<game>/env.py`` doc pages and the README are covered elsewhere
(``tests/core/test_doc_claims*.py``, ``tests/test_new_user_paths.py``,
``tests/test_examples.py``). Snippets are read from the docstrings themselves (``ast``), so a
change of the text to something that no longer runs fails here:

* every indented block (``::`` literal blocks and plain indented examples) and every
  unindented code line is classified as Python, a shell line or an illustrative table /
  schema / picture; each Python block is run (with the names the text assumes - ``game``,
  ``bots``, ``state``, ``player``, ``rng`` - bound for every game) or is listed below with the
  reason it is not;
* every ``eightfold ...`` line and inline ``eightfold ...`` command parses with the real
  parser (every flag and choice exists); the fast ones are run in-process as written, the
  training ones with a tiny ``--timesteps`` / ``--games``;
* every double-backquoted dotted project name and every Sphinx reference resolves, every
  ``--flag`` a docstring cites exists in a parser;
* the documented examples of ``parse_bot_spec`` / ``WordTable.hint`` hold over seeded fuzzed
  inputs, the action tables of the codecs' docstrings match the notation tables, the in-code
  replay of ``training/replay.py`` replays seeded records of every game, and the moves that
  ``eightfold play`` prints replay with ``--moves``.

The tests at the end pin the two defects this round found, fixed since: ``replay --save`` of a
finished game suggested a ``play`` command that refuses it, and the position example of
``envs/octi/position.py`` loaded in no variant.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.util
import io
import json
import re
import shlex
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")
DOC_PAGES = {f"envs/{g}/env.py" for g in GAMES}
HAVE_PYSPIEL = importlib.util.find_spec("pyspiel") is not None
SHELL_STARTS = ("eightfold", "printf", "python", "pip", "ray", "PYTHONHASHSEED=0")


# ----------------------------------------------------------------------------- extraction


def _docstrings() -> list[tuple[str, str, str]]:
    out = []
    for top in ("envs", "training", "examples"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in DOC_PAGES:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            nodes: list[ast.AST] = [tree]
            if top != "examples":
                nodes += [
                    n
                    for n in ast.walk(tree)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                ]
            for node in nodes:
                doc = ast.get_docstring(node)  # type: ignore[arg-type]
                if doc:
                    out.append((rel, getattr(node, "name", "<module>"), doc))
    return out


DOCS = _docstrings()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _blocks(doc: str) -> list[str]:
    """Indented blocks (after a blank line or a ``::``), dedented; bullets' continuations are
    not blocks."""
    lines = doc.splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        ind, pind = _indent(line), _indent(prev)
        starts = i == 0 or not lines[i - 1].strip() or prev.rstrip().endswith("::")
        if line.strip() and ind >= pind + 2 and starts and not prev.lstrip().startswith(("*", "-")):
            block = []
            while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) >= ind):
                block.append(lines[i][ind:])
                i += 1
            out.append("\n".join(block).strip("\n"))
            continue
        i += 1
    return out


def _code_of(block: str) -> str:
    """The block without its trailing ``#`` comments (a ``#`` inside quotes is kept)."""
    kept = []
    for line in block.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for m in re.finditer(r"\s+#", line):
            if line[: m.start()].count('"') % 2 == 0 and line[: m.start()].count("'") % 2 == 0:
                line = line[: m.start()]
                break
        kept.append(line.rstrip())
    return "\n".join(kept)


def _kind(block: str) -> str:
    if block.split()[0] in SHELL_STARTS:
        return "shell"
    try:
        tree = ast.parse(_code_of(block))
    except SyntaxError:
        return "text"
    if any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom)) for n in ast.walk(tree)):
        return "python"
    return "text"


def _unindented_code(doc: str) -> Iterator[tuple[str, str]]:
    """Runs of unindented lines that are code (``from x import y``, ``a = f(...)``) or
    ``eightfold ...`` command lines, outside the indented blocks."""
    run: list[str] = []
    for line in [*doc.splitlines(), ""]:
        s = line.strip()
        is_code = False
        if line and not line[0].isspace() and s:
            if s.startswith("eightfold ") and "  " in s:  # a usage table: command, spaces, what
                yield "shell", s.split("  ")[0].strip()
                continue
            try:
                tree = ast.parse(_code_of(s))
                is_code = any(isinstance(n, (ast.Import, ast.ImportFrom, ast.Assign)) for n in tree.body)
            except SyntaxError:
                pass
        if is_code:
            run.append(s)
        elif run:
            yield "python", "\n".join(run)
            run = []


def _snippets() -> list[tuple[str, str, str, str]]:
    out = []
    for rel, name, doc in DOCS:
        for block in _blocks(doc):
            out.append((rel, name, _kind(block), block))
        for kind, code in _unindented_code(doc):
            out.append((rel, name, kind, code))
    return out


SNIPPETS = _snippets()


def _shell_lines() -> list[tuple[str, str]]:
    """Every line of the shell blocks and usage tables."""
    out = []
    for rel, _name, kind, block in SNIPPETS:
        if kind == "shell":
            for line in block.splitlines():
                line = _code_of(line).strip()
                if line:
                    out.append((rel, line))
    return out


def _inline_commands() -> list[tuple[str, str]]:
    """The inline ````eightfold ...```` of the prose (names of commands, often with bare flags)."""
    return [
        (rel, m.group(1))
        for rel, _name, doc in DOCS
        for m in re.finditer(r"``(eightfold [^`]+)``", " ".join(doc.split()))
    ]


# ----------------------------------------------------------------------------- helpers


def _cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """``eightfold`` in-process: (exit code, stdout, stderr)."""
    from training.cli import main

    old, sys.stdin = sys.stdin, io.StringIO(stdin)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin = old
    return rc, out.getvalue(), err.getvalue()


def _engine(game_name: str, seed: int = 0, **params: Any) -> dict[str, Any]:
    """The names the docstrings' snippets assume, bound for one game."""
    from envs.core.bots import make_bot
    from envs.core.registry import get_game
    from training.players import game_bots

    entry = get_game(game_name)
    game = entry.game_class()(**params)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(rng)
    bots = game_bots(entry)
    return {
        "np": np,
        "game": game,
        "bots": bots,
        "rng": rng,
        "state": state,
        "player": state.current_player(),
        "seat": state.current_player(),
        "bot": make_bot(game, "heuristic", bots),
        "bot_a": make_bot(game, "random", bots),
        "bot_b": make_bot(game, "random", bots),
    }


def _module_names(rel: str) -> dict[str, Any]:
    """The names in scope in the module whose docstring holds a snippet."""
    module = importlib.import_module(rel[:-3].replace("/", ".").removesuffix(".__init__"))
    return {k: v for k, v in vars(module).items() if not k.startswith("__")}


def _block(rel: str, first: str) -> str:
    found = [b for r, _n, k, b in SNIPPETS if r == rel and k == "python" and b.startswith(first)]
    assert len(found) == 1, (rel, first, found)
    return found[0]


def _exec(code: str, ns: dict[str, Any]) -> dict[str, Any]:
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as out:
        warnings.simplefilter("ignore")
        exec(compile(code, "<docstring>", "exec"), ns)
    ns["__stdout__"] = out.getvalue()
    return ns


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A run directory and a records file made by the docstrings' own commands (the training
    run with a tiny ``--timesteps``)."""
    import os

    path = tmp_path_factory.mktemp("snippets")
    old = Path.cwd()
    os.chdir(path)
    try:
        rc, _, err = _cli(
            ["train", "over_and_out", "--param", "num_players=2", "--timesteps", "64"]
            + ["--out", "runs/demo", "--no-progress"]
        )
        assert rc == 0, err
        rc, _, err = _cli(
            ["eval", "octi", "--players", "heuristic", "random", "--games", "20", "--records", "games.jsonl"]
        )
        assert rc == 0, err
        yield path
    finally:
        os.chdir(old)


# ----------------------------------------------------------------------------- inventory

# Python blocks not run here, with the reason (checked by name instead, below).
NOT_RUN = {
    ("training/rllib/policy.py", "player = RLlibPolicy.load"): "needs an RLlib run (Ray): names checked",
}


def _python_runners() -> dict[tuple[str, str], Any]:
    return {
        ("envs/__init__.py", "import envs, pettingzoo"): _run_envs_init,
        ("envs/core/aec.py", "class raw_env"): _run_aec_subclass,
        ("envs/core/arena.py", "from envs.core.arena"): _run_arena,
        ("envs/core/bots.py", "action = bot.act"): _run_bot_act,
        ("envs/core/mcts.py", "bot = make_bot"): _run_mcts,
        ("envs/core/openspiel.py", "import pyspiel"): _run_openspiel,
        ("training/__init__.py", "import gymnasium, training"): _run_training_init,
        ("training/players.py", "player = make_player"): _run_players,
        ("training/replay.py", "env = get_game"): _run_replay_code,
        ("training/single_agent.py", "env = SingleAgentEnv"): _run_single_agent_env,
        ("training/single_agent.py", 'env = gymnasium.make("eightfold/octi-single-v0"'): _run_gym_make,
        ("training/single_agent.py", "env = make_env("): _run_make_env,
    }


def test_every_code_block_is_classified_and_run_or_excused() -> None:
    runners = _python_runners()
    python = [(rel, block) for rel, _n, kind, block in SNIPPETS if kind == "python"]
    assert len(python) >= 12, python
    for rel, block in python:
        key = [k for k in (*runners, *NOT_RUN) if k[0] == rel and block.startswith(k[1])]
        assert key, f"{rel}: a Python snippet nobody runs: {block.splitlines()[0]!r}"
    for rel, first in runners:
        assert any(r == rel and b.startswith(first) for r, _n, k, b in SNIPPETS if k == "python"), (
            rel,
            first,
        )


# ----------------------------------------------------------------------------- python snippets


def _run_envs_init(workdir: Path) -> None:
    ns = _exec(_block("envs/__init__.py", "import envs, pettingzoo"), {})
    env = ns["env"]
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "octi_v0" and env.agents == ["player_0", "player_1"]
    doc = importlib.import_module("envs").__doc__ or ""
    inline = re.search(r"``(from envs import octi_v0; env = octi_v0.env\(\))``", doc)
    assert inline, "the inline import of a game module"
    ns = _exec(inline.group(1), {})
    ns["env"].reset(seed=0)
    assert ns["env"].agent_selection == "player_0"


def _run_aec_subclass(workdir: Path) -> None:
    from envs.octi.env import raw_env as octi_raw

    code = _block("envs/core/aec.py", "class raw_env").replace("{...}", "dict(OCTI_METADATA)")
    ns = _exec(
        "from envs.core.aec import EightfoldAECEnv, make_env_factory\nfrom envs.octi.game import OctiGame\n"
        + code,
        {"OCTI_METADATA": octi_raw.metadata},
    )
    env = ns["env"]()
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"].sum() > 0 and obs["observation"].shape == (84, 7, 6)


def _run_arena(workdir: Path) -> None:
    from envs.core.arena import MatchResult

    doc = importlib.import_module("envs.core.arena").__doc__ or ""
    code = next(c for k, c in _unindented_code(doc) if k == "python")
    ns = _exec(code, _engine("octi"))  # two random bots: 500 games take a fraction of a second
    res = ns["result"]
    assert isinstance(res, MatchResult) and res.games == 500
    assert res.wins + res.draws + res.losses == 500


def _run_bot_act(workdir: Path) -> None:
    for g in GAMES:
        ns = _exec(_block("envs/core/bots.py", "action = bot.act"), _engine(g, seed=3))
        assert ns["state"].legal_mask()[ns["action"]], g


def _run_mcts(workdir: Path) -> None:
    for g in GAMES:
        ns = _module_names("envs/core/mcts.py") | _engine(g, seed=1)
        ns = _exec(_block("envs/core/mcts.py", "bot = make_bot"), ns)
        assert ns["state"].legal_mask()[ns["action"]], g
        assert ns["bot"].params["sims"] == 200 and ns["bot"].params["depth"] == 2, g


def _run_openspiel(workdir: Path) -> None:
    if not HAVE_PYSPIEL:
        pytest.skip("the openspiel extra is not installed")
    ns = _exec(_block("envs/core/openspiel.py", "import pyspiel"), {})
    assert ns["state"].is_terminal()
    printed = ast.literal_eval(ns["__stdout__"].strip())
    assert isinstance(printed, list) and len(printed) == 2
    from envs.core.openspiel import load_game

    inline = load_game("octi", variant="x_fast")  # ``load_game("octi", variant="x_fast")``
    assert str(inline) == str(ns["game"])
    assert load_game("over_and_out", num_players=3).num_players() == 3


def _run_training_init(workdir: Path) -> None:
    ns = _exec(_block("training/__init__.py", "import gymnasium, training"), {})
    _obs, info = ns["env"].reset(seed=0)
    assert list(info["opponents"].values()) == ["heuristic"]


def _run_players(workdir: Path) -> None:
    from training.players import OpponentPool, PolicyPlayer

    ns = _module_names("training/players.py") | _engine("over_and_out", num_players=2)
    ns = _exec(_block("training/players.py", "player = make_player"), ns)  # runs/demo/model.zip: workdir
    assert isinstance(ns["player"], PolicyPlayer) and isinstance(ns["pool"], OpponentPool)
    name, member = ns["pool"].sample(np.random.default_rng(0))
    assert name in ("random", "heuristic")
    state = ns["state"]
    assert state.legal_mask()[member.act(state, state.current_player(), np.random.default_rng(0))]


def _replay_records(path: Path) -> int:
    """``training/replay.py``'s in-code replay, with the loop its comment describes."""
    code = _block("training/replay.py", "env = get_game")
    done = 0
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        from envs.core.registry import get_game

        ns = _exec(_code_of(code), {"get_game": get_game, "rec": rec})
        env, moves = ns["env"], list(rec["moves"])
        for _agent in env.agent_iter():
            _obs, _r, term, trunc, _info = env.last()
            env.step(None if term or trunc else env.unwrapped.string_to_action(moves.pop(0)))
        assert not moves, rec["moves"]
        np.testing.assert_allclose(env.unwrapped.state.returns(), rec["returns"])
        done += 1
    return done


def _run_replay_code(workdir: Path) -> None:
    assert _replay_records(workdir / "games.jsonl") == 20


def _run_single_agent_env(workdir: Path) -> None:
    from training.players import OpponentPool

    code = _block("training/single_agent.py", "env = SingleAgentEnv")
    for g in GAMES:
        ns = _module_names("training/single_agent.py") | _engine(g)
        ns.update(OpponentPool=OpponentPool)
        ns = _exec(code, ns)
        assert ns["info"]["seat"] in range(ns["game"].num_players), g
        _obs, info = ns["env"].reset(seed=0, options={"seat": 1})  # the comment's option
        assert info["seat"] == 1, g


def _run_gym_make(workdir: Path) -> None:
    ns = _exec(
        "import gymnasium, training\n"
        + _block("training/single_agent.py", 'env = gymnasium.make("eightfold/octi'),
        {},
    )
    _obs, info = ns["env"].reset(seed=0)
    assert info["opponents"]["player_1" if info["seat"] == 0 else "player_0"] in (
        "random",
        "heuristic",
        "mcts:sims=50",
    )


def _run_make_env(workdir: Path) -> None:
    from training.single_agent import SingleAgentEnv, make_env

    ns = _exec(
        "import gymnasium\n" + _block("training/single_agent.py", "env = make_env("), {"make_env": make_env}
    )
    assert isinstance(ns["env"].unwrapped, SingleAgentEnv)
    first = make_env("otto_octopus", opponents=["heuristic"], num_players=2)
    _obs, info = first.reset(seed=0)
    assert list(info["opponents"].values()) == ["heuristic"]
    assert isinstance(make_env("eightfold/octi-v0"), SingleAgentEnv)  # "a registered name or id"


@pytest.mark.parametrize("key", sorted(_python_runners()), ids=lambda k: f"{k[0]}:{k[1][:24]}")
def test_python_snippet_runs_as_written(key: tuple[str, str], workdir: Path) -> None:
    _python_runners()[key](workdir)


def test_rllib_policy_snippet_names_exist() -> None:
    """``RLlibPolicy.load(path, game)`` and ``act(state, seat, rng)`` (inherited from
    :class:`training.players.ProbabilityPlayer`), read without importing Ray."""
    import inspect

    from training.players import ProbabilityPlayer

    spec = importlib.util.find_spec("training.rllib.policy")
    assert spec is not None
    tree = ast.parse(Path(spec.origin or "").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RLlibPolicy")
    assert [ast.unparse(b) for b in cls.bases] == ["ProbabilityPlayer"]
    args = {f.name: [a.arg for a in f.args.args] for f in cls.body if isinstance(f, ast.FunctionDef)}
    assert args["load"][:3] == ["cls", "path", "game"]
    assert len(inspect.signature(ProbabilityPlayer.act).parameters) == 4  # self, state, seat, rng


# ----------------------------------------------------------------------------- shell lines


def _argv(line: str) -> list[str] | None:
    """The argv of an ``eightfold`` line, or None for a synopsis with placeholders."""
    if "|" in line:
        line = line.split("|", 1)[1].strip()
    if not line.startswith("eightfold ") or re.search(r"<|\[|\.\.\.|\bN\b|\bFILE\b|\bENV\b|JSON|'M1", line):
        return None
    return shlex.split(line)[1:]


def test_every_eightfold_line_parses_with_the_real_parser() -> None:
    from training.cli import build_parser

    lines = _shell_lines()
    parsed = 0
    for rel, line in lines:
        argv = _argv(line)
        if argv is None:
            continue
        with contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                build_parser().parse_args(argv)
            except SystemExit:
                pytest.fail(f"{rel}: {line!r} does not parse: {err.getvalue()}")
        parsed += 1
    assert parsed >= 15, lines
    commands = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    for rel, text in _inline_commands():
        words = text.split()
        if len(words) > 1 and not words[1].startswith(("-", "<", "[", ".")):
            assert words[1] in commands, f"{rel}: ``{text}`` names no eightfold command"


def test_every_cited_flag_exists() -> None:
    flags = set()
    for path in [*(ROOT / "training").rglob("*.py"), *(ROOT / "examples").glob("*.py")]:
        for m in re.finditer(r"add_argument\(\s*((?:['\"]-[^'\"]+['\"]\s*,?\s*)+)", path.read_text()):
            flags |= set(re.findall(r"['\"](-[^'\"]+)['\"]", m.group(1)))
    foreign = {"--logdir", "--head", "--o------o--"}  # tensorboard's, ray's, a drawing
    for rel, name, doc in DOCS:
        for flag in set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", doc)) - foreign:
            assert flag in flags, f"{rel}:{name} cites {flag}, which no parser has"


def test_shell_lines_run_as_written(workdir: Path) -> None:
    """The fast lines as written; the training/eval lines of a run with a tiny budget."""
    rc, out, err = _cli(
        ["play", "over_and_out", "--param", "num_players=2", "--vs", "heuristic"], "play 5\nquit\n"
    )
    assert rc == 0, err
    assert "game abandoned (quit)" in out and re.search(r"moves so far \(\d+; as --moves.*\): play 5;", out)
    runs = {
        "eightfold eval over_and_out --param num_players=2 --players runs/demo/model.zip random greedy heuristic": 3,
        "eightfold eval --players runs/demo/model.zip random heuristic": 2,
    }
    for line, pairings in runs.items():
        rc, out, err = _cli(shlex.split(line)[1:] + ["--games", "2"])
        assert rc == 0, (line, err)
        assert len(re.findall(r"^runs/demo/model.zip\s+\w+\s+2\s", out, re.M)) == pairings, out
    rc, out, err = _cli(["eval", "--curve", "runs/demo"])
    assert rc == 0 and (workdir / "runs/demo/learning_curve.png").stat().st_size > 0, err
    for name in (
        "config.yaml",
        "model.zip",
        "monitor",
        "pool",
        "tb",
        "train_summary.json",
        "learning_curve.png",
    ):
        assert (workdir / "runs/demo" / name).exists(), name  # train.py's "A run directory holds"


def test_replay_docstring_lines_run_as_written(workdir: Path) -> None:
    doc = importlib.import_module("training.replay").__doc__ or ""
    block = next(b for b in _blocks(doc) if b.startswith("eightfold eval octi"))
    lines = [_code_of(line).strip() for line in block.splitlines()]
    assert lines[0].startswith("eightfold eval octi") and "--records games.jsonl" in lines[0]
    for line in lines[1:]:
        argv = shlex.split(line)[1:]
        rc, out, err = _cli(argv, "quit\n")
        if "--result" in argv and rc == 2:  # heuristic never loses to random: said so, by name
            assert "no game of games.jsonl has the result 'loss'" in err
            continue
        assert rc == 0, (line, err)
        if argv == ["replay", "games.jsonl"]:
            assert len(re.findall(r"^\s+\d+\s+(win|draw|loss)\s", out, re.M)) == 20, out
    assert (workdir / "pos.png").stat().st_size and (workdir / "game7.gif").stat().st_size
    assert set(json.loads((workdir / "pos.json").read_text())) == {"state"}
    data = np.load(workdir / "d.npz")
    assert set(data.files) == set(importlib.import_module("training.replay").DATASET_KEYS)
    assert set(data["players"].tolist()) == {"heuristic"} and data["observations"].dtype == np.float32


# ----------------------------------------------------------------------------- names


def test_dotted_names_and_sphinx_references_resolve() -> None:
    def resolves(dotted: str, module: str) -> bool:
        for cand in (dotted, f"{module}.{dotted}", f"{module.rsplit('.', 1)[0]}.{dotted}"):
            parts = cand.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    obj: Any = importlib.import_module(".".join(parts[:i]))
                except ImportError:
                    continue
                try:
                    for p in parts[i:]:
                        obj = getattr(obj, p)
                    return True
                except AttributeError:
                    # a method: ``Class.method`` of any class in the module
                    break
        return False

    # the modules of the optional extras import only with them: their names are checked where
    # the extra is installed
    missing = {
        part
        for part, needs in (("openspiel", "pyspiel"), ("rllib", "ray"))
        if importlib.util.find_spec(needs) is None
    }

    def extra(name: str) -> bool:
        return bool(missing & set(name.split(".")))

    checked = 0
    for rel, _name, doc in DOCS:
        module = rel[:-3].replace("/", ".").removesuffix(".__init__")
        if extra(module):
            continue
        for m in re.finditer(r"``((?:envs|training)(?:\.\w+)+)(?:\(\))?``", doc):
            assert extra(m.group(1)) or resolves(m.group(1), module), f"{rel}: ``{m.group(1)}``"
            checked += 1
        for m in re.finditer(r":(?:func|class|data|mod):`~?([\w.]+)`", doc):
            assert extra(m.group(1)) or resolves(m.group(1), module), f"{rel}: {m.group(0)}"
            checked += 1
    assert checked >= 60


def test_make_env_keywords_are_its_parameters() -> None:
    import inspect

    from training.single_agent import make_env, make_single_agent_env

    doc = make_env.__doc__ or ""
    params = inspect.signature(make_env).parameters
    assert "game" in params and any(p.kind is p.VAR_KEYWORD for p in params.values())
    view = set(inspect.signature(make_single_agent_env).parameters)
    assert {"seat", "partner"} <= view and "``game``" in doc


# ----------------------------------------------------------------------------- seeded fuzz


def test_fuzz_parse_bot_spec_in_the_documented_form() -> None:
    from envs.core.bots import parse_bot_spec

    doc = parse_bot_spec.__doc__ or ""
    m = re.search(r'``"([^"]+)"`` -> ``(\(.+\))``', doc)
    assert m and parse_bot_spec(m.group(1)) == ast.literal_eval(m.group(2))
    rng = np.random.default_rng(2024)
    for _ in range(300):
        name = str(rng.choice(["mcts", "random", "heuristic", "ismcts", "greedy"]))
        keys = rng.choice(
            ["sims", "c", "depth", "rollout", "prior", "time", "widen"],
            size=int(rng.integers(0, 4)),
            replace=False,
        )
        values: dict[str, Any] = {}
        for k in keys:
            kind = rng.integers(3)
            values[str(k)] = (
                int(rng.integers(0, 1000))
                if kind == 0
                else round(float(rng.random()), 3)
                if kind == 1
                else str(rng.choice(["random", "heuristic", "full", "auto"]))
            )
        spec = name + ((":" + ",".join(f"{k}={v}" for k, v in values.items())) if values else "")
        assert parse_bot_spec(spec) == (name, values), spec


def test_fuzz_word_table_hint_in_the_documented_form() -> None:
    from envs.core.notation import WordTable
    from envs.otto_game_over.notation import ACTION_STRINGS as OGO
    from envs.otto_octopus.encode import ACTION_STRINGS as OTP
    from envs.over_and_out.cards import ACTION_STRINGS as OAO

    doc = WordTable.__doc__ or ""
    flat = " ".join(doc.split())
    m = re.search(r'``hint\("([^"]+)"\)`` gives ``"(.+?)"``', flat)
    assert m and WordTable(OGO).hint(m.group(1)) == m.group(2)
    rng = np.random.default_rng(7)
    for table in (OGO, OTP, OAO):
        words = WordTable(table)
        for _ in range(150):
            words_of = str(rng.choice(table)).split(" ")
            i = int(rng.integers(len(words_of)))
            bad = "zz" + str(rng.integers(100))
            key = " ".join([*words_of[:i], bad, *words_of[i + 1 :]])
            hint = words.hint(key)
            assert f"got '{bad}'" in hint, (key, hint)
            prefix = " ".join(words_of[:i])
            assert (
                (f"after '{prefix}' comes one of" in hint)
                if prefix
                else hint.startswith("the first word is one of")
            )


def test_codec_docstring_tables_match_the_notation() -> None:
    from envs.otto_game_over.notation import ACTION_STRINGS as OGO
    from envs.otto_octopus.board import KINDS
    from envs.otto_octopus.encode import ACTION_STRINGS as OTP
    from envs.over_and_out.cards import ACTION_STRINGS as OAO

    sq5 = [f"{'abcde'[i % 5]}{i // 5 + 1}" for i in range(25)]
    effects = {0: "time-travel", 5: "revolution-cw", 6: "revolution-acw", 7: "meteorite"}
    for j in range(4):
        effects[1 + j] = f"magnetic-inversion player_{j}"
        effects[2508 + j] = f"alien-kidnapping player_{j}"
    for f in range(25):
        for t in range(25):
            for k in range(4):
                effects[8 + 100 * f + 4 * t + k] = f"quantum-leap {sq5[f]} {sq5[t]} r{k}"
    want = {
        100 * t + 4 * s + k: f"{w} {sq5[s]} r{k}"
        for t, w in enumerate(("drawn", "table"))
        for s in range(25)
        for k in range(4)
    }
    want |= {200: "no card", 5225: "card infinity", 5226: "card joker as infinity", 5227: "keep infinity"}
    for e, s in effects.items():
        want[201 + e], want[2713 + e] = f"card {s}", f"card joker as {s}"
    assert len(OGO) == len(want) == 5228 and all(OGO[i] == s for i, s in want.items())
    sq8 = [f"{'abcdefgh'[i % 8]}{i // 8 + 1}" for i in range(64)]
    want = {64 * k + s: f"place {KINDS[k]} {sq8[s]}" for k in range(16) for s in range(64)}
    want |= {1024: "pass", 1025: "stop"}
    want |= {1026 + k: f"return {KINDS[k]}" for k in range(16)}
    want |= {1042 + 4 * k + j: f"swap {KINDS[k]} player_{j}" for k in range(16) for j in range(4)}
    assert len(OTP) == 1106 and all(OTP[i] == s for i, s in want.items())
    assert OAO[:6] == tuple(f"play {n}" for n in range(6)) and OAO[6:] == (
        "play x2",
        "play -10",
        "play spin-out",
        "play top-out",
        "play topsy-turvy",
        "bust",
    )


@pytest.mark.parametrize(
    "game,params",
    [
        ("over_and_out", ["--param", "num_players=4"]),
        ("otto_game_over", ["--param", "num_players=4", "--param", "teams=true"]),
        ("otto_octopus", ["--param", "num_players=1"]),
    ],
)
def test_fuzz_replay_code_snippet_over_seeded_records(game: str, params: list[str], workdir: Path) -> None:
    out = workdir / f"r_{game}.jsonl"
    seed = str(int(np.random.default_rng(len(game)).integers(1000)))
    rc, _, err = _cli(
        [
            "eval",
            game,
            *params,
            "--players",
            "heuristic",
            "random",
            "--games",
            "2",
            "--seed",
            seed,
            "--records",
            str(out),
        ]
    )
    assert rc == 0, err
    assert _replay_records(out) >= 2


def test_fuzz_play_prints_moves_that_replay() -> None:
    """``play``'s docstring: on ``quit`` every seat's moves are printed in the form ``--moves``
    replays (with the game's ``--seed``, ``--param`` and ``--options``)."""
    rng = np.random.default_rng(11)
    cases = [
        ("octi", []),
        ("over_and_out", ["--param", "num_players=3"]),
        ("otto_game_over", []),
        ("otto_octopus", []),
    ]
    for game, params in cases:
        seed, k = str(int(rng.integers(100))), int(rng.integers(1, 5))
        base = ["play", game, *params, "--vs", "random", "--seed", seed]
        rc, out, err = _cli(base, "1\n" * k + "quit\n")
        m = re.search(r"moves so far \(\d+;.*?\): (.*)", out)
        assert rc == 0 and m, (game, err)
        rc, out2, err = _cli([*base, "--moves", m.group(1).strip()], "quit\n")
        m2 = re.search(r"moves so far \(\d+;.*?\): (.*)", out2)
        assert rc == 0 and m2 and m2.group(1).strip() == m.group(1).strip(), (game, err)


# ----------------------------------------------------------------------------- defects


def test_replay_save_advice_is_playable(workdir: Path) -> None:
    """``replay N --upto K --save`` suggests ``play --options @pos.json`` only for a position
    where the game goes on (that command then plays); a finished one is said to be over (game 7
    of the docstring's tournament ends before 30 moves)."""
    rc, out, err = _cli(["replay", "games.jsonl", "7", "--upto", "30", "--save", "pos7.json"])
    assert rc == 0, err
    assert "play on from there" not in out and "wrote pos7.json (the game is over there" in out
    rc, out, err = _cli(["replay", "games.jsonl", "7", "--upto", "10", "--save", "pos7.json"])
    assert rc == 0, err
    advice = re.search(r"play on from there: (eightfold play .*)", out)
    assert advice is not None, out
    argv = shlex.split(advice.group(1).replace("<bot or model>", "heuristic"))
    rc, _, err = _cli(argv[1:], "quit\n")
    assert rc == 0, err


def _octi_position_example() -> dict[str, Any]:
    doc = importlib.import_module("envs.octi.position").__doc__ or ""
    block = next(b for b in _blocks(doc) if b.startswith('{"board"'))
    return dict(json.loads(_code_of(block)))


def test_octi_position_docstring_example_loads() -> None:
    """The example of ``envs/octi/position.py`` loads in both X variants, as it says, and every
    key holds the value its default gives (the snapshot of ``board`` alone), OCT-09."""
    from envs.core.registry import get_game

    example = _octi_position_example()
    for variant in ("x_fast", "x_classic"):
        env = get_game("octi").env(variant=variant)
        env.reset(options={"position": example})
        assert env.unwrapped.snapshot() == {**example, "board": env.unwrapped.snapshot()["board"]}
        alone = get_game("octi").env(variant=variant)
        alone.reset(options={"position": {"board": example["board"]}})
        assert alone.unwrapped.snapshot() == env.unwrapped.snapshot()
