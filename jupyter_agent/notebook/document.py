"""The notebook document abstraction: typed edits, their outcome, and the backend interface.

Two backends implement ``NotebookDocument``: ``live.LiveNotebook`` (the open notebook, through
the labextension's comm) and ``ondisk.DiskNotebook`` (the ``.ipynb`` file, through nbformat).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, Union

from ..errors import ToolError

Backend = Literal["live", "disk"]
CellType = Literal["code", "markdown", "raw"]


@dataclass(frozen=True)
class InsertCell:
    """Insert a new cell after ``after_cell_id`` (at the top when None)."""

    after_cell_id: str | None
    cell_type: CellType
    source: str


@dataclass(frozen=True)
class ReplaceCell:
    """Replace a cell's source (and maybe its type); ``expected_hash`` guards the user's edits."""

    cell_id: str
    source: str
    cell_type: CellType | None = None
    expected_hash: str | None = None


@dataclass(frozen=True)
class DeleteCell:
    cell_id: str
    expected_hash: str | None = None


CellEdit = Union[InsertCell, ReplaceCell, DeleteCell]


@dataclass(frozen=True)
class EditApplied:
    """What an edit did: the cell it touched (its real id), its type, the notebook's language."""

    cell_id: str
    cell_type: CellType | None
    language: str
    notebook_bytes: bytes | None = None  # the new file (disk backend only)
    cell_hashes: Mapping[str, str] | None = None  # every cell's hash after the edit (disk only)
    index: int | None = None  # where the cell is (was, for a delete), counted from 0
    cell_count: int | None = None  # the notebook's cells after the edit


class NotebookEditError(ToolError):
    """An edit the backend refused; ``name`` is the protocol's error name."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name
        self.message = message


class NotebookDocument(Protocol):
    """One notebook, wherever it lives."""

    backend: Backend
    path: str

    async def read_json(self) -> dict[str, Any]:
        """The notebook as nbformat JSON (the live model, unsaved edits included, or the file)."""
        ...

    async def read_bytes(self) -> bytes:
        """The notebook serialized as the Read tool sees it (file bytes, or the live JSON)."""
        ...

    async def apply(self, edit: CellEdit, *, base: bytes | None = None) -> EditApplied:
        """Apply one edit; ``base`` is the file content the caller checked (disk backend)."""
        ...
