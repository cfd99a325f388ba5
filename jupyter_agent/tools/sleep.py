"""Sleep (feature flag ``sleep``): wait without holding a shell, waking early on a stop."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import InterruptBehavior
from ._read_only import ReadOnlyTool

MAX_SECONDS = 3600


class SleepInput(BaseModel):
    seconds: float = Field(gt=0, le=MAX_SECONDS, description=f"How long to wait (at most {MAX_SECONDS})")


class SleepTool(ReadOnlyTool[SleepInput, str]):
    """Wait for a number of seconds, e.g. while a background job runs or before polling
    again. Prefer this over `Bash(sleep ...)`: it holds no process and the user can stop it."""

    name = "Sleep"
    input_schema = SleepInput

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def check_permissions(self, input: SleepInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        await asyncio.sleep(input.seconds)
        return ToolResult(f"Slept for {input.seconds:g} seconds.")
