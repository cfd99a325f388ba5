"""TaskGet: one task of the session's task list, in full."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..errors import ToolError
from ..tasklist import Task, task_store_for
from ._read_only import ReadOnlyTool


class TaskGetInput(BaseModel):
    taskId: str = Field(min_length=1, description="The id of the task to read")  # noqa: N815


def format_task(task: Task) -> str:
    lines = [f"Task #{task.id}: {task.subject}", f"Status: {task.status}"]
    if task.owner:
        lines.append(f"Owner: {task.owner}")
    lines.append(f"Description: {task.description}")
    if task.blockedBy:
        lines.append("Blocked by: " + ", ".join(f"#{b}" for b in task.blockedBy))
    if task.blocks:
        lines.append("Blocks: " + ", ".join(f"#{b}" for b in task.blocks))
    if task.metadata:
        lines.append(f"Metadata: {task.metadata}")
    return "\n".join(lines)


class TaskGetTool(ReadOnlyTool[TaskGetInput, Task]):
    """Read one task from the task list by id: subject, description, status, owner and
    dependencies. Read a task before starting work on it."""

    name = "TaskGet"
    input_schema = TaskGetInput

    async def check_permissions(self, input: TaskGetInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        task = await task_store_for(context).get(input.taskId)
        if task is None:
            raise ToolError(f"Task not found: #{input.taskId}. Call TaskList to see the task ids.")
        return ToolResult(task)

    def map_result_to_content(self, data: Task, tool_use_id: str):
        return [{"type": "text", "text": format_task(data)}]
