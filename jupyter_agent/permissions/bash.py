"""Bash command analysis for permissions (the Bash tool calls these)."""

from __future__ import annotations

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionPassthrough, PermissionResult


def check_bash_permission(command: str, context: ToolUseContext) -> PermissionResult:
    """Allow / deny / ask for a whole command line; passthrough means "ask unless allowed"."""
    return PermissionPassthrough(message=f"Run: {command}")


def is_read_only_command(command: str, context: ToolUseContext) -> bool:
    """True only when every part of ``command`` is proven read-only (fail closed)."""
    return False
