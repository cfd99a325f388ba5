"""Recursive reads (``grep -r``, ``rg``, ``diff -r``): do they walk into files a Read rule denies?

``cat .env`` is checked file by file; ``grep -r KEY .`` names no file, yet reads ``.env``.  For
such commands every folder they may walk is compared with the Read deny rules; a rule that can
match below it makes the line ask.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_words import Word

_RECURSIVE_FLAGS = {
    "grep": ("r", "R", "--recursive", "--dereference-recursive"),
    "egrep": ("r", "R", "--recursive", "--dereference-recursive"),
    "fgrep": ("r", "R", "--recursive", "--dereference-recursive"),
    "diff": ("r", "--recursive"),
}
_ALWAYS_RECURSIVE = frozenset({"rg"})


def walked_folders(words: Sequence[Word], cwd: str) -> list[str]:
    """Folders the command may read recursively (absolute), or [] when it does not recurse."""
    program = words[0].literal if words else None
    if program is None or not _recurses(program, words[1:]):
        return []
    args = [w.literal for w in words[1:] if w.literal is not None and not w.literal.startswith("-")]
    folders = [os.path.normpath(os.path.join(cwd, a)) for a in args]
    existing = [f for f in folders if os.path.isdir(f)]
    if not any(os.path.exists(f) for f in folders[1:]):
        existing.append(cwd)  # no path operand: the current folder is searched
    return [os.path.realpath(f) for f in existing]


def _recurses(program: str, args: Sequence[Word]) -> bool:
    if program in _ALWAYS_RECURSIVE:
        return True
    flags = _RECURSIVE_FLAGS.get(program)
    if flags is None:
        return False
    for word in args:
        value = word.literal or ""
        if value.startswith("--"):
            if value.split("=", 1)[0] in flags:
                return True
        elif value.startswith("-") and any(f in value[1:] for f in flags if len(f) == 1):
            return True
    return False
