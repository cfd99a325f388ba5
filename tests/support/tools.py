"""Small real tools for exercising the core: they sleep, fail, report progress, change context."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.context import ToolUseContext
from jupyter_agent.core.permission_types import PermissionAsk, PermissionDeny, PermissionResult
from jupyter_agent.core.result import ToolResult
from jupyter_agent.core.tool import VALID, Tool, ToolProgress, ValidationError, ValidationResult


@dataclass
class Tracker:
    """Records how many calls run at once and in which order they start and end."""

    running: int = 0
    peak: int = 0
    log: list[str] = field(default_factory=list)

    def enter(self, name: str) -> None:
        self.running += 1
        self.peak = max(self.peak, self.running)
        self.log.append(f"start {name}")

    def leave(self, name: str) -> None:
        self.running -= 1
        self.log.append(f"end {name}")


class SleepInput(BaseModel):
    label: str
    seconds: float = Field(0.0, ge=0)


class SleepTool(Tool[SleepInput, str]):
    """Sleeps, then echoes its label.  Concurrency-safe and read-only."""

    name = "Sleep"
    input_schema = SleepInput
    aliases = ("Nap",)

    def __init__(self, tracker: Tracker | None = None, behavior: str = "cancel") -> None:
        self.tracker = tracker or Tracker()
        self._behavior = behavior

    def is_read_only(self, input: SleepInput) -> bool:
        return True

    def is_concurrency_safe(self, input: SleepInput) -> bool:
        return True

    def interrupt_behavior(self):  # type: ignore[override]
        return self._behavior

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        self.tracker.enter(input.label)
        try:
            await asyncio.sleep(input.seconds)
        finally:
            self.tracker.leave(input.label)
        return ToolResult(f"slept {input.label}")


class WriteStepInput(BaseModel):
    label: str
    seconds: float = 0.0
    new_cwd: str | None = None


class WriteStepTool(Tool[WriteStepInput, str]):
    """A writing (unsafe) tool; optionally changes the context's cwd through a modifier."""

    name = "WriteStep"
    input_schema = WriteStepInput

    def __init__(self, tracker: Tracker | None = None) -> None:
        self.tracker = tracker or Tracker()
        self.seen_cwds: list[str] = []

    async def check_permissions(self, input, context) -> PermissionResult:
        from jupyter_agent.core.permission_types import PermissionAllow

        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        self.seen_cwds.append(str(context.cwd))
        self.tracker.enter(input.label)
        await asyncio.sleep(input.seconds)
        self.tracker.leave(input.label)
        modifier = None
        if input.new_cwd is not None:
            from pathlib import Path

            target = Path(input.new_cwd)
            modifier = lambda ctx: ctx.with_changes(cwd=target)  # noqa: E731
        return ToolResult(f"wrote {input.label}", context_modifier=modifier)


class SafeModifierTool(SleepTool):
    """Concurrency-safe but returns a context modifier (which must be ignored)."""

    name = "SafeModifier"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult("ok", context_modifier=lambda ctx: ctx.with_changes(cwd="/nowhere"))


class FailInput(BaseModel):
    kind: str = "runtime"


class FailTool(Tool[FailInput, str]):
    """Raises inside ``call``."""

    name = "Fail"
    input_schema = FailInput

    def is_read_only(self, input: FailInput) -> bool:
        return True

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        if input.kind == "runtime":
            raise RuntimeError("boom")
        if input.kind == "keyerror":
            raise KeyError("missing")
        return ToolResult(None)  # type: ignore[arg-type]


class ProgressInput(BaseModel):
    steps: int = Field(3, ge=0, le=100)


class ProgressTool(Tool[ProgressInput, str]):
    """Reports ``steps`` progress events while it runs."""

    name = "Progress"
    input_schema = ProgressInput

    def is_read_only(self, input: ProgressInput) -> bool:
        return True

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        for i in range(input.steps):
            if on_progress:
                on_progress(ToolProgress("ignored", f"step {i}"))
            await asyncio.sleep(0)
        return ToolResult(f"{input.steps} steps")


class GuardedInput(BaseModel):
    path: str
    text: str = ""


class GuardedTool(Tool[GuardedInput, str]):
    """Validates its input and asks or denies by path; echoes what ``call`` received."""

    name = "Guarded"
    input_schema = GuardedInput

    async def validate_input(self, input, context) -> ValidationResult:
        if input.path.startswith("bad"):
            return ValidationError(f"Path {input.path} is not allowed here. Use a path under ok/.")
        return VALID

    async def check_permissions(self, input, context) -> PermissionResult:
        if input.path.startswith("deny"):
            return PermissionDeny(f"Writing {input.path} is denied.")
        return PermissionAsk(f"Write {input.path}?")

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult(f"wrote {input.path}: {input.text}")


class BigInput(BaseModel):
    chars: int


class BigTool(Tool[BigInput, str]):
    """Returns a result of ``chars`` characters."""

    name = "Big"
    input_schema = BigInput
    max_result_size_chars = 1_000

    def is_read_only(self, input: BigInput) -> bool:
        return True

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        return ToolResult("".join(chr(ord("a") + i % 26) for i in range(input.chars)))


class BlockingIOInput(BaseModel):
    seconds: float = 0.1


class WaitIOTool(Tool[BlockingIOInput, float]):
    """Waits on (simulated) I/O without blocking the loop; returns the wall time it took."""

    name = "WaitIO"
    input_schema = BlockingIOInput

    def __init__(self, safe: bool = True) -> None:
        self.safe = safe

    def is_read_only(self, input: Any) -> bool:
        return True

    def is_concurrency_safe(self, input: Any) -> bool:
        return self.safe

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        t0 = time.perf_counter()
        await asyncio.sleep(input.seconds)
        return ToolResult(time.perf_counter() - t0)


def make_context(tools: list[Tool[Any, Any]], tmp_path, **kw: Any) -> ToolUseContext:
    from jupyter_agent.core.context import ToolUseOptions

    options = ToolUseOptions(tools=tuple(tools), **kw)
    return ToolUseContext(options=options, cwd=tmp_path, session_dir=tmp_path / "session")
