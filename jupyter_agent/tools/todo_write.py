"""TodoWrite: the agent's live checklist (Claude Code's v1 todo list).

The list lives in the session's app state: ``AppState.todos`` (a list of ``TodoItem``) for the
main agent, ``AppState.extra["agent_todos"][agent_id]`` for a subagent.  The session turns
every change of ``AppState.todos`` into a ``TodosUpdated`` event for the UI.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, Field

from ..core.context import AppState, ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, Tool, ValidationError, ValidationResult

TodoStatus = Literal["pending", "in_progress", "completed"]
AGENT_TODOS_KEY = "agent_todos"

RESULT_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to "
    "track your progress. Please proceed with the current tasks if applicable"
)


class TodoItem(BaseModel):
    content: str = Field(min_length=1, description="What needs to be done (imperative form)")
    status: TodoStatus = Field(description="pending, in_progress or completed")
    activeForm: str = Field(  # noqa: N815 - Claude Code's wire name
        min_length=1, description="Present continuous form shown while in progress"
    )


class TodoWriteInput(BaseModel):
    todos: list[TodoItem] = Field(description="The updated todo list")


@dataclass(frozen=True)
class TodoWriteOutput:
    old_todos: list[TodoItem]
    new_todos: list[TodoItem]


def get_todos(state: AppState, agent_id: str | None) -> list[TodoItem]:
    """The todo list of one agent (``None`` = the main agent)."""
    if agent_id is None:
        return list(state.todos)
    return list(state.extra.get(AGENT_TODOS_KEY, {}).get(agent_id, []))


def _with_todos(state: AppState, agent_id: str | None, todos: list[TodoItem]) -> AppState:
    if agent_id is None:
        return replace(state, todos=todos)
    by_agent = dict(state.extra.get(AGENT_TODOS_KEY, {}))
    by_agent[agent_id] = todos
    return replace(state, extra={**state.extra, AGENT_TODOS_KEY: by_agent})


class TodoWriteTool(Tool[TodoWriteInput, TodoWriteOutput]):
    """Create and manage a structured task list for the current session.

    Use it for work with three or more distinct steps, or when the user gives several tasks.
    Send the whole list every time. Each item has `content` (imperative, "Run tests"),
    `activeForm` (present continuous, "Running tests") and `status`. Keep exactly one item
    `in_progress` while working, mark items `completed` as soon as they are done (never
    batch completions), and never mark an item completed while tests fail or work is partial.
    Skip the list for a single trivial step."""

    name = "TodoWrite"
    input_schema = TodoWriteInput

    def is_read_only(self, input: TodoWriteInput) -> bool:
        return True  # changes only the session's checklist, never the user's files

    async def check_permissions(self, input: TodoWriteInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def validate_input(self, input: TodoWriteInput, context: ToolUseContext) -> ValidationResult:
        active = [t.content for t in input.todos if t.status == "in_progress"]
        if len(active) > 1:
            return ValidationError(
                f"Only one todo may be in_progress at a time, got {len(active)}: "
                f"{', '.join(active)}. Keep one in_progress and set the others to pending or completed."
            )
        return VALID

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        old = get_todos(context.get_app_state(), context.agent_id)
        new = list(input.todos)
        # A finished list is cleared, so the next piece of work starts from an empty checklist.
        stored = [] if new and all(t.status == "completed" for t in new) else new
        context.set_app_state(lambda s: _with_todos(s, context.agent_id, stored))
        return ToolResult(TodoWriteOutput(old_todos=old, new_todos=new))

    def map_result_to_content(self, data: TodoWriteOutput, tool_use_id: str) -> list[ContentBlock]:
        return [text_block(RESULT_TEXT)]

    def render_tool_result_message(self, output: TodoWriteOutput) -> str:
        done = sum(t.status == "completed" for t in output.new_todos)
        return f"{done}/{len(output.new_todos)} todos completed"
