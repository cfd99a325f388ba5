"""Which MCP servers the administrator's managed settings let a session start.

As in Claude Code, two places in the managed settings folder (``permissions/managed.py``):

- ``managed-mcp.json`` (``{"mcpServers": {...}}``): exclusive control.  Its servers are the
  only ones; servers from ``~/.claude.json``, the user's settings, a project's ``.mcp.json``
  and ``%agent --mcp`` are not started.
- ``allowedMcpServers`` / ``deniedMcpServers`` in ``managed-settings.json``: lists of
  ``{"serverName": "github"}``, ``{"serverCommand": ["npx", "-y", "pkg"]}`` (the exact command
  and arguments) or ``{"serverUrl": "https://*.corp.example/*"}`` (``*`` spans anything).  A
  denied server never starts; when ``allowedMcpServers`` is present (even empty) only the
  servers it lists start.  The deny list wins.

Every server passes ``McpManager.add``, which asks ``refusal``; a policy that cannot be read
refuses every server (fail closed).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import AgentConfigError
from .config import HttpServerConfig, McpServerEntry, StdioServerConfig

MANAGED_MCP = "managed-mcp.json"
_KINDS = ("serverName", "serverCommand", "serverUrl")


@dataclass(frozen=True)
class McpPolicy:
    allowed: tuple[dict[str, Any], ...] | None = None  # None: no allow list
    denied: tuple[dict[str, Any], ...] = ()
    exclusive: tuple[str, ...] | None = None  # managed-mcp.json's server names
    source: str = "the managed settings"
    problem: str | None = None  # the policy could not be read: nothing starts

    def refusal(self, entry: McpServerEntry) -> str | None:
        """Why ``entry`` may not start (None: it may)."""
        if self.problem is not None:
            return f"MCP server {entry.name!r} was not started: {self.problem}"
        if self.exclusive is not None and (entry.scope != "managed" or entry.name not in self.exclusive):
            return (f"MCP server {entry.name!r} was not started: the administrator's {MANAGED_MCP} decides "
                    "which MCP servers run")
        if any(_matches(item, entry) for item in self.denied):
            return f"MCP server {entry.name!r} was not started: deniedMcpServers in {self.source}"
        if self.allowed is not None and not any(_matches(item, entry) for item in self.allowed):
            return f"MCP server {entry.name!r} was not started: it is not in allowedMcpServers in {self.source}"
        return None


def load_mcp_policy(folder: str | Path | None = None) -> McpPolicy:
    from ..permissions.managed import managed_dir, read_managed
    from ..permissions.settings import read_settings_file

    base = Path(folder) if folder is not None else managed_dir()
    try:
        data, label = read_managed(base)
        exclusive = None
        path = base / MANAGED_MCP
        if os.path.lexists(path):  # even an empty one: then no server runs
            servers = read_settings_file(path).get("mcpServers", {})
            if not isinstance(servers, dict):
                raise AgentConfigError(f"{path}: mcpServers must be an object")
            exclusive = tuple(servers)
        return McpPolicy(
            _entries(data, "allowedMcpServers", label) if "allowedMcpServers" in data else None,
            _entries(data, "deniedMcpServers", label) or (), exclusive, str(label or base),
        )
    except AgentConfigError as exc:
        return McpPolicy(problem=f"the managed settings cannot be read ({exc})")


def managed_servers(folder: str | Path | None = None) -> object:
    """``managed-mcp.json``'s ``mcpServers`` (None when there is no such file)."""
    from ..permissions.managed import managed_dir
    from ..permissions.settings import read_settings_file

    base = Path(folder) if folder is not None else managed_dir()
    try:
        raw = read_settings_file(base / MANAGED_MCP)
    except AgentConfigError:
        return None  # load_mcp_policy refuses every server then
    return raw.get("mcpServers") if raw else None


def _entries(data: dict[str, Any], key: str, where: object) -> tuple[dict[str, Any], ...]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(
        isinstance(i, dict) and len(i) == 1 and next(iter(i)) in _KINDS for i in items
    ):
        raise AgentConfigError(f"{where}: {key} must list objects like {{\"serverName\": \"github\"}}, "
                               "{\"serverCommand\": [...]} or {\"serverUrl\": \"https://...\"}")
    return tuple(items)


def _matches(item: dict[str, Any], entry: McpServerEntry) -> bool:
    config = entry.config
    if "serverName" in item:
        return bool(item["serverName"] == entry.name)
    if "serverCommand" in item:
        return isinstance(config, StdioServerConfig) and list(item["serverCommand"]) == [config.command, *config.args]
    pattern = str(item["serverUrl"])
    if not isinstance(config, HttpServerConfig):
        return False
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), config.url) is not None
