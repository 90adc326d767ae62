"""Bad input to the engine layer's public functions gets a clear ``ValueError`` naming the
parameter, what it got and what is allowed (the misuse audit of 2026-12-07,
docs/CHECKS.md "Misuse of the Python API").

Each test says what the old code did instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from envs.core.arena import play_game, play_match
from envs.core.bots import RandomBot, make_bot
from envs.core.registry import GAMES
from envs.octi.game import OctiGame
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_octopus.game import OttoOctopusGame
from envs.over_and_out.game import OverAndOutGame


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


# ---------------------------------------------------------------- make_bot / Bot


def test_make_bot_refuses_a_bot_of_another_games_table() -> None:
    """An Octi bot built for an Over and Out game is refused by ``make_bot``, naming both games
    and the right table; ``random`` and ``mcts`` (any game's) are still built from any table.
    Old: accepted; its first ``act`` failed a bare ``assert``."""
    game = OverAndOutGame(num_players=2)
    with pytest.raises(
        ValueError,
        match=r"^bot 'heuristic' of the octi table cannot play over_and_out; use GAMES\['over_and_out'\]\.bots\(\)$",
    ):
        make_bot(game, "heuristic", GAMES["octi"].bots())
    with pytest.raises(ValueError, match=r"bot 'greedy' of the otto_octopus table cannot play octi"):
        make_bot(OctiGame(), "greedy", GAMES["otto_octopus"].bots())
    # random and the core search bot play any game, whichever table names them
    assert type(make_bot(game, "random", GAMES["octi"].bots())) is RandomBot
    bot = make_bot(game, "mcts:sims=4", GAMES["over_and_out"].bots())
    state = game.new_initial_state(_rng())
    assert state.legal_mask()[bot.act(state, state.current_player(), _rng())] == 1


def test_a_games_bot_class_refuses_another_game_at_construction() -> None:
    """``envs.octi.bots.HeuristicBot(OverAndOutGame())`` fails when it is built, naming the bot
    class, its game and the game it was given. Old: built, then a bare ``AssertionError`` at
    its first move."""
    from envs.octi.bots import GreedyBot, HeuristicBot
    from envs.otto_game_over.bots import HeuristicBot as OttoHeuristic

    with pytest.raises(
        ValueError,
        match=r"^heuristic: envs\.octi\.bots\.HeuristicBot is a bot of octi and cannot play over_and_out",
    ):
        HeuristicBot(OverAndOutGame())
    with pytest.raises(ValueError, match=r"greedy: .* is a bot of octi and cannot play otto_game_over"):
        GreedyBot(OttoGameOverGame())
    with pytest.raises(ValueError, match=r"is a bot of otto_game_over and cannot play otto_octopus"):
        OttoHeuristic(OttoOctopusGame())
    with pytest.raises(ValueError, match=r"^heuristic: game must be a Game object of octi, got str$"):
        HeuristicBot("octi")  # type: ignore[arg-type]
    assert HeuristicBot(OctiGame(variant="x_fast")).game.name == "octi"  # any config of its own game


@pytest.mark.parametrize("game", ["octi", None])
def test_make_bot_refuses_a_game_that_is_not_a_game_object(game: Any) -> None:
    """``make_bot`` needs the engine game object. Old: a name or ``None`` was accepted and the
    bot failed later (or never, for ``random``)."""
    with pytest.raises(
        ValueError, match=r"^make_bot: game must be an engine Game object.*, got (str|NoneType)$"
    ):
        make_bot(game, "random", GAMES["octi"].bots())


def test_make_bot_refuses_a_table_that_is_not_a_mapping() -> None:
    """``bots`` is a game's table (a dict). Old: ``None`` gave ``AttributeError: 'NoneType'
    object has no attribute 'get'``."""
    with pytest.raises(
        ValueError, match=r"^make_bot: bots must be .*GAMES\['octi'\]\.bots\(\)\), got NoneType$"
    ):
        make_bot(OctiGame(), "random", None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"bots must be .* got list"):
        make_bot(OctiGame(), "random", ["random"])  # type: ignore[arg-type]


# ---------------------------------------------------------------- bot.act with a non-state


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "mcts:sims=4"])
@pytest.mark.parametrize("which", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
@pytest.mark.parametrize("bad", [None, "dict"])
def test_bot_act_refuses_an_observation_dict_or_none(spec: str, which: str, bad: Any) -> None:
    """A bot given an env's observation dict (or ``None``) in place of the engine state says to
    pass ``env.unwrapped.state``. Old: ``AttributeError: 'dict' object has no attribute
    'legal_mask'`` (or ``legal_actions``)."""
    game = GAMES[which].game_class()()
    bot = make_bot(game, spec, GAMES[which].bots())
    name = spec.split(":")[0]
    state = game.new_initial_state(_rng())
    given = (
        None if bad is None else {"observation": game.observe(state, 0), "action_mask": state.legal_mask()}
    )
    with pytest.raises(
        ValueError,
        match=rf"^{name}: state must be an engine state \(a GameState: env\.unwrapped\.state, .*\), got "
        rf"{type(given).__name__}$",
    ):
        bot.act(given, 0, _rng())


def test_check_mover_refuses_a_non_state() -> None:
    """``check_mover`` refuses what is not a ``GameState`` before it reads it. Old:
    ``AttributeError`` (it read ``state.current_player()``)."""
    from envs.core.bots import check_mover

    with pytest.raises(ValueError, match=r"^mybot: state must be an engine state .*got dict$"):
        check_mover({"observation": 0}, 0, "mybot", _rng(), OctiGame())  # type: ignore[arg-type]


# ---------------------------------------------------------------- Game methods

_ONE_STATE = ("evaluate", "render_ansi", "render_rgb")
_WITH_SEAT = ("observe", "infos")


def _call(game: Any, method: str, state: Any) -> Any:
    if method in _WITH_SEAT:
        return getattr(game, method)(state, 0)
    return getattr(game, method)(state)


@pytest.mark.parametrize("method", _WITH_SEAT)
def test_game_methods_refuse_a_state_of_other_parameters(method: str) -> None:
    """An x_fast Octi state given to a basic Octi game's ``observe`` or ``infos`` (answers
    shaped by the game's parameters) is refused, naming the parameters that differ. Old:
    ``observe`` returned a (111, 9, 9) observation for a (84, 7, 6) game, silently."""
    xs = OctiGame(variant="x_fast").new_initial_state(_rng())
    with pytest.raises(
        ValueError,
        match=rf"^{method}: the state is a position of octi with other parameters: variant='x_fast' "
        r"\(this game: 'basic'\)",
    ):
        _call(OctiGame(), method, xs)


@pytest.mark.parametrize("method", _ONE_STATE)
@pytest.mark.parametrize(
    ("name", "mine", "theirs"),
    [
        ("octi", {}, {"variant": "x_fast"}),
        ("over_and_out", {"num_players": 2}, {"num_players": 5}),
        ("otto_game_over", {"num_players": 2}, {"num_players": 4, "teams": True}),
        ("otto_octopus", {"num_players": 2}, {"num_players": 1}),
    ],
)
def test_evaluate_and_the_pictures_read_a_state_of_any_config_of_their_game(
    method: str, name: str, mine: dict[str, Any], theirs: dict[str, Any]
) -> None:
    """``evaluate`` and ``render_*`` read everything from the state, so a position of another
    config of the same game is theirs to read (as it is the bots', and ``mcts``'s rollouts
    value it): the answer is that of the state's own game (Otto the Octopus's solo values in
    solo units, not a 2-player game's)."""
    if method == "render_rgb":
        pytest.importorskip("PIL")
    cls = GAMES[name].game_class()
    own = cls(**theirs)
    state = own.new_initial_state(_rng())
    for _ in range(3):
        state.apply(int(np.flatnonzero(state.legal_mask())[0]))
    np.testing.assert_array_equal(_call(cls(**mine), method, state), _call(own, method, state))


def test_card_games_refuse_a_state_of_another_player_count() -> None:
    """Over and Out (2 players) observing a 5-player state, OTTO Game Over (2 players) giving
    infos of a 4-seat state: refused. Old: a 5-player observation, infos of 4 seats, silently."""
    five = OverAndOutGame(num_players=5).new_initial_state(_rng())
    with pytest.raises(ValueError, match=r"^observe: .* other parameters: num_players=5 \(this game: 2\)$"):
        OverAndOutGame(num_players=2).observe(five, 0)
    four = OttoGameOverGame(num_players=4).new_initial_state(_rng())
    with pytest.raises(ValueError, match=r"^infos: .* other parameters: num_players=4 \(this game: 2\)$"):
        OttoGameOverGame(num_players=2).infos(four, 0)
    three = OttoOctopusGame(num_players=3).new_initial_state(_rng())
    with pytest.raises(ValueError, match=r"^observe: .* num_players=3 \(this game: 2\)$"):
        OttoOctopusGame(num_players=2).observe(three, 0)


@pytest.mark.parametrize("method", _WITH_SEAT + _ONE_STATE)
@pytest.mark.parametrize("mine", ["octi", "over_and_out", "otto_game_over", "otto_octopus"])
def test_game_methods_refuse_another_games_state(mine: str, method: str) -> None:
    """Each game's ``observe``/``infos``/``evaluate``/``render_*`` refuses another game's state,
    naming both. Old: ``AttributeError`` from deep inside the encoder or renderer (``'State'
    object has no attribute 'P'``...); ``infos`` of Octi and Over and Out returned ``{}``."""
    if method == "render_rgb":
        pytest.importorskip("PIL")
    other = "octi" if mine != "octi" else "otto_octopus"
    state = GAMES[other].game_class()().new_initial_state(_rng())
    with pytest.raises(ValueError, match=rf"^{method}: the state is a position of {other}, not of {mine}$"):
        _call(GAMES[mine].game_class()(), method, state)


@pytest.mark.parametrize("method", _WITH_SEAT + _ONE_STATE)
@pytest.mark.parametrize("bad", [None, {"observation": 0}])
def test_game_methods_refuse_what_is_not_a_state(method: str, bad: Any) -> None:
    """``None`` or an observation dict is refused with a pointer to the engine state. Old:
    ``AttributeError: 'NoneType' object has no attribute 'geo'`` and the like."""
    with pytest.raises(
        ValueError,
        match=rf"^{method}: state must be an engine state of over_and_out \(a GameState, such as "
        rf"env\.unwrapped\.state .*\), got {type(bad).__name__}$",
    ):
        _call(OverAndOutGame(), method, bad)


def test_game_methods_compare_parameters_not_identity() -> None:
    """A state of other parameters is refused, while a state restored from ``to_dict`` (an
    equal config, not the same object) and a state of another game object of the same
    parameters are accepted. Old: the x_fast Octi state of another ``max_turns`` was observed
    silently."""
    game = OctiGame(variant="x_fast")
    state = game.new_initial_state(_rng())
    with pytest.raises(ValueError, match=r"^observe: .* other parameters: max_turns=60 \(this game: "):
        game.observe(OctiGame(variant="x_fast", max_turns=60).new_initial_state(_rng()), 0)
    back = game.new_initial_state(_rng(), {"state": state.to_dict()})
    assert back.config is game.config  # a restored state takes its game's (equal) config
    twin = OctiGame(variant="x_fast")
    for g, s in ((game, back), (twin, state)):
        assert g.observe(s, 0).shape == g.observation_shape
        assert g.evaluate(s).shape == (2,)
        assert isinstance(g.render_ansi(s), str)


# ---------------------------------------------------------------- play_match


def test_play_match_and_play_game_refuse_a_game_name() -> None:
    """``play_match("over_and_out", ...)`` says to pass a game object. Old: ``AttributeError:
    'str' object has no attribute 'num_players'``."""
    game = OverAndOutGame(num_players=2)
    r = RandomBot(game)
    with pytest.raises(
        ValueError,
        match=r"^play_match: game must be an engine Game object \(get_game\('over_and_out'\)\.game_class\(\)\(\.\.\.\)\), got str$",
    ):
        play_match("over_and_out", [r, r], 2)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=r"^play_game: game must be an engine Game object \(get_game\(name\)\.game_class\(\)\(\.\.\.\)\), got NoneType$",
    ):
        play_game(None, [r, r], 0)  # type: ignore[arg-type]


# ---------------------------------------------------------------- save_png / save_gif


@pytest.mark.parametrize(
    ("frame", "got"),
    [
        (None, "NoneType"),
        (np.random.default_rng(0).random((8, 8, 3)), r"float64 \(8, 8, 3\)"),
        (np.zeros((8, 8, 2), np.uint8), r"uint8 \(8, 8, 2\)"),
        (np.zeros((8, 8, 3, 1), np.uint8), r"uint8 \(8, 8, 3, 1\)"),
        (np.zeros((0, 8, 3), np.uint8), r"uint8 \(0, 8, 3\)"),
        ([[[0, 0, 0]]], "list"),
    ],
)
def test_save_png_refuses_what_is_not_an_rgb_frame(tmp_path: Path, frame: Any, got: str) -> None:
    """``save_png`` needs a ``uint8[H, W, 3]`` frame and says how to get one; nothing is
    written. Old: PIL's ``TypeError: Cannot handle this data type`` for floats, an
    ``AttributeError`` for ``None`` (what ``env.render()`` returns without a render mode)."""
    pytest.importorskip("PIL")
    from envs.core.draw import save_png

    path = tmp_path / "x.png"
    with pytest.raises(
        ValueError,
        match=rf"^save_png needs a uint8 \[H, W, 3\] frame \(env\.render\(\) with render_mode='rgb_array'.*\), got {got}$",
    ):
        save_png(frame, str(path))
    assert not path.exists()


@pytest.mark.parametrize("shape", [(6, 5, 3), (6, 5, 4), (6, 5)])
def test_save_png_and_gif_write_rgb_rgba_and_grey_frames(tmp_path: Path, shape: tuple[int, ...]) -> None:
    """The image arrays PIL writes (RGB, RGBA, grey ``uint8``) are written as before the frame
    check, from a list or any other iterable of frames (a deque, a generator)."""
    pytest.importorskip("PIL")
    from collections import deque

    from PIL import Image

    from envs.core.draw import save_gif, save_png

    frame = np.random.default_rng(1).integers(0, 256, shape, dtype=np.uint8)
    save_png(frame, str(tmp_path / "x.png"))
    with Image.open(tmp_path / "x.png") as img:
        assert np.array_equal(np.asarray(img), frame)
    save_gif(deque([frame, 255 - frame]), str(tmp_path / "x.gif"))
    save_gif((f for f in [frame]), str(tmp_path / "y.gif"))
    with Image.open(tmp_path / "x.gif") as img:
        assert img.size == (5, 6) and img.n_frames == 2


def test_save_gif_refuses_a_bad_frame_or_a_bare_array(tmp_path: Path) -> None:
    """``save_gif`` checks every frame, naming its index, and wants a list. Old: ``None`` gave
    ``AttributeError: 'NoneType' object has no attribute 'shape'``, a float frame PIL's
    ``TypeError``, a stacked array numpy's "truth value of an array is ambiguous"."""
    pytest.importorskip("PIL")
    from envs.core.draw import save_gif

    ok = np.zeros((4, 4, 3), np.uint8)
    path = tmp_path / "x.gif"
    with pytest.raises(
        ValueError, match=r"^save_gif: frames\[1\] needs a uint8 \[H, W, 3\] frame .*got NoneType$"
    ):
        save_gif([ok, None], str(path))  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"^save_gif: frames\[0\] needs .*got float64 \(4, 4, 3\)$"):
        save_gif([ok.astype(np.float64)], str(path))
    with pytest.raises(
        ValueError, match=r"^save_gif: frames must be a list of rgb_array frames, got ndarray$"
    ):
        save_gif(np.stack([ok, ok]), str(path))  # type: ignore[arg-type]
    assert not path.exists()


# ---------------------------------------------------------------- seeded_resampler


@pytest.mark.parametrize("seed", [-1, "x", 1.5, True, None])
def test_seeded_resampler_checks_its_seed(seed: Any) -> None:
    """``seeded_resampler`` validates its seed as every seed of the project. Old: numpy's
    ``ValueError: expected non-negative integer`` (naming no parameter), ``TypeError`` for a
    string, and ``None`` silently drew fresh entropy (the search did not repeat)."""
    eos = pytest.importorskip("envs.core.openspiel")
    with pytest.raises(ValueError, match=rf"^seed must be an int >= 0, got {seed!r}$".replace(".", r"\.")):
        eos.seeded_resampler(seed)


# ---------------------------------------------------------------- what stays allowed


def test_a_custom_bot_may_call_check_mover_without_the_game() -> None:
    """``check_mover(state, player, name, rng)``, the four-argument call GAME_GUIDE.md shows a
    bot that overrides ``act``, still checks the seat and the generator (``game`` is optional:
    with it, another game's position is refused too)."""
    from envs.core.bots import check_mover

    state = OctiGame().new_initial_state(_rng())
    check_mover(state, 0, "mine", _rng())
    with pytest.raises(ValueError, match=r"^mine: player 1 is not to move \(mover 0\)$"):
        check_mover(state, 1, "mine", _rng())
    with pytest.raises(ValueError, match=r"^mine: the state is not a position of this bot's game"):
        check_mover(state, 0, "mine", _rng(), OverAndOutGame())


def test_a_subclass_of_a_game_keeps_its_bots() -> None:
    """A user's game subclass under a name of its own (and with a config class of its own)
    plays with the bots of the game it extends, ``mcts`` rollouts included; the base game's bots
    read its positions too."""
    import dataclasses

    from envs.octi.rules import Config

    @dataclasses.dataclass(frozen=True)
    class MyConfig(Config):
        pass

    class MyOcti(OctiGame):
        name = "my_octi"
        config_class = MyConfig

    game = MyOcti(max_turns=6)
    assert type(game.config) is MyConfig
    state = game.new_initial_state(_rng())
    for spec in ("greedy", "heuristic", "mcts:sims=8,depth=2,rollout=heuristic"):
        bot = make_bot(game, spec, GAMES["octi"].bots())
        assert state.legal_mask()[bot.act(state, 0, _rng())], spec
    base = make_bot(OctiGame(max_turns=6), "heuristic", GAMES["octi"].bots())
    assert state.legal_mask()[base.act(state, 0, _rng())]
    assert game.observe(state, 0).shape == game.observation_shape


def test_mcts_serves_another_config_of_its_game_and_refuses_other_spaces() -> None:
    """``mcts`` built on a game plays a position of another config of that game (another first
    dealer), as the other bots do; a config whose spaces differ from the ones the search is
    sized for (Octi x_fast for a basic game) is refused naming both, not an ``IndexError``."""
    oao = OverAndOutGame(num_players=2, first_dealer=1).new_initial_state(_rng())
    bot = make_bot(OverAndOutGame(num_players=2), "mcts:sims=10", GAMES["over_and_out"].bots())
    assert oao.legal_mask()[bot.act(oao, oao.current_player(), _rng())]
    xs = OctiGame(variant="x_fast").new_initial_state(_rng())
    bot = make_bot(OctiGame(), "mcts:sims=10", GAMES["octi"].bots())
    with pytest.raises(
        ValueError,
        match=r"^mcts: the state has 2 seats and 185 actions, this bot's game 2 and 117; build the bot on the "
        r"state's game$",
    ):
        bot.act(xs, 0, _rng())


def test_ismcts_refuses_a_state_of_other_parameters() -> None:
    """OpenSpiel's ``ismcts`` rebuilds the pyspiel game from its own parameters, so a position of
    other parameters is refused naming them (it reached ``observe``'s check before)."""
    pytest.importorskip("pyspiel")
    state = OverAndOutGame(num_players=2, first_dealer=1).new_initial_state(_rng())
    bot = make_bot(OverAndOutGame(num_players=2), "ismcts:sims=10", GAMES["over_and_out"].bots())
    with pytest.raises(
        ValueError,
        match=r"^ismcts: the state is a position of over_and_out with other parameters \(first_dealer=1 "
        r"\(this game: None\)\); OpenSpiel's search replays",
    ):
        bot.act(state, state.current_player(), _rng())
