"""A new researcher's paths through the README and the doc pages, driven as written.

What ``tests/test_examples.py`` already runs (the README's fenced Python blocks, the lines of
its "Command line" block, each page's usage block) is not repeated here. This file takes the
rest of the text a reader copies: the inline ``eightfold ...`` commands of the README's prose,
the doc pages and ``docs/*.md``; the inline Python calls of the README and the pages; the
alternatives the README's blocks give in comments (``# or: ...``); the ``python -c`` line that
prints a doc page; the paths the text names; and the research loops the README describes
(the AEC loop of "Use in research code" and PettingZoo's ``turn_based_aec_to_parallel`` after
a knock-out), fuzzed over seeded configurations against what the README promises of them.
Each snippet is read from the text itself, so a change of the text to something broken fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("octi", "over_and_out", "otto_game_over", "otto_octopus")
HAVE_PYSPIEL = importlib.util.find_spec("pyspiel") is not None


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def _page(name: str) -> str:
    return importlib.import_module(f"envs.{name}.env").__doc__ or ""


def _texts() -> dict[str, str]:
    """The README, the four doc pages and ``docs/*.md``, by name."""
    out = {"README.md": _readme()}
    for name in GAMES:
        out[f"envs/{name}/env.py"] = _page(name)
    for path in sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "results").glob("*.md")):
        out[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return out


def _without_fences(text: str) -> str:
    """The text with its fenced blocks removed (their lines are tested elsewhere), so the
    backticks of inline code pair up."""
    return re.sub(r"^ *```.*?^ *```", "", text, flags=re.M | re.S)


def _inline_spans(text: str) -> list[str]:
    """Inline code spans (``x`` or ``x``), whitespace collapsed (a span may wrap a line)."""
    body = _without_fences(text)
    spans = re.findall(r"``(.+?)``", body, flags=re.S)
    spans += re.findall(r"(?<!`)`([^`]+?)`(?!`)", re.sub(r"``.+?``", "", body, flags=re.S), flags=re.S)
    return [" ".join(s.split()) for s in spans]


# --------------------------------------------------------------------- inline commands

PLACEHOLDER = re.compile(r"<|\.\.\.|…|\b(?:FILE|N|K|S|P|G|M1|M2)\b")


COMMAND = re.compile(r"(?:^|[\s/])(eightfold (?:list|play|render|bench|replay|train|eval)\b.*)")


def _fenced_command_lines(text: str) -> list[str]:
    """``eightfold ...`` lines of the fenced blocks other than the README's "Command line" block
    (``tests/test_examples.py`` parses that one): continuation lines joined, comments and
    ``&&``-chained set-up dropped."""
    out = []
    body = re.sub(r"^## Command line\n+```\n.*?^```", "", text, flags=re.M | re.S)
    for block in re.findall(r"^ *```[a-z]*\n(.*?)^ *```", body, flags=re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.split(r"\s#", line, maxsplit=1)[0].split("&&")[-1].strip()
            m = COMMAND.search(line)
            if m and not line.startswith("#"):
                out.append(m.group(1).strip())
    return out


def _inline_commands() -> list[tuple[str, str]]:
    out = []
    for name, text in _texts().items():
        spans = [m.group(1) for s in _inline_spans(text) if (m := COMMAND.search(s))]
        for span in spans + _fenced_command_lines(text):
            if PLACEHOLDER.search(span):
                continue
            span = re.sub(r"\s+\[[^\]]*\]", "", span).strip()  # optional parts, not a quoted list
            out.append((name, span))
    return out


def test_inline_commands_of_the_prose_parse_as_written() -> None:
    """Every ``eightfold ...`` span of the README's prose, the doc pages and ``docs/*.md`` that is
    a whole command (no placeholder such as ``<game>`` or ``FILE``) is accepted by the parser:
    its subcommand and options exist and take the values shown. A span that only names a
    command or an option (``eightfold train``, ``eightfold eval --records``) is a reference, not
    a command line; those are allowed to stop short, but nothing else may fail."""
    from training.cli import build_parser

    commands = _inline_commands()
    assert len(commands) >= 20, commands  # the README's "Reproduce:" lines among them
    assert any("--eval-games 400" in c for _, c in commands)
    whole = 0
    for name, line in commands:
        words = shlex.split(line)
        fragment = len(words) <= 3 and (len(words) == 2 or words[-1].startswith("--"))
        try:
            build_parser().parse_args(words[1:])
            whole += 1
        except SystemExit as exc:
            assert fragment, f"{name}: inline command does not parse: {line!r}"
            assert exc.code == 2
    assert whole >= 15


def test_every_set_key_the_text_names_is_a_training_setting() -> None:
    """``--set K=V`` in the README, the pages and ``docs/`` (``--set pretrain_samples=0``,
    ``--set 'cnn_channels=[32,32]'``, ``--set policy=sb3``, ...) names a field of
    ``training.config.TrainConfig`` (what ``--set`` sets), so the reader's copy is no usage
    error."""
    import dataclasses

    from training.config import TrainConfig

    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    keys = []
    for name, text in _texts().items():
        spans = _inline_spans(text) + _fenced_command_lines(text)
        for span in spans:
            keys += [(name, m.group(1)) for m in re.finditer(r"--set '?([a-z_]\w*)=", span)]
    assert len(keys) >= 30
    assert {k for _, k in keys} >= {"pretrain_samples", "shaping", "policy", "torch_threads"}
    for name, key in keys:
        assert key in fields, f"{name}: --set {key}=... is no training setting"


# ------------------------------------------------------------------ inline Python calls

CALL = re.compile(
    r"^(?:pyspiel\.load_game|eos\.load_game|gymnasium\.make|pettingzoo\.make|\w+_v0\.(?:env|raw_env)"
    r"|EightfoldBot|env\.unwrapped\.(?:string_to_action|snapshot|game\.symmetries))\(.*\)$"
)


def _inline_calls() -> list[tuple[str, str]]:
    out = []
    for name, text in _texts().items():
        for span in _inline_spans(text):
            if CALL.match(span) and not re.search(r"<|\.\.\.|record\[|\((?:a|text)\)", span):
                out.append((name, span))
    return out


def test_inline_python_calls_run_as_written() -> None:
    """The calls the README and the pages show inline (``pyspiel.load_game("eightfold_octi",
    {"variant": "x_fast"})``, ``gymnasium.make("eightfold/otto_octopus-single-v0",
    opponents=["heuristic"], num_players=2)``, ``EightfoldBot(game, "heuristic", seed=0)``,
    ``env.unwrapped.string_to_action("prong c2 N")``, ...) run in the namespace the text sets up
    around them: ``env`` an Octi env after ``reset``, ``game`` an OpenSpiel game."""
    import gymnasium
    import pettingzoo

    import envs
    import training  # noqa: F401 - registers the single-agent ids, as the README says
    from envs import octi_v0, otto_game_over_v0, otto_octopus_v0, over_and_out_v0

    calls = _inline_calls()
    assert any("string_to_action" in c for _, c in calls) and any("gymnasium.make" in c for _, c in calls)
    scope: dict[str, Any] = {
        "np": np,
        "gymnasium": gymnasium,
        "pettingzoo": pettingzoo,
        "envs": envs,
        "octi_v0": octi_v0,
        "over_and_out_v0": over_and_out_v0,
        "otto_game_over_v0": otto_game_over_v0,
        "otto_octopus_v0": otto_octopus_v0,
    }
    ran = 0
    for name, code in calls:
        if ("pyspiel" in code or "eos." in code or "EightfoldBot" in code) and not HAVE_PYSPIEL:
            continue
        if HAVE_PYSPIEL:
            import pyspiel

            import envs.core.openspiel as eos

            scope.update(pyspiel=pyspiel, eos=eos, EightfoldBot=eos.EightfoldBot)
            scope["game"] = pyspiel.load_game("eightfold_over_and_out")
        env = octi_v0.env()
        env.reset(seed=0)
        scope["env"] = env
        try:
            eval(code, scope)  # noqa: S307 - the documentation's own code
        except Exception as exc:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"{name}: {code!r} raised {type(exc).__name__}: {exc}") from exc
        ran += 1
    assert ran >= 4


def _readme_or_alternatives() -> list[str]:
    """The ``# or: ...`` alternatives the README's fenced Python blocks give in comments."""
    out = []
    for m in re.finditer(r"^( *)```python\n(.*?)^\1```", _readme(), re.M | re.S):
        for line in textwrap.dedent(m.group(2)).splitlines():
            alt = re.search(r"#\s*or:\s*(.+)$", line)
            if alt:
                out.append(alt.group(1).strip())
    return out


def test_the_readme_blocks_commented_alternatives_build_the_same_thing() -> None:
    """README, "Use in research code": ``# or: from envs import octi_v0; env =
    octi_v0.env(variant="x_fast", render_mode="rgb_array")`` builds the env of
    ``pettingzoo.make("aec", "eightfold/octi-v0", variant="x_fast")`` (same spaces and deal), and
    renders a picture; "OpenSpiel": ``# or: game = eos.load_game("over_and_out", num_players=3,
    rng_seed=7)`` is the game ``pyspiel.load_game`` loads on the line above."""
    import pettingzoo

    import envs  # noqa: F401 - registers the ids

    alternatives = _readme_or_alternatives()
    env_alt = [a for a in alternatives if "octi_v0" in a]
    assert env_alt, alternatives
    scope: dict[str, Any] = {}
    exec(env_alt[0], scope)  # noqa: S102 - the README's own code
    alt = scope["env"]
    ref = pettingzoo.make("aec", "eightfold/octi-v0", variant="x_fast")
    alt.reset(seed=42)
    ref.reset(seed=42)
    assert alt.action_space("player_0") == ref.action_space("player_0")
    assert alt.observation_space("player_0") == ref.observation_space("player_0")
    assert np.array_equal(alt.observe("player_0")["observation"], ref.observe("player_0")["observation"])
    picture = alt.render()
    assert isinstance(picture, np.ndarray) and picture.ndim == 3 and picture.shape[2] == 3

    os_alt = [a for a in alternatives if "eos.load_game" in a]
    assert os_alt, alternatives
    if not HAVE_PYSPIEL:
        return
    import pyspiel

    import envs.core.openspiel as eos

    scope = {"eos": eos}
    exec(os_alt[0], scope)  # noqa: S102
    line = re.search(r'pyspiel\.load_game\("eightfold_over_and_out", \{[^}]*\}\)', _readme())
    assert line is not None
    ref_game = eval(line.group(0), {"pyspiel": pyspiel})  # noqa: S307
    assert scope["game"].get_parameters() == ref_game.get_parameters()
    a, b = scope["game"].new_initial_state(), ref_game.new_initial_state()
    assert a.observation_tensor(0) == b.observation_tensor(0)  # the same first deal


def test_the_doc_page_command_prints_the_page(tmp_path: Path) -> None:
    """README: ``python -c "import envs.octi.env as m; print(m.__doc__)"`` prints Octi's doc
    page (run as written, from a folder outside the checkout)."""
    m = re.search(r'`python -c "(import envs\.octi\.env as m; print\(m\.__doc__\))"`', _readme())
    assert m is not None, "the README no longer shows how to print a doc page"
    out = subprocess.run(
        [sys.executable, "-c", m.group(1)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Octi — ``eightfold/octi-v0``")
    assert out.stdout.strip() == _page("octi").strip()


# ------------------------------------------------------------------------ named paths


def test_the_paths_the_readme_names_exist() -> None:
    """Links, examples, configs and modules the README names are where it says (relative to
    the repository root), and every example the README names is a script of ``examples/``."""
    text = _readme()
    links = [t for t in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in t]
    named = re.findall(
        r"`((?:docs|examples|configs|training|envs|tests|\.ci)/[\w./-]+\.(?:py|md|yaml|txt|png))`", text
    )
    assert len(links) >= 5 and len(named) >= 10
    for path in links + named:
        assert (ROOT / path).exists(), path
    for script in set(re.findall(r"examples/(\w+\.py)", text)):
        assert (ROOT / "examples" / script).is_file(), script
    for game in GAMES:
        assert (ROOT / "configs" / f"{game}.yaml").is_file()  # `configs/<game>.yaml`


# ------------------------------------------------------- the research loop, fuzzed

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("octi", {}),
    ("octi", {"variant": "x_fast", "max_turns": 12}),
    ("octi", {"variant": "x_classic", "max_turns": 8}),
    ("octi", {"edgeless": True, "repetition_draw": True, "max_turns": 30}),
    ("over_and_out", {"num_players": 2}),
    ("over_and_out", {"num_players": 3}),
    ("over_and_out", {"num_players": 5, "starting_chips": 1}),
    ("over_and_out", {"num_players": 4, "reward_mode": "winner_only"}),
    ("over_and_out", {"num_players": 4, "starting_chips": 1, "max_plays": 12}),
    ("otto_game_over", {"episode": "match"}),
    ("otto_game_over", {"num_players": 3, "target_score": 4}),
    ("otto_game_over", {"num_players": 4, "teams": True, "episode": "match"}),
    ("otto_game_over", {"num_players": 1}),
    ("otto_game_over", {"max_matches": 1, "target_score": 200}),
    ("otto_octopus", {}),
    ("otto_octopus", {"num_players": 3, "open_game": True}),
    ("otto_octopus", {"num_players": 4, "simplified": True}),
    ("otto_octopus", {"num_players": 1}),
    ("otto_octopus", {"max_steps": 6}),
]


def _expected_final_returns(game: str, params: dict[str, Any], returns: np.ndarray, truncated: bool) -> None:
    """README "Rewards and episode ends" (the spec's §5 on each doc page): the final returns of
    a game that ended by its rules or at its limit have the promised form."""
    n = len(returns)
    if game == "octi":  # +1 / -1, or 0 / 0 for a draw (OCT-42..45)
        assert sorted(returns.tolist()) in ([-1.0, 1.0], [0.0, 0.0])
        if truncated:
            assert returns.tolist() == [0.0, 0.0]
    elif game == "otto_octopus" and n >= 2:
        if truncated:  # the max_steps truncation pays 0
            assert not returns.any()
        else:  # k best seats (n-k)/(k(n-1)), the others -1/(n-1)
            best = returns.max()
            k = int(np.isclose(returns, best).sum())
            want = [(n - k) / (k * (n - 1)) if np.isclose(r, best) else -1 / (n - 1) for r in returns]
            assert np.allclose(returns, want if k < n else 0.0), (returns, want)
    elif game == "otto_octopus":  # solo: final score / 100 (OTP-40), worst about -0.6
        assert -1.0 < returns[0] <= 1.0
    elif game == "over_and_out" and params.get("reward_mode", "placement") == "placement" and not truncated:
        want = sorted([-1 + 2 * j / (n - 1) for j in range(n - 1)] + [1.0])  # j-th out, winner +1
        assert np.allclose(sorted(returns), want), returns
    elif game == "over_and_out" and params.get("reward_mode") == "winner_only":
        assert set(np.round(returns, 9).tolist()) <= {-1.0, 0.0, 1.0}
    elif game == "otto_game_over" and n >= 2 and params.get("episode", "game") == "game":
        teams = 2 if params.get("teams") else n
        if truncated:  # 0 at the max_matches truncation
            assert not returns.any()
        else:
            vals = set(np.round(returns, 9).tolist())
            allowed = {round(-1 / (teams - 1), 9)} | {
                round((teams - k) / (k * (teams - 1)), 9) for k in range(1, teams + 1)
            }
            assert vals <= allowed, (returns, allowed)
    elif game == "otto_game_over" and n >= 2:  # one match: (own - mean of the others) / 32
        assert abs(returns.sum()) < 1e-9 and np.all(np.abs(returns) <= 1.0)
    elif game == "otto_game_over":  # solo: max(score, 0)/32 for a victory, -1 for a defeat
        assert returns[0] == -1.0 or 0.0 <= returns[0] <= 1.0


def _readme_loop(env: Any, seed: int) -> tuple[int, int, dict[str, float]]:
    """The loop of the README's "Use in research code" block, with the checks of its bullets."""
    rng = np.random.default_rng([seed, 1])  # the policy's own stream, as the README draws it
    space = env.observation_space(env.possible_agents[0])
    paid = {a: 0.0 for a in env.possible_agents}
    decisions = steps = 0
    limit = env.unwrapped.game.max_game_length + len(env.possible_agents)
    for agent in env.agent_iter(max_iter=limit + 1):
        obs, reward, termination, truncation, _info = env.last()
        paid[agent] += reward
        assert space["observation"].contains(obs["observation"]) and obs["action_mask"].dtype == np.int8
        for other in env.agents:  # only the selected agent has a non-zero mask
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), (agent, other)
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            assert isinstance(env.unwrapped.action_to_string(action), str)
            decisions += 1
        env.step(action)
        steps += 1
    return decisions, steps, paid


def test_fuzz_the_readme_research_loop_keeps_the_readmes_promises() -> None:
    """Seeded random play through ``pettingzoo.make("aec", ...)`` with the README's loop, over
    19 configurations of the four games x 3 seeds (the limits set low so truncations happen):
    the game ends within ``max_game_length`` decisions plus at most one dead step per agent,
    only the selected agent's mask is non-zero, observations lie in their space, the rewards
    of the episode sum to ``state.returns()``, the final returns have the form of "Rewards and
    episode ends", and the same seed repeats the episode."""
    import pettingzoo

    import envs  # noqa: F401 - registers eightfold/<game>-v0

    episodes = 0
    for game, params in CONFIGS:
        for seed in range(3):
            env = pettingzoo.make("aec", f"eightfold/{game}-v0", **params)
            env.reset(seed=seed)
            n = len(env.possible_agents)
            decisions, steps, paid = _readme_loop(env, seed)
            assert not env.agents, (game, params, seed)
            assert decisions <= env.unwrapped.game.max_game_length
            assert steps <= decisions + n
            state = env.unwrapped.state
            returns = np.asarray(state.returns(), dtype=float)
            assert np.allclose([paid[a] for a in env.possible_agents], returns), (game, params, seed)
            _expected_final_returns(game, params, returns, bool(state.is_truncated()))
            again = pettingzoo.make("aec", f"eightfold/{game}-v0", **params)
            again.reset(seed=seed)
            assert _readme_loop(again, seed) == (decisions, steps, paid)
            episodes += 1
    assert episodes == 3 * len(CONFIGS)


def test_fuzz_turn_based_parallel_after_a_knock_out_as_the_readme_says() -> None:
    """README (OAO-40): "after a knock-out PettingZoo's ``turn_based_aec_to_parallel`` returns
    all-zero masks (it observes before the dead step); the seat to move is then
    ``par.aec_env.agent_selection``, and ``par.aec_env.observe(that_seat)`` gives its mask". A
    parallel loop written from that sentence plays every seeded game to its end, paying what
    the engine's ``returns()`` hold."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    from envs import over_and_out_v0

    knocked = 0
    for seed in range(8):
        players = 3 + seed % 3
        par = turn_based_aec_to_parallel(
            over_and_out_v0.env(num_players=players, starting_chips=1 + seed % 2)
        )
        obs, _infos = par.reset(seed=seed)
        rng = np.random.default_rng([seed, 1])
        paid = dict.fromkeys(par.possible_agents, 0.0)
        for _ in range(5_000):
            if not par.agents:
                break
            live = [a for a in par.agents if obs[a]["action_mask"].any()]
            assert len(live) <= 1  # only the seat to move has a mask
            if live:
                seat, mask = live[0], obs[live[0]]["action_mask"]
            else:  # a knock-out: every mask is zero, the README names where the mask is
                knocked += 1
                seat = par.aec_env.agent_selection
                mask = par.aec_env.observe(seat)["action_mask"]
                assert mask.any(), "the seat to move has no mask after a knock-out"
            actions = dict.fromkeys(par.agents, 0)
            actions[seat] = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, _term, _trunc, _infos = par.step(actions)
            for agent, reward in rewards.items():
                paid[agent] += reward
        assert not par.agents
        returns = par.aec_env.unwrapped.state.returns()
        assert np.allclose([paid[a] for a in par.possible_agents], returns)
    assert knocked >= 8


@pytest.mark.skipif(not HAVE_PYSPIEL, reason="the openspiel extra is not installed")
def test_openspiel_block_deals_the_kth_state_from_rng_seed_k_as_the_readme_says() -> None:
    """README "OpenSpiel": "the k-th initial state a program makes is dealt from
    ``numpy.random.default_rng([rng_seed, k])``", checked against the engine for the README's
    own game line (``num_players`` 3, ``rng_seed`` 7), then that block's loop to the end."""
    import json

    import pyspiel

    import envs.core.openspiel  # noqa: F401 - registers eightfold_<game>
    from envs.over_and_out.game import OverAndOutGame

    game = pyspiel.load_game("eightfold_over_and_out", {"num_players": 3, "rng_seed": 7})
    engine = OverAndOutGame(num_players=3)
    for k in range(3):
        state = game.new_initial_state()
        want = engine.new_initial_state(np.random.default_rng([7, k]))
        assert json.dumps(state.engine.to_dict(), sort_keys=True) == json.dumps(
            want.to_dict(), sort_keys=True
        )
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
        assert abs(sum(state.returns())) < 1e-9  # ZERO_SUM with the default placement rewards


@pytest.mark.parametrize(
    ("env_id", "params"),
    [
        ("eightfold/octi-v0", {"variant": "x_fast", "max_turns": 40}),
        ("eightfold/over_and_out-v0", {"num_players": 3}),
        ("eightfold/otto_game_over-v0", {"episode": "match"}),
        ("eightfold/otto_octopus-v0", {"num_players": 3}),
    ],
)
def test_a_game_record_replays_through_pettingzoo_as_the_readme_says(
    env_id: str, params: dict[str, Any]
) -> None:
    """README "Game records": ``env.reset(options=record["options"])`` "sets up that exact state,
    hidden cards and the state's own generator included, so the rest of the game's chance
    follows"; the record's moves in notation, fed through ``string_to_action`` in the README's
    AEC loop, end the game with the record's returns, paid as the episode's rewards."""
    import json

    import pettingzoo

    import envs  # noqa: F401 - registers the ids
    from training.evaluate import run_tournament

    name = env_id.split("/")[1].removesuffix("-v0")
    result = run_tournament(name, params, ["random", "greedy"], games=2, seed=5, workers=1, records=True)
    records = [json.loads(json.dumps(r)) for r in result["records"]]  # as the JSON lines hold them
    assert len(records) == 2
    for record in records:
        env = pettingzoo.make("aec", record["env"], **record["params"])
        env.reset(options=record["options"])
        moves = list(record["moves"])
        paid = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _obs, reward, termination, truncation, _info = env.last()
            paid[agent] += reward
            env.step(None if termination or truncation else env.unwrapped.string_to_action(moves.pop(0)))
        assert not moves
        assert np.allclose(env.unwrapped.state.returns(), record["returns"])
        assert np.allclose([paid[a] for a in env.possible_agents], record["returns"])
