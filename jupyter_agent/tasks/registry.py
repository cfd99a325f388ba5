"""The session's background tasks: ids, lookup, listeners, shutdown (and cleanup at exit)."""

from __future__ import annotations

import asyncio
import atexit
import builtins  # annotations after the method named list
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import ToolError
from .base import LIVE_TASKS, BackgroundTask

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

APP_STATE_KEY = "background_tasks"
Listener = Callable[[BackgroundTask], None]


class TaskNotFoundError(ToolError):
    """The model asked for a task id this session does not have."""


class TaskRegistry:
    """Holds one session's tasks; notifies listeners when a task starts or ends."""

    def __init__(self) -> None:
        self._tasks: dict[str, BackgroundTask] = {}
        self._listeners: list[Listener] = []

    def new_id(self, prefix: str) -> str:
        """A short unused id such as ``bash_1a2b``."""
        for size in (2, 2, 2, 3, 4, 8):
            candidate = f"{prefix}_{secrets.token_hex(size)}"
            if candidate not in self._tasks:
                return candidate
        raise RuntimeError("could not find a free task id")

    def add(self, task: BackgroundTask) -> BackgroundTask:
        self._tasks[task.id] = task
        self._notify(task)
        task.on_end(self._notify)
        return task

    def get(self, task_id: str) -> BackgroundTask:
        task = self._tasks.get(task_id.strip())
        if task is None:
            known = ", ".join(self._tasks) or "none"
            raise TaskNotFoundError(
                f"No task found with ID: {task_id}. Known task ids in this session: {known}."
            )
        return task

    def list(self) -> list[BackgroundTask]:
        return list(self._tasks.values())

    def running(self) -> builtins.list[BackgroundTask]:
        return [t for t in self._tasks.values() if not t.done]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(task)`` when a task is added and when it ends; returns unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _notify(self, task: BackgroundTask) -> None:
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # an observer must never break a task
                listener(task)

    async def shutdown_all(self) -> None:
        """Stop every running task (the session is ending) and wait until they are gone."""
        await asyncio.gather(*(t.stop() for t in self.running()), return_exceptions=True)



def get_task_registry(context: ToolUseContext) -> TaskRegistry:
    """The session's registry, kept in ``app_state.extra["background_tasks"]`` (created on first use)."""
    registry = context.get_app_state().extra.get(APP_STATE_KEY)
    if isinstance(registry, TaskRegistry):
        return registry
    new = TaskRegistry()
    context.set_app_state(lambda s: replace(s, extra={**s.extra, APP_STATE_KEY: new}))
    return new


@atexit.register
def _kill_everything_at_exit() -> None:
    """Background tasks survive nothing beyond the kernel."""
    for task in list(LIVE_TASKS):
        with contextlib.suppress(Exception):
            task.kill_now()
