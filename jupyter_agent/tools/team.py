"""TeamCreate / TeamDelete (feature flag ``agent_swarms``): one team of named agents a session.

Teammates join through the Agent tool with a ``name`` while a team exists; see
``jupyter_agent.subagents.team`` for how messages flow.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..subagents.team import LEAD, LEAD_DELIVERY_KEY, Team, format_inbox, get_team, set_team


class TeamCreateInput(BaseModel):
    team_name: str = Field(min_length=1, max_length=64, description="Name of the team")
    description: str | None = Field(None, description="What the team is for")


class TeamCreateTool(Tool[TeamCreateInput, str]):
    """Create a team of long-lived agents for a larger piece of work. Then add teammates with
    the Agent tool (give each a `name`), talk to them with SendMessage, and delete the team
    with TeamDelete when the work is done. Teammates' replies arrive as messages to you."""

    name = "TeamCreate"
    input_schema = TeamCreateInput

    async def check_permissions(self, input: TeamCreateInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()  # teammates' tool calls are checked one by one

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if context.agent_id is not None:
            raise ToolError("Only the main agent can create a team.")
        existing = get_team(context.get_app_state())
        if existing is not None:
            raise ToolError(f"Team '{existing.name}' already exists. Delete it with TeamDelete first.")
        delivery = context.extra.get(LEAD_DELIVERY_KEY)
        set_team(context, Team(input.team_name, input.description or "", on_lead_message=delivery))
        return ToolResult(
            f"Team '{input.team_name}' created. Add teammates with the Agent tool and a `name`; "
            f"you are '{LEAD}' in the team."
        )


class TeamDeleteInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TeamDeleteTool(Tool[TeamDeleteInput, str]):
    """Stop every teammate and delete the team."""

    name = "TeamDelete"
    input_schema = TeamDeleteInput

    async def check_permissions(self, input: TeamDeleteInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        team = get_team(context.get_app_state())
        if team is None:
            raise ToolError("There is no team to delete.")
        if context.agent_id is not None:
            raise ToolError("Only the main agent can delete the team.")
        await team.shutdown()
        set_team(context, None)
        names = ", ".join(team.members) or "no teammates"
        return ToolResult(f"Team '{team.name}' deleted ({names} stopped).{format_inbox(team.take_lead_messages())}")
