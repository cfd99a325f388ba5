"""What the words of a command name: a pattern expanded as bash would expand it right now
(``.e*``, ``{.env,a}``), and the paths a word carries inside it (``if=.env``, ``@.env``).

Used by the Bash path checks (``bash_paths.py``): a pattern whose files cannot be listed exactly
gives ``None`` and the caller asks.
"""

from __future__ import annotations

import glob as globlib
import os

from .bash_braces import expand_braces
from .bash_words import Word, exact_braces
from .bash_wordshape import is_brace

MAX_GLOB_MATCHES = 200


def embedded_paths(value: str) -> list[str]:
    """``value`` and the paths it may carry: after ``=`` (``if=.env``, ``f=@.env``, ``f=<.env``)
    and after the last ``@`` (``@.env``, ``name@.env``)."""
    paths = [value]
    if "=" in value:
        tail = value.split("=", 1)[1]
        paths.append(tail)
        if tail[:1] == "<":
            paths.append(tail[1:])
    if "@" in value:
        paths.append(value.rsplit("@", 1)[1])
    return [p for p in paths if p]


def expanded(word: Word, cwd: str) -> list[str] | None:
    """``word`` (static, with braces or glob characters) expanded as bash would now, or None
    when that cannot be told exactly (or names too many files to check)."""
    text = word.text
    if is_brace(text) and not exact_braces(word):
        return None  # quoted or escaped brace characters: its text does not show which are bash's
    pieces = expand_braces(text)
    if pieces is None:
        return None
    found: list[str] = []
    for piece in pieces:
        if not any(c in piece for c in "*?["):
            found.append(piece)
            continue
        if not globs_like_bash(piece):
            return None
        pattern = os.path.expanduser(piece)
        matches = globlib.glob(pattern, root_dir=cwd) if not os.path.isabs(pattern) else globlib.glob(pattern)
        found.extend(matches or [piece])
        if len(found) > MAX_GLOB_MATCHES:
            return None
    return found


def globs_like_bash(pattern: str) -> bool:
    """Does Python's ``glob`` list what bash would for ``pattern``?  Not for brace expansion
    (``{.env,x}``), ``[^…]`` (bash negates, Python matches ``^``), POSIX classes
    (``[[:alpha:]]``) or backslash escapes (Python's glob has none)."""
    if "{" in pattern or "\\" in pattern:  # braces are expanded before (bash_braces)
        return False
    return "[" not in pattern or not ("^" in pattern or "[[" in pattern or "[:" in pattern)


__all__ = ["MAX_GLOB_MATCHES", "embedded_paths", "expanded", "globs_like_bash"]
