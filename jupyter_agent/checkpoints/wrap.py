"""CheckpointingTool: Edit / Write / NotebookEdit, recording what they change for rewind."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..subagents.delegating import DelegatingTool
from .store import CheckpointStore, get_store

FILE_TOOLS = frozenset({"Edit", "Write"})
NOTEBOOK_TOOLS = frozenset({"NotebookEdit"})


def _absolute(path: str, context: ToolUseContext) -> str:
    p = Path(os.path.expanduser(path))
    return os.path.normpath(p if p.is_absolute() else Path(context.cwd) / p)


class CheckpointingTool(DelegatingTool):
    """The wrapped tool; its changes go into the session's ``CheckpointStore`` (when installed)."""

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        store = get_store(context.get_app_state())
        if store is None:
            return await self.inner.call(input, context, can_use_tool, parent_message, on_progress)
        if self.name in NOTEBOOK_TOOLS:
            return await self._notebook_call(store, input, context, can_use_tool, parent_message, on_progress)
        path = _absolute(input.file_path, context)
        await store.before_file_write(path)
        try:
            return await self.inner.call(input, context, can_use_tool, parent_message, on_progress)
        finally:
            await store.after_file_write(path)

    async def _notebook_call(self, store: CheckpointStore, input, context, can_use_tool, parent_message, on_progress):
        from ..notebook import get_document

        path = _absolute(input.notebook_path, context)
        mode = input.edit_mode or "replace"
        doc = await get_document(path, context)
        await store.ready()
        store.before_cell_edit(path, await doc.read_json(), input.cell_id, mode)
        result = await self.inner.call(input, context, can_use_tool, parent_message, on_progress)
        cell_id = getattr(result.data, "cell_id", None) or input.cell_id
        if cell_id:
            store.after_cell_edit(path, await doc.read_json(), cell_id, mode)
        return result


def with_checkpoints(tools: Sequence[Any]) -> list[Any]:
    """``tools`` with Edit, Write and NotebookEdit wrapped (already wrapped ones are kept)."""
    out = []
    for tool in tools:
        if tool.name in FILE_TOOLS | NOTEBOOK_TOOLS and not isinstance(tool, CheckpointingTool):
            out.append(CheckpointingTool(tool))
        else:
            out.append(tool)
    return out
