"""TerminalCapture (flag ``terminal_capture``): a command's rendered terminal screen (text + PNG).

The command runs in a real pseudo-terminal (``terminal_screen.PtyRun``); the ``pyte`` emulator
interprets its escape codes.  Or ``task_id`` attaches to a background task: its output so far
is replayed through the emulator.  Running a command is permission-checked exactly like Bash.
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionResult
from ..core.result import ContentBlock, ToolResult, image_block, text_block
from ..core.tool import VALID, InterruptBehavior, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.bash import check_bash_permission_async
from ..tasks.registry import get_task_registry
from .shell.environment import session_environment
from .shell.state import shell_state
from .terminal_screen import Capture, render_output_file, run_in_pty

MAX_WAIT = 60.0


class TerminalCaptureInput(BaseModel):
    command: str | None = Field(None, description="The command to run in a pseudo-terminal")
    task_id: str | None = Field(
        None, description="Instead of a command: a background task whose output to render"
    )
    keys: list[str] = Field(
        default_factory=list,
        description="Keystrokes to type after the screen settles, one entry per step "
        "(escapes allowed: \\n Enter, \\t Tab, \\x1b Escape, \\x03 Ctrl-C, \\x1b[B Down)",
    )
    wait_seconds: float = Field(
        3, gt=0, le=MAX_WAIT, description="At most this long to wait for output to settle, per step"
    )
    rows: int = Field(24, ge=5, le=200, description="Terminal height")
    cols: int = Field(80, ge=20, le=400, description="Terminal width")
    image: bool = Field(True, description="Also return a PNG of the screen")


class TerminalCaptureOutput(BaseModel):
    source: str
    screen: str
    cursor_row: int
    cursor_col: int
    exited: bool
    exit_code: int | None = None
    png_b64: str | None = None


def _output(source: str, cap: Capture) -> TerminalCaptureOutput:
    return TerminalCaptureOutput(
        source=source, screen="\n".join(cap.lines), cursor_row=cap.cursor[0], cursor_col=cap.cursor[1],
        exited=cap.exited, exit_code=cap.exit_code,
        png_b64=base64.b64encode(cap.png).decode("ascii") if cap.png else None,
    )


class TerminalCaptureTool(Tool[TerminalCaptureInput, TerminalCaptureOutput]):
    """Run a command in a pseudo-terminal and capture its rendered screen — as text (what a
person would see, after the terminal emulator has applied cursor moves, colours and clears)
and as a PNG image.

Use it for interactive or full-screen programs whose plain output is unreadable through Bash:
top/htop, less, vim, curses or rich/textual TUIs, progress bars, REPL sessions. `keys` types
keystrokes step by step (e.g. ["\\x1b[B", "\\n", "q"]) and the screen is captured after the
last step; the program is then stopped. With `task_id` instead of a command, the output of a
background task (Bash run_in_background) is rendered as a terminal would show it.
For ordinary commands with line output, use Bash instead."""

    name = "TerminalCapture"
    input_schema = TerminalCaptureInput
    search_hint = "terminal tty pty screen capture tui screenshot"

    def is_read_only(self, input: TerminalCaptureInput) -> bool:
        return input.command is None

    def is_concurrency_safe(self, input: TerminalCaptureInput) -> bool:
        return input.command is None

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    async def validate_input(self, input: TerminalCaptureInput, context: ToolUseContext) -> ValidationResult:
        if (input.command is None) == (input.task_id is None):
            return ValidationError("Give either command or task_id (exactly one).")
        if input.command is not None and not input.command.strip():
            return ValidationError("The command is empty.")
        if input.task_id is not None and input.keys:
            return ValidationError("keys can only be typed into a command started by this tool.")
        return VALID

    async def check_permissions(self, input: TerminalCaptureInput, context: ToolUseContext) -> PermissionResult:
        if input.command is None:
            return PermissionAllow()
        result = await check_bash_permission_async(input.command, context)
        if input.keys and isinstance(result, PermissionAllow):
            # what a program does with typed keys (a pager's `!cmd`, a debugger, a REPL) is not in
            # the command line the analysis read: asked about unless a rule or the mode allows it
            return PermissionAsk(
                f"Type {input.keys!r} into {input.command!r}: keystrokes can make a program run commands "
                "the permission check cannot see.",
                reason="keystrokes are typed into the program",
            )
        return result

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if input.task_id is not None:
            task = get_task_registry(context).get(input.task_id)
            if task.output_path is None:
                raise ToolError(f"Task {input.task_id} has no output to render.")
            cap = await render_output_file(task.output_path, rows=input.rows, cols=input.cols, image=input.image)
            return ToolResult(_output(f"task {input.task_id}", cap))
        cwd, _note = shell_state(context).start_dir()
        try:
            cap = await run_in_pty(
                input.command, cwd=cwd, env=await session_environment(context), rows=input.rows, cols=input.cols,
                wait_seconds=input.wait_seconds, keys=input.keys, image=input.image,
            )
        except OSError as exc:
            raise ToolError(f"Could not start the command in a terminal: {exc}") from exc
        return ToolResult(_output(input.command, cap))

    def map_result_to_content(self, data: TerminalCaptureOutput, tool_use_id: str) -> list[ContentBlock]:
        state = (
            f"exited with code {data.exit_code}" if data.exited else "still running when captured (then stopped)"
        )
        if data.source.startswith("task "):
            state = "output so far"
        head = f"Screen of {data.source} ({state}; cursor at row {data.cursor_row + 1}, col {data.cursor_col + 1}):"
        blocks: list[Any] = [text_block(f"{head}\n{data.screen or '(blank screen)'}")]
        if data.png_b64:
            blocks.append(image_block("image/png", data.png_b64))
        return blocks

    def render_tool_use_message(self, input: TerminalCaptureInput) -> str:
        if input.command is None:
            return f"TerminalCapture: task {input.task_id}"
        first = input.command.splitlines()[0]
        return f"TerminalCapture: {first[:120]}"

    def render_tool_result_message(self, output: TerminalCaptureOutput) -> str:
        lines = [ln for ln in output.screen.splitlines() if ln.strip()]
        return f"{len(lines)} non-blank screen lines" + (" + PNG" if output.png_b64 else "")
