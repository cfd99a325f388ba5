"""What the scripted server answers: responses built from blocks, and faults.

    server.push(reply(text("Let me look."), tool_use("Read", {"file_path": "/x"})))
    server.push(reply(text("Done.")))
    server.push(fault_status(429, retry_after=0))

A ``Reply`` becomes one Messages API response (streamed as SSE or returned as JSON); a
``Fault`` becomes an HTTP error, a dropped connection, or a broken stream.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Union

_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}scripted"


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ThinkingPart:
    thinking: str
    signature: str = "sig-scripted"


@dataclass(frozen=True)
class RedactedThinkingPart:
    data: str = "redacted-scripted"


@dataclass(frozen=True)
class ToolUsePart:
    """A tool_use block; ``raw_json`` (if set) is streamed verbatim, e.g. to send invalid JSON."""

    name: str
    input: dict[str, Any]
    id: str = ""
    raw_json: str | None = None

    @property
    def json_text(self) -> str:
        return self.raw_json if self.raw_json is not None else json.dumps(self.input)


@dataclass(frozen=True)
class RawBlockPart:
    """A complete content block sent as-is (e.g. ``server_tool_use``, ``web_search_tool_result``).

    Streamed as one ``content_block_start`` carrying the whole block, then ``content_block_stop``
    (as the API streams server-tool blocks); returned verbatim in a non-streaming message.
    """

    content: dict[str, Any]


Part = Union[TextPart, ThinkingPart, RedactedThinkingPart, ToolUsePart, RawBlockPart]


@dataclass(frozen=True)
class UsageOverride:
    """Fixed usage numbers; fields left ``None`` are computed by the server."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


@dataclass(frozen=True)
class Reply:
    """One model response."""

    parts: tuple[Part, ...]
    stop_reason: str | None = None  # None: "tool_use" if any tool_use part, else "end_turn"
    usage: UsageOverride | None = None
    delay_s: float = 0.0  # pause between SSE events (a slow stream)
    chunk_chars: int = 0  # split text into deltas of this many characters (0: one delta)
    drop_after_events: int | None = None  # close the connection after this many SSE events
    malformed_after_events: int | None = None  # send a broken SSE data line at this point
    error_event_after: int | None = None  # send an SSE `error` event (overloaded) at this point
    model: str | None = None

    @property
    def resolved_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if any(isinstance(p, ToolUsePart) for p in self.parts) else "end_turn"


@dataclass(frozen=True)
class Fault:
    """An HTTP error response instead of a message."""

    status: int
    error_type: str
    message: str
    retry_after: float | None = None
    headers: tuple[tuple[str, str], ...] = ()


Scripted = Union[Reply, Fault]


# -- builders ------------------------------------------------------------------------------------


def text(value: str) -> TextPart:
    return TextPart(value)


def thinking(value: str, signature: str = "sig-scripted") -> ThinkingPart:
    return ThinkingPart(value, signature)


def redacted_thinking(data: str = "redacted-scripted") -> RedactedThinkingPart:
    return RedactedThinkingPart(data)


def tool_use(name: str, input: dict[str, Any] | None = None, id: str | None = None) -> ToolUsePart:
    return ToolUsePart(name, dict(input or {}), id or _next_id("toolu"))


def tool_use_raw(name: str, raw_json: str, id: str | None = None) -> ToolUsePart:
    """A tool_use whose streamed input is ``raw_json`` verbatim (may be invalid JSON)."""
    return ToolUsePart(name, {}, id or _next_id("toolu"), raw_json=raw_json)


def block(content: dict[str, Any]) -> RawBlockPart:
    """A raw content block (a dict with a ``type``), e.g. a server tool's call or result."""
    if not isinstance(content, dict) or not isinstance(content.get("type"), str):
        raise ValueError("block() needs a dict with a string 'type'")
    return RawBlockPart(json.loads(json.dumps(content)))


def reply(
    *parts: Part | str,
    stop_reason: str | None = None,
    usage: UsageOverride | None = None,
    **options: Any,
) -> Reply:
    """A response made of ``parts`` (a bare string is a text part)."""
    resolved = tuple(TextPart(p) if isinstance(p, str) else p for p in parts)
    return Reply(resolved, stop_reason=stop_reason, usage=usage, **options)


_STATUS_TYPES: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "Invalid request."),
    401: ("authentication_error", "invalid x-api-key"),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "model not found"),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."),
    500: ("api_error", "Internal server error."),
    529: ("overloaded_error", "Overloaded"),
}


def fault_status(
    status: int, *, retry_after: float | None = None, message: str | None = None
) -> Fault:
    """An HTTP error (429 with ``retry_after``, 529 overloaded, 500, 401...)."""
    error_type, default = _STATUS_TYPES.get(status, ("api_error", f"HTTP {status}"))
    return Fault(status, error_type, message or default, retry_after)


def drop_mid_stream(after_events: int = 4, *parts: Part | str) -> Reply:
    """A stream that dies (connection closed, chunked body unfinished) after ``after_events``."""
    return reply(*(parts or ("This answer will be cut off...",)), drop_after_events=after_events)


def malformed_stream(after_events: int = 2) -> Reply:
    return reply("never delivered", malformed_after_events=after_events)


@dataclass
class Route:
    """A queue of replies served to requests that ``match`` (a predicate on the request body)."""

    match: Any  # Callable[[dict[str, Any]], bool]
    queue: list[Scripted] = field(default_factory=list)
    name: str = ""

