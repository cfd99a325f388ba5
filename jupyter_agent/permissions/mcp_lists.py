"""``allowedMcpServers`` / ``deniedMcpServers`` as read from one settings file.

The policy that applies them is ``mcp/policy.py``; this part stays free of the MCP package so
that reading the settings files does not import it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import AgentConfigError

KINDS = ("serverName", "serverCommand", "serverUrl")
ALLOWED_NAME = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class ListEntry:
    """One ``allowedMcpServers`` / ``deniedMcpServers`` item, as written, and the file it is in."""

    kind: str  # one of KINDS
    value: str | tuple[str, ...]
    where: str

    def describe(self) -> str:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return f"{json.dumps({self.kind: value})} ({self.where})"


def parse_server_list(items: object, key: str, where: str) -> tuple[ListEntry, ...]:
    """A settings file's ``allowedMcpServers`` / ``deniedMcpServers``; AgentConfigError names the file."""
    usage = (f"{where}: {key} must list objects with one key each: {{\"serverName\": \"github\"}}, "
             "{\"serverCommand\": [\"npx\", \"-y\", \"pkg\"]} or {\"serverUrl\": \"https://...\"}")
    if not isinstance(items, list):
        raise AgentConfigError(usage)
    out = []
    for item in items:
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in KINDS:
            raise AgentConfigError(usage)
        kind, value = next(iter(item.items()))
        if kind == "serverCommand":
            if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
                raise AgentConfigError(f"{where}: {key}: serverCommand must be a non-empty list of strings")
            value = tuple(value)
        elif not isinstance(value, str) or not value:
            raise AgentConfigError(f"{where}: {key}: {kind} must be a non-empty string")
        elif kind == "serverName" and key == "allowedMcpServers" and not ALLOWED_NAME.fullmatch(value):
            raise AgentConfigError(f"{where}: allowedMcpServers: serverName {value!r} may only use letters, "
                                   "digits, '-' and '_' (use serverUrl or serverCommand for anything else)")
        out.append(ListEntry(kind, value, where))
    return tuple(out)


@dataclass(frozen=True)
class SettingsLists:
    """One settings file's MCP lists (``Settings.mcp_lists``), with its ``env`` for deny entries."""

    where: str
    allowed: tuple[ListEntry, ...] | None
    denied: tuple[ListEntry, ...]
    env: tuple[tuple[str, str], ...] = ()
