"""MCP servers as tool sources: configuration, connections, the session's tool pool."""

from __future__ import annotations

from .approval import load_project_approval, save_project_approval
from .config import (
    HttpServerConfig,
    McpConfigError,
    McpConfigSet,
    McpServerEntry,
    StdioServerConfig,
    load_mcp_config,
    parse_mcp_option,
    parse_mcp_servers,
)
from .connection import McpCallError, McpConnection
from .manager import McpManager, ServerStatus
from .pool import (
    DeferPolicy,
    api_tools_for_request,
    assemble_tool_pool,
    deferred_tools_prompt,
    is_deferred,
    tools_for_request,
    with_discovered,
)

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
