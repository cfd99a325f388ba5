"""Copies whose names come from their sources: ``cp -r src/. out/`` where ``src`` holds
``.claude/settings.local.json`` creates ``out/.claude/settings.local.json``, and ``scp
host:.mcp.json .`` creates ``.mcp.json``, though no argument spells either.

For ``cp``, ``rsync`` and ``scp``: a folder copied recursively that holds a protected folder or
file among its entries asks (as ``protected_inside`` finds them: its own entries, not deeper
ones); a file from another machine lands under its own name, checked like a direct write; a
folder from another machine (names only it knows), ``--files-from`` and a word known only at run
time ask.  This runs in every mode, like the other checks of protected paths.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .bash_verdict import Verdict, resolved_once
from .bash_words import Word, long_option_named
from .compiled import PathScope
from .git_guards import check_named_writes
from .paths import protected_inside

COPY_PROGRAMS = frozenset({"cp", "rsync", "scp"})
_VALUE = {
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "rsync": frozenset({"-e", "--rsh", "--rsync-path", "--port", "-f", "--filter", "--exclude", "--include",
                        "-T", "--temp-dir", "--backup-dir", "--suffix", "--partial-dir", "--compare-dest",
                        "--link-dest", "--copy-dest", "--chmod", "--chown", "-B", "--block-size",
                        "--timeout", "--bwlimit", "--log-file", "--password-file", "--exclude-from",
                        "--include-from", "--max-size", "--min-size", "--usermap", "--groupmap"}),
    "scp": frozenset({"-P", "-i", "-o", "-F", "-l", "-S", "-c", "-J", "-D", "-X"}),
}
_RECURSIVE = {"cp": ("r", "R", "a"), "rsync": ("r", "a"), "scp": ("r",)}
_LONG_RECURSIVE = frozenset({"--recursive", "--archive"})


def copy_guard(words: tuple[Word, ...], cwds: list[str], scope: PathScope, v: Verdict) -> None:
    program = words[0].literal or ""
    parsed = _parse(program, words[1:])
    if parsed is None:
        return  # no copy (a lone operand: cp fails)
    if isinstance(parsed, str):
        v.sticky.append(parsed)
        return
    recursive, sources, dest, into_folder = parsed
    for cwd in cwds:
        for source in sources:
            if not _source_check(program, source, dest, into_folder, recursive, cwd, scope, v):
                return


def _parse(program: str, args: Sequence[Word]) -> tuple[bool, list[str], str, bool] | str | None:
    """``(recursive, sources, destination, into a folder)``, a reason to ask, or None (no copy)."""
    valued = _VALUE[program]
    recursive, operands, target, unknown = False, [], None, False
    i = 0
    while i < len(args):
        text = args[i].literal
        i += 1
        if text is None:  # a pattern or expansion: a folder or a remote name only at run time
            unknown = True
            continue
        if text.startswith("--"):
            key, eq, value = text.partition("=")
            if long_option_named(key, ("--files-from",), 4):  # (or its beginning, as getopt takes it)
                return f"{program} --files-from copies names a file lists"
            if program == "rsync" and long_option_named(key, ("--read-batch",), 4):
                return "rsync --read-batch writes the files its batch names"
            recursive = recursive or key in _LONG_RECURSIVE
            if key in valued and not eq:
                value = (args[i].literal if i < len(args) else "") or ""
                i += 1
            if key == "--target-directory":
                target = value
        elif text.startswith("-") and text != "-":
            recursive = recursive or any(letter in text[1:] for letter in _RECURSIVE[program])
            if program == "cp" and text.startswith("-t") and len(text) > 2:
                target = text[2:]  # -tDIR
            elif text[:2] in valued and len(text) == 2:
                value = (args[i].literal if i < len(args) else "") or ""
                i += 1
                if text == "-t":
                    target = value
        else:
            operands.append(text)
    if unknown and (recursive or program != "cp"):
        return f"{program} has a word only known at run time"
    if target is not None:
        return (recursive, operands, target, True) if operands else None
    if len(operands) < 2:
        return None
    return recursive, operands[:-1], operands[-1], len(operands) > 2 or operands[-1].endswith("/")


def _remote(path: str) -> bool:
    head, colon, _rest = path.partition(":")
    return path.startswith("rsync://") or (bool(colon) and "/" not in head and bool(head))


def _source_check(program: str, source: str, dest: str, into_folder: bool, recursive: bool, cwd: str,
                  scope: PathScope, v: Verdict) -> bool:
    """False once the copy of ``source`` asks (recorded in ``v``)."""
    if _remote(source):
        if recursive:
            v.sticky.append(f"{program} copies a folder from another machine ({source}): the names it "
                            "writes are known only there")
            return False
        name = os.path.basename(source.partition(":")[2].rstrip("/"))
        folder = into_folder or os.path.isdir(os.path.join(cwd, dest))
        return not name or check_named_writes([os.path.join(dest, name) if folder else dest], cwd, scope, v, "copy")
    if not recursive:
        return True
    resolved = resolved_once(source, cwd, v)
    if resolved is None or not os.path.isdir(resolved[1]):
        return True
    inside = protected_inside(resolved[1])
    if inside is not None:
        v.sticky.append(f"{program} copies {source}, which holds {inside}")
        return False
    return True


__all__ = ["COPY_PROGRAMS", "copy_guard"]
