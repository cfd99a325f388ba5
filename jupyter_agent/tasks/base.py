"""What every background task offers: status, incremental output, waiting, stopping."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

TaskStatus = Literal["running", "completed", "failed", "killed"]
TERMINAL: frozenset[TaskStatus] = frozenset({"completed", "failed", "killed"})

# Every task that has not ended, across sessions: killed when the interpreter exits.
LIVE_TASKS: set[BackgroundTask] = set()


@dataclass(frozen=True)
class TaskSnapshot:
    """A task at one moment, for tools and the UI."""

    task_id: str
    kind: str
    description: str
    status: TaskStatus
    exit_code: int | None
    output_path: Path | None
    started_at: float
    ended_at: float | None


class BackgroundTask(abc.ABC):
    """A unit of work that runs while the agent goes on.

    Subclasses start their work, then call ``_finish`` exactly once when it ends.  Output is
    read incrementally: each ``read_new`` returns what appeared since the previous one.
    """

    kind: str = "task"
    id_prefix: str = "task"

    def __init__(self, task_id: str, description: str) -> None:
        self.id = task_id
        self.description = description
        self.started_at = time.time()
        self.ended_at: float | None = None
        self.status: TaskStatus = "running"
        self.exit_code: int | None = None
        self._done = asyncio.Event()
        self._on_end: list[Callable[[BackgroundTask], None]] = []
        LIVE_TASKS.add(self)

    def on_end(self, listener: Callable[[BackgroundTask], None]) -> None:
        """Call ``listener(task)`` once the task has ended (at once if it already has)."""
        if self.done:
            listener(self)
        else:
            self._on_end.append(listener)

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    @property
    def output_path(self) -> Path | None:
        """A file holding the task's whole output, when there is one."""
        return None

    def snapshot(self) -> TaskSnapshot:
        return TaskSnapshot(
            self.id, self.kind, self.description, self.status, self.exit_code,
            self.output_path, self.started_at, self.ended_at,
        )

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait until the task ends (at most ``timeout`` seconds); True if it has ended."""
        if self.done:
            return True
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    def _finish(self, status: TaskStatus, exit_code: int | None = None) -> None:
        if self.done:
            return
        self.status, self.exit_code, self.ended_at = status, exit_code, time.time()
        self._done.set()
        LIVE_TASKS.discard(self)
        for listener in self._on_end:
            with contextlib.suppress(Exception):  # an observer must never break a task
                listener(self)

    @abc.abstractmethod
    async def read_new(self, max_chars: int) -> str:
        """Output produced since the last call (at most ``max_chars``, the newest kept)."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """End the task now; its status becomes ``killed`` unless it had already ended."""

    @abc.abstractmethod
    def kill_now(self) -> None:
        """Stop without awaiting anything (the interpreter is exiting)."""
