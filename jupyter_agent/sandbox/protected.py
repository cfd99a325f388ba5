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
one the command created is renamed to ``NAME.blocked-by-sandbox`` and the result says so
(not one the kernel itself wrote meanwhile, unchanged: ``core/own_writes.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from ..core.own_writes import only_ours
from ..permissions.compiled import PathRules
from ..permissions.path_patterns import compile_pattern
from ..permissions.paths import PROTECTED_BELOW_PATTERNS, PROTECTED_DIRS, PROTECTED_FILES, STARTUP_FILES
from .walk import find_matches

NAMES = tuple(sorted(PROTECTED_DIRS | PROTECTED_FILES | STARTUP_FILES))
# what Python and Jupyter run or read at start-up, in an environment inside the project (.venv)
STARTUP_PATTERNS = ("**/site-packages/*.pth", "**/dist-packages/*.pth", "**/share/jupyter", "**/etc/jupyter",
                    *PROTECTED_BELOW_PATTERNS)
SUFFIX = ".blocked-by-sandbox"
PROTECTED_GAP = "the protected paths of the working folders: "
WALK = 1_000_000  # entries: every command walks the working folders (remembered by ctime)
# in a repository's folder, and in each submodule's and worktree's inside it (.git/modules/…,
# nested for nested submodules; .git/worktrees/…): where git finds programs to run.  commondir
# points git at another folder for its settings, config.worktree adds settings.  The rest of
# .git stays writable, so commits work.
GIT_SETTINGS = frozenset({"hooks", "config", "config.worktree", "commondir"})
_GIT_WALK = 20_000


def protected_rules(writable: Iterable[str]) -> PathRules:
    """Every protected name, at any depth below each writable folder (compared case-folded)."""
    return tuple(
        (name, compile_pattern(name, root, root, fold=True)) for root in writable for name in (*NAMES, *STARTUP_PATTERNS)
    )


def existing_protected(writable: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The protected paths now in ``writable`` (real paths; not those inside another), and the gaps."""
    found, gaps = find_matches(protected_rules(writable), WALK)
    return frozenset(found), tuple(PROTECTED_GAP + g for g in gaps)


def git_settings(git: str) -> list[str]:
    """The existing ``GIT_SETTINGS`` entries of the repository folder ``git`` and of the
    submodules and worktrees inside it; past the walk's budget, those two folders whole."""
    found = [os.path.join(git, name) for name in sorted(GIT_SETTINGS) if os.path.lexists(os.path.join(git, name))]
    stack = [os.path.join(git, "modules"), os.path.join(git, "worktrees")]
    budget = _GIT_WALK
    while stack and budget > 0:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    budget -= 1
                    if entry.is_symlink():
                        continue
                    if entry.name in GIT_SETTINGS:
                        found.append(entry.path)
                    elif entry.is_dir() and entry.name not in ("objects", "refs", "logs"):
                        stack.append(entry.path)
        except OSError:
            continue
    if stack:  # too big to look through: all of it
        found += [p for p in (os.path.join(git, "modules"), os.path.join(git, "worktrees")) if os.path.isdir(p)]
    return found


def repository_settings(protected: Iterable[str], writable: Iterable[str]) -> frozenset[str]:
    """``git_settings`` of every repository folder among ``protected`` and at the top of ``writable``."""
    gits = {p for p in protected if os.path.basename(p).lower() == ".git" and os.path.isdir(p)}
    gits |= {os.path.join(w, ".git") for w in writable if os.path.isdir(os.path.join(w, ".git"))}
    return frozenset(p for git in sorted(gits) for p in git_settings(git))


def disarm(before: frozenset[str], writable: Sequence[str], git_before: frozenset[str] = frozenset()) -> str | None:
    """Rename the protected paths, and the settings inside repository folders, that appeared
    since ``before`` / ``git_before``; a note for the result, or None."""
    after, gaps = existing_protected(writable)
    new = sorted(p for p in after - before if not any(p.startswith(b + os.sep) for b in before))
    inside = repository_settings(after & before, writable) - git_before
    new += sorted(p for p in inside if not any(p.startswith(b + os.sep) for b in git_before))
    new = [p for p in new if not only_ours(p)]  # the kernel's own (an "Always allow" saved meanwhile)
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
