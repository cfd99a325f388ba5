"""The hooks around one tool call (used by run_tool_use): PreToolUse, PermissionRequest,
Notification, PostToolUse / PostToolUseFailure.

A PreToolUse hook may block (exit 2 or ``decision: "block"``), deny, ask, allow or rewrite
the input.  Its "allow" skips only a plain prompt: a deny (rule, tool or mode) stays a deny,
and an ask from an ask rule or a protected path still asks.  A PermissionRequest hook answers
an ask in the user's place (``hookSpecificOutput.decision.behavior``): its deny (or a block)
refuses, its allow approves — again only a plain prompt, never a sticky ask — and anything
else leaves the question to the user, who is then sent a Notification (``permission_prompt``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny
from ..core.tool import Tool
from .hook_response import HookOutcome
from .hooks import HookRunner
from .verdicts import DONT_ASK_MESSAGE, is_sticky


async def pre_tool_use_stage(
    runner: HookRunner, tool_use_id: str, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext
) -> tuple[BaseModel, HookOutcome] | str:
    """Run PreToolUse: the (maybe rewritten, re-validated) input and the outcome, or an error text.

    ``updatedInput`` is merged over the original input, then checked by the schema and
    ``validate_input`` again; the permission pipeline then judges the new input.
    """
    from ..core.orchestration import parse_tool_input
    from ..core.tool import ValidationError

    try:
        pre = await pre_tool_use(runner, tool_use_id, tool, parsed, context)
    except Exception as exc:  # fail closed
        return f"PreToolUse hook failed: {type(exc).__name__}: {exc}"
    if pre.blocked or pre.stop:
        why = pre.block_message if pre.blocked else (pre.stop_reason or "A hook stopped the session.")
        return f"PreToolUse hook blocked this call: {why}"
    if pre.updated_input is None:
        return parsed, pre
    reparsed = parse_tool_input(tool, {**parsed.model_dump(by_alias=True, exclude_none=True), **pre.updated_input})
    if isinstance(reparsed, str):
        return reparsed
    try:
        validation = await tool.validate_input(reparsed, context)
    except Exception as exc:
        return f"Error: {type(exc).__name__}: {exc}"
    if isinstance(validation, ValidationError):
        return validation.message
    return reparsed, pre


async def pre_tool_use(
    runner: HookRunner, tool_use_id: str, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext
) -> HookOutcome:
    if not runner.has_hooks("PreToolUse"):
        return HookOutcome()
    payload = {"tool_name": tool.name, "tool_input": _observable(parsed), "tool_use_id": tool_use_id}
    return await runner.run(
        "PreToolUse", payload, tool=tool, tool_input=parsed, permission_mode=context.permission_context.mode
    )


async def permission_request(
    runner: HookRunner, tool_use_id: str, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext,
    ask: PermissionAsk,
) -> PermissionAllow | PermissionDeny | None:
    """PermissionRequest hooks' answer to ``ask`` (None: the user is asked).  An allow's
    ``updatedInput`` is merged over the input (the caller checks the result against the deny
    rules again)."""
    if not runner.has_hooks("PermissionRequest"):
        return None
    payload = {"tool_name": tool.name, "tool_input": _observable(parsed), "tool_use_id": tool_use_id,
               "permission_suggestions": [{"type": "addRules", "rules": list(u.rules), "behavior": u.behavior,
                                           "destination": u.destination} for u in ask.suggestions]}
    try:
        outcome = await runner.run("PermissionRequest", payload, tool=tool, tool_input=parsed,
                                   permission_mode=context.permission_context.mode)
    except Exception:  # a broken hook leaves the question to the user
        return None
    if outcome.blocked or outcome.permission_decision == "deny":
        why = outcome.permission_reason or (outcome.block_message if outcome.blocked else None)
        return PermissionDeny(why or f"A PermissionRequest hook denied this {tool.name} call.")
    if outcome.permission_decision == "allow" and not is_sticky(ask):
        updated = {**_observable(parsed), **outcome.updated_input} if outcome.updated_input else None
        return PermissionAllow(updated_input=updated, reason="PermissionRequest hook")
    return None


_NOTIFYING: set[asyncio.Task[Any]] = set()


def notify_permission_prompt(
    runner: HookRunner, tool: Tool[Any, Any], context: ToolUseContext, elicitation: bool = False,
) -> None:
    """Notification hooks (``notification_type: permission_prompt``, or ``elicitation_dialog``
    for an MCP server's form), in the background: the question is shown at once, whatever the
    hooks do."""
    if not runner.has_hooks("Notification"):
        return
    payload = ({"message": f"An MCP server needs your input ({tool.name})", "notification_type": "elicitation_dialog"}
               if elicitation else
               {"message": f"Claude needs your permission to use {tool.name}", "notification_type": "permission_prompt"})

    async def notify() -> None:
        with contextlib.suppress(Exception):  # a notification is best effort
            await runner.run("Notification", payload, permission_mode=context.permission_context.mode)

    task = asyncio.get_running_loop().create_task(notify())
    _NOTIFYING.add(task)
    task.add_done_callback(_NOTIFYING.discard)


def combine_with_hook(
    verdict: PermissionDecision, hook: HookOutcome | None, tool: Tool[Any, Any], context: ToolUseContext
) -> PermissionDecision:
    """The pipeline's verdict adjusted by a PreToolUse hook's permissionDecision."""
    if hook is None or hook.permission_decision is None:
        return verdict
    reason = hook.permission_reason
    if hook.permission_decision == "deny":
        return PermissionDeny(reason or f"A PreToolUse hook denied this {tool.name} call.")
    if isinstance(verdict, PermissionDeny):
        return verdict  # a hook never turns a deny into an allow
    if hook.permission_decision == "allow":
        if isinstance(verdict, PermissionAsk) and is_sticky(verdict):
            return verdict
        return verdict if isinstance(verdict, PermissionAllow) else PermissionAllow(reason="PreToolUse hook")
    if isinstance(verdict, PermissionAllow):  # hook says ask
        if context.permission_context.mode == "dontAsk":
            return PermissionDeny(DONT_ASK_MESSAGE.format(tool=tool.name))
        return PermissionAsk(reason or f"A PreToolUse hook asks to confirm this {tool.name} call.")
    return verdict


async def post_tool_use(
    runner: HookRunner,
    tool_use_id: str,
    tool: Tool[Any, Any],
    parsed: BaseModel,
    context: ToolUseContext,
    *,
    response: Any = None,
    error: str | None = None,
) -> list[str]:
    """Run PostToolUse (or PostToolUseFailure when ``error``); return text for the model."""
    event = "PostToolUseFailure" if error is not None else "PostToolUse"
    if not runner.has_hooks(event):
        return []
    payload: dict[str, Any] = {"tool_name": tool.name, "tool_input": _observable(parsed), "tool_use_id": tool_use_id}
    if error is not None:
        payload["error"] = error
    else:
        payload["tool_response"] = _jsonable(response)
    outcome = await runner.run(
        event, payload, tool=tool, tool_input=parsed, permission_mode=context.permission_context.mode
    )
    notes = [f"{event} hook feedback: {r}" for r in outcome.block_reasons]
    notes.extend(outcome.additional_context)
    return notes


async def post_tool_use_notes(
    runner: HookRunner, outcome: Any, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext
) -> list[str]:
    """PostToolUse / PostToolUseFailure for a call that ran; never raises."""
    if outcome.decision == "interrupted":
        return []
    data = outcome.result.data if outcome.result is not None else None
    error = outcome.text if outcome.is_error else None
    try:
        return await post_tool_use(runner, outcome.tool_use_id, tool, parsed, context, response=data, error=error)
    except Exception as exc:
        return [f"A post-tool hook failed: {type(exc).__name__}: {exc}"]


def _observable(parsed: BaseModel) -> dict[str, Any]:
    return parsed.model_dump(by_alias=True, exclude_none=True, mode="json")


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value
