"""A real HTTP server on 127.0.0.1 that speaks the Anthropic Messages API from a script.

    with ScriptedServer() as server:
        server.push(reply("Hello!"))
        client = AsyncAnthropic(base_url=server.url, api_key="test")
        ...
        server.requests[0].body["messages"]

It runs in a background thread (so it serves while a kernel's or a test's event loop runs),
answers ``POST /v1/messages`` (streamed SSE or JSON) and ``POST /v1/messages/count_tokens``,
records every request, and accounts prompt caching honestly (see ``cache.py``).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

from .cache import PromptCache, count_input_tokens
from .handler import ScriptedHandler
from .script import Route, Scripted

RequestPredicate = Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    route: str = ""
    served: str = ""  # "reply", "fault", "none" or "count_tokens"

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def system_text(self) -> str:
        system = self.body.get("system")
        if isinstance(system, str):
            return system
        return "\n".join(b.get("text", "") for b in system or [] if isinstance(b, dict))


@dataclass
class _State:
    routes: list[Route] = field(default_factory=list)
    default: Route = field(default_factory=lambda: Route(lambda _b: True, name="default"))
    requests: list[RecordedRequest] = field(default_factory=list)
    fallback: Callable[[dict[str, Any]], Scripted | None] | None = None


class ScriptedServer:
    """The scripted model server; thread-safe; start with ``start()`` or a ``with`` block."""

    def __init__(self, *, min_cacheable_tokens: int = 1024, model: str = "claude-sonnet-5-5") -> None:
        self.cache = PromptCache(min_cacheable_tokens)
        self.model = model
        self._state = _State()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._httpd is not None:
            return self
        handler = type("BoundScriptedHandler", (ScriptedHandler,), {"server_app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="scripted-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not started; call start() first")
        host, port = self._httpd.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}"

    # -- scripting -------------------------------------------------------------------------

    def push(self, *items: Scripted) -> ScriptedServer:
        """Queue responses for requests no route claims, in order."""
        with self._lock:
            self._state.default.queue.extend(items)
        return self

    def route(self, match: RequestPredicate, *items: Scripted, name: str = "") -> Route:
        """Serve ``items`` (in order) to requests for which ``match(body)`` is true."""
        route = Route(match, list(items), name or f"route{len(self._state.routes) + 1}")
        with self._lock:
            self._state.routes.append(route)
        return route

    def set_fallback(self, fallback: Callable[[dict[str, Any]], Scripted | None] | None) -> None:
        """Called when no queue has a response (the demo uses it to answer from the request)."""
        with self._lock:
            self._state.fallback = fallback

    def pending(self) -> int:
        with self._lock:
            return len(self._state.default.queue) + sum(len(r.queue) for r in self._state.routes)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (count_tokens included), oldest first."""
        with self._lock:
            return list(self._state.requests)

    @property
    def message_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/messages"]

    # -- used by the handler ---------------------------------------------------------------

    def next_message_id(self) -> str:
        return f"msg_{next(self._ids):06d}scripted"

    def take(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Scripted | None:
        """Record the request and pop the response for it (``None``: nothing scripted)."""
        with self._lock:
            route = next((r for r in self._state.routes if _matches(r, body)), self._state.default)
            item = route.queue.pop(0) if route.queue else None
            if item is None and self._state.fallback is not None:
                item = self._state.fallback(body)
            served = "none" if item is None else type(item).__name__.lower()
            self._state.requests.append(RecordedRequest(path, body, headers, route.name, served))
        return item

    def record_count(self, body: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self._state.requests.append(
                RecordedRequest("/v1/messages/count_tokens", body, headers, "", "count_tokens")
            )
        return count_input_tokens(body)


def _matches(route: Route, body: dict[str, Any]) -> bool:
    try:
        return bool(route.match(body))
    except Exception:  # a predicate that cannot read this body does not claim it
        return False


def first_user_text(body: dict[str, Any]) -> str:
    """The text of the first user message (for routing predicates)."""
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
    return ""


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()
