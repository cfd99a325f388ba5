"""Keep Read-denied files out of search results (Grep content and file lists, Glob).

A search over a folder must not show what ``Read(...)`` deny rules forbid reading.  When no
deny rule can match below the search root, nothing is filtered and nothing is paid.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..core.context import ToolUseContext
from ..permissions.filesystem import read_denied, read_deny_rule_below

IsDenied = Callable[[str], bool]
_LINE_NO = re.compile(r"^(\d+)([:-])")


def denied_filter(root: Path, context: ToolUseContext) -> IsDenied | None:
    """A cached ``path -> denied?`` check, or None when no deny rule reaches below ``root``."""
    folder = root if root.is_dir() else root.parent
    if read_deny_rule_below(str(folder), context) is None and not read_denied(str(root), context):
        return None
    cache: dict[str, bool] = {}

    def is_denied(path: str) -> bool:
        if path not in cache:
            cache[path] = read_denied(str(folder / path), context)
        return cache[path]

    return is_denied


def drop_denied_paths(paths: Iterable[str], is_denied: IsDenied) -> list[str]:
    return [p for p in paths if not is_denied(p)]


def drop_denied_records(lines: Iterable[str], is_denied: IsDenied) -> list[str]:
    """Lines of ``rg --null`` output (``path\\0rest``) without denied files, path separator restored."""
    out: list[str] = []
    for line in lines:
        path, nul, rest = line.partition("\0")
        if not nul:  # "--" between context groups
            if out and out[-1] != "--":
                out.append(line)
            continue
        if is_denied(path):
            continue
        m = _LINE_NO.match(rest)
        out.append(f"{path}{m.group(2) if m else ':'}{rest}")
    while out and out[-1] == "--":
        out.pop()
    return out
