"""The permission pipeline for one tool call.

Order (first match wins): deny rules → ask rules → the tool's ``check_permissions`` → mode →
allow rules → ask the user; plan mode denies every non-read-only call even where an ask rule
matched.  A deny at any level
wins; an ask from an ask rule or a safety check is never waved through by a mode; dontAsk
turns every remaining ask into a deny.  Bash and the file tools match their rule specifiers
inside their ``check_permissions`` (``bash.py``, ``filesystem.py``); the file-path deny
rules are also applied here, so a file tool that forgot them is still covered.
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
from .compiled import compiled_rules
from .content_rules import SELF_MATCHING, content_rule, suggestion_for
from .filesystem import EDIT_RULES, READ_RULES, matching_rule
from .paths import BadPath, resolve_path
from .verdicts import DONT_ASK_MESSAGE, PLAN_MODE_MESSAGE, RULE, is_sticky, sticky_ask

READ_TOOLS = frozenset({"Read", "Glob", "Grep"})
WRITE_TOOLS = frozenset({"Edit", "Write", "NotebookEdit"})


async def has_permission_to_use_tool(
    tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext
) -> PermissionDecision:
    """Decide allow / deny / ask for one call, before the user is involved."""
    verdict = await evaluate_permission(tool, input, context)
    return apply_dont_ask(verdict, tool, context)


def apply_dont_ask(
    verdict: PermissionDecision, tool: Tool[Any, Any], context: ToolUseContext
) -> PermissionDecision:
    if isinstance(verdict, PermissionAsk) and context.permission_context.mode == "dontAsk":
        return PermissionDeny(DONT_ASK_MESSAGE.format(tool=tool.name))
    return verdict


async def evaluate_permission(
    tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext
) -> PermissionDecision:
    """The pipeline without the dontAsk conversion (hooks combine with this)."""
    pc = context.permission_context
    name = tool.name
    rules = compiled_rules(pc).for_tool(name, tool.aliases, name in SELF_MATCHING)
    denied = rules.deny if "deny" not in rules.scan else content_rule(tool, input, pc, "deny")
    if denied is not None:
        return PermissionDeny(f"Permission to use {tool.name} has been denied by the rule {denied}.")
    if tool.name in READ_TOOLS or tool.name in WRITE_TOOLS:
        path_denied = _path_deny(tool, input, context)
        if path_denied is not None:
            return path_denied
    asked = rules.ask if "ask" not in rules.scan else content_rule(tool, input, pc, "ask")
    own = await tool.check_permissions(input, context)
    if context.permission_context is not pc:  # the tool's check changed the context
        pc = context.permission_context
        rules = compiled_rules(pc).for_tool(name, tool.aliases, name in SELF_MATCHING)
    mode = pc.mode
    if isinstance(own, PermissionDeny):
        return own
    read_only = None  # computed only when something depends on it
    if mode == "plan":
        read_only = _read_only(tool, input, context)
        if not read_only:  # a tool may say what would run instead (the Agent tool: Explore, Plan)
            return PermissionDeny(PLAN_MODE_MESSAGE + getattr(tool, "plan_mode_hint", ""))
    if asked is not None:
        return sticky_ask(f"{tool.name} requires approval (rule {asked}).", RULE, asked)
    match own:
        case PermissionAsk():
            if is_sticky(own):
                return own
        case PermissionAllow() | PermissionPassthrough():
            pass
        case _:
            assert_never(own)
    if mode == "bypassPermissions":
        return PermissionAllow(reason="bypassPermissions mode")
    allowed = rules.allow if "allow" not in rules.scan else content_rule(tool, input, pc, "allow")
    if allowed is not None:
        return PermissionAllow(reason=f"rule {allowed}")
    if isinstance(own, (PermissionAllow, PermissionAsk)):
        return own
    if read_only is None:
        read_only = _read_only(tool, input, context)
    if read_only:
        return PermissionAllow(reason="read-only")
    suggestions = own.suggestions or suggestion_for(tool, input)
    return PermissionAsk(own.message or f"Allow {tool.name}?", suggestions=suggestions)


def _path_deny(tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext) -> PermissionDeny | None:
    """Read/Edit deny rules for file tools, even if the tool's own check forgot them."""
    if tool.name not in READ_TOOLS and tool.name not in WRITE_TOOLS:
        return None
    try:
        path = tool.get_path(input)
    except Exception:
        return None
    if not path:
        return None
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    names = READ_RULES if tool.name in READ_TOOLS else EDIT_RULES + READ_RULES
    rule = matching_rule(context, "deny", names, resolved)
    if rule is None:
        return None
    return PermissionDeny(f"Permission to use {tool.name} on {path} has been denied by the rule {rule}.")


def _read_only(tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext) -> bool:
    try:
        return bool(tool.is_read_only_in(input, context))
    except Exception:  # a tool that cannot tell is treated as writing
        return False


__all__ = [
    "DONT_ASK_MESSAGE",
    "PLAN_MODE_MESSAGE",
    "PermissionUpdate",
    "apply_dont_ask",
    "evaluate_permission",
    "has_permission_to_use_tool",
]
