"""CronCreate / CronList / CronDelete: prompts the session submits to itself on a schedule.

The jobs run in the session's ``CronScheduler`` (``jupyter_agent.scheduler``), which the
session installs in its app state with its submit callback; without one these tools say that
scheduling is not available.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..scheduler import CronJob, CronScheduler, get_scheduler, validate_cron
from ._read_only import ReadOnlyTool

NO_SCHEDULER = "Scheduling is not available in this session (no scheduler is running)."


def _scheduler(context: ToolUseContext) -> CronScheduler:
    scheduler = get_scheduler(context.get_app_state())
    if scheduler is None:
        raise ToolError(NO_SCHEDULER)
    return scheduler


@dataclass(frozen=True)
class ScheduledJob:
    job: CronJob
    next_run: str


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M %Z").strip()


def _describe(job: CronJob, scheduler: CronScheduler) -> str:
    kind = "recurring" if job.recurring else "one-shot"
    when = _when(scheduler.next_run(job))
    prompt = job.prompt if len(job.prompt) <= 80 else job.prompt[:77] + "..."
    return f"{job.id}  {job.cron}  ({kind}, next {when})  {prompt}"


class CronCreateInput(BaseModel):
    cron: str = Field(description="5-field cron expression in local time, e.g. '*/10 * * * *'")
    prompt: str = Field(min_length=1, description="The prompt to submit each time the job fires")
    recurring: bool = Field(True, description="false = fire once at the next match, then delete")


class CronCreateTool(Tool[CronCreateInput, ScheduledJob]):
    """Schedule a prompt to be submitted to this session on a cron schedule (local time), while
    the kernel runs. Use it when the user asks to do something later or periodically ("check
    the job every 10 minutes"). One-shot jobs (recurring: false) fire once and are removed."""

    name = "CronCreate"
    input_schema = CronCreateInput

    async def validate_input(self, input: CronCreateInput, context: ToolUseContext) -> ValidationResult:
        problem = validate_cron(input.cron)
        return ValidationError(problem) if problem else VALID

    async def check_permissions(self, input: CronCreateInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()  # the prompts it submits go through permissions when they run

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        scheduler = _scheduler(context)
        try:
            job = scheduler.create(input.cron, input.prompt, input.recurring)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(ScheduledJob(job, _when(scheduler.next_run(job))))

    def map_result_to_content(self, data: ScheduledJob, tool_use_id: str) -> list[Any]:
        job = data.job
        kind = "recurring job" if job.recurring else "one-shot job"
        text = (
            f"Scheduled {kind} {job.id} ({job.cron}), next run {data.next_run}. "
            f"Delete it with CronDelete {{\"id\": \"{job.id}\"}}."
        )
        return [{"type": "text", "text": text}]


class CronListInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CronListTool(ReadOnlyTool[CronListInput, str]):
    """List the scheduled prompt jobs of this session: id, cron, kind, next run and prompt."""

    name = "CronList"
    input_schema = CronListInput

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        scheduler = _scheduler(context)
        jobs = scheduler.list()
        if not jobs:
            return ToolResult("No scheduled jobs.")
        return ToolResult("\n".join(_describe(job, scheduler) for job in jobs))


class CronDeleteInput(BaseModel):
    id: str = Field(min_length=1, description="The job id from CronCreate or CronList")


class CronDeleteTool(Tool[CronDeleteInput, str]):
    """Cancel a scheduled prompt job by id."""

    name = "CronDelete"
    input_schema = CronDeleteInput

    async def check_permissions(self, input: CronDeleteInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if not _scheduler(context).delete(input.id):
            raise ToolError(f"No scheduled job with id {input.id!r}. Call CronList to see the ids.")
        return ToolResult(f"Deleted scheduled job {input.id}.")
