"""Assemble one assistant message from the raw SSE events, emitting deltas as they arrive."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .events import SessionEvent, TextDelta, ThinkingDelta, ToolUseStreaming, Usage
from .retry import IncompleteStreamError

Emit = Callable[[SessionEvent], None]


@dataclass
class AssistantTurn:
    """One complete assistant message, ready to go back into ``messages``."""

    message: dict[str, Any]
    stop_reason: str | None
    usage: Usage
    invalid_tool_inputs: dict[str, str] = field(default_factory=dict)  # tool_use id → error

    @property
    def content(self) -> list[dict[str, Any]]:
        return self.message["content"]

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    @property
    def text(self) -> str:
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")


def _usage(raw: Any, previous: Usage | None = None) -> Usage:
    """Usage from an SDK usage object; fields it leaves out keep their previous value."""
    prev = previous or Usage()

    def pick(name: str, fallback: int) -> int:
        value = getattr(raw, name, None)
        return int(value) if value is not None else fallback

    return Usage(
        pick("input_tokens", prev.input_tokens),
        pick("output_tokens", prev.output_tokens),
        pick("cache_read_input_tokens", prev.cache_read_input_tokens),
        pick("cache_creation_input_tokens", prev.cache_creation_input_tokens),
    )


class _Block:
    __slots__ = ("kind", "base", "parts", "signature", "tool_id")

    def __init__(self, kind: str, base: dict[str, Any]) -> None:
        self.kind = kind
        self.base = base
        self.parts: list[str] = []
        self.signature = base.get("signature") or ""
        self.tool_id = base.get("id", "")


class StreamAssembler:
    """Feed it raw stream events in order; ``result()`` gives the finished ``AssistantTurn``."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._blocks: dict[int, _Block] = {}
        self._meta: dict[str, Any] = {}
        self._usage = Usage()
        self._stop_reason: str | None = None
        self._stopped = False

    def feed(self, event: Any) -> None:
        kind = event.type
        if kind == "content_block_delta":
            self._delta(event.index, event.delta)
        elif kind == "content_block_start":
            self._start(event.index, event.content_block)
        elif kind == "message_start":
            message = event.message
            self._meta = {"id": message.id, "model": message.model}
            self._usage = _usage(message.usage)
        elif kind == "message_delta":
            self._stop_reason = event.delta.stop_reason
            if event.usage is not None:
                self._usage = _usage(event.usage, self._usage)
        elif kind == "message_stop":
            self._stopped = True

    def _start(self, index: int, block: Any) -> None:
        base = block.model_dump(mode="json", exclude_none=True)
        self._blocks[index] = _Block(base["type"], base)
        if base["type"] == "tool_use":
            self._emit(ToolUseStreaming(base["id"], base["name"], ""))

    def _delta(self, index: int, delta: Any) -> None:
        block = self._blocks[index]
        kind = delta.type
        if kind == "text_delta":
            block.parts.append(delta.text)
            self._emit(TextDelta(delta.text))
        elif kind == "thinking_delta":
            block.parts.append(delta.thinking)
            self._emit(ThinkingDelta(delta.thinking))
        elif kind == "signature_delta":
            block.signature = delta.signature
        elif kind == "input_json_delta":
            block.parts.append(delta.partial_json)
            if block.kind == "tool_use":
                self._emit(ToolUseStreaming(block.tool_id, block.base["name"], delta.partial_json))

    @property
    def started(self) -> bool:
        """Whether any content of the reply arrived (text, thinking, a tool call)."""
        return bool(self._blocks)

    def partial_text_blocks(self) -> list[dict[str, Any]]:
        """The text streamed so far (kept in history when the user stops mid-stream)."""
        out = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            text = "".join(block.parts) if block.kind == "text" else ""
            if text.strip():
                out.append({"type": "text", "text": text})
        return out

    def result(self) -> AssistantTurn:
        if not self._stopped:
            raise IncompleteStreamError("the stream ended before message_stop")
        invalid: dict[str, str] = {}
        content = [self._finish(self._blocks[i], invalid) for i in sorted(self._blocks)]
        # The API refuses blank text blocks in the history it is sent back.
        content = [b for b in content if b["type"] != "text" or b["text"].strip()]
        message = {"role": "assistant", "content": content}
        return AssistantTurn(message, self._stop_reason, self._usage, invalid)

    @staticmethod
    def _finish(block: _Block, invalid: dict[str, str]) -> dict[str, Any]:
        joined = "".join(block.parts)
        match block.kind:
            case "text":
                return {"type": "text", "text": joined}
            case "thinking":
                return {"type": "thinking", "thinking": joined, "signature": block.signature}
            case "redacted_thinking":
                return {"type": "redacted_thinking", "data": block.base.get("data", "")}
        out = dict(block.base)
        if block.kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
            out["input"] = _parse_input(joined, block.tool_id, invalid)
        return out


def _parse_input(raw: str, tool_id: str, invalid: dict[str, str]) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        invalid[tool_id] = (
            f"InputValidationError: the tool input was not valid JSON ({exc.msg} at position "
            f"{exc.pos}). Send the call again with a valid JSON object as input."
        )
        return {}
    if not isinstance(value, dict):
        invalid[tool_id] = "InputValidationError: the tool input must be a JSON object."
        return {}
    return value
