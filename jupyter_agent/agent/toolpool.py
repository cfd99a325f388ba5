"""The session's tool pool: base tools plus MCP servers' tools, and what each request carries.

MCP servers (user settings, the project's approved ``.mcp.json``, ``SessionConfig.mcp_servers``)
start lazily, all at once, before the first request.  Deferred tools are left out of the request
until ToolSearch discovers them; their names go into a system block instead.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from .config import SessionConfig
from .events import AgentErrorEvent
from .stream import Emit
from .toolset import api_tools


def make_mcp_manager(
    config: SessionConfig, session_dir: Path, environment: Callable[[], Mapping[str, str]] | None = None,
    settings: Any | None = None,
) -> Any | None:
    """An McpManager for the configured servers (nothing starts yet), or None without any.
    ``environment``: the session's settings ``env`` (``${VAR}`` in ``.mcp.json`` sees it too);
    ``settings``: the session's settings files, whose ``allowedMcpServers`` / ``deniedMcpServers``
    join the managed ones."""
    if not config.load_mcp and not config.mcp_servers:
        return None
    try:
        from ..mcp.config import load_mcp_config
    except ImportError:
        return None
    project = config.resolved_project_dir() if config.load_mcp else None
    settings_env = environment() if environment is not None else {}
    environ = {**os.environ, **settings_env} if settings_env else None
    from ..mcp.policy import load_mcp_policy

    policy = load_mcp_policy(files=getattr(settings, "mcp_lists", ()))
    loaded = load_mcp_config(project, home=config.home, extra=config.mcp_servers or None, environ=environ,
                             policy=policy)
    if not loaded.servers and not loaded.pending and not loaded.errors:
        return None  # no servers: the MCP SDK is not even imported
    try:
        from ..mcp.manager import McpManager
    except ImportError:
        return None
    return McpManager.from_config(loaded, log_dir=session_dir / "mcp", environment=environment)


def empty_mcp_manager(
    session_dir: Path, environment: Callable[[], Mapping[str, str]] | None = None, settings: Any | None = None
) -> Any:
    """An McpManager with no servers yet, under the same policy as ``make_mcp_manager``'s, for a
    session that started without MCP and is given servers later (``%agent --mcp``)."""
    from ..mcp.manager import McpManager
    from ..mcp.policy import load_mcp_policy

    policy = load_mcp_policy(files=getattr(settings, "mcp_lists", ()))
    return McpManager(log_dir=session_dir / "mcp", environment=environment, policy=policy)


class ToolPool:
    """Assembles the pool once per session and answers "which tools does this request send"."""

    def __init__(self, mcp: Any | None, load_errors: list[str] | None = None) -> None:
        self.mcp = mcp
        self.load_errors = list(load_errors or [])  # built-in tools whose module failed to import
        self._ready = False
        self._cache: tuple[frozenset[str], list[dict[str, Any]], str] | None = None
        self._reported: set[str] = set()  # MCP problems already shown
        self._tool_lists = 0  # the MCP servers' tool-list version the pool was assembled from

    async def ensure(self, context: ToolUseContext, emit: Emit) -> ToolUseContext:
        """Start MCP servers and add their tools; returns the context to use.  The first call
        starts every configured server; a later one only servers added since (``%agent --mcp``,
        or allowed once the folder was trusted), if any, and takes in a server's changed tool
        list (a tool it added or removed while it runs)."""
        if self._ready:
            if self.mcp is None:
                return context
            version = await self.mcp.tool_lists_version()
            starting = any(c.status == "pending" for c in self.mcp.connections.values())
            if not starting and version == self._tool_lists:
                return context
        else:
            self._ready = True
            for problem in self.load_errors:
                emit(AgentErrorEvent(f"Tool not available: {problem}", kind="tools"))
            if self.mcp is None:
                return context
            version = await self.mcp.tool_lists_version()
        from ..mcp.pool import assemble_tool_pool
        from ..tools.mcp_tool import MCPTool

        before = {t.name for t in context.options.tools if isinstance(t, MCPTool)}
        base = [t for t in context.options.tools if not isinstance(t, MCPTool)]  # the servers' tools anew
        self._tool_lists = version  # read before the lists are: a change meanwhile is taken next time
        pool = await assemble_tool_pool(base, self.mcp, context.permission_context)
        for problem in [*self.mcp.config_errors, *_failed_servers(self.mcp)]:
            if problem not in self._reported:  # each once, not again when a server joins later
                self._reported.add(problem)
                emit(AgentErrorEvent(f"MCP: {problem}", kind="mcp"))
        after = {t.name for t in pool if isinstance(t, MCPTool)}
        if before and before != after:
            changes = [f"{sign} {', '.join(sorted(names))}" for sign, names in
                       (("added", after - before), ("removed", before - after)) if names]
            emit(AgentErrorEvent(f"MCP tools changed: {'; '.join(changes)}.", kind="mcp"))
        self._cache = None
        # the resource tools (and Monitor) find the servers in the options
        options = dataclasses.replace(context.options, tools=tuple(pool), mcp_clients=tuple(self.mcp.connected()))
        return context.with_changes(options=options)

    async def request_tools(self, context: ToolUseContext) -> tuple[list[dict[str, Any]], list[str]]:
        """(tool definitions, extra system texts) for the next request; cached until discovery."""
        try:
            from ..mcp.pool import api_tools_for_request, discovered_tools
        except ImportError:
            return await api_tools(context.options.tools, context.options), []
        state = context.get_app_state()
        key = discovered_tools(state)
        if self._cache is None or self._cache[0] != key:
            tools, deferred_prompt = await api_tools_for_request(context.options.tools, state, context.options)
            self._cache = (key, tools, deferred_prompt)
        _, tools, deferred_prompt = self._cache
        extra = [deferred_prompt] if deferred_prompt else []
        if self.mcp is not None:
            extra += [f"Instructions of MCP server {n}:\n{text}" for n, text in self.mcp.instructions().items()]
        return tools, extra

    async def aclose(self) -> None:
        if self.mcp is not None:
            await self.mcp.aclose()


def _failed_servers(manager: Any) -> list[str]:
    """Servers that did not connect (failed, or waiting for the user's approval)."""
    return [s.line() for s in manager.status() if s.status != "connected"]
