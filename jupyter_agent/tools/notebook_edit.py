"""The NotebookEdit tool: replace, insert or delete one cell of a Jupyter notebook.

Edits go to the live notebook when the kernel's frontend has it open (instantly visible, one
undo step, never clobbering unsaved work), else to the ``.ipynb`` on disk.  Both are guarded
by the FileStateCache: the notebook must have been read; on disk the whole file must be as
read, live the target cell's source must be as read (checked again by the frontend).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..core.atomic import WriteTargetMoved
from ..core.context import ToolUseContext, ToolUseOptions
from ..core.file_state import NOT_READ_MESSAGE, PARTIAL_READ_MESSAGE, FileState, content_hash
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import ChangePreview
from ..errors import StaleFileError, ToolError
from ..notebook import (
    CellEdit,
    DeleteCell,
    DiskNotebook,
    EditApplied,
    InsertCell,
    NotebookDocument,
    NotebookEditError,
    ReplaceCell,
    get_document,
)
from ..permissions.filesystem import check_write_permission
from ._notebook_tool import NotebookTool, notebook_path
from ._paths import recheck_write, resolve_path

EditMode = Literal["replace", "insert", "delete"]


class NotebookEditInput(BaseModel):
    notebook_path: str = Field(
        description="The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"
    )
    cell_id: str | None = Field(
        None,
        description="The ID of the cell to edit. When inserting a new cell, the new cell will be "
        "inserted after the cell with this ID, or at the beginning if not specified.",
    )
    new_source: str = Field(description="The new source for the cell")
    cell_type: Literal["code", "markdown"] | None = Field(
        None,
        description="The type of the cell (code or markdown). If not specified, it defaults to the "
        "current cell type. If using edit_mode=insert, this is required.",
    )
    edit_mode: EditMode | None = Field(
        None, description="The type of edit to make (replace, insert, delete). Defaults to replace."
    )


@dataclass(frozen=True)
class NotebookEditOutput:
    notebook_path: str
    cell_id: str
    new_source: str
    cell_type: str | None
    language: str
    edit_mode: EditMode
    backend: Literal["live", "disk"]
    # for people (the card's line; the model is told the id): the cell's number and the notebook's
    # count of cells — before a delete, after an insert
    position: tuple[int, int] | None = None

    def to_content(self) -> list[ContentBlock]:
        if self.edit_mode == "delete":
            return [text_block(f"Deleted cell {self.cell_id}")]
        verb = "Inserted" if self.edit_mode == "insert" else "Updated"
        return [text_block(f"{verb} cell {self.cell_id} with {self.new_source}")]


@dataclass(frozen=True)
class _Plan:
    path: Path
    doc: NotebookDocument
    state: FileState
    edit: CellEdit
    base: bytes | None


_PROMPT = """Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file) with new source. Jupyter notebooks are interactive documents that combine code, text, and visualizations, commonly used for data analysis and scientific computing. The notebook_path parameter must be an absolute path, not a relative path. The cell_id identifies the cell to edit (the ids are shown when you Read the notebook). Use edit_mode=insert to add a new cell after the cell with cell_id (at the beginning when cell_id is not given); insert requires cell_type. Use edit_mode=delete to delete the cell with cell_id.

- You must Read the notebook before editing it. If the user changed a cell since your Read, the edit is refused: Read the notebook again.
- When the notebook is open in JupyterLab, the edit goes straight into the open notebook (the user sees it at once and can undo it with Ctrl+Z); otherwise the .ipynb file is changed on disk.
- Replacing a code cell's source clears its outputs and execution count."""

_STALE_CELL = (
    "Cell {cell_id} has been modified since read, either by the user or by a linter. "
    "Read the notebook again before attempting to edit it."
)


class NotebookEditTool(NotebookTool[NotebookEditInput, NotebookEditOutput]):
    """Replace, insert or delete a cell of a Jupyter notebook."""

    name = "NotebookEdit"
    input_schema = NotebookEditInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def is_destructive(self, input: NotebookEditInput) -> bool:
        return input.edit_mode == "delete"

    async def plan(self, input: NotebookEditInput, context: ToolUseContext) -> _Plan:
        return await _plan(input, context)

    async def change_preview(self, input: NotebookEditInput, context: ToolUseContext) -> ChangePreview | None:
        """The cell as it is now (live, or on disk) and as it would be, and where it is (``cell 3
        of 12 [5]: …``, the cell a new one goes after): the approval card shows the diff under
        that line, where the input alone has only the new source and a cell id."""
        mode = input.edit_mode or "replace"
        if mode != "insert" and not input.cell_id:
            return None
        from .read_notebook import describe_cell, parse_cells

        path = notebook_path(input.notebook_path, context, "")
        doc = await get_document(path, context)
        cells = parse_cells(await doc.read_bytes(), str(path))
        index = next((i for i, c in enumerate(cells) if c.cell_id == input.cell_id), None)
        if mode == "insert":
            return ChangePreview("", input.new_source, describe_cell(cells, index) if index is not None else None)
        if index is None:
            return None
        after = "" if mode == "delete" else input.new_source
        return ChangePreview(cells[index].source, after, describe_cell(cells, index))

    async def check_permissions(self, input: NotebookEditInput, context: ToolUseContext) -> PermissionResult:
        return check_write_permission(self, str(resolve_path(input.notebook_path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        real = recheck_write(resolve_path(input.notebook_path, context), context)  # a link changed since the check
        plan = await self.plan(input, context)
        doc = DiskNotebook(real, pinned=True) if plan.doc.backend == "disk" else plan.doc
        try:
            applied = await doc.apply(plan.edit, base=plan.base)
        except WriteTargetMoved as exc:
            raise ToolError(f"{exc} Try again to have the new target checked.") from None
        except NotebookEditError as exc:
            if exc.name == "stale_cell" and plan.doc.backend == "live":
                raise StaleFileError(_STALE_CELL.format(cell_id=_target(plan.edit))) from None
            raise
        _record(context, plan, applied)
        mode: EditMode = input.edit_mode or "replace"
        return ToolResult(
            NotebookEditOutput(
                notebook_path=str(plan.path),
                cell_id=applied.cell_id,
                new_source=input.new_source,
                cell_type=applied.cell_type,
                language=applied.language,
                edit_mode=mode,
                backend=plan.doc.backend,
                position=_position(applied, mode),
            )
        )

    def render_tool_result_message(self, output: NotebookEditOutput) -> str:
        where = "open notebook" if output.backend == "live" else "file on disk"
        kind = f"{output.cell_type} " if output.cell_type and output.edit_mode != "delete" else ""
        if output.position is not None:  # `Replace code cell 3 of 12`: where you find it
            number, count = output.position
            return f"{output.edit_mode.capitalize()} {kind}cell {number} of {count} ({where})"
        cell = output.cell_id if len(output.cell_id) <= 12 else output.cell_id[:8] + "…"  # JupyterLab's are UUIDs
        return f"{output.edit_mode.capitalize()} {kind}cell {cell} ({where})"


async def _plan(input: NotebookEditInput, context: ToolUseContext) -> _Plan:
    """Every check that can fail before the edit, and the typed edit to apply."""
    path = notebook_path(input.notebook_path, context, "For editing other file types, use the Edit tool.")
    mode: EditMode = input.edit_mode or "replace"
    if mode == "insert" and input.cell_type is None:
        raise ToolError("Cell type is required when using edit_mode=insert.")
    if mode != "insert" and not input.cell_id:
        raise ToolError("Cell ID must be specified when not inserting a new cell.")
    doc = await get_document(path, context)
    base = await doc.read_bytes() if doc.backend == "disk" else None
    state = _read_state(context, path, base)
    expected = None
    if doc.backend == "live" and mode != "insert":
        expected = (state.cell_hashes or {}).get(input.cell_id or "")
        if expected is None:
            raise StaleFileError(
                f'Cell "{input.cell_id}" is not in the notebook as you last read it. '
                "Read the notebook again before editing it."
            )
    return _Plan(path, doc, state, _edit(input, mode, expected), base)


def _read_state(context: ToolUseContext, path: Path, base: bytes | None) -> FileState:
    cache = context.read_file_state
    state = cache.get(path)
    if state is None or state.cell_hashes is None:
        raise StaleFileError(NOT_READ_MESSAGE)
    if state.partial:
        raise StaleFileError(PARTIAL_READ_MESSAGE)
    if base is not None:
        message = cache.check_writable(path, base)
        if message:
            raise StaleFileError(message)
    return state


def _edit(input: NotebookEditInput, mode: EditMode, expected: str | None) -> CellEdit:
    if mode == "insert":
        assert input.cell_type is not None
        return InsertCell(input.cell_id, input.cell_type, input.new_source)
    assert input.cell_id is not None
    if mode == "delete":
        return DeleteCell(input.cell_id, expected)
    return ReplaceCell(input.cell_id, input.new_source, input.cell_type, expected)


def _position(applied: EditApplied, mode: EditMode) -> tuple[int, int] | None:
    """(the cell's number from 1, the notebook's cells) as people count them: a deleted cell is
    counted among the cells it was in."""
    if applied.index is None or applied.cell_count is None:
        return None
    count = applied.cell_count + (1 if mode == "delete" else 0)
    return applied.index + 1, count


def _target(edit: CellEdit) -> str:
    return edit.after_cell_id or "" if isinstance(edit, InsertCell) else edit.cell_id


def _record(context: ToolUseContext, plan: _Plan, applied: EditApplied) -> None:
    """The agent has seen its own edit: a following edit must not be refused as stale."""
    cache = context.read_file_state
    if applied.notebook_bytes is not None:
        cache.record_write(plan.path, applied.notebook_bytes, cell_hashes=applied.cell_hashes)
        return
    state = cache.get(plan.path) or plan.state
    hashes = dict(state.cell_hashes or {})
    edit = plan.edit
    if isinstance(edit, DeleteCell):
        hashes.pop(edit.cell_id, None)
        hashes.pop(applied.cell_id, None)
    else:
        hashes[applied.cell_id] = content_hash(edit.source)
    cache.set(replace(state, cell_hashes=hashes))
