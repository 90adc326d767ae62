"""Audit of the engine against the spec: edge cases beyond the §9 scenarios (rule IDs cited)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.otto_game_over import encode
from envs.otto_game_over.game import OttoGameOverGame
from envs.otto_game_over.geometry import DARK, DESIGN_IDS, TILE_VALUE
from envs.otto_game_over_v0 import env as make_env
from tests.otto_game_over.helpers import board, legal, make, p_eight, play, points, shapes
from tests.otto_game_over.test_scenarios import S14_BOARD, S15_BOARD


def _tile(name: str) -> int:
    return DESIGN_IDS.index(name)


# ------------------------------------------------------------------ shapes and markers
def test_two_squares_one_marker() -> None:
    """OGO-08, OGO-20, OGO-21, OGO-22: one tile closes two squares; the only marker goes
    to the lower vertex line first (vc1 before vd1), the other is claimed by p1 next turn."""
    pos = {
        "board": {"c2": "Z0/0", "b1": "G16/0", "d1": "G16/0"},
        "tables": ["A4", "A4"],
        "tower": ["G16", "B7"],
        "markers": [{"small": 4, "big": 4, "square": 1}, {"small": 4, "big": 4, "square": 3}],
    }
    st = make(pos)
    assert "drawn c1 r0" in legal(st)
    play(st, "drawn c1 r0")
    assert shapes(st) == {"square@vc1": 0, "square@vd1": 1}
    assert points(st) == [4, 4] and st.supply == [[4, 4, 0], [4, 4, 2]]


def test_lost_points_when_nobody_has_markers() -> None:
    """OGO-21: an unclaimed shape nobody can mark scores for nobody at the match end (OGO-50)."""
    pos = {
        "board": {"c2": "Z0/0", "b1": "G16/0", "d1": "G16/0"},
        "tables": ["A4", "A4"],
        "tower": ["G16", "B7"],
        "markers": [{"small": 4, "big": 4, "square": 0}, {"small": 4, "big": 4, "square": 0}],
    }
    st = make(pos)
    play(st, "drawn c1 r0")
    assert shapes(st) == {"square@vc1": None, "square@vd1": None} and points(st) == [0, 0]


def test_zero_table_tile_has_no_force() -> None:
    """OGO-14: a Z0 held as table tile is not forced; must-score still binds the drawn tile."""
    pos = {
        "board": {"d3": "E12/0", "d4": "E12/1", "e3": "E12/1"},
        "tables": ["Z0", "A4"],
        "tower": ["E12", "G16"],
    }
    st = make(pos)
    assert legal(st) == {"drawn e2 r0", "drawn e2 r2", "drawn e4 r0", "drawn e4 r2"}


def test_dark_drawn_zero_on_table() -> None:
    """OGO-15: dark drawn with a Z0 table tile: the Z0 must be placed, the dark becomes the table tile."""
    st = make({"tables": ["Z0", "G16"], "tower": ["DARK", "A4", "B7"]})
    assert {m.split()[0] for m in legal(st)} == {"table"}
    play(st, "table b3 r0")
    assert st.tables[0] == DARK
    play(st, "drawn d3 r0")
    assert st.to_move == 0 and st.drawn == _tile("B7")
    assert {m.split()[0] for m in legal(st)} == {"drawn"}  # the dark table tile stays out


# --------------------------------------------------------------------------- the 8
MIXED_LOBES = {"c2": "Z0/0", "a1": "A4/0", "c1": "G16/0"}


def test_square_lobe_eight_only_with_option() -> None:
    """OGO-06, OGO-12, OGO-24: D10 on b1 with a round lobe (vb1) and a square lobe (vc1)
    is an 8 only with eight_lobes='round_or_square'; then it is forced and ends the match."""
    pos = {"board": MIXED_LOBES, "tables": ["A4", "A4"], "tower": ["D10", "B7"]}
    st = make(pos, eight_lobes="round_or_square", episode="match")
    assert legal(st) == {"drawn b1 r0"}
    play(st, "drawn b1 r0")
    assert st.is_terminal() and st.match_scores == [8, 0]

    st = make(pos, episode="match", head_in_the_clouds=True)
    play(st, "drawn b1 r0")
    assert not st.is_terminal() and st.to_move == 1


def test_eight_closed_by_a_quantum_leap() -> None:
    """OGO-38, OGO-41, OGO-24: a Quantum Leap that closes an 8 ends the match 8-nil for the card player."""
    pos = p_eight(tower=["B7"], hands=[["quantum-leap"], []])
    pos["board"]["d4"] = "D10/0"
    e = make_env(episode="match")
    e.reset(seed=0, options={"position": pos})
    st = e.unwrapped.state
    assert "card quantum-leap d4 a1 r0" in legal(st)
    e.step(st.string_to_action("card quantum-leap d4 a1 r0"))
    st = e.unwrapped.state
    assert st.is_terminal() and st.match_scores == [8, 0]
    assert e.rewards == {"player_0": 0.25, "player_1": -0.25}


def test_infinity_order_and_eligibility() -> None:
    """OGO-45, OGO-46, OGO-47: visits from the creator clockwise; a seat without cards or
    whose team has no marker point is not asked; the joker saves p0's points."""
    pos = p_eight(tower=["B7"], tables=["G16", "D10", "A4"], to_move=1, hands=[["joker"], [], ["infinity"]])
    st = make(pos, num_players=3, episode="match")
    assert legal(st) == {"table a1 r0"}
    play(st, "table a1 r0")
    assert st.current_player() == 0 and legal(st) == {"card joker as infinity", "keep infinity"}
    play(st, "card joker as infinity")
    assert st.is_terminal() and st.match_scores == [1, 8, 0]
    assert st.hands == [[], [], [7]]  # p2 (team without points) was never asked


def test_partner_infinity_in_teams() -> None:
    """OGO-45, OGO-57: in 2v2 the creator's partner plays Infinity: the team scores 8 + markers."""
    pos = p_eight(tower=["B7"], tables=["D10", "G16", "A4", "A4"], hands=[[], ["infinity"], ["infinity"], []])
    st = make(pos, num_players=4, teams=True, episode="match")
    play(st, "table a1 r0")
    assert st.current_player() == 1  # an opponent first (clockwise after the creator)
    play(st, "keep infinity")
    assert st.current_player() == 2
    play(st, "card infinity")
    assert st.is_terminal() and st.match_scores == [9, 0]


# ---------------------------------------------------------------------- cards
def test_kidnapped_joker() -> None:
    """OGO-43, OGO-47: a kidnapped joker is played as any start-of-turn kind, never as infinity."""
    st = make({"tables": ["A4", "B7"], "tower": ["E12", "F12"], "hands": [["alien-kidnapping"], ["joker"]]})
    play(st, "card alien-kidnapping player_1")
    moves = legal(st)
    assert st.phase == 1 and all(m.startswith("card joker as ") for m in moves)
    assert "card joker as infinity" not in moves and "card joker as time-travel" in moves
    assert "card joker as alien-kidnapping player_1" not in moves  # p1 has no card left
    play(st, "card joker as revolution-cw")
    assert [DESIGN_IDS[t] for t in st.tables] == ["B7", "A4"] and st.drawn == _tile("E12")
    assert st.removed[8] == 1 and st.removed[6] == 1


def test_kidnap_chain() -> None:
    """OGO-44: a kidnapped alien-kidnapping chains to another opponent."""
    st = make(
        {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12", "F12", "G16", "D10"],
            "hands": [["alien-kidnapping"], ["alien-kidnapping"], ["meteorite"]],
        },
        num_players=3,
    )
    play(st, "card alien-kidnapping player_1")
    assert legal(st) == {"card alien-kidnapping player_2"}
    play(st, "card alien-kidnapping player_2")
    assert legal(st) == {"card meteorite"}
    play(st, "card meteorite")
    assert [DESIGN_IDS[t] for t in st.tables] == ["E12", "F12", "G16"] and st.drawn == _tile("D10")
    assert st.hands == [[], [], []] and st.to_move == 0


def test_kidnapped_card_without_target_fails() -> None:
    """OGO-43, OGO-32: a kidnapped Quantum Leap with no movable tile is void; the turn goes on."""
    st = make(
        {"tables": ["A4", "B7"], "tower": ["E12", "F12"], "hands": [["alien-kidnapping"], ["quantum-leap"]]}
    )
    play(st, "card alien-kidnapping player_1")
    assert st.phase == 2 and st.hands == [[], []] and st.removed[5] == 1


def test_alien_never_targets_partner() -> None:
    """OGO-42, OGO-35: in 2v2 kidnapping targets opponents only; magnetic inversion any seat."""
    st = make(
        {
            "tables": ["A4", "B7", "C8", "G16"],
            "tower": ["E12"],
            "hands": [["alien-kidnapping", "magnetic-inversion"], ["time-travel"], ["meteorite"], []],
        },
        num_players=4,
        teams=True,
    )
    moves = legal(st)
    assert {m for m in moves if "alien" in m} == {"card alien-kidnapping player_1"}
    assert {m for m in moves if "magnetic" in m} == {f"card magnetic-inversion player_{j}" for j in (1, 2, 3)}


def test_time_travel_after_a_skipped_turn() -> None:
    """OGO-34, OGO-16: a Time Travel turn skipped by a dark pair still gives the extra turn."""
    st = make({"tables": ["DARK", "G16"], "tower": ["DARK", "A4", "E12"], "hands": [["time-travel"], []]})
    play(st, "card time-travel")
    assert st.to_move == 0 and st.extra_turn and st.phase == 2
    assert st.tables[0] == _tile("A4") and st.drawn == _tile("E12")


def test_meteorite_short_tower() -> None:
    """OGO-37, OGO-18: replacements from the card player on; none once the tower is empty;
    with an empty tower the table tile must be placed."""
    st = make(
        {
            "tables": ["A4", "B7", "C8"],
            "tower": ["E12"],
            "tower_rest": False,
            "hands": [[], ["meteorite"], []],
            "to_move": 1,
        },
        num_players=3,
    )
    play(st, "card meteorite")
    assert st.tables == [-1, _tile("E12"), -1]
    assert st.phase == 2 and {m.split()[0] for m in legal(st)} == {"table"}
    assert sorted(st.discarded) == sorted([_tile("A4"), _tile("B7"), _tile("C8")])


def test_cards_kept_and_new_card_each_match() -> None:
    """OGO-29, OGO-28, §2.4: unused cards stay; each player draws one more card per match."""
    pos = p_eight(
        tower=["B7", "C8", "E12"], hands=[["meteorite"], ["infinity"]], deck=["time-travel", "quantum-leap"]
    )
    st = make(pos)
    play(st, "no card", "table a1 r0")
    assert legal(st) == {"keep infinity"}  # p0 holds a card: asked, so nothing is revealed (OGO-46)
    play(st, "keep infinity", "keep infinity")
    assert st.matches == 1 and st.totals == [8, 0]
    assert st.hands == [[0, 4], [5, 7]]  # + time-travel for p0, + quantum-leap for p1
    assert st.deck == []


# ------------------------------------------------------------------- match end, game end
def _s14(**extra: object) -> dict[str, object]:
    pos: dict[str, object] = {
        "board": board(S14_BOARD),
        "shapes": {"small@va6": 1, "small@vf1": 1},
        "tables": ["C8", "B7"],
        "tower": ["E12"],
        "to_move": 1,
    }
    pos.update(extra)
    return pos


@pytest.mark.parametrize(("p2_table", "silly"), [("A4", 12), ("DARK", 8)])
def test_silly_match_sums_partners(p2_table: str, silly: int) -> None:
    """OGO-51, OGO-57: in 2v2 a team without markers scores both partners' table tiles (dark = 0)."""
    st = make(_s14(tables=["C8", "B7", p2_table, "G16"]), num_players=4, teams=True, episode="match")
    play(st, "table b1 r2")
    assert st.match_scores == [silly, 2]


def test_highest_total_wins_above_target() -> None:
    """OGO-52: several teams pass the target: the highest total wins."""
    e = make_env()
    e.reset(seed=0, options={"position": _s14(totals=[17, 24])})
    e.step(e.unwrapped.string_to_action("table b1 r2"))
    st = e.unwrapped.state
    assert st.totals == [25, 26] and st.winners == [1]
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_truncation_after_max_matches() -> None:
    """§5: max_matches regular matches without a winner: every agent truncated with 0."""
    e = make_env(max_matches=1)
    e.reset(seed=0, options={"position": _s14()})
    e.step(e.unwrapped.string_to_action("table b1 r2"))
    assert all(e.truncations.values()) and e.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_tie_at_the_target_in_the_last_allowed_match_plays_the_tie_break() -> None:
    """§5 with OGO-53: when the max_matches-th regular match ends in a tie at or above the
    target, the game has a winner still to find, not an endless run: the tie-break match starts
    (the doc page's decision) and truncation waits for a match that ends below the target."""
    e = make_env(max_matches=1)
    e.reset(seed=0, options={"position": _s14(totals=[16, 22], hands=[["meteorite"], []])})
    e.step(e.unwrapped.string_to_action("table b1 r2"))
    st = e.unwrapped.state
    assert st.totals == [24, 24] and st.tiebreak and st.matches == 1
    assert not any(e.truncations.values()) and not any(e.terminations.values())
    assert not st.is_truncated() and not st.is_terminal()


def test_three_player_game_rewards() -> None:
    """§5: one winner of three teams gets +1, the others -1/2."""
    pos = _s14(tables=["C8", "B7", "A4"], totals=[10, 23, 0], to_move=1)
    st = make(pos, num_players=3)
    play(st, "table b1 r2")
    assert st.match_scores == [8, 2, 4] and st.winners == [1]
    assert list(st.returns()) == [-0.5, 1.0, -0.5]


def test_tiebreak_voids_cards_and_is_blind() -> None:
    """OGO-33, OGO-53, OGO-54: the tie-break match deals no tiles or cards; held cards are void."""
    st = make(_s14(totals=[16, 22], hands=[["meteorite"], ["infinity"]], deck=["joker"]))
    play(st, "no card", "table b1 r2")
    assert st.tiebreak and st.hands == [[], []] and st.voided == 2 and st.deck == [8]
    assert st.to_move == 0 and st.phase == 2 and {m.split()[0] for m in legal(st)} == {"drawn"}


def test_solo_board_full_is_a_defeat() -> None:
    """OGO-61: the board fills without victory: the solo player loses (-1)."""
    st = make({"board": board(S14_BOARD), "tower": ["E12"]}, num_players=1)
    play(st, sorted(legal(st))[0])
    assert st.is_terminal() and list(st.returns()) == [-1.0] and st.winners == []


def test_solo_score_counts_unmarked_shapes() -> None:
    """OGO-62: each closed shape left without a marker costs 1 point."""
    marked = {f"big@{v}": 0 for v in ("vc3", "vd3", "vc4", "vd4")}
    marked.update({f"square@{v}": 0 for v in ("vc1", "vc6", "vd6")})
    marked.update({f"small@{v}": 0 for v in ("va1", "va6", "vf6")})
    marked["small@vf5"] = None  # closed by the extra e4 tile when no marker was spare
    pos = {
        "board": {**board(S15_BOARD), "e4": "A4/0"},
        "shapes": marked,
        "tower": ["D10"],
        "markers": [{"small": 1, "big": 0, "square": 0}],
    }
    st = make(pos, num_players=1)
    assert legal(st) == {"drawn e1 r0", "drawn e1 r3"}
    play(st, "drawn e1 r0")
    assert st.is_terminal() and st.match_scores == [24 + 8 + 2 * 4 - 1]


# ------------------------------------------------------------------- setup and params
def test_first_player_and_no_dark_start_tiles() -> None:
    """§2.4, §2.5: starting tiles are never dark; the highest tile starts, ties to the lowest seat."""
    game = OttoGameOverGame(num_players=4)
    for seed in range(40):
        st = game.new_initial_state(np.random.default_rng(seed))
        assert all(0 <= t < DARK for t in st.tables)
        values = [TILE_VALUE[t] for t in st.tables]
        assert st.to_move == values.index(max(values))
        assert [len(h) for h in st.hands] == [1, 1, 1, 1] and len(st.deck) == 29


def test_partner_cards_observed_opponents_hidden() -> None:
    """OGO-27: the partner's cards are in my observation; the opponents' only as counts."""
    game = OttoGameOverGame(num_players=4, teams=True)
    st = make(
        {
            "tables": ["A4", "B7", "C8", "G16"],
            "tower": ["E12"],
            "hands": [["meteorite"], ["joker"], ["time-travel"], ["infinity"]],
        },
        num_players=4,
        teams=True,
    )
    obs = game.observe(st, 0)
    o = encode.OFFSET["partner_cards"]
    assert obs[o + 0] == 0.25 and obs[o : o + 9].sum() == 0.25
    other = st.clone()
    other.hands = [[4], [7], [0], [8]]  # opponents' cards swapped: same observation for seat 0
    assert (game.observe(other, 0) == obs).all()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("target_score", 0),
        ("max_matches", 0),
        ("target_score", 2.5),
        ("max_matches", True),
        ("eight_lobes", "square"),
        ("episode", "solo"),
        ("num_players", 5),
    ],
)
def test_param_bounds(name: str, value: object) -> None:
    """§6: out-of-range parameters name the parameter."""
    with pytest.raises(ValueError, match=name):
        OttoGameOverGame(**{name: value})


def test_param_large_values_accepted() -> None:
    """§6: target_score and max_matches are any int >= 1."""
    game = OttoGameOverGame(target_score=1, max_matches=1)
    assert game.new_initial_state(np.random.default_rng(0)).phase in (0, 2)
    OttoGameOverGame(target_score=1_000_000, max_matches=1_000_000)


# ------------------------------------------------------------------------ render
def test_render_two_markers_at_one_vertex_both_visible() -> None:
    """A square and a big circle closed round the same vertex (B7/E12 corners) each show their
    marker: drawn side by side, team 0's square is not hidden under team 1's big circle."""
    from envs.core.draw import SEAT_COLORS
    from envs.otto_game_over.render import _vertex_px, render_rgb

    pos = {
        "board": {"a1": "E12/0", "b1": "E12/1", "a2": "E12/1", "b2": "E12/0", "b3": "A4/0"},
        "shapes": {"square@vb2": 0, "big@vb2": 1},
    }
    img = render_rgb(make(pos))
    vx, vy = _vertex_px(7)  # vb2
    near = img[vy - 4 : vy + 5, vx - 16 : vx + 17].reshape(-1, 3).tolist()
    assert list(SEAT_COLORS[0]) in near and list(SEAT_COLORS[1]) in near


def test_render_shows_infinity_time_travel_and_cards_out() -> None:
    """OGO-34/45/46, spec §7 (played cards are public): the pictures name the creator of the 8
    and the teams already saved, a coming Time-Travel turn, the last match and the cards shown."""
    from envs.otto_game_over.render import render_ansi, render_rgb

    pos = {
        "board": {"b3": "A4/0"},
        "hands": [["infinity"]] * 4,
        "removed_cards": {"time-travel": 4, "magnetic-inversion": 4, "quantum-leap": 4, "joker": 1},
        "voided_cards": 3,
        "matches": 12,
        "match_scores": [24, 22, 8, 32],
        "phase": "infinity",
        "to_move": 2,
        "actor": 3,
        "time_travel": True,
        "infinity": {"creator": 2, "visited": 1, "saved": [True, True, False, False]},
    }
    st = make(pos, num_players=4)
    text = render_ansi(st)
    assert "8 closed by player_2 (X tile ?), saved: team 0, team 1" in text
    assert "player_2: Time-Travel extra turn to come" in text
    assert "last match: 24-22-8-32" in text
    assert "cards out: time-travel 4, magnetic-inversion 4, quantum-leap 4, joker 1, voided unseen 3" in text
    img = render_rgb(st)
    assert img.shape == (536, 866, 3)
    assert (img[-30:, 546:] == img[-1, -1]).all()  # the panel ends above the bottom edge


def test_render_game_over_match_number_and_winners_fit() -> None:
    """At the end of a game the picture names the last match played (the game-ending regular
    match is already counted in ``matches``), and a four-way tie of a one-match episode stays
    on the canvas."""
    from envs.otto_game_over.render import render_ansi, render_rgb
    from envs.otto_game_over.rules import OVER

    st = OttoGameOverGame().new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not st.is_terminal():
        st.apply(int(rng.choice(st.legal_actions())))
    assert st.matches >= 2 and not st.tiebreak
    assert f"match {st.matches}\n" in render_ansi(st)
    st = make({}, num_players=4, episode="match")
    st.winners, st.phase = [0, 1, 2, 3], OVER
    assert "draw: teams 0, 1, 2, 3 tie" in render_ansi(st)  # every side shares the top
    st.winners = [0, 2]
    assert "teams 0, 2 won" in render_ansi(st)
    st.winners = [0, 1, 2, 3]
    img = render_rgb(st)
    assert (img[10:40, -6:] == img[-1, -1]).all()  # the heading is not cut at the right edge


def test_render_outlines_a_closed_eight() -> None:
    """OGO-06/24: a closed 8 standing on the board (here at the end of a one-match episode,
    spec §9 S6) is drawn in its own colour, tile strokes and frame lobes, and named by its X
    tile in the text; before it closes nothing carries that colour."""
    from envs.otto_game_over.geometry import VERTEX_OF_NAME
    from envs.otto_game_over.render import EIGHT_COLOR, _vertex_px, closed_eights, render_ansi, render_rgb

    st = make(p_eight(tower=["B7", "C8", "E12"]), episode="match")
    assert closed_eights(st)[0] == [] and "8 on the board" not in render_ansi(st)
    assert not (render_rgb(st) == EIGHT_COLOR).all(axis=-1).any()
    play(st, "table a1 r0")
    assert st.is_terminal() and st.match_scores == [8, 0]
    xs, ports, frame = closed_eights(st)
    assert xs == [0] and frame == {VERTEX_OF_NAME["va1"], VERTEX_OF_NAME["vb1"]}
    assert set(ports) == {0, 1}  # the X tile a1 and the lobe's quarter circle on b1
    assert "8 on the board: X tile a1" in render_ansi(st)
    hit = (render_rgb(st) == EIGHT_COLOR).all(axis=-1)
    for v in ("va1", "vb1"):  # the frame's half circles below the board
        vx, vy = _vertex_px(VERTEX_OF_NAME[v])
        assert hit[vy : vy + 24, vx - 24 : vx + 25].any()
    assert hit[48 + 4 * 88 : 48 + 5 * 88, 48 : 48 + 88].any()  # the a1 tile's strokes


@pytest.mark.parametrize("params", [{}, {"num_players": 3}, {"num_players": 1}])
def test_closed_eights_of_the_picture_are_the_rules_eights(params: dict[str, object]) -> None:
    """The picture's 8s (its own walk of the lines) are exactly the 8s the rules find
    (``geometry.closed_shapes`` through every tile), at every decision of random one-match
    games; and some games do end on an 8."""
    from envs.otto_game_over.geometry import closed_shapes
    from envs.otto_game_over.render import closed_eights

    seen = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        st = OttoGameOverGame(episode="match", **params).new_initial_state(rng)
        while True:
            rules = {
                x
                for sq in range(25)
                if st.design[sq] >= 0
                for x in closed_shapes(st.design, st.rot, sq, False)[1]
            }
            assert sorted(rules) == closed_eights(st)[0]
            seen += bool(rules)
            if st.is_terminal():
                break
            st.apply(int(rng.choice(st.legal_actions())))
    assert seen > 0


def test_observation_stays_in_its_space_beyond_the_copy_counts() -> None:
    """The doc page: every count block is clipped at 1, so a set-up position holding more than
    the game's copies (40 cards in the deck, six Z0 in the tower, five cards of a kind, six
    removed) is still inside ``observation_space``; and ``to_move`` / ``actor`` are zero once
    the game is over."""
    e = make_env()
    e.reset(
        seed=0,
        options={
            "position": {
                "deck": ["meteorite"] * 40,
                "tower": ["Z0"] * 6,
                "tower_rest": False,
                "hands": [["time-travel"] * 5, []],
                "removed_cards": {"meteorite": 6},
            }
        },
    )
    for agent in e.agents:
        obs = e.observe(agent)
        assert e.observation_space(agent).contains(obs), agent
        assert obs["observation"].max() == 1.0
    st = OttoGameOverGame().new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not st.is_terminal():
        st.apply(int(rng.choice(st.legal_actions())))
    blocks = dict(encode.BLOCKS)
    start = sum(size for name, size in encode.BLOCKS[: [b for b, _ in encode.BLOCKS].index("to_move")])
    for seat in range(2):
        o = OttoGameOverGame().observe(st, seat)
        assert not o[start : start + blocks["to_move"] + blocks["actor"]].any()


def test_render_colours_the_frame_half_of_an_owned_border_shape() -> None:
    """The picture shows closed shapes in their owners' colours: at a border vertex the frame's
    half of the shape too (it stayed grey, so a claimed corner circle read as unclaimed)."""
    from envs.core.draw import SEAT_COLORS
    from envs.otto_game_over.geometry import FRAME_KIND, VERTEX_OF_NAME
    from envs.otto_game_over.render import UNIT, _vertex_px, render_rgb
    from tests.otto_game_over.helpers import p_eight

    st = make(p_eight())  # small@vf1 owned by team 0, small@va6 by team 1 (both on the frame)
    img = render_rgb(st)
    for name, team in (("vf1", 0), ("va6", 1)):
        v = VERTEX_OF_NAME[name]
        assert v in FRAME_KIND
        vx, vy = _vertex_px(v)
        outside = (vx - UNIT, vy) if name.startswith("va") else (vx + UNIT, vy)  # off the board
        assert tuple(img[outside[1], outside[0]]) == SEAT_COLORS[team]
