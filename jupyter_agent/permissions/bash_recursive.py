"""Recursive reads (``grep -r``, ``rg``, ``diff -r``): do they walk into files a Read rule denies?

``cat .env`` is checked file by file; ``grep -r KEY .`` names no file, yet reads ``.env``.  For
such commands every folder they may walk is compared with the Read deny rules; a rule that can
match below it makes the line ask.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from .bash_words import Word

_GREP_FLAGS = ("r", "R", "--recursive", "--dereference-recursive")
_RECURSIVE_FLAGS = {"grep": _GREP_FLAGS, "egrep": _GREP_FLAGS, "fgrep": _GREP_FLAGS, "ugrep": _GREP_FLAGS}
_DIRECTORIES = "--directories"  # grep -d ACTION / --directories=ACTION: recurse walks like -r
_NOT_WALKING = frozenset({"read", "skip"})  # the other actions (argmatch also takes "rec" for recurse)
# rg walks folders always; diff reads the files inside folder operands even without -r; so do the
# other code searchers (ag, ack, pt, sift, ugrep's ug) and the scanners that print what they
# find (codespell's lines, semgrep's matches, gitleaks' and trufflehog's secrets)
_ALWAYS_RECURSIVE = frozenset({"rg", "diff", "colordiff", "ag", "ack", "ack-grep", "pt", "sift", "ug", "codespell",
                               "semgrep", "gitleaks", "trufflehog"})
_NO_PATTERN = frozenset({"codespell", "semgrep", "gitleaks", "trufflehog"})  # every operand may be a path
RECURSIVE_PROGRAMS = frozenset(_RECURSIVE_FLAGS) | _ALWAYS_RECURSIVE  # walked_folders walks no other
# programs that compare what they are given and search nothing without it: diff with missing
# files fails (`diff a b` with neither there read the current folder's files, it was thought)
_NO_SEARCH = frozenset({"diff", "colordiff"})


def walked_folders(words: Sequence[Word], cwd: str, cwd_is_real: bool = False) -> list[str]:
    """Folders the command may read recursively (absolute, real), or [] when it does not recurse.

    ``cwd_is_real``: the caller passes a real, normalized, absolute folder, so a plain relative
    argument is resolved from there by one ``lstat`` per component instead of ``realpath``.
    """
    program = words[0].literal if words else None
    if program is None or program not in RECURSIVE_PROGRAMS or not _recurses(program, words[1:]):
        return []
    args = [w.literal for w in words[1:] if w.literal is not None and not w.literal.startswith("-")]
    first = 0 if program in _NO_PATTERN else 1  # grep PATTERN [PATH…] (and diff A B: A alone is not all)
    if not cwd_is_real:
        folders = [os.path.normpath(os.path.join(cwd, a)) for a in args]
        existing = [f for f in folders if os.path.isdir(f)]
        if program not in _NO_SEARCH and not any(os.path.exists(f) for f in folders[first:]):
            existing.append(cwd)  # no path operand: the current folder is searched
        return [os.path.realpath(f) for f in existing]
    found: list[str] = []
    operand = False
    for i, arg in enumerate(args):
        real, exists, is_dir = _probe(arg, cwd)
        if is_dir:
            found.append(real)
        operand = operand or (exists and i >= first)
    if not operand and program not in _NO_SEARCH:
        found.append(cwd)
    return found


def _probe(arg: str, cwd: str) -> tuple[str, bool, bool]:
    """(real path, exists, is a folder) of ``arg`` below the real folder ``cwd``."""
    parts = arg.split("/")
    if arg[:1] in ("/", "~", "") or ".." in parts or ":" in arg or "\x00" in arg:
        folder = os.path.normpath(os.path.join(cwd, arg))  # the general way
        is_dir = os.path.isdir(folder)
        return (os.path.realpath(folder) if is_dir else folder), is_dir or os.path.exists(folder), is_dir
    current = cwd.rstrip("/")
    mode = None
    for part in parts:
        if part == "" or part == ".":
            continue
        current += "/" + part
        try:
            mode = os.lstat(current).st_mode
        except OSError:  # missing (or unreadable): nothing below exists
            return current, False, False
        if stat.S_ISLNK(mode):  # a link: let realpath follow it
            folder = os.path.normpath(os.path.join(cwd, arg))
            is_dir = os.path.isdir(folder)
            return (os.path.realpath(folder) if is_dir else folder), is_dir or os.path.exists(folder), is_dir
    if mode is None:  # "." or "./": the folder itself
        return cwd, os.path.isdir(cwd) or os.path.exists(cwd), os.path.isdir(cwd)
    return current or "/", True, stat.S_ISDIR(mode)


def _recurses(program: str, args: Sequence[Word]) -> bool:
    if program in _ALWAYS_RECURSIVE:
        return True
    flags = _RECURSIVE_FLAGS.get(program)
    if flags is None:
        return False
    for i, word in enumerate(args):
        value = word.literal or ""
        following = args[i + 1].literal if i + 1 < len(args) else None
        if value == "--":
            return False
        if value.startswith("--"):
            name, equals, action = value.partition("=")
            if len(name) > 2 and any(f.startswith(name) for f in flags if f[:2] == "--"):
                return True  # GNU abbreviations: --rec is --recursive
            walks = (action if equals else following) not in _NOT_WALKING
            if len(name) > 2 and _DIRECTORIES.startswith(name) and walks:
                return True
        elif value.startswith("-") and _short_recurses(value[1:], flags, following):
            return True
    return False


def _short_recurses(cluster: str, flags: Sequence[str], following: str | None) -> bool:
    """``-rn``, ``-drecurse``, ``-d recurse`` (``-d`` takes the rest of its word, or the next)."""
    for j, letter in enumerate(cluster):
        if letter in flags:
            return True
        if letter == "d":
            return (cluster[j + 1:] or following) not in _NOT_WALKING
    return False


# Programs that walk folders without following the symbolic links they meet, unless given one
# of these flags (short letters, long options); a link in the folder then leads them anywhere
# (`grep -R KEY src` read `.env` through `src/x -> ../.env`).
_FOLLOW_FLAGS: dict[str, tuple[str, tuple[str, ...]]] = {
    **dict.fromkeys(("grep", "egrep", "fgrep", "ugrep", "ug"), ("R", ("--dereference-recursive",))),
    "rg": ("L", ("--follow",)), "ag": ("f", ("--follow",)), "ack": ("", ("--follow",)),
    "ack-grep": ("", ("--follow",)), "pt": ("", ("--follow",)),
    **dict.fromkeys(("tar", "gtar", "bsdtar"), ("hL", ("--dereference",))),  # (bsdtar -L, -h)
    "cp": ("L", ("--dereference",)), "rsync": ("Lk", ("--copy-links", "--copy-unsafe-links", "--copy-dirlinks")),
    **dict.fromkeys(("rm", "rmdir", "chmod", "chown", "chgrp", "shred", "git"), ("", ())),
}
# ... and programs that follow them unless told not to
_FOLLOW_UNLESS: dict[str, tuple[str, tuple[str, ...]]] = {"zip": ("y", ("--symlinks",))}


def follows_links(words: Sequence[Word]) -> bool:
    """Does the command follow symbolic links it meets below the folders it reads?  Programs
    not listed above count as following (fail closed), as does a word only known at run time."""
    program = words[0].literal if words else None
    spec = _FOLLOW_FLAGS.get(program or "")
    unless = _FOLLOW_UNLESS.get(program or "")
    if spec is None and unless is None:
        return True
    letters, longs = spec or unless or ("", ())
    given = False
    for i, word in enumerate(words[1:]):
        text = word.literal
        if text is None:
            return True
        if text == "--":
            break
        if text[:2] == "--":
            given = given or any(long.startswith(text.partition("=")[0]) for long in longs if len(text) > 3)
        elif text[:1] == "-" or (i == 0 and program in ("tar", "gtar", "bsdtar")):  # tar chf: a cluster
            given = given or any(c in text.lstrip("-") for c in letters)
    return given if spec is not None else not given
