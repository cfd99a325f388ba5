"""ListPeers (feature flag ``list_peers``): the team's members, their state and queues."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..subagents.team import LEAD, format_inbox, get_team, sender_name


class ListPeersInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListPeersTool(Tool[ListPeersInput, str]):
    """List the agents of your team: name, type, whether busy, and queued messages."""

    name = "ListPeers"
    input_schema = ListPeersInput

    def is_read_only(self, input: ListPeersInput) -> bool:
        return True

    async def check_permissions(self, input: ListPeersInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        team = get_team(context.get_app_state())
        if team is None:
            raise ToolError("There is no team: create one with TeamCreate.")
        me = sender_name(context)
        lines = [f"Team '{team.name}'" + (f": {team.description}" if team.description else ""),
                 f"- {LEAD} (main agent)" + (" ← you" if me == LEAD else "")]
        for name, mate in team.members.items():
            line = f"- {name} ({mate.agent.name}): {mate.status}, {mate.queue.qsize()} queued, {mate.handled} handled"
            lines.append(line + (" ← you" if me == name else ""))
        inbox = format_inbox(team.take_lead_messages()) if me == LEAD else ""
        return ToolResult("\n".join(lines) + inbox)
