"""TaskOutput: new output of a background task (shell or agent), optionally waiting for its end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from ..core.result import ContentBlock, ToolResult, text_block
from ..tasks.base import TaskSnapshot
from ..tasks.registry import get_task_registry
from ._read_only import ReadOnlyTool

if TYPE_CHECKING:
    from ..core.context import ToolUseOptions

DEFAULT_WAIT_MS = 30_000
MAX_WAIT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000

RetrievalStatus = Literal["success", "timeout", "not_ready"]

PROMPT = """\
Reads the output of a background task (a Bash command started with `run_in_background`, or a \
background agent). Each call returns only the output produced since your previous TaskOutput \
call for that task, with the task's status and, once it has ended, its exit code.
- `block` (default true) waits until the task ends, at most `timeout` milliseconds (default \
30000, max 600000); if it is still running then, you get what it printed so far.
- `block: false` returns at once: use it to check on a server or watcher without waiting.
Stop a task with TaskStop."""


class TaskOutputInput(BaseModel):
    task_id: str = Field(description="The ID of the background task to read")
    block: bool = Field(True, description="Whether to wait for the task to finish")
    timeout: int = Field(
        DEFAULT_WAIT_MS, ge=0, le=MAX_WAIT_MS, description="Longest wait in milliseconds"
    )


@dataclass(frozen=True)
class TaskOutputResult:
    retrieval_status: RetrievalStatus
    task: TaskSnapshot
    output: str

    def to_text(self) -> str:
        task = self.task
        lines = [
            f"<retrieval_status>{self.retrieval_status}</retrieval_status>",
            f"<task_id>{task.task_id}</task_id>",
            f"<task_type>{task.kind}</task_type>",
            f"<status>{task.status}</status>",
        ]
        if task.exit_code is not None:
            lines.append(f"<exit_code>{task.exit_code}</exit_code>")
        if self.output:
            lines.append(f"<output>\n{self.output}\n</output>")
        else:
            lines.append("<output>(no new output)</output>")
        if task.output_path is not None:
            lines.append(f"<output_file>{task.output_path}</output_file>")
        return "\n".join(lines)


class TaskOutputTool(ReadOnlyTool[TaskOutputInput, TaskOutputResult]):
    name = "TaskOutput"
    input_schema = TaskOutputInput
    max_result_size_chars = 40_000

    async def prompt(self, options: ToolUseOptions) -> str:
        return PROMPT

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"  # stopping the wait never hurts the task

    def render_tool_use_message(self, input: TaskOutputInput) -> str:
        return f"TaskOutput {input.task_id}" + (" (waiting)" if input.block else "")

    def render_tool_result_message(self, output: TaskOutputResult) -> str:
        task = output.task
        code = f", exit code {task.exit_code}" if task.exit_code is not None else ""
        lines = len(output.output.splitlines())
        return f"{task.task_id}: {task.status}{code} · {lines} new line{'s' * (lines != 1)}"

    def map_result_to_content(self, data: TaskOutputResult, tool_use_id: str) -> list[ContentBlock]:
        return [text_block(data.to_text())]

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        task = get_task_registry(context).get(input.task_id)
        status: RetrievalStatus = "success"
        if input.block:
            if not await task.wait(input.timeout / 1000):
                status = "timeout"
        elif not task.done:
            status = "not_ready"
        output = await task.read_new(MAX_OUTPUT_CHARS)
        return ToolResult(TaskOutputResult(status, task.snapshot(), output))
