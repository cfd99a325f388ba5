"""What bash does to a bare word's characters before it runs: tilde and brace expansion.

Text-only tests shared by ``bash_words`` (the general reader) and ``bash_fastparse``.
"""

from __future__ import annotations

import re

_ASSIGNMENT_TILDE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=(?:~|.*:~)", re.DOTALL)


def tilde_expands(text: str) -> bool:
    """Bash expands this unquoted ``~``: a leading one, or in an argument that looks like an
    assignment, one after the ``=`` or a ``:`` (``p=~/x``, ``P=a:~/b``; not ``--file=~/x``)."""
    return text.startswith("~") or _ASSIGNMENT_TILDE.match(text) is not None


def dir_stack_tilde(text: str) -> bool:
    """``~+``, ``~-``, ``~2``, ``~+1``: bash expands them from $PWD, $OLDPWD and the directory
    stack as they are when the word runs, so the path is only known at run time."""
    if not text.startswith("~"):
        return False
    prefix = text[1:].split("/", 1)[0]
    return prefix in ("+", "-") or prefix.lstrip("+-").isdigit()


def plain_line(line: str) -> bool:
    """No character in ``line`` makes a bare word dynamic, a glob, a brace or a problem."""
    return not (
        "$" in line or "`" in line or "\\" in line or "*" in line or "?" in line or "[" in line
        or "{" in line or "~" in line
    )


def is_brace(value: str) -> bool:
    """Brace expansion: ``{a,b}`` or ``{1..3}``."""
    return "{" in value and "}" in value and ("," in value or ".." in value)
