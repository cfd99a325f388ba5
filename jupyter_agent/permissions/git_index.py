"""The paths a git repository tracks, read from its index file (``.git/index``) without git.

``git diff``, ``git show`` and ``git log -p`` print the contents of tracked files, so a file a
``Read`` deny rule covers leaks through them once it is tracked (a committed ``.env``).  The
permission check needs the tracked paths on every such decision, so it reads the index itself
(formats 2, 3 and 4, SHA-1 and SHA-256 object names) and keeps the answer until the file
changes.  ``None`` means "cannot tell" (a split or sparse index, an unknown version, a broken
file): the caller then asks.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Callable
from functools import lru_cache

from .paths import open_regular, open_regular_text

_STAT_BYTES = 40  # ctime, mtime (seconds + nanoseconds), dev, ino, mode, uid, gid, size
_EXTENDED = 0x4000  # flags bit: two more flag bytes follow (version 3 and later)
_UNSUPPORTED = (b"link", b"sdir")  # split index, sparse index: entries live elsewhere


def git_dir(top: str) -> str | None:
    """The repository folder of the work tree ``top`` (``.git`` or where a ``.git`` file points)."""
    dot_git = os.path.join(top, ".git")
    try:
        mode = os.stat(dot_git).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return dot_git
    return gitfile_target(dot_git, top)


def gitfile_target(dot_git: str, top: str) -> str | None:
    """Where a ``.git`` file's ``gitdir:`` line points (normalized), or None when unreadable."""
    try:
        with open_regular_text(dot_git, encoding="utf-8") as f:
            line = f.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.normpath(os.path.join(top, line[len("gitdir:"):].strip()))


def tracked_paths(repo: str) -> tuple[str, ...] | None:
    """The paths (relative to the work tree, ``/``-separated) in ``repo``'s index; ``()`` when
    there is no index yet; ``None`` when it cannot be read."""
    index = os.path.join(repo, "index")
    try:
        st = os.stat(index)
    except FileNotFoundError:
        return ()
    except OSError:
        return None
    return _read_index(index, st.st_ino, st.st_mtime_ns, st.st_size, _oid_size(repo))


def _oid_size(repo: str) -> int:
    """20 bytes per object name, 32 in a SHA-256 repository (``extensions.objectFormat``)."""
    try:
        with open_regular(os.path.join(repo, "config")) as f:
            config = f.read().lower()
    except OSError:
        return 20
    return 32 if b"sha256" in config and b"objectformat" in config else 20


@lru_cache(maxsize=16)
def _read_index(path: str, _ino: int, _mtime: int, _size: int, oid_size: int) -> tuple[str, ...] | None:
    try:
        with open_regular(path) as f:
            data = f.read()
    except OSError:
        return None
    return parse_index(data, oid_size)


def parse_index(data: bytes, oid_size: int = 20) -> tuple[str, ...] | None:
    """Entry paths of an index file's bytes; ``None`` for a format this reader does not know
    or a file cut short."""
    try:
        return _parse(data, oid_size)
    except (ValueError, struct.error, IndexError):
        return None


Stamp = tuple[int, int, int]  # what the index recorded of a file: mtime seconds, nanoseconds, size


def tracked_stamps(
    repo: str, wanted: Callable[[str], bool], ids: dict[str, str] | None = None
) -> tuple[dict[str, Stamp], int] | None:
    """For the tracked paths ``wanted`` accepts, the stat data the index recorded (git's own
    test for "changed since it was staged"), and the index file's mtime in nanoseconds (a file
    changed in the same instant may look unchanged: the caller treats that as changed).
    ``({}, 0)`` without an index; None when it cannot be read.  ``ids``, when given, gets each
    such path's object id (hex) too."""
    index = os.path.join(repo, "index")
    try:
        with open_regular(index) as f:
            data = f.read()
        mtime = os.stat(index).st_mtime_ns
    except FileNotFoundError:
        return {}, 0
    except OSError:
        return None
    found: dict[str, Stamp] = {}
    try:
        if _parse(data, _oid_size(repo), wanted, found, ids) is None:
            return None
    except (ValueError, struct.error, IndexError):
        return None
    return found, mtime


def _parse(
    data: bytes, oid_size: int, wanted: Callable[[str], bool] | None = None, stamps: dict[str, Stamp] | None = None,
    ids: dict[str, str] | None = None,
) -> tuple[str, ...] | None:
    if data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    pos, previous, paths = 12, b"", []
    fixed = _STAT_BYTES + oid_size
    for _ in range(count):
        start = pos
        (flags,) = struct.unpack_from(">H", data, pos + fixed)
        pos += fixed + 2
        if flags & _EXTENDED:
            if version < 3:
                return None
            pos += 2
        if version == 4:
            strip, pos = _varint(data, pos)
            end = data.index(b"\0", pos)
            if strip > len(previous):
                return None
            name = previous[: len(previous) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = data.index(b"\0", pos)
            name = data[pos:end]
            pos = start + ((end - start) // 8 + 1) * 8  # 1 to 8 NULs pad the entry
        previous = name
        path = name.decode("utf-8", "surrogateescape")
        paths.append(path)
        if wanted is not None and stamps is not None and wanted(path):
            seconds, nanoseconds = struct.unpack_from(">II", data, start + 8)
            (size,) = struct.unpack_from(">I", data, start + 36)
            stamps[path] = (seconds, nanoseconds, size)
            if ids is not None:
                ids[path] = data[start + _STAT_BYTES:start + fixed].hex()
    if pos > len(data) or _has_unsupported_extension(data, pos, len(data) - oid_size):
        return None
    return tuple(paths)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """Git's offset encoding: 7 bits a byte, each continuation adds one before shifting."""
    byte = data[pos]
    value = byte & 0x7F
    pos += 1
    while byte & 0x80:
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
        pos += 1
    return value, pos


def _has_unsupported_extension(data: bytes, pos: int, end: int) -> bool:
    while pos + 8 <= end:
        signature = data[pos:pos + 4]
        (size,) = struct.unpack_from(">I", data, pos + 4)
        if signature in _UNSUPPORTED:
            return True
        pos += 8 + size
    return pos != end


__all__ = ["git_dir", "gitfile_target", "parse_index", "tracked_paths"]
