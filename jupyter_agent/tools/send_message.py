"""SendMessage: put a message in a teammate's queue (or the lead's inbox)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..subagents.team import LEAD, TeamMessage, format_inbox, get_team, sender_name


class SendMessageInput(BaseModel):
    to: str = Field(min_length=1, description=f"A teammate's name, '{LEAD}' for the main agent, or '*' for everyone")
    message: str = Field(min_length=1, description="The message")


class SendMessageTool(Tool[SendMessageInput, str]):
    """Send a message to a teammate (or to everyone with '*'). It is queued and handled when the
    teammate is free; its reply comes back to you as a message."""

    name = "SendMessage"
    input_schema = SendMessageInput

    async def check_permissions(self, input: SendMessageInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        team = get_team(context.get_app_state())
        if team is None:
            raise ToolError("There is no team: create one with TeamCreate and add teammates with the Agent tool.")
        sender = sender_name(context)
        names = [n for n in team.members if n != sender] + ([LEAD] if sender != LEAD else [])
        targets = names if input.to == "*" else [input.to]
        unknown = [t for t in targets if t not in names]
        if unknown or not targets:
            raise ToolError(f"No teammate named '{input.to}'. Team members: {', '.join(names) or '(none)'}.")
        for target in targets:
            team.deliver(TeamMessage(sender, target, input.message))
        inbox = format_inbox(team.take_lead_messages()) if sender == LEAD else ""
        return ToolResult(f"Message sent to {', '.join(targets)}.{inbox}")
