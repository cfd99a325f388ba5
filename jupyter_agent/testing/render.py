"""Turn a scripted ``Reply`` into the Messages API's SSE event sequence or its JSON message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .cache import CacheUsage, estimate_tokens
from .script import (
    Part,
    RawBlockPart,
    RedactedThinkingPart,
    Reply,
    TextPart,
    ThinkingPart,
    ToolUsePart,
    UsageOverride,
)

SseEvent = tuple[str, dict[str, Any]]


def encode_sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _usage(cache: CacheUsage, output_tokens: int, override: UsageOverride | None) -> dict[str, int]:
    usage = {
        "input_tokens": cache.input_tokens,
        "output_tokens": output_tokens,
        "cache_read_input_tokens": cache.cache_read_input_tokens,
        "cache_creation_input_tokens": cache.cache_creation_input_tokens,
    }
    if override is not None:
        for key in usage:
            value = getattr(override, key)
            if value is not None:
                usage[key] = value
    return usage


def output_tokens(reply: Reply) -> int:
    return sum(estimate_tokens(_part_text(p)) for p in reply.parts) if reply.parts else 1


def _part_text(part: Part) -> str:
    match part:
        case TextPart():
            return part.text
        case ThinkingPart():
            return part.thinking
        case RedactedThinkingPart():
            return part.data
        case ToolUsePart():
            return part.name + part.json_text
        case RawBlockPart():
            return json.dumps(part.content)


def _block_json(part: Part) -> dict[str, Any]:
    match part:
        case TextPart():
            return {"type": "text", "text": part.text}
        case ThinkingPart():
            return {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
        case RedactedThinkingPart():
            return {"type": "redacted_thinking", "data": part.data}
        case ToolUsePart():
            return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
        case RawBlockPart():
            return part.content


def message_json(reply: Reply, message_id: str, model: str, cache: CacheUsage) -> dict[str, Any]:
    """The non-streaming response body."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model or model,
        "content": [_block_json(p) for p in reply.parts],
        "stop_reason": reply.resolved_stop_reason,
        "stop_sequence": None,
        "usage": _usage(cache, output_tokens(reply), reply.usage),
    }


def _chunks(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _block_events(index: int, part: Part, chunk: int) -> Iterator[SseEvent]:
    match part:
        case TextPart():
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": c} for c in _chunks(part.text, chunk)]
        case ThinkingPart():
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(part.thinking, chunk)]
            deltas.append({"type": "signature_delta", "signature": part.signature})
        case RedactedThinkingPart():
            start = {"type": "redacted_thinking", "data": part.data}
            deltas = []
        case ToolUsePart():
            start = {"type": "tool_use", "id": part.id, "name": part.name, "input": {}}
            pieces = _chunks(part.json_text, chunk or 16)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
        case RawBlockPart():
            start = part.content
            deltas = []
    yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def stream_events(reply: Reply, message_id: str, model: str, cache: CacheUsage) -> Iterator[SseEvent]:
    """The full SSE sequence: message_start, blocks, message_delta (usage, stop), message_stop."""
    usage = _usage(cache, output_tokens(reply), reply.usage)
    start_usage = dict(usage, output_tokens=1)
    message: dict[str, object] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model or model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}
    for index, part in enumerate(reply.parts):
        yield from _block_events(index, part, reply.chunk_chars)
    yield "message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": reply.resolved_stop_reason, "stop_sequence": None},
        "usage": usage,
    }
    yield "message_stop", {"type": "message_stop"}
