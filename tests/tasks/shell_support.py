"""Helpers for Bash and background-task tests: contexts, running calls, finding processes."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import psutil

from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolCallOutcome, ToolUseRequest, run_tool_use
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.task_output import TaskOutputTool
from jupyter_agent.tools.task_stop import TaskStopTool

KILL_GRACE = 0.3


def bash_context(tmp_path: Path, grace: float = KILL_GRACE) -> ToolUseContext:
    """A session with Bash, TaskOutput and TaskStop, working in ``tmp_path/work``."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    tools = (BashTool(kill_grace=grace), TaskOutputTool(), TaskStopTool())
    return ToolUseContext(
        options=ToolUseOptions(tools=tools), cwd=work, session_dir=tmp_path / "session"
    )


async def call(
    ctx: ToolUseContext, approve: Any, name: str, payload: object, events: list | None = None
) -> ToolCallOutcome:
    """Run one tool call through the whole pipeline (schema, permissions, call)."""
    req = ToolUseRequest(id=f"toolu_{uuid.uuid4().hex[:10]}", name=name, input=payload)
    sink = events.append if events is not None else None
    return await run_tool_use(req, ctx, approve, on_event=sink)


async def bash(ctx: ToolUseContext, approve: Any, command: str, **kw: Any) -> ToolCallOutcome:
    return await call(ctx, approve, "Bash", {"command": command, **kw})


def token() -> str:
    """A unique number usable as ``sleep``'s argument, to find the processes of one test."""
    return f"{300 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**8:08d}"


def live_with(marker: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(marker in part for part in proc.info["cmdline"] or ()):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def sleeps_with(marker: str) -> int:
    """How many live ``sleep`` processes carry ``marker``."""
    count = 0
    for proc in live_with(marker):
        try:
            count += proc.name() == "sleep"
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return count


async def eventually(predicate: Any, seconds: float = 10.0) -> bool:
    """Poll ``predicate`` until it is true or ``seconds`` pass (waiting only, never timing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return bool(predicate())


async def cancel_mid_start(starting: Any) -> None:
    """Run the coroutine ``starting`` (a process start) until it first waits, hold the event
    loop for 0.3 s (as a busy kernel would; the child starts its own children meanwhile), then
    cancel it; it must end as cancelled, promptly."""
    import time

    task = asyncio.ensure_future(starting)
    await asyncio.sleep(0)  # the start is under way (the fork done, in asyncio's own code)
    time.sleep(0.3)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=20)
    assert done == {task} and task.cancelled()
