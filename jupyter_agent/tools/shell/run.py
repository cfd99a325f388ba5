"""Running a command in the foreground: wait for it, or for the timeout, or for the user's stop.

While it runs, new output lines go to ``on_line`` (a live tail for the UI), throttled: the
file is polled every ``PROGRESS_INTERVAL`` seconds and at most ``MAX_LINES_PER_TICK`` of the
newest lines are passed on each time, each cut to ``MAX_PROGRESS_LINE`` characters.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.abort import AbortController
from .output import FileFollower
from .process import ShellProcess

PROGRESS_INTERVAL = 0.2
MAX_LINES_PER_TICK = 50
MAX_PROGRESS_LINE = 1_000
_PROGRESS_READ_BYTES = 64 << 10

TIMED_OUT = "timed out"
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class RunOutcome:
    """How a foreground command ended."""

    exit_code: int
    timed_out: bool
    interrupted: bool
    final_cwd: Path | None


async def run_foreground(
    process: ShellProcess,
    *,
    timeout: float,
    abort: AbortController,
    on_line: Callable[[str], None] | None = None,
    waiting: Callable[[], float] | None = None,
) -> RunOutcome:
    """Wait for ``process``; kill its group on timeout or abort (also when we are cancelled).
    ``waiting``: the seconds spent so far waiting for the user (a question the command's network
    asked); the timeout does not count them."""
    exited = process.exited()
    stop = asyncio.ensure_future(abort.wait())
    tail = asyncio.ensure_future(_follow(process, on_line)) if on_line else None
    loop = asyncio.get_running_loop()
    started = loop.time()
    waiters: set[asyncio.Future[Any]] = {exited, stop}

    def left() -> float:  # seconds until the timeout, the user's thinking time left out
        return timeout + (waiting() if waiting else 0.0) - (loop.time() - started)

    try:
        while True:
            done, _ = await asyncio.wait(waiters, timeout=max(left(), 0.0), return_when="FIRST_COMPLETED")
            if done or waiting is None or left() <= 0:
                break
        if exited not in done:
            await process.kill(INTERRUPTED if stop in done else TIMED_OUT)
        code = await process.wait()
        final_cwd = process.final_cwd()
    except asyncio.CancelledError:
        await process.kill(INTERRUPTED)
        raise
    finally:
        process.close()
        stop.cancel()
        if tail is not None:
            tail.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await tail
    return RunOutcome(
        exit_code=code,
        timed_out=process.killed_by == TIMED_OUT,
        interrupted=process.killed_by == INTERRUPTED,
        final_cwd=final_cwd,
    )


async def _follow(process: ShellProcess, on_line: Callable[[str], None]) -> None:
    follower = FileFollower(process.files.output)
    while True:
        await asyncio.sleep(PROGRESS_INTERVAL)
        lines, _ = follower.read_new(max_bytes=_PROGRESS_READ_BYTES)
        for line in lines[-MAX_LINES_PER_TICK:]:
            if len(line) > MAX_PROGRESS_LINE:
                line = line[:MAX_PROGRESS_LINE] + "…"
            with contextlib.suppress(Exception):  # a broken UI must not stop the command
                on_line(line)
