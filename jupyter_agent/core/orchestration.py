"""Running one tool call (``run_tool_use``; a message's worth is ``batches.run_tools``).

Per call: lookup (aliases resolve) → pydantic schema → ``validate_input`` → permissions →
``call``.  Every failure on the way becomes an ``is_error`` tool result; nothing escapes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from anthropic.types import MessageParam, ToolResultBlockParam
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError
from typing_extensions import assert_never

from ..errors import ToolError
from .abort import Aborted, await_unless_aborted
from .context import ToolUseContext
from .events import (
    EventSink,
    PermissionRequested,
    PermissionResolved,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
)
from .permission_types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny
from .result import (
    ContentBlock,
    ToolResult,
    content_text_length,
    persist_oversized,
    text_block,
    tool_result_block,
)
from .tool import CanUseTool, Tool, ToolProgress, ValidationError, start_call

INTERRUPTED_MESSAGE = "Interrupted by user: the tool call was stopped before it finished."
NOT_RUN_MESSAGE = "Interrupted by user: the tool call was not run."

PermissionDecider = Callable[[Tool[Any, Any], BaseModel, ToolUseContext], Awaitable[PermissionDecision]]


@dataclass(frozen=True)
class ToolUseRequest:
    """A ``tool_use`` block from the model: its id, tool name and raw JSON input."""

    id: str
    name: str
    input: object


@dataclass
class ToolCallOutcome:
    """What became of one tool_use: the tool_result content and how it got there."""

    tool_use_id: str
    tool_name: str
    content: list[ContentBlock]
    is_error: bool = False
    result: ToolResult[Any] | None = None
    input: BaseModel | None = None
    decision: str = "none"
    new_messages: list[MessageParam] = field(default_factory=list)
    hook_notes: list[str] = field(default_factory=list)  # what PostToolUse hooks added for the model

    def to_block(self) -> ToolResultBlockParam:
        return tool_result_block(self.tool_use_id, self.content, is_error=self.is_error)

    @property
    def text(self) -> str:
        return "\n".join(b.get("text", "") for b in self.content if b.get("type") == "text")  # type: ignore[misc]

    @property
    def tool_text(self) -> str:
        """``text`` without what PostToolUse hooks appended (the tool's own words)."""
        own = self.content[: len(self.content) - len(self.hook_notes)] if self.hook_notes else self.content
        return "\n".join(b.get("text", "") for b in own if b.get("type") == "text")  # type: ignore[misc]


def _error(req: ToolUseRequest, message: str, *, decision: str = "none") -> ToolCallOutcome:
    return ToolCallOutcome(req.id, req.name, [text_block(message)], is_error=True, decision=decision)


def format_schema_error(tool_name: str, err: PydanticValidationError) -> str:
    """A short message naming each bad field and what is wrong with it."""
    lines = []
    for e in err.errors(include_url=False):
        loc = ".".join(str(p) for p in e["loc"]) or "(input)"
        if e["type"] == "missing":
            lines.append(f"The required parameter `{loc}` is missing")
        elif e["type"] == "extra_forbidden":
            lines.append(f"An unexpected parameter `{loc}` was provided")
        else:
            got = repr(e.get("input"))
            got = got if len(got) <= 80 else got[:77] + "..."
            lines.append(f"The parameter `{loc}`: {e['msg']} (got {got})")
    return f"InputValidationError: {tool_name} failed due to the following issue(s):\n" + "\n".join(lines)


def parse_tool_input(tool: Tool[Any, Any], raw: object) -> BaseModel | str:
    """The validated input model, or the error message for the model."""
    if not isinstance(raw, dict):
        return (
            f"InputValidationError: {tool.name} expects a JSON object as input, "
            f"got {type(raw).__name__}."
        )
    try:
        return tool.input_schema.model_validate(raw)
    except PydanticValidationError as err:
        return format_schema_error(tool.name, err)


def _observable(tool: Tool[Any, Any], parsed: BaseModel) -> dict[str, Any]:
    data = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
    try:
        return tool.backfill_observable_input(dict(data))
    except Exception:  # an observer's extra fields must never break the call
        return data


async def run_tool_use(
    req: ToolUseRequest,
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    *,
    on_event: EventSink | None = None,
    decide: PermissionDecider | None = None,
    parent_message: Any = None,
) -> ToolCallOutcome:
    """Run one tool call through every stage; always returns an outcome, never raises."""
    emit = on_event or (lambda _e: None)
    outcome = await _run_stages(req, context, can_use_tool, emit, decide, parent_message)
    emit(ToolCallFinished(outcome))
    return outcome


async def _run_stages(
    req: ToolUseRequest,
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    emit: EventSink,
    decide: PermissionDecider | None,
    parent_message: Any,
) -> ToolCallOutcome:
    tool = context.find_tool(req.name)
    if tool is None:
        names = ", ".join(t.name for t in context.options.tools) or "(none)"
        return _error(req, f"Error: No such tool available: {req.name}. Available tools: {names}")
    if context.abort_controller.aborted:
        return _error(req, NOT_RUN_MESSAGE, decision="interrupted")
    parsed = parse_tool_input(tool, req.input)
    if isinstance(parsed, str):
        return _error(req, parsed)
    try:
        validation = await tool.validate_input(parsed, context)
    except Exception as exc:
        return _error(req, _describe_exception(exc))
    if isinstance(validation, ValidationError):
        return _error(req, validation.message)

    hooks, pre = context.extra.get("hooks"), None  # a permissions.hooks.HookRunner, if any
    if hooks is not None:
        from ..permissions.tool_hooks import pre_tool_use_stage

        staged = await pre_tool_use_stage(hooks, req.id, tool, parsed, context)
        if isinstance(staged, str):
            return _error(req, staged, decision="deny")
        parsed, pre = staged
    granted = await _decide_permission(req, tool, parsed, context, can_use_tool, emit, decide, pre)
    if isinstance(granted, ToolCallOutcome):
        return granted
    parsed, decision = granted
    emit(ToolCallStarted(req.id, tool.name, _observable(tool, parsed)))
    outcome = await _call(req, tool, parsed, context, can_use_tool, emit, parent_message, decision)
    if hooks is not None and decision in ("allow", "user-allow"):
        from ..permissions.tool_hooks import post_tool_use_notes

        notes = await post_tool_use_notes(hooks, outcome, tool, parsed, context)
        outcome.content = [*outcome.content, *(text_block(n) for n in notes)]
        outcome.hook_notes = list(notes)
    return outcome


async def _decide_permission(
    req: ToolUseRequest,
    tool: Tool[Any, Any],
    parsed: BaseModel,
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    emit: EventSink,
    decide: PermissionDecider | None,
    hook: Any = None,
) -> tuple[BaseModel, str] | ToolCallOutcome:
    """The input to run with and how it was allowed, or the error outcome."""
    if decide is None:
        from ..permissions.decide import has_permission_to_use_tool

        decide = has_permission_to_use_tool
    try:
        verdict = await decide(tool, parsed, context)
        if hook is not None:  # a PreToolUse hook's permissionDecision (never lifts a deny)
            from ..permissions.tool_hooks import combine_with_hook

            verdict = combine_with_hook(verdict, hook, tool, context)
    except Exception as exc:  # fail closed: a broken check is a denial the model can read
        return _error(req, f"Permission check failed: {_describe_exception(exc)}", decision="deny")
    label = "allow"
    runner = context.extra.get("hooks")  # a permissions.hooks.HookRunner, if any
    if isinstance(verdict, PermissionAsk) and runner is not None:
        try:
            answered = await _permission_request_hooks(runner, req, tool, parsed, context, verdict, decide)
        except Exception as exc:  # fail closed: a broken re-check is a denial
            answered = PermissionDeny(f"Permission check failed: {_describe_exception(exc)}")
        if answered is not None:
            verdict = answered
    if isinstance(verdict, PermissionAsk):
        emit(PermissionRequested(req.id, tool.name, _observable(tool, parsed), verdict))
        try:
            user = await can_use_tool(tool, parsed, context, verdict, req.id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            user = PermissionDeny(f"Permission request failed: {_describe_exception(exc)}")
        emit(PermissionResolved(req.id, user))
        verdict, label = user, ("user-allow" if isinstance(user, PermissionAllow) else "user-deny")
    match verdict:
        case PermissionDeny():
            return _error(req, verdict.message, decision="deny" if label == "allow" else label)
        case PermissionAllow():
            if verdict.updated_input is not None:
                reparsed = parse_tool_input(tool, verdict.updated_input)
                if isinstance(reparsed, str):
                    return _error(req, reparsed)
                parsed = reparsed
            return parsed, label
        case PermissionAsk():  # can_use_tool must answer allow or deny; anything else is a no
            return _error(req, "Permission was not granted.", decision="deny")
        case _:
            assert_never(verdict)


async def _permission_request_hooks(
    runner: Any, req: ToolUseRequest, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext,
    ask: PermissionAsk, decide: PermissionDecider,
) -> PermissionDecision | None:
    """PermissionRequest hooks' answer in the user's place (None: ask the user).  An allow that
    rewrites the input is decided again: a deny for the new input stays a deny."""
    from ..permissions.tool_hooks import permission_request

    answer = await permission_request(runner, req.id, tool, parsed, context, ask)
    if isinstance(answer, PermissionAllow) and answer.updated_input is not None:
        reparsed = parse_tool_input(tool, answer.updated_input)
        if isinstance(reparsed, str):
            return PermissionDeny(f"A PermissionRequest hook's updatedInput is not valid: {reparsed}")
        again = await decide(tool, reparsed, context)
        if isinstance(again, PermissionDeny):
            return again
    return answer


async def _call(
    req: ToolUseRequest,
    tool: Tool[Any, Any],
    parsed: BaseModel,
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    emit: EventSink,
    parent_message: Any,
    decision: str,
) -> ToolCallOutcome:
    def on_progress(progress: ToolProgress) -> None:
        # Tools do not know their tool_use_id; stamp it so observers can route the progress.
        if progress.tool_use_id != req.id:
            progress = ToolProgress(req.id, progress.data)
        emit(ToolCallProgress(progress))

    task = start_call(req.id, tool.call(parsed, context, can_use_tool, parent_message, on_progress))
    try:
        result = await _await_unless_aborted(task, tool, context)
    except Aborted:
        return _error(req, INTERRUPTED_MESSAGE, decision="interrupted")
    except Exception as exc:
        return _error(req, _describe_exception(exc), decision=decision)
    if not isinstance(result, ToolResult):
        return _error(req, f"Tool {tool.name} returned {type(result).__name__}, not a ToolResult.")
    try:
        content = tool.map_result_to_content(result.data, req.id)
        if content_text_length(content) > tool.max_result_size_chars:
            content = await asyncio.to_thread(
                persist_oversized,
                content,
                limit=tool.max_result_size_chars,
                directory=context.session_dir,
                tool_use_id=req.id,
            )
    except Exception as exc:
        return _error(req, _describe_exception(exc), decision=decision)
    return ToolCallOutcome(
        req.id,
        tool.name,
        content,
        result=result,
        input=parsed,
        decision=decision,
        new_messages=list(result.new_messages or []),
    )


async def _await_unless_aborted(
    task: asyncio.Future[Any], tool: Tool[Any, Any], context: ToolUseContext
) -> Any:
    """Await the call; on abort, cancel it if its interrupt behaviour is 'cancel'."""
    if tool.interrupt_behavior() != "block":
        return await await_unless_aborted(task, context.abort_controller)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        # The whole run is being torn down: do not leave the tool running behind our back.
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise


def _describe_exception(exc: BaseException) -> str:
    if isinstance(exc, ToolError):
        return str(exc)
    text = str(exc)
    return f"Error: {type(exc).__name__}: {text}" if text else f"Error: {type(exc).__name__}"
