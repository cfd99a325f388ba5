"""LspManager: language servers started lazily per (language, workspace), shut down together.

Servers come from ``LspSettings``: ``context.extra["lsp_settings"]``, else the JSON in
``$JUPYTER_AGENT_LSP_SERVERS`` (``{"rust": {"command": ["rust-analyzer"], "extensions": [".rs"]}}``)
merged over the default (Python: ``jedi-language-server``, else ``pylsp``).

The session owns the manager (``AppState.extra["lsp"]``) and must call
``await shutdown_lsp(context)`` when it closes; servers are also killed at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .client import LspClient, LspError

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

STATE_KEY = "lsp"
SETTINGS_KEY = "lsp_settings"
SERVERS_ENV = "JUPYTER_AGENT_LSP_SERVERS"
_LIVE: set[LspClient] = set()


@dataclass(frozen=True)
class ServerConfig:
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    language_id: str


def _python_command() -> tuple[str, ...]:
    for name in ("jedi-language-server", "pylsp"):
        beside = Path(sys.executable).with_name(name)
        if beside.exists():
            return (str(beside),)
        if found := shutil.which(name):
            return (found,)
    return ("jedi-language-server",)


def _default_servers() -> dict[str, ServerConfig]:
    return {"python": ServerConfig(_python_command(), (".py", ".pyi"), "python")}


def parse_servers(raw: str) -> dict[str, ServerConfig]:
    """``{"lang": {"command": [...], "extensions": [...], "languageId": "..."}}`` → configs."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object of language → {command, extensions}")
    out = {}
    for lang, spec in data.items():
        command, exts = spec.get("command"), spec.get("extensions")
        if not (isinstance(command, list) and command and isinstance(exts, list) and exts):
            raise ValueError(f"{lang}: needs a non-empty 'command' list and 'extensions' list")
        out[lang] = ServerConfig(tuple(map(str, command)), tuple(map(str, exts)), str(spec.get("languageId", lang)))
    return out


@dataclass(frozen=True)
class LspSettings:
    servers: dict[str, ServerConfig] = field(default_factory=_default_servers)
    start_timeout: float = 60.0
    request_timeout: float = 30.0
    diagnostics_timeout: float = 10.0

    @classmethod
    def from_env(cls) -> LspSettings:
        servers = _default_servers()
        if raw := os.environ.get(SERVERS_ENV):
            servers.update(parse_servers(raw))
        return cls(servers=servers)

    def available(self) -> bool:
        """Whether any configured server's program can be found."""
        return any(Path(c.command[0]).is_file() or shutil.which(c.command[0]) for c in self.servers.values())

    def for_path(self, path: Path) -> tuple[str, ServerConfig] | None:
        suffix = path.suffix.lower()
        for lang, cfg in self.servers.items():
            if suffix in cfg.extensions:
                return lang, cfg
        return None


class LspManager:
    def __init__(self) -> None:
        self._clients: dict[tuple[str, Path], LspClient] = {}
        self._locks: dict[tuple[str, Path], asyncio.Lock] = {}

    async def client_for(
        self, language: str, config: ServerConfig, root: Path, settings: LspSettings,
        env: Mapping[str, str] | None = None,
    ) -> LspClient:
        key = (language, root)
        async with self._locks.setdefault(key, asyncio.Lock()):
            client = self._clients.get(key)
            if client is not None and client.alive:
                return client
            if client is not None:  # it died: start a new one
                await client.kill()
            client = await LspClient.start(list(config.command), root, language, settings.start_timeout, env)
            self._clients[key] = client
            _LIVE.add(client)
            return client

    def running(self) -> list[LspClient]:
        return [c for c in self._clients.values() if c.alive]

    async def shutdown(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        await asyncio.gather(*(c.shutdown() for c in clients), return_exceptions=True)
        for c in clients:
            _LIVE.discard(c)


def get_lsp_manager(context: ToolUseContext) -> LspManager:
    manager = context.get_app_state().extra.get(STATE_KEY)
    if isinstance(manager, LspManager):
        return manager
    new = LspManager()
    context.set_app_state(lambda s: replace(s, extra={**s.extra, STATE_KEY: new}))
    return new


def lsp_settings(context: ToolUseContext) -> LspSettings:
    value = context.extra.get(SETTINGS_KEY)
    return value if isinstance(value, LspSettings) else LspSettings.from_env()


async def shutdown_lsp(context: ToolUseContext) -> None:
    """Stop every language server of this session (call when the session closes)."""
    manager = context.get_app_state().extra.get(STATE_KEY)
    if isinstance(manager, LspManager):
        await manager.shutdown()


@atexit.register
def _kill_at_exit() -> None:
    for client in list(_LIVE):
        with contextlib.suppress(Exception):
            if client.proc.returncode is None:
                os.killpg(client.proc.pid, 9)


__all__ = ["LspError", "LspManager", "LspSettings", "ServerConfig", "get_lsp_manager", "shutdown_lsp"]
