"""A program named by a path that is another program in disguise.

Deny and ask rules name programs (``Bash(rm:*)``), and ``/bin/rm x`` is matched as ``rm x``.
``./bin/ls x`` ran ``rm`` under that deny rule when ``bin/ls`` was a symbolic link to
``/bin/rm``, a hard link of it or a copy of it: the file is found as the program a rule names
(the one on PATH, compared by its real path, its inode, then its bytes), and the command is
matched again with that program's name.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from functools import lru_cache

from .bash_words import Word

_MAX_COMPARED = 64 * 1024 * 1024  # a copy bigger than this is not compared byte for byte


def disguised_forms(forms: Iterable[tuple[Word, ...]], cwds: list[str], names: frozenset[str]
                    ) -> list[tuple[tuple[Word, ...], str]]:
    """``(form as the program it is, the path it was given as)`` for each form whose program,
    given as a path (``./bin/ls``), is the program on PATH of one of ``names`` under another
    name."""
    found: list[tuple[tuple[Word, ...], str]] = []
    for form in forms:
        program = form[0].literal if form else None
        if not program or "/" not in program:
            continue
        given = program.rpartition("/")[2]
        for cwd in dict.fromkeys(cwds):
            name = disguised_as(os.path.join(cwd, os.path.expanduser(program)), names)
            if name is not None and name != given:
                found.append(((Word(name), *form[1:]), program))
                break
    return found


def disguised_as(path: str, names: frozenset[str]) -> str | None:
    """The name among ``names`` whose program on PATH the file at ``path`` is (a link to it, a
    hard link or a copy), else None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    real = os.path.realpath(path)
    if os.path.basename(real) in names:
        return os.path.basename(real)
    for name in sorted(names):
        program = _on_path(name, os.environ.get("PATH", os.defpath))
        if program is None:
            continue
        other, size, ino, dev = program
        if (info.st_ino, info.st_dev) == (ino, dev):
            return name
        if info.st_size == size and size <= _MAX_COMPARED and _same_bytes(real, other, info.st_mtime_ns, size):
            return name
    return None


@lru_cache(maxsize=512)
def _on_path(name: str, search: str) -> tuple[str, int, int, int] | None:
    """Where ``name`` is found on ``search`` (real path, size, inode, device)."""
    found = shutil.which(name, path=search)
    if found is None:
        return None
    try:
        real = os.path.realpath(found)
        info = os.stat(real)
    except OSError:
        return None
    return real, info.st_size, info.st_ino, info.st_dev


@lru_cache(maxsize=512)
def _same_bytes(path: str, other: str, _mtime: int, _size: int) -> bool:
    try:
        with open(path, "rb") as one, open(other, "rb") as two:
            while True:
                a, b = one.read(1 << 20), two.read(1 << 20)
                if a != b:
                    return False
                if not a:
                    return True
    except OSError:
        return False
