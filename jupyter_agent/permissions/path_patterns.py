"""``Read(...)`` / ``Edit(...)`` rule patterns: gitignore-style patterns (pathspec) bound to the
folder they are relative to, matched against absolute paths; deny and ask patterns compare names
case-folded (``fold_case``), as case-insensitive disks do."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import pathspec

from ..core.permission_types import RuleSource
from .paths import ResolvedPath, is_within


def fold_case(text: str) -> str:
    """``text`` compared as a case-insensitive disk compares names (macOS APFS/HFS+, Windows NTFS):
    case folded, and Unicode spelled one way (decomposed, as HFS+ stores it)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).casefold())


@dataclass(frozen=True)
class PathPattern:
    """A Read(...)/Edit(...) rule pattern bound to its root folder.

    ``root`` and ``anchor`` are as written (walks start there).  A folded pattern (deny and ask
    rules) matches paths by ``fold_case``: on a case-insensitive disk ``.ENV`` *is* ``.env``,
    so a rule that refuses must not depend on how the model spells a name.  ``prefix`` and the
    compiled ``spec`` are then in folded form.
    """

    root: str
    spec: pathspec.PathSpec
    text: str
    anchor: str = "/"  # every match starts with root + anchor (the literal head of the pattern)
    prefix: str = ""  # a cheap first test: every match starts with it ("" tests nothing)
    fold: bool = False
    folded_root: str = ""  # fold_case(root), when ``fold``

    def may_match_below(self, folder: str) -> bool:
        """Could a file somewhere below ``folder`` match?  (For recursive reads like ``grep -r``.)"""
        base = self.root.rstrip(os.sep) + self.anchor
        inside = folder.rstrip(os.sep) + os.sep
        if self.fold:
            base, inside, folder = fold_case(base), fold_case(inside), fold_case(folder)
        return base.startswith(inside) or inside.startswith(base) or base == folder

    def matches(self, path: str) -> bool:
        """``path``: absolute and normalized; a folded pattern folds it (folding twice is harmless)."""
        root = self.root
        if self.fold:
            path, root = path.lower() if path.isascii() else fold_case(path), self.folded_root
        if not path.startswith(self.prefix) or path == root or not is_within(path, root):
            return False
        # both are absolute and normalized, and path is below root: slicing is the relpath
        rel = path[len(root):].lstrip(os.sep)
        return self.spec.match_file(rel)


def rule_root(source: RuleSource, project_dir: str) -> str:
    """The folder ``/x`` patterns are relative to: home for user settings, else the project."""
    if source == "userSettings":
        return os.path.expanduser("~")
    return project_dir


def compile_pattern(
    text: str, source_root: str, project_dir: str, *, fold: bool = False
) -> tuple[PathPattern, ...]:
    """``//abs``, ``~/x``, ``/x`` (settings root), ``./x`` / ``x`` (project) → patterns.

    Both the root as given and its real path are used, so a symlinked project still matches.
    ``fold``: match by ``fold_case`` (deny and ask rules; see ``PathPattern``).
    """
    return _compile(text, source_root, project_dir, os.path.expanduser("~"), fold)


@lru_cache(maxsize=1024)
def _compile(text: str, source_root: str, project_dir: str, home: str, fold: bool) -> tuple[PathPattern, ...]:
    if text.startswith("//"):
        root, pattern = "/", text[1:]
    elif text == "~" or text.startswith("~/"):
        root, pattern = home, "/" + text[2:]
    elif text.startswith("/"):
        root, pattern = source_root, text
    elif text.startswith("./"):
        root, pattern = project_dir, "/" + text[2:]
    else:
        root, pattern = project_dir, text
    if pattern in ("/", ""):
        pattern = "/**"
    spec = pathspec.GitIgnoreSpec.from_lines([fold_case(pattern) if fold else pattern])
    roots = {os.path.normpath(root), os.path.realpath(root)}
    anchor = _anchor(pattern)
    head = "/" if pattern.startswith(("!", "#")) else anchor.rstrip()  # gitignore drops trailing blanks
    if not fold:
        return tuple(PathPattern(r, spec, text, anchor, r.rstrip(os.sep) + head) for r in sorted(roots))
    return tuple(
        PathPattern(r, spec, text, anchor, fold_case(r.rstrip(os.sep) + head), True, fold_case(r))
        for r in sorted(roots)
    )


def _anchor(pattern: str) -> str:
    """The literal head every match starts with: ``/secrets/**`` → ``/secrets/``; ``*.key`` → ``/``."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    if not anchored:
        return "/"
    head = pattern if pattern.startswith("/") else "/" + pattern
    for i, ch in enumerate(head):
        if ch in "*?[\\":
            return head[:i]
    return head


def pattern_matches(patterns: tuple[PathPattern, ...], resolved: ResolvedPath) -> bool:
    return any(p.matches(form) for p in patterns for form in resolved.forms)


__all__ = ["PathPattern", "compile_pattern", "fold_case", "pattern_matches", "rule_root"]
