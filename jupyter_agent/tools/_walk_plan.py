"""How Glob walks a tree: several single-threaded ``rg --sortr modified`` processes, split by folder.

Glob answers with the newest matches first, so every match must be stat-ed.  rg can do that
itself (``--sortr modified`` stats the matches in C and prints them newest first), but sorting
makes rg walk with one thread.  So the walk is split by folder between a few rg processes that
run at once: each lists its share newest first, and the newest ``n`` of the whole tree are
among the first ``n`` of each share (``newest.newest_of_sorted`` merges them).

The split is exact: process 0 walks ``.`` minus the folders given to the others
(``--glob !/path/``, which comes last and so wins over the user's glob), the others walk their
folders given as ``./path``; rg matches globs relative to its cwd (the root), so every file is
matched by the same glob as in one walk, and listed by exactly one process.  Only real folders
(not symlinks: rg follows a symlink named on its command line) with plain names are handed out.
When the root has few folders, their subfolders are handed out instead (``split_folders``).
"""

from __future__ import annotations

import os

from ._rg import SKIP_GLOBS, SKIPPED_DIRS

MAX_WAYS = 4
MAX_SPLIT_FOLDERS = 256  # beyond this, process 0's exclusion globs would cost more than they save
MAX_DEPTH = 3
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@")
SORT_NEWEST = ("--sortr", "modified")


def walk_plan(
    root: str | os.PathLike[str], pattern: str, ways: int | None = None, extra: tuple[str, ...] = SORT_NEWEST,
) -> list[list[str]]:
    """rg argument lists (run with cwd=root) that together list the files ``pattern`` matches."""
    common = ["--files", "--hidden", "--no-ignore", "--no-messages", *extra, *SKIP_GLOBS,
              "--glob", pattern]
    ways = min(os.cpu_count() or 1, MAX_WAYS) if ways is None else ways
    folders = split_folders(root, ways) if ways > 1 else []
    if len(folders) < 2:
        return [[*common, "--", "."]]
    groups = [folders[i::ways] for i in range(ways)]
    moved = [group for group in groups[1:] if group]
    first = [*common, "--threads=1", *(f"--glob=!/{path}/" for group in moved for path in group), "--", "."]
    return [first, *([*common, "--threads=1", "--", *(f"./{path}" for path in group)] for group in moved)]


def split_folders(root: str | os.PathLike[str], ways: int = 2) -> list[str]:
    """Folders (relative to ``root``) to hand out, enough of them to share the walk evenly.

    The root's folders, or, when there are few (``src/``, ``tests/``: one of them may hold
    most of the tree), the folders one or two levels further down; a folder without
    subfolders is handed out whole.
    """
    level = _plain_folders(str(root), "")
    for _ in range(MAX_DEPTH - 1):
        if len(level) >= 4 * ways:
            break
        deeper: list[str] = []
        for folder in level:
            deeper.extend(_plain_folders(os.path.join(root, folder), folder + "/") or [folder])
        if deeper == level or len(deeper) > MAX_SPLIT_FOLDERS:
            break
        level = deeper
    return level if len(level) <= MAX_SPLIT_FOLDERS else []


def _plain_folders(path: str, prefix: str) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return sorted(
                prefix + e.name for e in entries
                if e.name not in SKIPPED_DIRS and _plain(e.name) and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []


def _plain(name: str) -> bool:
    return name[0] != "-" and all(c in _NAME_CHARS for c in name)
