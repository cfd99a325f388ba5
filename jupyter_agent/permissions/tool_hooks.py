"""PreToolUse / PostToolUse / PostToolUseFailure around one tool call (used by run_tool_use).

A PreToolUse hook may block (exit 2 or ``decision: "block"``), deny, ask, allow or rewrite
the input.  Its "allow" skips only a plain prompt: a deny (rule, tool or mode) stays a deny,
and an ask from an ask rule or a protected path still asks.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDecision, PermissionDeny
from ..core.tool import Tool
from .hook_response import HookOutcome
from .hooks import HookRunner
from .verdicts import DONT_ASK_MESSAGE, is_sticky


async def pre_tool_use(
    runner: HookRunner, tool_use_id: str, tool: Tool[Any, Any], parsed: BaseModel, context: ToolUseContext
) -> HookOutcome:
    if not runner.has_hooks("PreToolUse"):
        return HookOutcome()
    payload = {"tool_name": tool.name, "tool_input": _observable(parsed), "tool_use_id": tool_use_id}
    return await runner.run(
        "PreToolUse", payload, tool=tool, tool_input=parsed, permission_mode=context.permission_context.mode
    )


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
