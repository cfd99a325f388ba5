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
    """Move a pattern's literal leading folders into the root: ``/a/b/**/*.py`` → (/a/b, ``**/*.py``).

    Relative patterns too (``src/**/*.ts`` → (root/src, ``**/*.ts``)), so rg walks only that
    folder; ``.`` and ``..`` among those folders are collapsed (rg globs cannot climb).  The glob
    that remains is matched by rg relative to the new root (rg runs there); when it has no slash
    left it is anchored with a leading ``/``, so ``src/*.ts`` still means files directly in
    ``src``, not ``*.ts`` at any depth.  A pattern without a slash (``*.py``) is left alone: it
    matches names at any depth.
    """
    if os.path.isabs(pattern):
        parts = Path(pattern).parts
        root, parts = Path(parts[0]), parts[1:]
    elif "/" not in pattern.rstrip("/"):
        return root, pattern
    else:
        parts = tuple(pattern.split("/"))
    taken = 0
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part) or "\\" in part:
            break
        taken += 1
        if part == "..":
            root = root.parent
        elif part not in ("", "."):
            root = root / part
    rest = "/".join(parts[taken:])
    if "/" not in rest:
        rest = "/" + rest
    return root, rest
