"""A minimal Messages API server for the WebFetch/WebSearch tests (non-streaming JSON answers).

Each response is either a fixed content list or a function of the request body; every request
is recorded.  The real ``anthropic`` SDK talks to it through ``base_url``.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], dict[str, Any]]


def message(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": "test-small",
        "content": content, "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class ModelServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.responses: deque[Responder] = deque()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                outer.requests.append(body)
                if not outer.responses:
                    payload, status = {"type": "error", "error": {"type": "api_error", "message": "no script"}}, 500
                else:
                    payload, status = outer.responses.popleft()(body), 200
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def push(self, responder: Responder | dict[str, Any]) -> None:
        self.responses.append(responder if callable(responder) else (lambda _b, r=responder: r))

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
