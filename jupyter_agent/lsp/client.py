"""LspClient: a language server as an asyncio subprocess, JSON-RPC 2.0 with Content-Length framing."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.process_start import start_process
from ..errors import ToolError

REQUEST_TIMEOUT = 30.0
MAX_STDERR_LINES = 50


class LspError(ToolError):
    """The server failed, returned an error, or did not answer in time."""


def path_to_uri(path: Path) -> str:
    return path.resolve().as_uri()


def uri_to_path(uri: str) -> Path:
    from urllib.parse import unquote, urlsplit

    return Path(unquote(urlsplit(uri).path))


class LspClient:
    """One running server.  ``start`` runs ``initialize``; ``shutdown`` ends it politely."""

    def __init__(self, proc: asyncio.subprocess.Process, root: Path, language: str) -> None:
        self.proc, self.root, self.language = proc, root, language
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._opened: dict[str, tuple[int, str]] = {}  # uri -> (version, text)
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self._diag_events: dict[str, asyncio.Event] = {}
        self.stderr_tail: list[str] = []
        self.capabilities: dict[str, Any] = {}
        self._reader = asyncio.ensure_future(self._read_loop())
        self._err_reader = asyncio.ensure_future(self._read_stderr())

    @classmethod
    async def start(
        cls, argv: list[str], root: Path, language: str, timeout: float = REQUEST_TIMEOUT,
        env: Mapping[str, str] | None = None,
    ) -> LspClient:
        try:
            proc = await start_process(asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, cwd=str(root), env=env, start_new_session=True,
            ))
        except OSError as exc:
            raise LspError(f"Could not start the {language} language server {argv[0]!r}: {exc}") from exc
        client = cls(proc, root, language)
        try:
            result = await client.request("initialize", _initialize_params(root), timeout)
        except LspError:
            await client.kill()
            raise
        client.capabilities = (result or {}).get("capabilities", {})
        client.notify("initialized", {})
        return client

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None and not self._reader.done()

    # -- wire ---------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        if self.proc.stdin is None or self.proc.stdin.is_closing():
            raise LspError(f"The {self.language} language server is not running.")
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any, timeout: float = REQUEST_TIMEOUT) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self._send({"id": request_id, "method": method, "params": params})
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise LspError(f"The {self.language} language server did not answer {method} within {timeout:g}s.") from None
        finally:
            self._pending.pop(request_id, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    async def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while True:
                length = None
                while True:
                    line = await stdout.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                self._dispatch(json.loads(await stdout.readexactly(length)))
        except (asyncio.IncompleteReadError, ValueError, ConnectionError):
            return
        finally:
            self._fail_pending()

    def _fail_pending(self) -> None:
        tail = "\n".join(self.stderr_tail[-5:])
        for future in self._pending.values():
            if not future.done():
                future.set_exception(LspError(f"The {self.language} language server exited.\n{tail}".strip()))

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" not in msg:
            future = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
            if future is not None and not future.done():
                if "error" in msg:
                    err = msg["error"] or {}
                    future.set_exception(LspError(f"Language server error: {err.get('message', err)}"))
                else:
                    future.set_result(msg.get("result"))
            return
        if "id" in msg:  # a request from the server: answer so it never waits on us
            with contextlib.suppress(LspError):
                self._send({"id": msg["id"], "result": _server_request_result(msg)})
            return
        if msg["method"] == "textDocument/publishDiagnostics":
            params = msg.get("params") or {}
            uri = params.get("uri", "")
            self.diagnostics[uri] = list(params.get("diagnostics") or [])
            self._diag_events.setdefault(uri, asyncio.Event()).set()

    async def _read_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        while line := await stderr.readline():
            self.stderr_tail = [*self.stderr_tail[-MAX_STDERR_LINES:], line.decode("utf-8", "replace").rstrip()]

    # -- documents ----------------------------------------------------------------------------

    def sync_document(self, path: Path, text: str, language_id: str) -> str:
        """didOpen the first time, didChange (full text) when the text changed; returns the uri."""
        uri = path_to_uri(path)
        known = self._opened.get(uri)
        if known is None:
            self._opened[uri] = (1, text)
            self._diag_events.setdefault(uri, asyncio.Event()).clear()
            self.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": language_id, "version": 1, "text": text}})
        elif known[1] != text:
            version = known[0] + 1
            self._opened[uri] = (version, text)
            self._diag_events.setdefault(uri, asyncio.Event()).clear()
            self.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        return uri

    async def wait_diagnostics(self, uri: str, timeout: float) -> list[dict[str, Any]] | None:
        """The server's latest diagnostics for ``uri`` (None: none published within ``timeout``)."""
        event = self._diag_events.setdefault(uri, asyncio.Event())
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return self.diagnostics.get(uri)

    # -- lifetime -----------------------------------------------------------------------------

    async def shutdown(self, timeout: float = 5.0) -> None:
        if self.alive:
            with contextlib.suppress(LspError, Exception):
                await self.request("shutdown", None, timeout)
                self.notify("exit", None)
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            await self.kill()
        self._reader.cancel()
        self._err_reader.cancel()

    async def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, 9)
            await self.proc.wait()
        self._reader.cancel()
        self._err_reader.cancel()


def _server_request_result(msg: dict[str, Any]) -> Any:
    if msg.get("method") == "workspace/configuration":
        return [None for _ in (msg.get("params") or {}).get("items", [])]
    return None


def _initialize_params(root: Path) -> dict[str, Any]:
    uri = path_to_uri(root)
    return {
        "processId": os.getpid(),
        "rootUri": uri,
        "rootPath": str(root),
        "workspaceFolders": [{"uri": uri, "name": root.name}],
        "clientInfo": {"name": "jupyter-agent"},
        "capabilities": {
            "textDocument": {
                "synchronization": {"didSave": False},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "definition": {"linkSupport": True},
                "references": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "publishDiagnostics": {"relatedInformation": False},
            },
            "workspace": {"symbol": {}, "workspaceFolders": True, "configuration": True},
        },
    }
