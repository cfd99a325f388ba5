"""Git commands that read files under other names: ``git show HEAD:.env`` and ``git grep``.

A read-only git command may name a file inside a revision: ``REV:path``, ``:path`` (the index)
or ``:N:path`` (a merge stage).  Git reads ``path`` from the repository's top-level folder
unless it starts with ``./`` or ``../`` (then from the current folder), so the path is checked
against ``Read`` deny rules from both.  ``git grep`` reads every tracked file of the repository
it may search, so, like ``grep -r``, it asks when a ``Read`` deny rule may match a file there.
These checks run only when there are ``Read`` deny rules.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_analysis import GIT_GLOBAL_WITH_VALUE
from .bash_words import Word
from .compiled import PathScope
from .filesystem import read_deny_below
from .paths import BadPath, resolve_below


def object_path(value: str) -> str | None:
    """The file a ``REV:path`` argument names, or None (not such an argument)."""
    if value[:1] == "-" or ":" not in value:
        return None
    rev, _, path = value.partition(":")
    if not rev and path[:1].isdigit() and path[1:2] == ":":
        path = path[2:]  # :0:path, a merge stage
    if not path or path[:1] == "/":
        return None  # `:/text` searches commit messages; `rev:` is the whole tree (git grep's case)
    return path


def git_folder(words: Sequence[Word], cwd: str) -> tuple[str | None, str | None]:
    """The real folder git works in (``cwd``, or where its ``-C DIR`` options lead; None when
    that is unknown), and its subcommand."""
    folder: str | None = cwd
    i = 1
    while i < len(words):
        value = words[i].literal
        if value is None or value[:1] != "-":
            break
        if value in GIT_GLOBAL_WITH_VALUE and i + 1 < len(words):
            target = words[i + 1].literal
            if value == "-C":
                folder = _change_to(folder, target)
            i += 2
            continue
        i += 1
    sub = words[i].literal if i < len(words) else None
    return folder, sub


def _change_to(folder: str | None, target: str | None) -> str | None:
    if folder is None or target is None:
        return None
    try:
        return resolve_below(target, folder)[1]
    except BadPath:
        return None


def top_level(folder: str) -> str:
    """The repository's top-level folder above ``folder`` (``folder`` itself outside any)."""
    current = folder
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return folder
        current = parent


def git_read_checks(words: Sequence[Word], cwd: str, scope: PathScope) -> tuple[str | None, str | None]:
    """``(deny message, ask reason)`` for a read-only git command run in the real folder ``cwd``."""
    folder, sub = git_folder(words, cwd)
    if folder is None:
        return None, "git -C names a folder only known at run time"
    named = [(word, path) for word in words[1:] if (path := object_path(word.literal or "")) is not None]
    if not named and sub != "grep":
        return None, None
    top = top_level(folder)
    for word, path in named:
        for base in (folder,) if path.startswith(("./", "../")) else (folder, top):
            try:
                lexical, real = resolve_below(path, base)
            except BadPath as exc:
                return str(exc), None
            rule = scope.read_denied(lexical, real)
            if rule is not None:
                return f"Permission to read {path} (in {word.text}) has been denied by the rule {rule}.", None
    if sub == "grep":
        rule = read_deny_below(top, scope)
        if rule is not None:
            return None, f"git grep searches {top}, where the rule {rule} denies reading"
    return None, None
