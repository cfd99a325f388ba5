"""Rewind: restore files and cells to their state before the last N turns, refusing per file or
cell where someone changed it after the agent did."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..core.atomic import atomic_write_bytes
from ..core.file_state import content_hash
from ..notebook.cells import find_cell, source_text
from ..notebook.document import DeleteCell, InsertCell, NotebookDocument, ReplaceCell
from .model import CellChange, FileChange, RestoreOutcome, RewindReport
from .store import CheckpointStore, bytes_hash, read_or_none

GetDocument = Callable[[str], Awaitable[NotebookDocument]]
CHANGED_SINCE = "changed since the agent edited it; left as it is"


async def rewind(store: CheckpointStore, turns: int, get_document: GetDocument | None = None) -> RewindReport:
    """Undo the agent's changes of the last ``turns`` turns, newest first; drop those turns."""
    if get_document is None:
        from ..notebook import get_document as _get

        get_document = _get
    await store.ready()
    report = RewindReport()
    take = store.turns[-turns:] if turns > 0 else []
    for turn in reversed(take):
        report.turns.append(turn.turn_id)
        for change in turn.files.values():
            if change.after_hash is not None:
                report.outcomes.append(await asyncio.to_thread(_restore_file, change))
        for change in reversed(list(turn.cells.values())):
            if change.done:
                report.outcomes.append(await _restore_cell(change, get_document))
    del store.turns[len(store.turns) - len(take):]
    await asyncio.to_thread(store.forget_dropped)
    return report


def _restore_file(change: FileChange) -> RestoreOutcome:
    current = read_or_none(change.path)
    if bytes_hash(current) != change.after_hash:
        return RestoreOutcome("file", change.path, "refused", CHANGED_SINCE)
    if change.before is None:
        Path(change.path).unlink()
        return RestoreOutcome("file", change.path, "deleted", "the agent had created it")
    atomic_write_bytes(change.path, change.before)
    return RestoreOutcome("file", change.path, "restored")


async def _restore_cell(change: CellChange, get_document: GetDocument) -> RestoreOutcome:
    target = f"{change.notebook}#{change.cell_id}"
    try:
        doc = await get_document(change.notebook)
        nb: dict[str, Any] = await doc.read_json()
    except Exception as exc:
        return RestoreOutcome("cell", target, "refused", f"the notebook could not be read: {exc}")
    cells = nb.get("cells", [])
    index = find_cell(cells, change.cell_id)
    if change.after_hash is None:  # the agent deleted it: put it back where it was
        if index is not None:
            return RestoreOutcome("cell", target, "refused", "a cell with this id exists again")
        after = change.prev_cell_id if change.prev_cell_id and find_cell(cells, change.prev_cell_id) is not None else None
        edit: Any = InsertCell(after, change.before_type or "code", change.before_source or "")  # type: ignore[arg-type]
        action = "recreated"
    elif index is None:
        return RestoreOutcome("cell", target, "refused", "the cell was deleted since the agent edited it")
    elif content_hash(source_text(cells[index])) != change.after_hash:
        return RestoreOutcome("cell", target, "refused", CHANGED_SINCE)
    elif change.before_source is None:
        edit, action = DeleteCell(change.cell_id), "deleted"
    else:
        edit = ReplaceCell(change.cell_id, change.before_source, change.before_type)  # type: ignore[arg-type]
        action = "restored"
    try:
        await doc.apply(edit)
    except Exception as exc:
        return RestoreOutcome("cell", target, "refused", f"the edit failed: {exc}")
    return RestoreOutcome("cell", target, action)  # type: ignore[arg-type]
