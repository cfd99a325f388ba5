"""Which MCP servers a session may start: the administrator's controls and the lists in settings.

As in Claude Code:

- ``managed-mcp.json`` in the managed settings folder (``permissions/managed.py``),
  ``{"mcpServers": {...}}``: exclusive control.  Its servers (and ``managedMcpServers``) are the
  only ones; servers from ``~/.claude.json``, the user's settings, a project's ``.mcp.json`` and
  ``%agent --mcp`` are not started.  An empty map: no server at all.
- ``managedMcpServers`` in the managed settings: remote servers every user gets beside their own
  (``https://`` only, no command, ``env``, ``headersHelper`` or ``${VAR}``; a bad entry is left
  out with a notice).  It replaces a user's or project's server of the same name; a
  ``managed-mcp.json`` entry of the same name replaces it.
- ``allowedMcpServers`` / ``deniedMcpServers`` in any settings file (user, project, local,
  managed): lists of ``{"serverName": "github"}``, ``{"serverCommand": ["npx", "-y", "pkg"]}``
  (the exact command and arguments) or ``{"serverUrl": "https://*.corp.example/*"}``.  The
  files' lists are joined; ``allowManagedMcpServersOnly: true`` in the managed settings keeps
  only the managed allow list (deny lists always join, so a user can block a server for
  themselves).  A project's allow list widens what the others allow, so it waits for folder
  trust like the project's other widening settings.

A server is checked in order: a deny entry that matches (by name, command or URL) refuses it;
then, when an allow list is set anywhere (even ``[]``), a remote server must match one of its
``serverUrl`` entries and a stdio server one of its ``serverCommand`` entries — a
``serverName`` entry counts only when the list has none of that kind.  The organisation's own
servers skip the allow list: ``managedMcpServers`` and ``managed-mcp.json`` entries, except a
``managed-mcp.json`` entry that uses ``${VAR}`` (its real command or URL comes from the user's
environment).

``serverCommand`` and ``serverUrl`` entries may use ``${VAR}`` / ``${VAR:-default}``: an allow
entry expands from the kernel's environment at start plus the managed ``env`` block (never a
project's), and is ignored when a variable is unset or sits in the URL's scheme or host; a
deny entry falls back to the user's settings ``env`` and, failing that, matches anything there.
URL patterns: ``*`` spans anything, scheme and host compare case-insensitively, a trailing dot
on the host is ignored, a pattern without a path covers every path, and one without a port
means the scheme's default port (a deny pattern: every port).  A URL whose host parsers read
differently (``a.example\\@b.example``, ``%``-encoding) matches no allow and every URL deny entry.

Every server passes ``McpManager.add``, which asks ``refusal``; a managed policy that cannot be
read refuses every server (fail closed).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import AgentConfigError
from ..permissions.mcp_lists import ALLOWED_NAME, ListEntry, SettingsLists, parse_server_list
from ..permissions.url_patterns import VARIABLE, expand_pattern, pattern_regex, url_matches
from .config import HttpServerConfig, McpServerEntry, StdioServerConfig

MANAGED_MCP = "managed-mcp.json"


@dataclass(frozen=True)
class McpPolicy:
    allowed: tuple[ListEntry, ...] | None = None  # None: no allow list anywhere
    denied: tuple[ListEntry, ...] = ()
    exclusive: tuple[str, ...] | None = None  # managed-mcp.json's server names
    provided: tuple[str, ...] = ()  # managedMcpServers' names
    checked_managed: frozenset[str] = frozenset()  # managed-mcp.json servers using ${VAR}: checked all the same
    problem: str | None = None  # the managed policy could not be read: nothing starts
    managed_servers: Mapping[str, Any] | None = None  # managed-mcp.json's mcpServers (None: no file)
    provided_servers: Mapping[str, Any] = field(default_factory=dict)  # the valid managedMcpServers
    notices: tuple[str, ...] = ()  # managedMcpServers entries left out, and why
    env: Mapping[str, str] = field(default_factory=dict)  # what entries expand from (start-up + managed env)
    deny_fallback: Mapping[str, str] = field(default_factory=dict)  # the user's env block: after defaults
    managed_only: bool = False  # allowManagedMcpServersOnly: the other files' allow lists do not count

    def refusal(self, entry: McpServerEntry) -> str | None:
        """Why ``entry`` may not start (None: it may)."""
        if self.problem is not None:
            return f"MCP server {entry.name!r} was not started: {self.problem}"
        ours = entry.scope == "managed" and (entry.name in (self.exclusive or ()) or entry.name in self.provided)
        if self.exclusive is not None and not ours:
            return (f"MCP server {entry.name!r} was not started: the administrator's {MANAGED_MCP} decides "
                    "which MCP servers run")
        for item in self.denied:
            if _matches(item, entry, self.env, deny=True, fallback=self.deny_fallback):
                return f"MCP server {entry.name!r} was not started: it matches deniedMcpServers {item.describe()}"
        if self.allowed is None or (ours and entry.name not in self.checked_managed):
            return None
        remote = isinstance(entry.config, HttpServerConfig)
        kind = "serverUrl" if remote else "serverCommand"
        candidates = [i for i in self.allowed if i.kind == kind] or [i for i in self.allowed if i.kind == "serverName"]
        if any(_matches(item, entry, self.env, deny=False) for item in candidates):
            return None
        need = kind if any(i.kind == kind for i in self.allowed) else "serverName"
        what = "its name" if need == "serverName" else "its URL" if remote else "its command"
        return (f"MCP server {entry.name!r} was not started: {what} matches no {need} entry in "
                f"allowedMcpServers ({self._allow_sources()})")

    def _allow_sources(self) -> str:
        return ", ".join(dict.fromkeys(i.where for i in self.allowed or ())) or "an empty list"

    def with_lists(self, files: Iterable[SettingsLists]) -> McpPolicy:
        """This (managed) policy joined with the user / project / local files' lists."""
        files = list(files)
        denied = self.denied + tuple(i for f in files for i in f.denied)
        allowed = self.allowed
        if not self.managed_only:
            for f in files:
                if f.allowed is not None:
                    allowed = (allowed or ()) + f.allowed
        fallback = {k: v for f in files for k, v in f.env}
        return replace(self, allowed=allowed, denied=denied, deny_fallback={**fallback, **self.deny_fallback})

    def summary(self) -> list[str]:
        """For ``%agent --permissions``: one line per control in force."""
        lines = []
        if self.problem:
            lines.append(f"no MCP server starts: {self.problem}")
        if self.exclusive is not None:
            names = ", ".join(self.exclusive) or "none"
            lines.append(f"{MANAGED_MCP} decides which servers run: {names}")
        if self.provided:
            lines.append("managedMcpServers: " + ", ".join(self.provided))
        if self.allowed is not None:
            only = " (allowManagedMcpServersOnly)" if self.managed_only else ""
            lines.append("allowedMcpServers" + only + ": " + ("; ".join(i.describe() for i in self.allowed) or "[] (none)"))
        if self.denied:
            lines.append("deniedMcpServers: " + "; ".join(i.describe() for i in self.denied))
        return lines


def load_mcp_policy(
    folder: str | Path | None = None, files: Sequence[SettingsLists] = (), environ: Mapping[str, str] | None = None
) -> McpPolicy:
    """The managed controls (``folder``: the managed settings folder), joined with ``files``'
    lists.  ``environ``: what allow entries expand from (default: the kernel's environment)."""
    from ..permissions.managed import managed_dir, read_managed
    from ..permissions.settings import read_settings_file

    base = Path(folder) if folder is not None else managed_dir()
    try:
        data, label = read_managed(base)
        where = str(label or base)
        servers = None
        path = base / MANAGED_MCP
        if os.path.lexists(path):  # even an empty one: then no server runs (but managedMcpServers)
            servers = read_settings_file(path).get("mcpServers", {})
            if not isinstance(servers, dict):
                raise AgentConfigError(f"{path}: mcpServers must be an object")
        managed_only = data.get("allowManagedMcpServersOnly", False)
        if not isinstance(managed_only, bool):
            raise AgentConfigError(f"{where}: allowManagedMcpServersOnly must be true or false")
        env = data.get("env", {})
        managed_env = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
        provided, notices = _provided(data.get("managedMcpServers"), where)
        policy = McpPolicy(
            parse_server_list(data["allowedMcpServers"], "allowedMcpServers", where)
            if "allowedMcpServers" in data else None,
            parse_server_list(data.get("deniedMcpServers", []), "deniedMcpServers", where),
            tuple(servers) if servers is not None else None,
            tuple(provided),
            frozenset(name for name, raw in (servers or {}).items() if _uses_variables(raw)),
            managed_servers=servers,
            provided_servers=provided,
            notices=tuple(notices),
            env={**(os.environ if environ is None else environ), **managed_env},
            managed_only=managed_only,
        )
    except AgentConfigError as exc:
        return McpPolicy(problem=f"the managed settings cannot be read ({exc})")
    return policy.with_lists(files) if files else policy


def _provided(value: object, where: str) -> tuple[dict[str, Any], list[str]]:
    """``managedMcpServers``: the entries that pass Claude Code's checks, and a notice per other."""
    if value is None:
        return {}, []
    if not isinstance(value, dict):
        return {}, [f"{where}: managedMcpServers was not loaded: it must be an object keyed by server name "
                    "(the list form is Claude Desktop's setting, not Claude Code's)"]
    kept: dict[str, Any] = {}
    notices = []
    for name, raw in value.items():
        why = _provided_problem(str(name), raw)
        if why is None:
            kept[str(name)] = raw
        else:
            notices.append(f"{where}: managedMcpServers {name!r} was not loaded: {why}")
    return kept, notices


def _provided_problem(name: str, raw: object) -> str | None:
    if not ALLOWED_NAME.fullmatch(name):
        return "a server name may only use letters, digits, '-' and '_'"
    if not isinstance(raw, dict):
        return "an entry must be an object"
    if raw.get("type") not in ("http", "sse", "streamable-http"):
        return "type must be http or sse (managed settings never name a program to run)"
    for key in ("command", "args", "env", "headersHelper"):
        if key in raw:
            return f"{key!r} is not allowed here (managed settings never name a program to run)"
    url = raw.get("url")
    if not isinstance(url, str) or not url.lower().startswith("https://"):
        return "url must be an https:// URL"
    headers = raw.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        return "headers must be an object of strings"
    for text in _strings(raw):
        if "${" in text:
            return "values are taken literally here: no ${VAR}"
        if any(unicodedata.category(c) in ("Cc", "Cf") for c in text):
            return "a key or value holds a control or invisible character"
    return None


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _uses_variables(raw: object) -> bool:
    return any(VARIABLE.search(text) for text in _strings(raw))


def _matches(
    item: ListEntry, entry: McpServerEntry, env: Mapping[str, str], *, deny: bool,
    fallback: Mapping[str, str] | None = None,
) -> bool:
    config = entry.config
    if item.kind == "serverName":
        return item.value == entry.name
    if item.kind == "serverCommand":
        if not isinstance(config, StdioServerConfig):
            return False
        actual = [config.command, *config.args]
        assert isinstance(item.value, tuple)
        if len(actual) != len(item.value):
            return False
        for pattern, arg in zip(item.value, actual, strict=True):
            expanded = expand_pattern(pattern, env, deny, fallback)
            if expanded is None or re.fullmatch(pattern_regex(expanded, wild=False), arg) is None:
                return False
        return True
    if not isinstance(config, HttpServerConfig):
        return False
    assert isinstance(item.value, str)
    return url_matches(item.value, config.url, deny=deny, env=env, fallback=fallback)
