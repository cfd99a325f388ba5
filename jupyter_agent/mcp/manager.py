"""McpManager: the session's MCP servers, started lazily and in parallel, closed together."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .config import McpConfigSet, McpServerEntry, load_mcp_config, parse_mcp_servers
from .connection import DEFAULT_CONNECT_TIMEOUT, ConnectionStatus, McpConnection

if TYPE_CHECKING:
    from ..tools.mcp_tool import MCPTool
    from .policy import McpPolicy


@dataclass(frozen=True)
class ServerStatus:
    """What the user sees per server (``%agent --tools``, the session's MCP notices)."""

    name: str
    status: ConnectionStatus | Literal["needs-approval"]
    tool_count: int
    error: str | None = None

    def line(self) -> str:
        tail = f" — {self.error}" if self.error else ""
        return f"{self.name}: {self.status} ({self.tool_count} tools){tail}"


class McpManager:
    """Owns one ``McpConnection`` per configured server for the life of a session."""

    def __init__(
        self,
        entries: Iterable[McpServerEntry] = (),
        *,
        log_dir: Path | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        config_errors: Iterable[str] = (),
        pending: Mapping[str, McpServerEntry] | None = None,
        environment: Callable[[], Mapping[str, str]] | None = None,
        policy: McpPolicy | None = None,
    ) -> None:
        self._log_dir = log_dir
        self._environment = environment  # the session's settings ``env``, read when a server starts
        self.connect_timeout = connect_timeout
        self.config_errors = list(config_errors)
        self.connections: dict[str, McpConnection] = {}
        from .policy import load_mcp_policy

        # the administrator's managed settings, joined with the settings files' lists
        self.policy = policy if policy is not None else load_mcp_policy()
        self.refused: dict[str, tuple[McpServerEntry, bool]] = {}  # (entry, was pending), for use_policy
        self.pending: dict[str, McpServerEntry] = {
            name: entry for name, entry in (pending or {}).items() if self._refusal(entry, pending=True) is None
        }
        self._lock = asyncio.Lock()
        for entry in entries:
            self.add(entry)

    @classmethod
    def from_config(cls, config: McpConfigSet, **kwargs: object) -> McpManager:
        kwargs.setdefault("policy", config.policy)
        return cls(
            config.servers.values(), config_errors=config.errors, pending=config.pending, **kwargs  # type: ignore[arg-type]
        )

    @classmethod
    def for_project(
        cls, project_dir: Path, *, extra: Mapping[str, object] | None = None, **kwargs: object
    ) -> McpManager:
        """Servers from the user's settings, the project's ``.mcp.json`` and ``extra``."""
        return cls.from_config(load_mcp_config(project_dir, extra=extra), **kwargs)

    def add(self, entry: McpServerEntry) -> McpConnection | None:
        """Add (or replace, if not yet started) a server; it starts on the next ``ensure_started``.
        None: the managed settings do not let it start (the reason is in ``config_errors``)."""
        return None if self._refusal(entry) is not None else self._connect(entry)

    def _connect(self, entry: McpServerEntry) -> McpConnection:
        old = self.connections.get(entry.name)
        if old is not None and old.status != "pending":
            raise ValueError(f"MCP server {entry.name!r} is already running; close it first")
        conn = McpConnection(entry, log_dir=self._log_dir, environment=self._environment)
        self.connections[entry.name] = conn
        return conn

    def add_servers(self, servers: Mapping[str, object]) -> list[str]:
        """Add servers given as ``{name: mcpServers entry}``; returns the problems found."""
        entries, errors = parse_mcp_servers(dict(servers), "session")
        self.config_errors.extend(errors)
        for entry in entries:
            reason = self._refusal(entry)
            if reason is None:
                self._connect(entry)
            else:
                errors.append(reason)
        return errors

    def _refusal(self, entry: McpServerEntry, pending: bool = False) -> str | None:
        """Why the policy does not let ``entry`` start (recorded in ``config_errors``)."""
        reason = self.policy.refusal(entry)
        if reason is not None:
            self.refused[entry.name] = (entry, pending)
            if reason not in self.config_errors:
                self.config_errors.append(reason)
        return reason

    def use_policy(self, policy: McpPolicy) -> list[str]:
        """Decide again with ``policy`` (the folder became trusted, so its allow list joins):
        refused servers it lets start are added (a project server goes back to the approval
        list); returns their names.  Nothing running is stopped: trust only widens."""
        self.policy = policy
        admitted = []
        for name, (entry, pending) in list(self.refused.items()):
            if policy.refusal(entry) is not None or name in self.connections:
                continue
            del self.refused[name]
            refused_text = f"MCP server {name!r} was not started: "
            self.config_errors = [e for e in self.config_errors if not e.startswith(refused_text)]
            if pending:
                self.pending[name] = entry
            else:
                self._connect(entry)
                admitted.append(name)
        return admitted

    def approve(self, names: Iterable[str], *, project_dir: Path | None = None) -> list[str]:
        """Start using pending project servers; with ``project_dir``, remember it in local settings."""
        chosen = [n for n in names if n in self.pending]
        for name in chosen:
            self.add(self.pending.pop(name))
        if project_dir is not None and chosen:
            from .approval import save_project_approval

            save_project_approval(project_dir, chosen)
        return chosen

    async def ensure_started(self) -> None:
        """Connect every server not yet started, all at once; failures stay per server."""
        async with self._lock:
            pending = [c for c in self.connections.values() if c.status == "pending"]
            if pending:
                await asyncio.gather(*(c.start(self.connect_timeout) for c in pending))

    def connected(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if c.status == "connected"]

    def tools(self) -> list[MCPTool]:
        """An ``MCPTool`` per tool of every connected server (fresh objects each time)."""
        from ..tools.mcp_tool import MCPTool

        return [MCPTool(conn, spec) for conn in self.connected() for spec in conn.tools]

    async def tool_lists_version(self) -> int:
        """A number that grows whenever a connected server's tool list changed: the tool lists
        being fetched again are waited for first (briefly), so a request sent after a call
        that changed them carries the new tools."""
        await asyncio.gather(*(c.tools_settled() for c in self.connected()))
        return sum(c.tools_generation for c in self.connections.values())

    def status(self) -> list[ServerStatus]:
        out = [ServerStatus(c.name, c.status, len(c.tools), c.error) for c in self.connections.values()]
        hint = "approve it to start it (project .mcp.json)"
        out += [ServerStatus(name, "needs-approval", 0, hint) for name in self.pending]
        return out

    def instructions(self) -> dict[str, str]:
        """Each connected server's ``instructions`` (for the system prompt)."""
        return {c.name: c.instructions for c in self.connected() if c.instructions}

    async def aclose(self) -> None:
        """Close every connection (stdio servers are stopped, not orphaned)."""
        await asyncio.gather(*(c.aclose() for c in self.connections.values()), return_exceptions=True)
