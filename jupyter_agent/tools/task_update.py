"""TaskUpdate: change a task's status, text, owner, metadata or dependencies (or delete it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import Tool
from ..errors import ToolError
from ..permissions.hooks import gate
from ..tasklist import Task, TaskUpdate, task_store_for
from ..tasklist.model import TaskListError, UpdateStatus


class TaskUpdateInput(BaseModel):
    taskId: str = Field(min_length=1, description="The id of the task to update")  # noqa: N815
    status: UpdateStatus | None = Field(
        None, description="pending, in_progress, completed, or deleted to remove the task"
    )
    subject: str | None = Field(None, min_length=1, description="New subject")
    description: str | None = Field(None, description="New description")
    activeForm: str | None = Field(None, description="New present continuous form")  # noqa: N815
    owner: str | None = Field(None, description="New owner (an agent name)")
    addBlocks: list[str] | None = Field(  # noqa: N815
        None, description="Ids of tasks that cannot start until this one is completed"
    )
    addBlockedBy: list[str] | None = Field(  # noqa: N815
        None, description="Ids of tasks that must be completed before this one can start"
    )
    metadata: dict[str, Any] | None = Field(
        None, description="Keys to merge into the metadata; a null value deletes the key"
    )


@dataclass(frozen=True)
class TaskUpdateOutput:
    task_id: str
    task: Task | None
    changed: list[str]


class TaskUpdateTool(Tool[TaskUpdateInput, TaskUpdateOutput]):
    """Update a task in the task list.

    Set `status` to in_progress when you start a task and to completed only when it is fully
    done; `deleted` removes it. A task blocked by unfinished tasks cannot be started. Link
    dependencies with `addBlocks` / `addBlockedBy` (cycles are refused)."""

    name = "TaskUpdate"
    input_schema = TaskUpdateInput

    def is_read_only(self, input: TaskUpdateInput) -> bool:
        return True  # session bookkeeping only

    async def check_permissions(self, input: TaskUpdateInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        upd = TaskUpdate(
            status=input.status,
            subject=input.subject,
            description=input.description,
            active_form=input.activeForm,
            owner=input.owner,
            add_blocks=tuple(input.addBlocks or ()),
            add_blocked_by=tuple(input.addBlockedBy or ()),
            metadata=input.metadata,
        )
        store = task_store_for(context)
        if input.status == "completed":
            await self._may_complete(context, store, input.taskId)
        try:
            task, changed = await store.update(input.taskId, upd)
        except TaskListError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(TaskUpdateOutput(input.taskId.lstrip("#"), task, changed))

    @staticmethod
    async def _may_complete(context: ToolUseContext, store: Any, task_id: str) -> None:
        """TaskCompleted hooks may keep a task open (exit 2: the reason goes to the model)."""
        try:
            task = await store.get(task_id)
        except TaskListError as exc:
            raise ToolError(str(exc)) from None
        if task is None or task.status == "completed":
            return
        payload = {"task_id": task.id, "task_subject": task.subject, "task_description": task.description}
        refused = await gate(context, "TaskCompleted", payload)
        if refused is not None:
            raise ToolError(f"A TaskCompleted hook kept task #{task.id} open: {refused}")

    def map_result_to_content(self, data: TaskUpdateOutput, tool_use_id: str):
        if "deleted" in data.changed:
            text = f"Task #{data.task_id} deleted"
        elif not data.changed:
            text = f"Task #{data.task_id} unchanged (the values given are the current ones)"
        else:
            text = f"Updated task #{data.task_id} " + ", ".join(data.changed)
        return [{"type": "text", "text": text}]
