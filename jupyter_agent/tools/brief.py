"""Brief (feature flag ``brief``): switch the agent's replies to a short mode, or back.

The mode is ``AppState.extra["brief_mode"]`` (a bool) for the UI and the session's prompt; the
tool result itself tells the model how to answer from now on, so it works without either.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, Field

from ..core.context import AppState, ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool

STATE_KEY = "brief_mode"
ON_TEXT = (
    "Brief mode is on. From now on keep every reply to the user short: at most three sentences "
    "or a few bullet points, results first, no preamble or recap. Tool use is unchanged."
)
OFF_TEXT = "Brief mode is off. Reply with as much detail as the task needs."


def is_brief(state: AppState) -> bool:
    return bool(state.extra.get(STATE_KEY, False))


class BriefInput(BaseModel):
    enabled: bool = Field(True, description="true: short replies from now on; false: back to normal")


class BriefTool(Tool[BriefInput, bool]):
    """Switch your replies to brief mode (short answers, results first) when the user asks for
    terse output, or switch it off again."""

    name = "Brief"
    input_schema = BriefInput

    def is_read_only(self, input: BriefInput) -> bool:
        return True

    async def check_permissions(self, input: BriefInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        context.set_app_state(lambda s: replace(s, extra={**s.extra, STATE_KEY: input.enabled}))
        return ToolResult(input.enabled)

    def map_result_to_content(self, data: bool, tool_use_id: str):
        return [{"type": "text", "text": ON_TEXT if data else OFF_TEXT}]
