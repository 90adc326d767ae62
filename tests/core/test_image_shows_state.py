"""The ``rgb_array`` pictures show the state, not just a picture of the right shape: a mutation
round on the image renderers (a seat's colour swapped, a piece on a mirrored square, a tile
turned the wrong way, a hidden hand drawn face up, a wrong label) passed every other test.

The probes read pixels at geometry taken from each renderer's constants (``MARGIN``, ``CELL``,
``TILE``...) and compare text against the same string drawn here with the renderer's font, at
the same sub-pixel offset (no golden images: fonts differ between Pillow versions).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

pytest.importorskip("PIL")

from envs.core import draw  # noqa: E402

GOLD = (230, 170, 0)  # Octi prongs


# ----------------------------------------------------------------------------- helpers
def _near(a: np.ndarray, colour: Any, tol: int = 12) -> np.ndarray:
    """Per pixel: within ``tol`` of ``colour`` in every channel."""
    return (np.abs(a.astype(int) - np.array(colour)) <= tol).all(axis=-1)


def _ink(a: np.ndarray, bg: Any, ink: Any) -> np.ndarray:
    """Per pixel: nearer to ``ink`` than to ``bg`` (antialiased text cut at half way)."""
    a = a.astype(int)
    return np.abs(a - np.array(ink)).sum(-1) < np.abs(a - np.array(bg)).sum(-1)


def _text_mask(text: str, size: int, ink: Any, bg: Any, anchor: str | None, frac: tuple[float, float]):  # type: ignore[no-untyped-def]
    """The ink of ``text`` in the renderers' font, cropped to its bounding box."""
    img, d = draw.canvas(40 + 12 * size * max(1, len(text)) // 10 + 400, 4 * size + 40, bg)
    at = (
        (20 + frac[0], 20 + frac[1])
        if anchor is None
        else (img.width / 2 + frac[0], img.height / 2 + frac[1])
    )
    d.text(at, text, fill=ink, font=draw.font(size), anchor=anchor)
    m = _ink(draw.to_array(img), bg, ink)
    ys, xs = np.nonzero(m)
    return m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _shows_text(
    img: np.ndarray,
    box: tuple[int, int, int, int],
    text: str,
    size: int,
    ink: Any = draw.INK,
    bg: Any = draw.BACKGROUND,
    anchor: str | None = None,
    frac: tuple[float, float] = (0.0, 0.0),
) -> bool:
    """``text`` is written somewhere in ``box`` = (x0, y0, x1, y1), pixel for pixel."""
    x0, y0, x1, y1 = box
    region = _ink(img[y0:y1, x0:x1], bg, ink)
    ref = _text_mask(text, size, ink, bg, anchor, frac)
    if region.shape[0] < ref.shape[0] or region.shape[1] < ref.shape[1]:
        return False
    windows = np.lib.stride_tricks.sliding_window_view(region, ref.shape)
    return bool((windows == ref).all(axis=(-2, -1)).any())


def _blobs(mask: np.ndarray) -> int:
    """Number of 4-connected components of ``mask``."""
    seen = np.zeros_like(mask, dtype=bool)
    count = 0
    h, w = mask.shape
    for y, x in zip(*np.nonzero(mask), strict=True):
        if seen[y, x]:
            continue
        count += 1
        stack = [(y, x)]
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
    return count


# ------------------------------------------------------------------------------- Octi
def _octi_centre(st: Any, name: str) -> tuple[int, int]:
    from envs.octi.render import CELL, MARGIN

    sq = st.geo.square(name)
    x, y = sq % st.geo.width, sq // st.geo.width
    return MARGIN + x * CELL + CELL // 2, MARGIN + (st.geo.height - 1 - y) * CELL + CELL // 2


def test_octi_pods_on_their_squares_in_their_colours_arrows_facing_the_enemy() -> None:
    """A lone pod is drawn at the centre of its square (a1 at the bottom left, Black's side)
    in its seat's fill, its arrow pointing at the opponent (up for Black, down for Red,
    OCT-05); empty squares carry no pod colour; the panel's to-act pod has the mover's fill."""
    from envs.octi.render import CELL, FILL, MARGIN, PANEL, render_rgb
    from tests.octi.helpers import custom

    for to_move in (0, 1):
        st = custom(black=(("a1", ""), ("e3", "")), red=(("f6", ""), ("b5", "")), to_move=to_move)
        img = render_rgb(st)
        r = CELL * 0.28
        for name, seat in (("a1", 0), ("e3", 0), ("f6", 1), ("b5", 1)):
            cx, cy = _octi_centre(st, name)
            for side in (-1, 1):
                assert _near(img[cy, round(cx + side * 0.6 * r)], FILL[seat]), (name, seat)
            tip = -1 if seat == 0 else 1
            assert _near(img[round(cy + tip * 0.25 * r), cx], (235, 235, 235)), (name, "arrow")
            assert _near(img[round(cy - tip * 0.25 * r), cx], FILL[seat]), (name, "arrow")
        for name in ("f1", "a6", "b3", "e5"):  # the mirror images of the pods' squares
            cx, cy = _octi_centre(st, name)
            block = img[cy - 10 : cy + 10, cx - 10 : cx + 10]
            assert not any(_near(block, c).any() for c in FILL), name
        px = 2 * MARGIN + st.geo.width * CELL
        assert img.shape[1] == px + PANEL
        assert _near(img[MARGIN + 28, px + 125], FILL[to_move])


def test_octi_prongs_point_their_way() -> None:
    """Each prong is drawn towards its own direction (N up the board, E to the right) and not
    the opposite way."""
    from envs.octi.board import DIR_DELTAS, DIR_NAMES
    from envs.octi.render import CELL, render_rgb
    from tests.octi.helpers import custom

    r = CELL * 0.28
    for d, name in enumerate(DIR_NAMES):
        st = custom(black=(("c4", name),), red=(("f7", ""),))
        img = render_rgb(st)
        cx, cy = _octi_centre(st, "c4")
        dx, dy = DIR_DELTAS[d]
        n = math.hypot(dx, dy)
        tip = img[round(cy - dy / n * r * 1.45), round(cx + dx / n * r * 1.45)]
        back = img[round(cy + dy / n * r * 1.45), round(cx - dx / n * r * 1.45)]
        assert _near(tip, GOLD) and not _near(back, GOLD), name


def test_octi_stack_draws_every_pod_and_its_height() -> None:
    """A stack of n pods shows n separate pods of its seat's fill in its square and writes n."""
    from envs.octi.render import CELL, FILL, MARGIN, render_rgb
    from tests.octi.helpers import custom

    for n in (2, 3):
        st = custom("x_fast", black=(("c3", ""),) * n, red=(("h8", ""),))
        img = render_rgb(st)
        x0, y0 = MARGIN + 2 * CELL, MARGIN + (st.geo.height - 3) * CELL  # square c3
        square = img[y0 + 2 : y0 + CELL - 1, x0 + 2 : x0 + CELL - 1]
        assert _blobs(_near(square, FILL[0], 2)) == n
        box = (x0, y0, x0 + CELL, y0 + CELL)
        tint = tuple(int(v) for v in img[y0 + 4, x0 + 4])
        assert _shows_text(img, box, str(n), 14, (20, 20, 160), tint, anchor="mm"), n
        assert not _shows_text(img, box, str(n - 1), 14, (20, 20, 160), tint, anchor="mm"), n


def test_octi_board_tints_labels_and_panel() -> None:
    """Bases are tinted in their owner's tint, the turn's origin green; rank 1 is written
    beside the bottom row and file a under the left column; the panel's supply lines are the
    state's, seat by seat."""
    from envs.octi.render import BASE_TINT, CELL, MARGIN, _panel_lines, render_rgb
    from tests.octi.helpers import custom

    st = custom(black=(("a1", "N"),), red=(("f6", ""),))
    st.supply = [7, 3]
    img = render_rgb(st)
    H = st.geo.height
    for seat in (0, 1):
        for sq in st.geo.bases[seat]:
            x0, y0 = MARGIN + (sq % st.geo.width) * CELL, MARGIN + (H - 1 - sq // st.geo.width) * CELL
            assert _near(img[y0 + 4, x0 + 4], BASE_TINT[seat], 0), (seat, sq)
    lines = _panel_lines(st)
    assert lines[lines.index("Black:") + 1] == "  supply   7"
    assert lines[lines.index("Red:") + 1] == "  supply   3"
    for y in range(H):
        top = MARGIN + (H - 1 - y) * CELL
        assert _shows_text(img, (0, top, MARGIN, top + CELL), str(y + 1), 14), y
    assert _shows_text(img, (MARGIN, MARGIN + H * CELL, MARGIN + CELL, MARGIN + H * CELL + 28), "a", 14)
    mid = custom(black=(("c3", "N"),), red=(("c4", ""), ("a1", "")))
    mid.play("jump c3 N")  # mid-turn: c3 is the turn's origin
    img = render_rgb(mid)
    assert _near(img[MARGIN + (H - 3) * CELL + 4, MARGIN + 2 * CELL + 4], (180, 220, 180), 0)


# ------------------------------------------------------------------------ Over and Out
def _oao(n: int = 3, seed: int = 0):  # type: ignore[no-untyped-def]
    from envs.over_and_out.game import OverAndOutGame

    st = OverAndOutGame(num_players=n).new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(4):
        st.apply(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    return st


def _oao_seat_xy(n: int, seat: int) -> tuple[float, float]:
    """A seat box's centre (``render_rgb``: seat 0 at the top, then clockwise on screen)."""
    a = -math.pi / 2 + 2 * math.pi * seat / n
    from envs.over_and_out.render import SEAT_RX, SEAT_RY

    return 380 + SEAT_RX * math.cos(a), 250 + SEAT_RY * math.sin(a)


def test_over_and_out_seats_clockwise_in_their_colours_with_their_chips() -> None:
    """Each seat's box is framed in its own colour at its place clockwise round the table,
    holds one chip of that colour and one card back per chip the seat has, and only the mover's box is lit."""
    from envs.over_and_out.render import render_rgb

    for n in (3, 5):
        st = _oao(n)
        st.chips = [1 + (s % 4) for s in range(n)]
        img = render_rgb(st)
        for seat in range(n):
            x, y = _oao_seat_xy(n, seat)
            box = img[round(y) - 40 : round(y) + 41, round(x) - 84 : round(x) + 85]
            colour = draw.SEAT_COLORS[seat]
            edge = img[round(y) - 3 : round(y) + 4, round(x) - 87 : round(x) - 80]
            assert _near(edge, colour, 0).any(), (n, seat)
            for other in draw.SEAT_COLORS:
                if other != colour:
                    assert not _near(box, other, 0).any(), (n, seat, other)
            chips = img[round(y) - 8 : round(y) + 9, round(x) - 78 : round(x) + 4]
            assert _blobs(_near(chips, colour, 0)) == st.chips[seat], (n, seat)
            backs = _near(box, (40, 70, 140), 0).any(axis=0)  # card backs: runs of columns
            assert int((backs[1:] & ~backs[:-1]).sum() + backs[0]) == st.chips[seat], (n, seat)
            lit = _near(img[round(y) + 36, round(x) - 76], (255, 250, 205), 0)
            assert lit == (seat == st.to_move), (n, seat)


def test_over_and_out_picture_hides_the_hands_of_seats_not_to_move() -> None:
    """Spectator's view (env doc): the mover's hand face up, every other hand as card backs;
    changing a hand not to move leaves the picture alone, changing the mover's does not."""
    from envs.over_and_out.render import render_rgb

    st = _oao(4)
    base = render_rgb(st)
    for seat in range(st.n):
        other = st.clone()
        kinds = sorted({*range(11)} - set(other.hands[seat]))
        other.hands[seat] = sorted(kinds[: len(other.hands[seat])])
        changed = (render_rgb(other) != base).any()
        assert changed == (seat == st.to_move), seat


def test_over_and_out_centre_shows_total_limit_and_direction() -> None:
    """The centre writes ``T <total>`` (changing the total changes only the centre), the Tip
    Top card face up with the limit on it, and the arrow of the current direction."""
    from envs.over_and_out.render import render_rgb

    st = _oao(3)
    base = render_rgb(st)
    other = st.clone()
    other.total = st.total + 7
    ys, xs = np.nonzero((render_rgb(other) != base).any(axis=-1))
    assert ys.size and xs.min() >= 380 - 175 and xs.max() <= 380 + 175 and ys.min() >= 155 and ys.max() <= 355
    centre = (205, 155, 555, 355)
    assert _shows_text(base, centre, f"T {st.total}", 40, anchor="mm")
    card = (380 - 150, 250 - 55, 380 - 70, 250 + 55)
    assert _shows_text(base, card, str(st.tiptop), 34, bg=(255, 255, 255), anchor="mm")
    for direction, arrow in ((1, "clockwise ->"), (-1, "<- counter-clockwise")):
        st.direction = direction
        assert _shows_text(render_rgb(st), centre, arrow, 14, anchor="mm"), arrow


# ------------------------------------------------------------------- OTTO Game Over
def _ogo_tile(img: np.ndarray, sq: int) -> np.ndarray:
    from envs.otto_game_over.render import MARGIN, TILE

    x0, y0 = MARGIN + (sq % 5) * TILE, MARGIN + (4 - sq // 5) * TILE
    return img[y0 : y0 + TILE + 1, x0 : x0 + TILE + 1]


def test_otto_game_over_tiles_right_way_up_and_turned_clockwise() -> None:
    """B7 unturned on b4 (the board's upper left) shows its strokes where the spec puts them
    (small arc at the NE corner, dead straight N1-E2, square corner S2-W1, big arc round SW);
    rotation k turns the picture k quarter turns clockwise (ports are numbered clockwise)."""
    from envs.otto_game_over.geometry import B7, SQUARE_OF_NAME
    from envs.otto_game_over.render import DEAD, LINE, UNIT, render_rgb
    from tests.otto_game_over.helpers import make

    def strokes(tile: np.ndarray) -> np.ndarray:  # live strokes and the dead (L) one
        return _near(tile, LINE, 0) | _near(tile, DEAD, 0)

    st = make({})
    sq = SQUARE_OF_NAME["b4"]
    st.design[sq], st.rot[sq] = B7, 0
    tile = _ogo_tile(render_rgb(st), sq)
    ink = strokes(tile)
    u = UNIT
    c = 1 / math.sqrt(2)

    def at(x: float, y: float) -> bool:  # tile units, y up, within a pixel
        px, py = round(x * u), round((4 - y) * u)
        return bool(ink[py - 1 : py + 2, px - 1 : px + 2].any())

    for x, y in ((4 - c, 4 - c), (2.5, 2.5), (1, 0.5), (0.5, 1), (3 * c, 3 * c)):
        assert at(x, y), (x, y)
    for x, y in ((4 - c, c), (c, 4 - c), (1, 3.5), (3.5, 1)):  # mirror images
        assert not at(x, y), (x, y)
    for k in (1, 2, 3):
        st.rot[sq] = k
        turned = strokes(_ogo_tile(render_rgb(st), sq))
        for j in range(4):
            want = np.rot90(ink, -j)
            iou = (want & turned).sum() / (want | turned).sum()
            assert (iou > 0.9) == (j == k), (k, j, iou)


def test_otto_game_over_owned_shapes_in_their_owners_colours() -> None:
    """P-EIGHT: team 0 owns the small circle at vf1, team 1 the one at va6; each marker sits on
    its vertex (from ``MARGIN``/``TILE``) in its owner's colour, and the tile quarter of each
    circle (e1, a5) is stroked in that colour only."""
    from envs.otto_game_over.geometry import SQUARE_OF_NAME, VERTEX_OF_NAME
    from envs.otto_game_over.render import MARGIN, TILE, render_rgb
    from tests.otto_game_over.helpers import make, p_eight

    st = make(p_eight())
    img = render_rgb(st)
    for vname, sqname, team in (("vf1", "e1", 0), ("va6", "a5", 1)):
        v = VERTEX_OF_NAME[vname]
        vx, vy = MARGIN + (v % 6) * TILE, MARGIN + (5 - v // 6) * TILE
        assert _near(img[vy, vx], draw.SEAT_COLORS[team], 0), vname
        tile = _ogo_tile(img, SQUARE_OF_NAME[sqname])
        assert _near(tile, draw.SEAT_COLORS[team], 0).sum() > 20, sqname
        assert not _near(tile, draw.SEAT_COLORS[1 - team], 0).any(), sqname


def test_otto_game_over_panel_rows_show_each_seats_team_and_table_not_its_cards() -> None:
    """Four players in two teams: each seat's row has a swatch of its team's colour and the
    text names the seat's team, card count and table tile; changing one seat's table tile
    changes that row only; the cards held (secret) change nothing."""
    from envs.otto_game_over.game import OttoGameOverGame
    from envs.otto_game_over.geometry import TILE_NAMES
    from envs.otto_game_over.render import MARGIN, PANEL, SEAT_ROW, TILE, render_rgb

    st = OttoGameOverGame(num_players=4, teams=True).new_initial_state(np.random.default_rng(0))
    img = render_rgb(st)
    x = 5 * TILE + 2 * MARGIN + 10
    column = img[:, x + 6]
    swatches = []  # (top row, colour) of each run of a team colour down the swatch column
    for y in range(img.shape[0]):
        colour = tuple(int(v) for v in column[y])
        if colour in draw.SEAT_COLORS and (
            not swatches or swatches[-1][1] != colour or y > swatches[-1][2] + 1
        ):
            swatches.append([y, colour, y])
        elif swatches and colour == swatches[-1][1]:
            swatches[-1][2] = y
    assert [c for _, c, _ in swatches] == [draw.SEAT_COLORS[st.team[s]] for s in range(4)]
    tops = [top - 3 for top, _, _ in swatches]
    for s, top in enumerate(tops):
        row = (x + 18, top, x + PANEL - 10, top + SEAT_ROW)
        table = TILE_NAMES[st.tables[s]] if st.tables[s] >= 0 else "-"
        assert _shows_text(img, row, f"cards {len(st.hands[s])}   table {table}", 12), s
        mark = "> " if s == st.actor else "  "
        assert _shows_text(
            img, row, f"{mark}player_{s}  team {st.team[s]}  total {st.totals[t := st.team[s]]}", 14
        ), (s, t)
    other = st.clone()
    other.tables[2] = (st.tables[2] + 3) % 8
    ys, _ = np.nonzero((render_rgb(other) != img).any(axis=-1))
    assert ys.size and tops[2] <= ys.min() and ys.max() < tops[2] + SEAT_ROW
    secret = st.clone()
    secret.hands = [[(k + 1) % 9 for k in h] for h in st.hands]
    assert (render_rgb(secret) == img).all()


def test_otto_game_over_drawn_tile_and_rank_labels() -> None:
    """The drawn tile is shown unturned in the panel (as ``draw_tile`` draws rotation 0) and
    named; ranks 1..5 are written beside their rows, 1 at the bottom."""
    from envs.otto_game_over.geometry import B7, TILE_NAMES
    from envs.otto_game_over.render import MARGIN, TILE, UNIT, draw_tile, render_rgb
    from tests.otto_game_over.helpers import make

    st = make({})
    st.drawn = B7  # not symmetric under a quarter turn (G16 is)
    img = render_rgb(st)
    side = 5 * TILE + 2 * MARGIN
    want_img, d = draw.canvas(2 * UNIT + 1, 2 * UNIT + 1)
    draw_tile(d, 0, 0, 4 * st.drawn, scale=0.5)
    want = draw.to_array(want_img)
    panel = img[:200, side + 100 : side + 180]  # the tile sits at x + 120 of the panel
    hits = np.lib.stride_tricks.sliding_window_view(panel, want.shape)
    assert (hits == want).all(axis=(-3, -2, -1)).any()
    assert _shows_text(img, (side, 0, img.shape[1], 200), f"drawn: {TILE_NAMES[st.drawn]}", 13)
    for i in range(5):
        top = MARGIN + (4 - i) * TILE
        assert _shows_text(img, (0, top, MARGIN, top + TILE), str(i + 1), 13, ink=(110, 100, 85)), i


# ------------------------------------------------------------------ Otto the Octopus
def _octopus(placements: list[str], n: int = 2):  # type: ignore[no-untyped-def]
    from tests.otto_octopus.helpers import make

    return make(placements, num_players=n) if n != 2 else make(placements)


def _oct_centre(name: str) -> tuple[int, int]:
    from envs.otto_octopus.board import FILES
    from envs.otto_octopus.render import CELL, MARGIN

    f, r = FILES.index(name[0]), int(name[1]) - 1
    return MARGIN + f * CELL + CELL // 2, MARGIN + (7 - r) * CELL + CELL // 2


def test_otto_octopus_fish_on_their_squares_in_their_colours() -> None:
    """Every fish is drawn on its own square (b6 is upper left: rank 8 at the top, file a at
    the left) in its kind's colour, and bubbles as white rings; the mirror squares stay bare."""
    from envs.otto_octopus import board as B
    from envs.otto_octopus.render import FISH_C, render_rgb

    for kind in (*B.FISH_KINDS, B.BUBBLES):
        st = _octopus([])
        st.ocean.tiles[B.SQUARE_INDEX["b6"]] = kind
        img = render_rgb(st)
        cx, cy = _oct_centre("b6")
        if kind == B.BUBBLES:
            assert _near(img[cy - 20 : cy + 20, cx - 20 : cx + 20], (255, 255, 255), 0).sum() > 50
        else:
            assert _near(img[cy + 6, cx - 14], FISH_C[kind], 0), B.KINDS[kind]
        for mirror in ("b3", "g6", "g3"):
            mx, my = _oct_centre(mirror)
            block = img[my - 20 : my + 20, mx - 20 : mx + 20]
            assert not _near(block, (255, 255, 255), 0).any() and not _near(block, draw.INK, 0).any()


def test_otto_octopus_arm_tiles_follow_the_arm_with_suckers_on_the_right() -> None:
    """d6-d7 straight north, d8 turn-out (a left turn): the arm enters d8 from below and leaves
    west; on d7 the suckers are on the arm's right (east); the square the arm grows into next
    (c8) carries the tip ring."""
    from envs.otto_octopus.render import OTTO_C, SUCKER_C, render_rgb

    st = _octopus(["straight d6", "straight d7", "turn-out d8"])
    img = render_rgb(st)
    cx, cy = _oct_centre("d8")
    assert _near(img[cy + 24, cx], OTTO_C, 0) and _near(img[cy, cx - 24], OTTO_C, 0)
    assert not _near(img[cy - 24, cx], OTTO_C, 0) and not _near(img[cy, cx + 24], OTTO_C, 0)
    cx, cy = _oct_centre("d7")
    assert _near(img[cy + 8, cx + 7], SUCKER_C, 0) and _near(img[cy + 24, cx + 7], SUCKER_C, 0)
    assert not _near(img[cy - 12 : cy + 32, cx - 10 : cx - 4], SUCKER_C, 0).any()
    cx, cy = _oct_centre("c8")
    assert _near(img[cy - 12 : cy + 12, cx - 12 : cx + 12], (255, 240, 0), 0).sum() > 20


def test_otto_octopus_panel_writes_the_status_lines() -> None:
    """The panel writes the text render's status lines (each seat's in its text colour), so
    the picture names the right seat to act, the scores and the hand sizes; ranks run 1..8
    from the bottom."""
    from envs.otto_octopus.render import CELL, MARGIN, _status_lines, render_rgb

    st = _octopus(["straight d6", "straight d7"], n=3)
    st.scores = [5, 12, 0]
    img = render_rgb(st)
    x = 2 * MARGIN + 8 * CELL
    panel = (x - 1, 0, img.shape[1], img.shape[0])
    lines = _status_lines(st)
    for p, line in enumerate(lines[: st.n]):
        assert _shows_text(img, panel, line, 14, ink=draw.TEXT_COLORS[p]), line
    for line in lines[st.n :]:
        for part in line.split("; "):
            assert _shows_text(img, panel, part, 14), part
    for r in range(8):
        top = MARGIN + (7 - r) * CELL
        box = (0, top, MARGIN, top + CELL)
        assert _shows_text(img, box, str(r + 1), 14, anchor="mm", frac=(0.0, 0.0)), r


def test_otto_game_over_marker_sizes_tell_the_shapes_apart() -> None:
    """A closed shape's marker sits on its vertex in its owner's colour, a small circle's
    smaller than a big circle's (each shape alone at its vertex)."""
    from envs.core.draw import SEAT_COLORS
    from envs.otto_game_over.render import _vertex_px, render_rgb
    from tests.otto_game_over.helpers import make

    def marker_area(shape: int) -> int:
        st = make({})
        v = 14  # an inner vertex
        st.shapes = {(shape, v): 1}
        vx, vy = _vertex_px(v)
        block = render_rgb(st)[vy - 14 : vy + 15, vx - 14 : vx + 15]
        return int(_near(block, SEAT_COLORS[1], 0).sum())

    small, big, square = (marker_area(s) for s in (0, 1, 2))
    assert 0 < small < big and small < square, (small, big, square)


def test_otto_octopus_shell_drawn_on_the_shell_end_only() -> None:
    """An arm closed by the end-shell tile shows the shell on that square; the plain end tile
    shows none."""
    from envs.otto_octopus.render import SHELL_C, render_rgb

    for kind, shell in (("end-shell", True), ("end", False)):
        img = render_rgb(_octopus(["straight d6", f"{kind} d7"]))
        cx, cy = _oct_centre("d7")
        assert bool(_near(img[cy - 14 : cy + 15, cx - 14 : cx + 15], SHELL_C, 0).any()) == shell, kind
