"""Second mutation round on the renderers (``envs/*/render.py``, ``envs/core/draw.py``): pins
of what the first round's pixel probes miss.

* The ``ansi`` text of every game, line for line, in positions reached by a seeded random
  game through ``env(render_mode="ansi")``: the board, every status line of each doc page's
  list (Octi: mid-turn bookkeeping, the rules that are on, how and when a finished game ended,
  OCT-42/43/45; Over and Out: the header with the result, the rules line, piles, the places in
  the order of elimination, the dealer, the mover's hand only (OAO-40); OTTO Game Over: shapes,
  totals, markers left, tables, card counts, tower / deck / drawn / match, the notes (Time
  Travel, the kidnapped card, an 8 waiting for Infinity answers, the solo 8, the cards out),
  the result with the returns; Otto the Octopus: the ocean, scores, hands, skips, pile, the
  phase and extra placements, the open game's shown tiles (OTP-41), the final scores and the
  winners or the truncation).
* ``rgb_array`` frames: shape and dtype the doc pages promise, panel words and seat colours.
* The ``envs.core.draw`` helpers: the WCAG contrast, the readable text colours, ``to_array``,
  ``save_gif`` (padding, timing, looping, the empty-list error) and ``save_png``.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

pytest.importorskip("PIL")

from PIL import Image  # noqa: E402

from envs.core import draw  # noqa: E402


def _position(game: str, params: dict[str, Any], seed: int, step: int | None, mode: str = "ansi") -> Any:
    """``env(render_mode=mode)`` reset with ``seed`` and played by a random policy seeded alike;
    stopped after ``step`` agent steps that leave agents in play (``None``: to the end, every
    agent removed)."""
    e = importlib.import_module(f"envs.{game}_v0").env(render_mode=mode, **params)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    if step == 0:
        return e
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(legal.size)]))
        if e.agents:
            done += 1
            if done == step:
                return e
    return e


CASES = {
    "OCTI_BASE_WIN": (
        "octi",
        {},
        0,
        None,
        (
            " 7 .  .  R  .  .  R",
            " 6 .  +  B  +  +  .",
            " 5 .  R  .  .  .  .",
            " 4 .  .  .  .  .  .",
            " 3 .  R  .  .  .  .",
            " 2 .  B  +  B  +  .",
            " 1 .  .  .  .  B  .",
            "   a  b  c  d  e  f",
            "Black pods: b2[E,W] c6[NE,SE,NW] e1[N,SE,SW,NW] d2[N,SE,W]",
            "Red   pods: b3[N,S,SW,W] b5[S,W] f7[N,E,NW] c7[E,S,NW]",
            "game over in turn 67: Black wins (reached an enemy base)",
            "rules: basic",
            "Black supply  0  reserve 0  captured 0",
            "Red   supply  0  reserve 0  captured 0",
        ),
    ),
    "OCTI_X_DECLARE": (
        "octi",
        {"variant": "x_fast"},
        0,
        29,
        (
            " 9 .  .  .  .  .  .  .  .  .",
            " 8 .  .  .  .  .  .  .  .  .",
            " 7 .  .  +  .  R  .  R2 .  .",
            " 6 .  R  .  .  .  .  .  .  .",
            " 5 .  .  .  .  .  .  R  .  .",
            " 4 .  .  .  .  .  .  .  .  .",
            " 3 .  .  +  .  B  .  B  .  .",
            " 2 .  B  .  .  .  .  .  B  .",
            " 1 .  .  .  .  .  .  .  .  .",
            "   a  b  c  d  e  f  g  h  i",
            "Black pods: b2[E,SW] e3[N,S,SW] h2[NE,SE,SW,W] g3[E,SW,W]",
            "Red   pods: g5[N,SE,S,SW,W] e7[] b6[SE,SW] g7.0[SE,SW] g7.1[]",
            "turn 29 of 500: player_0 (Black) to act, phase DECLARE",
            "rules: x_fast",
            "origin g3  jumped -",
            "moving h2  focus g3  marked capture -",
            "Black supply 13  reserve 3  captured 0",
            "Red   supply 16  reserve 2  captured 0",
        ),
    ),
    "OCTI_CHAIN": (
        "octi",
        {},
        5,
        56,
        (
            " 7 .  .  .  .  .  .",
            " 6 .  +  +  +  +  .",
            " 5 .  .  R  .  .  .",
            " 4 R  .  .  .  .  B",
            " 3 B  .  .  .  .  .",
            " 2 B  +  +  +  +  .",
            " 1 .  .  .  .  .  .",
            "   a  b  c  d  e  f",
            "Black pods: f4[NE,SE,S] a3[N,SE,S,SW,W,NW] a2[S,SW,NW]",
            "Red   pods: c5[E,SW,W,NW] a4[N,SE,S,SW,W,NW]",
            "turn 53 of 300: player_0 (Black) to act, phase CHAIN",
            "rules: basic",
            "origin a1  jumped a2",
            "moving a3  focus a3  marked capture -",
            "Black supply  0  reserve 0  captured 1",
            "Red   supply  2  reserve 0  captured 2",
        ),
    ),
    "OCTI_CAPTURE": (
        "octi",
        {},
        0,
        59,
        (
            " 7 .  .  R  .  .  R",
            " 6 .  +  +  +  +  .",
            " 5 .  .  R  .  .  .",
            " 4 B  .  .  .  .  .",
            " 3 .  R  .  .  .  .",
            " 2 B  +  +  +  +  B",
            " 1 .  .  .  B  .  .",
            "   a  b  c  d  e  f",
            "Black pods: a2[E,W] a4[NE,SE,NW] f2[N,SE,SW,NW] d1[N,SE,W]",
            "Red   pods: b3[N,S,SW,W] c5[S,W] f7[N,E,NW] c7[E,S,NW]",
            "turn 59 of 300: player_0 (Black) to act, phase CAPTURE",
            "rules: basic",
            "origin c2  jumped b3",
            "moving a4  focus b3  marked capture -",
            "Black supply  0  reserve 0  captured 0",
            "Red   supply  0  reserve 0  captured 0",
        ),
    ),
    "OCTI_TRUNCATED": (
        "octi",
        {"variant": "x_classic", "max_turns": 30},
        0,
        None,
        (
            " 9 .  .  .  .  .  .  .  .  .",
            " 8 .  .  .  .  .  .  .  .  .",
            " 7 .  .  +  .  R  .  R2 .  .",
            " 6 .  .  .  .  .  .  .  .  .",
            " 5 R  .  .  .  .  .  R  .  .",
            " 4 .  .  .  .  .  .  .  .  .",
            " 3 .  .  +  .  B  .  B  .  .",
            " 2 .  B  .  .  .  .  .  B  .",
            " 1 .  .  .  .  .  .  .  .  .",
            "   a  b  c  d  e  f  g  h  i",
            "Black pods: b2[E,SW] e3[N,S,SW] h2[NE,SE,SW,W] g3[E,SW,W]",
            "Red   pods: g5[N,SE,S,SW,W] e7[] a5[SE,SW] g7.0[SE,SW] g7.1[]",
            "game over after 30 turns: draw (truncated)",
            "rules: x_classic",
            "Black supply 13  reserve 3  captured 0",
            "Red   supply 16  reserve 2  captured 0",
        ),
    ),
    "OCTI_ALL_RULES": (
        "octi",
        {
            "variant": "x_fast",
            "allow_reposition": True,
            "edgeless": True,
            "capture_to_reserve": True,
            "repetition_draw": True,
        },
        0,
        0,
        (
            " 9 .  .  .  .  .  .  .  .  .",
            " 8 .  .  .  .  .  .  .  .  .",
            " 7 .  .  R  .  R  .  R  .  .",
            " 6 .  .  .  .  .  .  .  .  .",
            " 5 .  .  .  .  .  .  .  .  .",
            " 4 .  .  .  .  .  .  .  .  .",
            " 3 .  .  B  .  B  .  B  .  .",
            " 2 .  .  .  .  .  .  .  .  .",
            " 1 .  .  .  .  .  .  .  .  .",
            "   a  b  c  d  e  f  g  h  i",
            "Black pods: c3[] e3[] g3[]",
            "Red   pods: g7[] e7[] c7[]",
            "turn 1 of 500: player_0 (Black) to act, phase MAIN",
            "rules: x_fast, reposition, edgeless, capture to reserve, repetition draw",
            "Black supply 25  reserve 4  captured 0",
            "Red   supply 25  reserve 4  captured 0",
        ),
    ),
    "OAO_FIVE_OVER": (
        "over_and_out",
        {"num_players": 5},
        0,
        None,
        (
            "Over and Out - round 17, play 254 of 5000 - game over: player_4 wins",
            "rules: -10 require_10, rewards placement",
            "total 45 / Tip Top 33   direction clockwise",
            "draw pile 52   play pile 17   Tip Top pile 3 (discarded: 55)",
            "  player_0: out (1st out)",
            "  player_1: out (2nd out)",
            "  player_2: out (4th out)",
            "  player_3: out (3rd out)",
            "  player_4 (dealer): chips 3 ooo",
        ),
    ),
    "OAO_TRUNCATED": (
        "over_and_out",
        {"num_players": 3, "max_plays": 20},
        0,
        None,
        (
            "Over and Out - round 2, play 20 of 20 - game over: truncated",
            "rules: -10 require_10, rewards placement",
            "total 24 / Tip Top 55   direction clockwise",
            "draw pile 53   play pile 8   Tip Top pile 4 (discarded: none)",
            "  player_0 (dealer): chips 4 oooo",
            "  player_1: chips 4 oooo",
            "  player_2: chips 3 ooo",
        ),
    ),
    "OAO_MID": (
        "over_and_out",
        {"num_players": 2},
        0,
        21,
        (
            "Over and Out - round 2, play 21 of 5000",
            "rules: -10 require_10, rewards placement",
            "total 0 / Tip Top 55   direction clockwise",
            "draw pile 65   play pile 0   Tip Top pile 4 (discarded: none)",
            "  player_0 (dealer): chips 3 ooo",
            "> player_1: chips 4 oooo   hand: 1 3 4 -10",
        ),
    ),
    "OGO_WON": (
        "otto_game_over",
        {},
        0,
        None,
        (
            "     a      b      c      d      e      ",
            "5    F12/2  D10/1  C8/1   B7/3   B7/0   ",
            "4    C8/3   A4/3   G16/1  G16/1  E12/1  ",
            "3    C8/0   A4/2   C8/0   A4/3   Z0/3   ",
            "2    A4/1   Z0/2   D10/2  F12/1  E12/0  ",
            "1    B7/3   F12/0  E12/1  G16/1  D10/2  ",
            "shapes: small@va2=team0, square@vd1=team1, small@vf1=team0, small@vf6=team1, square@ve5=team0",
            "team 0: total 27, on board 6 pt, markers left small 2 big 4 square 2",
            "team 1: total 17, on board 5 pt, markers left small 3 big 4 square 2",
            "player_0: table DARK, 1 card(s)",
            "player_1: table DARK, 1 card(s)",
            "tower 8, deck 22, drawn -, match 4",
            "last match: 6-5",
            "cards out: time-travel 1, magnetic-inversion 1, revolution-cw 1, revolution-acw 2, meteorite 1, quantum-leap 1, alien-kidnapping 1, infinity 1",
            "game over: team 0 won, returns [1.0, -1.0]",
        ),
    ),
    "OGO_TT_TO_COME": (
        "otto_game_over",
        {},
        0,
        22,
        (
            "     a      b      c      d      e      ",
            "5    .      .      .      Z0/0   A4/2   ",
            "4    Z0/2   G16/2  .      .      F12/1  ",
            "3    F12/1  C8/3   C8/0   F12/3  Z0/0   ",
            "2    E12/2  E12/1  G16/3  .      .      ",
            "1    D10/3  .      .      .      .      ",
            "shapes: big@vb3=team0, small@va1=team1, small@vf6=team1",
            "team 0: total 0, on board 2 pt, markers left small 4 big 3 square 3",
            "team 1: total 0, on board 2 pt, markers left small 2 big 4 square 3",
            "player_0: table D10, 1 card(s)",
            "player_1: table E12, 0 card(s)",
            "tower 18, deck 30, drawn C8, match 1",
            "player_0: Time-Travel extra turn to come",
            "cards out: time-travel 1, revolution-acw 1",
            "player_0 to act (place)",
        ),
    ),
    "OGO_TT_EXTRA": (
        "otto_game_over",
        {},
        0,
        23,
        (
            "     a      b      c      d      e      ",
            "5    D10/3  .      .      Z0/0   A4/2   ",
            "4    Z0/2   G16/2  .      .      F12/1  ",
            "3    F12/1  C8/3   C8/0   F12/3  Z0/0   ",
            "2    E12/2  E12/1  G16/3  .      .      ",
            "1    D10/3  .      .      .      .      ",
            "shapes: big@vb3=team0, small@va1=team1, small@vf6=team1, small@va6=team0",
            "team 0: total 0, on board 3 pt, markers left small 3 big 3 square 3",
            "team 1: total 0, on board 2 pt, markers left small 2 big 4 square 3",
            "player_0: table C8, 1 card(s)",
            "player_1: table E12, 0 card(s)",
            "tower 17, deck 30, drawn G16, match 1",
            "player_0: Time-Travel extra turn",
            "cards out: time-travel 1, revolution-acw 1",
            "player_0 to act (place)",
        ),
    ),
    "OGO_SOLO_DEFEAT": (
        "otto_game_over",
        {"num_players": 1},
        0,
        None,
        (
            "     a      b      c      d      e      ",
            "5    D10/3  E12/0  B7/1   A4/1   C8/3   ",
            "4    Z0/2   C8/3   G16/1  A4/3   C8/2   ",
            "3    G16/1  F12/0  C8/0   Z0/0   D10/2  ",
            "2    B7/1   C8/1   Z0/0   G16/0  F12/3  ",
            "1    E12/2  F12/0  E12/2  A4/2   D10/1  ",
            "shapes: square@va3=team0, small@va6=team0, square@vc6=team0, small@vf1=team0",
            "team 0: total 0, on board 10 pt, markers left small 2 big 4 square 1",
            "player_0: table -, 0 card(s)",
            "tower 8, deck 0, drawn -, match 1",
            "game over: defeat, returns [-1.0]",
        ),
    ),
    "OGO_SOLO_EIGHT": (
        "otto_game_over",
        {"num_players": 1},
        2,
        14,
        (
            "     a      b      c      d      e      ",
            "5    .      .      Z0/0   .      B7/0   ",
            "4    .      .      Z0/1   A4/0   C8/1   ",
            "3    .      B7/2   C8/0   .      G16/2  ",
            "2    D10/2  A4/3   Z0/1   E12/2  B7/3   ",
            "1    D10/1  .      .      .      D10/1  ",
            "shapes: small@vf1=team0, small@vf6=team0",
            "team 0: total 0, on board 2 pt, markers left small 2 big 4 square 3",
            "player_0: table -, 0 card(s)",
            "tower 17, deck 0, drawn Z0, match 1",
            "8 on the board: X tile a1",
            "player_0 to act (place)",
        ),
    ),
    "OGO_KIDNAP": (
        "otto_game_over",
        {"num_players": 3},
        0,
        74,
        (
            "     a      b      c      d      e      ",
            "5    .      .      .      .      .      ",
            "4    .      .      .      .      .      ",
            "3    .      Z0/2   C8/0   .      .      ",
            "2    .      .      .      .      .      ",
            "1    .      .      .      .      .      ",
            "shapes: none",
            "team 0: total 4, on board 0 pt, markers left small 4 big 4 square 3",
            "team 1: total 8, on board 0 pt, markers left small 4 big 4 square 3",
            "team 2: total 10, on board 0 pt, markers left small 4 big 4 square 3",
            "player_0: table Z0, 3 card(s)",
            "player_1: table B7, 0 card(s)",
            "player_2: table DARK, 0 card(s)",
            "tower 29, deck 23, drawn -, match 3",
            "last match: 2-4-7",
            "kidnapped: revolution-acw",
            "cards out: time-travel 1, revolution-cw 1, revolution-acw 2, meteorite 1, quantum-leap 1, alien-kidnapping 1",
            "player_0 to act (kidnap)",
        ),
    ),
    "OGO_INFINITY": (
        "otto_game_over",
        {"num_players": 3},
        0,
        126,
        (
            "     a      b      c      d      e      ",
            "5    .      .      .      .      .      ",
            "4    .      A4/3   .      B7/0   .      ",
            "3    G16/1  C8/0   C8/0   Z0/1   F12/1  ",
            "2    .      C8/0   E12/0  B7/2   .      ",
            "1    D10/2  E12/1  B7/0   A4/3   D10/0  ",
            "shapes: square@vc1=team1, small@va1=team0",
            "team 0: total 9, on board 1 pt, markers left small 3 big 4 square 3",
            "team 1: total 13, on board 4 pt, markers left small 4 big 4 square 2",
            "team 2: total 10, on board 0 pt, markers left small 4 big 4 square 3",
            "player_0: table DARK, 3 card(s)",
            "player_1: table A4, 0 card(s)",
            "player_2: table E12, 0 card(s)",
            "tower 19, deck 19, drawn -, match 4",
            "last match: 5-5-0",
            "8 closed by player_2 (X tile e1), saved: none",
            "cards out: time-travel 1, magnetic-inversion 2, revolution-cw 1, revolution-acw 3, meteorite 1, quantum-leap 2, alien-kidnapping 1",
            "player_0 to act (infinity)",
        ),
    ),
    "OGO_MATCH_DRAW": (
        "otto_game_over",
        {"episode": "match"},
        0,
        None,
        (
            "     a      b      c      d      e      ",
            "5    D10/3  Z0/1   C8/2   Z0/0   A4/2   ",
            "4    Z0/2   G16/2  D10/0  C8/3   F12/1  ",
            "3    F12/1  C8/3   C8/0   F12/3  Z0/0   ",
            "2    E12/2  E12/1  G16/3  C8/0   G16/0  ",
            "1    D10/3  E12/2  G16/2  B7/0   B7/1   ",
            "shapes: big@vb3=team0, small@va1=team1, small@vf6=team1, small@va6=team0, square@vc2=team0, square@vd1=team1, small@vf1=team1",
            "team 0: total 7, on board 7 pt, markers left small 3 big 3 square 2",
            "team 1: total 7, on board 7 pt, markers left small 1 big 4 square 2",
            "player_0: table DARK, 1 card(s)",
            "player_1: table B7, 0 card(s)",
            "tower 8, deck 30, drawn -, match 1",
            "last match: 7-7",
            "cards out: time-travel 1, revolution-acw 1",
            "game over: draw: teams 0, 1 tie, returns [0.0, 0.0]",
        ),
    ),
    "OGO_TRUNCATED": (
        "otto_game_over",
        {"max_matches": 2},
        0,
        None,
        (
            "     a      b      c      d      e      ",
            "5    G16/2  D10/2  E12/0  F12/2  B7/0   ",
            "4    G16/2  C8/0   E12/0  A4/1   G16/2  ",
            "3    A4/2   F12/2  C8/0   Z0/0   A4/0   ",
            "2    B7/1   F12/0  D10/1  D10/0  Z0/2   ",
            "1    B7/2   G16/3  C8/1   C8/3   B7/1   ",
            "shapes: big@vc4=team0, small@vf1=team1, small@vf6=team1, small@va1=team1",
            "team 0: total 9, on board 2 pt, markers left small 4 big 3 square 3",
            "team 1: total 10, on board 3 pt, markers left small 1 big 4 square 3",
            "player_0: table E12, 1 card(s)",
            "player_1: table DARK, 0 card(s)",
            "tower 8, deck 27, drawn -, match 2",
            "last match: 2-3",
            "cards out: time-travel 1, revolution-cw 1, revolution-acw 1, alien-kidnapping 1, infinity 1",
            "game over: truncated, no winner, returns [0.0, 0.0]",
        ),
    ),
    "OGO_TEAMS_DRAW": (
        "otto_game_over",
        {"num_players": 4, "teams": True, "episode": "match"},
        19,
        None,
        (
            "     a      b      c      d      e      ",
            "5    D10/0  Z0/2   C8/3   C8/3   B7/0   ",
            "4    Z0/3   B7/0   F12/1  F12/2  E12/0  ",
            "3    E12/1  B7/1   C8/0   F12/1  Z0/1   ",
            "2    Z0/1   G16/1  E12/2  C8/0   C8/0   ",
            "1    D10/2  G16/1  F12/2  A4/2   B7/2   ",
            "shapes: big@vd4=team1, small@vf6=team0, small@va6=team0, small@va1=team1, small@ve1=team0",
            "team 0 (player_0, player_2): total 3, on board 3 pt, markers left small 1 big 4 square 3",
            "team 1 (player_1, player_3): total 3, on board 3 pt, markers left small 3 big 3 square 3",
            "player_0 (team 0): table DARK, 0 card(s)",
            "player_1 (team 1): table DARK, 0 card(s)",
            "player_2 (team 0): table DARK, 1 card(s)",
            "player_3 (team 1): table DARK, 0 card(s)",
            "tower 8, deck 29, drawn -, match 1",
            "last match: 3-3",
            "cards out: time-travel 1, revolution-acw 1, alien-kidnapping 1",
            "game over: draw: teams 0, 1 tie, returns [0.0, 0.0, 0.0, 0.0]",
        ),
    ),
    "OTP_WON": (
        "otto_octopus",
        {},
        0,
        None,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   C   #   #   bb  mo  bb  #   bu",
            "  7   #   *   bb  st  bb  Es  E   bb",
            "  6   #   Ti^ S<  To< Ti> To^ S^  an",
            "  5   Es  S<  S<  OO  OO  S>  To^ bu",
            "  4   Tov S<  S<  OO  OO  S>  Tiv se",
            "  3   *   mi  Es  Ti< To> Es  E   se",
            "  2   #   sk  cl  je  bb  mi  sk  bb",
            "  1   C   #   pu  mi  je  an  #   pu",
            "",
            "rules: full game, closed hands",
            "  player_0: score  45  hand 3  skips 0",
            "  player_1: score  29  hand 3  skips 0",
            "pile 6",
            "game over; final [42, 26]",
            "winner: player_0",
        ),
    ),
    "OTP_EXTRA": (
        "otto_octopus",
        {},
        0,
        5,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   C   #   #   #   #   #   #   C",
            "  7   #   a   .   .   .   .   a   #",
            "  6   #   .   a   ^   ^   a   .   #",
            "  5   #   .   <   OO  OO  >   .   #",
            "  4   #   .   <   OO  OO  S>  *   #",
            "  3   #   .   Es  Ti< v   a   .   #",
            "  2   #   a   cl  .   .   .   a   #",
            "  1   C   #   #   #   #   #   #   C",
            "",
            "rules: full game, closed hands",
            "> player_0: score   6  hand 3  skips 0",
            "  player_1: score   2  hand 3  skips 0",
            "pile 50",
            "player_0 to act (extra, 1 extra); hand: turn-in, seahorse, starfish",
        ),
    ),
    "OTP_SOLO": (
        "otto_octopus",
        {"num_players": 1},
        0,
        None,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   C   #   #   #   #   #   #   C",
            "  7   #   a   .   .   .   .   a   #",
            "  6   #   .   a   ^   ^   a   .   #",
            "  5   #   .   <   OO  OO  >   .   #",
            "  4   #   .   <   OO  OO  >   .   #",
            "  3   #   .   a   v   v   a   .   #",
            "  2   #   a   .   .   .   .   a   #",
            "  1   C   #   #   #   #   #   #   C",
            "",
            "rules: full game, closed hands",
            "  player_0: score   0  hand 3  skips 0",
            "pile 57",
            "game over; final [-60]",
        ),
    ),
    "OTP_OPEN": (
        "otto_octopus",
        {"num_players": 3, "open_game": True},
        0,
        36,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   an  se  #   st  #   #   #   C",
            "  7   E   To< .   se  je  mo  a   #",
            "  6   pu  Ti^ S<  To< Ti> S>  Es  mi",
            "  5   #   .   <   OO  OO  S>  Tiv bb",
            "  4   *   S<  S<  OO  OO  >   E   bb",
            "  3   #   .   a   Sv  Sv  a   cl  #",
            "  2   #   a   .   Es  *   .   a   #",
            "  1   C   #   bb  an  sk  #   #   C",
            "",
            "rules: full game, open hands",
            "> player_0: score  15  hand 3  skips 0",
            "  player_1: score  20  hand 3  skips 0",
            "  player_2: score  16  hand 3  skips 0",
            "pile 21",
            "player_0 to act (extra, 1 extra); hand: end-shell, straight, butterflyfish",
            "player_1 shows: straight, turn-out",
            "player_2 shows: bubbles, straight",
        ),
    ),
    "OTP_TRUNCATED": (
        "otto_octopus",
        {"max_steps": 20},
        0,
        None,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   C   #   #   #   #   #   #   C",
            "  7   #   a   .   .   .   *   a   #",
            "  6   #   .   a   ^   Ti> To^ .   #",
            "  5   #   .   <   OO  OO  >   .   #",
            "  4   #   .   <   OO  OO  S>  Tiv se",
            "  3   #   mi  Es  Ti< To> Es  *   #",
            "  2   #   a   cl  je  bb  mi  sk  #",
            "  1   C   #   #   #   #   an  #   C",
            "",
            "rules: full game, closed hands",
            "  player_0: score  13  hand 3  skips 0",
            "  player_1: score  12  hand 3  skips 0",
            "pile 38",
            "game over (truncated); final [10, 9]",
        ),
    ),
    "OTP_FOUR": (
        "otto_octopus",
        {"num_players": 4},
        0,
        None,
        (
            "      a   b   c   d   e   f   g   h   ",
            "  8   C   #   st  bb  Es  #   st  C",
            "  7   #   pu  bu  Ti> To^ bb  mi  #",
            "  6   cl  pu  sk  S^  Ti> S>  E   je",
            "  5   #   *   S<  OO  OO  >   .   bb",
            "  4   #   E   S<  OO  OO  >   .   je",
            "  3   Es  S<  S<  Ti< To> Tiv bb  cl",
            "  2   #   se  Es  S<  S<  Ti< bb  mi",
            "  1   mo  bb  an  bb  mi  an  se  sk",
            "",
            "rules: full game, closed hands",
            "  player_0: score  19  hand 3  skips 0",
            "  player_1: score  18  hand 3  skips 0",
            "  player_2: score  14  hand 3  skips 0",
            "  player_3: score  23  hand 3  skips 0",
            "pile 2",
            "game over; final [16, 15, 11, 20]",
            "winner: player_3",
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ansi_text_line_for_line(name: str) -> None:
    """Each env's doc page lists what its ``ansi`` text shows; the whole text of a seeded
    position (mid-game, mid-turn, finished, truncated, solo, open game) is pinned line for line."""
    game, params, seed, step, lines = CASES[name]
    e = _position(game, params, seed, step)
    assert e.render().split("\n") == list(lines)


# ----------------------------------------------------------------------------- rgb_array
@pytest.mark.parametrize(
    ("game", "params", "shape"),
    [
        ("octi", {}, (560, 738, 3)),  # 2*28 + 7*72 high, 2*28 + 6*72 + 250 wide
        ("octi", {"variant": "x_classic"}, (704, 954, 3)),  # 9 x 9 squares
        ("over_and_out", {"num_players": 8}, (620, 760, 3)),
        ("otto_game_over", {}, (536, 866, 3)),  # the doc page's uint8[536, 866, 3]
        ("otto_game_over", {"num_players": 4, "teams": True}, (536, 866, 3)),
        ("otto_game_over", {"num_players": 1}, (536, 866, 3)),
        ("otto_octopus", {}, (568, 868, 3)),  # the doc page's uint8[568, 868, 3]
        ("otto_octopus", {"num_players": 4}, (568, 868, 3)),
    ],
)
def test_rgb_array_shape_and_dtype(game: str, params: dict[str, Any], shape: tuple[int, int, int]) -> None:
    """``render_mode="rgb_array"`` gives ``uint8[H, W, 3]`` of the size the doc page names,
    the same at the reset and once the game is over."""
    e = _position(game, params, 0, 0, mode="rgb_array")
    first = e.render()
    assert first.dtype == np.uint8 and first.shape == shape
    e = _position(game, params, 0, None, mode="rgb_array")
    last = e.render()
    assert last.dtype == np.uint8 and last.shape == shape
    assert not np.array_equal(first, last)


# ----------------------------------------------------------------------------- draw.py
def _wcag(c: tuple[int, int, int]) -> float:
    def ch(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2])


def _ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    hi, lo = max(_wcag(a), _wcag(b)), min(_wcag(a), _wcag(b))
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize(
    ("a", "b"),
    [((0, 0, 0), (255, 255, 255)), ((255, 255, 255), (0, 0, 0)), (draw.INK, draw.BACKGROUND)]
    + [(c, draw.BACKGROUND) for c in draw.SEAT_COLORS]
    + [((5, 5, 5), (10, 200, 40)), ((40, 10, 220), (255, 255, 0))],
)
def test_contrast_is_the_wcag_ratio_either_way_round(
    a: tuple[int, int, int], b: tuple[int, int, int]
) -> None:
    """``contrast`` is WCAG 2's ratio (L1 + 0.05) / (L2 + 0.05), lighter over darker, with the
    sRGB linearisation (threshold 0.03928) and the 0.2126 / 0.7152 / 0.0722 weights."""
    assert draw.contrast(a, b) == pytest.approx(_ratio(a, b), rel=1e-12)
    assert draw.contrast(b, a) == pytest.approx(_ratio(a, b), rel=1e-12)
    assert 1.0 <= draw.contrast(a, b) <= 21.0


def test_contrast_extremes() -> None:
    assert draw.contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert draw.contrast((7, 7, 7), (7, 7, 7)) == pytest.approx(1.0)
    assert draw.contrast(draw.INK, draw.BACKGROUND) == pytest.approx(14.7716359, rel=1e-6)


def test_text_colours_are_the_seat_hues_darkened_in_5_percent_steps_to_4_5() -> None:
    """``TEXT_COLORS``: each seat colour scaled down by 5% steps (rounded per channel) until
    its contrast with the background reaches 4.5:1; colours that already read keep their value."""
    expected = []
    for c in draw.SEAT_COLORS:
        k, out = 0, c
        while _ratio(out, draw.BACKGROUND) < 4.5:
            k += 1
            s = 1 - 0.05 * k
            out = (round(c[0] * s), round(c[1] * s), round(c[2] * s))
        expected.append(out)
    assert tuple(expected) == draw.TEXT_COLORS
    assert draw.TEXT_COLORS == (
        (203, 46, 47),
        (8, 112, 193),
        (0, 126, 42),
        (152, 90, 0),  # the orange of seat 3 (1.95:1) at 60%
        (103, 87, 219),
        (186, 54, 118),
        (0, 118, 118),
        (99, 110, 114),  # already 4.65:1: unchanged
    )
    assert all(draw.contrast(c, draw.BACKGROUND) >= 4.5 for c in draw.TEXT_COLORS)


def test_seat_colours_are_the_documented_palette() -> None:
    assert draw.SEAT_COLORS[:4] == ((214, 48, 49), (9, 132, 227), (0, 148, 50), (253, 150, 0))
    assert len(set(draw.SEAT_COLORS)) == 8
    assert draw.BACKGROUND == (245, 241, 230) and draw.INK == (30, 30, 30)


@pytest.mark.parametrize("size", [12, 14, 20, 34])
def test_font_has_the_size_asked_for(size: int) -> None:
    assert draw.font(size).size == size


def test_canvas_is_an_rgb_image_of_the_size_and_colour_given() -> None:
    img, d = draw.canvas(30, 20)
    assert img.mode == "RGB" and img.size == (30, 20)
    assert img.getpixel((29, 19)) == draw.BACKGROUND
    img, d = draw.canvas(5, 7, (1, 2, 3))
    assert img.size == (5, 7) and img.getpixel((0, 0)) == (1, 2, 3)
    d.point((1, 1), fill=(9, 9, 9))
    assert img.getpixel((1, 1)) == (9, 9, 9)  # the context draws on that image


def test_to_array_is_a_writable_uint8_copy_in_rgb() -> None:
    img = Image.new("RGBA", (4, 3), (10, 20, 30, 40))
    a = draw.to_array(img)
    assert a.dtype == np.uint8 and a.shape == (3, 4, 3)
    assert (a == np.array([10, 20, 30], dtype=np.uint8)).all()
    a[0, 0] = 0  # a copy: writable, and the image keeps its pixels
    assert img.getpixel((0, 0)) == (10, 20, 30, 40)
    grey = draw.to_array(Image.new("L", (2, 2), 77))
    assert grey.shape == (2, 2, 3) and (grey == 77).all()


def test_save_gif_needs_a_frame(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="^save_gif needs at least one frame$"):
        draw.save_gif([], str(tmp_path / "x.gif"))
    assert not (tmp_path / "x.gif").exists()


def test_save_gif_pads_to_the_largest_frame_and_times_the_frames(tmp_path: Any) -> None:
    """Frames of other sizes are padded (bottom / right) with the background to the largest
    height and width; ``seconds`` per frame, ``last_seconds`` on the last; the GIF loops; missing
    folders are made."""
    red = np.zeros((10, 20, 3), np.uint8)
    red[...] = (200, 0, 0)
    blue = np.zeros((30, 12, 3), np.uint8)
    blue[...] = (0, 0, 200)
    green = np.zeros((5, 5, 3), np.uint8)
    green[...] = (0, 200, 0)
    path = tmp_path / "a" / "b" / "anim.gif"
    draw.save_gif([red, blue, green], str(path), seconds=0.25, last_seconds=2.0)
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.size == (20, 30)
        assert im.n_frames == 3
        assert im.info["loop"] == 0
        durations, pixels = [], []
        for i in range(3):
            im.seek(i)
            durations.append(im.info["duration"])
            rgb = im.convert("RGB")
            pixels.append((rgb.getpixel((0, 0)), rgb.getpixel((19, 29))))
    assert durations == [250, 250, 2000]
    assert pixels[0] == ((200, 0, 0), draw.BACKGROUND)
    assert pixels[1] == ((0, 0, 200), draw.BACKGROUND)
    assert pixels[2] == ((0, 200, 0), draw.BACKGROUND)


def test_save_gif_default_timing(tmp_path: Any) -> None:
    frames = [np.full((4, 4, 3), v, np.uint8) for v in (90, 180)]  # Pillow merges equal frames
    draw.save_gif(frames, str(tmp_path / "d.gif"))
    with Image.open(tmp_path / "d.gif") as im:
        got = []
        for i in range(im.n_frames):
            im.seek(i)
            got.append(im.info["duration"])
    assert got == [600, 3000]


def test_save_png_writes_png_whatever_the_name(tmp_path: Any) -> None:
    a = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    path = tmp_path / "new" / "dir" / "frame.jpg"
    draw.save_png(a, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as im:
        assert im.format == "PNG"
        assert np.array_equal(np.asarray(im.convert("RGB")), a)


# ----------------------------------------------------------------------------- Octi picture
def _octi_rgb(st: Any) -> tuple[np.ndarray, int]:
    from envs.octi.render import CELL, MARGIN, render_rgb

    return render_rgb(st), 2 * MARGIN + st.geo.width * CELL


def test_octi_pods_are_black_and_red() -> None:
    """The doc page's colours: player_0's pods are Black (dark grey fill), player_1's Red."""
    from envs.octi.render import CELL, MARGIN
    from tests.octi.helpers import new

    st = new()
    img, _ = _octi_rgb(st)
    r = CELL * 0.28
    for name, colour in (("b2", (40, 40, 40)), ("e6", (200, 40, 40))):
        sq = st.geo.square(name)
        cx = MARGIN + (sq % st.geo.width) * CELL + CELL / 2
        cy = MARGIN + (st.geo.height - 1 - sq // st.geo.width) * CELL + CELL / 2
        for dy in (-0.75, 0.75):  # above / below the arrow, inside the octagon
            assert tuple(img[round(cy + dy * r), round(cx)]) == colour, (name, dy)


def _panel_pod_pixels(img: np.ndarray, px: int, colour: tuple[int, int, int]) -> int:
    from envs.octi.render import MARGIN

    box = img[MARGIN + 18 : MARGIN + 39, px + 110 : px + 131]
    return int((box == np.array(colour)).all(-1).sum())


def test_octi_panel_pod_shows_the_colour_to_act_and_goes_when_the_game_is_over() -> None:
    """Beside "to act" the panel draws a pod in the colour of the seat to act; a finished game
    has nobody to act and no such pod."""
    from tests.octi.helpers import new, play

    st = new()
    img, px = _octi_rgb(st)
    assert _panel_pod_pixels(img, px, (40, 40, 40)) > 50
    assert _panel_pod_pixels(img, px, (200, 40, 40)) == 0
    play(st, "1. prong c2 N")
    img, px = _octi_rgb(st)
    assert _panel_pod_pixels(img, px, (200, 40, 40)) > 50
    assert _panel_pod_pixels(img, px, (40, 40, 40)) == 0
    over = _position("octi", {}, 0, None).unwrapped.state
    img, px = _octi_rgb(over)
    assert _panel_pod_pixels(img, px, (40, 40, 40)) == 0
    assert _panel_pod_pixels(img, px, (200, 40, 40)) == 0


OCTI_PANEL_LIVE = [
    "turn 1 of 500",
    "to act: Black",
    "phase MAIN",
    "",
    "Black:",
    "  supply   25",
    "  reserve  4",
    "  captured 0",
    "",
    "Red:",
    "  supply   25",
    "  reserve  4",
    "  captured 0",
    "",
    "rules: x_fast",
    "  + reposition",
    "  + edgeless",
    "  + capture to reserve",
    "  + repetition draw",
    "",
    "tinted: bases",
    "green: origin of the turn",
    "blue frame: jumped squares",
    "purple ring: pod in focus",
    "cyan cross: marked capture",
    "gold: prongs",
]


def test_octi_panel_lines_name_the_seat_to_act_and_every_rule_on() -> None:
    """The picture's panel: turn and limit, the colour to act, the phase, each seat's supply /
    reserve / captured, the variant and one ``+`` line per optional rule that is on, the key."""
    from envs.octi.render import _panel_lines
    from tests.core.test_image_shows_state import _shows_text

    params = {"variant": "x_fast", "allow_reposition": True, "edgeless": True}
    params |= {"capture_to_reserve": True, "repetition_draw": True}
    e = _position("octi", params, 0, 0)
    st = e.unwrapped.state
    assert _panel_lines(st) == OCTI_PANEL_LIVE
    img, px = _octi_rgb(st)
    from envs.octi.render import MARGIN

    for i, line in enumerate(OCTI_PANEL_LIVE[:3] + OCTI_PANEL_LIVE[14:19]):
        row = i if i < 3 else i + 11
        assert _shows_text(
            img, (px - 1, MARGIN + 20 * row - 2, img.shape[1], MARGIN + 20 * row + 20), line, 14
        )
    e = _position("octi", {}, 1, 1)  # Red to act
    lines = _panel_lines(e.unwrapped.state)
    assert lines[:3] == ["turn 2 of 300", "to act: Red", "phase MAIN"]


def test_octi_panel_of_a_finished_game() -> None:
    """OCT-42: a game won by landing on an enemy base ends inside the turn: the panel says
    "game over", the result, how and when, and no seat to act."""
    from envs.octi.render import _panel_lines

    st = _position("octi", {}, 0, None).unwrapped.state
    lines = _panel_lines(st)
    assert lines[:5] == ["game over", "Black wins", "reached an enemy base", "in turn 67", ""]
    assert not any(line.startswith("to act") for line in lines)
    st = _position("octi", {"variant": "x_classic", "max_turns": 30}, 0, None).unwrapped.state
    assert _panel_lines(st)[:5] == ["game over", "draw (truncated)", "turn limit 30", "after 30 turns", ""]


# ----------------------------------------------------------------------- Over and Out picture
def _oao_box(n: int, seat: int) -> tuple[int, int]:
    import math

    a = -math.pi / 2 + 2 * math.pi * seat / n
    from envs.over_and_out.render import SEAT_RX, SEAT_RY

    return round(380 + SEAT_RX * math.cos(a)), round(250 + SEAT_RY * math.sin(a))


@pytest.mark.parametrize("n", [4, 6, 8])
def test_over_and_out_seat_boxes_keep_off_the_pictures_sides(n: int) -> None:
    """The seats beside the table (4, 6 and 8 players) keep 10 px from the picture's left and
    right sides (``SEAT_RX``'s note): the outer columns show the background only."""
    from envs.over_and_out.game import OverAndOutGame

    st = OverAndOutGame(num_players=n).new_initial_state(np.random.default_rng(0))
    img = OverAndOutGame(num_players=n).render_rgb(st)
    for side in (img[:, :10], img[:, -10:]):
        assert (side == img[0, 0]).all(), "a seat box reaches the side of the picture"


def test_over_and_out_hand_cards_carry_short_labels_and_a_caption() -> None:
    """The mover's hand is drawn face up under the caption "hand of player_k (shown to
    spectators)"; action cards carry the short labels ``spin`` / ``top`` / ``topsy``."""
    from envs.over_and_out.render import HAND_TOP
    from tests.core.test_image_shows_state import _shows_text

    white = (255, 255, 255)
    for seed, step, mover, hand in (
        (5, 0, 0, ["1", "4", "spin", "top"]),
        (4, 1, 1, ["0", "x2", "spin", "topsy"]),
    ):
        e = _position("over_and_out", {"num_players": 3}, seed, step, mode="rgb_array")
        img = e.render()
        caption = f"hand of player_{mover} (shown to spectators)"
        assert _shows_text(img, (0, HAND_TOP - 2, 760, HAND_TOP + 22), caption, 14, anchor="mt")
        x0 = 380 - (len(hand) * 78 - 8) // 2
        for i, label in enumerate(hand):
            box = (x0 + 78 * i, HAND_TOP + 22, x0 + 78 * i + 70, HAND_TOP + 118)
            assert _shows_text(img, box, label, 20, bg=white, anchor="mm"), label


def test_over_and_out_movers_box_is_lit_and_says_to_play() -> None:
    """Only the seat to play has the light yellow box and the words "to play"."""
    from tests.core.test_image_shows_state import _shows_text

    e = _position("over_and_out", {"num_players": 3}, 5, 0, mode="rgb_array")
    img = e.render()
    for seat in range(3):
        x, y = _oao_box(3, seat)
        fill = (255, 250, 205) if seat == 0 else (235, 230, 218)
        assert tuple(img[y + 20, x - 76]) == fill, seat
        # the frame in the seat's colour: 4 px wide round the mover's box, 2 px round the others
        assert tuple(img[y, x - 85 + 1]) == draw.SEAT_COLORS[seat], seat
        assert tuple(img[y, x - 85 + 3]) == (draw.SEAT_COLORS[seat] if seat == 0 else fill), seat
        says = _shows_text(img, (x - 80, y + 18, x + 80, y + 40), "to play", 12, bg=fill, anchor="mm")
        assert says == (seat == 0), seat


def test_over_and_out_finished_picture_says_game_over_and_shows_no_hand() -> None:
    """A finished game: "GAME OVER: player_k wins" in red over the centre, no hand caption."""
    from envs.over_and_out.render import HAND_TOP
    from tests.core.test_image_shows_state import _shows_text

    e = _position("over_and_out", {"num_players": 5}, 0, None, mode="rgb_array")
    img = e.render()
    assert _shows_text(
        img, (150, 140, 610, 200), "GAME OVER: player_4 wins", 20, ink=(200, 0, 0), anchor="mm"
    )
    assert (img[HAND_TOP:, :] == np.array(draw.BACKGROUND)).all()


# --------------------------------------------------------------------- OTTO Game Over picture
def _ogo_panel_x() -> int:
    from envs.otto_game_over.render import MARGIN, TILE

    return 5 * TILE + 2 * MARGIN + 10


def test_otto_game_over_unclaimed_shape_is_grey_with_a_hollow_marker() -> None:
    """OGO-21: a closed shape nobody claimed (``None`` in the position, ``-`` in the text) is drawn in
    grey, its marker hollow: no team's colour on the board for it."""
    from envs.otto_game_over.render import MARGIN, TILE, render_ansi, render_rgb
    from tests.otto_game_over.helpers import make, p_eight

    # no small marker left for either team: nobody claims it at the turn's start (OGO-21/22)
    st = make(p_eight(shapes={"small@vf1": None, "small@va6": 1}, markers=[{"small": 0}, {"small": 0}]))
    assert "shapes: small@vf1=-, small@va6=team1" in render_ansi(st).split("\n")
    img = render_rgb(st)
    board = img[: 2 * MARGIN + 5 * TILE + 1, : 2 * MARGIN + 5 * TILE + 1]
    assert not (board == np.array(draw.SEAT_COLORS[0])).all(-1).any()
    assert (board == np.array(draw.SEAT_COLORS[1])).all(-1).sum() > 50
    assert (board == np.array((120, 120, 120))).all(-1).sum() > 50


def test_otto_game_over_panel_marks_the_actor_only_while_the_game_runs() -> None:
    """The seat rows of the panel start with ``>`` for the player to act; a finished game has
    none. The match line says ``(blind)`` in a blind match."""
    from tests.core.test_image_shows_state import _shows_text

    x = _ogo_panel_x()
    e = _position("otto_game_over", {"blind": True}, 0, 0, mode="rgb_array")
    img = e.render()
    actor = e.unwrapped.state.actor
    assert _shows_text(img, (x - 2, 36, img.shape[1], 56), "match 1 (blind)", 13)
    assert _shows_text(img, (x + 16, 60, x + 110, img.shape[0]), f"> player_{actor}", 14)
    assert not _shows_text(img, (x + 16, 60, x + 110, img.shape[0]), f"> player_{1 - actor}", 14)
    e = _position("otto_game_over", {}, 0, None, mode="rgb_array")
    img = e.render()
    assert not _shows_text(img, (x - 2, 36, img.shape[1], 56), "(blind)", 13)
    for s in (0, 1):
        assert _shows_text(img, (x + 16, 60, x + 160, img.shape[0]), f"player_{s}  team {s}", 14)
        assert not _shows_text(img, (x + 16, 60, x + 110, img.shape[0]), f"> player_{s}", 14)
    assert _shows_text(img, (x - 2, 10, img.shape[1], 34), "game over - team 0 won", 16)


def test_otto_game_over_panel_draws_the_drawn_tile() -> None:
    """A drawn design tile is named and drawn (half size) in the panel; none when nothing is drawn."""
    from envs.otto_game_over.render import TILE_BG

    x = _ogo_panel_x()
    drawn = _position("otto_game_over", {}, 0, 22, mode="rgb_array")  # drawn C8
    assert drawn.unwrapped.state.drawn == 3
    col = drawn.render()[:, x + 118 : x + 168]
    assert (col == np.array(TILE_BG)).all(-1).sum() > 500
    none = _position("otto_game_over", {}, 0, None, mode="rgb_array")  # drawn -
    col = none.render()[:, x + 118 : x + 168]
    assert not (col == np.array(TILE_BG)).all(-1).any()


# ---------------------------------------------------------------------- Otto the Octopus picture
def test_otto_octopus_panel_has_the_title_and_splits_status_lines_at_semicolons() -> None:
    """The panel starts with the title "Otto the Octopus"; status lines after the seats are
    written with each "; " part on a line of its own (the end: "game over" / "final [...]")."""
    from envs.otto_octopus.render import CELL, MARGIN
    from tests.core.test_image_shows_state import _shows_text

    x = 2 * MARGIN + 8 * CELL
    e = _position("otto_octopus", {}, 0, None, mode="rgb_array")
    img = e.render()
    w = img.shape[1]
    assert _shows_text(img, (x - 2, MARGIN - 4, w, MARGIN + 30), "Otto the Octopus", 20)
    for k, part in enumerate(("pile 6", "game over", "final [42, 26]", "winner: player_0")):
        y = MARGIN + 36 + 22 * (2 + k) + 8
        assert _shows_text(img, (x - 2, y - 2, x + 240, y + 20), part, 14), part
    y = MARGIN + 36 + 22 * 3 + 8
    assert not _shows_text(img, (x - 2, y - 2, w, y + 20), "game over; final", 14)
    for p, colour in enumerate((draw.TEXT_COLORS[0], draw.TEXT_COLORS[1])):
        line = f"player_{p}: score {[45, 29][p]:>3}  hand 3  skips 0"
        y = MARGIN + 36 + 22 * p
        assert _shows_text(img, (x - 2, y - 2, w, y + 20), line, 14, ink=colour), p


@pytest.mark.parametrize(
    ("params", "winners", "said"),
    [
        ({}, [], "winners: none"),
        ({}, [1], "team 1 won"),
        ({}, [0, 1], "draw: teams 0, 1 tie"),
        ({"num_players": 3}, [0, 2], "teams 0, 2 won"),
        ({"num_players": 3}, [0, 1, 2], "draw: teams 0, 1, 2 tie"),
        ({"num_players": 4, "teams": True}, [0, 1], "draw: teams 0, 1 tie"),
        ({"num_players": 4}, [1, 3], "teams 1, 3 won"),
    ],
)
def test_otto_game_over_result_words(params: dict[str, Any], winners: list[int], said: str) -> None:
    """The last text line of a finished game: who won in words (one team, several, or every
    side tied: a draw) and the returns (a finished game loaded from a state dict)."""
    from envs.otto_game_over.game import OttoGameOverGame
    from envs.otto_game_over.position import state_from_dict, state_to_dict
    from envs.otto_game_over.render import render_ansi

    st = OttoGameOverGame(**params).new_initial_state(np.random.default_rng(0))
    d = state_to_dict(st)
    d["position"]["phase"] = "over"
    d["position"]["result"] = {"winners": winners, "returns": [0.5] * st.n, "truncated": False}
    text = render_ansi(state_from_dict(d))
    assert text.split("\n")[-1] == f"game over: {said}, returns {[0.5] * st.n}"


def test_otto_game_over_panel_notes_wrap_after_commas() -> None:
    """A panel note wider than the panel is cut after its commas: every line but the last
    ends with ",", the next ones are indented three spaces, no line is wider than the panel
    (less 20 px), and the lines read back as the note."""
    from envs.otto_game_over.render import PANEL, _notes, _wrap

    st = _position("otto_game_over", {}, 0, None).unwrapped.state
    note = _notes(st)[-1]
    assert note.startswith("cards out: time-travel 1, magnetic-inversion 1")
    _, d = draw.canvas(10, 10)
    lines = _wrap(d, note, PANEL - 20, draw.font(13))
    assert len(lines) >= 3
    assert all(line.endswith(",") for line in lines[:-1])
    assert not lines[-1].endswith(",")
    assert all(line.startswith("   ") for line in lines[1:]) and not lines[0].startswith(" ")
    assert all(d.textlength(line, font=draw.font(13)) <= PANEL - 20 for line in lines)
    assert " ".join(line.strip() for line in lines) == note
    assert _wrap(d, "short, note", PANEL - 20, draw.font(13)) == ["short, note"]


def test_otto_game_over_frame_lobes_of_a_closed_eight_are_purple() -> None:
    """OGO-06 / the doc page: a closed 8's whole line is drawn in purple, the frame's lobes
    it passes round included (outside the board square, where no tile covers them)."""
    from envs.otto_game_over.render import EIGHT_COLOR, MARGIN, TILE, closed_eights

    e = _position("otto_game_over", {"num_players": 1}, 2, 14, mode="rgb_array")
    xs, _, frame = closed_eights(e.unwrapped.state)
    assert xs == [0] and frame == {0, 6}  # X tile a1; the lobes at va1 and va2
    img = e.render()
    purple = (img == np.array(EIGHT_COLOR)).all(-1)
    outside = purple[:, : MARGIN - 2]  # left of the board: the lobes of va1 and va2 only
    ys = np.nonzero(outside)[0]
    assert ys.size > 20
    assert set(ys) <= set(range(MARGIN + 4 * TILE - TILE // 2, MARGIN + 5 * TILE + TILE // 2))
    assert not purple[: MARGIN + 3 * TILE, : MARGIN - 2].any()


def test_otto_octopus_squares_and_otto_where_the_board_has_them() -> None:
    """§1.1 board: coral corners, algae, the deep perimeter and open water in their colours;
    Otto's body covers d4-e5 (its top-left square is d5)."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.render import ALGAE_C, CELL, CORAL_C, DEEP, OTTO_C, WATER, _origin

    img = _position("otto_octopus", {}, 0, 0, mode="rgb_array").render()
    for name, colour in (("a1", CORAL_C), ("h8", CORAL_C), ("b2", ALGAE_C), ("c1", DEEP), ("b3", WATER)):
        x0, y0 = _origin(B.SQUARE_INDEX[name])
        assert tuple(img[y0 + 5, x0 + 5]) == colour, name
    x0, y0 = _origin(B.SQUARE_INDEX["d5"])
    assert tuple(img[y0 + 15, x0 + CELL]) == OTTO_C
    assert tuple(img[y0 + 2 * CELL - 15, x0 + CELL]) == OTTO_C


def test_otto_octopus_end_tiles_are_entered_from_their_arm() -> None:
    """An end tile's arm segment comes in from the arm tile that leads into it (the neighbour
    of the same arm whose exit heads here), not from another side."""
    for params, seed in (({"num_players": 4}, 0), ({}, 23)):  # seed 23: an arm curls past its end
        _end_tiles_entered_from_their_arm(params, seed)


def _end_tiles_entered_from_their_arm(params: dict[str, Any], seed: int) -> None:
    from envs.otto_octopus import board as B
    from envs.otto_octopus.render import CELL, OTTO_C, VEC, _origin

    st = _position("otto_octopus", params, seed, None).unwrapped.state
    img = _position("otto_octopus", params, seed, None, mode="rgb_array").render()
    seen = 0
    for sq, k in enumerate(st.ocean.tiles):
        if k not in (B.END, B.END_SHELL):
            continue
        arm = st.ocean.arm_of[sq]
        heads = [
            h
            for h in range(4)
            if (t := B.STEP[sq][(h + 2) % 4]) >= 0 and st.ocean.arm_of[t] == arm and st.ocean.exit_dir[t] == h
        ]
        assert len(heads) == 1
        x0, y0 = _origin(sq)
        for side in range(4):
            bx, by = VEC[side]
            px = round(x0 + CELL / 2 + bx * (CELL / 2 - 5))
            py = round(y0 + CELL / 2 + by * (CELL / 2 - 5))
            assert (tuple(img[py, px]) == OTTO_C) == (side == (heads[0] + 2) % 4), (sq, side)
        seen += 1
    assert seen >= 2


def test_octi_jumped_squares_have_a_blue_frame() -> None:
    """The picture frames the squares jumped this turn in blue (the text's ``jumped a2``)."""
    from envs.octi.render import CELL, MARGIN

    e = _position("octi", {}, 5, 56)
    st = e.unwrapped.state
    img, _ = _octi_rgb(st)
    H = st.geo.height
    for name in ("a2", "a5", "c5"):
        sq = st.geo.square(name)
        x0, y0 = MARGIN + (sq % st.geo.width) * CELL, MARGIN + (H - 1 - sq // st.geo.width) * CELL
        assert (tuple(img[y0 + 8, x0 + 4]) == (30, 120, 220)) == (name == "a2"), name


def test_over_and_out_centre_says_none_discarded() -> None:
    """The centre of the picture lists the Tip Top cards Topsy Turvy discarded face up (OAO-24),
    "none" before any. It said "turned up", which L, shown face up beside it, is too (OAO-09)."""
    from tests.core.test_image_shows_state import _shows_text

    e = _position("over_and_out", {"num_players": 3, "max_plays": 20}, 0, None, mode="rgb_array")
    assert e.unwrapped.state.tiptop_discards == []
    img = e.render()
    box = (280, 295, 560, 325)
    assert _shows_text(img, box, "Tip Top discarded: none", 13, anchor="mm")
    e = _position("over_and_out", {"num_players": 5}, 0, None, mode="rgb_array")
    assert e.unwrapped.state.tiptop_discards == [55]
    assert _shows_text(e.render(), box, "Tip Top discarded: 55", 13, anchor="mm")


def test_otto_game_over_square_lobed_eight_counts_with_round_or_square() -> None:
    """``eight_lobes="round_or_square"`` (spec §6): an 8 with a square lobe is an 8, and the
    solo text names it by its X tile (OGO-26: it stays on the board for the match)."""
    from envs.otto_game_over.render import closed_eights

    e = _position("otto_game_over", {"num_players": 1, "eight_lobes": "round_or_square"}, 12, 6)
    assert closed_eights(e.unwrapped.state)[0] == [23]  # d5
    lines = e.render().split("\n")
    assert lines[-2:] == ["8 on the board: X tile d5", "player_0 to act (place)"]
