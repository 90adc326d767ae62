"""Text and image pictures of the ocean (the hand shown is the one of the seat to act)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.otto_octopus import board as B
from envs.otto_octopus.rules import PHASES, State

ABBREV = ("S", "Ti", "To", "E", "Es", "cl", "bu", "je", "pu", "st", "se", "sk", "mo", "an", "mi", "bb")
ARROWS = "^>v<"


def _empty_symbol(st: State, sq: int) -> str:
    if st.ocean.tip_arm[sq] >= 0:
        return "*"
    if sq in B.ARM_OF_START and st.ocean.arm_state[B.ARM_OF_START[sq]] == B.UNSTARTED:
        return ARROWS[B.ARMS[B.ARM_OF_START[sq]][1]]
    if sq in B.CORAL:
        return "C"
    if sq in B.ALGAE:
        return "a"
    return "#" if sq in B.PERIMETER else "."


def _cell(st: State, sq: int) -> str:
    k = st.ocean.tiles[sq]
    if k == B.OTTO:
        return "OO"
    if k == B.EMPTY:
        return _empty_symbol(st, sq)
    if k <= B.TURN_OUT:
        return ABBREV[k] + ARROWS[st.ocean.exit_dir[sq]]
    return ABBREV[k]


def _status_lines(st: State) -> list[str]:
    lines = []
    for p in range(st.n):
        mark = ">" if p == st.current_player() else " "
        lines.append(
            f"{mark} player_{p}: score {st.scores[p]:>3}  hand {len(st.hands[p])}  skips {st.skips[p]}"
        )
    lines.append(f"pile {len(st.pile)}")
    if st.over:
        lines.append("game over" + (" (truncated)" if st.truncated else "") + f"; final {st.final_scores()}")
        if not st.truncated and st.n > 1:  # a truncated game has no winner (returns all 0)
            won = st.winners()
            lines.append(
                ("winner: " if len(won) == 1 else "winners: ") + ", ".join(f"player_{w}" for w in won)
            )
    else:
        p = st.to_move
        hand = ", ".join(B.KINDS[k] for k in st.hands[p]) or "-"
        extra = f", {st.extra} extra" if st.extra else ""
        lines.append(f"player_{p} to act ({PHASES[st.phase]}{extra}); hand: {hand}")
        if st.config.open_game:  # OTP-41: all but the newest tile of every hand are public
            lines += [
                f"player_{q} shows: {', '.join(B.KINDS[k] for k in st.hands[q][:-1]) or '-'}"
                for q in range(st.n)
                if q != p
            ]
    return lines


def render_ansi(st: State) -> str:
    """The §1.1 board with tiles (arm tiles show their exit heading) and the status."""
    rows = ["      " + "".join(f"{f:<4}" for f in B.FILES)]
    for r in range(7, -1, -1):
        rows.append(f"  {r + 1}   " + "".join(f"{_cell(st, r * 8 + f):<4}" for f in range(8)).rstrip())
    c = st.config  # the rules in play: fish effects and placement limits (OTP-42/43), open hands (OTP-41)
    rules = (
        f"rules: {'simplified' if c.simplified else 'full'} game, {'open' if c.open_game else 'closed'} hands"
    )
    return "\n".join([*rows, "", rules, *_status_lines(st)])


# ---------------------------------------------------------------------------- image
CELL = 64
MARGIN = 28
PANEL = 300
WATER, DEEP, ALGAE_C, CORAL_C = (120, 190, 225), (60, 110, 170), (110, 190, 110), (240, 140, 150)
OTTO_C, SUCKER_C, SHELL_C = (150, 70, 170), (240, 210, 245), (250, 220, 120)
FISH_C: dict[int, tuple[int, int, int]] = {
    B.CLOWNFISH: (250, 130, 30), B.BUTTERFLYFISH: (250, 230, 60), B.JELLYFISH: (230, 150, 230),
    B.PUFFERFISH: (200, 180, 90), B.STARFISH: (240, 80, 60), B.SEAHORSE: (250, 180, 60),
    B.SHARK: (120, 130, 140), B.MORAY: (90, 140, 60), B.ANGLERFISH: (60, 60, 90), B.MINNOW: (180, 190, 200),
}  # fmt: skip
VEC = ((0, -1), (1, 0), (0, 1), (-1, 0))  # N E S W in image coordinates (y down)


def _origin(sq: int) -> tuple[int, int]:
    return MARGIN + (sq % 8) * CELL, MARGIN + (7 - sq // 8) * CELL


def _segment(d: Any, a: tuple[float, float], b: tuple[float, float], heading: int) -> None:
    """An arm segment from a to b with suckers on its right-hand side."""
    d.line([a, b], fill=OTTO_C, width=22)
    rx, ry = VEC[(heading + 1) % 4]
    for t in (0.25, 0.75):
        x = a[0] + (b[0] - a[0]) * t + rx * 7
        y = a[1] + (b[1] - a[1]) * t + ry * 7
        d.ellipse([x - 3, y - 3, x + 3, y + 3], fill=SUCKER_C)


def _arm_tile(d: Any, st: State, sq: int, kind: int) -> None:
    from envs.core import draw  # Pillow: the render extra, for images only

    x0, y0 = _origin(sq)
    c = (x0 + CELL / 2, y0 + CELL / 2)
    arm = st.ocean.arm_of[sq]
    h_out = st.ocean.exit_dir[sq] if kind <= B.TURN_OUT else -1
    h_in = (h_out - B.TURN_OF_KIND[kind]) % 4 if kind <= B.TURN_OUT else _end_heading(st, sq, arm)
    bx, by = VEC[(h_in + 2) % 4]
    entry = (c[0] + bx * CELL / 2, c[1] + by * CELL / 2)
    _segment(d, entry, c, h_in)
    if kind <= B.TURN_OUT:
        ox, oy = VEC[h_out]
        _segment(d, c, (c[0] + ox * CELL / 2, c[1] + oy * CELL / 2), h_out)
    else:
        d.ellipse([c[0] - 12, c[1] - 12, c[0] + 12, c[1] + 12], fill=OTTO_C)
        if kind == B.END_SHELL:
            d.pieslice(
                [c[0] - 14, c[1] - 14, c[0] + 14, c[1] + 14],
                180,
                360,
                fill=SHELL_C,
                outline=draw.INK,
            )


def _end_heading(st: State, sq: int, arm: int) -> int:
    """Heading of the arm entering an end tile (from the neighbouring arm tile)."""
    for h in range(4):
        t = B.STEP[sq][(h + 2) % 4]
        if t >= 0 and st.ocean.arm_of[t] == arm and st.ocean.exit_dir[t] == h:
            return h
    return 0


def _fish(d: Any, sq: int, kind: int) -> None:
    from envs.core import draw  # Pillow: the render extra, for images only

    x0, y0 = _origin(sq)
    cx, cy = x0 + CELL / 2, y0 + CELL / 2
    if kind == B.BUBBLES:
        for dx, dy, r in ((-10, 8, 7), (8, -2, 9), (-4, -14, 5)):
            d.ellipse([cx + dx - r, cy + dy - r, cx + dx + r, cy + dy + r], outline=(255, 255, 255), width=2)
        return
    col = FISH_C[kind]
    d.ellipse([cx - 20, cy - 13, cx + 14, cy + 13], fill=col, outline=draw.INK)
    d.polygon([(cx + 12, cy), (cx + 24, cy - 10), (cx + 24, cy + 10)], fill=col, outline=draw.INK)
    dark = 0.299 * col[0] + 0.587 * col[1] + 0.114 * col[2] < 100  # the anglerfish
    d.text(
        (cx - 3, cy),
        ABBREV[kind],
        fill=(255, 255, 255) if dark else draw.INK,
        font=draw.font(13),
        anchor="mm",
    )


def _squares(d: Any, st: State) -> None:
    from envs.core import draw  # Pillow: the render extra, for images only

    for sq in range(64):
        x0, y0 = _origin(sq)
        col = CORAL_C if sq in B.CORAL else ALGAE_C if sq in B.ALGAE else DEEP if sq in B.PERIMETER else WATER
        d.rectangle([x0, y0, x0 + CELL, y0 + CELL], fill=col, outline=(90, 150, 190))
        if st.ocean.tip_arm[sq] >= 0:
            d.ellipse([x0 + 22, y0 + 22, x0 + 42, y0 + 42], outline=(255, 240, 0), width=3)
        elif sq in B.ARM_OF_START and st.ocean.arm_state[B.ARM_OF_START[sq]] == B.UNSTARTED:
            # an arm not started yet: only its first tile may go here, heading out of Otto
            dx, dy = VEC[B.ARMS[B.ARM_OF_START[sq]][1]]
            cx, cy = x0 + CELL / 2, y0 + CELL / 2
            d.line([(cx - 14 * dx, cy - 14 * dy), (cx + 8 * dx, cy + 8 * dy)], fill=OTTO_C, width=5)
            tip, px, py = (cx + 20 * dx, cy + 20 * dy), -dy, dx
            base = (cx + 6 * dx, cy + 6 * dy)
            d.polygon(
                [tip, (base[0] + 9 * px, base[1] + 9 * py), (base[0] - 9 * px, base[1] - 9 * py)], fill=OTTO_C
            )
    for i, f in enumerate(B.FILES):
        d.text((MARGIN + i * CELL + CELL / 2, MARGIN / 2), f, fill=draw.INK, font=draw.font(14), anchor="mm")
        d.text(
            (MARGIN / 2, MARGIN + (7 - i) * CELL + CELL / 2),
            str(i + 1),
            fill=draw.INK,
            font=draw.font(14),
            anchor="mm",
        )


def _otto(d: Any) -> None:
    from envs.core import draw  # Pillow: the render extra, for images only

    x0, y0 = _origin(B.SQUARE_INDEX["d5"])
    d.ellipse([x0 + 1, y0 + 1, x0 + 2 * CELL - 1, y0 + 2 * CELL - 1], fill=OTTO_C, outline=draw.INK, width=2)
    for ex in (x0 + CELL - 20, x0 + CELL + 20):
        d.ellipse([ex - 10, y0 + 40, ex + 10, y0 + 60], fill=(255, 255, 255))
        d.ellipse([ex - 4, y0 + 46, ex + 4, y0 + 54], fill=draw.INK)
    d.text((x0 + CELL, y0 + CELL + 30), "Otto", fill=(255, 255, 255), font=draw.font(16), anchor="mm")


# the picture's key, drawn at the foot of the panel: marks, then the fish labels in two columns
KEY = (
    "pink: coral corner (x2)   green: algae (+1)",
    "dark: perimeter (anglerfish squares)",
    "yellow ring: where an open arm goes on",
    "arrow: start of an arm not begun",
    "disc: arm end; half shell: end-shell",
    "white rings: bubbles",
)
FISH_KEY = tuple(
    f"{ABBREV[k]} {B.KINDS[k]}" for k in range(B.CLOWNFISH, B.BUBBLES)
)  # cl clownfish .. mi minnow


def _key(d: Any, x: int, bottom: int) -> None:
    from envs.core import draw  # Pillow: the render extra, for images only

    small = draw.font(12)
    rows = len(KEY) + (len(FISH_KEY) + 1) // 2
    y = bottom - 17 * rows
    for line in KEY:
        d.text((x, y), line, fill=draw.INK, font=small)
        y += 17
    for i, label in enumerate(FISH_KEY):
        d.text((x + (i % 2) * 140, y + (i // 2) * 17), label, fill=draw.INK, font=small)


def render_rgb(st: State) -> np.ndarray:
    """``uint8[H, W, 3]``: the ocean on the left, scores and the acting seat's hand on the right,
    the key to the picture's marks and fish labels below them."""
    from envs.core import draw  # Pillow: the render extra, for images only

    width = 2 * MARGIN + 8 * CELL + PANEL
    height = 2 * MARGIN + 8 * CELL
    img, d = draw.canvas(width, height)
    _squares(d, st)
    _otto(d)
    for sq, k in enumerate(st.ocean.tiles):
        if 0 <= k <= B.END_SHELL:
            _arm_tile(d, st, sq, k)
        elif B.END_SHELL < k < B.OTTO:
            _fish(d, sq, k)
    x = 2 * MARGIN + 8 * CELL
    d.text((x, MARGIN), "Otto the Octopus", fill=draw.INK, font=draw.font(20))
    y = MARGIN + 36
    status = _status_lines(st)
    for line in status[: st.n]:
        p = int(line[9]) if line[1:9] == " player_" else 0
        d.text((x, y), line, fill=draw.TEXT_COLORS[p], font=draw.font(14))
        y += 22
    for line in status[st.n :]:
        for part in line.split("; "):
            d.text((x, y + 8), part, fill=draw.INK, font=draw.font(14))
            y += 22
    _key(d, x, height - MARGIN // 2)
    return draw.to_array(img)
