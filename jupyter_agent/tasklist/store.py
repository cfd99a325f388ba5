"""TaskStore: the session's task list, saved as ``<session_dir>/tasks.json`` after every change.

Every agent of a session (the main agent and its subagents) reaches the same store through
``task_store_for(context)``; changes are serialised by one asyncio lock per file, and each save
is atomic, so a crash never leaves a half-written list.
"""

from __future__ import annotations

import asyncio
import builtins  # annotations after the method named list
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.atomic import atomic_write_text
from .model import Task, TaskListData, TaskUpdate, add_task, apply_update, find

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

FILE_NAME = "tasks.json"
_STORES: dict[Path, TaskStore] = {}


class TaskStore:
    """Load, change and save one task list file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()

    async def load(self) -> TaskListData:
        return await asyncio.to_thread(self._read)

    def _read(self) -> TaskListData:
        if not self.path.exists():
            return TaskListData()
        return TaskListData.model_validate_json(self.path.read_text(encoding="utf-8"))

    async def _save(self, data: TaskListData) -> None:
        text = data.model_dump_json(indent=1)
        await asyncio.to_thread(atomic_write_text, self.path, text)

    async def create(
        self,
        subject: str,
        description: str,
        active_form: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Task:
        async with self._lock:
            data = await self.load()
            draft = Task(
                id="0",
                subject=subject,
                description=description,
                activeForm=active_form,
                metadata=metadata or {},
            )
            data = add_task(data, draft)
            await self._save(data)
            return data.tasks[-1]

    async def get(self, task_id: str) -> Task | None:
        return find(await self.load(), task_id)

    async def list(self) -> TaskListData:
        return await self.load()

    async def update(self, task_id: str, upd: TaskUpdate) -> tuple[Task | None, builtins.list[str]]:
        """The task after the change (``None`` once deleted) and the changed fields.

        Raises ``TaskListError`` (and saves nothing) when the change is not possible.
        """
        async with self._lock:
            data, changed = apply_update(await self.load(), task_id, upd)
            if changed:
                await self._save(data)
            return find(data, task_id), changed


def task_store_for(context: ToolUseContext) -> TaskStore:
    """The store shared by every agent whose context has this session directory."""
    path = (Path(context.session_dir) / FILE_NAME).resolve()
    store = _STORES.get(path)
    if store is None:
        store = _STORES[path] = TaskStore(path)
    return store
