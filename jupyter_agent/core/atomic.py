"""Atomic file writes: temp file in the same folder, fsync, rename, fsync the folder.

A crash at any point leaves either the old file or the new one, never a mix.  The file's mode
is kept, and a symlink is written through (its target is replaced, the link stays a link).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def resolve_write_target(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` really changes: a symlink's final target."""
    p = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` atomically; create parent folders.  Returns the real target."""
    target = resolve_write_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)
    return target


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", mode: int | None = None
) -> Path:
    return atomic_write_bytes(path, text.encode(encoding), mode=mode)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    # Reading the umask with os.umask() briefly changes it for every thread; /proc does not.
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022
