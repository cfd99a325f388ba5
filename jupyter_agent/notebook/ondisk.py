"""The on-disk backend: the ``.ipynb`` file through nbformat, for when no frontend answers.

Every write is validated first (nbformat's schema plus cell-id uniqueness, which nbformat only
warns about), then written atomically; a file that is not valid notebook JSON is never touched.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.atomic import atomic_write_bytes
from ..core.background_import import import_in_background
from ..core.file_state import MODIFIED_MESSAGE
from .cells import cell_hashes, duplicate_ids, find_cell, new_cell_id, notebook_language
from .document import Backend, CellEdit, DeleteCell, EditApplied, InsertCell, NotebookEditError, ReplaceCell

WARM_UP_THREAD = "jupyter-agent-nbformat"


def warm_up() -> None:
    """Import nbformat on a daemon thread.  Where JupyterLab's format checkers are installed
    that import takes 2-3 s (jsonschema builds a grammar); a Read of a notebook on disk calls
    this, so the edit that usually follows does not wait for it."""
    import_in_background("nbformat", WARM_UP_THREAD)


class DiskNotebook:
    """A notebook file on disk."""

    backend: Backend = "disk"

    def __init__(self, path: str | Path, *, pinned: bool = False) -> None:
        self.path = str(path)
        self.pinned = pinned  # a checked real path: the write lands there or nowhere (core.atomic)

    async def read_bytes(self) -> bytes:
        return await asyncio.to_thread(_read, self.path)

    async def read_json(self) -> dict[str, Any]:
        return _parse(await self.read_bytes())

    async def apply(self, edit: CellEdit, *, base: bytes | None = None) -> EditApplied:
        return await asyncio.to_thread(apply_to_file, self.path, edit, base, self.pinned)


def apply_to_file(path: str, edit: CellEdit, base: bytes | None, pinned: bool = False) -> EditApplied:
    """Read, check against ``base``, edit, validate, write atomically.  Runs in a thread."""
    raw = _read(path)
    if base is not None and raw != base:
        raise NotebookEditError("stale_cell", MODIFIED_MESSAGE)
    nb = _parse(raw)
    _validate(nb, before=True)
    applied = apply_edit(nb, edit)
    _validate(nb, before=False)
    data = serialize(nb)
    atomic_write_bytes(path, data, pinned=pinned)
    return replace(applied, notebook_bytes=data, cell_hashes=cell_hashes(nb["cells"]))


def apply_edit(nb: dict[str, Any], edit: CellEdit) -> EditApplied:
    """Apply ``edit`` to the nbformat dict ``nb`` in place (Claude Code's NotebookEdit semantics)."""
    cells: list[dict[str, Any]] = nb.setdefault("cells", [])
    language = notebook_language(nb)
    if isinstance(edit, InsertCell):
        index = 0 if edit.after_cell_id is None else _index(cells, edit.after_cell_id) + 1
        cell = _new_cell(edit.cell_type, edit.source, nb)
        cells.insert(index, cell)
        return EditApplied(str(cell.get("id") or f"cell-{index}"), edit.cell_type, language, index=index,
                           cell_count=len(cells))
    index = _index(cells, edit.cell_id)
    cell = cells[index]
    cid = str(cell.get("id") or f"cell-{index}")
    if isinstance(edit, DeleteCell):
        del cells[index]
        return EditApplied(cid, cell.get("cell_type"), language, index=index, cell_count=len(cells))
    assert isinstance(edit, ReplaceCell)
    cell["source"] = edit.source
    if edit.cell_type is not None:
        cell["cell_type"] = edit.cell_type
    if cell["cell_type"] == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)
    return EditApplied(cid, cell["cell_type"], language, index=index, cell_count=len(cells))


def serialize(nb: dict[str, Any]) -> bytes:
    """nbformat's own serialization: indent 1, sources as lists of lines, trailing newline."""
    import nbformat

    return nbformat.writes(nbformat.from_dict(nb), version=nbformat.NO_CONVERT).encode("utf-8")


def _new_cell(cell_type: str, source: str, nb: dict[str, Any]) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": cell_type, "metadata": {}, "source": source}
    if (nb.get("nbformat"), nb.get("nbformat_minor", 0)) >= (4, 5):
        cell = {"id": new_cell_id(nb["cells"]), **cell}
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _index(cells: list[dict[str, Any]], cell_id: str) -> int:
    index = find_cell(cells, cell_id)
    if index is None:
        raise NotebookEditError("not_found", f'Cell with ID "{cell_id}" not found in notebook.')
    return index


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise NotebookEditError("not_found", "Notebook file does not exist.") from None
    except IsADirectoryError:
        raise NotebookEditError("bad_request", f"{path} is a directory, not a notebook.") from None


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        nb = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise NotebookEditError("bad_request", "Notebook is not valid JSON.") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookEditError("bad_request", "Notebook is not valid JSON: it has no cell list.")
    return nb


def _validate(nb: dict[str, Any], *, before: bool) -> None:
    import nbformat

    if nb.get("nbformat") != 4:
        raise NotebookEditError(
            "bad_request",
            f"Only nbformat 4 notebooks can be edited (this one is version {nb.get('nbformat')}).",
        )
    dups = duplicate_ids(nb["cells"])
    if dups:
        raise NotebookEditError(
            "bad_request",
            f"The notebook has duplicate cell ids ({', '.join(dups)}), so edits by id are ambiguous. "
            "It was left unchanged; ask the user to fix the ids, then Read it again.",
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # missing-id warnings: such cells are addressed as cell-N
            nbformat.validate(nb)  # ids were checked above, so its duplicate-id "repair" never runs
    except nbformat.ValidationError as exc:
        what = "is not a valid notebook" if before else "would not be a valid notebook after this edit"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotebookEditError("bad_request", f"The file {what} ({first}); it was left unchanged.") from None
