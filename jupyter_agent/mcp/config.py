"""MCP server configuration: Claude Code's ``mcpServers`` format from files, settings or Python.

Sources, lowest precedence first: the user's ``~/.claude.json`` and ``~/.claude/settings.json``,
the project's ``.mcp.json`` (only servers the user approved, see ``approval.py``), then servers
given from Python (``%agent --mcp`` or the API).
``${VAR}`` and ``${VAR:-default}`` in strings are expanded from the environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union

if TYPE_CHECKING:
    from .policy import McpPolicy

McpScope = Literal["user", "project", "session", "managed"]  # managed: managed-mcp.json or managedMcpServers
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(ValueError):
    """A server entry that cannot be used; shown to the notebook's user, never to the model."""


@dataclass(frozen=True)
class StdioServerConfig:
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    type: Literal["stdio"] = "stdio"


@dataclass(frozen=True)
class HttpServerConfig:
    """Streamable HTTP (``type: http``) or the older SSE transport (``type: sse``)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    type: Literal["http", "sse"] = "http"


ServerConfig = Union[StdioServerConfig, HttpServerConfig]


@dataclass(frozen=True)
class McpServerEntry:
    """One named server and where its configuration came from."""

    name: str
    config: ServerConfig
    scope: McpScope = "session"


def expand_env(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Expand ``${VAR}`` / ``${VAR:-default}``; an unset variable without default is an error."""
    env = os.environ if environ is None else environ

    def _sub(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise McpConfigError(f"environment variable {name} is not set (used as ${{{name}}})")

    return _ENV_REF.sub(_sub, value)


def parse_server(
    name: str, raw: object, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """One ``mcpServers`` entry → a typed config; raises ``McpConfigError`` saying what is wrong."""
    if not _SERVER_NAME.match(name):
        raise McpConfigError(f"MCP server name {name!r} may only use letters, digits, '_' and '-'")
    if not isinstance(raw, Mapping):
        raise McpConfigError(f"MCP server {name!r}: expected an object, got {type(raw).__name__}")
    kind = raw.get("type", "stdio" if "command" in raw else None)

    def text(value: object, what: str) -> str:
        if not isinstance(value, str):
            raise McpConfigError(f"MCP server {name!r}: {what} must be a string")
        return expand_env(value, environ)

    def table(value: object, what: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise McpConfigError(f"MCP server {name!r}: {what} must be an object of strings")
        return {str(k): text(v, f"{what}.{k}") for k, v in value.items()}

    if kind == "stdio":
        args = raw.get("args", [])
        if not isinstance(args, list):
            raise McpConfigError(f"MCP server {name!r}: args must be a list of strings")
        cwd = raw.get("cwd")
        return StdioServerConfig(
            command=text(raw.get("command"), "command"),
            args=tuple(text(a, "args[]") for a in args),
            env=table(raw.get("env"), "env"),
            cwd=text(cwd, "cwd") if cwd is not None else None,
        )
    if kind in ("http", "sse", "streamable-http"):
        return HttpServerConfig(
            url=text(raw.get("url"), "url"),
            headers=table(raw.get("headers"), "headers"),
            type="sse" if kind == "sse" else "http",
        )
    raise McpConfigError(f"MCP server {name!r}: unknown type {kind!r} (use stdio, http or sse)")


def parse_mcp_servers(
    servers: object, scope: McpScope, environ: Mapping[str, str] | None = None
) -> tuple[list[McpServerEntry], list[str]]:
    """A ``mcpServers`` object → entries, plus one error line per entry that was skipped."""
    if servers is None:
        return [], []
    if not isinstance(servers, Mapping):
        return [], [f"mcpServers ({scope}) must be an object"]
    entries: list[McpServerEntry] = []
    errors: list[str] = []
    for name, raw in servers.items():
        try:
            entries.append(McpServerEntry(str(name), parse_server(str(name), raw, environ), scope))
        except McpConfigError as exc:
            errors.append(str(exc))
    return entries, errors


def _read_servers(path: Path) -> tuple[object, str | None]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, f"{path}: cannot read MCP configuration ({exc})"
    if not isinstance(data, dict):
        return None, f"{path}: expected a JSON object"
    return data.get("mcpServers"), None


@dataclass
class McpConfigSet:
    """The merged servers (later sources replace earlier ones by name) and the problems found."""

    servers: dict[str, McpServerEntry] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    pending: dict[str, McpServerEntry] = field(default_factory=dict)  # project servers to approve
    policy: McpPolicy | None = None  # what decided the managed servers (McpManager reuses it)

    def add(self, entries: list[McpServerEntry], errors: list[str]) -> None:
        for entry in entries:
            self.servers[entry.name] = entry
        self.errors.extend(errors)


def load_mcp_config(
    project_dir: Path | None = None,
    *,
    home: Path | None = None,
    extra: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
    policy: McpPolicy | None = None,
) -> McpConfigSet:
    """Merge user settings, the project's ``.mcp.json``, ``extra`` (``{name: entry}``), then the
    administrator's ``managedMcpServers`` and ``managed-mcp.json`` (which ``policy.py`` lets no
    other server beside).  ``policy``: the one to use (default: the managed settings' own)."""
    from .policy import load_mcp_policy

    result = McpConfigSet(policy=policy if policy is not None else load_mcp_policy())
    managed = result.policy
    user_home = home if home is not None else Path.home()
    files: list[tuple[Path, McpScope]] = [
        (user_home / ".claude.json", "user"),
        (user_home / ".claude" / "settings.json", "user"),
    ]
    if project_dir is not None:
        files.append((project_dir / ".mcp.json", "project"))
    for path, scope in files:
        raw, error = _read_servers(path)
        if error:
            result.errors.append(error)
        entries, errors = parse_mcp_servers(raw, scope, environ)
        if scope == "project" and entries and project_dir is not None:
            entries = _approved(entries, project_dir, home, result)
        result.add(entries, errors)
    if extra:
        result.add(*parse_mcp_servers(dict(extra), "session", environ))
    assert managed is not None
    result.errors.extend(managed.notices)
    if managed.provided_servers:  # beside the user's own, replacing one of the same name
        result.add(*parse_mcp_servers(dict(managed.provided_servers), "managed", environ))
    if managed.managed_servers is not None:  # the administrator's servers (the only ones then)
        result.add(*parse_mcp_servers(managed.managed_servers, "managed", environ))
    for name in [n for n in result.pending if n in result.servers and result.servers[n].scope == "managed"]:
        del result.pending[name]  # the organisation's server of that name wins: nothing to approve
    return result


def parse_mcp_option(value: str, cwd: Path) -> dict[str, object]:
    """``%agent --mcp VALUE``: JSON text or a JSON file, ``{"mcpServers": {...}}`` or ``{name: entry}``."""
    text = value.strip()
    if not text.startswith("{"):
        path = (cwd / text).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise McpConfigError(f"--mcp: cannot read {path}: {exc}") from exc
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise McpConfigError(f"--mcp: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise McpConfigError("--mcp: expected a JSON object")
    servers = data.get("mcpServers", data)
    if not isinstance(servers, dict):
        raise McpConfigError("--mcp: mcpServers must be an object")
    return dict(servers)


def _approved(
    entries: list[McpServerEntry], project_dir: Path, home: Path | None, result: McpConfigSet
) -> list[McpServerEntry]:
    """Only the project servers the user approved; the others wait in ``result.pending``."""
    from .approval import load_project_approval

    approval, errors = load_project_approval(project_dir, home)
    result.errors.extend(errors)
    keep: list[McpServerEntry] = []
    for entry in entries:
        state = approval.state(entry.name)
        if state == "approved":
            keep.append(entry)
        elif state == "pending":
            result.pending[entry.name] = entry
    return keep


def config_to_json(config: ServerConfig) -> dict[str, Any]:
    """The ``mcpServers`` entry for ``config`` (for display and for saving)."""
    if isinstance(config, StdioServerConfig):
        out: dict[str, Any] = {"type": "stdio", "command": config.command, "args": list(config.args)}
        if config.env:
            out["env"] = dict(config.env)
        if config.cwd:
            out["cwd"] = config.cwd
        return out
    out = {"type": config.type, "url": config.url}
    if config.headers:
        out["headers"] = dict(config.headers)
    return out
