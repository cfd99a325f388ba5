"""Path permissions for the file tools (Read, Write, Edit, NotebookEdit, Glob, Grep).

The file tools call ``check_read_permission`` / ``check_write_permission`` from their
``check_permissions``; rules, modes, protected paths and symlink handling live here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionResult,
    PermissionUpdate,
)


def working_directories(context: ToolUseContext) -> list[Path]:
    """The project directory (or cwd) plus ``additionalDirectories``, as real paths."""
    pc = context.permission_context
    roots = [pc.project_dir or context.cwd, *pc.additional_directories]
    return [Path(os.path.realpath(r)) for r in roots]


def is_in_working_directories(path: str | os.PathLike[str], context: ToolUseContext) -> bool:
    """Compare by path components after resolving symlinks (``/w/proj-evil`` ∉ ``/w/proj``)."""
    real = Path(os.path.realpath(os.path.expanduser(os.fspath(path))))
    return any(real == root or root in real.parents for root in working_directories(context))


def check_read_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    if is_in_working_directories(path, context):
        return PermissionAllow(reason="inside the working directories")
    return PermissionAsk(
        f"{tool.name} wants to read {path}, outside the working directories.",
        suggestions=(PermissionUpdate(rules=(f"Read(/{Path(path).parent}/**)",), destination="session"),),
    )


def check_write_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    inside = is_in_working_directories(path, context)
    if inside and context.permission_context.mode == "acceptEdits":
        return PermissionAllow(reason="acceptEdits mode")
    return PermissionAsk(
        f"{tool.name} wants to write {path}.",
        suggestions=(PermissionUpdate(rules=(tool.name,), destination="session"),),
    )
