"""Matching walked paths against rule patterns quickly: by name from a set or a memo, and path
patterns only after a quick test of their last component (``walk.py`` uses it)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ..permissions.path_patterns import PathPattern, fold_case

GLOB = re.compile(r"[*?\[\\]")  # a wildcard or an escape in a gitignore pattern


class Matcher:
    """One walk's patterns.  Those matching by a name alone answer from a set (a plain name,
    ``.env``) or from a memo of names kept with the walk's ``_Memo`` (``*.pem``)."""

    def __init__(self, group: list[tuple[str, PathPattern]], memo: dict[tuple[str, bool], tuple[str, ...]]) -> None:
        named = [p for _t, p in group if by_name(p)]
        self.literal: dict[str, list[tuple[str, PathPattern]]] = {}  # folded name → (root, pattern)
        for p in named:
            if plain_name(p):
                self.literal.setdefault(fold_case(bare(p.text)), []).append((p.root, p))
        self.names = [p for p in named if not plain_name(p)]
        self.paths = tuple(p for _t, p in group if not by_name(p))
        self.name_roots = tuple(dict.fromkeys(p.root for p in named))
        self.memo = memo
        # a test of a path pattern's last component: a match's name must pass it
        sources = [last_source(p) for p in self.paths]
        self.lasts = {id(p): _name_test(s) for p, s in zip(self.paths, sources, strict=True)}
        # all of them at once (one regular expression per name, not one call per pattern), when
        # every path pattern has one: a name that passes none skips the path patterns
        self.any_last = (
            re.compile("|".join(f"(?:{s})" for s in sources if s is not None), re.DOTALL)
            if self.paths and None not in sources else None
        )

    def hit(self, path: str, is_dir: bool, paths: tuple[PathPattern, ...], name: str | None = None) -> bool:
        """Does a name pattern or one of ``paths`` match ``path`` (a folder when ``is_dir``)?"""
        base = os.path.basename(path) if name is None else name
        if self.literal:
            for root, p in self.literal.get(fold_case(base), ()):
                if (p.fold or base == bare(p.text)) and below_root(path, root):
                    return True
        if self.names:
            key = (base, is_dir)
            roots = self.memo.get(key)
            if roots is None:  # the roots below which a name pattern matches this name
                roots = self.memo[key] = tuple(
                    p.root for p in self.names if matches(p, p.root.rstrip(os.sep) + os.sep + key[0], is_dir)
                )
            if roots and any(below_root(path, r) for r in roots):
                return True
        if not paths or (self.any_last is not None and base.isascii() and self.any_last.fullmatch(base) is None):
            return False
        for p in paths:
            last = self.lasts.get(id(p))
            if (last is None or last(base)) and matches(p, path, is_dir):
                return True
        return False

    def below(self, folder: str, paths: tuple[PathPattern, ...]) -> tuple[PathPattern, ...] | None:
        """Of ``paths``, those that may match below ``folder``; None when no pattern may."""
        kept = tuple(p for p in paths if p.may_match_below(folder))
        if kept or any(below_root(folder, r) for r in self.name_roots):
            return kept
        return None if not any(p.may_match_below(folder) for p in self.names) else kept


def matches(p: PathPattern, path: str, is_dir: bool) -> bool:
    return p.matches(path) or (is_dir and p.matches(path + os.sep))


def by_name(p: PathPattern) -> bool:
    """Does ``p`` match by a file's name alone, at any depth (``.env``, ``*.pem``, ``**/.env``)?"""
    text = bare(p.text)
    if not text or text.startswith(("/", "~", "./")):
        return False  # anchored
    return "/" not in text.rstrip("/")


def last_component(p: PathPattern) -> Callable[[str], bool] | None:
    """A quick test a name must pass to match ``p``'s last component (``**/site-packages/*.pth``:
    ``*.pth``), or None when the component says nothing about a name (``**``, negations).  Only
    literal text and ``*`` are tested this way, on ASCII names; anything else passes."""
    return _name_test(last_source(p))


def _name_test(source: str | None) -> Callable[[str], bool] | None:
    if source is None:
        return None
    regex = re.compile(source, re.DOTALL)
    return lambda name: not name.isascii() or regex.fullmatch(name) is not None


def last_source(p: PathPattern) -> str | None:
    """``last_component``'s test as a regular expression an ASCII name must match in full
    (case-insensitive for a folded pattern), or None."""
    text = p.text.rstrip("/")
    last = text.rsplit("/", 1)[-1]
    if text in ("", "~", "/", ".") or (p.anchor.strip("/") == "" and text.startswith(("~", "//", "./", "/"))):
        return None  # only an anchor (``~/``, ``//``): it covers every name below it
    if not last or "**" in last or text.startswith(("!", "#")) or last != last.strip() or not last.isascii():
        return None
    if GLOB.search(last.replace("*", "")):
        return None  # ?, [...] or an escape: left to the pattern itself
    body = ".*".join(re.escape(part) for part in last.split("*"))
    return f"(?i:{body})" if p.fold else body


def bare(text: str) -> str:
    """A name pattern without its leading ``**/`` (which changes nothing in gitignore)."""
    while text.startswith("**/"):
        text = text[3:]
    return text


def plain_name(p: PathPattern) -> bool:
    """A name pattern with no wildcard, escape, negation or folder-only slash (``.env``, ``.git``)."""
    text = bare(p.text)
    return bool(text) and not GLOB.search(text) and not text.startswith(("!", "#")) and "/" not in text and (
        text == text.strip()
    )


def below_root(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)
