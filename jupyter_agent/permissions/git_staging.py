"""Git commands that copy untracked files into the repository: ``git add -A``, ``git add .``,
``git add DIR`` and ``git stash -u`` read every file git does not ignore below where they walk.

Under a ``Read(./.env)`` deny rule, ``git add -A && git commit -qm x && git show HEAD`` printed
``.env`` when ``.env`` was not in ``.gitignore``: the checks of ``git show`` saw the index as it
was before the line ran.  So such a command asks when a file a Read deny rule covers exists
below a folder it walks and git would take it: not ignored (``.gitignore`` files from the top
of the work tree down, ``.git/info/exclude``; the user's global excludes are not read, so a file
only they ignore asks), tracked, or taken by ``-f``/``git stash -a``.  A rule that is a pattern
(``Read(**/.env)``, ``Read(./secrets/*.key)``) names files that are not listed here, so it asks
whenever it may match below the walked folder.  ``git add FILE`` naming the file itself is a
read of it (``bash_arguments``); ``git add -u``, ``-p`` and ``git commit -a`` take tracked files
only, whose contents the checks of ``bash_git`` already guard.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pathspec

from .bash_git import git_folder, top_level
from .bash_words import Word
from .compiled import PathScope
from .git_index import git_dir, tracked_paths
from .git_words import git_global_options
from .path_patterns import PathPattern
from .paths import open_regular_text

_TRACKED_ONLY = frozenset({"-u", "--update", "-p", "--patch", "-i", "--interactive", "-e", "--edit",
                           "--renormalize", "-n", "--dry-run"})
_ALL = frozenset({"-A", "--all", "--no-ignore-removal"})
_STASH_PUSH = frozenset({"push", "save"})


def staging_reason(words: Sequence[Word], cwd: str, scope: PathScope) -> str | None:
    """Why ``git add``/``git stash`` run in the real folder ``cwd`` must ask (see the module)."""
    folder, sub = git_folder(words, cwd)
    if folder is None or sub not in ("add", "stash"):
        return None  # git -C "$D": asked about by git_guards
    start = git_global_options(words)[1] + 1
    top = top_level(folder)
    walked, force = (_add_walks if sub == "add" else _stash_walks)(words[start:], folder, top)
    if not walked:
        return None
    repo = git_dir(top)
    tracked = tracked_paths(repo) if repo is not None else None
    for where in walked:
        for text, patterns in scope.read_deny:
            for pattern in patterns:
                if not pattern.may_match_below(where):
                    continue
                path = _concrete_path(pattern)
                if path is None:
                    return f"git {sub} may copy files below {where} into the repository, which the rule {text} " \
                           "may deny reading"
                if not _inside(path, where) and not _inside(where, path):
                    continue
                if not os.path.lexists(path) or not _inside(path, top):
                    continue
                if force or not ignored_by_git(path, top, repo, tracked):
                    return f"git {sub} copies {path} into the repository (git does not ignore it), which the " \
                           f"rule {text} denies reading"
    return None


def _add_walks(args: Sequence[Word], folder: str, top: str) -> tuple[list[str], bool]:
    """The folders ``git add ARGS`` walks for untracked files, and whether ignored ones count."""
    walked: list[str] = []
    every = force = tracked_only = False
    operands = False
    ended = False
    for word in args:
        value = word.literal
        if value is None:  # a word only known at run time: any option, any pathspec
            return [top], True
        if not ended and value == "--":
            ended = True
            continue
        if not ended and value[:2] == "--":
            name = value.partition("=")[0]
            if name.startswith("--pathspec-from-file"):
                return [top], True
            every = every or name in _ALL
            force = force or name == "--force"
            tracked_only = tracked_only or name in _TRACKED_ONLY
            continue
        if not ended and value[:1] == "-" and len(value) > 1:
            letters = value[1:]
            if "-" in letters:
                return [top], True
            every = every or "A" in letters
            force = force or "f" in letters
            tracked_only = tracked_only or any(f"-{c}" in _TRACKED_ONLY for c in letters)
            continue
        operands = True
        walked.extend(_pathspec_folders(value, folder, top))
    if tracked_only:
        return [], False
    if not operands:
        return ([top] if every else []), force
    return walked, force


def _stash_walks(args: Sequence[Word], folder: str, top: str) -> tuple[list[str], bool]:
    """``git stash [push|save] -u|-a``: the whole work tree (``-a`` takes ignored files too)."""
    rest = list(args)
    if rest and rest[0].literal in _STASH_PUSH:
        rest = rest[1:]
    elif rest and (rest[0].literal or "-")[:1] != "-":
        return [], False  # list, show, pop, apply, drop …: nothing copied from the work tree
    untracked = force = False
    for word in rest:
        value = word.literal
        if value is None:
            return [top], True
        if value == "--":
            break
        if value[:2] == "--":
            untracked = untracked or value in ("--include-untracked", "--all")
            force = force or value == "--all"
        elif value[:1] == "-":
            untracked = untracked or "u" in value[1:] or "a" in value[1:]
            force = force or "a" in value[1:]
    return ([top] if untracked else []), force


def _pathspec_folders(value: str, folder: str, top: str) -> list[str]:
    """The folders a pathspec makes git walk: a folder, the top for magic (``:/``) or a pattern
    (git matches ``*.env`` at any depth); a file names itself (checked as a read elsewhere)."""
    if value[:1] == ":" or any(c in value for c in "*?[\\"):
        return [top]
    path = os.path.realpath(os.path.join(folder, value))
    return [path] if os.path.isdir(path) else []


def _concrete_path(pattern: PathPattern) -> str | None:
    """The one path a rule without wildcards names (``./.env``, ``~/.ssh/id_rsa``), else None."""
    if pattern.anchor == "/" or any(c in pattern.text for c in "*?[\\!#"):
        return None
    return pattern.root.rstrip(os.sep) + pattern.anchor.rstrip("/")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def ignored_by_git(path: str, top: str, repo: str | None, tracked: tuple[str, ...] | None) -> bool:
    """Does git ignore ``path`` (below the work tree ``top``)?  Not when it is tracked (or the
    index cannot be read); else the deepest ``.gitignore`` with a matching line decides for the
    path and for each folder above it (a folder ignored hides everything in it), then
    ``info/exclude``."""
    if repo is None or tracked is None:
        return False
    rel = os.path.relpath(path, top)
    if rel in tracked or any(t.startswith(rel + "/") for t in tracked):
        return False
    parts = rel.split(os.sep)
    specs = [_spec(os.path.join(top, *parts[:k], ".gitignore")) for k in range(len(parts))]
    exclude = _spec(os.path.join(repo, "info", "exclude"))
    for k in range(1, len(parts) + 1):
        is_dir = k < len(parts) or os.path.isdir(path)
        decided = None
        for base in range(k - 1, -1, -1):  # the deepest .gitignore first
            spec = specs[base]
            if spec is None:
                continue
            found = spec.check_file("/".join(parts[base:k]) + ("/" if is_dir else ""))
            if found.include is not None:
                decided = found.include
                break
        if decided is None and exclude is not None:
            found = exclude.check_file("/".join(parts[:k]) + ("/" if is_dir else ""))
            decided = found.include
        if decided:
            return True
    return False


def _spec(path: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open_regular_text(path, encoding="utf-8", errors="surrogateescape") as f:
            return pathspec.GitIgnoreSpec.from_lines(f.read().splitlines())
    except OSError:
        return None


__all__ = ["ignored_by_git", "staging_reason"]
