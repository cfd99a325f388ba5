"""Monitor (flag ``monitor_tool``): the kernel process, background tasks, MCP servers; and
watching a background task's output for a pattern (async polling of its output file)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any, Literal

import psutil
from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, InterruptBehavior, ToolProgress, ValidationError, ValidationResult
from ..errors import ToolError
from ..tasks.registry import get_task_registry
from ._read_only import ReadOnlyTool

MAX_WATCH_SECONDS = 600
POLL_SECONDS = 0.2
_MB = 1024 * 1024


class MonitorInput(BaseModel):
    action: Literal["status", "watch"] = Field(
        "status",
        description="status: kernel process, background tasks and MCP servers; "
        "watch: wait until a background task's output matches `pattern`",
    )
    task_id: str | None = Field(None, description="The background task to watch (action=watch)")
    pattern: str | None = Field(None, description="A Python regular expression to wait for (action=watch)")
    timeout: float = Field(60, gt=0, le=MAX_WATCH_SECONDS, description="Seconds to wait at most (action=watch)")


def _process_line(proc: psutil.Process, label: str) -> str:
    with proc.oneshot():
        mem = proc.memory_info().rss / _MB
        cpu = proc.cpu_times()
        return (
            f"{label} pid {proc.pid} ({proc.name()}): {mem:.1f} MB RSS, "
            f"CPU {cpu.user + cpu.system:.1f}s, {proc.num_threads()} threads, status {proc.status()}"
        )


def _kernel_section() -> list[str]:
    me = psutil.Process()
    lines = ["Kernel process:", "  " + _process_line(me, "kernel")]
    vm = psutil.virtual_memory()
    lines.append(f"  system memory: {vm.available / _MB:,.0f} MB available of {vm.total / _MB:,.0f} MB; "
                 f"load average {', '.join(f'{x:.2f}' for x in psutil.getloadavg())}")
    children = me.children(recursive=True)
    lines.append(f"  child processes: {len(children)}")
    return lines


def _task_processes(task: Any) -> list[str]:
    pid = getattr(getattr(task, "process", None), "pgid", None)
    if pid is None or task.done:
        return []
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
        return ["      " + _process_line(p, "process") for p in procs]
    except psutil.Error:
        return []


def _tasks_section(tasks: list[Any]) -> list[str]:
    lines = [f"Background tasks: {len(tasks)}"]
    now = time.time()
    for task in tasks:
        s = task.snapshot()
        took = (s.ended_at or now) - s.started_at
        code = "" if s.exit_code is None else f", exit code {s.exit_code}"
        lines.append(f"  {s.task_id} [{s.kind}] {s.status}{code}, {took:.1f}s — {s.description}")
        lines += _task_processes(task)
    return lines


def _mcp_section(context: ToolUseContext) -> list[str]:
    clients = list(context.options.mcp_clients)
    lines = [f"MCP servers: {len(clients)}"]
    for c in clients:
        tools = len(getattr(c, "tools", None) or [])
        error = getattr(c, "error", None)
        tail = f" — {error}" if error else ""
        lines.append(f"  {getattr(c, 'name', repr(c))}: {getattr(c, 'status', '?')} ({tools} tools){tail}")
    return lines


def status_report(context: ToolUseContext, tasks: list[Any]) -> str:
    return "\n".join([*_kernel_section(), *_tasks_section(tasks), *_mcp_section(context)])


def _read_from(path: Path, offset: int) -> tuple[str, int]:
    try:
        with path.open("rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return "", offset
    return data.decode("utf-8", errors="replace"), offset + len(data)


async def watch_task(
    context: ToolUseContext, task_id: str, pattern: re.Pattern[str], timeout: float,
    on_progress: Any = None,
) -> str:
    """Wait until the task's output has a line matching ``pattern``, it ends, or time runs out."""
    task = get_task_registry(context).get(task_id)
    path = task.output_path
    if path is None:
        raise ToolError(f"Task {task_id} ({task.kind}) has no output file to watch.")
    deadline = time.monotonic() + timeout
    offset, carry, seen = 0, "", 0
    while True:
        ended = task.done  # read after checking, so the last output is never missed
        chunk, offset = await asyncio.to_thread(_read_from, path, offset)
        lines = (carry + chunk).split("\n")
        carry = lines.pop()
        if ended and carry:
            lines.append(carry)
        for line in lines:
            seen += 1
            if pattern.search(line):
                return f"Matched after {seen} line(s) of {task_id}'s output:\n{line}"
        if ended:
            return f"Task {task_id} ended ({task.status}) without a line matching {pattern.pattern!r} ({seen} lines)."
        left = deadline - time.monotonic()
        if left <= 0:
            return f"Timed out after {timeout:g}s: no line of {task_id}'s output matched {pattern.pattern!r} ({seen} lines so far)."
        if on_progress is not None:
            on_progress(ToolProgress("", f"watching {task_id}: {seen} lines, no match yet"))
        await task.wait(min(POLL_SECONDS, left))


class MonitorTool(ReadOnlyTool[MonitorInput, str]):
    """Runtime monitoring and diagnostics for this session.

- action "status": the kernel process (memory, CPU time, threads), system memory and load,
  every background task with its status, age and live processes, and the MCP servers.
- action "watch": wait (without blocking anything) until a background task's output has a line
  matching `pattern` (a Python regex; output already produced counts), the task ends, or
  `timeout` seconds pass. Use it instead
  of polling TaskOutput in a loop or `sleep` in Bash, e.g. to wait for "Listening on" from a
  server started with run_in_background, or for "Epoch 3" in a training log."""

    name = "Monitor"
    input_schema = MonitorInput
    search_hint = "monitor memory cpu background task wait pattern mcp status"

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def validate_input(self, input: MonitorInput, context: ToolUseContext) -> ValidationResult:
        if input.action != "watch":
            return VALID
        if not input.task_id or not input.pattern:
            return ValidationError("action=watch needs task_id and pattern.")
        try:
            re.compile(input.pattern)
        except re.error as exc:
            return ValidationError(f"Invalid regular expression {input.pattern!r}: {exc}")
        return VALID

    async def check_permissions(self, input: MonitorInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if input.action == "status":
            tasks = get_task_registry(context).list()
            return ToolResult(await asyncio.to_thread(status_report, context, tasks))
        text = await watch_task(
            context, input.task_id, re.compile(input.pattern), input.timeout, on_progress
        )
        return ToolResult(text)

    def render_tool_use_message(self, input: MonitorInput) -> str:
        if input.action == "watch":
            return f"Monitor: watch {input.task_id} for /{input.pattern}/"
        return "Monitor: status"

    def render_tool_result_message(self, output: str) -> str:
        return output.splitlines()[0] if output else ""
