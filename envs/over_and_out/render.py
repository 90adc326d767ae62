"""Text and image pictures of an Over and Out position, for spectators.

Both show the public table (round and play count, the rules that change play or rewards, T, L,
direction, piles, the Tip Top cards discarded face up by Topsy Turvy (OAO-24; the current one,
L, is the Tip Top card shown), every seat's chips or its place in the order of
elimination, the dealer, whose turn it is, the result once the game is over)
and the hand of the player to move face up: rendering is for people watching (or debugging) a
game, not an observation — agents get ``observe()``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from envs.over_and_out.cards import TOKENS
from envs.over_and_out.rules import State

LABELS = {"spin-out": "spin", "top-out": "top", "topsy-turvy": "topsy"}


def _direction(state: State) -> str:
    return "clockwise" if state.direction > 0 else "counter-clockwise"


def _result(state: State) -> str:
    """How the game ended: ``player_k wins`` or ``truncated`` (``""`` while it runs)."""
    if state.to_move >= 0:
        return ""
    if state.truncated:
        return "truncated"
    return " ".join(f"player_{seat} wins" for seat in range(state.n) if state.chips[seat])


def _out(state: State, seat: int) -> str:
    """``out (1st out)``: an eliminated seat and its place in the order of elimination (not its
    place in the game: the first out places last)."""
    k = state.out_order.index(seat) + 1
    return f"out ({k}{'st' if k == 1 else 'nd' if k == 2 else 'rd' if k == 3 else 'th'} out)"


def _rules(state: State) -> str:
    """The options that change play or rewards (OAO-42, spec §5)."""
    return f"rules: -10 {state.config.minus10_rule}, rewards {state.config.reward_mode}"


def _discarded(state: State) -> str:
    """The Tip Top cards Topsy Turvy discarded face up (OAO-24), lowest first; L is not one of them."""
    return ", ".join(map(str, state.tiptop_discards)) or "none"


def render_ansi(state: State) -> str:
    """A readable table of the position."""
    over = state.to_move < 0
    head = f"Over and Out - round {state.round}, play {state.plays} of {state.config.max_plays}"
    if over:
        head += f" - game over: {_result(state)}"
    lines = [
        head,
        _rules(state),
        f"total {state.total} / Tip Top {state.tiptop}   direction {_direction(state)}",
        f"draw pile {len(state.draw_pile)}   play pile {sum(state.play_pile)}   "
        f"Tip Top pile {len(state.tiptop_pile)} (discarded: {_discarded(state)})",
    ]
    for seat in range(state.n):
        chips = state.chips[seat]
        mark = ">" if seat == state.to_move else " "
        dealer = " (dealer)" if seat == state.dealer else ""
        status = f"chips {chips} {'o' * chips}" if chips else _out(state, seat)
        line = f"{mark} player_{seat}{dealer}: {status}"
        if seat == state.to_move:
            line += "   hand: " + " ".join(TOKENS[k] for k in state.hands[seat])
        lines.append(line)
    return "\n".join(lines)


def _card(draw: Any, x: float, y: float, w: float, h: float, text: str | None, size: int = 16) -> None:
    """A card face (``text``) or a card back (``None``) with its top-left at (x, y)."""
    from envs.core.draw import INK, font

    d = draw  # Pillow ImageDraw
    if text is None:
        d.rounded_rectangle([x, y, x + w, y + h], radius=4, fill=(40, 70, 140), outline=INK)
        d.rounded_rectangle([x + 3, y + 3, x + w - 3, y + h - 3], radius=3, outline=(150, 180, 230))
        return
    d.rounded_rectangle([x, y, x + w, y + h], radius=5, fill=(255, 255, 255), outline=INK, width=2)
    d.text((x + w / 2, y + h / 2), text, fill=INK, font=font(size), anchor="mm")


def _centre(draw: Any, state: State, cx: float, cy: float) -> None:
    from envs.core.draw import INK, font

    d = draw
    _card(d, cx - 150, cy - 55, 80, 110, str(state.tiptop), size=34)
    d.text((cx - 110, cy + 68), "Tip Top", fill=INK, font=font(13), anchor="mm")
    d.text((cx + 40, cy - 30), f"T {state.total}", fill=INK, font=font(40), anchor="mm")
    d.text((cx + 40, cy + 12), f"limit {state.tiptop}", fill=INK, font=font(16), anchor="mm")
    arrow = "clockwise ->" if state.direction > 0 else "<- counter-clockwise"
    d.text((cx + 40, cy + 36), arrow, fill=INK, font=font(14), anchor="mm")
    d.text(
        (cx + 40, cy + 60), f"Tip Top discarded: {_discarded(state)}", fill=INK, font=font(13), anchor="mm"
    )
    info = (
        f"draw {len(state.draw_pile)} | played {sum(state.play_pile)} | Tip Top pile {len(state.tiptop_pile)}"
    )
    d.text((cx, cy + 90), info, fill=INK, font=font(13), anchor="mm")
    if state.to_move < 0:
        d.text((cx, cy - 80), f"GAME OVER: {_result(state)}", fill=(200, 0, 0), font=font(20), anchor="mm")


def _seat(draw: Any, state: State, seat: int, x: float, y: float) -> None:
    """One seat: name, chips in its colour, its hand as card backs, dealer / turn marks."""
    from envs.core.draw import INK, SEAT_COLORS, font

    d = draw
    colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
    turn = seat == state.to_move
    box = [x - 85, y - 42, x + 85, y + 42]
    d.rounded_rectangle(
        box,
        radius=8,
        fill=(255, 250, 205) if turn else (235, 230, 218),
        outline=colour,
        width=4 if turn else 2,
    )
    name = f"player_{seat}" + (" (dealer)" if seat == state.dealer else "")
    d.text((x, y - 30), name, fill=INK, font=font(14), anchor="mm")
    chips = state.chips[seat]
    if not chips:
        d.text((x, y + 5), _out(state, seat), fill=(120, 120, 120), font=font(18), anchor="mm")
        return
    for i in range(chips):
        cx = x - 70 + 14 * i
        d.ellipse([cx - 6, y - 6, cx + 6, y + 6], fill=colour, outline=INK)
    for i in range(chips):
        _card(d, x + 2 + 19 * i, y - 16, 16, 26, None)
    if turn:
        d.text((x, y + 28), "to play", fill=INK, font=font(12), anchor="mm")


#: the seat boxes' centres lie on an ellipse of these radii round the table's centre (380, 250):
#: the boxes (171 x 85 pixels, their edges drawn) keep 10 px or more from the picture's sides
SEAT_RX, SEAT_RY = 284, 195
#: top edge of the mover's hand and its caption, below every seat box (the lowest seat's box
#: ends at 250 + 195 + 42 = 487)
HAND_TOP = 494


def render_rgb(state: State) -> np.ndarray:
    """``uint8[H, W, 3]`` picture: round and play counter, the Tip Top card (L) and those discarded,
    total, seats around the table, the mover's hand."""
    from envs.core.draw import INK, canvas, font, to_array

    width, height = 760, 620
    img, d = canvas(width, height)
    cx, cy = width / 2, 250
    d.ellipse([cx - 250, cy - 150, cx + 250, cy + 150], fill=(34, 110, 60), outline=INK, width=3)
    d.rounded_rectangle([cx - 175, cy - 95, cx + 175, cy + 105], radius=12, fill=(245, 241, 230))
    _centre(d, state, cx, cy)
    counter = f"round {state.round}, play {state.plays} of {state.config.max_plays}"
    d.text((12, 10), counter, fill=INK, font=font(14))  # above every seat box's left edge
    d.text((12, 30), _rules(state), fill=INK, font=font(12))
    for seat in range(state.n):  # seat 0 at the top, clockwise on screen
        angle = -math.pi / 2 + 2 * math.pi * seat / state.n
        # whole pixels: Pillow versions round a fractional box edge differently
        _seat(d, state, seat, round(cx + SEAT_RX * math.cos(angle)), round(cy + SEAT_RY * math.sin(angle)))
    if state.to_move >= 0:
        hand = state.hands[state.to_move]
        d.text(
            (cx, HAND_TOP),
            f"hand of player_{state.to_move} (shown to spectators)",
            fill=INK,
            font=font(14),
            anchor="mt",
        )
        x0 = cx - (len(hand) * 78 - 8) / 2
        for i, k in enumerate(hand):
            _card(d, x0 + 78 * i, HAND_TOP + 22, 70, 96, LABELS.get(TOKENS[k], TOKENS[k]), size=20)
    return to_array(img)
