"""CtxInspect (flag ``ctx_inspect``): what fills the context window right now.

Token counts are the agent's own estimate (``agent.compact.estimate_tokens``: about four
characters a token over the JSON), so they line up with the compaction threshold.  A session can
give more (its system prompt, window, threshold, the last real input-token count) by putting a
``ContextSource`` in ``context.extra["ctx_inspect"]`` — ``attach_ctx_inspect(session)`` does it.
Without one, the model's known window and the default threshold (0.8) are used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from ..agent.compact import estimate_tokens
from ..agent.config import SessionConfig
from ..agent.models import model_info
from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ._read_only import ReadOnlyTool

SOURCE_KEY = "ctx_inspect"
DEFAULT_THRESHOLD = SessionConfig.__dataclass_fields__["compact_threshold"].default


@dataclass
class ContextSource:
    """What a session knows beyond ``context.messages`` and ``context.options.tools``."""

    system: list[dict[str, Any]] = field(default_factory=list)
    context_window: int | None = None
    compact_threshold: float = DEFAULT_THRESHOLD  # type: ignore[assignment]
    last_input_tokens: int = 0  # the last request's real input tokens (0: unknown)


class _SessionSource:
    """A live view of an ``AgentSession`` (read at each call, so it never goes stale)."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def snapshot(self) -> ContextSource:
        s = self._session
        return ContextSource(
            system=list(getattr(s, "_system", None) or []),
            context_window=s.context_window,
            compact_threshold=s.config.compact_threshold,
            last_input_tokens=int(getattr(s, "_last_context_tokens", 0) or 0),
        )


def attach_ctx_inspect(session: Any) -> None:
    """Let CtxInspect see ``session``'s system prompt, window and compaction threshold."""
    session.context.extra[SOURCE_KEY] = _SessionSource(session)


class CtxInspectInput(BaseModel):
    top: int = Field(10, ge=1, le=100, description="How many of the largest items to list (default 10)")


class ContextItem(BaseModel):
    label: str
    tokens: int
    cached: bool


class CtxInspectOutput(BaseModel):
    system_tokens: int
    tools_tokens: int
    tool_count: int
    messages_tokens: int
    message_count: int
    tool_result_tokens: int
    cached_tokens: int
    uncached_tokens: int
    total_tokens: int
    last_request_input_tokens: int
    context_window: int
    compact_at_tokens: int
    largest: list[ContextItem]


def _tokens(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str)) // 4


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _block_label(index: int, role: str, block: dict[str, Any], names: dict[str, str]) -> str:
    kind = block.get("type", "?")
    if kind == "tool_use":
        return f"message {index} ({role}): tool_use {block.get('name', '?')}"
    if kind == "tool_result":
        name = names.get(str(block.get("tool_use_id")), "?")
        return f"message {index} ({role}): tool_result of {name}"
    return f"message {index} ({role}): {kind}"


def _cache_boundary(messages: list[dict[str, Any]]) -> int:
    """Messages before this index are read from the prompt cache (agent.caching marks the
    previous user message and the latest one; the latest request wrote everything before it)."""
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    return users[-1] if users else 0


def _source(context: ToolUseContext) -> ContextSource:
    raw = context.extra.get(SOURCE_KEY)
    if isinstance(raw, ContextSource):
        return raw
    if hasattr(raw, "snapshot"):
        return raw.snapshot()
    return ContextSource()


async def inspect_context(context: ToolUseContext, top: int) -> CtxInspectOutput:
    src = _source(context)
    messages = list(context.messages)
    api_tools = [await t.to_api_tool(context.options) for t in context.options.tools]
    system_tokens = estimate_tokens([], src.system) if src.system else 0
    tools_tokens = sum(_tokens(t) for t in api_tools)
    names = {
        str(b.get("id")): str(b.get("name"))
        for m in messages for b in _blocks(m) if b.get("type") == "tool_use"
    }
    boundary = _cache_boundary(messages)
    items = [ContextItem(label="system prompt", tokens=system_tokens, cached=True)]
    items += [
        ContextItem(label=f"tool definition {t['name']}", tokens=_tokens(t), cached=True) for t in api_tools
    ]
    result_tokens = 0
    for i, m in enumerate(messages):
        for block in _blocks(m):
            n = _tokens(block)
            if block.get("type") == "tool_result":
                result_tokens += n
            items.append(ContextItem(label=_block_label(i, m.get("role", "?"), block, names), tokens=n, cached=i < boundary))
    messages_tokens = estimate_tokens(messages) if messages else 0
    cached = system_tokens + tools_tokens + sum(estimate_tokens([m]) for m in messages[:boundary])
    total = system_tokens + tools_tokens + messages_tokens
    window = src.context_window or model_info(context.options.main_loop_model).context_window
    return CtxInspectOutput(
        system_tokens=system_tokens, tools_tokens=tools_tokens, tool_count=len(api_tools),
        messages_tokens=messages_tokens, message_count=len(messages), tool_result_tokens=result_tokens,
        cached_tokens=cached, uncached_tokens=max(0, total - cached), total_tokens=total,
        last_request_input_tokens=src.last_input_tokens, context_window=window,
        compact_at_tokens=int(window * src.compact_threshold),
        largest=sorted(items, key=lambda it: it.tokens, reverse=True)[:top],
    )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0%"


def format_report(o: CtxInspectOutput) -> str:
    used = max(o.total_tokens, o.last_request_input_tokens)
    left = o.compact_at_tokens - used
    lines = [
        f"Context: ~{o.total_tokens:,} tokens (estimate) of a {o.context_window:,}-token window "
        f"({_pct(o.total_tokens, o.context_window)}).",
        f"- System prompt: ~{o.system_tokens:,}",
        f"- Tool definitions ({o.tool_count}): ~{o.tools_tokens:,}",
        f"- Messages ({o.message_count}): ~{o.messages_tokens:,}, of which tool results ~{o.tool_result_tokens:,}",
        f"- Cached prefix: ~{o.cached_tokens:,}; not cached: ~{o.uncached_tokens:,}",
    ]
    if o.last_request_input_tokens:
        lines.append(f"- Last request's real input tokens: {o.last_request_input_tokens:,}")
    lines.append(
        f"Compaction at ~{o.compact_at_tokens:,} tokens: "
        + (f"~{left:,} tokens to go." if left > 0 else "the threshold is reached; the next turn compacts.")
    )
    lines.append("Largest items:")
    lines += [f"  {it.tokens:>8,}  {it.label}{'' if it.cached else ' (not cached)'}" for it in o.largest]
    return "\n".join(lines)


class CtxInspectTool(ReadOnlyTool[CtxInspectInput, CtxInspectOutput]):
    """Show what is in the context window right now: estimated tokens for the system prompt,
the tool definitions, the messages and the tool results, what is served from the prompt cache,
the largest items, and how far the session is from automatic compaction.

Use it when the conversation feels long, before reading more large files, or to decide whether
to summarize, drop big tool outputs from your plans, or ask the user to compact. It changes
nothing and costs no model call."""

    name = "CtxInspect"
    input_schema = CtxInspectInput
    search_hint = "context window tokens usage compaction inspect"

    async def check_permissions(self, input: CtxInspectInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult(await inspect_context(context, input.top))

    def map_result_to_content(self, data: CtxInspectOutput, tool_use_id: str):
        return [{"type": "text", "text": format_report(data)}]

    def render_tool_use_message(self, input: CtxInspectInput) -> str:
        return "Inspect context"

    def render_tool_result_message(self, output: CtxInspectOutput) -> str:
        return (
            f"~{output.total_tokens:,} tokens ({_pct(output.total_tokens, output.context_window)} of window), "
            f"compaction at ~{output.compact_at_tokens:,}"
        )
