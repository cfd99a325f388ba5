"""The Read tool: text files (numbered lines), images, PDFs and notebooks, from disk."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.file_state import FileState
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import check_read_permission
from ._paths import deny_guard, read_bytes_nofollow_fifo, regular_file_stat, resolve_path
from ._read_only import ReadOnlyTool
from .read_image import ImageOutput, is_image_path, media_type_for, prepare_image
from .read_notebook import cell_count, read_notebook
from .read_pdf import PdfOutput, parse_pages, read_pdf
from .read_text import UNCHANGED_MESSAGE, TextReadOutput, read_window

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
BUDGET_CHARS = 90_000  # about 25k tokens of file text per call
MAX_IMAGE_BYTES = 50 * 1024 * 1024
MAX_PDF_BYTES = 100 * 1024 * 1024


class ReadInput(BaseModel):
    file_path: str = Field(description="The absolute path of the file to read")
    offset: int | None = Field(None, ge=0, description="The line number to start reading from (1-based). "
                               "Only give it for files too large to read at once")
    limit: int | None = Field(None, ge=1, description="The number of lines to read. "
                              "Only give it for files too large to read at once")
    pages: str | None = Field(None, description='Page range for PDF files, e.g. "1-5" or "3". '
                              "At most 20 pages per call")


@dataclass(frozen=True)
class NotebookOutput:
    file_path: str
    blocks: tuple[Any, ...]

    def to_content(self) -> list[ContentBlock]:
        return list(self.blocks)


@dataclass(frozen=True)
class UnchangedOutput:
    file_path: str

    def to_content(self) -> list[ContentBlock]:
        return [text_block(UNCHANGED_MESSAGE)]


ReadOutput = TextReadOutput | ImageOutput | PdfOutput | NotebookOutput | UnchangedOutput

_PROMPT = """Reads a file from the local filesystem and shows it to you.

- file_path must be an absolute path (relative paths are taken from the working directory).
- Text files come back like `cat -n`: line number, a tab, then the line. By default up to 2000
  lines from the start are returned; lines longer than 2000 characters are cut.
- For big files pass offset (1-based line to start at) and limit (number of lines) to page
  through them; the result tells you when the view is partial and which offset continues it.
  Prefer reading the whole file when it is small.
- Images (png, jpg, gif, webp) are shown to you as images. PDFs return their text per page;
  for PDFs over 20 pages pass pages, e.g. "1-5" (at most 20 pages per call).
- Jupyter notebooks (.ipynb) return every cell with its id, type, source and outputs.
- Binary files, directories and special files (FIFOs, devices) are refused; list a directory
  with Glob or Bash `ls` instead.
- You must Read a file before you Edit or overwrite it with Write.
- Reading several files at once is fine: call Read several times in one turn.
- If a file did not change since you last read the same range, you are told so instead of
  getting the content again."""


class ReadTool(ReadOnlyTool[ReadInput, ReadOutput]):
    """Reads files: text, images, PDFs, notebooks."""

    name = "Read"
    input_schema = ReadInput
    max_result_size_chars = 200_000  # Read bounds its own output; never persist it to a file

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def get_path(self, input: ReadInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: ReadInput, context: ToolUseContext) -> ValidationResult:
        if input.pages is not None:
            if not input.file_path.lower().endswith(".pdf"):
                return ValidationError("pages applies to PDF files only; use offset and limit for text files.")
            try:
                parse_pages(input.pages)
            except ValueError as exc:
                return ValidationError(str(exc))
        return VALID

    async def check_permissions(self, input: ReadInput, context: ToolUseContext) -> PermissionResult:
        return check_read_permission(self, str(resolve_path(input.file_path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None) -> ToolResult[ReadOutput]:
        path = resolve_path(input.file_path, context)
        name = path.name.lower()
        if name.endswith(".ipynb"):
            return ToolResult(NotebookOutput(str(path), tuple(await read_notebook(path, context))))
        if is_image_path(name) or name.endswith(".pdf"):
            return ToolResult(await asyncio.to_thread(_read_media, path, input, context))
        return ToolResult(await _read_text(path, input, context))

    def map_result_to_content(self, data: ReadOutput, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()

    def render_tool_result_message(self, output: ReadOutput) -> str:
        if isinstance(output, TextReadOutput):
            n = len(output.window.lines)
            return f"Read {n} line{'' if n == 1 else 's'}"
        if isinstance(output, PdfOutput):
            return f"Read {len(output.pages)} of {output.total_pages} PDF pages"
        if isinstance(output, NotebookOutput):
            cells = cell_count(output.blocks)
            return "Read notebook" if cells is None else f"Read {cells} cell{'' if cells == 1 else 's'}"
        return "Read image" if isinstance(output, ImageOutput) else "Read"


def _read_media(path: Path, input: ReadInput, context: ToolUseContext) -> ImageOutput | PdfOutput:
    st = regular_file_stat(path)
    cap = MAX_PDF_BYTES if path.name.lower().endswith(".pdf") else MAX_IMAGE_BYTES
    if st.st_size > cap:
        raise ToolError(f"{path} is {st.st_size:,} bytes, over the {cap:,}-byte limit for this file type.")
    data = read_bytes_nofollow_fifo(path, deny_guard(path, context))
    if path.name.lower().endswith(".pdf"):
        out: ImageOutput | PdfOutput = read_pdf(str(path), data, input.pages)
    else:
        out = prepare_image(str(path), data, media_type_for(path.name))
    context.read_file_state.record_read(path, data, mtime_ns=st.st_mtime_ns, size=st.st_size)
    return out


async def _read_text(path: Path, input: ReadInput, context: ToolUseContext) -> TextReadOutput | UnchangedOutput:
    offset = max(1, input.offset or 1)
    limit = input.limit or DEFAULT_LIMIT
    window = await asyncio.to_thread(read_window, path, offset, limit, MAX_LINE_CHARS, BUDGET_CHARS,
                                     deny_guard(path, context))
    full = offset == 1 and not window.more
    cache = context.read_file_state
    prior = cache.get(path)
    # An entry with ``offset`` set came from a Read (writes record offset=None): same range and
    # same content means the model already has this text.
    if (prior is not None and prior.offset == offset and prior.limit == input.limit
            and prior.partial == (not full) and _same_content(prior, window)):
        return UnchangedOutput(str(path))
    # A partial look at a file already read in full (and unchanged) keeps the full entry.
    if full or prior is None or prior.partial or not _same_content(prior, window):
        cache.set(FileState(path=os.fspath(path), content_hash=window.file_hash, mtime_ns=window.mtime_ns,
                            size=window.size, partial=not full, offset=offset, limit=input.limit))
    return TextReadOutput(str(path), window, offset)


def _same_content(prior: FileState, window) -> bool:
    if prior.content_hash is not None and window.file_hash is not None:
        return prior.content_hash == window.file_hash
    return prior.mtime_ns == window.mtime_ns and prior.size == window.size
