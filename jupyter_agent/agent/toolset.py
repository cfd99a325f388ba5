"""Which tools a session has, and how they are described to the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.context import ToolUseOptions
from ..core.permission_types import ToolPermissionContext
from ..core.registry import TOOL_TARGETS, filter_tools_by_deny_rules, get_all_base_tools, load_tool
from ..core.tool import Tool


def _registry_tools() -> tuple[list[Tool[Any, Any]], list[str]]:
    """Every base tool; a tool whose module fails to import is left out and reported."""
    try:
        return get_all_base_tools(), []
    except Exception:
        pass
    good: dict[str, str] = {}
    broken: list[str] = []
    for name, target in TOOL_TARGETS.items():
        try:
            load_tool(target)
        except Exception as exc:
            broken.append(f"{name}: {type(exc).__name__}: {exc}")
        else:
            good[name] = target
    return get_all_base_tools(targets=good), broken


def select_tools(
    tools: Sequence[Tool[Any, Any]] | None, permission_context: ToolPermissionContext
) -> tuple[list[Tool[Any, Any]], list[str]]:
    """The session's tools (given, or the registry's) minus those denied by name; and load errors."""
    broken: list[str] = []
    if tools is None:
        base, broken = _registry_tools()
    else:
        base = list(tools)
    return filter_tools_by_deny_rules(base, permission_context), broken


async def api_tools(tools: Sequence[Tool[Any, Any]], options: ToolUseOptions) -> list[dict[str, Any]]:
    """Tool definitions for the request: enabled, not deferred, in a stable order (it caches)."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        if tool.should_defer or not tool.is_enabled():
            continue
        out.append(dict(await tool.to_api_tool(options)))
    return out
