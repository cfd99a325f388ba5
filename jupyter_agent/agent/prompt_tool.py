"""A permission prompt answered by an MCP tool instead of a person (Claude Code's
``--permission-prompt-tool``), for notebooks run with nobody at the screen.

The tool is called with ``{"tool_name": ..., "input": {...}, "tool_use_id": ...}`` and answers
with text holding one JSON object: ``{"behavior": "allow", "updatedInput": {...}}`` (the input
to run; leave it out to run the input as asked) or ``{"behavior": "deny", "message": "..."}``.
Everything else fails closed: a tool that is not there (its server did not start), an error, a
timeout or an answer that is not one of those two becomes a denial that says why, and an
``updatedInput`` is parsed and checked against the deny rules again, so a deny rule still wins.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny, UserDecision
from ..core.tool import Tool

PROMPT_TOOL_ENV = "JUPYTER_AGENT_PERMISSION_PROMPT_TOOL"
ANSWER_TIMEOUT = 600.0  # seconds an approval service may take (a person may be behind it)


def _deny(name: str, tool: Tool[Any, Any], why: str) -> PermissionDeny:
    return PermissionDeny(f"The permission prompt tool {name} {why}, so this {tool.name} call was not run.",
                          reason="permission prompt tool")


async def ask_prompt_tool(
    name: str, tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk,
    tool_use_id: str,
) -> UserDecision:
    """Ask the MCP tool ``name`` (``mcp__server__tool``) in the user's place."""
    target = next((t for t in context.options.tools if t.name == name), None)
    connection = getattr(target, "connection", None)
    if target is None or connection is None:
        return _deny(name, tool, "is not available (is its MCP server configured and running?)")
    arguments = {"tool_name": tool.name, "input": input.model_dump(mode="json"), "tool_use_id": tool_use_id}
    try:
        result = await connection.call_tool(getattr(target, "tool_name", name), arguments, timeout=ANSWER_TIMEOUT)
    except Exception as exc:  # fail closed
        return _deny(name, tool, f"failed ({exc})")
    text = "".join(getattr(block, "text", "") for block in result.content).strip()
    if not text and isinstance(result.structured_content, dict):  # a tool that answers in structured form
        text = json.dumps(result.structured_content)
    if result.is_error:
        return _deny(name, tool, f"answered with an error: {text or '(no message)'}")
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    behavior = answer.get("behavior") if isinstance(answer, dict) else None
    if behavior == "deny":
        message = answer.get("message") if isinstance(answer.get("message"), str) else ""
        return PermissionDeny(message or f"The permission prompt tool {name} denied this {tool.name} call.",
                              reason="permission prompt tool")
    if behavior != "allow":
        return _deny(name, tool, f"did not answer allow or deny (it said {text[:200]!r})")
    updated = answer.get("updatedInput")
    if updated is None:
        return PermissionAllow(reason="permission prompt tool")
    if not isinstance(updated, dict):
        return _deny(name, tool, "gave an updatedInput that is not an object")
    return await _checked_again(name, tool, updated, context)


async def _checked_again(name: str, tool: Tool[Any, Any], updated: dict[str, Any], context: ToolUseContext) -> UserDecision:
    """An input the tool rewrote is what runs: it must parse, and a deny rule for it still wins."""
    from ..core.orchestration import parse_tool_input
    from ..permissions.decide import has_permission_to_use_tool

    reparsed = parse_tool_input(tool, updated)
    if isinstance(reparsed, str):
        return _deny(name, tool, f"gave an updatedInput that is not valid: {reparsed}")
    again = await has_permission_to_use_tool(tool, reparsed, context)
    if isinstance(again, PermissionDeny):
        return again
    return PermissionAllow(updated_input=updated, reason="permission prompt tool")
