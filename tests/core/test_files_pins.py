"""Pins on the files written in one step (``envs.core.files``) and on the plot helpers that
read and name them (``training.plots``): each test holds a behaviour that a planted change to
the code (a mutation round) left every earlier test passing."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envs.core.files import append_line, replacing, write_text

ROOT = Path(__file__).resolve().parents[2]


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_dangling_link_gets_its_target_made(tmp_path: Path) -> None:
    """A link whose target does not exist yet (``latest.json`` set up before the first run):
    the target is written and the link stays, as with a plain ``open('w')``."""
    real = tmp_path / "runs" / "plot.json"
    real.parent.mkdir()
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    write_text(link, "first")
    assert link.is_symlink() and real.read_text() == "first"
    assert _hidden(real.parent) == [] and _hidden(tmp_path) == []


def test_the_temporary_file_of_a_link_lies_beside_its_target(tmp_path: Path) -> None:
    """Beside the target, not the link: a link into another file system (another disk, a
    mount) can then still be replaced in one rename."""
    real = tmp_path / "runs" / "plot.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    with replacing(link) as tmp:
        assert tmp.parent.resolve() == real.parent.resolve() and tmp.name.startswith(".")
        tmp.write_text("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_file_the_user_may_not_write_is_yielded_as_it_is(tmp_path: Path, monkeypatch: Any) -> None:
    """A file that ``os.access`` says the user may not write is not replaced by a new file of
    the user's (the write fails as a plain write fails). As root every file is writable, so
    ``os.access`` is made to say no here; the test without this runs for other users only."""
    target = tmp_path / "p.json"
    target.write_text("old")
    real_access = os.access

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        if Path(path) == target and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    with replacing(target) as got:
        assert got == target
    assert target.read_text() == "old" and _hidden(tmp_path) == []


@pytest.mark.parametrize("code", [errno.EACCES, errno.EPERM, errno.EROFS])
def test_a_folder_that_takes_no_new_file_gets_the_file_written_in_place(
    tmp_path: Path, monkeypatch: Any, code: int
) -> None:
    """The temporary file cannot be made (no write permission on the folder, a read-only
    mount that still lets a file be written): the path itself is yielded and written, the same
    file (inode) as before. ``os.open`` is made to refuse, so this runs as root too."""
    target = tmp_path / "w.json"
    target.write_text("old")
    inode = target.stat().st_ino
    real_open = os.open

    def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.path.basename(os.fspath(path)).startswith(".tmp-"):
            raise OSError(code, os.strerror(code), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    with replacing(target) as got:
        assert got == target
    write_text(target, "new")
    assert target.read_text() == "new" and target.stat().st_ino == inode
    assert _hidden(tmp_path) == []


def test_a_new_file_gets_the_mode_a_plain_write_gives(tmp_path: Path) -> None:
    """No earlier file: the permission bits are what ``Path.write_text`` gives (0o666 less the
    umask), not a narrower mode of the temporary file's own."""
    plain = tmp_path / "plain.json"
    plain.write_text("x")
    new = tmp_path / "new.json"
    write_text(new, "x")
    assert new.stat().st_mode & 0o7777 == plain.stat().st_mode & 0o7777


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files in /proc/self/fd")
def test_no_file_descriptor_is_left_open(tmp_path: Path) -> None:
    """Each write closes the descriptor it opened to make the temporary file: a long run writes
    thousands of files (checkpoints, logs) and would run out of descriptors."""
    write_text(tmp_path / "warm.json", "x")
    before = len(os.listdir("/proc/self/fd"))
    for i in range(20):
        write_text(tmp_path / f"f{i}.json", "x")
    assert len(os.listdir("/proc/self/fd")) < before + 5


def test_an_error_about_the_temporary_file_names_the_users_path(tmp_path: Path) -> None:
    """An ``OSError`` raised in the block (a full disk while the temporary file is written, a
    writer's own rename onto it) names the path the user gave, never the hidden name."""
    out = tmp_path / "table.json"
    with pytest.raises(OSError, match=r"table\.json'$") as info, replacing(out) as tmp:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
    assert info.value.filename == str(out) and ".tmp-" not in str(info.value)
    with pytest.raises(OSError, match=r"table\.json'$") as info, replacing(out) as tmp:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(tmp_path / "src"), None, str(tmp))
    assert info.value.filename2 == str(out) and ".tmp-" not in str(info.value)
    assert _hidden(tmp_path) == [] and not out.exists()


def test_a_failed_rename_names_the_users_path_once(tmp_path: Path) -> None:
    """The temporary file gone when the block ends (a writer that removed it to write its own):
    the rename fails with an error naming the user's path, not the hidden name, and naming it
    once (``filename2`` is not the same path again)."""
    out = tmp_path / "curve.json"
    with pytest.raises(FileNotFoundError) as info, replacing(out) as tmp:
        tmp.unlink()
    assert info.value.filename == str(out) and info.value.filename2 is None
    assert ".tmp-" not in str(info.value)


def test_the_temporary_name_is_full_up_to_255_bytes_and_short_beyond(tmp_path: Path) -> None:
    """``.tmp-<pid>-<name>`` while it fits the usual 255-byte limit for a file name (exactly
    255 included); one byte more and it is ``.tmp-<pid><suffix>``."""
    prefix = f".tmp-{os.getpid()}-"
    fits = "a" * (255 - len(prefix) - len(".json")) + ".json"
    with replacing(tmp_path / fits) as tmp:
        assert tmp.name == prefix + fits and len(tmp.name.encode()) == 255
        tmp.write_text("fits")
    assert (tmp_path / fits).read_text() == "fits"
    over = "a" + fits
    with replacing(tmp_path / over) as tmp:
        assert tmp.name == f".tmp-{os.getpid()}.json"
        tmp.write_text("over")
    assert (tmp_path / over).read_text() == "over" and _hidden(tmp_path) == []


def test_a_long_name_counts_bytes_not_characters(tmp_path: Path) -> None:
    """A name of two-byte characters (253 bytes, 129 characters): the full temporary name would
    pass 255 bytes though not 255 characters, and the file could not be made."""
    name = "\u00e9" * 124 + ".json"
    write_text(tmp_path / name, "wide")
    assert (tmp_path / name).read_text() == "wide" and _hidden(tmp_path) == []


def test_a_long_suffix_is_cut_in_the_short_temporary_name(tmp_path: Path) -> None:
    """A long name that is nearly all suffix (``x.<250 characters>``): the short temporary name
    keeps the last 40 characters of it, so it stays within 255 bytes; a usual suffix is kept
    whole, for writers that read the format from the name."""
    name = "x." + "b" * 250
    with replacing(tmp_path / name) as tmp:
        assert len(tmp.name.encode()) <= 255 and tmp.name.endswith("b" * 40)
        tmp.write_text("long")
    assert (tmp_path / name).read_text() == "long"
    with replacing(tmp_path / ("a" * 250 + ".json")) as tmp:
        assert tmp.suffix == ".json"
        tmp.write_text("json")
    assert _hidden(tmp_path) == []


def test_append_line_to_an_empty_file(tmp_path: Path) -> None:
    """A log that exists but is empty (made by ``touch``, or cut to nothing by a kill): the line
    is written as the first one, with no blank line before it."""
    log = tmp_path / "eval.jsonl"
    log.touch()
    append_line(log, "one")
    assert log.read_text() == "one\n"


def test_non_ascii_text_is_written_as_utf8_under_any_locale(tmp_path: Path) -> None:
    """``write_text`` and ``append_line`` write UTF-8 where the locale's encoding is another
    (here ASCII: the C locale with Python's UTF-8 mode and locale coercion turned off)."""
    out = tmp_path / "names.txt"
    code = (
        "import sys; from envs.core.files import append_line, write_text; "
        "write_text(sys.argv[1], '\\u00e9t\\u00e9\\n'); append_line(sys.argv[1], '\\u00fcber')"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0"}
    env.pop("PYTHONUTF8", None)
    proc = subprocess.run(
        [sys.executable, "-X", "utf8=0", "-c", code, str(out)], env=env, capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert out.read_bytes() == "\u00e9t\u00e9\n\u00fcber\n".encode()


def test_read_evals_passes_over_lines_that_are_no_row(tmp_path: Path) -> None:
    """Lines that parse as JSON but are no evaluation row (a bare number, ``null``, a list, a
    string, an object without ``timesteps``) are passed over like a cut line."""
    from training.plots import read_evals

    rows = [{"timesteps": 100}, 42, None, [1], "timesteps", {}, {"wall_s": 1.0}, {"timesteps": 200}]
    (tmp_path / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read_evals(tmp_path) == [{"timesteps": 100}, {"timesteps": 200}]


def test_read_evals_of_a_run_without_evaluations(tmp_path: Path) -> None:
    """No ``eval.jsonl`` yet (a run stopped before its first evaluation): no rows, no error."""
    from training.plots import read_evals

    assert read_evals(tmp_path) == []


def test_a_plot_name_with_a_suffix_keeps_it(tmp_path: Path) -> None:
    """``--curve run.svg`` is an SVG: only a name without a suffix gets ``.png``."""
    pytest.importorskip("matplotlib")
    from training.plots import learning_curve

    (tmp_path / "run").mkdir()
    append_line(tmp_path / "run" / "eval.jsonl", json.dumps({"timesteps": 0}))
    out = learning_curve(tmp_path / "run", tmp_path / "curve.svg")
    assert out == tmp_path / "curve.svg"
    assert b"<svg" in out.read_bytes()[:1000]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.svg", "run"]


def test_a_tournament_plot_named_without_a_suffix_is_a_png(tmp_path: Path) -> None:
    """As the learning curve: matplotlib adds ``.png`` to such a name, so the name is given it
    before the temporary file is named (else the rename found no file)."""
    pytest.importorskip("matplotlib")
    from training.plots import plot_tournament
    from training.tournament import PairResult

    pairs = [PairResult("a", "b", games=4, wins=3, losses=1)]
    res = {
        "env": "toy", "params": {}, "games_per_pairing": 4,
        "pairs": [p.summary() for p in pairs], "elo": {"a": 1100.0, "b": 900.0},
    }  # fmt: skip
    out = plot_tournament(res, tmp_path / "table")
    assert out == tmp_path / "table.png"
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.png"]


def test_the_error_of_a_vanished_temporary_file_reads_as_a_plain_one(tmp_path: Path) -> None:
    """The message names the user's path once, with no ``-> None`` left of a second name."""
    target = tmp_path / "x.json"
    with pytest.raises(FileNotFoundError) as info, replacing(target) as tmp:
        tmp.unlink()
    assert str(info.value) == f"[Errno 2] No such file or directory: {str(target)!r}"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_a_file_of_another_owner_is_written_in_place(tmp_path: Path) -> None:
    """A file the user may write but does not own (a team's shared results): a new file would
    change its owner (or fail to replace it in a sticky folder such as /tmp), so it is written
    in place and keeps its owner, as a plain write does."""
    target = tmp_path / "team.json"
    target.write_text("old")
    os.chown(target, 65534, 65534)
    write_text(target, "new")
    assert target.read_text() == "new" and (target.stat().st_uid, target.stat().st_gid) == (65534, 65534)
