"""TriggerServer: a tiny HTTP/1.1 server (asyncio streams) for ``POST /triggers/<id>``.

Every request needs ``Authorization: Bearer <token>`` of that trigger (compared in constant
time).  Unknown ids and wrong tokens get the same 401, so ids cannot be probed.  Bodies are
capped; one request per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
from collections.abc import Callable
from typing import Any

MAX_BODY = 64 * 1024
HEADER_TIMEOUT = 10.0
_REASONS = {202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            405: "Method Not Allowed", 413: "Payload Too Large"}

# fire(trigger_id, body_text) -> None; the server has already checked the token.
FireHandler = Callable[[str, str], None]
TokenLookup = Callable[[str], "str | None"]


class TriggerServer:
    def __init__(self, token_for: TokenLookup, fire: FireHandler, host: str = "127.0.0.1", port: int = 0) -> None:
        self._token_for, self._fire = token_for, fire
        self.host, self._port = host, port
        self._server: asyncio.base_events.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def running(self) -> bool:
        return self._server is not None

    def url_for(self, trigger_id: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/triggers/{trigger_id}"

    async def start(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, self.host, self._port)

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, payload = await asyncio.wait_for(self._respond(reader), HEADER_TIMEOUT)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError, ConnectionError):
            status, payload = 400, {"error": "malformed request"}
        body = json.dumps(payload).encode()
        head = (f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        with contextlib.suppress(ConnectionError):
            writer.write(head.encode() + body)
            await writer.drain()
        writer.close()

    async def _respond(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, Any]]:
        method, path, _version = (await reader.readline()).decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while (line := (await reader.readline()).decode("latin-1").strip()):
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        parts = path.split("?", 1)[0].strip("/").split("/")
        if len(parts) != 2 or parts[0] != "triggers":
            return 404, {"error": "not found"}
        if method != "POST":
            return 405, {"error": "use POST"}
        length = int(headers.get("content-length", "0") or 0)
        if length < 0 or length > MAX_BODY:
            return 413, {"error": f"body over {MAX_BODY} bytes"}
        body = (await reader.readexactly(length)).decode("utf-8", "replace") if length else ""
        expected = self._token_for(parts[1])
        given = headers.get("authorization", "")
        given = given[7:].strip() if given.lower().startswith("bearer ") else ""
        if expected is None or not given or not hmac.compare_digest(given.encode(), expected.encode()):
            return 401, {"error": "missing or wrong token"}
        self._fire(parts[1], body)
        return 202, {"accepted": True, "trigger": parts[1]}
