"""The Edit tool: exact string replacement in a file the agent has read, atomically.

Staleness: Edit needs a prior Read, but a partial one (offset/limit) is enough.  That is safe
because Edit never writes text the model has not chosen: it replaces one exact ``old_string``
(which must still be in the file, once) and the FileStateCache compares the whole file's hash
from the time of the Read (files over 64 MB: mtime and size), so any change since is caught.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionResult
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import check_write_permission
from ._diff import DiffHunk, edit_hunks, unified_diff_text
from ._paths import resolve_path
from ._replace import Replacement, apply_edit
from ._text_file import ensure_writable, load_current, write_and_record

SNIPPET_CONTEXT = 4
SNIPPET_MAX_LINES = 40


class EditInput(BaseModel):
    file_path: str = Field(description="The absolute path of the file to modify")
    old_string: str = Field(description="The text to replace (exactly as it is in the file)")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(False, description="Replace every occurrence of old_string (default false)")


@dataclass(frozen=True)
class EditOutput:
    """What Edit did: the structured diff for the UI card and a snippet of the result for the model."""

    file_path: str
    replacements: int
    hunks: tuple[DiffHunk, ...]
    snippet: str  # ``cat -n`` lines around the first change, in the new file
    created: bool = False

    @property
    def unified_diff(self) -> str:
        return unified_diff_text(self.file_path, self.hunks)

    def to_content(self) -> list[ContentBlock]:
        if self.created:
            return [text_block(f"File created successfully at: {self.file_path}")]
        head = f"The file {self.file_path} has been updated."
        if self.replacements > 1:
            head += f" All {self.replacements} occurrences were replaced."
        return [text_block(f"{head} Here is the result of running `cat -n` on a snippet of the "
                           f"edited file:\n{self.snippet}")]


_PROMPT = """Performs an exact string replacement in a file.

- You must Read the file first in this conversation (a partial read is enough); the edit is
  refused if the file changed since you read it. Read it again in that case.
- old_string must match the file exactly, including indentation and whitespace. When copying
  from Read output, leave out the line-number prefix (number and tab); only the text after
  the tab is file content.
- The edit fails if old_string is not found, or if it occurs more than once and replace_all is
  false: then add surrounding lines to old_string to make it unique, or set replace_all to
  replace every occurrence (useful for renaming a variable).
- new_string is inserted literally ($1, \\1 and the like are not special).
- The file keeps its encoding, BOM, line endings (CRLF files stay CRLF even when your strings
  use plain newlines) and permissions.
- Use NotebookEdit for .ipynb files. Prefer editing existing files to creating new ones."""


class EditTool(Tool[EditInput, EditOutput]):
    """Replaces exact text in a file."""

    name = "Edit"
    input_schema = EditInput

    async def prompt(self, options: ToolUseOptions) -> str:
        return _PROMPT

    def get_path(self, input: EditInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: EditInput, context: ToolUseContext) -> ValidationResult:
        if input.file_path.lower().endswith(".ipynb"):
            return ValidationError("This is a Jupyter notebook; use NotebookEdit to change its cells.")
        if input.old_string == input.new_string:
            return ValidationError("No changes to make: old_string and new_string are exactly the same.")
        return VALID

    async def check_permissions(self, input: EditInput, context: ToolUseContext) -> PermissionResult:
        return check_write_permission(self, str(resolve_path(input.file_path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None) -> ToolResult[EditOutput]:
        path = resolve_path(input.file_path, context)
        return ToolResult(await asyncio.to_thread(_edit, path, input, context))

    def map_result_to_content(self, data: EditOutput, tool_use_id: str) -> list[ContentBlock]:
        return data.to_content()

    def render_tool_result_message(self, output: EditOutput) -> str:
        added = sum(1 for h in output.hunks for line in h.lines if line.startswith("+"))
        removed = sum(1 for h in output.hunks for line in h.lines if line.startswith("-"))
        return f"Edited: +{added} -{removed} lines"


def _edit(path, input: EditInput, context: ToolUseContext) -> EditOutput:
    current = load_current(path, context)
    if not current.exists:
        if input.old_string:
            raise ToolError(f"File does not exist: {path}. To create it, use Write (or Edit with old_string \"\").")
        write_and_record(path, input.new_string.encode("utf-8"), context)
        return EditOutput(str(path), 1, (), "", created=True)
    ensure_writable(current, context, require_full=False)
    fmt, text = current.decode()
    if input.old_string == "" and text == "":
        rep = Replacement(input.new_string, (0,), 0, len(input.new_string))
    else:
        rep = apply_edit(text, input.old_string, input.new_string, replace_all=input.replace_all)
    write_and_record(path, fmt.encode(rep.text), context)
    hunks = edit_hunks(text, rep.text, rep.starts, rep.old_len, rep.new_len)
    return EditOutput(str(path), len(rep.starts), tuple(hunks), _snippet(rep))


def _snippet(rep: Replacement) -> str:
    """Numbered lines of the new text around the first replacement."""
    text, start = rep.text, rep.starts[0]
    first = text.count("\n", 0, start)  # 0-based line of the first change
    span = text.count("\n", start, start + rep.new_len)
    lo = max(0, first - SNIPPET_CONTEXT)
    count = min(first + span + SNIPPET_CONTEXT, lo + SNIPPET_MAX_LINES - 1) - lo + 1
    pos = text.rfind("\n", 0, start) + 1
    for _ in range(first - lo):
        pos = text.rfind("\n", 0, pos - 1) + 1
    lines: list[str] = []
    while len(lines) < count and pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        lines.append(text[pos:end].rstrip("\r"))
        pos = end + 1
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start=lo + 1))
