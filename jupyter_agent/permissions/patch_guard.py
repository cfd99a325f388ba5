"""GNU ``patch`` writes the files its patch names: ``patch -p1 < x.patch`` under ``Bash(patch:*)``
could create ``.claude/settings.local.json`` or ``.git/hooks/pre-commit``.

Like ``git apply`` (``git_writes.py``), the patch is read when deciding and every file it would
write is checked as if written directly: a protected or outside path asks (in every mode), an
Edit-denied one is denied.  The patch comes from ``-i FILE``, the second operand, or standard
input, where it can only be a file the line redirects in (``< x.patch``); a patch from a pipe or
a heredoc, a word known only at run time, a file that cannot be read, or options that put
backups or rejects elsewhere (``-B``, ``-Y``, ``-z``, ``-r``) ask.  Without ``-p`` every
ending of each named path is checked (which one patch picks depends on the files present).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_verdict import Verdict
from .bash_words import Word
from .compiled import PathScope
from .git_guards import named_writes_guard
from .git_writes import patch_paths
from .paths import open_regular

_MAX_PATCH = 20 * 1024 * 1024
_VALUE = frozenset({"-p", "-d", "-i", "-o", "-B", "-Y", "-z", "-r", "-F", "-D", "-V", "-g"})
_LONG_VALUE = frozenset({"--strip", "--directory", "--input", "--output", "--prefix", "--basename-prefix",
                         "--suffix", "--reject-file", "--fuzz", "--ifdef", "--version-control", "--get",
                         "--quoting-style", "--read-only"})
_ELSEWHERE = frozenset({"-B", "-Y", "-z", "-r", "--prefix", "--basename-prefix", "--suffix", "--reject-file"})
_LONG_NAMES = {"--strip": "-p", "--directory": "-d", "--input": "-i", "--output": "-o"}


def patch_guard(words: tuple[Word, ...], stdin: Sequence[Word], cwds: list[str], scope: PathScope,
                v: Verdict) -> None:
    """Check every file ``patch`` (``words``, program first) would write, in each possible cwd."""
    named_writes_guard(lambda cwd: patch_writes(words, cwd, stdin), cwds, scope, v, "patch")


def patch_writes(words: Sequence[Word], cwd: str, stdin: Sequence[Word]) -> tuple[str | None, list[str]]:
    """``(why it must ask, the paths it writes)`` for ``patch …`` run in ``cwd``."""
    options: dict[str, str] = {}
    operands: list[str] = []
    args = list(words[1:])
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None:
            return "patch has a word only known at run time", []
        i += 1
        if text == "--dry-run":
            return None, []
        if text.startswith("-") and text != "-":
            if text.startswith("--"):
                key, eq, value = text.partition("=")
                takes = key in _LONG_VALUE and not eq
                key = _LONG_NAMES.get(key, key)
            else:
                key, value = text[:2], text[2:]
                takes = key in _VALUE and not value
            if takes:
                following = args[i].literal if i < len(args) else ""
                if following is None:
                    return f"patch {key} has a value only known at run time", []
                value = following
                i += 1
            options[key] = value
        else:
            operands.append(text)
    return _writes(options, operands, cwd, stdin)


def _writes(options: dict[str, str], operands: list[str], cwd: str, stdin: Sequence[Word]
            ) -> tuple[str | None, list[str]]:
    if any(key in options for key in _ELSEWHERE):
        return "patch writes backups or rejects where its options say", []
    folder = options.get("-d", "")
    if "-o" in options:
        output = options["-o"]
        return None, [] if output == "-" else [os.path.join(folder, output)]
    if operands:  # ORIGFILE [PATCHFILE]: the one file patched
        return None, [os.path.join(folder, operands[0])]
    # -i FILE is read after -d's cd; a redirected stdin was opened before it
    sources = [os.path.join(folder, options["-i"])] if "-i" in options else []
    if not sources:
        if not stdin or any(w.literal is None for w in stdin):
            return "patch reads its patch from a pipe or heredoc, so the files it writes are unknown", []
        sources = [w.literal or "" for w in stdin]
    strip = options.get("-p")
    if strip is not None and not strip.isdigit():
        return f"patch -p{strip} is not a number", []
    paths: list[str] = []
    for source in sources:
        try:
            with open_regular(os.path.join(cwd, source)) as f:
                data = f.read(_MAX_PATCH + 1)
        except OSError:
            return f"patch reads {source}, which cannot be read now", []
        if len(data) > _MAX_PATCH:
            return f"patch reads {source}, too large to check", []
        for name in patch_paths(data.decode("utf-8", "surrogateescape"), 0):
            if name is None:
                return "patch applies a patch that names a file in a form this check does not read", []
            paths.extend(_endings(name, None if strip is None else int(strip)))
    return None, [os.path.join(folder, p) for p in dict.fromkeys(paths)]


def _endings(name: str, strip: int | None) -> list[str]:
    """The path patch writes for ``name``: with ``-pN`` one; without, every ending (a/b/c, b/c, c)."""
    if strip is not None:
        return ["/".join(name.split("/")[strip:])] if len(name.split("/")) > strip else []
    parts = [p for p in name.split("/") if p]
    return [name] + ["/".join(parts[k:]) for k in range(1, len(parts))]


__all__ = ["patch_guard", "patch_writes"]
