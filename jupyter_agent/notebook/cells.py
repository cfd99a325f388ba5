"""Pure helpers on nbformat cells: source text, addressing by id, per-cell hashes, new ids."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.file_state import content_hash

_INDEX_ID = re.compile(r"^cell-(\d+)$")


def source_text(cell: Mapping[str, Any]) -> str:
    """A cell's source as one string (nbformat stores a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def cell_key(cell: Mapping[str, Any], index: int) -> str:
    """The id the model sees: the cell's id, or ``cell-<index>`` for notebooks without ids."""
    return str(cell.get("id") or f"cell-{index}")


def find_cell(cells: Sequence[Mapping[str, Any]], cell_id: str) -> int | None:
    """The index of the cell with ``cell_id`` (or ``cell-N``, the N-th cell); None if absent."""
    for i, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return i
    match = _INDEX_ID.match(cell_id)
    if match and int(match.group(1)) < len(cells):
        return int(match.group(1))
    return None


def cell_hashes(cells: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """``{cell id: content_hash(source)}`` — what the FileStateCache keeps of a notebook read."""
    return {cell_key(c, i): content_hash(source_text(c)) for i, c in enumerate(cells)}


def duplicate_ids(cells: Sequence[Mapping[str, Any]]) -> list[str]:
    """Cell ids used more than once (nbformat only warns about these)."""
    seen: set[str] = set()
    dups: list[str] = []
    for cell in cells:
        cid = cell.get("id")
        if cid is None:
            continue
        if cid in seen and cid not in dups:
            dups.append(str(cid))
        seen.add(str(cid))
    return dups


def new_cell_id(existing: Sequence[Mapping[str, Any]]) -> str:
    """A fresh nbformat-style id (8 hex characters) not used by any cell."""
    taken = {c.get("id") for c in existing}
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def notebook_language(nb: Mapping[str, Any]) -> str:
    meta = nb.get("metadata") or {}
    info = meta.get("language_info") or {}
    spec = meta.get("kernelspec") or {}
    return str(info.get("name") or spec.get("language") or "python")
