"""TaskCreate: add a task to the session's shared task list."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..permissions.hooks import gate
from ..tasklist import Task, TaskUpdate, task_store_for


class TaskCreateInput(BaseModel):
    subject: str = Field(min_length=1, description="A brief title for the task, in imperative form")
    description: str = Field(description="What needs to be done, with enough detail to do it")
    activeForm: str | None = Field(  # noqa: N815 - Claude Code's wire name
        None, description='Present continuous form shown while in progress ("Running tests")'
    )
    metadata: dict[str, Any] | None = Field(None, description="Arbitrary metadata to attach")


class TaskCreateTool(Tool[TaskCreateInput, Task]):
    """Create a task in the session's task list (shared with subagents, saved with the session).

    Use it to plan multi-step work or to hand work to other agents. New tasks start `pending`
    with no owner; link dependencies afterwards with TaskUpdate (`addBlocks` / `addBlockedBy`)."""

    name = "TaskCreate"
    input_schema = TaskCreateInput

    def is_read_only(self, input: TaskCreateInput) -> bool:
        return True  # session bookkeeping only

    async def check_permissions(self, input: TaskCreateInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        store = task_store_for(context)
        task = await store.create(input.subject, input.description, input.activeForm, input.metadata)
        payload = {"task_id": task.id, "task_subject": task.subject, "task_description": task.description}
        refused = await gate(context, "TaskCreated", payload)
        if refused is not None:  # a TaskCreated hook said no: the task is taken back
            await store.update(task.id, TaskUpdate(status="deleted"))
            raise ToolError(f"A TaskCreated hook refused this task: {refused}")
        return ToolResult(task)

    def map_result_to_content(self, data: Task, tool_use_id: str):
        return [{"type": "text", "text": f"Task #{data.id} created successfully: {data.subject}"}]
