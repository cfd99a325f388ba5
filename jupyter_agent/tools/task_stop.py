"""TaskStop: stop a running background task (a shell's whole process group, or an agent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from ..core.permission_types import PermissionAllow
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..tasks.registry import get_task_registry

if TYPE_CHECKING:
    from ..core.context import ToolUseContext, ToolUseOptions
    from ..core.permission_types import PermissionResult

PROMPT = """\
Stops a running background task by its ID (from Bash with `run_in_background`, or a background \
agent). A shell task's command and every process it started are terminated. Read any last \
output with TaskOutput afterwards if you need it."""


class TaskStopInput(BaseModel):
    task_id: str = Field(description="The ID of the background task to stop")


class TaskStopTool(Tool[TaskStopInput, str]):
    name = "TaskStop"
    input_schema = TaskStopInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return PROMPT

    async def check_permissions(
        self, input: TaskStopInput, context: ToolUseContext
    ) -> PermissionResult:
        # Only tasks this session started can be found, and stopping them undoes nothing.
        return PermissionAllow(reason="stops the session's own background task")

    def render_tool_use_message(self, input: TaskStopInput) -> str:
        return f"TaskStop {input.task_id}"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        task = get_task_registry(context).get(input.task_id)
        if task.done:
            raise ToolError(
                f"Task {task.id} is not running (status: {task.status}"
                + (f", exit code {task.exit_code}" if task.exit_code is not None else "")
                + "). Use TaskOutput to read its output."
            )
        await task.stop()
        return ToolResult(f"Stopped task {task.id} ({task.description}). Status: {task.status}.")
