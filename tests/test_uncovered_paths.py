"""Paths of ``envs/`` that no other test reached (branch coverage round, 2026-12-07).

Each test builds the situation that runs one such line and checks the outcome against the
rules spec (rule IDs cited) or the documented API contract. Lines found unreachable are
listed, with the reason, outside the repository (the round's report); nothing here mocks.
"""

from __future__ import annotations

import copy
import dataclasses
import errno
import sys
from pathlib import Path

import numpy as np
import pytest

from envs.core.bots import make_bot
from envs.core.config import check_choice, config_to_dict, describe_params
from envs.core.files import append_line, replacing, write_text
from envs.core.mcts import measure_sims_per_second, resolve_params, share_values
from envs.core.registry import GAMES, get_game


def _game(name: str, **params: object):  # noqa: ANN202 - the game's own class
    return GAMES[name].game_class()(**params)


# ------------------------------------------------------------------------ Octi


def test_octi_empty_options_is_the_setup() -> None:
    """OCT-03: ``options={}`` is no option at all: the §2 setup, the same as ``options=None``
    (envs/octi/game.py, the empty-mapping return)."""
    game = _game("octi")
    plain = game.new_initial_state(np.random.default_rng(5))
    empty = game.new_initial_state(np.random.default_rng(5), {})
    assert empty.snapshot() == plain.snapshot()
    assert empty.legal_actions() == plain.legal_actions()


def test_octi_side_with_only_reserve_pods_enters_oct36_oct44() -> None:
    """OCT-36 / OCT-44: an Octi-X side with no pod on the board but pods in reserve has not
    lost: its only actions are entering its lowest-id reserve pod onto an empty own base. The
    heuristic bot scores the opponent's moves against such a side (its progress term for a
    side without a board pod, envs/octi/bots.py) and plays a legal move."""
    game = _game("octi", variant="x_fast")
    pos = {"board": {"d6": [[1, "S"]]}, "to_move": 0}
    st = game.new_initial_state(np.random.default_rng(0), {"position": pos})
    assert not st.is_terminal()
    assert sorted(st.action_to_string(a) for a in st.legal_actions()) == ["enter c3", "enter e3", "enter g3"]
    st.apply(st.string_to_action("enter e3"))
    snap = st.snapshot()
    assert snap["board"]["e3"] == [[0, ""]]  # OCT-36: it enters with no prongs
    assert snap["reserve"][0] == 6

    # player_1 to move against a side with every pod in reserve
    st = game.new_initial_state(np.random.default_rng(0), {"position": {**pos, "to_move": 1}})
    bot = make_bot(game, "heuristic", GAMES["octi"].bots())
    legal = st.legal_actions()
    values = [bot.score(st, 1, a, np.random.default_rng(0)) for a in legal]
    assert all(np.isfinite(values))
    assert bot.act(st, 1, np.random.default_rng(0)) in legal


# -------------------------------------------------------------- OTTO Game Over


def _ogo_kidnap_state():  # noqa: ANN202
    """A 2-player secret-cards game played at random (seed 9) to a KIDNAP decision with a
    choice (found by a search script)."""
    from envs.otto_game_over.rules import KIDNAP

    game = _game("otto_game_over", secret_cards=True, num_players=2)
    rng = np.random.default_rng(9)
    st = game.new_initial_state(rng)
    while not (st.phase == KIDNAP and len(st.legal_actions()) > 1):
        assert not st.is_terminal()
        la = st.legal_actions()
        st.apply(int(la[rng.integers(len(la))]))
    return game, st


def test_ogo_greedy_bot_plays_a_kidnapped_card_ogo43_ogo44() -> None:
    """OGO-43 / OGO-44: in the KIDNAP phase the kidnapper must play the kidnapped card, the
    mask offering exactly its legal uses; the greedy bot picks one of them (at random, from
    its own rng: envs/otto_game_over/bots.py) and leaves the state untouched."""
    game, st = _ogo_kidnap_state()
    before = st.to_dict()
    legal = st.legal_actions()
    bot = make_bot(game, "greedy", GAMES["otto_game_over"].bots())
    picks = {bot.act(st, st.current_player(), np.random.default_rng(s)) for s in range(12)}
    assert picks <= set(legal)
    assert len(picks) > 1  # a random pick among the uses, not always the first
    assert st.to_dict() == before
    st.apply(picks.pop())  # the pick is playable


def test_ogo_heuristic_score_is_scores_of_one() -> None:
    """The ``ScoringBot`` contract: ``score(state, p, a)`` is the value ``scores`` gives ``a``
    (envs/otto_game_over/bots.py ``HeuristicBot.score``), here on a placement decision."""
    from envs.otto_game_over.rules import PLACE

    game = _game("otto_game_over", num_players=2)
    rng = np.random.default_rng(3)
    st = game.new_initial_state(rng)
    while st.phase != PLACE:
        la = st.legal_actions()
        st.apply(int(la[rng.integers(len(la))]))
    bot = make_bot(game, "heuristic", GAMES["otto_game_over"].bots())
    legal = st.legal_actions()[:6]
    p = st.current_player()
    many = bot.scores(st, p, legal, np.random.default_rng(0))
    one = [bot.score(st, p, a, np.random.default_rng(0)) for a in legal]
    assert one == many


# --------------------------------------------------------------- Over and Out


def test_over_and_out_deck_counts_copy_is_itself() -> None:
    """The read-only ``Config.deck_counts`` (doc page §6 parameters) copies as itself, as it
    deep-copies: a copy cannot be edited either (envs/over_and_out/config.py ``__copy__``)."""
    cfg = _game("over_and_out").config
    assert copy.copy(cfg.deck_counts) is cfg.deck_counts
    assert copy.deepcopy(cfg.deck_counts) is cfg.deck_counts
    with pytest.raises(TypeError, match="read-only"):
        copy.copy(cfg.deck_counts)["spin-out"] = 0  # type: ignore[index]


def test_over_and_out_state_dict_config_must_be_a_dict() -> None:
    """A state dict whose ``config`` is no dict is refused naming the config (the ``state``
    reset option; envs/over_and_out/config.py ``config_from_params``)."""
    game = _game("over_and_out")
    d = game.new_initial_state(np.random.default_rng(0)).to_dict()
    d["config"] = 5
    with pytest.raises(ValueError, match="config"):
        type(game.new_initial_state(np.random.default_rng(0))).from_dict(d)


# ------------------------------------------------------------------------ core


def test_game_takes_a_config_object() -> None:
    """``Game(config)`` with the game's own config class keeps that config
    (envs/core/game.py ``Game.__init__``)."""
    cls = GAMES["octi"].game_class()
    cfg = cls.config_class(variant="x_classic")
    game = cls(cfg)
    assert game.config is cfg
    assert game.new_initial_state(np.random.default_rng(0)).snapshot()["reserve"] == [4, 4]


def test_state_option_config_of_no_game_names_the_key() -> None:
    """The ``state`` reset option with a config whose keys match no installed game: the error
    names the unknown key (envs/core/game.py ``_check_state_game`` looks through every game)."""
    game = _game("octi")
    d = game.new_initial_state(np.random.default_rng(0)).to_dict()
    d["config"] = {**d["config"], "no_such_parameter": 1}
    with pytest.raises(ValueError, match="no_such_parameter"):
        game.new_initial_state(np.random.default_rng(0), {"state": d})


def test_get_game_needs_a_string() -> None:
    """``get_game`` of a non-string names what it got (envs/core/registry.py)."""
    with pytest.raises(ValueError, match="named by a string.*42"):
        get_game(42)  # type: ignore[arg-type]


def test_check_choice_accepts_none_among_choices() -> None:
    """``check_choice`` accepts ``None`` where ``None`` is a choice, and still names the
    parameter for anything else (envs/core/config.py)."""
    check_choice("opponent", None, ("random", None))
    with pytest.raises(ValueError, match="opponent must be one of"):
        check_choice("opponent", 0, ("random", None))


def test_config_helpers_on_a_dataclass_with_lists_and_a_required_field() -> None:
    """``config_to_dict`` turns tuples into lists (JSON-friendly); ``describe_params`` shows
    a field without a default as ``(required)`` (envs/core/config.py)."""

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        size: int
        sizes: tuple[int, ...] = (1, 2)
        names: list[str] = dataclasses.field(default_factory=lambda: ["a"], metadata={"help": "names"})

    assert config_to_dict(Cfg(3)) == {"size": 3, "sizes": [1, 2], "names": ["a"]}
    assert describe_params(Cfg) == [
        ("size", "'(required)'", ""),
        ("sizes", "(1, 2)", ""),
        ("names", "['a']", "names"),
    ]


def test_mcts_unknown_parameter_is_named() -> None:
    """An ``mcts`` spec with an unknown parameter is refused naming it (envs/core/mcts.py)."""
    game = _game("octi")
    with pytest.raises(ValueError, match="bogus"):
        resolve_params(game, {"bogus": 1})


def test_share_values_of_one_player_is_the_mean() -> None:
    """``share_values`` of one player: the values sum to ``m * mean``, so one player gets the
    mean (envs/core/mcts.py)."""
    out = share_values(np.array([3.0]), 0.25, -1.0, 1.0)
    assert out.dtype == np.float64
    assert out.tolist() == [0.25]


def test_measure_sims_needs_an_mcts_spec() -> None:
    """``measure_sims_per_second`` of a non-mcts bot is refused naming the spec (its own
    ``is not an mcts spec`` check cannot fire: it builds bots from the core table, mcts only)."""
    with pytest.raises(ValueError, match="'random'"):
        measure_sims_per_second(_game("octi"), "random")


def test_replacing_missing_folder_names_the_path(tmp_path: Path) -> None:
    """``write_text`` into a folder that does not exist fails naming the path asked for, not
    the temporary file (envs/core/files.py ``replacing``: "An error of the temporary file
    names ``path``"), and leaves nothing behind."""
    target = tmp_path / "absent" / "out.txt"
    with pytest.raises(FileNotFoundError) as info:
        write_text(target, "x")
    assert info.value.errno == errno.ENOENT
    assert info.value.filename == str(target)
    assert not (tmp_path / "absent").exists()


def test_replacing_passes_other_os_errors_unchanged(tmp_path: Path) -> None:
    """An ``OSError`` of the caller's own inside ``replacing`` (naming no temporary file) comes
    out as it was raised, and the earlier file stays whole (envs/core/files.py)."""
    target = tmp_path / "f.txt"
    target.write_text("before", encoding="utf-8")
    mine = OSError(errno.EIO, "disk on fire", "elsewhere")
    with pytest.raises(OSError, match=r"disk on fire") as info, replacing(target) as tmp:
        tmp.write_text("half", encoding="utf-8")
        raise mine
    assert info.value is mine
    assert target.read_text(encoding="utf-8") == "before"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_append_line_after_a_cut_line(tmp_path: Path) -> None:
    """``append_line`` appends a line; after a last line cut short (no newline) the new line
    starts a line of its own (envs/core/files.py)."""
    log = tmp_path / "eval.jsonl"
    append_line(log, "a")
    append_line(log, "b")
    assert log.read_text(encoding="utf-8") == "a\nb\n"
    with log.open("a", encoding="utf-8") as f:
        f.write('{"cut')
    append_line(log, "c")
    assert log.read_text(encoding="utf-8") == 'a\nb\n{"cut\nc\n'


def test_openspiel_half_built_state_is_dropped_quietly() -> None:
    """An ``EightfoldState`` whose construction failed (no game given) raises the constructor's
    error, and dropping the half-built object reports nothing (envs/core/openspiel.py
    ``__del__``)."""
    pytest.importorskip("pyspiel")
    import gc

    from envs.core.openspiel import EightfoldState

    seen: list[object] = []
    old = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with pytest.raises(TypeError):
            EightfoldState(object())  # type: ignore[arg-type]
        gc.collect()
    finally:
        sys.unraisablehook = old
    assert seen == []
