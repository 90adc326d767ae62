"""Files written in one step: a kill or a Ctrl-C while one is written leaves the earlier file
(or none), never a cut-short one that a later command reads as whole."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` (hidden, ending as ``path`` ends, so writers that
    read the format from the name still do); when the block ends normally it is renamed over
    ``path`` in one step (``os.replace``), and on any exception, Ctrl-C included, it is removed.
    The file keeps the earlier one's permission bits.

    Yielded as it is, and written in place as a plain ``open`` would: a path that exists and is
    no regular file (``/dev/stdout``, a named pipe), a file the user may not write (the write then
    fails as it always did), a file of another owner, a file with other hard links, and a file in
    a folder where no new file can be made. A symbolic link is followed (its target is replaced,
    the link stays). An error of the temporary file names ``path``."""
    path = Path(path)
    if path.is_symlink():
        with contextlib.suppress(FileNotFoundError):  # a dangling link: its target is created
            os.stat(path)  # a loop of links raises here, naming the path given
        target = Path(os.path.realpath(path))
    else:
        target = path
    try:
        st: os.stat_result | None = os.stat(target)
    except OSError:
        st = None
    in_place = st is not None and (
        not stat.S_ISREG(st.st_mode)
        or st.st_nlink > 1
        or not os.access(target, os.W_OK)
        # another's file: a new one would change its owner (Windows has no owners here: no geteuid)
        or (hasattr(os, "geteuid") and st.st_uid != os.geteuid())
    )
    tmp = target.with_name(_temporary_name(target.name))
    if not in_place:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise _rename_in(exc, tmp, path) from None
            in_place = True  # no new file here: write the file itself
        else:
            os.close(fd)
            if st is not None:
                os.chmod(tmp, stat.S_IMODE(st.st_mode))
    if in_place:
        yield path
        return
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        raise _rename_in(exc, tmp, path) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _temporary_name(name: str) -> str:
    """``.tmp-<pid>-<name>``, or ``.tmp-<pid><suffix>`` where that would pass the usual limit
    of 255 bytes for a file name."""
    full = f".tmp-{os.getpid()}-{name}"
    if len(full.encode()) <= 255:
        return full
    return f".tmp-{os.getpid()}{Path(name).suffix[-40:]}"


def _rename_in(exc: OSError, tmp: Path, path: Path) -> OSError:
    """The error, told about ``path`` where it names the temporary file (a new exception of
    the same type when it does: ``filename2`` cannot be unset once given)."""
    first, second = (
        str(path) if n is not None and str(n) == str(tmp) else n for n in (exc.filename, exc.filename2)
    )
    if (first, second) == (exc.filename, exc.filename2) or exc.errno is None:
        return exc
    if second is not None and str(second) == str(first):
        second = None
    # (errno, strerror, filename, winerror, filename2): a filename2 of None prints nothing
    return type(exc)(exc.errno, exc.strerror, first, None, second).with_traceback(exc.__traceback__)


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
