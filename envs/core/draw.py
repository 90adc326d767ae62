"""Small drawing helpers on Pillow for the ``rgb_array`` renderers.

Pillow is the ``render`` extra: importing this module without it raises an
``ImportError`` that says how to install it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from envs.core.files import replacing

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("rgb_array rendering needs Pillow: pip install 'eightfold[render]'") from exc

Color = tuple[int, int, int]

BACKGROUND: Color = (245, 241, 230)
INK: Color = (30, 30, 30)
SEAT_COLORS: tuple[Color, ...] = (
    (214, 48, 49),
    (9, 132, 227),
    (0, 148, 50),
    (253, 150, 0),
    (108, 92, 231),
    (232, 67, 147),
    (0, 168, 168),
    (99, 110, 114),
)


def _luminance(c: Color) -> float:
    """WCAG relative luminance of an sRGB colour."""

    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _readable(c: Color, against: Color = BACKGROUND, least: float = 4.5) -> Color:
    """``c`` darkened in steps of 5% until its contrast with ``against`` reaches ``least``."""
    scale = 1.0
    out = c
    while contrast(out, against) < least and scale > 0:
        scale -= 0.05
        out = (round(c[0] * scale), round(c[1] * scale), round(c[2] * scale))
    return out


#: the seat colours for text on the background: the same hues, darkened where they read
#: poorly (contrast below 4.5:1, WCAG's floor for body text; seat 3's orange was 1.95:1)
TEXT_COLORS: tuple[Color, ...] = tuple(_readable(c) for c in SEAT_COLORS)


@lru_cache(maxsize=16)
def font(size: int = 14) -> Any:
    """Pillow's bundled scalable font at ``size`` px (no system fonts needed)."""
    return ImageFont.load_default(size=size)


def canvas(width: int, height: int, color: Color = BACKGROUND) -> tuple[Any, Any]:
    """A new RGB image and its drawing context."""
    img = Image.new("RGB", (width, height), color)
    return img, ImageDraw.Draw(img)


def to_array(img: Any) -> np.ndarray:
    """``uint8[H, W, 3]`` of a Pillow image."""
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()


def _check_frame(frame: Any, what: str) -> None:
    """``ValueError`` naming ``what`` unless ``frame`` is an image array: ``uint8`` of shape
    ``[H, W, 3]`` (an ``rgb_array`` frame), ``[H, W, 4]`` (RGBA) or ``[H, W]`` (grey), as PIL
    writes them (``None`` is what ``env.render()`` returns without ``render_mode='rgb_array'``)."""
    if (
        isinstance(frame, np.ndarray)
        and frame.dtype == np.uint8
        and (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (3, 4)))
        and frame.shape[0] > 0
        and frame.shape[1] > 0
    ):
        return
    got = f"{frame.dtype} {frame.shape}" if isinstance(frame, np.ndarray) else type(frame).__name__
    raise ValueError(
        f"{what} needs a uint8 [H, W, 3] frame (env.render() with render_mode='rgb_array', "
        f"or game.render_rgb(state); [H, W, 4] and [H, W] are written too), got {got}"
    )


def save_gif(frames: list[np.ndarray], path: str, seconds: float = 0.6, last_seconds: float = 3.0) -> None:
    """Write ``rgb_array`` frames (a list or other iterable of ``uint8[H, W, 3]`` arrays, else
    ``ValueError``; see :func:`_check_frame`) as a
    looping GIF animation, ``seconds`` per frame and ``last_seconds`` on the last (frames of
    other sizes are padded with the background)."""
    from pathlib import Path

    if isinstance(frames, (np.ndarray, str, bytes)) or not isinstance(frames, Iterable):
        raise ValueError(f"save_gif: frames must be a list of rgb_array frames, got {type(frames).__name__}")
    frames = list(frames)
    if not frames:
        raise ValueError("save_gif needs at least one frame")
    for i, f in enumerate(frames):
        _check_frame(f, f"save_gif: frames[{i}]")
    h = max(f.shape[0] for f in frames)
    w = max(f.shape[1] for f in frames)
    images = []
    for f in frames:
        canvas = Image.new("RGB", (w, h), BACKGROUND)
        canvas.paste(Image.fromarray(f), (0, 0))
        images.append(canvas.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    durations = [round(seconds * 1000)] * (len(images) - 1) + [round(last_seconds * 1000)]
    with replacing(path) as tmp:  # a Ctrl-C while frames are written leaves the earlier file
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)


def save_png(array: np.ndarray, path: str) -> None:
    """Write an ``rgb_array`` frame (``uint8[H, W, 3]``; RGBA and grey too, else ``ValueError``:
    :func:`_check_frame`) as PNG (missing parent folders are created)."""
    from pathlib import Path

    _check_frame(array, "save_png")

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:
        Image.fromarray(array).save(tmp, format="PNG")  # PNG whatever the file name ends in
