"""``docker build .`` sends the whole folder to the image builder, ``.env`` included unless
``.dockerignore`` leaves it out; ``COPY . .`` then puts it in the image, and ``docker run img
cat .env`` prints it.  Under ``Bash(docker:*)`` with ``Read(./.env)`` denied, that is a read of
``.env`` in two steps, so a build whose context holds a file a ``Read`` deny rule covers — and
that its ``.dockerignore`` does not leave out — asks.

``.dockerignore`` is read as Docker reads it (``moby/patternmatcher``): patterns from the
context's root (a leading ``/`` changes nothing), ``*`` and ``?`` within one name, ``**`` across
folders, ``!`` to take a pattern back, the last matching line deciding, and a folder left out
taking what is below it along.  ``-f DIR/NAME`` with a ``DIR/NAME.dockerignore`` beside it uses
that file instead, as BuildKit does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from .bash_words import Word
from .paths import open_regular_text

_BUILD_PATHS = (("build",), ("buildx", "build"), ("image", "build"), ("builder", "build"))
_MAX_FILES = 20_000


def build_context(words: Sequence[Word]) -> tuple[str | None, str | None] | None:
    """``(context folder, Dockerfile given with -f)`` for ``docker|podman|nerdctl build …``;
    ``(None, None)`` when the context is only known at run time; None when not a build (or
    the context is not a local folder: a URL, ``-`` for standard input)."""
    args = [w.literal for w in words[1:]]
    plain = [a for a in args if a is not None and a[:1] != "-"]
    path = next((p for p in _BUILD_PATHS if tuple(plain[:len(p)]) == p), None)
    if path is None:
        return None
    last = words[-1]
    if last.literal is None:
        return (None, None) if last.text[:1] != "-" else None
    context = last.literal
    if len(plain) <= len(path) or context != plain[-1] or "://" in context or context.startswith("git@"):
        return None  # no context word (docker refuses), an option last, or a remote context
    dockerfile = None
    for i, arg in enumerate(args):
        if arg in ("-f", "--file") and i + 1 < len(args):
            dockerfile = args[i + 1]
        elif arg is not None and arg.startswith("--file="):
            dockerfile = arg.partition("=")[2]
        elif arg is not None and arg.startswith("-f") and len(arg) > 2 and arg[1:2] != "-":
            dockerfile = arg[2:]
    return context, dockerfile


def ignore_rules(context: str, dockerfile: str | None, cwd: str) -> list[tuple[re.Pattern[str], bool]]:
    """The ``(pattern, excludes)`` lines of the ignore file that applies (empty: none)."""
    candidates = []
    if dockerfile:
        candidates.append(os.path.join(cwd, dockerfile) + ".dockerignore")
    candidates.append(os.path.join(context, ".dockerignore"))
    for path in candidates:
        try:
            with open_regular_text(path, encoding="utf-8", errors="replace") as f:
                return parse_dockerignore(f.read())
        except OSError:
            continue
    return []


def parse_dockerignore(text: str) -> list[tuple[re.Pattern[str], bool]]:
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        excludes = not line.startswith("!")
        if not excludes:
            line = line[1:].strip()
        pattern = os.path.normpath(line).replace(os.sep, "/").lstrip("/")
        if pattern in ("", "."):
            continue
        rules.append((re.compile(_translate(pattern)), excludes))
    return rules


def _translate(pattern: str) -> str:
    """Docker's pattern as a regular expression over ``/``-separated paths."""
    out, i, n = ["^"], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern[i + 1:i + 2] == "*":
                i += 2
                if pattern[i:i + 1] == "/":  # **/: any number of folders
                    i += 1
                    out.append("(?:.*/)?")
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body[:1] == "^" else body) + "]")
                i = end
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    out.append("$")
    return "".join(out)


def ignored(path: str, rules: list[tuple[re.Pattern[str], bool]]) -> bool:
    """Is the ``/``-separated ``path`` (from the context's root) left out of the build?"""
    parents = path.split("/")
    candidates = ["/".join(parents[:k]) for k in range(1, len(parents) + 1)]
    verdict = False
    for pattern, excludes in rules:
        if any(pattern.match(c) for c in candidates):
            verdict = excludes
    return verdict


def sent_denied_file(folder: str, rules: list[tuple[re.Pattern[str], bool]],
                     denied: Callable[[str], str | None]) -> tuple[str, str] | None:
    """``(path, rule)`` of a file below the real ``folder`` that the build would send and a
    ``Read`` deny rule covers (``denied(real path)`` gives the rule); ``("", "")`` when there
    are too many files to look at; None when there is none."""
    seen = 0
    for top, _dirs, files in os.walk(folder):
        rel_top = os.path.relpath(top, folder).replace(os.sep, "/")
        rel_top = "" if rel_top == "." else rel_top + "/"
        for name in files:
            seen += 1
            if seen > _MAX_FILES:
                return "", ""
            rule = denied(os.path.join(top, name))
            if rule is not None and not ignored(rel_top + name, rules):
                return rel_top + name, rule
    return None


__all__ = ["build_context", "ignore_rules", "ignored", "parse_dockerignore", "sent_denied_file"]
