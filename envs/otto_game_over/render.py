"""Text and image pictures of an OTTO Game Over position."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.otto_game_over import actions as A
from envs.otto_game_over.geometry import (
    DESIGN_IDS,
    FRAME,
    FRAME_KIND,
    KIND,
    LINK,
    LINK_KIND,
    OTHER,
    SHAPE_NAMES,
    SHAPE_OF_KIND,
    SQUARE_NAMES,
    STROKE_CORNER,
    TILE_NAMES,
    VERTEX_NAMES,
    VERTEX_OF,
    VERTEX_OF_NAME,
    B,
    Q,
    S,
    X,
    classify,
    trace,
)
from envs.otto_game_over.position import PHASES

if TYPE_CHECKING:
    from envs.otto_game_over.rules import State


def _tile(x: int) -> str:
    return "-" if x < 0 else TILE_NAMES[x]


def _match_number(st: State) -> int:
    """The match being played, or the last one once the game is over (a regular match that
    ends the game is already counted in ``st.matches``; a tie-break match or a one-match
    episode is not)."""
    counted = st.is_terminal() and not st.tiebreak and not st.config.solo and st.config.episode == "game"
    return st.matches if counted else st.matches + 1


def _result(st: State) -> str:
    """How the game ended, in words."""
    if st.truncated:
        return "truncated, no winner"
    if st.config.solo:
        return f"victory, score {st.match_scores[0]}" if st.winners else "defeat"
    if not st.winners:
        return "winners: none"
    teams = ", ".join(map(str, st.winners))
    if len(st.winners) == st.n_teams:  # every side shares the top: a draw (rewards 0)
        return f"draw: teams {teams} tie"
    return ("team " if len(st.winners) == 1 else "teams ") + teams + " won"


EIGHT_COLOR = (150, 40, 190)  # the strokes of a closed 8 (no seat of this game has it)


def _frame_vertex(g: int) -> int:
    """The border vertex whose frame half-shape joins border port ``g`` to the next one."""
    s, p = divmod(g, 8)
    x, y = 4 * (s % 5) + PORT_XY[p][0], 4 * (s // 5) + PORT_XY[p][1]
    return next(v for v in range(36) if abs(4 * (v % 6) - x) + abs(4 * (v // 6) - y) == 1)


def closed_eights(st: State) -> tuple[list[int], dict[int, set[int]], set[int]]:
    """The closed 8s standing on the board (OGO-06): the X tile's square of each, per square
    the ports of the strokes on their lines, and the frame vertices they pass round. In a
    match with others an 8 stands on the board while Infinity is asked and once the episode is
    over; in solo, for the rest of the match (OGO-26)."""
    square_lobes = st.config.eight_lobes != "round"
    xs: list[int] = []
    ports: dict[int, set[int]] = {}
    frame: set[int] = set()
    for sq in range(25):
        if st.design[sq] < 0:
            continue
        dr = 4 * st.design[sq] + st.rot[sq]
        p = next((p for p in range(8) if KIND[dr][p] == X), None)
        if p is None:
            continue
        line = trace(st.design, st.rot, 8 * sq + p)  # both X strokes lie on an 8's one line
        if line is None or classify(line, square_lobes) != "eight":
            continue
        xs.append(sq)
        g = start = 8 * sq + p
        while True:  # walk the line again, noting both ports of each stroke on it
            s, q = g >> 3, g & 7
            other = OTHER[4 * st.design[s] + st.rot[s]][q]
            ports.setdefault(s, set()).update((q, other))
            out = (s << 3) | other
            if LINK_KIND[out]:
                frame.add(_frame_vertex(out))
            g = LINK[out]
            if g == start:
                break
    return xs, ports, frame


def _notes(st: State, xs: list[int] | None = None) -> list[str]:
    """Public facts beside the board and the seats: the last match, Time Travel, an 8 waiting
    for Infinity answers, the kidnapped card, the solo 8 and the cards shown (out of the game).
    ``xs``: the X tiles of the closed 8s, when the caller has them (:func:`closed_eights`)."""
    notes = []
    eights = ", ".join(SQUARE_NAMES[sq] for sq in (closed_eights(st)[0] if xs is None else xs))
    if st.config.solo:
        if not st.is_terminal() and not eights:
            notes.append("8 closed: no")
    elif st.matches or st.is_terminal():
        notes.append("last match: " + "-".join(map(str, st.match_scores)))
    if st.extra_turn:
        notes.append(f"player_{st.to_move}: Time-Travel extra turn")
    elif st.tt_pending:
        notes.append(f"player_{st.to_move}: Time-Travel extra turn to come")
    if PHASES[st.phase] == "infinity":
        saved = [t for t in range(st.n_teams) if st.saved[t]]
        notes.append(
            f"8 closed by player_{st.inf_creator} (X tile {eights or '?'}), "
            f"saved: {', '.join(f'team {t}' for t in saved) or 'none'}"
        )
    elif eights:
        notes.append(f"8 on the board: X tile {eights}")
    if st.kidnapped >= 0:
        notes.append(f"kidnapped: {A.CARD_NAMES[st.kidnapped]}")
    shown = [f"{A.CARD_NAMES[k]} {c}" for k, c in enumerate(st.removed) if c]
    if st.voided:
        shown.append(f"voided unseen {st.voided}")
    if shown:
        notes.append("cards out: " + ", ".join(shown))
    return notes


def render_ansi(st: State) -> str:
    lines = ["     " + "".join(f"{f:<7}" for f in "abcde")]
    for r in range(4, -1, -1):
        cells = []
        for f in range(5):
            s = r * 5 + f
            cells.append(f"{DESIGN_IDS[st.design[s]]}/{st.rot[s]}" if st.design[s] >= 0 else ".")
        lines.append(f"{r + 1}    " + "".join(f"{c:<7}" for c in cells))
    shapes = ", ".join(
        f"{SHAPE_NAMES[k]}@{VERTEX_NAMES[v]}={'-' if o < 0 else f'team{o}'}"
        for (k, v), o in st.shapes.items()
    )
    lines.append(f"shapes: {shapes or 'none'}")
    pairs = st.config.team_play  # 2v2: team 0 = seats 0 and 2 (spec's team A), team 1 = 1 and 3
    for t in range(st.n_teams):
        sup = st.supply[t]
        seats = f" (player_{t}, player_{t + 2})" if pairs else ""
        lines.append(
            f"team {t}{seats}: total {st.totals[t]}, on board {st.marker_points(t)} pt, "
            f"markers left small {sup[0]} big {sup[1]} square {sup[2]}"
        )
    for s in range(st.n):
        team = f" (team {st.team[s]})" if pairs else ""
        lines.append(f"player_{s}{team}: table {_tile(st.tables[s])}, {len(st.hands[s])} card(s)")
    lines.append(
        f"tower {len(st.tower)}, deck {len(st.deck)}, drawn {_tile(st.drawn)}, match {_match_number(st)}"
        + (" (tie-break)" if st.tiebreak else "")
    )
    lines += _notes(st)
    if st.is_terminal():
        lines.append(f"game over: {_result(st)}, returns {list(st.final)}")
    else:
        lines.append(f"player_{st.actor} to act ({PHASES[st.phase]})")
    return "\n".join(lines)


# -------------------------------------------------------------------- image
UNIT = 22  # pixels per tile unit (a tile is 4 units)
TILE = 4 * UNIT
MARGIN = 48
PANEL = 330
SEAT_ROW = 64  # panel pixels per seat
LINE = (40, 40, 60)
DEAD = (150, 150, 150)
TILE_BG = (236, 228, 206)
EMPTY_BG = (214, 208, 192)
PORT_XY = ((1, 4), (3, 4), (4, 3), (4, 1), (3, 0), (1, 0), (0, 1), (0, 3))
CORNER_XY = ((4, 4), (4, 0), (0, 0), (0, 4))
ARC_ANGLES = ((90, 180), (180, 270), (270, 360), (0, 90))  # Pillow angles, clockwise from east


def draw_tile(
    draw: Any, x0: int, y0: int, dr: int, colors: dict[int, Any] | None = None, scale: float = 1.0
) -> None:
    """Draw design-rotation ``dr`` with its top-left pixel at (x0, y0)."""
    u = UNIT * scale
    draw.rectangle([x0, y0, x0 + 4 * u, y0 + 4 * u], fill=TILE_BG, outline=(120, 110, 90))
    done: set[int] = set()
    for p in range(8):
        q = OTHER[dr][p]
        if p in done:
            continue
        done |= {p, q}
        kind = KIND[dr][p]
        color = (colors or {}).get(p, LINE if kind != 5 else DEAD)
        width = max(2, int(4 * scale)) if colors and p in colors else max(1, int(3 * scale))
        (ax, ay), (bx, by) = PORT_XY[p], PORT_XY[q]
        pa = (x0 + ax * u, y0 + (4 - ay) * u)
        pb = (x0 + bx * u, y0 + (4 - by) * u)
        c = STROKE_CORNER[dr][p]
        if kind in (S, B) and c >= 0:
            cx, cy = CORNER_XY[c]
            r = (1 if kind == S else 3) * u
            ccx, ccy = x0 + cx * u, y0 + (4 - cy) * u
            draw.arc([ccx - r, ccy - r, ccx + r, ccy + r], *ARC_ANGLES[c], fill=color, width=width)
        elif kind == Q:
            hx = ax if ay in (0, 4) else bx
            hy = ay if ax in (0, 4) else by
            mid = (x0 + hx * u, y0 + (4 - hy) * u)
            draw.line([pa, mid, pb], fill=color, width=width)
        else:
            draw.line([pa, pb], fill=color, width=width if kind == X else max(1, width - 1))


def _stroke_colors(st: State, sq: int, team_colors: list[Any]) -> dict[int, Any]:
    """Ports of strokes on closed shapes, coloured by owner (grey = unclaimed)."""
    dr = 4 * st.design[sq] + st.rot[sq]
    out: dict[int, Any] = {}
    for p in range(8):
        kind = KIND[dr][p]
        c = STROKE_CORNER[dr][p]
        if kind in SHAPE_OF_KIND and c >= 0:
            owner = st.shapes.get((SHAPE_OF_KIND[kind], VERTEX_OF[sq][c]))
            if owner is not None:
                out[p] = team_colors[owner] if owner >= 0 else (120, 120, 120)
    return out


def _vertex_px(v: int) -> tuple[int, int]:
    return MARGIN + (v % 6) * TILE, MARGIN + (5 - v // 6) * TILE


def _draw_frame(draw: Any, eight: Collection[int] = (), owned: dict[int, Any] | None = None) -> None:
    """The frame's half-shapes: those on a closed 8's line (``eight``) in its colour, those of a
    closed shape in its owner's (``owned``: vertex -> colour, grey when unclaimed), as the
    strokes on the tiles are."""
    owned = owned or {}
    for name, kind in FRAME.items():
        v = VERTEX_OF_NAME[name]
        vx, vy = _vertex_px(v)
        r = UNIT
        if v in eight:
            color, width = EIGHT_COLOR, 4
        elif v in owned:
            color, width = owned[v], 4
        else:
            color, width = (90, 90, 120), 2
        if kind == "s":
            draw.ellipse([vx - r, vy - r, vx + r, vy + r], outline=color, width=width)
        else:
            draw.rectangle([vx - r, vy - r, vx + r, vy + r], outline=color, width=width)
    side = 5 * TILE
    draw.rectangle([MARGIN, MARGIN, MARGIN + side, MARGIN + side], outline=(60, 50, 40), width=3)


def _draw_markers(draw: Any, st: State, team_colors: list[Any]) -> None:
    """One marker per closed shape (hollow = unclaimed); two shapes at one vertex (a square or
    small circle inside a big circle) sit side by side so that neither hides the other."""
    at: dict[int, list[tuple[int, int]]] = {}
    for (shape, v), owner in st.shapes.items():
        at.setdefault(v, []).append((shape, owner))
    for v, here in at.items():
        vx, vy = _vertex_px(v)
        for i, (shape, owner) in enumerate(here):
            cx = vx + (2 * i - len(here) + 1) * 11
            color = team_colors[owner] if owner >= 0 else None
            r = (6, 10, 9)[shape]
            box = [cx - r, vy - r, cx + r, vy + r]
            if shape == 2:
                draw.rectangle(box, fill=color, outline=(20, 20, 20), width=2)
            else:
                draw.ellipse(box, fill=color, outline=(20, 20, 20), width=2)


def render_rgb(st: State) -> np.ndarray:
    from envs.core.draw import INK, SEAT_COLORS, canvas, font, to_array

    side = 5 * TILE + 2 * MARGIN
    img, draw = canvas(side + PANEL, max(side, 120 + SEAT_ROW * st.n))
    team_colors = [SEAT_COLORS[t] for t in range(st.n_teams)]
    xs, eight_ports, eight_frame = closed_eights(st)
    owned = {}  # the frame half of a closed shape at a border vertex
    for v, kind in FRAME_KIND.items():
        owner = st.shapes.get((SHAPE_OF_KIND[kind], v))
        if owner is not None:
            owned[v] = team_colors[owner] if owner >= 0 else (120, 120, 120)
    _draw_frame(draw, eight_frame, owned)
    label = font(13)
    for i in range(5):  # files under the board, ranks left of it, between the frame's half-shapes
        cx, cy = MARGIN + i * TILE + TILE // 2, MARGIN + (4 - i) * TILE + TILE // 2
        draw.text((cx - 4, MARGIN + 5 * TILE + 27), "abcde"[i], fill=(110, 100, 85), font=label)
        draw.text((MARGIN - 40, cy - 8), str(i + 1), fill=(110, 100, 85), font=label)
    for sq in range(25):
        x0 = MARGIN + (sq % 5) * TILE
        y0 = MARGIN + (4 - sq // 5) * TILE
        if st.design[sq] < 0:
            draw.rectangle([x0, y0, x0 + TILE, y0 + TILE], fill=EMPTY_BG, outline=(190, 182, 165))
            draw.text((x0 + 4, y0 + 2), SQUARE_NAMES[sq], fill=(150, 140, 120), font=font(12))
        else:
            colors = _stroke_colors(st, sq, team_colors)
            colors.update(dict.fromkeys(eight_ports.get(sq, ()), EIGHT_COLOR))
            draw_tile(draw, x0, y0, 4 * st.design[sq] + st.rot[sq], colors)
    _draw_markers(draw, st, team_colors)
    _draw_panel(draw, st, side + 10, team_colors, font, INK, xs)
    return to_array(img)


def _wrap(draw: Any, text: str, width: int, fnt: Any) -> list[str]:
    """``text`` cut after its commas into lines no wider than ``width`` pixels."""
    lines: list[str] = []
    for part in text.split(", "):
        if lines and draw.textlength(f"{lines[-1]}, {part}", font=fnt) <= width:
            lines[-1] += f", {part}"
        elif lines:
            lines[-1] += ","
            lines.append(f"   {part}")
        else:
            lines.append(part)
    return lines


def _draw_panel(
    draw: Any, st: State, x: int, team_colors: list[Any], font: Any, ink: Any, xs: list[int]
) -> None:
    y = 14
    if st.is_terminal():
        head = f"game over - {_result(st)}"
    else:
        head = f"player_{st.actor} to act: {PHASES[st.phase]}"
    draw.text((x, y), head, fill=ink, font=font(16))
    y += 24
    tb = " (tie-break, blind)" if st.tiebreak else (" (blind)" if st.blind_match else "")
    draw.text(
        (x, y),
        f"match {_match_number(st)}{tb}   tower {len(st.tower)}   deck {len(st.deck)}",
        fill=ink,
        font=font(13),
    )
    y += 22
    for note in _notes(st, xs):
        for line in _wrap(draw, note, PANEL - 20, font(13)):
            draw.text((x, y), line, fill=ink, font=font(13))
            y += 18
    y += 4
    if st.drawn >= 0:
        draw.text((x, y + 16), f"drawn: {TILE_NAMES[st.drawn]}", fill=ink, font=font(13))
        if st.drawn < 8:
            draw_tile(draw, x + 120, y, 4 * st.drawn, scale=0.5)
        y += 52
    for s in range(st.n):
        t = st.team[s]
        mark = "> " if s == st.actor and not st.is_terminal() else "  "
        draw.rectangle([x, y + 3, x + 12, y + 15], fill=team_colors[t])
        sup = st.supply[t]
        draw.text((x + 18, y), f"{mark}player_{s}  team {t}  total {st.totals[t]}", fill=ink, font=font(14))
        draw.text(
            (x + 18, y + 20),
            f"board {st.marker_points(t)} pt  markers s{sup[0]} b{sup[1]} q{sup[2]}",
            fill=ink,
            font=font(12),
        )
        draw.text(
            (x + 18, y + 38),
            f"cards {len(st.hands[s])}   table {_tile(st.tables[s])}",
            fill=ink,
            font=font(12),
        )
        if 0 <= st.tables[s] < 8:
            draw_tile(draw, x + 250, y, 4 * st.tables[s], scale=0.5)
        y += SEAT_ROW
