"""What the text and the pictures tell a person at the table, and what the doc pages say of
seats and teams: OTTO Game Over's teams in 2v2 text and ``infos``, the seat-naming actions of
OTTO Game Over and Otto the Octopus (absolute seats under an egocentric observation), and the
key to Otto the Octopus's and OTTO Game Over's symbols."""

from __future__ import annotations

import importlib
import re
from typing import Any

import numpy as np
import pytest

from envs.core.registry import get_game
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_octopus.game import OttoOctopusGame
from tests.otto_octopus.helpers import P1, make


def _page(name: str) -> str:
    """The doc page with its line breaks and indentation folded into single spaces."""
    return " ".join((importlib.import_module(f"envs.{name}.env").__doc__ or "").split())


# ------------------------------------------------------------------ OTTO Game Over: teams
def test_ogo_2v2_text_names_each_seats_team_and_each_teams_seats() -> None:
    """In 2v2 the text listed ``team 0: ...`` and ``player_0: table ...`` and never said who
    is on which team; it now names the seats of each team and the team of each seat (team
    ``seat % 2``, as the picture's ``player_1  team 1``). Free-for-all keeps its lines."""
    game = OttoGameOverGame(num_players=4, teams=True)
    text = game.render_ansi(game.new_initial_state(np.random.default_rng(0)))
    assert re.search(r"^team 0 \(player_0, player_2\): total 0,", text, re.M)
    assert re.search(r"^team 1 \(player_1, player_3\): total 0,", text, re.M)
    for seat in range(4):
        assert re.search(rf"^player_{seat} \(team {seat % 2}\): table ", text, re.M), seat
    ffa = OttoGameOverGame(num_players=4)
    text = ffa.render_ansi(ffa.new_initial_state(np.random.default_rng(0)))
    assert re.search(r"^team 3: total 0,", text, re.M) and re.search(r"^player_3: table ", text, re.M)
    assert "team 0 (the spec's team A) = seats 0 and 2" in _page("otto_game_over")


def _play_out(game: OttoGameOverGame, seed: int) -> tuple[Any, list[float]]:
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(rng)
    while not st.is_terminal():
        st.apply(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    return st, list(st.returns())


@pytest.mark.parametrize(
    ("params", "teams"),
    [({"num_players": 4, "teams": True, "episode": "match"}, 2), ({"num_players": 3, "episode": "match"}, 3)],
)
def test_ogo_infos_are_per_absolute_team(params: dict[str, object], teams: int) -> None:
    """``infos``' ``match_scores``, ``totals`` and ``winners`` are per absolute team (in 2v2
    team 0 = seats 0 and 2; in free-for-all team t = seat t), the same for every agent and not
    relative to it; ``winners`` holds the teams with the best match score, and in 2v2 both
    partners share their team's return. The doc page says so."""
    game = OttoGameOverGame(**params)  # type: ignore[arg-type]
    for seed in range(3):
        st, returns = _play_out(game, seed)
        infos = [game.infos(st, seat) for seat in range(game.num_players)]
        assert all(info == infos[0] for info in infos)
        scores, winners = infos[0]["match_scores"], infos[0]["winners"]
        assert len(scores) == len(infos[0]["totals"]) == teams
        assert winners == [t for t in range(teams) if scores[t] == max(scores)]
        for seat in range(game.num_players):
            team = seat % 2 if teams == 2 else seat
            assert returns[seat] == returns[team]  # a partner's return is the team's
            assert (team in winners) == (returns[seat] == max(returns))
    page = _page("otto_game_over")
    assert "indexed by absolute team, not by seat and not relative to the observer" in page
    assert "so in 2v2 ``[1]`` means ``player_1`` and ``player_3`` won" in page


# ------------------------------------------------------------------ seat-naming actions
def _relative(mask: np.ndarray, first: int, seat: int, n: int) -> list[int]:
    """The doc pages' remedy: the legal ``player_j`` of a block, as ``(j - seat) % n``."""
    return sorted((j - seat) % n for j in range(n) if mask[first + j])


@pytest.mark.parametrize("n", [3, 4])
def test_ogo_seat_actions_map_to_the_same_relative_seats(n: int) -> None:
    """``card magnetic-inversion player_j`` (201 + 1 + j) and ``card alien-kidnapping
    player_j`` (201 + 2508 + j) name absolute seats: one position turned so that each seat in
    turn sits where seat 0 did gives that seat the same observation but other legal ``j``;
    ``(j - seat) % n`` (the doc page's formula) maps them to the same relative seats."""
    game = OttoGameOverGame(num_players=n)
    base_tables = ["B7", "A4", "C8", "G16"][:n]
    base_hands = [["magnetic-inversion", "alien-kidnapping"], ["meteorite"], [], ["joker"]][:n]
    first_obs, first_rel = None, None
    for seat in range(n):
        position = {
            "tables": [base_tables[(q - seat) % n] for q in range(n)],
            "hands": [base_hands[(q - seat) % n] for q in range(n)],
            "to_move": seat,
            "tower": ["E12", "G16"],
        }
        st = game.new_initial_state(np.random.default_rng(0), {"position": position})
        assert st.current_player() == seat
        mask = st.legal_mask()
        absolute = [j for j in range(n) if mask[201 + 2508 + j]]
        assert absolute and all(st.action_to_string(201 + 2508 + j).endswith(f"player_{j}") for j in absolute)
        rel = (_relative(mask, 202, seat, n), _relative(mask, 2709, seat, n))
        obs = game.observe(st, seat)
        if first_obs is None:
            first_obs, first_rel = obs, rel
        assert np.array_equal(obs, first_obs) and rel == first_rel, seat
    assert first_rel is not None and first_rel[1] != list(range(1, n))  # the card-less seat is no target
    assert "``r = (j - seat) % n``, back ``j = (seat + r) % n``" in _page("otto_game_over")


@pytest.mark.parametrize("n", [3, 4])
def test_otto_octopus_swap_targets_map_to_the_same_relative_seats(n: int) -> None:
    """``swap <kind> player_j`` (1042 + 4 * kind + j) names an absolute seat: the same swap
    position turned to each seat gives the same observation, other legal ``j``, and the same
    relative targets ``(j - seat) % n``."""
    game = OttoOctopusGame(num_players=n)
    base = [["starfish", "bubbles"], ["minnow"], [], ["straight"]][:n]
    first_obs, first_rel = None, None
    for seat in range(n):
        hands = [base[(q - seat) % n] for q in range(n)]
        st = make(P1, hands, num_players=n, to_move=seat, phase="swap")
        assert st.current_player() == seat
        mask = st.legal_mask()
        kind = 9  # starfish
        rel = _relative(mask, 1042 + 4 * kind, seat, n)
        obs = game.observe(st, seat)
        if first_obs is None:
            first_obs, first_rel = obs, rel
        assert rel and np.array_equal(obs, first_obs) and rel == first_rel, seat
    assert first_rel != list(range(1, n))  # the empty hand is no target
    assert "``r = (j - seat) % n``, back ``j = (seat + r) % n``" in _page("otto_octopus")


# ------------------------------------------------------------------ keys to the symbols
def test_otto_octopus_page_explains_every_text_symbol() -> None:
    """Every symbol of Otto the Octopus's text (tile labels, empty-square marks, arrows, the open
    tip ``*``) and the picture's yellow ring are explained on the doc page."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.render import ABBREV, ARROWS

    page = _page("otto_octopus")
    key = page[page.index("Key to the text") : page.index("Parameters ---")]
    for symbol in (*ABBREV, *ARROWS, "*", ".", "#", "C", "a", "OO"):
        assert f"``{symbol}``" in key, symbol
    for k in range(B.CLOWNFISH, B.BUBBLES + 1):
        assert f"``{ABBREV[k]}`` {B.KINDS[k]}" in key, k
    assert "yellow ring marks an open arm tip" in key


def test_otto_octopus_picture_draws_its_key() -> None:
    """The picture's panel ends in a key (marks and fish labels) at its foot, as Octi's does;
    it had none, so its yellow rings and two-letter labels went unexplained."""
    pytest.importorskip("PIL")
    from envs.otto_octopus import render as R

    game = OttoOctopusGame()
    img = game.render_rgb(game.new_initial_state(np.random.default_rng(0)))
    assert any("yellow ring" in line for line in R.KEY) and "cl clownfish" in R.FISH_KEY
    x0, height = 2 * R.MARGIN + 8 * R.CELL, img.shape[0]
    foot = img[height - 17 * 11 : height - R.MARGIN // 2, x0:]
    assert (foot.max(axis=2) < 90).sum() > 500  # ink of the key's lines


def test_otto_game_over_page_explains_the_picture() -> None:
    """OTTO Game Over's page says what the picture's grey (dead) lines, the all-grey Z0, the
    coloured strokes, the markers and the purple 8 mean, and how to read the text's cells."""
    page = _page("otto_game_over")
    for words in (
        "the dead lines (``L``) that close nothing and score 0",
        "Z0, made only of dead lines",
        "a disc or square on a vertex is a marker",
        "purple strokes are a closed 8's line",
        "each square reads ``<tile>/<k>``",
    ):
        assert words in page, words


@pytest.mark.parametrize(
    ("params", "line"),
    [
        ({}, "rules: full game, closed hands"),
        ({"simplified": True}, "rules: simplified game, closed hands"),
        ({"num_players": 3, "open_game": True, "simplified": True}, "rules: simplified game, open hands"),
    ],
)
def test_otto_octopus_text_names_the_rules_in_play(params: dict[str, Any], line: str) -> None:
    """OTP-41 (open hands) and OTP-42/43 (the simplified game) change what a player may do and
    see, so the text says which apply, below the board, as Octi's and Over and Out's do."""
    env = get_game("otto_octopus").env(render_mode="ansi", **params)
    env.reset(seed=0)
    text = str(env.render()).splitlines()
    assert text[text.index("") + 1] == line
