"""How a POSIX shell reads its own command line: ``bash [options] [-c CODE | -s | FILE] [args]``.

As bash 5.2 (and dash) do it: option words start with ``-`` or ``+`` and may be clusters, and
each ``o``/``O`` in a cluster takes the next word as its value, in order — ``bash -eo pipefail
-c 'rm x'`` runs ``rm x`` (the ``pipefail`` is ``-o``'s, not a script file), as do ``bash -Oc
dotglob 'rm x'`` and ``bash -c -O dotglob 'rm x'``: options go on after ``-c`` until the first
operand, which is then the code.  ``c`` and ``s`` count whatever their sign (``bash +c x`` runs
``x`` as code); ``-c`` wins over ``-s``.  A lone ``-`` ends the options as ``--`` does (``bash -
x.sh`` runs ``x.sh``; ``bash -`` reads standard input).  GNU long options come as whole words;
``--rcfile FILE`` (``--init-file``) names the file an interactive shell (``-i``) runs first.

The options that change how the code is read (``-O dotglob``, ``-o keyword``, ``-k``; not ``-e``
or ``-o pipefail``) are given back as ``prelude``: shell code meaning the same (``shopt -s
dotglob``), which the analysis puts before the code the shell runs, so that ``bash -O dotglob
-c 'cat ?env'`` is read as ``shopt -s dotglob; cat ?env`` is.  Code zsh runs gets ``emulate zsh``
first: zsh's patterns are not bash's (``**/.env`` takes ``./.env``; ``setopt globdots``), and
``emulate`` is one of the builtins that change what the rest of a line means
(``bash_evaluated``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from .bash_evaluated import changes_meaning

_WITH_VALUE = frozenset({"--rcfile", "--init-file"})
_NO_SETTING = frozenset("ilrD")  # interactive, login, restricted, dump strings: the rest are `set`'s
ZSH = frozenset({"zsh"})


@dataclass(frozen=True, slots=True)
class ShellCall:
    """``mode``: ``"command"`` (``-c``: ``operand`` is the code, None when there is none),
    ``"stdin"`` (``-s``, or no operand: the shell runs what it reads), ``"file"`` (``operand``
    is the script), or ``"unknown"`` (``operand`` is the first word only known at run time where
    an option or the operand stands).  ``operand`` indexes the words given to ``shell_call``."""

    mode: str
    operand: int | None
    prelude: str = ""
    rcfile: int | None = None  # -i with --rcfile/--init-file FILE: FILE runs first (its index)


def shell_call(texts: Sequence[str | None], program: str = "bash") -> ShellCall:
    """The shell ``program``'s command line, ``texts`` the words after the program's name (None:
    a word only known at run time)."""
    settings: list[list[str]] = []
    command = stdin = interactive = False
    rcfile = None
    i = 0
    while i < len(texts):
        text = texts[i]
        if text is None:
            if command:  # bash -c "$X": the code (or an option) only known at run time
                break
            return ShellCall("unknown", i)
        if text in ("--", "-"):
            i += 1
            break
        if text[:1] not in "-+" or len(text) < 2:
            break
        i += 1
        if text.startswith("--"):
            if text in _WITH_VALUE:
                if i < len(texts) and texts[i] is None:
                    return ShellCall("unknown", i)
                rcfile, i = i, i + 1
            continue
        sign = text[0]
        for letter in text[1:]:
            if letter in "oO":
                value = texts[i] if i < len(texts) else ""
                if value is None:
                    return ShellCall("unknown", i)
                i += 1
                if value:  # (-o alone prints the settings)
                    settings.append(_setting(sign, letter, value, program))
            elif letter == "c":
                command = True
            elif letter == "s":
                stdin = True
            elif letter == "i":
                interactive = True
            elif letter not in _NO_SETTING:
                settings.append(["set", f"{sign}{letter}"])
    meant = [shlex.join(s) for s in settings if changes_meaning(s[0], s[1:]) is not None]
    prelude = "".join(f"{s}\n" for s in (["emulate zsh"] if program in ZSH else []) + meant)
    rcfile = rcfile if interactive and rcfile is not None and rcfile < len(texts) else None
    if command:
        return ShellCall("command", i if i < len(texts) else None, prelude, rcfile)
    if stdin or i >= len(texts):
        return ShellCall("stdin", None, prelude, rcfile)
    return ShellCall("file", i, prelude, rcfile)


def _setting(sign: str, letter: str, value: str, program: str) -> list[str]:
    """The builtin meaning ``-o NAME``/``+O NAME`` …: ``set -o NAME``, ``shopt -s NAME``
    (zsh's ``-o NAME``: ``setopt NAME``)."""
    if program in ZSH:
        return ["setopt" if sign == "-" else "unsetopt", value]
    if letter == "O":
        return ["shopt", "-s" if sign == "-" else "-u", value]
    return ["set", f"{sign}o", value]


__all__ = ["ShellCall", "ZSH", "shell_call"]
