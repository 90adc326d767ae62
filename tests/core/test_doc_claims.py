"""Claims of the README and the env doc pages that no other test pins, checked as written.

Each test names the text it pins. The doc pages are the module docstrings of
``envs/<game>/env.py``; where a test reads a quoted example, it takes it from the page itself,
so the page and the code cannot drift apart unnoticed.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from envs import octi_v0, otto_game_over_v0, otto_octopus_v0, over_and_out_v0
from envs.over_and_out.game import OverAndOutGame


def _page(name: str) -> str:
    return importlib.import_module(f"envs.{name}.env").__doc__ or ""


def _readme() -> str:
    return (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _parse_error(env: object, text: str) -> str:
    with pytest.raises(ValueError, match=r"malformed action|is not (a )?legal") as info:
        env.unwrapped.string_to_action(text)  # type: ignore[attr-defined]
    return str(info.value)


# --- spaces: README's table of envs (README.md:13-16) and each page's "action space" row ---


@pytest.mark.parametrize(
    ("module", "params", "actions", "shape", "low"),
    [
        (octi_v0, {}, 117, (84, 7, 6), 0.0),
        (octi_v0, {"variant": "x_fast"}, 185, (111, 9, 9), 0.0),
        (octi_v0, {"variant": "x_classic"}, 185, (111, 9, 9), 0.0),
        (octi_v0, {"allow_reposition": True}, 373, (84, 7, 6), 0.0),
        (octi_v0, {"variant": "x_fast", "allow_reposition": True}, 633, (111, 9, 9), 0.0),
        (over_and_out_v0, {"num_players": 8}, 12, (60,), 0.0),
        (otto_game_over_v0, {"num_players": 4, "teams": True}, 5228, (1013,), 0.0),
        (otto_game_over_v0, {"num_players": 1}, 5228, (1013,), 0.0),
        (otto_octopus_v0, {"num_players": 1}, 1106, (1834,), -1.0),
        (otto_octopus_v0, {"num_players": 4}, 1106, (1834,), -1.0),
    ],
)
def test_spaces_are_those_of_the_readme_table(
    module: object, params: dict[str, object], actions: int, shape: tuple[int, ...], low: float
) -> None:
    env = module.env(**params)  # type: ignore[attr-defined]
    env.reset(seed=0)
    for agent in env.agents:
        assert env.action_space(agent).n == actions
        space = env.observation_space(agent)
        assert space["observation"].shape == shape and space["observation"].dtype == np.float32
        assert float(space["observation"].low.min()) == low and float(space["observation"].high.max()) == 1.0
        assert space["action_mask"].shape == (actions,) and space["action_mask"].dtype == np.int8


# --- README.md:63-66: the seed's stream, and why the policy needs its own ---


def test_reset_seed_deals_from_default_rng_of_that_seed_and_a_later_reset_continues_it() -> None:
    """README: ``env.reset(seed=42)`` deals what ``default_rng(42)`` deals (so a policy drawing
    from ``default_rng(42)`` would reuse those bits), and a later ``env.reset()`` continues that
    stream, so two runs from the same seed repeat."""
    env = over_and_out_v0.env()
    env.reset(seed=42)
    engine = OverAndOutGame().new_initial_state(np.random.default_rng(42))
    assert env.unwrapped.state.to_dict()["hands"] == engine.to_dict()["hands"]
    other = over_and_out_v0.env()
    other.reset(seed=42)
    env.reset()
    other.reset()
    assert env.unwrapped.state.to_dict() == other.unwrapped.state.to_dict()


# --- README.md:128-131: ``state`` is the engine state, a property ---


@pytest.mark.parametrize("module", [octi_v0, over_and_out_v0, otto_game_over_v0, otto_octopus_v0])
def test_state_is_a_property_so_no_global_state_method_or_space(module: object) -> None:
    env = module.env()  # type: ignore[attr-defined]
    env.reset(seed=0)
    raw = env.unwrapped
    assert isinstance(type(raw).__dict__.get("state") or type(raw).state, property)
    assert hasattr(raw.state, "clone") and hasattr(raw.state, "to_dict")
    assert not hasattr(raw, "state_space")


# --- README.md:120-124 and the pages' notation sections: the quoted parse errors ---


def test_over_and_out_page_quotes_its_parse_error() -> None:
    """Over and Out's page: ``after 'play' comes one of 0, 1, ..., got '9'``."""
    assert "``after 'play' comes one of 0, 1, ..., got '9'``" in " ".join(_page("over_and_out").split())
    env = over_and_out_v0.env(num_players=2)
    env.reset(seed=0)
    message = _parse_error(env, "play 9")
    assert (
        "after 'play' comes one of 0, 1, 2, 3, 4, 5, x2, -10, spin-out, top-out, topsy-turvy, got '9'"
        in message
    )


def test_otto_game_over_page_quotes_its_parse_error() -> None:
    quoted = (
        "after 'card magnetic-inversion' comes one of player_0, player_1, player_2, player_3, got 'player_4'"
    )
    assert quoted in " ".join(_page("otto_game_over").split())
    env = otto_game_over_v0.env()
    env.reset(seed=0)
    assert quoted in _parse_error(env, "card magnetic-inversion player_4")


def test_otto_octopus_parse_errors_quoted_by_the_readme_and_its_page() -> None:
    """README: ``after 'swap straight' comes one of player_0, …, got 'player_7'``; the page:
    ``after 'place straight' comes one of a1, b1, ...``."""
    assert "after 'swap straight' comes one of player_0, …, got 'player_7'" in _readme()
    assert "``after 'place straight' comes one of a1, b1, ...``" in _page("otto_octopus")
    env = otto_octopus_v0.env()
    env.reset(seed=0)
    swap = _parse_error(env, "swap straight player_7")
    assert "after 'swap straight' comes one of player_0, player_1, player_2, player_3, got 'player_7'" in swap
    assert "after 'place straight' comes one of a1, b1, " in _parse_error(env, "place straight z9")


@pytest.mark.parametrize(
    ("module", "params", "text"),
    [(octi_v0, {}, "step c2 N"), (over_and_out_v0, {"num_players": 2}, "bust")],
)
def test_octi_and_over_and_out_refuse_a_well_formed_illegal_string_listing_the_legal_moves(
    module: object, params: dict[str, object], text: str
) -> None:
    """README: Octi and Over and Out refuse a well-formed illegal string and list the legal moves."""
    env = module.env(**params)  # type: ignore[attr-defined]
    env.reset(seed=0)
    assert not env.observe(env.agent_selection)["action_mask"].all()
    message = _parse_error(env, text)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    assert "legal" in message
    for action in legal:
        assert env.unwrapped.action_to_string(int(action)) in message


@pytest.mark.parametrize(
    ("module", "text", "index"),
    [
        (otto_game_over_v0, "card quantum-leap a1 b2 r3", 201 + 8 + 100 * 0 + 4 * 6 + 3),
        (otto_octopus_v0, "swap end player_2", 1042 + 4 * 3 + 2),
    ],
)
def test_the_otto_games_return_the_index_of_a_well_formed_illegal_string(
    module: object, text: str, index: int
) -> None:
    """README: the two OTTO games return a well-formed string's index, legal or not (the
    index by the pages' formulas: 201 + 8 + 100*S(from) + 4*S(to) + k; 1042 + 4*kind + j)."""
    env = module.env()  # type: ignore[attr-defined]
    env.reset(seed=0)
    assert env.unwrapped.string_to_action(text) == index
    assert env.observe(env.agent_selection)["action_mask"][index] == 0
    assert env.unwrapped.action_to_string(index) == text


# --- Octi's page: the egocentric direction of the action formula ---


def test_octi_egocentric_direction_makes_each_players_forward_direction_zero() -> None:
    """Octi's page: ADD(p, e) = 8p + e with e = (absolute + 4 * seat) % 8: Black's
    ``prong c2 N`` and Red's ``prong d6 S`` are both pod 1 forward, index 8."""
    env = octi_v0.env()
    env.reset(seed=0)
    assert env.unwrapped.string_to_action("prong c2 N") == 8
    env.step(8)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.string_to_action("prong d6 S") == 8
    assert env.unwrapped.action_to_string(8 + 4) == "prong d6 N"


# --- the pages' position examples ---


def _literal_after(doc: str, marker: str) -> str:
    """The ``::`` literal block that follows ``marker`` on a page, comments dropped."""
    start = doc.index(marker)
    block = re.search(r"::\n\n((?: {4}.*\n|\n)+)", doc[start:])
    assert block, marker
    return "\n".join(line.split("#")[0] for line in block.group(1).splitlines())


def test_octi_page_position_example_loads_with_the_defaults_it_names() -> None:
    """Octi's page: the position example loads, and the defaults it names hold: supply the
    start supply minus the prongs on own pods, basic off-board pods captured; in X, captured 0
    and the rest in reserve; ``to_move`` may be an agent name."""
    example = json.loads(_literal_after(_page("octi"), "only ``board`` is required"))
    env = octi_v0.env()
    env.reset(seed=0, options={"position": example})
    assert env.unwrapped.snapshot() == {"phase": "MAIN", **example}
    env.reset(seed=0, options={"position": {"board": example["board"], "to_move": "player_1"}})
    snap = env.unwrapped.snapshot()
    assert snap["to_move"] == 1 and snap["supply"] == [10, 11] and snap["captured"] == [3, 3]
    x_env = octi_v0.env(variant="x_fast")
    x_env.reset(seed=0, options={"position": {"board": {"c3": [[0, "N,NE"]], "d7": [[1, "S"]]}}})
    snap = x_env.unwrapped.snapshot()
    assert snap["captured"] == [0, 0] and snap["reserve"] == [6, 6] and snap["supply"] == [23, 24]


def test_otto_octopus_page_position_example_loads_and_fills_the_pile_with_the_rest_of_the_mix() -> None:
    """Otto the Octopus's page: the schema example (less its ``...`` pile) loads as given; the
    default pile is the rest of the 60-tile mix; a placement may be written as its action
    and ``to_move`` as an agent name."""
    text = _literal_after(_page("otto_octopus"), "position schema")
    text = re.sub(r'\s*"pile": \[[^]]*\],', "", text)
    example = json.loads(text)
    env = otto_octopus_v0.env()
    env.reset(seed=0, options={"position": example})
    snap = env.unwrapped.snapshot()
    assert {k: v for k, v in snap.items() if k != "pile"} == example
    placed = len(example["placements"])
    held = sum(len(hand) for hand in example["hands"])
    assert len(snap["pile"]) == 60 - placed - held
    env.reset(
        seed=0,
        options={
            "position": {
                "hands": [["straight"], ["bubbles"]],
                "placements": ["place straight d6"],
                "to_move": "player_1",
            }
        },
    )
    assert env.unwrapped.snapshot()["placements"] == ["straight d6"]
    assert env.unwrapped.snapshot()["to_move"] == 1


# --- Otto the Octopus's page: the picture's size ---


@pytest.mark.parametrize("players", [1, 4])
def test_otto_octopus_rgb_picture_has_the_pages_size(players: int) -> None:
    pytest.importorskip("PIL")
    env = otto_octopus_v0.env(num_players=players, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.shape == (568, 868, 3) and picture.dtype == np.uint8


def test_over_and_out_winner_only_is_general_sum_from_three_players() -> None:
    """README "OpenSpiel" and Over and Out's page: ``winner_only`` is ``GENERAL_SUM`` with 3 or
    more players; with 2, +1 / -1 sums to zero and the game says ``ZERO_SUM`` (the text once
    said ``GENERAL_SUM`` for every player count)."""
    pyspiel = pytest.importorskip("pyspiel")
    import envs.core.openspiel  # noqa: F401  (registers the games)

    util = pyspiel.GameType.Utility
    for players, expected in ((2, util.ZERO_SUM), (3, util.GENERAL_SUM), (4, util.GENERAL_SUM)):
        game = pyspiel.load_game(
            "eightfold_over_and_out", {"num_players": players, "reward_mode": "winner_only"}
        )
        assert game.get_type().utility == expected, players
