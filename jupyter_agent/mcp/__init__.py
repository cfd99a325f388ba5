"""MCP servers as tool sources: configuration, connections, the session's tool pool.

The names below load their submodule on first use (PEP 562): reading the settings' MCP lists
or ``.mcp.json`` must not import the MCP SDK, which takes a second or two — a session without
MCP servers never needs it.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "load_project_approval": "approval", "save_project_approval": "approval",
    "HttpServerConfig": "config", "McpConfigError": "config", "McpConfigSet": "config",
    "McpServerEntry": "config", "StdioServerConfig": "config", "load_mcp_config": "config",
    "parse_mcp_option": "config", "parse_mcp_servers": "config",
    "McpCallError": "connection", "McpConnection": "connection",
    "McpManager": "manager", "ServerStatus": "manager",
    "DeferPolicy": "pool", "api_tools_for_request": "pool", "assemble_tool_pool": "pool",
    "deferred_tools_prompt": "pool", "is_deferred": "pool", "tools_for_request": "pool",
    "with_discovered": "pool",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "DeferPolicy",
    "HttpServerConfig",
    "McpCallError",
    "McpConfigError",
    "McpConfigSet",
    "McpConnection",
    "McpManager",
    "McpServerEntry",
    "ServerStatus",
    "StdioServerConfig",
    "api_tools_for_request",
    "assemble_tool_pool",
    "deferred_tools_prompt",
    "is_deferred",
    "load_mcp_config",
    "load_project_approval",
    "save_project_approval",
    "parse_mcp_option",
    "parse_mcp_servers",
    "tools_for_request",
    "with_discovered",
]
