"""A bounded, seeded fuzz of the move notation of all four games (each spec's §8, the doc
pages' "Notation" sections, ``envs.core.notation``): every legal action of every reachable
state (seeded random play over every ``test_configs`` entry) round-trips through
``action_to_string`` / ``string_to_action``; canonical strings follow the §8 grammar and are
unique among a state's legal actions; reading ignores case, surrounding (Unicode) whitespace
and runs of spaces and nothing else; an index out of range prints as ``"illegal <a>"``; any
other input (mutated strings, unicode lookalikes, tabs between words, non-str values) raises
``ValueError`` whose message says what was expected, never another exception. Also Octi's
``moves`` reset option and the ``eightfold play`` prompt (``training/play.py``) fed a person's
odd lines, and Octi's indices decoded through its doc page's formula (absolute directions,
OCT-47; ``.k`` suffix exactly on a stack, OCT-09)."""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import pytest

from envs import octi_v0, otto_game_over_v0, otto_octopus_v0, over_and_out_v0
from envs.core.registry import GAMES
from envs.otto_game_over import notation as ogo
from envs.otto_octopus import encode as oto
from envs.over_and_out.cards import ACTION_STRINGS as OAO_STRINGS
from training.cli import build_parser
from training.play import play_vs

_POD = r"[a-i][1-9](?:\.\d)?"
_DIR = r"(?:N|NE|E|SE|S|SW|W|NW)"
_KIND = (
    r"(?:straight|turn-in|turn-out|end|end-shell|clownfish|butterflyfish|jellyfish|pufferfish"
    r"|starfish|seahorse|shark|moray|anglerfish|minnow|bubbles)"
)
_SQ5 = r"[a-e][1-5]"
_EFFECT = (
    rf"(?:time-travel|magnetic-inversion player_[0-3]|revolution-cw|revolution-acw|meteorite"
    rf"|quantum-leap {_SQ5} {_SQ5} r[0-3]|alien-kidnapping player_[0-3])"
)
#: the §8 grammar of each spec, canonical form (Octi: keywords lowercase, directions uppercase)
CANONICAL = {
    "octi": re.compile(
        rf"(?:(?:prong|step|jump) {_POD} {_DIR}|stop|(?:with|without|capture|spare) {_POD}"
        rf"|(?:enter|liberate) [a-i][1-9]|reposition {_POD} {_DIR} {_DIR})"
    ),
    "over_and_out": re.compile(r"play (?:[0-5]|x2|-10|spin-out|top-out|topsy-turvy)|bust"),
    "otto_game_over": re.compile(
        rf"(?:drawn|table) {_SQ5} r[0-3]|no card|card (?:joker as )?(?:{_EFFECT}|infinity)|keep infinity"
    ),
    "otto_octopus": re.compile(
        rf"place {_KIND} [a-h][1-8]|pass|stop|return {_KIND}|swap {_KIND} player_[0-3]"
    ),
}
#: Otto the Octopus and OTTO Game Over read any canonical string, legal now or not (their
#: doc pages); Octi and Over and Out refuse an illegal one with ValueError (both conform, §8)
ANY_INDEX = {"otto_game_over", "otto_octopus"}
LOOKALIKES = {
    "0": "\u0660",
    "1": "\uff11",
    "2": "\u00b2",
    "a": "\u0430",
    "e": "\u0435",
    "p": "\u0440",
    "-": "\u2212",
    "o": "\u043e",
    "c": "\u0441",
}
NOT_STRINGS: list[Any] = [None, b"stop", 5, 1.5, True, bytearray(b"bust"), ["pass"], np.bytes_(b"pass")]
JUNK_TEXT = ["", " ", "\t", "illegal 5", "x" * 5000, "stop " * 300, "play", "place", "card joker as", "1"]


def _mutations(s: str, rng: np.random.Generator) -> list[str]:
    """Strings near ``s`` that are not ``s`` read case- and space-insensitively."""
    w = s.split(" ")
    i = int(rng.integers(len(s)))
    j = int(rng.integers(len(w)))
    out = [
        " ".join(w[:j] + [w[j]] + w[j:]),  # a duplicated word
        s.replace(" ", "\t", 1),  # a tab between words
        s.replace(" ", "\n", 1),  # a line break between words
        s.replace(" ", "\u00a0", 1),  # a non-ASCII space between words
        s[:i] + "\u200b" + s[i:],  # a zero-width space inside
        s + " x",
        s + "\x00",
        s * 2,
    ]
    if len(w) > 1:
        out.append(" ".join(w[:j] + w[j + 1 :]))  # a dropped word
        out.append(s.replace(" ", "", 1))  # two words run together
    if s[i] in LOOKALIKES:
        out.append(s[:i] + LOOKALIKES[s[i]] + s[i + 1 :])
    return [m for m in out if m != s]  # (a one-word string has no space to replace)


def _same_action_spellings(s: str) -> list[str]:
    """Spellings the docs say read as ``s``: any case, surrounding Unicode whitespace, runs of
    spaces."""
    return [s.upper(), s.lower(), s.swapcase(), "  " + s.replace(" ", "   ") + " ", "\u3000" + s + "\n\t"]


def _parse_outcome(st: Any, text: Any) -> int | None:
    """The index ``text`` reads as, ``None`` for a ValueError with a message (any other
    exception fails the test)."""
    try:
        a = st.string_to_action(text)
    except ValueError as exc:
        assert len(str(exc)) > 20, f"{text!r}: an uninformative message {str(exc)!r}"
        return None
    assert isinstance(a, (int, np.integer)) and not isinstance(a, bool), (text, a)
    return int(a)


def _check_state(name: str, st: Any, rng: np.random.Generator) -> int:
    """Every contract of §8 in one state; returns the number of inputs tried."""
    tried = 0
    n = st.legal_mask().size
    legal = [int(a) for a in np.flatnonzero(st.legal_mask())] if not st.is_terminal() else []
    seen: dict[str, int] = {}
    for a in legal:
        s = st.action_to_string(a)
        assert CANONICAL[name].fullmatch(s), f"{name}: {s!r} is not in §8 canonical form"
        assert s not in seen, f"{name}: {s!r} names both {seen[s]} and {a}"
        seen[s] = a
        assert _parse_outcome(st, s) == a, f"{name}: {s!r} does not read back as {a}"
        tried += 1
    for a in (
        [legal[int(k)] for k in rng.choice(len(legal), size=min(4, len(legal)), replace=False)]
        if legal
        else []
    ):
        s = st.action_to_string(a)
        for v in _same_action_spellings(s):
            assert _parse_outcome(st, v) == a, f"{name}: {v!r} should read as {s!r}"
            tried += 1
        for v in _mutations(s, rng):
            got = _parse_outcome(st, v)
            tried += 1
            assert got is None, f"{name}: the mutated string {v!r} of {s!r} was accepted as {got}"
    for a in (-1, n, n + 7, 10**20):
        assert st.action_to_string(a) == f"illegal {a}"
    if name not in ANY_INDEX:  # an in-range index that is not legal names no legal action
        for a in (int(x) for x in rng.integers(0, n, 3)):
            if a not in legal:
                assert st.action_to_string(a) == f"illegal {a}"
    for a in (True, False, 1.0, "1", None):
        assert st.action_to_string(a).startswith("illegal")
    for x in [*NOT_STRINGS, *JUNK_TEXT]:
        got = _parse_outcome(st, x)
        tried += 1
        assert got is None, (name, x, got)
    return tried


@pytest.mark.parametrize("name", sorted(CANONICAL))
def test_notation_fuzz_every_config(name: str) -> None:
    """§8 of each spec over every test configuration: round trip, canonical form, uniqueness,
    case/space leniency and nothing more, ``illegal <a>``, ValueError for everything else."""
    game_class = GAMES[name].game_class()
    steps_per_game = 60 if name == "octi" else 200
    tried = 0
    for k, params in enumerate(game_class().test_configs):
        game = game_class(**params)
        rng = np.random.default_rng([k, 48])
        st = game.new_initial_state(np.random.default_rng(k))
        for _ in range(steps_per_game):
            tried += _check_state(name, st, rng)
            if st.is_terminal():
                break
            legal = np.flatnonzero(st.legal_mask())
            st.apply(int(legal[rng.integers(legal.size)]))
        tried += _check_state(name, st, rng)
    assert tried > 1000


def test_octi_indices_follow_the_doc_page_formula() -> None:
    """Octi's doc page: ADD/STEP/JUMP(p, e) = 8p + e (+8P, +16P), e egocentric, the string's
    direction absolute (OCT-47); ENTER/LIBERATE over the egocentric bases; REPOSITION(p, f, t);
    a pod named by its square, ``.k`` (rank of its id there) exactly on a stack (OCT-09)."""
    dirs = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    game_class = GAMES["octi"].game_class()
    checked = 0
    for k, params in enumerate(game_class().test_configs):
        game = game_class(**params)
        st = game.new_initial_state(np.random.default_rng(k))
        rng = np.random.default_rng(k + 100)
        big_p, big_k, names = st.P, st.K, st.geo.names
        own = [[st.pos[s * big_p + i] for i in range(big_k)] for s in range(2)]
        ego = [own[0] + own[1][::-1], own[1] + own[0][::-1]]
        for _ in range(60):
            if st.is_terminal():
                break
            s = st.to_move

            def pod(g: int) -> str:
                on = sorted(h for h in range(2 * big_p) if st.pos[h] == st.pos[g])  # noqa: B023
                return names[st.pos[g]] + (f".{on.index(g)}" if len(on) > 1 else "")  # noqa: B023

            legal = np.flatnonzero(st.legal_mask())
            for a in (int(x) for x in legal):
                text = st.action_to_string(a)
                if a < 24 * big_p:
                    kind, rest = divmod(a, 8 * big_p)
                    p, e = divmod(rest, 8)
                    want = f"{['prong', 'step', 'jump'][kind]} {pod(s * big_p + p)} {dirs[(e + 4 * s) % 8]}"
                elif a < 24 * big_p + 2 * big_k:
                    want = f"enter {names[ego[s][a - 24 * big_p]]}"
                elif a < 24 * big_p + 4 * big_k:
                    want = f"liberate {names[ego[s][a - 24 * big_p - 2 * big_k]]}"
                elif a < 24 * big_p + 4 * big_k + 5:
                    word = ["with", "without", "stop", "capture", "spare"][a - 24 * big_p - 4 * big_k]
                    want = text if text.split(" ")[0] == word else word
                else:
                    p, rest = divmod(a - 24 * big_p - 4 * big_k - 5, 64)
                    f, t = divmod(rest, 8)
                    want = f"reposition {pod(s * big_p + p)} {dirs[(f + 4 * s) % 8]} {dirs[(t + 4 * s) % 8]}"
                assert text == want, (params, a, text, want)
                checked += 1
            st.apply(int(legal[rng.integers(legal.size)]))
    assert checked > 1000


@pytest.mark.parametrize(
    ("table", "parse"),
    [
        (ogo.ACTION_STRINGS, ogo.string_to_action),
        (oto.ACTION_STRINGS, oto.parse_action),
        (
            OAO_STRINGS,
            GAMES["over_and_out"].game_class()().new_initial_state(np.random.default_rng(0)).string_to_action,
        ),
    ],
    ids=["otto_game_over", "otto_octopus", "over_and_out"],
)
def test_malformed_text_names_the_word_that_breaks_it(table: tuple[str, ...], parse: Any) -> None:
    """The doc pages: malformed text names the word that breaks it and the words allowed there
    (``after 'play' comes one of 0, 1, ..., got '9'``), or says the text stops short."""
    strings = set(table)
    prefixes = {" ".join(s.split(" ")[:k]) for s in table for k in range(1, len(s.split(" ")) + 1)}
    junk = ["x", "player_9", "r4", "z9", "a0", "play", "card", "as", "joker", "r-1", "a1", "5", "-10"]
    rng = np.random.default_rng(7)
    for _ in range(1500):
        words = table[int(rng.integers(len(table)))].split(" ")
        op = int(rng.integers(3))
        if op == 0:
            words[int(rng.integers(len(words)))] = junk[int(rng.integers(len(junk)))]
        elif op == 1:
            words = words[: int(rng.integers(len(words)))]
        else:
            words.insert(int(rng.integers(len(words) + 1)), junk[int(rng.integers(len(junk)))])
        text = " ".join(words)
        if text in strings:
            continue
        with pytest.raises(ValueError, match=r"malformed action") as info:
            parse(text)
        msg = str(info.value)
        i = 0
        while i < len(words) and " ".join(words[: i + 1]) in prefixes:
            i += 1
        if i == len(words):
            assert "incomplete" in msg or (not text and "empty" in msg), (text, msg)
        else:
            assert f"got '{words[i]}'" in msg or f"got '{' '.join(words[i:])}'" in msg, (text, msg)
        assert "expected" in msg


@pytest.mark.parametrize("module", [octi_v0, over_and_out_v0, otto_game_over_v0, otto_octopus_v0])
def test_env_notation_refuses_what_is_no_index_or_string(module: Any) -> None:
    """``env.unwrapped.action_to_string`` takes an int or numpy integer (a bool, float or
    string is a ValueError, as for ``step``); ``string_to_action`` of a non-str is a
    ValueError; numpy strings are strings."""
    env = module.env()
    env.reset(seed=3)
    raw = env.unwrapped
    for bad in (True, np.bool_(False), 1.0, "0", None, np.array([0])):
        with pytest.raises(ValueError, match="integer action index"):
            raw.action_to_string(bad)
    legal = np.flatnonzero(raw.state.legal_mask())
    for a in legal:
        text = raw.action_to_string(np.int64(a))
        assert raw.string_to_action(np.str_(text.upper())) == a
        assert raw.string_to_action(f" {text} ") == a
    for bad in NOT_STRINGS:
        with pytest.raises(ValueError, match=r"(a|notation|action) string"):
            raw.string_to_action(bad)
    n = raw.state.legal_mask().size
    assert raw.action_to_string(n) == f"illegal {n}"
    assert raw.action_to_string(np.int64(-1)) == "illegal -1"


def test_octi_moves_option_reads_notation_and_refuses_the_rest() -> None:
    """Octi's ``moves`` reset option plays notation strings (read as ``string_to_action``
    reads them); anything else is a ValueError naming the option and the entry."""
    env = octi_v0.env()
    for moves in (
        ["prong c2 N", "prong d6 S"],
        ("PRONG  c2 n ", "\u3000prong D6 s"),
        [np.str_("prong c2 N")],
    ):
        env.reset(seed=0, options={"moves": moves})
        assert env.unwrapped.snapshot()["turn"] == len(moves)
    for moves in ("prong c2 N", ["prong c2 N", None], [b"prong c2 N"], [1], np.array(["prong c2 N"])):
        with pytest.raises(ValueError, match="option 'moves' must be a list of notation strings"):
            env.reset(seed=0, options={"moves": moves})
    for moves, i in ((["prong c2\tN"], 0), ([""], 0), (["prong c2 N", "prong c2 N"], 1), (["illegal 0"], 0)):
        with pytest.raises(ValueError, match=rf"option 'moves'\[{i}\]") as info:
            env.reset(seed=0, options={"moves": moves})
        assert "expected" in str(info.value) or "legal:" in str(info.value)


ODD_LINES = [
    "0",
    "00",
    "+1",
    "-1",
    "\uff11",
    "\u0663",
    "1.0",
    "9" * 300,
    "x" * 250,
    "\x00",
    "\x1b[A",
    "\uff50\uff41\uff53\uff53",
    "pass;stop",
    "illegal 3",
    "9999",
    "stop stop",
    "Prong b2 n",
    "No Card",
    "pass\u200b",
    "bust",
    "play 9",
    "place moray d4",
    "card quantum-leap c3 c3 r0",
]


@pytest.mark.parametrize("env_id", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
def test_play_prompt_survives_odd_lines(env_id: str) -> None:
    """``eightfold play``: a person's odd lines are answered (never a traceback) and the game
    goes on; a game of list numbers ends with a move record that ``--moves`` replays (the
    README)."""
    args = build_parser().parse_args(["play", env_id, "--vs", "random", "--seed", "5"])
    lines = []
    for i in range(400):
        lines += [ODD_LINES[(3 * i) % len(ODD_LINES)], ODD_LINES[(3 * i + 1) % len(ODD_LINES)], "1"]
    out = io.StringIO()
    assert play_vs(args, io.StringIO("\n".join(lines) + "\nquit\n"), out) == 0
    text = out.getvalue()
    assert "Traceback" not in text
    assert "game over" in text
    for answer in (
        "not a move: a line of 300 characters",
        "no move numbered 0",
        "not a legal move: malformed",
    ):
        assert answer in text
    record = re.search(r"moves so far \(\d+;.*?: (.*)$", text, re.M)
    assert record is not None
    env = GAMES[env_id].env()
    from training.position import reset_to_position

    reset_to_position(env, 5, None, record.group(1))
    assert env.unwrapped.state.is_terminal()
