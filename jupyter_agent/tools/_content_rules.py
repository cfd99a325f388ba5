"""The permission decision of a tool guarded by its own content rules (``Skill(name)``,
``WebFetch(domain:host)``), in Claude Code's order: a matching deny rule denies, then an ask
rule asks, then an allow rule allows; with none of them, the tool's own question, suggesting
the rule that would allow it (saved in the local settings)."""

from __future__ import annotations

from collections.abc import Callable

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
)
from ..permissions.rules import content_rule_for

Wording = Callable[[str], str]  # the matching rule's text -> the message


def decide_by_content_rules(
    context: ToolUseContext,
    tool_name: str,
    matches: Callable[[str], bool],
    *,
    denied: Wording,
    needs_approval: Wording,
    question: str,
    suggest: str,
) -> PermissionResult:
    rules = context.permission_context
    if rule := content_rule_for(rules, "deny", tool_name, matches):
        return PermissionDeny(denied(rule))
    if rule := content_rule_for(rules, "ask", tool_name, matches):
        return PermissionAsk(needs_approval(rule))
    if rule := content_rule_for(rules, "allow", tool_name, matches):
        return PermissionAllow(reason=f"rule {rule}")
    return PermissionAsk(question, suggestions=(PermissionUpdate(rules=(suggest,), destination="localSettings"),))
