"""git commands that write paths named in data, not on the command line: ``git apply x.patch``
creates whatever files the patch names (``.claude/settings.local.json`` included), and the
plumbing that builds trees from standard input or specs (``mktree``, ``update-index
--cacheinfo``, ``fast-import``) lets a later checkout do the same.

A rule such as ``Bash(git:*)`` allows git, not writing protected or Edit-denied paths by proxy:
``git apply`` and ``git am`` read their patch files at decision time and ask, in every mode,
when one names such a path or cannot be read (a patch on standard input cannot); the tree
builders ask whenever they run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence

from .bash_words import Word
from .git_words import git_global_options
from .paths import open_regular

_MAX_PATCH = 20 * 1024 * 1024
_TREE_BUILDERS = frozenset({"mktree", "fast-import", "unpack-objects", "index-pack", "commit-tree"})
_APPLY_READ_ONLY = frozenset({"--check", "--stat", "--numstat", "--summary"})
_DIFF_GIT = re.compile(r"^diff --git (\S+) (\S+)$")
_HEADER = re.compile(r"^(?:\+\+\+|---) ([^\t]+)")  # the name, up to a tab and a date
_RENAME = re.compile(r"^(?:rename|copy) (?:from|to) (.+)$")


def data_writes(words: Sequence[Word], cwd: str) -> tuple[str | None, list[str]]:
    """``(why it must ask, paths a patch writes)`` for ``git …`` run in ``cwd`` (``--directory=``
    prepended, as git does)."""
    _options, i = git_global_options(words)
    if i >= len(words):
        return None, []
    sub, args = words[i].literal, list(words[i + 1:])
    if sub in _TREE_BUILDERS or (sub == "hash-object" and any(w.literal == "-w" for w in args)):
        return f"git {sub} builds objects from data a later checkout may write anywhere", []
    if sub == "update-index" and any((w.literal or "").startswith(("--cacheinfo", "--index-info", "--stdin")) or
                                     w.literal is None for w in args):
        return "git update-index --cacheinfo/--index-info/--stdin stages paths the command line does not show", []
    if sub not in ("apply", "am"):
        return None, []
    options = [w.literal for w in args if (w.literal or "-")[:1] == "-"]
    if sub == "apply" and any(o in _APPLY_READ_ONLY for o in options) and "--apply" not in options:
        return None, []
    files = [w for w in args if (w.literal or "-")[:1] != "-" or w.literal == "-"]
    if sub == "am" and any(o in ("--continue", "--skip", "--abort", "--quit", "--resolved", "-r")
                           for o in options):
        return f"git am {options[0]} applies patches saved earlier, which the command line does not show", []
    if not files:
        return f"git {sub} reads its patch from standard input, so the files it writes are unknown", []
    strip = _strip(options)
    prefix = next((o[len("--directory="):] for o in options if o and o.startswith("--directory=")), "")
    paths: list[str] = []
    for word in files:
        if word.literal is None or word.literal == "-":
            return f"git {sub} reads a patch only known at run time", []
        try:
            with open_regular(os.path.join(cwd, word.literal)) as f:
                data = f.read(_MAX_PATCH + 1)
        except OSError:
            return f"git {sub} reads {word.literal}, which cannot be read now", []
        if len(data) > _MAX_PATCH:
            return f"git {sub} reads {word.literal}, too large to check", []
        paths.extend(patch_paths(data.decode("utf-8", "surrogateescape"), strip))
    if any(p is None for p in paths):
        return f"git {sub} applies a patch that names a file in a form this check does not read", []
    return None, [os.path.join(prefix, p) if prefix else p for p in paths if p is not None]


def patch_paths(text: str, strip: int = 1) -> Iterator[str | None]:
    """Every path a patch creates, changes, renames or copies (None: one quoted or unreadable)."""
    for line in text.splitlines():
        if (found := _DIFF_GIT.match(line)) is not None:
            for name in found.groups():
                yield _stripped(name, strip)
        elif (found := _HEADER.match(line)) is not None:
            if found.group(1) != "/dev/null":
                yield _stripped(found.group(1), strip)
        elif (found := _RENAME.match(line)) is not None:
            yield None if found.group(1).startswith('"') else found.group(1)
        elif line.startswith(("diff --git ", "+++ ", "--- ")) and line not in ("--- ", "+++ ") and \
                not line.startswith(("--- /dev/null", "+++ /dev/null")):
            yield None  # a header with a quoted or spaced name


def _stripped(name: str, strip: int) -> str | None:
    if name.startswith('"'):
        return None
    parts = name.split("/")
    return "/".join(parts[strip:]) if len(parts) > strip else None


def _strip(options: list[str | None]) -> int:
    for option in options:
        if option is not None and option.startswith("-p") and option[2:].isdigit():
            return int(option[2:])
    return 1


__all__ = ["data_writes", "patch_paths"]
