"""Read of a ``.ipynb`` from disk: every cell with its id, type, source and (trimmed) outputs.

``read_notebook(path, context)`` is the single entry point.  It records the read in the
FileStateCache with the file's bytes *and* per-cell hashes (``content_hash(source)`` by cell
id), which NotebookEdit checks before it changes a cell.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..core.file_state import content_hash
from ..core.result import ContentBlock, text_block
from ..errors import ToolError
from ..notebook import live_notebook_bytes
from ..notebook.ondisk import warm_up
from ._paths import deny_guard, read_bytes_nofollow_fifo, regular_file_stat
from .read_image import prepare_image

MAX_OUTPUT_CHARS = 2_000  # per text output
MAX_IMAGES = 20
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass(frozen=True)
class NotebookCell:
    """One cell as the model sees it."""

    cell_id: str
    cell_type: str
    source: str
    execution_count: int | None
    outputs: tuple[Any, ...]


async def read_notebook(path: str | os.PathLike[str], context: ToolUseContext) -> list[ContentBlock]:
    """Content blocks for the whole notebook at ``path``; records the read with cell hashes."""
    p = Path(path)
    st = await asyncio.to_thread(regular_file_stat, p)
    # The notebook open in JupyterLab is read live (unsaved edits included); others from disk.
    data = await live_notebook_bytes(p, context)
    if not data:  # not open in the frontend: an edit would go to the file, through nbformat
        data = await asyncio.to_thread(read_bytes_nofollow_fifo, p, deny_guard(p, context))
        warm_up()
    cells = await asyncio.to_thread(parse_cells, data, str(p))
    context.read_file_state.record_read(
        p, data, mtime_ns=st.st_mtime_ns, size=st.st_size,
        offset=1, limit=None,  # offset set: this entry came from a Read (see read.py)
        cell_hashes={c.cell_id: content_hash(c.source) for c in cells},
    )
    return render_cells(str(p), cells)


def parse_cells(data: bytes, name: str) -> list[NotebookCell]:
    """Cells of the notebook in ``data``; ids are the notebook's, or ``cell-<index>`` when absent.

    An nbformat 4 notebook is read as the JSON it is: reading needs no schema, and nbformat's
    validator costs seconds to import where JupyterLab's extra format checkers are installed
    (the first Read of a notebook in a kernel waited for it).  Older versions go through
    nbformat's conversion."""
    try:
        nb = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ToolError(f"{name} is not a valid Jupyter notebook: {exc}") from None
    if not isinstance(nb, dict):
        raise ToolError(f"{name} is not a valid Jupyter notebook: the JSON is not an object")
    if nb.get("nbformat") != 4:
        nb = _converted(data, name)
    raw_cells = nb.get("cells")
    cells = []
    for i, cell in enumerate(raw_cells if isinstance(raw_cells, list) else []):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        outputs = cell.get("outputs")
        cells.append(NotebookCell(
            cell_id=str(cell.get("id") or f"cell-{i}"),
            cell_type=str(cell.get("cell_type", "code")),
            source="".join(map(str, source)) if isinstance(source, list) else str(source or ""),
            execution_count=cell.get("execution_count"),
            outputs=tuple(o for o in outputs if isinstance(o, dict)) if isinstance(outputs, list) else (),
        ))
    return cells


def describe_cell(cells: list[NotebookCell], index: int, limit: int = 48) -> str:
    """A cell as people find it in the notebook, not by its id: ``cell 3 of 12 [5]: df = …``
    (its place, its execution count or type, its first non-blank line)."""
    cell = cells[index]
    if cell.cell_type == "code":
        kind = f"[{cell.execution_count}]" if isinstance(cell.execution_count, int) else "[ ]"
    else:
        kind = f"({cell.cell_type})"
    line = next((ln.strip() for ln in cell.source.splitlines() if ln.strip()), "")
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return f"cell {index + 1} of {len(cells)} {kind}: {line}" if line else f"cell {index + 1} of {len(cells)} {kind} (empty)"


def _converted(data: bytes, name: str) -> dict[str, Any]:
    import nbformat

    try:
        return dict(nbformat.reads(data.decode("utf-8-sig"), as_version=4))
    except Exception as exc:  # nbformat raises many kinds (JSON, validation, version)
        raise ToolError(f"{name} is not a valid Jupyter notebook: {exc}") from None


class OutputBlocks:
    """Builds content blocks: text parts joined, each image output as its own block, in order."""

    def __init__(self, heading: str) -> None:
        self.blocks: list[ContentBlock] = []
        self.parts: list[str] = [heading]
        self.images = 0

    def text(self, part: str) -> None:
        self.parts.append(part)

    def outputs(self, cell_id: str, outputs: Any) -> None:
        """A cell's outputs: text trimmed, images as image blocks (at most ``MAX_IMAGES``)."""
        for out in _merged_streams(outputs):
            text, image = _output_parts(out)
            if text:
                self.parts.append(f'<output cell="{cell_id}">\n{text}\n</output>')
            if image is None:
                continue
            if self.images >= MAX_IMAGES:
                self.parts.append(f'<output cell="{cell_id}">(image omitted: too many images)</output>')
                continue
            self._flush()
            self.blocks.extend(image)
            self.images += 1

    def done(self) -> list[ContentBlock]:
        self._flush()
        return self.blocks

    def _flush(self) -> None:
        if self.parts:
            self.blocks.append(text_block("\n\n".join(self.parts)))
            self.parts = []


_HEADING = re.compile(r"Notebook .*: (\d+) cells\Z")


def render_cells(name: str, cells: list[NotebookCell]) -> list[ContentBlock]:
    """Text per cell (id, type, source, text outputs) with image outputs as image blocks."""
    out = OutputBlocks(f"Notebook {name}: {len(cells)} cells")
    for cell in cells:
        count = f" execution_count={cell.execution_count}" if cell.execution_count is not None else ""
        out.text(f'<cell id="{cell.cell_id}" type="{cell.cell_type}"{count}>\n{cell.source}\n</cell>')
        out.outputs(cell.cell_id, cell.outputs)
    return out.done()


def cell_count(blocks: Sequence[Any]) -> int | None:
    """How many cells ``render_cells`` listed (its heading says), for the card's one line."""
    first = blocks[0] if blocks else None
    text = first.get("text") if isinstance(first, dict) else None
    match = _HEADING.match(text.split("\n", 1)[0]) if isinstance(text, str) else None
    return int(match.group(1)) if match else None


def _merged_streams(outputs: Any) -> list[Any]:
    """Consecutive stream outputs of one stream as one, as JupyterLab shows them: a kernel may
    send one ``print`` in several pieces (how it is cut depends on when it flushes)."""
    merged: list[Any] = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (isinstance(out, dict) and isinstance(last, dict) and out.get("output_type") == "stream"
                and last.get("output_type") == "stream" and out.get("name") == last.get("name")):
            merged[-1] = {**last, "text": _join(last.get("text", "")) + _join(out.get("text", ""))}
        else:
            merged.append(out)
    return merged


def _output_parts(out: Any) -> tuple[str, list[ContentBlock] | None]:
    kind = out.get("output_type")
    if kind == "stream":
        return _trim(_join(out.get("text", ""))), None
    if kind == "error":
        tb = "\n".join(_join(line) for line in out.get("traceback", []))
        return _trim(_ANSI.sub("", tb) or f"{out.get('ename')}: {out.get('evalue')}"), None
    data = out.get("data", {}) or {}
    for mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
        if mime in data:
            try:
                raw = base64.b64decode(_join(data[mime]))
                return _trim(_join(data.get("text/plain", ""))), prepare_image("output", raw, mime).to_content()
            except (ToolError, ValueError):
                return "(unreadable image output)", None
    return _trim(_join(data.get("text/plain", ""))), None


def _join(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _trim(text: str) -> str:
    text = _ANSI.sub("", text)
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n… [output trimmed: {len(text) - MAX_OUTPUT_CHARS:,} more characters]"
