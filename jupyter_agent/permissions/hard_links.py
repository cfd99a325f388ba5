"""Hard links to denied files: a second name of a denied file's inode is that file.

A deny rule names paths, but a hard link (``ln .env notes.txt``) reaches the same bytes under a
name no rule matches.  Only a file with several links can be one, so the tools ask here only
for such files: the folders the Read deny rules reach are walked once, comparing inode numbers
(which come free with each directory entry), and a candidate is confirmed by ``lstat`` and the
rule's pattern.  The walk is bounded; past the bound every multiply-linked file asked about
counts as denied (fail closed).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from .path_patterns import PathPattern

if TYPE_CHECKING:
    from .compiled import PathScope

HARD_LINK_WALK = 200_000  # directory entries looked at to find the other names of a hard link


def denied_links(
    stats: Iterable[os.stat_result],
    scope: PathScope,
    rules: tuple[tuple[str, tuple[PathPattern, ...]], ...] | None = None,
) -> dict[tuple[int, int], str]:
    """For the multiply-linked regular files among ``stats``: which are a denied file, by rule.

    Only a file with several links can be one; then the folders the deny rules reach are walked
    once (inode numbers come free with each directory entry), at most ``HARD_LINK_WALK``
    entries.  Past that the answer is unknown and every such file counts as denied: fail closed.
    """
    wanted = {(s.st_dev, s.st_ino) for s in stats if s.st_nlink > 1 and stat.S_ISREG(s.st_mode)}
    found: dict[tuple[int, int], str] = {}
    if not wanted:
        return found
    inodes = {ino for _dev, ino in wanted}
    budget = [HARD_LINK_WALK]
    for text, patterns in scope.read_deny if rules is None else rules:
        for p in patterns:
            for key in _links_in(p.root.rstrip(os.sep) + p.anchor, p, inodes, budget):
                if key in wanted:
                    found.setdefault(key, text)
            if budget[0] < 0:
                return {key: found.get(key, text) for key in wanted}
    return found


def link_rule(
    st: os.stat_result, scope: PathScope, rules: tuple[tuple[str, tuple[PathPattern, ...]], ...] | None = None
) -> str | None:
    """The deny rule (``rules``, the Read deny rules by default) naming another link of the
    inode ``st`` describes, or None."""
    if st.st_nlink < 2:
        return None
    return denied_links([st], scope, rules).get((st.st_dev, st.st_ino))


def path_link_rule(
    real: str, scope: PathScope, rules: tuple[tuple[str, tuple[PathPattern, ...]], ...] | None = None
) -> str | None:
    """``link_rule`` for the file at the real path ``real`` (None when nothing is there)."""
    try:
        st = os.stat(real)
    except OSError:
        return None  # nothing there: no other name
    return link_rule(st, scope, rules)


# a shell write lands in the file itself, under each of its names (a write by rename does not)
LINKED_WRITE = ("is one file under {names} names (hard links): a write in place lands in it under every name, "
                "and another may be a protected path (a package's code in site-packages, linked from uv's or "
                "conda's cache)")


def link_count(real: str) -> int:
    """How many names the regular file at the real path ``real`` has (1: not there, or not a
    regular file)."""
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        return 1
    return st.st_nlink if stat.S_ISREG(st.st_mode) else 1


def _links_in(base: str, pattern: PathPattern, inodes: set[int], budget: list[int]) -> Iterator[tuple[int, int]]:
    """(dev, ino) of the files at or below ``base`` whose inode is in ``inodes`` and that ``pattern`` denies."""
    stack = [base.rstrip(os.sep) or os.sep]
    if not os.path.isdir(stack[0]):
        yield from _denied_key(stack[0], pattern)
        return
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    budget[0] -= 1
                    if budget[0] < 0:
                        return
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.inode() in inodes:
                        yield from _denied_key(entry.path, pattern)
        except OSError:
            continue


def _denied_key(candidate: str, pattern: PathPattern) -> Iterator[tuple[int, int]]:
    try:
        other = os.lstat(candidate)
    except OSError:
        return
    if stat.S_ISREG(other.st_mode) and pattern.matches(candidate):
        yield other.st_dev, other.st_ino
