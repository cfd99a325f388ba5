"""TaskList: every task of the session's task list, one line each."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..tasklist import task_store_for
from ..tasklist.model import TaskListData, open_blockers
from ._read_only import ReadOnlyTool


class TaskListInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def format_task_list(data: TaskListData) -> str:
    if not data.tasks:
        return "No tasks found"
    lines = []
    for task in data.tasks:
        line = f"#{task.id} [{task.status}] {task.subject}"
        if task.owner:
            line += f" (owner: {task.owner})"
        waiting = open_blockers(data, task)
        if waiting:
            line += " [blocked by " + ", ".join(f"#{t.id}" for t in waiting) + "]"
        lines.append(line)
    return "\n".join(lines)


class TaskListTool(ReadOnlyTool[TaskListInput, TaskListData]):
    """List all tasks: id, status, subject, owner and the open tasks blocking each one.

    Use it to find the next unblocked, unowned pending task, and to check overall progress."""

    name = "TaskList"
    input_schema = TaskListInput

    async def check_permissions(self, input: TaskListInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult(await task_store_for(context).list())

    def map_result_to_content(self, data: TaskListData, tool_use_id: str):
        return [{"type": "text", "text": format_task_list(data)}]
