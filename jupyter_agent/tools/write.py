"""The Write tool: create a file or replace one the agent has read in full, atomically."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..permissions.filesystem import check_write_permission
from ._diff import DiffHunk, diff_texts
from ._paths import resolve_path
from ._text_file import ensure_writable, has_lone_lf, load_current, to_newlines, write_and_record

DIFF_MAX_CHARS = 2_000_000  # above this, an overwrite reports no line diff


class WriteInput(BaseModel):
    file_path: str = Field(description="The absolute path of the file to write (must be absolute, not relative)")
    content: str = Field(description="The content to write to the file")


@dataclass(frozen=True)
class WriteOutput:
    """What Write did; ``hunks`` is the diff against the old content for the UI card."""

    kind: Literal["create", "update"]
    file_path: str
    encoding: str
    hunks: tuple[DiffHunk, ...] = ()

    def to_content(self) -> list[ContentBlock]:
        if self.kind == "create":
            return [text_block(f"File created successfully at: {self.file_path}")]
        return [text_block(f"The file {self.file_path} has been updated successfully.")]


_PROMPT = """Writes a file to the local filesystem, replacing it if it exists.

- file_path must be an absolute path. Missing parent folders are created.
- If the file already exists you must have read it in full with Read first in this
  conversation, and it must not have changed since; otherwise the write is refused.
- Prefer Edit for changing part of an existing file: it sends only the changed text.
- The file keeps its encoding, BOM, line-ending style (CRLF files stay CRLF) and permissions;
  a symlink is written through to its target.
- Do not create documentation or README files unless the user asks for them."""


class WriteTool(Tool[WriteInput, WriteOutput]):
    """Writes a file (create or overwrite)."""

    name = "Write"
    input_schema = WriteInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def get_path(self, input: WriteInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: WriteInput, context: ToolUseContext) -> ValidationResult:
        if input.file_path.endswith(("/", "\\")):
            return ValidationError("file_path names a directory; give the path of a file.")
        return VALID

    async def check_permissions(self, input: WriteInput, context: ToolUseContext) -> PermissionResult:
        return check_write_permission(self, str(resolve_path(input.file_path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None) -> ToolResult[WriteOutput]:
        path = resolve_path(input.file_path, context)
        return ToolResult(await asyncio.to_thread(_write, path, input.content, context))

    def map_result_to_content(self, data: WriteOutput, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()

    def render_tool_result_message(self, output: WriteOutput) -> str:
        added = sum(1 for h in output.hunks for line in h.lines if line.startswith("+"))
        removed = sum(1 for h in output.hunks for line in h.lines if line.startswith("-"))
        return "Created" if output.kind == "create" else f"Updated: +{added} -{removed} lines"


def _write(path, content: str, context: ToolUseContext) -> WriteOutput:
    current = load_current(path, context)
    ensure_writable(current, context, require_full=True)
    fmt, old_text = current.decode()
    # Keep a pure-CRLF file CRLF even when the model writes LF line endings.
    text = to_newlines(content, "\r\n") if fmt.newline == "\r\n" and not has_lone_lf(old_text) else content
    write_and_record(path, fmt.encode(text), context)
    if not current.exists:
        return WriteOutput("create", str(path), fmt.encoding)
    hunks = diff_texts(old_text, text) if len(old_text) + len(text) <= DIFF_MAX_CHARS else []
    return WriteOutput("update", str(path), fmt.encoding, tuple(hunks))
