"""What the kernel itself wrote with ``atomic.py``: the content of each file, and the folders it
created for them.

A sandboxed command may not create protected paths (``sandbox/protected.py`` renames the new
ones when it ends).  The kernel may: the user clicks *Always allow* while a command runs, and
``.claude/settings.local.json`` is written, perhaps in a new ``.claude``.  ``only_ours`` tells
such a path from one the command made: everything in it is a folder the kernel created or a
file holding exactly the bytes the kernel wrote there.  A file the command added, changed or
replaced (or a link in place of one) makes the whole path the command's.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterable

_LIMIT = 4096  # paths remembered (the oldest are forgotten: then a path counts as not ours)
_LARGEST = 1 << 20  # bytes: a bigger file is not remembered
_FOLDER = ("folder", 0, b"")
_records: OrderedDict[str, tuple[str, int, bytes]] = OrderedDict()
_lock = threading.Lock()


def remember(path: str | os.PathLike[str], data: bytes, created: Iterable[str | os.PathLike[str]] = ()) -> None:
    """The kernel wrote ``data`` to ``path``, creating the folders ``created`` for it."""
    entries = [(os.path.realpath(folder), _FOLDER) for folder in created]
    real = os.path.realpath(path)
    if len(data) <= _LARGEST:
        entries.append((real, ("file", len(data), hashlib.sha256(data).digest())))
    with _lock:
        if len(data) > _LARGEST:
            _records.pop(real, None)
        for key, record in entries:
            _records[key] = record
            _records.move_to_end(key)
        while len(_records) > _LIMIT:
            _records.popitem(last=False)


def only_ours(path: str, budget: int = 1000) -> bool:
    """Is everything at ``path`` (a real path) the kernel's own writing, unchanged?"""
    stack = [path]
    while stack:
        budget -= 1
        current = stack.pop()
        with _lock:
            record = _records.get(current)
        if record is None or budget < 0:
            return False
        try:
            st = os.lstat(current)
            if record is _FOLDER:
                if not stat.S_ISDIR(st.st_mode):
                    return False
                stack += [os.path.join(current, name) for name in os.listdir(current)]
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size != record[1] or _digest(current) != record[2]:
                return False
        except OSError:
            return False
    return True


def _digest(path: str) -> bytes:
    """The file's SHA-256, opened without following a link or waiting on a pipe put there since."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return hashlib.sha256(fh.read(_LARGEST + 1)).digest()
