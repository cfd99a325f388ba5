"""What the sandbox hides and keeps read-only for the permission rules, and whether it can.

The base layout (``bwrap.py``) makes everything outside the working directories read-only.  The
rules say more, and a command the sandbox runs without asking computes its paths at run time,
where the Bash analysis cannot see them (``python -c "open('.env')"``).  So the sandbox enforces
the rules itself:

* each existing path a *read* rule covers (``Read`` deny and ask rules, ``sandbox.filesystem.
  denyRead``, ``sandbox.credentials.files``) is bound over by an empty, unreadable stand-in, a
  folder wholesale, and so is every other hard link of such a file;
* each existing path a *write* rule covers (``Edit`` deny and ask rules, ``sandbox.filesystem.
  denyWrite``) inside a writable folder is bound read-only;
* each folder between a writable root and a bound path is bound onto itself: a mount point
  cannot be renamed, so ``mv .git g && mkdir .git`` cannot put a fresh, writable copy in place.

Fail closed: what cannot be enforced is a *gap* (a walk past its budget, a hard link outside
what was walked, a write rule that may match a file a command creates), and a command with gaps
is not run unasked.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..permissions.path_patterns import PathPattern, fold_case
from ..permissions.paths import is_within

PathRules = Sequence[tuple[str, Sequence[PathPattern]]]  # (rule text, its patterns)
WALK_BUDGET = 200_000  # directory entries looked at per command, over all walks
MAX_MOUNTS = 4_000
_GLOB = re.compile(r"[*?\[\\]")
_NOT_BOUND = ("/proc", "/dev", "/sys")  # the sandbox mounts its own


@dataclass(frozen=True)
class Masks:
    """Paths to hide (real path → is a folder), paths to keep read-only, and the gaps."""

    hidden: tuple[tuple[str, bool], ...] = ()
    read_only: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()


def compute_masks(
    read_rules: PathRules, write_rules: PathRules, writable: Sequence[str], budget: int = WALK_BUDGET
) -> Masks:
    """The masks for these rules; ``writable``: the real paths of the folders bound writable."""
    walk = _Walk(budget, budget)
    for start, group in _groups(read_rules).items():
        walk.run(start, group)
    read_only: dict[str, None] = {}
    for text, patterns in write_rules:
        for p in patterns:
            _write_cover(text, p, writable, read_only, walk)
    walk.find_other_links(writable)
    if len(walk.hidden) + len(read_only) > MAX_MOUNTS:
        walk.gap(f"the rules cover more than {MAX_MOUNTS:,} existing paths")
    return Masks(tuple(walk.hidden.items()), tuple(read_only), tuple(walk.gaps))


def find_matches(rules: PathRules, budget: int = WALK_BUDGET) -> tuple[dict[str, bool], tuple[str, ...]]:
    """The existing paths ``rules`` match (real path → is a folder; not below a matched folder),
    and the gaps (a walk past its budget)."""
    walk = _Walk(budget, budget)
    for start, group in _groups(rules).items():
        walk.run(start, group)
    return walk.hidden, tuple(walk.gaps)


@dataclass
class _Walk:
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
        match = _Matcher(group, memo.names)
        real_start = os.path.realpath(start)
        inside = match.hit(start, os.path.isdir(real_start), match.paths)
        if inside:
            self.hide(real_start)
        stack = [(start, real_start, frozenset({real_start}), inside, match.paths)]
        while stack:
            lexical, real, chain, inside, paths = stack.pop()
            if inside:  # below a hidden folder: only other names of its files matter
                if not self._inside(lexical, real, chain, stack):
                    self.gap(f"the folders {_rules(group)} reaches hold more than {self.limit:,} entries")
                    return
                continue
            found = memo.outcome(lexical, real, paths, match)
            if found is None:
                continue
            self.budget -= found.count
            if self.budget < 0:
                self.gap(f"the folders {_rules(group)} reaches hold more than {self.limit:,} entries")
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

    def find_other_links(self, writable: Sequence[str]) -> None:
        """Hide the other names of hidden multiply-linked files; a name not found is a gap."""
        if not self.links:
            return
        inodes = {ino for _dev, ino in self.links}
        stack = [w for w in writable if os.path.isdir(w)]
        seen: set[str] = set()
        while stack and self.budget >= 0:
            folder = stack.pop()
            if folder in seen:
                continue
            seen.add(folder)
            try:
                with os.scandir(folder) as found:
                    entries = list(found)
            except OSError:
                continue
            self.budget -= len(entries)
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.inode() in inodes and entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        key = (st.st_dev, st.st_ino)
                        if key in self.links:
                            self.names[key].add(entry.path)
                            self.hidden[entry.path] = False
                except OSError:
                    continue
        for key, count in self.links.items():
            if len(self.names[key]) < count:
                some = sorted(self.names[key])[0]
                self.gap(f"{some!r} has a hard link outside the folders the sandbox can check")


@dataclass(frozen=True)
class _Outcome:
    """One folder's walk: its entry count, the entries that match, and the folders to go into."""

    count: int
    hits: tuple[tuple[str, str, bool], ...]  # (lexical path, real path, is a folder)
    children: tuple[tuple[str, str, tuple[PathPattern, ...]], ...]  # (lexical, real, patterns still possible)
    linked: bool  # has symlinks: their targets may change while the folder does not


def _scan(lexical: str, real: str, paths: tuple[PathPattern, ...], match: _Matcher) -> _Outcome | None:
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
        self.names: dict[tuple[str, bool], tuple[str, ...]] = {}  # _Matcher's memo of names
        self.lock = threading.Lock()

    def outcome(
        self, lexical: str, real: str, paths: tuple[PathPattern, ...], match: _Matcher
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


class _Matcher:
    """One walk's patterns.  Those matching by a name alone answer from a set (a plain name,
    ``.env``) or from a memo of names kept with the walk's ``_Memo`` (``*.pem``)."""

    def __init__(self, group: list[tuple[str, PathPattern]], memo: dict[tuple[str, bool], tuple[str, ...]]) -> None:
        by_name = [p for _t, p in group if _by_name(p)]
        self.literal: dict[str, list[tuple[str, PathPattern]]] = {}  # folded name → (root, pattern)
        for p in by_name:
            if _plain_name(p):
                self.literal.setdefault(fold_case(_bare(p.text)), []).append((p.root, p))
        self.names = [p for p in by_name if not _plain_name(p)]
        self.paths = tuple(p for _t, p in group if not _by_name(p))
        self.name_roots = tuple(dict.fromkeys(p.root for p in by_name))
        self.memo = memo
        # a test of a path pattern's last component: a match's name must pass it
        self.lasts = {id(p): _last_component(p) for p in self.paths}

    def hit(self, path: str, is_dir: bool, paths: tuple[PathPattern, ...], name: str | None = None) -> bool:
        """Does a name pattern or one of ``paths`` match ``path`` (a folder when ``is_dir``)?"""
        if self.literal:
            base = os.path.basename(path) if name is None else name
            for root, p in self.literal.get(fold_case(base), ()):
                if (p.fold or base == _bare(p.text)) and _below(path, root):
                    return True
        if self.names:
            key = (os.path.basename(path) if name is None else name, is_dir)
            roots = self.memo.get(key)
            if roots is None:  # the roots below which a name pattern matches this name
                roots = self.memo[key] = tuple(
                    p.root for p in self.names if _matches(p, p.root.rstrip(os.sep) + os.sep + key[0], is_dir)
                )
            if roots and any(_below(path, r) for r in roots):
                return True
        if not paths:
            return False
        base = os.path.basename(path) if name is None else name
        for p in paths:
            last = self.lasts.get(id(p))
            if (last is None or last(base)) and _matches(p, path, is_dir):
                return True
        return False

    def below(self, folder: str, paths: tuple[PathPattern, ...]) -> tuple[PathPattern, ...] | None:
        """Of ``paths``, those that may match below ``folder``; None when no pattern may."""
        kept = tuple(p for p in paths if p.may_match_below(folder))
        if kept or any(_below(folder, r) for r in self.name_roots):
            return kept
        return None if not any(p.may_match_below(folder) for p in self.names) else kept


def _write_cover(
    text: str, p: PathPattern, writable: Sequence[str], read_only: dict[str, None], walk: _Walk
) -> None:
    """Keep what ``p`` covers read-only: the literal path it names (wholesale), else the gap."""
    literal, exact = _literal(p)
    real = os.path.realpath(literal)
    if not any(is_within(real, w) or is_within(w, real) for w in writable):
        return  # outside every writable folder: read-only already, nothing can be created there
    if exact and os.path.lexists(real):
        inside = [w for w in writable if is_within(real, w)]
        # the whole rule is one existing path: keep it read-only, or every writable folder below it
        for path in [real] if inside else [w for w in writable if is_within(w, real)]:
            read_only[path] = None
        return
    if exact:
        walk.gap(f"the rule {text} names {literal!r}, which does not exist yet and a command could create")
        return
    walk.gap(f"the rule {text} may match a file a command creates")
    for start, group in _groups([(text, [p])]).items():
        _bind_existing(start, group, writable, read_only, walk)


def _bind_existing(
    start: str, group: list[tuple[str, PathPattern]], writable: Sequence[str], read_only: dict[str, None], walk: _Walk
) -> None:
    """Best effort when the user approves anyway: existing matches inside writable folders."""
    probe = _Walk(walk.budget, walk.limit)
    probe.run(start, group)
    walk.budget = probe.budget
    for real in probe.hidden:
        if any(is_within(real, w) for w in writable):
            read_only[real] = None


def _literal(p: PathPattern) -> tuple[str, bool]:
    """The literal head of ``p`` as a path, and whether ``p`` covers exactly it and what is below."""
    base = p.root.rstrip(os.sep) + p.anchor
    rest = p.text
    for lead in ("//", "~/", "./"):
        if rest.startswith(lead):
            rest = rest[len(lead):]
            break
    rest = rest.lstrip("/")
    exact = bool(p.anchor.strip("/")) and not _GLOB.search(rest.removesuffix("/**").rstrip("/"))
    return (base.rstrip(os.sep) or os.sep), exact


def _groups(rules: PathRules) -> dict[str, list[tuple[str, PathPattern]]]:
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


def _matches(p: PathPattern, path: str, is_dir: bool) -> bool:
    return p.matches(path) or (is_dir and p.matches(path + os.sep))


def _by_name(p: PathPattern) -> bool:
    """Does ``p`` match by a file's name alone, at any depth (``.env``, ``*.pem``, ``**/.env``)?"""
    text = _bare(p.text)
    if not text or text.startswith(("/", "~", "./")):
        return False  # anchored
    return "/" not in text.rstrip("/")


def _last_component(p: PathPattern) -> Callable[[str], bool] | None:
    """A quick test a name must pass to match ``p``'s last component (``**/site-packages/*.pth``:
    ``*.pth``), or None when the component says nothing about a name (``**``, negations).  Only
    literal text and ``*`` are tested this way, on ASCII names; anything else passes."""
    text = p.text.rstrip("/")
    last = text.rsplit("/", 1)[-1]
    if not last or "**" in last or text.startswith(("!", "#")) or last != last.strip() or not last.isascii():
        return None
    if _GLOB.search(last.replace("*", "")):
        return None  # ?, [...] or an escape: left to the pattern itself
    body = ".*".join(re.escape(part) for part in last.split("*"))
    regex = re.compile(body, re.IGNORECASE | re.DOTALL if p.fold else re.DOTALL)
    return lambda name: not name.isascii() or regex.fullmatch(name) is not None


def _bare(text: str) -> str:
    """A name pattern without its leading ``**/`` (which changes nothing in gitignore)."""
    while text.startswith("**/"):
        text = text[3:]
    return text


def _plain_name(p: PathPattern) -> bool:
    """A name pattern with no wildcard, escape, negation or folder-only slash (``.env``, ``.git``)."""
    text = _bare(p.text)
    return bool(text) and not _GLOB.search(text) and not text.startswith(("!", "#")) and "/" not in text and (
        text == text.strip()
    )


def _below(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)


def _rules(group: Iterable[tuple[str, PathPattern]]) -> str:
    texts = list(dict.fromkeys(t for t, _p in group))
    return ", ".join(texts[:3]) + (" …" if len(texts) > 3 else "")
