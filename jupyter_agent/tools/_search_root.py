"""Where Glob and Grep search: the ``path`` input (or the cwd), checked to exist."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.context import ToolUseContext
from ..errors import ToolError
from ._paths import resolve_path

_GLOB_CHARS = set("*?[]{}")


def search_root(path: str | None, context: ToolUseContext) -> Path:
    """The absolute folder (or file, for Grep) to search; the cwd when ``path`` is empty."""
    return resolve_path(path, context) if path else Path(context.cwd)


def require_existing(root: Path, *, directory: bool) -> None:
    if not os.path.exists(root):
        raise ToolError(f"Path does not exist: {root}. Check the path, or omit it to search the working directory.")
    if directory and not os.path.isdir(root):
        raise ToolError(f"Path is not a directory: {root}. Give the folder to search in.")


def split_glob(pattern: str, root: Path) -> tuple[Path, str]:
    """Move an absolute pattern's literal leading folders into the root: ``/a/b/**/*.py`` → (/a/b, ``**/*.py``).

    Leading ``./`` and ``../`` of a relative pattern move into the root as well.
    """
    if not os.path.isabs(pattern):
        while pattern.startswith(("../", "./")):  # rg globs cannot climb: move ".." into the root
            head, _, pattern = pattern.partition("/")
            root = root.parent if head == ".." else root
        return root, pattern
    parts = Path(pattern).parts
    literal: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        literal.append(part)
    rest = parts[len(literal):]
    return Path(*literal), "/".join(rest)
