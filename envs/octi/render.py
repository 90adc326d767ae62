"""Text and image pictures of an Octi position (absolute frame: player_0 / Black at the bottom)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.octi.board import DIR_DELTAS, FILES, SET_BITS
from envs.octi.notation import prong_string
from envs.octi.turn import CAPTURED, OVER, PHASE_NAMES, RESERVE

if TYPE_CHECKING:
    from envs.octi.rules import State

COLOUR_NAMES = ("Black", "Red")
LETTERS = ("B", "R")


def _status(st: State) -> list[str]:
    if st.phase == OVER:
        r = st.result
        end = (
            "draw (truncated)"
            if st.truncated
            else ("draw" if r[0] == r[1] else f"{COLOUR_NAMES[0 if r[0] > 0 else 1]} wins")
        )
        head = f"game over after {st.turn} turns: {end}"
    else:
        head = (
            f"turn {st.turn + 1}: player_{st.to_move} ({COLOUR_NAMES[st.to_move]}) to act, "
            f"phase {PHASE_NAMES[st.phase]}"
        )
    lines = [head]
    for seat in (0, 1):
        lines.append(
            f"{COLOUR_NAMES[seat]:5s} supply {st.supply[seat]:2d}  reserve {st.count(seat, RESERVE)}"
            f"  captured {st.count(seat, CAPTURED)}"
        )
    return lines


def render_ansi(st: State) -> str:
    """Board (``B``/``R`` pods, ``B2`` stacks, ``+`` empty base), pod list with prongs, status."""
    geo = st.geo
    W, H = geo.width, geo.height
    bases = set(geo.bases[0]) | set(geo.bases[1])
    rows = []
    for y in range(H - 1, -1, -1):
        cells = []
        for x in range(W):
            sq = y * W + x
            on = st.pods_on(sq)
            if on:
                cell = LETTERS[on[0] // st.P] + (str(len(on)) if len(on) > 1 else "")
            else:
                cell = "+" if sq in bases else "."
            cells.append(f"{cell:3s}")
        rows.append(f"{y + 1:>2} " + "".join(cells).rstrip())
    rows.append("   " + "".join(f"{f:3s}" for f in FILES[:W]).rstrip())
    pods = []
    for seat in (0, 1):
        items = [
            f"{geo.names[st.pos[g]]}[{prong_string(st.prongs[g])}]"
            for g in range(seat * st.P, (seat + 1) * st.P)
            if st.pos[g] >= 0
        ]
        pods.append(f"{COLOUR_NAMES[seat]:5s} pods: " + " ".join(items))
    return "\n".join(rows + pods + _status(st))


CELL = 72
MARGIN = 28
PANEL = 250
FILL = ((40, 40, 40), (200, 40, 40))
BASE_TINT = ((200, 200, 200), (245, 190, 190))


def _octagon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(math.pi / 8 + k * math.pi / 4), cy + r * math.sin(math.pi / 8 + k * math.pi / 4))
        for k in range(8)
    ]


def _draw_pod(draw: Any, cx: float, cy: float, r: float, seat: int, prongs: int) -> None:
    for d in SET_BITS[prongs]:
        dx, dy = DIR_DELTAS[d]
        n = math.hypot(dx, dy)
        ex, ey = cx + dx / n * r * 1.45, cy - dy / n * r * 1.45
        draw.line([(cx, cy), (ex, ey)], fill=(230, 170, 0), width=max(3, int(r / 4)))
        draw.ellipse([ex - r / 5, ey - r / 5, ex + r / 5, ey + r / 5], fill=(230, 170, 0))
    draw.polygon(_octagon(cx, cy, r), fill=FILL[seat], outline=(255, 255, 255))
    # the arrow always faces the opponent (OCT-05)
    tip = -1 if seat == 0 else 1
    draw.polygon([(cx, cy + tip * r * 0.55), (cx - r * 0.3, cy), (cx + r * 0.3, cy)], fill=(235, 235, 235))


def render_rgb(st: State) -> np.ndarray:
    """Board with tinted bases, octagonal pods with their prongs, stacks split into cells, side panel."""
    from envs.core.draw import BACKGROUND, INK, canvas, font, to_array

    geo = st.geo
    W, H = geo.width, geo.height
    img, draw = canvas(2 * MARGIN + W * CELL + PANEL, 2 * MARGIN + H * CELL, BACKGROUND)
    small = font(14)

    def corner(sq: int) -> tuple[int, int]:
        return MARGIN + (sq % W) * CELL, MARGIN + (H - 1 - sq // W) * CELL

    for sq in range(geo.size):
        x0, y0 = corner(sq)
        tint = (235, 225, 200)
        for seat in (0, 1):
            if sq in geo.bases[seat]:
                tint = BASE_TINT[seat]
        if sq == st.origin:
            tint = (180, 220, 180)
        draw.rectangle([x0, y0, x0 + CELL, y0 + CELL], fill=tint, outline=(120, 110, 90))
    for sq in range(geo.size):
        if st.jorder and sq in st.jorder:
            x0, y0 = corner(sq)
            draw.rectangle([x0 + 3, y0 + 3, x0 + CELL - 3, y0 + CELL - 3], outline=(30, 120, 220), width=3)
        on = st.pods_on(sq)
        if not on:
            continue
        x0, y0 = corner(sq)
        k = math.ceil(math.sqrt(len(on)))
        rows = math.ceil(len(on) / k)
        sub = CELL / k
        top = y0 + (CELL - rows * sub) / 2  # centre a stack's rows in the square
        for i, g in enumerate(on):
            cx = x0 + sub * (i % k + 0.5)
            cy = top + sub * (i // k + 0.5)
            _draw_pod(draw, cx, cy, sub * (0.28 if k == 1 else 0.32), g // st.P, st.prongs[g])
        if len(on) > 1:
            draw.text((x0 + CELL - 16, y0 + 2), str(len(on)), fill=(20, 20, 160), font=small)
    for x in range(W):
        draw.text((MARGIN + x * CELL + CELL / 2 - 4, MARGIN + H * CELL + 6), FILES[x], fill=INK, font=small)
    for y in range(H):
        draw.text((8, MARGIN + (H - 1 - y) * CELL + CELL / 2 - 7), str(y + 1), fill=INK, font=small)
    px = 2 * MARGIN + W * CELL
    for i, line in enumerate(_panel_lines(st)):
        draw.text((px, MARGIN + 20 * i), line, fill=INK, font=small)
    if st.phase != OVER:
        _draw_pod(draw, px + 120, MARGIN + 28, 8, st.to_move, 0)
    return to_array(img)


def _panel_lines(st: State) -> list[str]:
    if st.phase == OVER:
        lines = ["game over", _status(st)[0].split(": ", 1)[1], f"after {st.turn} turns", ""]
    else:
        lines = [
            f"turn {st.turn + 1}",
            f"to act: {COLOUR_NAMES[st.to_move]}",
            f"phase {PHASE_NAMES[st.phase]}",
            "",
        ]
    for seat in (0, 1):
        lines += [
            f"{COLOUR_NAMES[seat]}:",
            f"  supply   {st.supply[seat]}",
            f"  reserve  {st.count(seat, RESERVE)}",
            f"  captured {st.count(seat, CAPTURED)}",
            "",
        ]
    lines += ["tinted: bases", "green: origin of the turn", "blue frame: jumped squares", "gold: prongs"]
    return lines
