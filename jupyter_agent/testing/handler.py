"""The HTTP request handler behind ``ScriptedServer``: routing, SSE writing, faults."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from .render import encode_sse, message_json, stream_events
from .script import Fault, Reply

if TYPE_CHECKING:
    from .server import ScriptedServer

_FLUSH_BYTES = 32_768
_OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


class _Dropped(Exception):
    """The script asked for the connection to die mid-stream."""


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_app: ScriptedServer  # set on a bound subclass by ScriptedServer.start()

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("body is not a JSON object")
        except ValueError as exc:
            self._send_error(400, "invalid_request_error", f"Request body is not valid JSON: {exc}")
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        path = _vertex_to_messages(path, body)
        if path == "/v1/messages/count_tokens":
            self._send_json(200, {"input_tokens": self.server_app.record_count(body, headers)})
        elif path == "/v1/messages":
            self._serve_message(body, headers)
        else:
            self._send_error(404, "not_found_error", f"Unknown path {path}")

    def _serve_message(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        app = self.server_app
        item = app.take("/v1/messages", body, headers)
        if item is None:
            self._send_error(
                400, "invalid_request_error", "Scripted server: no response is queued for this request."
            )
            return
        if isinstance(item, Fault):
            extra = dict(item.headers)
            if item.retry_after is not None:
                extra["retry-after"] = _format_seconds(item.retry_after)
                extra["retry-after-ms"] = str(int(item.retry_after * 1000))
            self._send_error(item.status, item.error_type, item.message, extra)
            return
        model = str(body.get("model") or app.model)
        usage = app.cache.account(body)
        message_id = app.next_message_id()
        if body.get("stream"):
            self._stream(item, message_id, model, usage)
        else:
            self._send_json(200, message_json(item, message_id, model, usage))

    # -- writing ---------------------------------------------------------------------------

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_scripted")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> None:
        payload = {"type": "error", "error": {"type": kind, "message": message}}
        self._send_json(status, payload, headers)

    def _stream(self, reply: Reply, message_id: str, model: str, usage: Any) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_scripted")
        self.end_headers()
        try:
            self._write_events(reply, message_id, model, usage)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except _Dropped:
            self._drop()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True  # the client went away (e.g. the user pressed Stop)

    def _write_events(self, reply: Reply, message_id: str, model: str, usage: Any) -> None:
        pending: list[bytes] = []
        size = 0
        for count, (name, data) in enumerate(stream_events(reply, message_id, model, usage)):
            special = self._special_event(reply, count)
            if special is not None:
                pending.append(special)
                if reply.error_event_after == count:
                    break
            if reply.drop_after_events == count:
                self._write_chunk(b"".join(pending))
                raise _Dropped
            encoded = encode_sse(name, data)
            pending.append(encoded)
            size += len(encoded)
            if reply.delay_s > 0 or size >= _FLUSH_BYTES:
                self._write_chunk(b"".join(pending))
                pending, size = [], 0
                if reply.delay_s > 0:
                    time.sleep(reply.delay_s)
        self._write_chunk(b"".join(pending))

    @staticmethod
    def _special_event(reply: Reply, count: int) -> bytes | None:
        if reply.malformed_after_events == count:
            return b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", broken\n\n"
        if reply.error_event_after == count:
            return encode_sse("error", _OVERLOADED)
        return None

    def _write_chunk(self, data: bytes) -> None:
        if not data:
            return
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close the socket with the chunked body unfinished: the client sees a broken stream."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)


_VERTEX = re.compile(r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/([^/:]+):(\w+)$")


def _vertex_to_messages(path: str, body: dict[str, Any]) -> str:
    """Vertex AI's paths carry the model and the streaming flag; map them to the Messages API."""
    match = _VERTEX.match(path)
    if match is None:
        return path
    model, action = match.groups()
    if model == "count-tokens":
        return "/v1/messages/count_tokens"
    body.setdefault("model", model)
    if action == "streamRawPredict":
        body["stream"] = True
    return "/v1/messages"


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"
