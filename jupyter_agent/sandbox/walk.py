"""Walking the folders a set of path patterns reaches, remembered folder by folder.

``Walk.run`` lists what the patterns match below a start folder (a matched folder wholesale,
symlinked folders followed but not in cycles), within a budget of directory entries; past it,
the walk records a *gap*.  A folder's outcome is kept while its ctime stays the same
(``_Memo``), so walking an unchanged project again costs one ``stat`` per folder.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..permissions.compiled import PathRules
from ..permissions.path_patterns import PathPattern
from ..permissions.paths import is_within
from .match import Matcher

WALK_BUDGET = 200_000  # directory entries looked at per command, over all walks
_NOT_BOUND = ("/proc", "/dev", "/sys")  # the sandbox mounts its own


def find_matches(rules: PathRules, budget: int = WALK_BUDGET) -> tuple[dict[str, bool], tuple[str, ...]]:
    """The existing paths ``rules`` match (real path → is a folder; not below a matched folder),
    and the gaps (a walk past its budget)."""
    walk = Walk(budget, budget)
    for start, group in groups(rules).items():
        walk.run(start, group)
    return walk.hidden, tuple(walk.gaps)


@dataclass
class Walk:
    """One command's walks: what they matched (``hidden``), the multiply-linked files among
    them and their names (``masks.py`` looks for the rest), the budget left and the gaps."""

    budget: int
    limit: int  # the budget at the start (for messages)
    hidden: dict[str, bool] = field(default_factory=dict)
    gaps: list[str] = field(default_factory=list)
    links: dict[tuple[int, int], int] = field(default_factory=dict)  # hidden multiply-linked files
    names: dict[tuple[int, int], set[str]] = field(default_factory=dict)  # their names found so far

    def gap(self, text: str) -> None:
        if text not in self.gaps:
            self.gaps.append(text)

    def run(self, start: str, group: list[tuple[str, PathPattern]]) -> None:
        """Walk ``start`` (following symlinked folders, not in cycles), hiding what ``group`` matches."""
        memo = _memo_for(group)
        match = Matcher(group, memo.names)
        real_start = os.path.realpath(start)
        inside = match.hit(start, os.path.isdir(real_start), match.paths)
        if inside:
            self.hide(real_start)
        stack = [(start, real_start, frozenset({real_start}), inside, match.paths)]
        while stack:
            lexical, real, chain, inside, paths = stack.pop()
            if inside:  # below a hidden folder: only other names of its files matter
                if not self._inside(lexical, real, chain, stack):
                    self.gap(f"the folders {rule_texts(group)} reaches hold more than {self.limit:,} entries")
                    return
                continue
            found = memo.outcome(lexical, real, paths, match)
            if found is None:
                continue
            self.budget -= found.count
            if self.budget < 0:
                self.gap(f"the folders {rule_texts(group)} reaches hold more than {self.limit:,} entries")
                return
            for path, entry_real, is_dir in found.hits:
                if os.path.exists(entry_real):
                    self.hide(entry_real)
                    if is_dir and entry_real not in chain:
                        stack.append((path, entry_real, chain | {entry_real}, True, ()))
            for path, entry_real, below in found.children:
                if entry_real not in chain:
                    stack.append((path, entry_real, chain | {entry_real}, False, below))

    def _inside(self, lexical: str, real: str, chain: frozenset[str], stack: list) -> bool:
        """Note the multiply-linked files of one folder below a hidden one; False past the budget."""
        try:
            with os.scandir(real) as found:
                entries = list(found)
        except OSError:
            return True
        self.budget -= len(entries)
        if self.budget < 0:
            return False
        head = lexical.rstrip(os.sep) + os.sep
        for entry in entries:
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((head + entry.name, entry.path, chain, True, ()))
                else:
                    self.note_links(entry.path)
            except OSError:
                continue
        return True

    def hide(self, real: str) -> None:
        if real.startswith(_NOT_BOUND) and any(is_within(real, r) for r in _NOT_BOUND):
            return
        try:
            st = os.lstat(real)
        except OSError:
            return
        self.hidden[real] = stat.S_ISDIR(st.st_mode)
        self._note(real, st)

    def note_links(self, real: str) -> None:
        try:
            st = os.lstat(real)
        except OSError:
            return
        self._note(real, st)

    def _note(self, real: str, st: os.stat_result) -> None:
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            key = (st.st_dev, st.st_ino)
            self.links[key] = st.st_nlink
            self.names.setdefault(key, set()).add(real)


@dataclass(frozen=True)
class _Outcome:
    """One folder's walk: its entry count, the entries that match, and the folders to go into."""

    count: int
    hits: tuple[tuple[str, str, bool], ...]  # (lexical path, real path, is a folder)
    children: tuple[tuple[str, str, tuple[PathPattern, ...]], ...]  # (lexical, real, patterns still possible)
    linked: bool  # has symlinks: their targets may change while the folder does not


def _scan(lexical: str, real: str, paths: tuple[PathPattern, ...], match: Matcher) -> _Outcome | None:
    try:
        with os.scandir(real) as found:
            entries = list(found)
    except OSError:
        return None
    head = lexical.rstrip(os.sep) + os.sep
    hits, children, linked = [], [], False
    for entry in entries:
        name = entry.name
        path, entry_real = head + name, entry.path
        try:
            is_link = entry.is_symlink()
            if is_link:
                linked = True
                entry_real = os.path.realpath(entry_real)
                is_dir = os.path.isdir(entry_real)
            else:
                is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if match.hit(path, is_dir, paths, name) or (entry_real != path and match.hit(entry_real, is_dir, match.paths)):
            hits.append((path, entry_real, is_dir))
        elif is_dir:
            below = match.below(path, paths)
            if below is not None:
                children.append((path, entry_real, below))
    return _Outcome(len(entries), tuple(hits), tuple(children), linked)


class _Memo:
    """Folder outcomes of one set of patterns, kept while the folder is unchanged.

    A folder's ctime changes whenever an entry is added, removed or renamed (and cannot be set
    back, unlike its mtime), so an outcome is reused only while the ctime is the one seen when
    it was computed, and only if that ctime was already two seconds old then (a change within the
    same timestamp tick would not show).  Folders holding symlinks are always read again.
    """

    def __init__(self, patterns: tuple[PathPattern, ...]) -> None:
        self.patterns = patterns  # keeps the ids in the key alive
        self.folders: dict[tuple[str, str], tuple[tuple[int, int, int], _Outcome]] = {}
        self.names: dict[tuple[str, bool], tuple[str, ...]] = {}  # Matcher's memo of names
        self.lock = threading.Lock()

    def outcome(
        self, lexical: str, real: str, paths: tuple[PathPattern, ...], match: Matcher
    ) -> _Outcome | None:
        """The outcome of walking one folder (``paths``: a function of ``lexical``)."""
        try:
            st = os.stat(real)
        except OSError:
            return None
        stamp = (st.st_dev, st.st_ino, st.st_ctime_ns)
        kept = self.folders.get((lexical, real))
        if kept is not None and kept[0] == stamp:
            return kept[1]
        settled = st.st_ctime_ns < time.time_ns() - 2_000_000_000
        found = _scan(lexical, real, paths, match)
        if found is not None and settled and not found.linked and len(self.folders) < WALK_BUDGET:
            with self.lock:
                self.folders[(lexical, real)] = (stamp, found)
        return found


_MEMOS: dict[tuple[int, ...], _Memo] = {}
_MEMOS_LOCK = threading.Lock()


def _memo_for(group: list[tuple[str, PathPattern]]) -> _Memo:
    patterns = tuple(p for _t, p in group)
    key = tuple(id(p) for p in patterns)
    with _MEMOS_LOCK:
        memo = _MEMOS.get(key)
        if memo is None or memo.patterns != patterns:
            if len(_MEMOS) >= 32:
                _MEMOS.pop(next(iter(_MEMOS)))
            memo = _MEMOS[key] = _Memo(patterns)
        return memo


def groups(rules: PathRules) -> dict[str, list[tuple[str, PathPattern]]]:
    """Patterns by the folder their walk starts in: the deepest existing folder above their head."""
    groups: dict[str, list[tuple[str, PathPattern]]] = {}
    for text, patterns in rules:
        for p in patterns:
            head = p.root.rstrip(os.sep) + p.anchor
            start = head.rstrip(os.sep) if head.endswith(os.sep) else os.path.dirname(head)
            start = start or os.sep
            while not os.path.isdir(start) and start != os.sep:
                start = os.path.dirname(start)
            groups.setdefault(start, []).append((text, p))
    return groups


def rule_texts(group: Iterable[tuple[str, PathPattern]]) -> str:
    texts = list(dict.fromkeys(t for t, _p in group))
    return ", ".join(texts[:3]) + (" …" if len(texts) > 3 else "")
