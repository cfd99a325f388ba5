"""Protected paths at any depth of the writable folders: read-only while a sandboxed command
runs, and disarmed when a command creates a new one.  Besides the protected names (``.git``,
``.claude``, ``.bashrc`` …) these are what Python runs at start-up in an environment kept in the
project (``sitecustomize.py``, a ``.pth`` file in ``site-packages``: the kernel may be that
environment's) and Jupyter's data and configuration folders there (``share/jupyter``).

What a protected path configures runs *outside* the sandbox later: git runs a nested
repository's ``core.fsmonitor`` and hooks on the project's next ``git status`` once the index
has a gitlink to it (and JupyterLab's git panel runs ``git status`` on its own), editors read
``.vscode``, shells ``.bashrc``, agents ``.claude`` and ``.mcp.json``.  So before a sandboxed
command every existing protected file or folder in the writable folders, at any depth, is found
(``walk.py``, remembered by ctime) and kept read-only like those at the top; after it,
one the command created is renamed to ``NAME.blocked-by-sandbox`` and the result says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from ..permissions.compiled import PathRules
from ..permissions.path_patterns import compile_pattern
from ..permissions.paths import PROTECTED_DIRS, PROTECTED_FILES, STARTUP_FILES
from .walk import find_matches

NAMES = tuple(sorted(PROTECTED_DIRS | PROTECTED_FILES | STARTUP_FILES))
# what Python and Jupyter run or read at start-up, in an environment inside the project (.venv)
STARTUP_PATTERNS = ("**/site-packages/*.pth", "**/dist-packages/*.pth", "**/share/jupyter", "**/etc/jupyter")
SUFFIX = ".blocked-by-sandbox"
PROTECTED_GAP = "the protected paths of the working folders: "
WALK = 1_000_000  # entries: every command walks the working folders (remembered by ctime)


def protected_rules(writable: Iterable[str]) -> PathRules:
    """Every protected name, at any depth below each writable folder (compared case-folded)."""
    return tuple(
        (name, compile_pattern(name, root, root, fold=True)) for root in writable for name in (*NAMES, *STARTUP_PATTERNS)
    )


def existing_protected(writable: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The protected paths now in ``writable`` (real paths; not those inside another), and the gaps."""
    found, gaps = find_matches(protected_rules(writable), WALK)
    return frozenset(found), tuple(PROTECTED_GAP + g for g in gaps)


def disarm(before: frozenset[str], writable: Sequence[str]) -> str | None:
    """Rename the protected paths that appeared since ``before``; a note for the result, or None."""
    after, gaps = existing_protected(writable)
    new = sorted(p for p in after - before if not any(p.startswith(b + os.sep) for b in before))
    moved, failed = [], []
    for path in new:
        target = _free_name(path + SUFFIX)
        try:
            os.rename(path, target)
            moved.append((path, target))
        except OSError as exc:
            failed.append(f"{path} ({exc.strerror})")
    parts = []
    if moved:
        shown = "; ".join(f"{a} → {os.path.basename(b)}" for a, b in moved[:10])
        parts.append(
            "The command created protected paths, whose settings programs outside the sandbox would "
            f"run (git hooks and core.fsmonitor, editor and shell settings), so they were renamed: {shown}. "
            "If one is wanted, ask the user to rename it back."
        )
    if failed:
        parts.append("Protected paths the command created could not be renamed: " + "; ".join(failed[:10]))
    if gaps:
        parts.append("Not every folder could be checked for protected paths the command created.")
    return " ".join(parts) or None


def _free_name(path: str) -> str:
    candidate, n = path, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = f"{path}-{n}"
    return candidate
