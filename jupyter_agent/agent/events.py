"""Typed events an ``AgentSession`` emits; the widget transcript, JSONL transcript and tests consume them.

Tool-level events (``ToolCallStarted``, ``PermissionRequested``, ``PermissionResolved``,
``ToolCallProgress``, ``ToolCallFinished``) come from ``jupyter_agent.core.events`` and are emitted
as they are, wrapped in nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from ..core.events import ToolEvent


@dataclass(frozen=True)
class TurnStarted:
    turn_id: str
    prompt: str


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolUseStreaming:
    """A tool_use block is streaming: first with ``partial_json=""`` when it begins, then once
    per input fragment, ``partial_json`` holding only the new fragment (join them for the input)."""

    tool_use_id: str
    tool_name: str
    partial_json: str = ""


@dataclass(frozen=True)
class AssistantMessageDone:
    """One complete assistant message (after its stream ended)."""

    message: dict[str, Any]
    stop_reason: str | None


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )


@dataclass(frozen=True)
class UsageUpdated:
    turn: Usage
    session: Usage
    cost_usd: float
    session_cost_usd: float
    context_tokens: int = 0  # how full the context is after this request (0: not measured)
    context_window: int = 0


@dataclass(frozen=True)
class TodosUpdated:
    todos: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Compacted:
    tokens_before: int
    tokens_after: int
    summary: str


@dataclass(frozen=True)
class AgentErrorEvent:
    """An error for the user.  ``retrying=True``: the reply is being retried from the start, so
    text and tool input streamed since the last ``AssistantMessageDone`` are void.  Kinds also
    include "hook", "mcp", "compaction" and "context" (warnings; the turn goes on unless it ends)."""

    message: str
    kind: str = "error"  # "api", "auth", "rate_limit", "overloaded", "server", "network", "internal"
    retrying: bool = False


@dataclass(frozen=True)
class TurnEnded:
    turn_id: str
    # "end_turn", "interrupted", "error", "max_turns", "max_tokens", "refusal", "blocked" (a
    # UserPromptSubmit hook), "context_window"
    stop_reason: str
    duration_s: float
    usage: Usage


SessionEvent = Union[
    TurnStarted,
    TextDelta,
    ThinkingDelta,
    ToolUseStreaming,
    AssistantMessageDone,
    UsageUpdated,
    TodosUpdated,
    Compacted,
    AgentErrorEvent,
    TurnEnded,
    ToolEvent,
]
