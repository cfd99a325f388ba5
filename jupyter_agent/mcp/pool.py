"""The tool pool of a session and the tools sent with each request (deferral + ToolSearch).

``assemble_tool_pool`` = base tools + MCP tools, minus denied ones, with deferral decided.
``tools_for_request`` = what one Messages request carries: every tool that is not deferred
plus the deferred ones ToolSearch has discovered (``app_state.extra["discovered_tools"]``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from ..core.permission_types import ToolPermissionContext
from ..core.registry import filter_tools_by_deny_rules
from ..core.tool import Tool

if TYPE_CHECKING:
    from ..core.context import AppState
    from .manager import McpManager

DISCOVERED_KEY = "discovered_tools"
TOOL_SEARCH_NAME = "ToolSearch"
TOOL_SEARCH_ENV = "JUPYTER_AGENT_TOOL_SEARCH"
RESOURCE_TOOL_NAMES = frozenset({"ListMcpResourcesTool", "ReadMcpResourceTool"})
DeferMode = Literal["auto", "always", "never"]


@dataclass(frozen=True)
class DeferPolicy:
    """When MCP tools are deferred: ``always``, ``never``, or ``auto`` (more than N of them)."""

    mode: DeferMode = "auto"
    auto_threshold: int = 10

    @classmethod
    def from_env(cls) -> DeferPolicy:
        """``JUPYTER_AGENT_TOOL_SEARCH`` = auto | auto:N | always | never (default auto)."""
        raw = os.environ.get(TOOL_SEARCH_ENV, "auto").strip().lower()
        mode, _, n = raw.partition(":")
        if mode in ("true", "1", "on"):
            mode = "always"
        if mode in ("false", "0", "off"):
            mode = "never"
        if mode not in ("auto", "always", "never"):
            mode = "auto"
        threshold = int(n) if n.isdigit() else cls.auto_threshold
        return cls(mode=mode, auto_threshold=threshold)  # type: ignore[arg-type]

    def defer_mcp(self, mcp_tool_count: int) -> bool:
        if self.mode == "always":
            return mcp_tool_count > 0
        if self.mode == "never":
            return False
        return mcp_tool_count > self.auto_threshold


def is_mcp_tool(tool: Tool[Any, Any]) -> bool:
    return tool.name.startswith("mcp__")


def is_deferred(tool: Tool[Any, Any]) -> bool:
    """Deferred tools are not sent until discovered; ToolSearch itself never is."""
    return bool(getattr(tool, "should_defer", False)) and tool.name != TOOL_SEARCH_NAME


async def assemble_tool_pool(
    base_tools: Sequence[Tool[Any, Any]],
    mcp_manager: McpManager | None,
    permission_context: ToolPermissionContext,
    policy: DeferPolicy | None = None,
) -> list[Tool[Any, Any]]:
    """Base tools then MCP tools (servers started now, in parallel), denied ones removed.

    A built-in tool wins over an MCP tool of the same name.  The MCP resource tools are dropped
    when no connected server offers resources.  MCP tools get ``should_defer``
    from ``policy``; built-in tools keep their own.
    """
    mcp_tools: list[Tool[Any, Any]] = []
    if mcp_manager is not None:
        await mcp_manager.ensure_started()
        mcp_tools = list(mcp_manager.tools())
    pool: list[Tool[Any, Any]] = []
    seen: set[str] = set()
    for tool in [*base_tools, *mcp_tools]:
        if tool.name not in seen:
            seen.add(tool.name)
            pool.append(tool)
    if mcp_manager is None or not any(c.supports_resources for c in mcp_manager.connected()):
        pool = [t for t in pool if t.name not in RESOURCE_TOOL_NAMES]
    pool = filter_tools_by_deny_rules(pool, permission_context)
    defer = (policy or DeferPolicy.from_env()).defer_mcp(sum(1 for t in pool if is_mcp_tool(t)))
    if not any(t.name == TOOL_SEARCH_NAME for t in pool):  # nothing could discover them: send them all
        defer = False
    for tool in pool:
        if is_mcp_tool(tool):
            tool.should_defer = defer  # type: ignore[misc]  # an MCPTool instance attribute
    return pool


def discovered_tools(app_state: AppState) -> frozenset[str]:
    return frozenset(app_state.extra.get(DISCOVERED_KEY, ()))


def with_discovered(app_state: AppState, names: Iterable[str]) -> AppState:
    """A copy of ``app_state`` where ``names`` are discovered (for ``set_app_state``)."""
    extra = dict(app_state.extra)
    extra[DISCOVERED_KEY] = discovered_tools(app_state) | frozenset(names)
    return replace(app_state, extra=extra)


def tools_for_request(
    all_tools: Sequence[Tool[Any, Any]], app_state: AppState
) -> tuple[list[Tool[Any, Any]], list[str]]:
    """(tools to send, names still deferred).  ToolSearch is sent only when something is deferred."""
    found = discovered_tools(app_state)
    sent: list[Tool[Any, Any]] = []
    deferred: list[str] = []
    for tool in all_tools:
        if is_deferred(tool) and tool.name not in found:
            deferred.append(tool.name)
        else:
            sent.append(tool)
    if not deferred:
        sent = [t for t in sent if t.name != TOOL_SEARCH_NAME]
    return sent, deferred


async def api_tools_for_request(
    all_tools: Sequence[Tool[Any, Any]], app_state: AppState, options: Any
) -> tuple[list[dict[str, Any]], str]:
    """The ``tools`` parameter of the next request and the deferred-tools prompt section.

    Call it before every request (not once per session): ToolSearch changes the answer.
    """
    sent, deferred = tools_for_request([t for t in all_tools if t.is_enabled()], app_state)
    return [dict(await t.to_api_tool(options)) for t in sent], deferred_tools_prompt(deferred)


def deferred_tools_prompt(deferred_names: Sequence[str]) -> str:
    """The system-prompt section that lists deferred tools ('' when none)."""
    if not deferred_names:
        return ""
    names = "\n".join(deferred_names)
    return (
        "<available-deferred-tools>\n"
        f"{names}\n"
        "</available-deferred-tools>\n"
        "The tools above exist but their definitions are not loaded. To use one, first call "
        f"{TOOL_SEARCH_NAME} with a keyword query or `select:Name1,Name2`; the tools it returns "
        "can be called from then on."
    )
