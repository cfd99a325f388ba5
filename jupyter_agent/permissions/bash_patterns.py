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
from .bash_wordshape import dir_stack_tilde, is_brace, tilde_expands

MAX_GLOB_MATCHES = 200


def embedded_paths(value: str) -> list[str]:
    """``value`` and the paths it may carry: after ``=`` (``if=.env``, ``f=@.env``, ``f=<.env``)
    and after the last ``@`` (``@.env``, ``name@.env``) or ``file://``/``fileb://``
    (``--secret-string file://.env``).  A form field's files are read as curl
    and httpie read them: ``f=@.env;type=text/plain`` and ``f=@".env"`` name ``.env``, and
    ``f=@a.txt,.env`` names both (``field_files``)."""
    paths = [value]
    if "=" in value:
        tail = value.split("=", 1)[1]
        paths.append(tail)
        if tail[:1] in ("<", "@"):
            paths.extend(field_files(tail[1:]))
    if "@" in value:
        paths.extend(field_files(value.rsplit("@", 1)[1]))
    if "://" in value:  # the AWS CLI reads a parameter from file://PATH or fileb://PATH (PATH as written)
        lowered = value.lower()
        for prefix in ("file://", "fileb://"):
            at = lowered.find(prefix)
            if at == 0 or at > 0 and value[at - 1] == "=":  # a word or an option's value, not inside a URL
                paths.append(value[at + len(prefix):])
    return [p for p in dict.fromkeys(paths) if p]


def field_files(text: str) -> list[str]:
    """``text`` and the files a form field's value after ``@``/``<`` names (curl's ``-F``,
    httpie's ``f@FILE``): comma-separated names, each bare or in double quotes (``\\``
    escapes inside), up to a ``;`` that starts the field's parameters (``;type=…``)."""
    found = [text]
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            name, i = _quoted(text, i + 1)
        else:
            end = i
            while end < n and text[end] not in ",;":
                end += 1
            name, i = text[i:end], end
        found.append(name)
        if i >= n or text[i] != ",":
            break
        i += 1
    return found


def _quoted(text: str, i: int) -> tuple[str, int]:
    """The double-quoted name starting after the quote at ``i - 1``, and where it ends."""
    out: list[str] = []
    while i < len(text) and text[i] != '"':
        if text[i] == "\\" and i + 1 < len(text):
            i += 1
        out.append(text[i])
        i += 1
    return "".join(out), i + 1


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
        if piece[:1] != "~" and "~" in piece and tilde_expands(piece):  # of=~/x, P=a:~+/b
            done = _assignment_tildes(piece, cwd)
            if done is None:
                return None
            piece = done
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


def _assignment_tildes(piece: str, cwd: str) -> str | None:
    """An argument that looks like an assignment (``of=~/x``, ``P=a:~+/b``) with bash's tilde
    expansion after the ``=`` and each ``:`` done: ``~`` and ``~user`` are home folders, ``~+``
    the folder the command runs in; None for ``~-`` and ``~N`` (the previous folder, the
    directory stack: only known at run time)."""
    name, _, value = piece.partition("=")
    parts = []
    for part in value.split(":"):
        if part[:1] == "~":
            prefix, slash, rest = part.partition("/")
            if prefix == "~+":
                part = cwd + slash + rest
            elif dir_stack_tilde(part):
                return None
            else:  # ~ and ~user (an unknown user stays as written, as in bash)
                part = os.path.expanduser(prefix) + slash + rest
        parts.append(part)
    return name + "=" + ":".join(parts)


def globs_like_bash(pattern: str) -> bool:
    """Does Python's ``glob`` list what bash would for ``pattern``?  Not for brace expansion
    (``{.env,x}``), ``[^…]`` (bash negates, Python matches ``^``), POSIX classes
    (``[[:alpha:]]``) or backslash escapes (Python's glob has none)."""
    if "{" in pattern or "\\" in pattern:  # braces are expanded before (bash_braces)
        return False
    return "[" not in pattern or not ("^" in pattern or "[[" in pattern or "[:" in pattern)


__all__ = ["MAX_GLOB_MATCHES", "embedded_paths", "expanded", "field_files", "globs_like_bash"]
