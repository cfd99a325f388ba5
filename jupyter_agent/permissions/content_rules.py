"""Rule specifiers for tools that do not match them themselves.

``WebFetch(domain:host)``, ``Agent(name)``, ``Skill(name)``; any other tool gets the chance
through ``tool.prepare_permission_matcher(input)``.  Bash and the file tools match their own
specifiers (``bash.py``, ``filesystem.py``) and are skipped here.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

from ..core.permission_types import PermissionUpdate, RuleBehavior, ToolPermissionContext
from ..core.tool import Tool
from .rules import domain_rule_matches, parse_rule_or_none, skill_rule_matches

SELF_MATCHING = frozenset({"Bash", "Read", "Edit", "Write", "NotebookEdit", "Glob", "Grep"})
_NAME_FIELDS = {"Agent": "subagent_type", "Task": "subagent_type", "Skill": "skill"}


def content_rule(
    tool: Tool[Any, Any], input: BaseModel, pc: ToolPermissionContext, behavior: RuleBehavior
) -> str | None:
    """The first ``Tool(specifier)`` rule of ``behavior`` that matches this call."""
    names = {tool.name, *tool.aliases}
    matcher = None
    for _source, text in pc.rules(behavior):
        rule = parse_rule_or_none(text)
        if rule is None or rule.content is None or rule.tool_name not in names:
            continue
        if _matches(tool, input, rule.content):
            return text
        if matcher is None:
            matcher = _safe_matcher(tool, input)
        if matcher(text):
            return text
    return None


def _matches(tool: Tool[Any, Any], input: BaseModel, content: str) -> bool:
    if tool.name == "WebFetch":
        url = getattr(input, "url", None)
        return isinstance(url, str) and domain_rule_matches(content, url)
    field = _NAME_FIELDS.get(tool.name)
    if field is not None:
        value = getattr(input, field, None) or ("general-purpose" if field == "subagent_type" else None)
        if tool.name == "Skill":
            return isinstance(value, str) and skill_rule_matches(content, value)
        return value == content
    return False


def _safe_matcher(tool: Tool[Any, Any], input: BaseModel) -> Any:
    try:
        matcher = tool.prepare_permission_matcher(input)
    except Exception:
        return lambda _pattern: False

    def guarded(pattern: str) -> bool:
        try:
            return bool(matcher(pattern))
        except Exception:
            return False

    return guarded


def suggestion_for(tool: Tool[Any, Any], input: BaseModel) -> tuple[PermissionUpdate, ...]:
    """What "Always allow" saves: a domain for WebFetch, the tool for the session otherwise."""
    if tool.name == "WebFetch":
        url = getattr(input, "url", "")
        try:
            host = urlsplit(url).hostname if isinstance(url, str) else None
        except ValueError:
            host = None
        if host:
            return (PermissionUpdate(rules=(f"WebFetch(domain:{host})",), destination="localSettings"),)
    return (PermissionUpdate(rules=(tool.name,), destination="session"),)
