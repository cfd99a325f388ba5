"""Approval handlers around the UI's ``can_use_tool``: nobody attached, and unanswered asks."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionDeny, UserDecision
from ..core.tool import CanUseTool, Tool

NO_APPROVER_MESSAGE = (
    "{tool} needs the user's approval, but no one is there to approve it (no approval handler is "
    "attached to this session), so the call was not run. Continue without it, or tell the user "
    "which permission rule would allow it."
)
TIMEOUT_MESSAGE = (
    "The user did not answer the approval request for {tool} within {seconds:g} seconds, so the "
    "call was not run. Continue without it or ask the user."
)


async def deny_without_approver(
    tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
) -> UserDecision:
    """Used when no handler is set: an ask must never hang."""
    return PermissionDeny(NO_APPROVER_MESSAGE.format(tool=tool.name), reason="no approver")


def with_timeout(handler: CanUseTool, seconds: float) -> CanUseTool:
    """``handler``, but an ask unanswered after ``seconds`` is denied."""

    async def timed(
        tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
    ) -> UserDecision:
        try:
            return await asyncio.wait_for(handler(tool, input, context, ask, tool_use_id), seconds)
        except asyncio.TimeoutError:
            return PermissionDeny(TIMEOUT_MESSAGE.format(tool=tool.name, seconds=seconds), reason="timeout")

    return timed
