"""PowerShell: on Windows it replaces Bash (registry platform selection); runs ``pwsh`` (or
Windows PowerShell) with a timeout and an output limit; permissions in ``powershell_permissions``.

The interpreter is ``$JUPYTER_AGENT_PWSH`` if set, else ``pwsh``, else ``powershell`` on PATH.
``run_in_background`` makes a ``PowerShellTask`` (TaskOutput / TaskStop / Monitor work on it).
Not yet: a working directory that persists between calls (each call starts in ``context.cwd``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Mapping

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.process_start import start_process
from ..core.result import ToolResult
from ..core.tool import VALID, InterruptBehavior, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..tasks.registry import get_task_registry
from .bash_prompt import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS
from .powershell_permissions import check_powershell_permission, is_read_only_command
from .powershell_task import kill_powershell, start_powershell_task
from .shell.environment import process_environment
from .shell.output import MAX_INLINE_CHARS

PWSH_ENV = "JUPYTER_AGENT_PWSH"


def find_powershell() -> str | None:
    if configured := os.environ.get(PWSH_ENV):
        return configured
    return shutil.which("pwsh") or shutil.which("powershell")


class PowerShellInput(BaseModel):
    command: str = Field(description="The PowerShell command to execute")
    timeout: int | None = Field(None, gt=0, le=MAX_TIMEOUT_MS, description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})")
    description: str | None = Field(None, description="Clear, concise description of what this command does in 5-10 words")
    run_in_background: bool | None = Field(
        None, description="Set to true to run this command in the background. Use TaskOutput to read the output later.",
    )


class PowerShellOutput(BaseModel):
    output: str
    exit_code: int | None = None
    timed_out: bool = False
    truncated_chars: int = 0

    def to_text(self) -> str:
        parts = [self.output or "(no output)"]
        if self.truncated_chars:
            parts.append(f"[{self.truncated_chars:,} characters of output were cut from the middle]")
        if self.timed_out:
            parts.append("Command timed out and was killed.")
        elif self.exit_code:
            parts.append(f"Exit code {self.exit_code}")
        return "\n".join(parts)


def _limit(text: str) -> tuple[str, int]:
    if len(text) <= MAX_INLINE_CHARS:
        return text, 0
    half = MAX_INLINE_CHARS // 2
    return text[:half] + "\n...\n" + text[-half:], len(text) - 2 * half


async def run_powershell(
    exe: str, command: str, cwd: str, timeout_s: float, env: Mapping[str, str] | None = None
) -> PowerShellOutput:
    kwargs = {"start_new_session": True} if sys.platform != "win32" else {}
    proc = await start_process(asyncio.create_subprocess_exec(
        exe, "-NoProfile", "-NonInteractive", "-Command", command, cwd=cwd, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, **kwargs,
    ), abandon=kill_powershell)
    try:
        data, _ = await asyncio.wait_for(proc.communicate(), timeout_s)
        timed_out = False
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        kill_powershell(proc)
        data, _ = await proc.communicate()
        if isinstance(exc, asyncio.CancelledError):
            raise
        timed_out = True
    text, cut = _limit(data.decode("utf-8", errors="replace").rstrip())
    return PowerShellOutput(output=text, exit_code=proc.returncode, timed_out=timed_out, truncated_chars=cut)


class PowerShellTool(Tool[PowerShellInput, PowerShellOutput]):
    name = "PowerShell"
    input_schema = PowerShellInput
    search_hint = "powershell pwsh windows shell command"

    async def prompt(self, options: ToolUseOptions) -> str:
        return f"""Executes a PowerShell command (pwsh) with an optional timeout, and returns its output.
This is the shell on Windows: use it where you would use Bash elsewhere.

- Use PowerShell syntax: cmdlets (Get-ChildItem, Get-Content, Select-String), `;` between
  statements, `$env:NAME` for environment variables. Quote paths with spaces.
- Prefer the dedicated tools for files: Read, Edit, Write, Glob and Grep, not Get-Content or
  Set-Content.
- Default timeout {DEFAULT_TIMEOUT_MS // 1000} s; set `timeout` (ms, at most {MAX_TIMEOUT_MS:,}).
- Output over {MAX_INLINE_CHARS:,} characters is cut in the middle.
- run_in_background: true starts it as a background task; read it with TaskOutput, stop it
  with TaskStop.
- Read-only cmdlets run without asking; other commands ask unless a PowerShell(prefix:*) rule
  allows them."""

    def is_read_only(self, input: PowerShellInput) -> bool:
        return is_read_only_command(input.command)

    def is_concurrency_safe(self, input: PowerShellInput) -> bool:
        return self.is_read_only(input)

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def validate_input(self, input: PowerShellInput, context: ToolUseContext) -> ValidationResult:
        if not input.command.strip():
            return ValidationError("The command is empty.")
        return VALID

    async def check_permissions(self, input: PowerShellInput, context: ToolUseContext) -> PermissionResult:
        return check_powershell_permission(input.command, context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        exe = find_powershell()
        if exe is None:
            raise ToolError(f"PowerShell is not installed (no pwsh or powershell on PATH; set {PWSH_ENV} to its path).")
        timeout_s = (input.timeout or DEFAULT_TIMEOUT_MS) / 1000
        if input.run_in_background:
            task = await start_powershell_task(
                get_task_registry(context), exe, input.command, description=input.description or input.command,
                cwd=str(context.cwd), directory=context.session_dir / "powershell", env=process_environment(context),
            )
            return ToolResult(PowerShellOutput(
                output=f"Command running in background with ID: {task.id}. Output is being written to: {task.output_path}"
            ))
        try:
            out = await run_powershell(exe, input.command, str(context.cwd), timeout_s, process_environment(context))
        except OSError as exc:
            raise ToolError(f"Could not run PowerShell ({exe}): {exc}") from exc
        return ToolResult(out)

    def map_result_to_content(self, data: PowerShellOutput, tool_use_id: str):
        return [{"type": "text", "text": data.to_text()}]

    def render_tool_use_message(self, input: PowerShellInput) -> str:
        return f"PowerShell: {input.command.splitlines()[0][:120] if input.command else ''}"

    def render_tool_result_message(self, output: PowerShellOutput) -> str:
        text = output.to_text()
        return text if len(text) <= 200 else "…" + text[-200:]
