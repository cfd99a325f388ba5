"""The permission pipeline for one tool call.

Order (first match wins): deny rules → ask rules → the tool's ``check_permissions`` → mode →
allow rules → ask the user.  Whatever is not understood is asked about.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import assert_never

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDeny,
    PermissionPassthrough,
    PermissionUpdate,
)
from ..core.tool import Tool
from .rules import parse_rule, rule_applies_to_whole_tool

PLAN_MODE_MESSAGE = (
    "Plan mode is on: only read-only tools may run. Finish the plan and call ExitPlanMode "
    "to ask the user to approve it before making changes."
)
DONT_ASK_MESSAGE = (
    "Permission to use {tool} was not granted, and the session is in dontAsk mode "
    "(nothing is asked). Use another approach or ask the user to allow it."
)


def _whole_tool_rule(context: ToolUseContext, tool: Tool[Any, Any], behavior: str) -> str | None:
    for _source, text in context.permission_context.rules(behavior):  # type: ignore[arg-type]
        try:
            rule = parse_rule(text)
        except ValueError:
            continue
        if rule_applies_to_whole_tool(rule, tool.name):
            return text
    return None


async def has_permission_to_use_tool(
    tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext
) -> PermissionDecision:
    """Decide allow / deny / ask for one call, before the user is involved."""
    denied = _whole_tool_rule(context, tool, "deny")
    if denied is not None:
        return PermissionDeny(f"Permission to use {tool.name} has been denied by rule {denied}.")
    ask_rule = _whole_tool_rule(context, tool, "ask")
    if ask_rule is not None:
        return PermissionAsk(f"{tool.name} requires approval (rule {ask_rule}).")

    own = await tool.check_permissions(input, context)
    match own:
        case PermissionDeny() | PermissionAsk():
            verdict: PermissionDecision | None = own
        case PermissionAllow():
            verdict = own
        case PermissionPassthrough():
            verdict = None
        case _:
            assert_never(own)
    if isinstance(verdict, PermissionDeny):
        return verdict

    mode = context.permission_context.mode
    read_only = tool.is_read_only(input)
    if mode == "plan" and not read_only:
        return PermissionDeny(PLAN_MODE_MESSAGE)
    if isinstance(verdict, PermissionAsk):
        return _apply_dont_ask(verdict, tool, mode)
    if mode == "bypassPermissions":
        return PermissionAllow(reason="bypassPermissions mode")
    if verdict is not None:
        return verdict
    if _whole_tool_rule(context, tool, "allow") is not None:
        return PermissionAllow(reason="allow rule")
    if read_only:
        return PermissionAllow(reason="read-only")
    suggestions = own.suggestions if isinstance(own, PermissionPassthrough) else ()
    ask = PermissionAsk(
        own.message if isinstance(own, PermissionPassthrough) and own.message
        else f"Allow {tool.name}?",
        suggestions=suggestions or (PermissionUpdate(rules=(tool.name,), destination="session"),),
    )
    return _apply_dont_ask(ask, tool, mode)


def _apply_dont_ask(ask: PermissionAsk, tool: Tool[Any, Any], mode: str) -> PermissionDecision:
    if mode == "dontAsk":
        return PermissionDeny(DONT_ASK_MESSAGE.format(tool=tool.name))
    return ask
