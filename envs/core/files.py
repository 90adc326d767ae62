"""Files written in one step: a kill or a Ctrl-C while one is written leaves the earlier file
(or none), never a cut-short one that a later command reads as whole."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` (hidden, ending as ``path`` ends, so writers that
    read the format from the name still do); when the block ends normally it is renamed over
    ``path`` in one step (``os.replace``), and on any exception, Ctrl-C included, it is removed.

    A symbolic link is followed (its target is replaced, the link stays); a path that exists and
    is no regular file (``/dev/stdout``, a named pipe) is written in place. An error of the
    temporary file names ``path``."""
    path = Path(path)
    try:
        in_place = path.exists() and not path.is_file()
    except OSError:
        in_place = False
    if in_place:
        yield path
        return
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    tmp = target.with_name(f".tmp-{target.name}")
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        if exc.filename is not None and str(exc.filename) == str(tmp):
            exc.filename = str(path)
        raise
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``Path(path).write_text(text, encoding="utf-8")``, in one step (:func:`replacing`)."""
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def append_line(path: str | os.PathLike[str], line: str) -> None:
    """Append ``line`` and a newline to a log (a file of lines, or ``/dev/stdout``). After a
    last line that a kill cut short (no newline at the end), the new line starts a line of its
    own instead of joining it."""
    path = Path(path)
    cut = False
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            cut = f.read(1) != b"\n"
    with path.open("a", encoding="utf-8") as f:
        f.write(("\n" if cut else "") + line + "\n")
