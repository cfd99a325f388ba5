"""Programs that read whole folders when a rule allows them: ``tar cf - .``, ``cp -r . /tmp/x``,
``rsync -a . host:``, ``zip -r x.zip .``, ``find . -exec cat {} +``.

None of them is read-only, so they run only when a rule (``Bash(tar:*)``) or the user allows
them.  A ``Read`` deny rule must hold even then: the folder they copy, archive or hand file by
file to another program holds the denied file under its own name.  ``copied_sources`` names
the operands such a command reads recursively; the caller asks when a ``Read`` deny rule may
match below one of them.  Destinations are left out (``cp a.txt .`` writes into ``.``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_readonly import option_arguments
from .bash_words import Word

_LAST_IS_DESTINATION = frozenset({"cp", "rsync", "scp"})
_ARCHIVERS_7Z = frozenset({"7z", "7za", "7zz"})
_TAR_CREATE_LONG = ("--create", "--append", "--update", "--concatenate", "--catenate")
_FIND_RUNNERS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
COPYING_PROGRAMS = _LAST_IS_DESTINATION | _ARCHIVERS_7Z | {"tar", "zip", "find"}


def copied_sources(words: Sequence[Word]) -> list[str]:
    """The fixed operands ``words`` (program first) reads every file below, if it is a copier."""
    program = words[0].literal if words else None
    args = [w.literal for w in words[1:]]
    fixed = [a for a in args if a is not None]
    operands = [a for a in fixed if a[:1] != "-" or a == "-"]
    if program in _LAST_IS_DESTINATION:
        if program == "cp" and option_arguments(words[1:], "t", "--target-directory"):
            return operands  # -t DIR: every operand is a source (DIR too: harmless, it is written)
        return operands[:-1]
    if program == "tar":
        return operands if tar_creates(fixed) else []
    if program == "zip":
        return operands[1:]  # zip ARCHIVE SOURCES…
    if program in _ARCHIVERS_7Z:
        return operands[2:] if operands[:1] in (["a"], ["u"]) else []
    if program == "find":
        return find_starts(fixed) if any(a in _FIND_RUNNERS for a in fixed) else []
    return []


def tar_creates(args: Sequence[str]) -> bool:
    """``tar c…``/``-c``/``--create`` (or append, update): it reads its operands."""
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            if any(long.startswith(arg.split("=", 1)[0]) for long in _TAR_CREATE_LONG) and len(arg) > 3:
                return True
        elif (arg.startswith("-") or i == 0) and set(arg.lstrip("-")) & {"c", "r", "u"}:
            return True  # a cluster, or tar's old style first word (czf)
    return False


def find_starts(args: Sequence[str]) -> list[str]:
    """find's starting points: the words after ``-H``/``-L``/``-P``/``-D …``/``-O…`` and before
    the expression (``.`` when there are none)."""
    starts: list[str] = []
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-D") or (i < len(args) and args[i][:2] == "-O"):
        i += 2 if args[i] == "-D" else 1
    for arg in args[i:]:
        if arg[:1] in ("-", "(", "!", ")") or arg == ",":
            break
        starts.append(arg)
    return starts or ["."]


__all__ = ["COPYING_PROGRAMS", "copied_sources", "find_starts", "tar_creates"]
