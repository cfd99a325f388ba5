"""The Bash tool: a command in a fresh bash whose working directory persists across calls."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..core.result import ContentBlock, ContextModifier, ToolResult, text_block
from ..core.tool import VALID, Tool, ToolProgress, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.bash import check_bash_permission_async, is_read_only_command
from ..permissions.filesystem import real_in_working_directories
from ..permissions.hooks import gate
from ..sandbox.network import asker
from ..sandbox.policy import (
    Confinement,
    failure_note,
    hidden_note,
    sandbox_permission,
    sandbox_prefix,
    sandboxed_command,
)
from ..tasks.registry import get_task_registry
from ..tasks.shell import start_shell_task
from .bash_prompt import BASH_PROMPT, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS
from .shell.environment import session_environment, settings_env
from .shell.output import OutputSummary, summarize_soon
from .shell.process import DEFAULT_KILL_GRACE, ShellFiles, ShellProcess
from .shell.run import RunOutcome, run_foreground
from .shell.state import ShellState, shell_state

if TYPE_CHECKING:
    from ..core.context import ToolUseContext, ToolUseOptions
    from ..core.permission_types import PermissionResult

MAX_COMMAND_CHARS = 100_000


class BashInput(BaseModel):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        None, gt=0, le=MAX_TIMEOUT_MS,
        description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})",
    )
    description: str | None = Field(
        None, description="Clear, concise description of what this command does in 5-10 words"
    )
    run_in_background: bool | None = Field(
        None,
        description="Set to true to run this command in the background. "
        "Use TaskOutput to read the output later.",
    )
    dangerouslyDisableSandbox: bool | None = Field(  # noqa: N815 (Claude Code's name)
        None,
        description="Set this to true to run the command outside the sandbox (the user is asked first). "
        "Only when a sandboxed run failed because of the sandbox.",
    )


@dataclass(frozen=True)
class BashOutput:
    """What a Bash call produced, for the model and the UI card."""

    output: str
    exit_code: int | None = None
    timed_out: bool = False
    interrupted: bool = False
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    output_path: str | None = None
    background_task_id: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_text(self) -> str:
        parts = [self.output] if self.output else []
        if self.background_task_id is None and not self.output:
            parts.append("(no output)")
        if self.timed_out:
            parts.append(f"Command timed out after {self.timeout_ms / 1000:g} s and was killed.")
        elif self.interrupted:
            parts.append("Command was interrupted by the user and killed.")
        elif self.exit_code:
            parts.append(f"Exit code {self.exit_code}")
        parts.extend(self.notes)
        return "\n".join(parts)


class BashTool(Tool[BashInput, BashOutput]):
    """Runs shell commands; see ``bash_prompt.BASH_PROMPT`` for what the model is told."""

    name = "Bash"
    input_schema = BashInput
    max_result_size_chars = 40_000  # the tool bounds its own output (30,000 + notes)

    def __init__(self, kill_grace: float = DEFAULT_KILL_GRACE) -> None:
        self.kill_grace = kill_grace

    async def prompt(self, options: ToolUseOptions) -> str:
        return BASH_PROMPT

    async def description(self, input: BashInput | None, options: ToolUseOptions) -> str:
        if input is None:
            return "Run a shell command"
        return input.description or _first_line(input.command)

    async def validate_input(self, input: BashInput, context: ToolUseContext) -> ValidationResult:
        if not input.command.strip():
            return ValidationError("The command is empty. Pass the shell command to run in `command`.")
        if "\x00" in input.command:
            return ValidationError("The command contains a NUL character, which bash cannot run.")
        if len(input.command) > MAX_COMMAND_CHARS:
            return ValidationError(
                f"The command is {len(input.command):,} characters long (limit "
                f"{MAX_COMMAND_CHARS:,}). Write long content with the Write tool, then run it."
            )
        return VALID

    async def check_permissions(self, input: BashInput, context: ToolUseContext) -> PermissionResult:
        context = _at_shell_cwd(context)
        result = await check_bash_permission_async(input.command, context)
        return await sandbox_permission(
            input.command, bool(input.dangerouslyDisableSandbox), context, result, [context.session_dir / "bash"]
        )

    def is_read_only(self, input: BashInput) -> bool:
        try:
            return bool(is_read_only_command(input.command, None))  # type: ignore[arg-type]
        except Exception:  # fail closed: an analyzer error means "may write"
            return False

    def is_read_only_in(self, input: BashInput, context: ToolUseContext) -> bool:
        """Read-only with the session's working directories known (``cd sub && ls`` qualifies)."""
        try:
            return bool(is_read_only_command(input.command, _at_shell_cwd(context)))
        except Exception:  # fail closed
            return False

    def is_concurrency_safe(self, input: BashInput) -> bool:
        return self.is_read_only(input)

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"

    def user_facing_name(self, input: BashInput | None = None) -> str:
        return "Bash"

    def render_tool_use_message(self, input: BashInput) -> str:
        suffix = " (background)" if input.run_in_background else ""
        return f"Bash: {_first_line(input.command, 120)}{suffix}"

    def render_tool_result_message(self, output: BashOutput) -> str:
        """The card's one line: how it ended, then the only line of output or how many there
        were (the output itself is in the card's body)."""
        if output.background_task_id is not None:
            return f"Running in the background ({output.background_task_id})"
        lines = [line for line in output.output.splitlines() if line.strip()]
        said = lines[0].strip() if len(lines) == 1 else (f"{len(lines)} lines" if lines else "(no output)")
        if output.timed_out:
            return f"Timed out after {output.timeout_ms / 1000:g} s · {said}"
        if output.interrupted:
            return f"Interrupted · {said}"
        return f"Exit code {output.exit_code} · {said}" if output.exit_code else said

    def map_result_to_content(self, data: BashOutput, tool_use_id: str) -> list[ContentBlock]:
        return [text_block(data.to_text())]

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        state = shell_state(context)
        cwd, note = state.start_dir()
        notes = (note,) if note else ()
        try:
            env = await session_environment(context)
            sandbox = await sandbox_prefix(
                bool(input.dangerouslyDisableSandbox), context, cwd, [context.session_dir / "bash"], env, input.command,
                ask=asker(self, input, context, can_use_tool),
            )
            if sandbox is not None and input.run_in_background:
                input = input.model_copy(update={"command": sandboxed_command(sandbox.args, input.command)})
            if input.run_in_background:
                return ToolResult(await self._start_background(input, context, cwd, env, notes, sandbox))
            return await self._run(input, context, state, cwd, env, notes, on_progress, sandbox)
        except OSError as exc:
            raise ToolError(f"Could not run the command: {exc}") from exc

    async def _run(
        self,
        input: BashInput,
        context: ToolUseContext,
        state: ShellState,
        cwd: Path,
        env: dict[str, str],
        notes: tuple[str, ...],
        on_progress: Any,
        sandbox: Confinement | None = None,
    ) -> ToolResult[BashOutput]:
        files = ShellFiles.under(context.session_dir / "bash", secrets.token_hex(6))
        timeout_ms = input.timeout or DEFAULT_TIMEOUT_MS
        try:
            process = await ShellProcess.start(
                input.command, cwd=cwd, env=env, files=files, kill_grace=self.kill_grace,
                prefix=sandbox.args if sandbox else (), pass_fds=sandbox.pass_fds if sandbox else (),
            )
        except BaseException:
            _remove(files.output)
            if sandbox:
                sandbox.abandon()
            raise
        if sandbox:
            sandbox.started()
        on_line = (lambda line: on_progress(ToolProgress("", line))) if on_progress else None
        try:
            outcome = await run_foreground(
                process, timeout=timeout_ms / 1000, abort=context.abort_controller, on_line=on_line,
                waiting=sandbox.gate.waiting if sandbox and sandbox.gate else None,
            )
            summary = await summarize_soon(files.output)
        except BaseException:  # cancelled (the user's stop) or failed: keep no output file
            _remove(files.output)
            if sandbox:  # what it created is disarmed all the same (nothing to report it in)
                with contextlib.suppress(BaseException):
                    await asyncio.shield(asyncio.to_thread(sandbox.disarm))
            raise
        if summary.saved_path != files.output:
            _remove(files.output)
        if sandbox:
            refused = sandbox.network_note()
            found = (
                failure_note(summary.text, outcome.exit_code, refused is not None),
                hidden_note(sandbox.args, input.command, summary.text), refused, await asyncio.to_thread(sandbox.disarm),
            )
            notes = (*notes, *filter(None, found))
        before = state.cwd
        moved, reset = _move_to(state, outcome, context)
        output = _output(summary, outcome, timeout_ms, (*notes, reset) if reset else notes)
        if state.cwd != before:  # CwdChanged hooks hear of it (they cannot refuse it)
            await gate(context, "CwdChanged", {"old_cwd": str(before), "new_cwd": str(state.cwd)})
        return ToolResult(output, context_modifier=moved)

    async def _start_background(
        self,
        input: BashInput,
        context: ToolUseContext,
        cwd: Path,
        env: dict[str, str],
        notes: tuple[str, ...],
        sandbox: Confinement | None = None,
    ) -> BashOutput:
        try:
            task = await start_shell_task(
                get_task_registry(context),
                input.command,
                description=input.description or _first_line(input.command),
                cwd=cwd,
                env=env,
                directory=context.session_dir / "tasks",
                kill_grace=self.kill_grace,
                after=sandbox.after_background if sandbox else None,
                pass_fds=sandbox.pass_fds if sandbox else (),
            )
        except BaseException:
            if sandbox:
                sandbox.abandon()
            raise
        if sandbox:
            sandbox.started()
        text = (
            f"Command running in background with ID: {task.id}. "
            f"Output is being written to: {task.output_path}\n"
            f'Read new output with TaskOutput (task_id "{task.id}"); stop it with TaskStop.'
        )
        return BashOutput(text, background_task_id=task.id, output_path=str(task.output_path),
                          notes=notes)


def _output(
    summary: OutputSummary, outcome: RunOutcome, timeout_ms: int, notes: tuple[str, ...]
) -> BashOutput:
    return BashOutput(
        output=summary.text,
        exit_code=outcome.exit_code,
        timed_out=outcome.timed_out,
        interrupted=outcome.interrupted,
        timeout_ms=timeout_ms,
        output_path=str(summary.saved_path) if summary.saved_path else None,
        notes=notes,
    )


def _move_to(state: ShellState, outcome: RunOutcome, context: ToolUseContext) -> tuple[ContextModifier | None, str | None]:
    """Record the command's final directory, and a modifier that moves ``context.cwd`` there.
    A directory outside the working directories is not kept (nor any, with
    ``MAINTAIN_PROJECT_DIR`` set): the shell goes back to the project directory, and the note
    that says so is returned too."""
    new = outcome.final_cwd
    if new is None or not new.is_dir():
        return None, None
    note = None
    home = state.home_dir()
    real = os.path.realpath(new)
    if _maintain_project_dir(context) or not real_in_working_directories(real, context):
        if real != os.path.realpath(home):
            note = f"Shell cwd was reset to {home}"
        new = home
    state.cwd = new
    if new == Path(context.cwd):
        return None, note
    return (lambda ctx: ctx.with_changes(cwd=new)), note


MAINTAIN_PROJECT_DIR = "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR"


def _maintain_project_dir(context: ToolUseContext) -> bool:
    """Claude Code's switch: every command starts in the project directory (kernel environment
    or the settings files' ``env`` block)."""
    value = settings_env(context).get(MAINTAIN_PROJECT_DIR, os.environ.get(MAINTAIN_PROJECT_DIR, ""))
    return value.strip().lower() in ("1", "true", "yes", "on")


def _first_line(command: str, limit: int = 80) -> str:
    line = command.strip().splitlines()[0] if command.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _at_shell_cwd(context: ToolUseContext) -> ToolUseContext:
    """Judge paths against the directory the command will really start in."""
    start = shell_state(context).cwd
    return context if start == Path(context.cwd) else context.with_changes(cwd=start)
