"""The board's left-right mirror (``Game.symmetries()``): a mirrored position is observed and
masked exactly as the symmetry's gathers say, for both seats, and play with the mirrored moves
stays in step to the end.

The mirrored position (``helpers.mirrored``) is built independently of the gathers: the state's
own dict (``to_dict``) with every pod kept under its id and moved to the mirrored square (file
x <-> W-1-x) with its prongs mirrored (E <-> W, NE <-> NW, SE <-> SW; OCT-05), the turn's origin
and jumped squares moved alike, loaded back with ``from_dict`` (which rebuilds the board B').
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from envs.octi.actions import ADD, REPOSITION
from envs.octi.game import OctiGame
from envs.octi.rules import CAPTURE, CAPTURED, CHAIN, DECLARE, MAIN, MOVER, OVER, RESERVE, State
from tests.octi.helpers import S02_MOVES, S11_MOVES, S13_MOVES, mirror_square, mirrored, turns
from tests.octi.test_scenarios import S04_MOVES, S07_MOVES, S10_MOVES, S12_MOVES

#: every test and golden config of Octi (tests/core/conftest.py), once each
CONFIGS: tuple[dict[str, Any], ...] = tuple(
    {**c}
    for i, c in enumerate(OctiGame.test_configs + OctiGame.golden_configs)
    if c not in (OctiGame.test_configs + OctiGame.golden_configs)[:i]
)
_DIRS = {"N": "N", "NE": "NW", "E": "W", "SE": "SW", "S": "S", "SW": "SE", "W": "E", "NW": "NE"}


def _mirror_text(st: State, text: str) -> str:
    """A notation string with its squares and directions mirrored (stack suffixes ``.k`` stay:
    they rank pod ids, which the mirror keeps)."""
    out = []
    for word in text.split():
        if word in _DIRS:
            out.append(_DIRS[word])
        elif word[0].isalpha() and word[1:2].isdigit():
            name, dot, k = word.partition(".")
            out.append(st.geo.names[mirror_square(st, st.geo.square(name))] + dot + k)
        else:
            out.append(word)
    return " ".join(out)


def _assert_image(game: OctiGame, st: State, image: State) -> None:
    """The Symmetry contract on one position: both seats' observations and the mask."""
    sym = game.symmetries()[0]
    for seat in (0, 1):
        assert np.array_equal(
            game.observe(image, seat).ravel(), game.observe(st, seat).ravel()[sym.obs_index]
        )
    assert np.array_equal(image.legal_mask(), st.legal_mask()[sym.action_index])


def _pick(st: State, rng: np.random.Generator) -> int:
    """A random legal action, moving a pod (or entering, liberating) rather than adding a prong
    four times in five where it can: random play then reaches stacks, series and captures."""
    legal = st.legal_actions()
    moves = [a for a in legal if st.lay.decode[a][0] not in (ADD, REPOSITION)]
    pool = moves if moves and rng.random() < 0.8 else legal
    return int(pool[rng.integers(len(pool))])


def test_the_mirror_is_a_read_only_involution_shared_per_layout() -> None:
    """One declared symmetry, "mirror": both gathers are int64 permutations, read-only, their own
    inverse, not the identity, and shared by every game of one board and action layout."""
    syms = OctiGame().symmetries()
    assert [s.name for s in syms] == ["mirror"]
    for params in CONFIGS:
        game = OctiGame(**params)
        (sym,) = game.symmetries()
        n_obs = int(np.prod(game.observation_shape))
        for index, n in ((sym.obs_index, n_obs), (sym.action_index, game.num_actions)):
            assert index.dtype == np.int64 and not index.flags.writeable
            assert np.array_equal(np.sort(index), np.arange(n))
            assert np.array_equal(index[index], np.arange(n)), "mirroring twice is the identity"
            assert not np.array_equal(index, np.arange(n))
    # one board and action layout, one pair of arrays (max_turns, edgeless... change neither)
    assert OctiGame(max_turns=5, edgeless=True).symmetries()[0] is syms[0]
    assert OctiGame(variant="x_fast").symmetries()[0] is OctiGame(variant="x_classic").symmetries()[0]


@pytest.mark.parametrize(
    ("params", "moves", "text", "image_text"),
    [
        ({}, "", "prong b2 E", "prong e2 W"),
        ({}, "1. prong c2 N", "prong b6 SE", "prong e6 SW"),  # player_1: egocentric directions
        ({}, "1. prong c2 N / prong d6 S", "step c2 N", "step d2 N"),
        ({}, S02_MOVES.rsplit("\n5.", 1)[0], "jump b2 NE", "jump e2 NW"),
        (
            {"allow_reposition": True},
            "1. prong b2 N / prong d6 S",
            "reposition b2 N NE",
            "reposition e2 N NW",
        ),
        ({"variant": "x_fast"}, "", "enter c3", "enter g3"),
        ({"variant": "x_fast"}, "", "enter e3", "enter e3"),
        ({"variant": "x_fast"}, "1. enter c3", "prong g7 W", "prong c7 E"),
        ({"variant": "x_classic"}, S12_MOVES, "liberate g3", "liberate c3"),
        ({"variant": "x_classic"}, S12_MOVES, "enter e7", "enter e7"),
        ({"variant": "x_fast"}, S10_MOVES + "5. jump c3.0 N", "with c3", "with g3"),
    ],
)
def test_hand_checked_action_pairs(params: dict[str, Any], moves: str, text: str, image_text: str) -> None:
    """A move and its mirror image by notation: the gather maps one index to the other (OCT-05
    absolute directions, OCT-47 player_1's egocentric indices, §7 base indices)."""
    game = OctiGame(**params)
    st = game.new_initial_state(np.random.default_rng(0))
    st.play(*turns(moves))
    image = mirrored(st)
    a, b = st.string_to_action(text), image.string_to_action(image_text)
    assert st.legal_mask()[a] and image.legal_mask()[b]
    assert int(game.symmetries()[0].action_index[b]) == a
    assert image.action_to_string(int(game.symmetries()[0].action_index[a])) == image_text


#: spec §9 scenarios played whole, with the rules each one exercises
SCENARIOS = [
    pytest.param({}, S02_MOVES, id="S02-base-win"),
    pytest.param(
        {},
        S04_MOVES + "8. jump a3 E, jump c3 N, jump c5 SW, spare b3, capture c4, capture b4",
        id="S04-series",
    ),
    pytest.param({"repetition_draw": True}, S07_MOVES, id="S07-repetition"),
    pytest.param(
        {"variant": "x_fast"},
        "1. enter c3 / prong g7 S\n2. prong c3.0 N / prong e7 S\n3. prong c3.1 N / prong c7 S\n"
        "4. step c3.0 N, with c3, step c3 N",
        id="S09-stack",
    ),
    pytest.param(
        {"variant": "x_fast"}, S10_MOVES + "5. jump c3.0 N, with c3, jump c3 N, capture c4", id="S10"
    ),
    pytest.param(
        {"variant": "x_fast"},
        S11_MOVES
        + "11. jump e3.0 E, with e3, jump g3 N, jump g5 SW, step e3.1 S, spare f3, capture g4, spare f4",
        id="S11-origin",
    ),
    pytest.param({"variant": "x_classic"}, S12_MOVES + "8. liberate e7", id="S12-liberate"),
    pytest.param(  # x_fast: Black's `step e6 N` of move 7 lands on e7 and wins (OCT-42)
        {"variant": "x_fast", "capture_to_reserve": True}, S12_MOVES.rsplit(" / ", 1)[0], id="S12-to-reserve"
    ),
    pytest.param(
        {"variant": "x_classic"},
        S13_MOVES
        + "10. jump e5.0 N, with e5.0, with e5.1, jump e5.0 NW, jump e5 NE, spare e6, spare d6, spare f6",
        id="S13-three-bases",
    ),
]


@pytest.mark.parametrize(("params", "moves"), SCENARIOS)
def test_spec_scenarios_played_mirrored_stay_in_step(params: dict[str, Any], moves: str) -> None:
    """The §9 scenarios and their mirror images, move by move: the mirrored string is the
    mirrored index, and every position (declarations OCT-34/35, co-movers OCT-32/33, series
    OCT-18/19, capture queue OCT-28/29, own capture to reserve OCT-51, liberation OCT-40,
    repetition OCT-52) is the image of the original; both end alike (OCT-42, OCT-43, OCT-52)."""
    game = OctiGame(**params)
    inverse = np.argsort(game.symmetries()[0].action_index)
    st = game.new_initial_state(np.random.default_rng(0))
    image = mirrored(st)
    for text in turns(moves):
        a = st.string_to_action(text)
        b = int(inverse[a])
        assert image.string_to_action(_mirror_text(st, text)) == b, text
        st.apply(a)
        image.apply(b)
        assert image.to_dict() == mirrored(st).to_dict()
        _assert_image(game, st, image)
    assert st.is_terminal() == image.is_terminal()
    assert np.array_equal(st.returns(), image.returns())


@pytest.mark.parametrize("params", CONFIGS, ids=str)
def test_a_mirrored_position_is_observed_and_masked_as_the_gathers_say(params: dict[str, Any]) -> None:
    """Both seats' observations and the legal mask of the mirrored position, on every position of
    seeded random games (every phase: MAIN, DECLARE, CHAIN, MOVER, CAPTURE; stacks, reserve and
    captured pods; OCT-07 prongs, OCT-06/OCT-50 edges, OCT-14..19 steps and jumps, OCT-36..40
    entry and liberation, OCT-49 repositioning)."""
    game = OctiGame(**params)
    seen: set[int] = set()
    stacks = pools = 0
    positions = seed = 0
    while positions < 400 or seed < 3:
        rng = np.random.default_rng(seed)
        st = game.new_initial_state(rng)
        seed += 1
        while True:
            _assert_image(game, st, mirrored(st))
            positions += 1
            seen.add(st.phase)
            stacks += any(st.pos.count(sq) > 1 for sq in st.pos if sq >= 0)
            pools += RESERVE in st.pos or CAPTURED in st.pos
            if st.is_terminal():
                break
            st.apply(_pick(st, rng))
    assert {MAIN, CAPTURE, OVER} <= seen and pools
    if game.config.is_x:
        assert {DECLARE, CHAIN, MOVER} <= seen and stacks


@pytest.mark.parametrize("params", CONFIGS, ids=str)
def test_play_stays_in_step(params: dict[str, Any]) -> None:
    """The mirrored game played with the mirrored moves stays the image of the game, move for
    move (queues, turn bookkeeping, repetition history), to the same end and returns (OCT-42..45,
    OCT-52)."""
    game = OctiGame(**params)
    inverse = np.argsort(game.symmetries()[0].action_index)
    for seed in range(100, 103):
        st = game.new_initial_state(np.random.default_rng(seed))
        image = mirrored(st)
        pick = np.random.default_rng(seed)  # the moves' own stream
        while not st.is_terminal():
            a = _pick(st, pick)
            st.apply(a)
            image.apply(int(inverse[a]))
            assert image.to_dict() == mirrored(st).to_dict()
            _assert_image(game, st, image)
        assert image.is_terminal() and image.is_truncated() == st.is_truncated() and image.turn == st.turn
        assert np.array_equal(image.returns(), st.returns())


def test_the_documented_gather_mirrors_an_env_observation() -> None:
    """The README's and the doc page's form: the gather indexes the flattened planes, so
    ``obs.reshape(-1)[sym.obs_index].reshape(obs.shape)`` is the observation of the mirrored
    position, in ``env()``'s own shape. (The doc page had ``observe(state, seat)[sym.obs_index]``,
    which raises ``IndexError`` on Octi's (84, 7, 6) planes.)"""
    from envs import octi_v0

    env = octi_v0.env(variant="x_fast")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(12):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    game, state = env.unwrapped.game, env.unwrapped.state
    sym = game.symmetries()[0]
    for seat, agent in enumerate(env.agents):
        obs = env.observe(agent)["observation"]
        assert obs.ndim == 3
        with pytest.raises(IndexError):
            obs[sym.obs_index]
        image = obs.reshape(-1)[sym.obs_index].reshape(obs.shape)
        assert np.array_equal(image, game.observe(mirrored(state), seat))
