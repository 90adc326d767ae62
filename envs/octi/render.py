"""Text and image pictures of an Octi position (absolute frame: player_0 / Black at the bottom)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.octi.board import DIR_DELTAS, FILES, SET_BITS
from envs.octi.notation import pod_name, prong_string
from envs.octi.turn import CAPTURE, CAPTURED, DECLARE, MAIN, OVER, PHASE_NAMES, RESERVE

if TYPE_CHECKING:
    from envs.octi.rules import State

COLOUR_NAMES = ("Black", "Red")
LETTERS = ("B", "R")


def _rules(st: State) -> list[str]:
    """The variant and the optional rules that are on, e.g. ``["x_fast", "edgeless"]``."""
    c = st.config
    flags = (
        ("reposition", c.allow_reposition),
        ("edgeless", c.edgeless),
        ("capture to reserve", c.capture_to_reserve and st.x),
        ("repetition draw", c.repetition_draw),
    )
    return [c.variant] + [name for name, on in flags if on]


def _focus(st: State) -> int:
    """Global code of the pod the next action is about (active pod or queue head), or -1."""
    if st.phase == DECLARE:
        return st.to_move * st.P + st.dqueue[0]
    if st.phase == CAPTURE:
        return st.cqueue[0]
    if st.phase in (MAIN, OVER) or st.active < 0:
        return -1
    return st.to_move * st.P + st.active


def _turn_lines(st: State) -> list[str]:
    """Mid-turn bookkeeping (origin, jumped squares, movers, focus, capture marks)."""
    if st.phase in (MAIN, OVER):
        return []
    names = st.geo.names
    movers = [pod_name(st, st.to_move * st.P + p) for p in st.movers]
    focus = _focus(st)
    return [
        f"origin {names[st.origin]}  jumped {' '.join(names[sq] for sq in st.jorder) or '-'}",
        f"moving {' '.join(movers) or '-'}  focus {pod_name(st, focus) if focus >= 0 else '-'}"
        f"  marked capture {' '.join(pod_name(st, g) for g in st.cmarks) or '-'}",
    ]


def _end(st: State) -> tuple[str, str]:
    """(result, how) of a finished game: ``("Black wins", "reached an enemy base")``; the way
    is read off the final position (OCT-42/43/44/45, OCT-52)."""
    r = st.result
    if st.truncated:
        return "draw (truncated)", f"turn limit {st.config.turn_limit}"
    if r[0] == r[1]:
        return "draw (repetition)", "threefold repetition"
    w = 0 if r[0] > 0 else 1
    own = [st.pos[w * st.P + p] for p in range(st.P)]
    if st.classic:
        how = "holds all 3 enemy bases" if all(b in own for b in st.geo.bases[1 - w]) else ""
    else:  # a landing ends the game inside the turn, its movers still recorded (END never ran);
        # a pod already on a base in a restored state is no landing of this turn
        landed = st.movers and any(sq in st.geo.enemy_base_set[w] for sq in own)
        how = "reached an enemy base" if landed else ""
    return f"{COLOUR_NAMES[w]} wins", how or f"{COLOUR_NAMES[1 - w]} cannot move"


def _when(st: State, how: str) -> str:
    """When a finished game ended: a landing on an enemy base ends it inside the turn, before
    END counts it (OCT-42); every other end once the turn is complete."""
    return (
        f"in turn {st.turn + 1}"
        if how == "reached an enemy base"
        else f"after {st.turn} turn{'' if st.turn == 1 else 's'}"
    )


def _status(st: State) -> list[str]:
    if st.phase == OVER:
        result, how = _end(st)
        when = _when(st, how)
        head = f"game over {when}: {result}" + ("" if result.startswith("draw") else f" ({how})")
    else:
        head = (
            f"turn {st.turn + 1} of {st.config.turn_limit}: player_{st.to_move} "
            f"({COLOUR_NAMES[st.to_move]}) to act, phase {PHASE_NAMES[st.phase]}"
        )
    lines = [head, f"rules: {', '.join(_rules(st))}", *_turn_lines(st)]
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
            f"{pod_name(st, g)}[{prong_string(st.prongs[g])}]"
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
FOCUS = (150, 40, 210)  # ring around the pod the next action is about
MARK = (0, 190, 255)  # cross over a pod marked ``capture``


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
    focus = _focus(st)

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
        # a stack of n pods fills n of at least n + 1 grid cells; its height goes in the last one
        slots = len(on) + 1 if len(on) > 1 else 1
        k = math.ceil(math.sqrt(slots))
        rows = math.ceil(slots / k)
        sub = CELL / k
        top = y0 + (CELL - rows * sub) / 2  # centre a stack's rows in the square
        for i, g in enumerate(on):
            cx = x0 + sub * (i % k + 0.5)
            cy = top + sub * (i // k + 0.5)
            r = sub * (0.28 if k == 1 else 0.3)  # stacked pods' prongs stay clear of each other
            _draw_pod(draw, cx, cy, r, g // st.P, st.prongs[g])
            if g == focus:
                draw.ellipse([cx - r * 1.2, cy - r * 1.2, cx + r * 1.2, cy + r * 1.2], outline=FOCUS, width=3)
            if g in st.cmarks:
                for sx in (-1, 1):
                    draw.line(
                        [(cx - sx * r, cy - r), (cx + sx * r, cy + r)], fill=MARK, width=max(3, int(r / 4))
                    )
        if len(on) > 1:
            last = k * rows - 1
            at = (x0 + sub * (last % k + 0.5), top + sub * (last // k + 0.5))
            draw.text(at, str(len(on)), fill=(20, 20, 160), font=small, anchor="mm")
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
        result, how = _end(st)
        lines = ["game over", result, how, _when(st, how), ""]
    else:
        lines = [
            f"turn {st.turn + 1} of {st.config.turn_limit}",
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
    variant, *flags = _rules(st)
    lines += [f"rules: {variant}", *(f"  + {flag}" for flag in flags), ""]
    lines += [
        "tinted: bases",
        "green: origin of the turn",
        "blue frame: jumped squares",
        "purple ring: pod in focus",
        "cyan cross: marked capture",
        "gold: prongs",
    ]
    return lines
