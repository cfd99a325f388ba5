"""Keep Read-denied files out of search results (Grep content and file lists, Glob).

A search over a folder must not show what ``Read(...)`` deny rules forbid reading.  A result is
dropped when its path (as listed, or its real path) matches a deny rule, and, for content
(``hard_links``), when it is a hard link to a denied file.  The rules are looked for below the
search folder as written *and* as its real path: a symlinked search root (``secdir`` →
``secrets``) must not hide the rules of the folder it really is.  Without any Read deny rule
nothing is filtered and nothing is paid.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..core.context import ToolUseContext
from ..permissions.filesystem import path_scope, read_denied, read_deny_rule_below
from ..permissions.hard_links import denied_links

IsDenied = Callable[[str], bool]
_LINE_NO = re.compile(r"^(\d+)([:-])")


class DenyFilter:
    """``filter(path) -> denied?`` for paths relative to (or below) the search folder, cached."""

    def __init__(self, folder: Path, context: ToolUseContext, *, names: bool, hard_links: bool) -> None:
        self.folder, self.context = folder, context
        self.names, self.hard_links = names, hard_links
        self.cache: dict[str, bool] = {}
        self.linked: dict[tuple[int, int], str] = {}  # hard links to denied files, by (dev, ino)
        self.looked: set[tuple[int, int]] = set()  # the inodes already looked up

    def prime(self, paths: Iterable[str]) -> None:
        """Look up the hard links among ``paths`` at once (one walk of the denied folders)."""
        if not self.hard_links:
            return
        stats = []
        for p in set(paths):
            try:
                stats.append(os.stat(self.folder / p))
            except OSError:
                continue
        self.linked.update(denied_links(stats, path_scope(self.context)))
        self.looked.update((s.st_dev, s.st_ino) for s in stats)

    def __call__(self, path: str) -> bool:
        found = self.cache.get(path)
        if found is None:
            found = self.cache[path] = self._denied(path)
        return found

    def _denied(self, path: str) -> bool:
        full = str(self.folder / path)
        if self.names and read_denied(full, self.context):
            return True
        if not self.hard_links:
            return False
        try:
            st = os.stat(full)
        except OSError:
            return True  # vanished or unreadable since the search printed it: fail closed
        if st.st_nlink <= 1:
            return False
        key = (st.st_dev, st.st_ino)
        if key not in self.looked:
            self.linked.update(denied_links([st], path_scope(self.context)))
            self.looked.add(key)
        return key in self.linked


def denied_filter(root: Path, context: ToolUseContext, *, hard_links: bool = True) -> DenyFilter | None:
    """A filter for results found below ``root``, or None when no Read deny rule exists at all.

    ``hard_links``: also drop hard links to denied files (for content; Glob lists names only).
    """
    if not path_scope(context).read_deny:
        return None
    folder = root if root.is_dir() else root.parent
    real = os.path.realpath(folder)
    names = (read_deny_rule_below(str(folder), context) is not None
             or read_deny_rule_below(real, context) is not None or read_denied(str(root), context))
    if not names and not hard_links:
        return None
    return DenyFilter(folder, context, names=names, hard_links=hard_links)


def drop_denied_paths(paths: Iterable[str], is_denied: DenyFilter) -> list[str]:
    paths = list(paths)
    is_denied.prime(paths)
    return [p for p in paths if not is_denied(p)]


def drop_denied_records(lines: Iterable[str], is_denied: DenyFilter) -> list[str]:
    """Lines of ``rg --null`` output (``path\\0rest``) without denied files, path separator restored."""
    lines = list(lines)
    is_denied.prime({line.partition("\0")[0] for line in lines if "\0" in line})
    out: list[str] = []
    for line in lines:
        path, nul, rest = line.partition("\0")
        if not nul:  # "--" between context groups
            if out and out[-1] != "--":
                out.append(line)
            continue
        if is_denied(path):
            continue
        m = _LINE_NO.match(rest)
        out.append(f"{path}{m.group(2) if m else ':'}{rest}")
    while out and out[-1] == "--":
        out.pop()
    return out
