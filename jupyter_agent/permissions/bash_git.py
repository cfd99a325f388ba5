"""Git commands that read files under other names: ``git show HEAD:.env``, ``git grep`` and
the patches of ``git diff`` / ``git show`` / ``git log -p``.

A read-only git command may name a file inside a revision: ``REV:path``, ``:path`` (the index)
or ``:N:path`` (a merge stage).  Git reads ``path`` from the repository's top-level folder
unless it starts with ``./`` or ``../`` (then from the current folder), so the path is checked
against ``Read`` deny rules from both.  ``git grep`` reads every tracked file of the repository
it may search, so, like ``grep -r``, it asks when a ``Read`` deny rule may match a file there.
A command that prints file contents from the repository (a patch, a blob, a stash) asks when a
``Read`` deny rule covers a file the repository tracks (a committed ``.env``), or when the index
cannot be read; ``git_contents.py`` tells which invocations print contents.  One that prints
from commits (``git log -p``, ``git show OLD``, ``git diff OLD``) also asks when a denied path is
anywhere in the history (``git_history.py``: committed once, removed since), or when it names
an object the history listing did not reach (``git_objects.py``).  These checks run only when
there are ``Read`` deny rules.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_words import Word
from .compiled import PathScope
from .filesystem import read_deny_in
from .git_contents import reads_history, shows_contents
from .git_history import UNLISTED, History, listed_history
from .git_index import git_dir, tracked_paths
from .git_objects import unreached_object
from .git_words import git_global_options
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
    options, i = git_global_options(words)
    for name, value in options:
        if name == "-C" and value is not None:
            folder = _change_to(folder, value.literal)
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
    """The repository's top-level folder above the absolute, normalized ``folder`` (``folder``
    itself outside any)."""
    current = folder.rstrip("/")
    while True:
        if os.path.lexists(current + "/.git"):
            return current or "/"
        if not current:
            return folder
        current = current.rpartition("/")[0]


def git_read_checks(
    words: Sequence[Word], cwd: str, scope: PathScope, contents: bool | None = None
) -> tuple[str | None, str | None]:
    """``(deny message, ask reason)`` for a read-only git command run in the real folder ``cwd``
    (``contents``: ``shows_contents(words)``, when the caller knows it already)."""
    folder, sub = git_folder(words, cwd)
    if folder is None:
        return None, "git -C names a folder only known at run time"
    named = [(word, path) for word in words[1:] if (path := object_path(word.literal or "")) is not None]
    if contents is None:
        contents = shows_contents(words)
    if not named and sub != "grep" and not contents:
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
        rule = read_deny_in(top, scope)
        if rule is not None:
            return None, f"git grep searches {top}, where the rule {rule} denies reading"
    if not contents:
        return None, None
    repo = git_dir(top)
    if sub == "diff" and (repo is None or "--no-index" in (w.literal for w in words)):
        reason = _walked_operands(words, folder, scope)  # files compared, folders walked
        if reason is not None:
            return None, reason
    reason = tracked_denied(top, scope, repo)
    if reason is None and repo is not None and reads_history(words):
        reason = history_denied(top, scope, repo, words)
    return None, reason


def _walked_operands(words: Sequence[Word], folder: str, scope: PathScope) -> str | None:
    """``git diff --no-index A B`` (and any ``git diff`` outside a repository) compares folders
    recursively, like ``diff -r``: a folder operand in which a Read deny rule may match asks."""
    after_sub = False
    for word in words[1:]:
        value = word.literal
        if value is None:
            return f"git diff compares {word.text}, a path only known at run time"
        if not after_sub:
            after_sub = value == "diff"
            continue
        if value[:1] == "-" and value != "-":
            continue
        try:
            real = resolve_below(value, folder)[1]
        except BadPath:
            continue  # reported as a read of the argument itself
        if os.path.isdir(real):
            rule = read_deny_in(real, scope, links=True)  # (diff follows links)
            if rule is not None:
                return f"git diff compares the folder {value}, where the rule {rule} denies reading"
    return None


def tracked_denied(top: str, scope: PathScope, repo: str | None) -> str | None:
    """Why a command printing tracked files' contents in the work tree ``top`` (repository folder
    ``repo``, from ``git_dir``) must ask, if so."""
    if repo is None:
        if os.path.lexists(os.path.join(top, ".git")):
            return f"git's repository folder in {top} cannot be found"
        return None  # not a repository: git prints nothing from one
    tracked = tracked_paths(repo)
    if tracked is None:
        return f"git's index in {repo} cannot be read, so the files it tracks are unknown"
    found = _denied_among("index", top, tracked, scope)
    if found is None:
        return None
    path, rule = found
    return f"git tracks {path}, which the rule {rule} denies reading, and this command prints tracked files' contents"


_TRACKED_MEMO: dict[tuple[object, ...], tuple[tuple[str, ...], tuple[str, str] | None]] = {}


def _denied_among(kind: str, top: str, paths: tuple[str, ...], scope: PathScope) -> tuple[str, str] | None:
    """The first of ``paths`` (relative to ``top``) a Read deny rule covers, with the rule;
    remembered while ``paths`` is the same tuple (the index and history caches keep it)."""
    key = (kind, top, tuple((text, tuple((p.root, p.text) for p in patterns)) for text, patterns in scope.read_deny))
    memo = _TRACKED_MEMO.get(key)
    if memo is None or memo[0] is not paths:
        memo = _TRACKED_MEMO[key] = (paths, _first_denied(top, paths, scope))
        if len(_TRACKED_MEMO) > 64:
            del _TRACKED_MEMO[next(iter(_TRACKED_MEMO))]
    return memo[1]


def history_denied(top: str, scope: PathScope, repo: str, words: Sequence[Word]) -> str | None:
    """Why ``words``, a command printing from commits in ``top``, must ask: a denied path in the
    history, an object outside it (``git_objects``), a history that could not be listed, or one
    not listed yet (the async caller lists it and decides again)."""
    history = listed_history(repo)
    if history is UNLISTED:
        return f"git's history in {repo} has not been listed yet"
    if not isinstance(history, History):
        return f"git's history in {repo} could not be listed, so the files it holds are unknown"
    found = _denied_among("history", top, history.paths, scope)
    if found is not None:
        path, rule = found
        return (f"git's history holds {path}, which the rule {rule} denies reading, and this command "
                f"prints contents from commits")
    return unreached_object(words, history)


def _first_denied(top: str, tracked: tuple[str, ...], scope: PathScope) -> tuple[str, str] | None:
    base = top.rstrip("/") + "/"
    for path in tracked:
        full = base + path
        rule = scope.read_denied(full, full)
        if rule is not None:
            return path, rule
    return None
