"""The live backend: the notebook open in JupyterLab, read and edited through the comm bridge."""

from __future__ import annotations

import json
from typing import Any

from .bridge import Client, KernelBridge, result_as
from .document import Backend, CellEdit, DeleteCell, EditApplied, InsertCell, NotebookEditError, ReplaceCell
from .protocol import (
    DeleteCellsArgs,
    EditResult,
    ExecuteCellsArgs,
    ExecuteCellsResult,
    GetNotebookArgs,
    GetNotebookResult,
    InsertCellsArgs,
    NewCell,
    OpArgs,
    ReplaceCellArgs,
    RevealCellArgs,
)


class LiveNotebook:
    """One notebook view in the browser (unsaved edits included)."""

    backend: Backend = "live"

    def __init__(self, bridge: KernelBridge, client: Client, path: str, target: str | None = None) -> None:
        self.bridge = bridge
        self.client = client  # the view the requests go to
        self.path = path
        # the notebook's path in that view's page when it is not the view's own notebook
        self.target = target

    async def read_json(self) -> dict[str, Any]:
        result = result_as(GetNotebookResult, await self._request(GetNotebookArgs()))
        return result.notebook

    async def read_bytes(self) -> bytes:
        return json.dumps(await self.read_json(), ensure_ascii=False).encode("utf-8")

    async def apply(self, edit: CellEdit, *, base: bytes | None = None) -> EditApplied:
        result = result_as(EditResult, await self._request(_edit_args(edit)))
        if not result.cell_ids:
            raise NotebookEditError("bad_request", "The frontend applied the edit but named no cell.")
        return EditApplied(result.cell_ids[0], result.cell_type, result.language, index=result.index,
                           cell_count=result.cell_count)

    async def execute(self, cell_ids: list[str], timeout: float | None = None) -> ExecuteCellsResult:
        """Run cells through the notebook's own machinery (in its own kernel); their outputs come
        back.  ``timeout`` in seconds (default: the bridge's request timeout)."""
        return result_as(ExecuteCellsResult, await self._request(ExecuteCellsArgs(cell_ids=cell_ids), timeout))

    async def reveal(self, cell_id: str) -> None:
        await self._request(RevealCellArgs(cell_id=cell_id))

    async def _request(self, args: OpArgs, timeout: float | None = None) -> Any:
        return await self.bridge.request(self.client, args, timeout, path=self.target)


def _edit_args(edit: CellEdit) -> OpArgs:
    if isinstance(edit, InsertCell):
        cell = NewCell(cell_type=edit.cell_type, source=edit.source)
        return InsertCellsArgs(after_cell_id=edit.after_cell_id, cells=[cell])
    if isinstance(edit, ReplaceCell):
        return ReplaceCellArgs(
            cell_id=edit.cell_id,
            source=edit.source,
            cell_type=edit.cell_type,
            expected_hash=edit.expected_hash,
        )
    assert isinstance(edit, DeleteCell)
    hashes = {edit.cell_id: edit.expected_hash} if edit.expected_hash else {}
    return DeleteCellsArgs(cell_ids=[edit.cell_id], expected_hashes=hashes)
