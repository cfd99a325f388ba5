"""How Glob splits one big walk across several single-threaded rg processes.

Glob must stat every match to order them newest first, and that costs a core while rg walks.
rg's own parallel walker spends noticeably more CPU than a single-threaded walk of the same
tree, so on a small machine the stat-ing and rg fight for the cores.  Splitting the top-level
folders between a few ``rg --threads=1`` processes walks the tree in parallel at the
single-threaded cost (``benchmarks/glob.py``: 0.7x plain ``rg --files`` for a selective
pattern, and the newest-first order of 10,000 matches within 1.5x).

The plan is exact: process 0 walks ``.`` minus the folders given to the others (``--glob
!/name/``, which comes last and so wins over the user's glob), the others walk their folders
given as ``./name``; rg matches globs relative to its cwd (the root), so every file is matched
by the same glob as in one walk, and listed by exactly one process.  Only real folders (not
symlinks: rg would follow a symlink given on its command line) with plain names are moved.
"""

from __future__ import annotations

import os

MAX_WAYS = 4
MAX_SPLIT_FOLDERS = 256  # beyond this, process 0's exclusion globs would cost more than they save
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+@")


def walk_plan(root: str | os.PathLike[str], pattern: str, ways: int | None = None) -> list[list[str]]:
    """rg argument lists (run with cwd=root) that together list the files ``pattern`` matches."""
    common = ["--files", "--hidden", "--no-ignore", "--no-messages", "--glob", "!.git", "--glob", pattern]
    ways = min(os.cpu_count() or 1, MAX_WAYS) if ways is None else ways
    names = _split_folders(root) if ways > 1 else []
    if len(names) < 2:
        return [[*common, "--", "."]]  # nothing to split: rg's own walker
    groups = [names[i::ways] for i in range(ways)]
    moved = [group for group in groups[1:] if group]
    first = [*common, "--threads=1", *(f"--glob=!/{name}/" for group in moved for name in group), "--", "."]
    return [first, *([*common, "--threads=1", "--", *(f"./{name}" for name in group)] for group in moved)]


def _split_folders(root: str | os.PathLike[str]) -> list[str]:
    try:
        with os.scandir(root) as entries:
            names = sorted(
                e.name for e in entries
                if e.name != ".git" and _plain(e.name) and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []
    return names if len(names) <= MAX_SPLIT_FOLDERS else []


def _plain(name: str) -> bool:
    return name[0] != "-" and all(c in _NAME_CHARS for c in name)
