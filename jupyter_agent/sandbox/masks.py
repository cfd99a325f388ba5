"""What the sandbox hides and keeps read-only for the permission rules, and whether it can.

The base layout (``bwrap.py``) makes everything outside the working directories read-only.  The
rules say more, and a command the sandbox runs without asking computes its paths at run time,
where the Bash analysis cannot see them (``python -c "open('.env')"``).  So the sandbox enforces
the rules itself:

* each existing path a *read* rule covers (``Read`` deny and ask rules, ``sandbox.filesystem.
  denyRead``, ``sandbox.credentials.files``) is bound over by an empty, unreadable stand-in, a
  folder wholesale, and so is every other hard link of such a file;
* what ``denyRead`` alone hides is *carved* around the working directories and the paths
  ``sandbox.filesystem.allowRead`` names: a hidden folder holding one is replaced by its other
  entries, down the way to it (``denyRead: ["~/"]`` with the project in ``~/work/proj``).  The
  permission rules and ``credentials.files`` are never carved;
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
from collections.abc import Sequence
from dataclasses import dataclass

from ..permissions.compiled import PathRules
from ..permissions.path_patterns import PathPattern
from ..permissions.paths import is_within
from .match import GLOB
from .walk import WALK_BUDGET, Walk, groups

MAX_MOUNTS = 4_000


@dataclass(frozen=True)
class Masks:
    """Paths to hide (real path → is a folder), paths to keep read-only, and the gaps."""

    hidden: tuple[tuple[str, bool], ...] = ()
    read_only: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()


def compute_masks(
    read_rules: PathRules,
    write_rules: PathRules,
    writable: Sequence[str],
    budget: int = WALK_BUDGET,
    open_rules: PathRules = (),
    reopened: Sequence[str] = (),
) -> Masks:
    """The masks for these rules; ``writable``: the real paths of the folders bound writable.
    ``open_rules`` (``denyRead``) hide too, carved around ``writable`` and ``reopened`` (the
    real paths ``allowRead`` names)."""
    walk = Walk(budget, budget)
    for start, group in groups(read_rules).items():
        walk.run(start, group)
    if open_rules:
        fixed = dict(walk.hidden)
        for start, group in groups(open_rules).items():
            walk.run(start, group)
        _carve(walk, fixed, [k for k in dict.fromkeys([*writable, *reopened]) if os.path.lexists(k)])
    read_only: dict[str, None] = {}
    for text, patterns in write_rules:
        for p in patterns:
            _write_cover(text, p, writable, read_only, walk)
    _find_other_links(walk, writable)
    if len(walk.hidden) + len(read_only) > MAX_MOUNTS:
        walk.gap(f"the rules cover more than {MAX_MOUNTS:,} existing paths")
    return Masks(tuple(walk.hidden.items()), tuple(read_only), tuple(walk.gaps))


def _carve(walk: Walk, fixed: dict[str, bool], keep: list[str]) -> None:
    """Show ``keep`` again where only the open rules hid it (``fixed``: what the others hid)."""
    for path, is_dir in list(walk.hidden.items()):
        if path in fixed:
            continue
        if any(is_within(path, k) for k in keep):  # at or below a kept path
            del walk.hidden[path]
        elif is_dir and any(is_within(k, path) for k in keep):  # holds one: hide the rest of it
            del walk.hidden[path]
            _hide_around(walk, path, [k for k in keep if is_within(k, path)])
    for key, names in list(walk.names.items()):  # links matter only for what stays hidden
        still = {n for n in names if _under_hidden(n, walk.hidden)}
        if still:
            walk.names[key] = still
        else:
            del walk.names[key], walk.links[key]


def _under_hidden(path: str, hidden: dict[str, bool]) -> bool:
    """Is ``path`` hidden, or inside a hidden folder?"""
    while True:
        if path in hidden:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def _hide_around(walk: Walk, folder: str, kept: list[str]) -> None:
    """Hide every entry of ``folder`` but the kept paths and the folders on the way to them."""
    stack = [folder]
    while stack:
        try:
            with os.scandir(stack.pop()) as found:
                entries = list(found)
        except OSError:
            continue
        walk.budget -= len(entries)
        for entry in entries:
            path = entry.path
            if any(is_within(path, k) for k in kept):
                continue
            if any(is_within(k, path) for k in kept):
                stack.append(path)
            elif not entry.is_symlink():  # a link shows its target, hidden or not on its own
                walk.hide(path)
    if walk.budget < 0:
        walk.gap(f"the folders around {', '.join(kept)} hold more than {walk.limit:,} entries")


def _find_other_links(walk: Walk, writable: Sequence[str]) -> None:
    """Hide the other names of hidden multiply-linked files; a name not found is a gap."""
    if not walk.links:
        return
    inodes = {ino for _dev, ino in walk.links}
    stack = [w for w in writable if os.path.isdir(w)]
    seen: set[str] = set()
    while stack and walk.budget >= 0:
        folder = stack.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            with os.scandir(folder) as found:
                entries = list(found)
        except OSError:
            continue
        walk.budget -= len(entries)
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.inode() in inodes and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    key = (st.st_dev, st.st_ino)
                    if key in walk.links:
                        walk.names[key].add(entry.path)
                        walk.hidden[entry.path] = False
            except OSError:
                continue
    for key, count in walk.links.items():
        if len(walk.names[key]) < count:
            some = sorted(walk.names[key])[0]
            walk.gap(f"{some!r} has a hard link outside the folders the sandbox can check")


def _write_cover(
    text: str, p: PathPattern, writable: Sequence[str], read_only: dict[str, None], walk: Walk
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
    for start, group in groups(((text, (p,)),)).items():
        _bind_existing(start, group, writable, read_only, walk)


def _bind_existing(
    start: str, group: list[tuple[str, PathPattern]], writable: Sequence[str], read_only: dict[str, None], walk: Walk
) -> None:
    """Best effort when the user approves anyway: existing matches inside writable folders."""
    probe = Walk(walk.budget, walk.limit)
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
    head = rest.removesuffix("/**").rstrip("/")
    exact = (bool(p.anchor.strip("/")) or not head) and not GLOB.search(head)  # "~/": the anchor folder whole
    return (base.rstrip(os.sep) or os.sep), exact
