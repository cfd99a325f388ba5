"""The query loop of one turn: stream a reply, run its tool calls, send the results, repeat."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.abort import AbortController, Aborted, await_unless_aborted
from ..core.batches import run_tools
from ..core.context import ToolUseContext
from ..core.events import ToolCallFinished
from ..core.orchestration import ToolCallOutcome, ToolUseRequest
from ..core.result import text_block
from ..core.tool import CanUseTool
from ..permissions.hooks import get_hook_runner
from .events import AgentErrorEvent, AssistantMessageDone, SessionEvent, Usage
from .history import INTERRUPT_TEXT
from .model import ModelCallError, ModelClient, ModelRequest
from .stream import AssistantTurn

CONTINUE_TEXT = (
    "Output token limit hit. Resume directly where you left off, without apology or recap; "
    "split long output into smaller pieces."
)
CONTEXT_FULL_TEXT = "The conversation no longer fits the model's context window, and compaction did not help."
TRUNCATED_TOOL_TEXT = (
    "The tool call was cut off by the output token limit and was not run. Call it again, with "
    "smaller input if needed."
)


class LoopHost(Protocol):
    """What the loop needs from its session."""

    messages: list[dict[str, Any]]
    context: ToolUseContext
    model_client: ModelClient

    def emit(self, event: SessionEvent) -> None: ...
    def record_message(self, message: dict[str, Any]) -> None: ...
    def record_user_blocks(self, blocks: list[dict[str, Any]]) -> None: ...
    def add_usage(self, usage: Usage, turn: Usage) -> None: ...
    async def build_request(self) -> ModelRequest: ...
    async def maybe_compact(self) -> None: ...


@dataclass(frozen=True)
class LoopLimits:
    max_requests: int = 100
    max_continuations: int = 3


@dataclass
class LoopResult:
    stop_reason: str  # end_turn, interrupted, error, max_turns, max_tokens, refusal, context_window
    usage: Usage
    text: str = ""
    error: str | None = None


@dataclass
class _Progress:
    usage: Usage = field(default_factory=Usage)
    continuations: int = 0
    compactions: int = 0


async def run_query(
    host: LoopHost, abort: AbortController, can_use_tool: CanUseTool, limits: LoopLimits
) -> LoopResult:
    """Run model requests and tool calls until the model ends its turn (or something stops it)."""
    progress = _Progress()
    for _request in range(limits.max_requests):
        await host.maybe_compact()
        request = await host.build_request()
        try:
            reply = await _stream_unless_aborted(host, request, abort)
        except Aborted:
            _keep_partial_text(host)
            host.record_user_blocks([text_block(INTERRUPT_TEXT)])
            return LoopResult("interrupted", progress.usage)
        except ModelCallError as err:
            host.emit(AgentErrorEvent(err.failure.message, kind=err.failure.kind))
            return LoopResult("error", progress.usage, error=err.failure.message)
        progress.usage = progress.usage + reply.usage
        host.add_usage(reply.usage, progress.usage)
        if reply.content:
            host.record_message(reply.message)
        host.emit(AssistantMessageDone(reply.message, reply.stop_reason))
        done = await _next_step(host, reply, progress, abort, can_use_tool, limits)
        if done is not None:
            return done
    return LoopResult("max_turns", progress.usage)


async def _next_step(
    host: LoopHost,
    reply: AssistantTurn,
    progress: _Progress,
    abort: AbortController,
    can_use_tool: CanUseTool,
    limits: LoopLimits,
) -> LoopResult | None:
    """Act on the reply's stop reason: the turn's result, or None to send another request."""
    reason, usage = reply.stop_reason, progress.usage
    if reason == "max_tokens":
        _answer_truncated(host, reply)
        progress.continuations += 1
        if progress.continuations > limits.max_continuations:
            return LoopResult("max_tokens", usage, reply.text)
        host.record_user_blocks([text_block(CONTINUE_TEXT)])
        return None
    if reason == "model_context_window_exceeded":
        _answer_truncated(host, reply)
        progress.compactions += 1
        if progress.compactions > 2 or not await _compact_now(host):
            host.emit(AgentErrorEvent(CONTEXT_FULL_TEXT, kind="context"))
            return LoopResult("context_window", usage, reply.text, error=CONTEXT_FULL_TEXT)
        host.record_user_blocks([text_block(CONTINUE_TEXT)])
        return None
    if reason == "pause_turn":
        return None  # a server tool paused: send the reply back as is and the model resumes
    if reply.tool_uses:
        refresh = getattr(host, "refresh_settings", None)
        if refresh is not None:  # a deny rule added in the editor mid-turn holds for these calls
            await refresh()
        await _run_tool_calls(host, reply, abort, can_use_tool)
        if abort.aborted:
            host.record_user_blocks([text_block(INTERRUPT_TEXT)])
            return LoopResult("interrupted", usage)
        return None
    return LoopResult("refusal" if reason == "refusal" else "end_turn", usage, reply.text)


async def _compact_now(host: LoopHost) -> bool:
    """Compact at once (hosts without ``compact_now`` cannot, e.g. short-lived subagents)."""
    compact_now = getattr(host, "compact_now", None)
    return bool(compact_now is not None and await compact_now())


async def _stream_unless_aborted(host: LoopHost, request: ModelRequest, abort: AbortController) -> AssistantTurn:
    if abort.aborted:
        raise Aborted
    return await await_unless_aborted(asyncio.ensure_future(host.model_client.stream(request, host.emit)), abort)


def _keep_partial_text(host: LoopHost) -> None:
    """The text the user already saw stays in history; unfinished tool calls and thinking do not."""
    assembler = host.model_client.current
    blocks = assembler.partial_text_blocks() if assembler is not None else []
    if blocks:
        host.record_message({"role": "assistant", "content": blocks})


def _answer_truncated(host: LoopHost, reply: AssistantTurn) -> None:
    results = [
        {"type": "tool_result", "tool_use_id": b["id"], "content": [text_block(TRUNCATED_TOOL_TEXT)], "is_error": True}
        for b in reply.tool_uses
    ]
    host.record_user_blocks(results)


async def _run_tool_calls(
    host: LoopHost, reply: AssistantTurn, abort: AbortController, can_use_tool: CanUseTool
) -> None:
    """Run the reply's tool calls; all results go back in one user message, in tool_use order."""
    uses = reply.tool_uses
    valid = [ToolUseRequest(b["id"], b["name"], b["input"]) for b in uses if b["id"] not in reply.invalid_tool_inputs]
    context = host.context.with_changes(abort_controller=abort, messages=host.messages)
    outcomes: dict[str, ToolCallOutcome] = {}
    if valid:
        run = await run_tools(valid, context, can_use_tool, on_event=host.emit, parent_message=reply.message)
        host.context = run.context
        outcomes = {o.tool_use_id: o for o in run.outcomes}
    for block in uses:
        if block["id"] in reply.invalid_tool_inputs:
            outcome = ToolCallOutcome(
                block["id"], block["name"], [text_block(reply.invalid_tool_inputs[block["id"]])], is_error=True
            )
            host.emit(ToolCallFinished(outcome))
            outcomes[block["id"]] = outcome
    results: list[dict[str, Any]] = [dict(outcomes[b["id"]].to_block()) for b in uses]
    for outcome in (outcomes[b["id"]] for b in uses):
        for message in outcome.new_messages:
            if message.get("role") == "user":
                content = message.get("content")
                results.extend([text_block(content)] if isinstance(content, str) else list(content))
    runner = get_hook_runner(host.context)
    if runner is not None and host.context.agent_id is None:  # the session's own loop, not a subagent's
        results.extend(text_block(text) for text in runner.take_finished())
    host.record_user_blocks(results)
