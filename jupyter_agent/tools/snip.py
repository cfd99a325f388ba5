"""Snip (flag ``snip_tool``): named snippets (a file's line range or a notebook cell, with origin).

The store lives in ``AppState.extra["snippets"]`` and is saved atomically to
``<session_dir>/snippets.json`` after each capture or delete, so it survives a kernel restart
of the same session.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Literal

import nbformat
from pydantic import BaseModel, Field

from ..core.atomic import atomic_write_text
from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import check_read_permission
from ._paths import resolve_path

STATE_KEY = "snippets"
MAX_SNIPPET_CHARS = 50_000


class Snippet(BaseModel):
    name: str
    origin: str  # "path:12-30" or "path#cell=<id>"
    language: str = ""
    text: str
    captured_at: float


class SnipInput(BaseModel):
    action: Literal["capture", "list", "get", "delete"] = Field(
        description="capture a new snippet, list all, get one by name, or delete one"
    )
    name: str | None = Field(None, description="The snippet's name (capture, get, delete)")
    file_path: str | None = Field(None, description="The file (or .ipynb notebook) to capture from")
    start_line: int | None = Field(None, ge=1, description="First line to capture (1-based; default 1)")
    end_line: int | None = Field(None, ge=1, description="Last line to capture (inclusive; default: end of file)")
    cell_id: str | None = Field(None, description="For a notebook: the cell id, or its 0-based index")


def _store_path(context: ToolUseContext) -> Path:
    return context.session_dir / "snippets.json"


def load_snippets(context: ToolUseContext) -> dict[str, Snippet]:
    """The session's snippets (read from disk the first time)."""
    value = context.get_app_state().extra.get(STATE_KEY)
    if isinstance(value, dict):
        return value
    found: dict[str, Snippet] = {}
    path = _store_path(context)
    try:
        for raw in json.loads(path.read_text(encoding="utf-8")):
            snippet = Snippet.model_validate(raw)
            found[snippet.name] = snippet
    except (OSError, ValueError):
        found = {}
    _set(context, found)
    return found


def _set(context: ToolUseContext, snippets: dict[str, Snippet]) -> None:
    context.set_app_state(lambda s: replace(s, extra={**s.extra, STATE_KEY: snippets}))


async def _save(context: ToolUseContext, snippets: dict[str, Snippet]) -> None:
    _set(context, snippets)
    data = json.dumps([s.model_dump() for s in snippets.values()], ensure_ascii=False, indent=1)
    await asyncio.to_thread(atomic_write_text, _store_path(context), data)


def _language(path: Path) -> str:
    return {".py": "python", ".ipynb": "python", ".js": "javascript", ".ts": "typescript",
            ".sh": "bash", ".md": "markdown", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
            ".sql": "sql", ".r": "r", ".jl": "julia"}.get(path.suffix.lower(), "")


def _cell(path: Path, cell_id: str) -> tuple[str, str]:
    nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.get("id") == cell_id or str(index) == cell_id:
            return cell.get("id", str(index)), cell.source
    ids = ", ".join(c.get("id", str(i)) for i, c in enumerate(nb.cells)) or "none"
    raise ToolError(f"No cell {cell_id!r} in {path}. Cells: {ids}.")


def _lines(path: Path, start: int | None, end: int | None) -> tuple[str, str]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    first, last = start or 1, min(end or len(lines), len(lines))
    if first > len(lines):
        raise ToolError(f"{path} has only {len(lines)} lines; start_line {first} is past the end.")
    return f"{first}-{last}", "\n".join(lines[first - 1 : last])


def capture(path: Path, input: SnipInput) -> Snippet:
    if not path.is_file():
        raise ToolError(f"File does not exist: {path}")
    if input.cell_id is not None:
        cell, text = _cell(path, input.cell_id)
        origin = f"{path}#cell={cell}"
    else:
        span, text = _lines(path, input.start_line, input.end_line)
        origin = f"{path}:{span}"
    if len(text) > MAX_SNIPPET_CHARS:
        raise ToolError(f"The snippet is {len(text):,} characters; capture at most {MAX_SNIPPET_CHARS:,} (a smaller range).")
    return Snippet(name=input.name or "", origin=origin, language=_language(path), text=text, captured_at=time.time())


def format_snippet(s: Snippet) -> str:
    return f"Snippet {s.name!r} from {s.origin}:\n```{s.language}\n{s.text}\n```"


class SnipTool(Tool[SnipInput, str]):
    """Keep named snippets of code or text for reuse in this session.

- capture: store a file's line range (file_path, start_line, end_line) or a notebook cell
  (file_path of the .ipynb and cell_id — the cell's id or 0-based index) under `name`. The
  snippet records where it came from, and its text comes back to you at once.
- list: every snippet's name, origin and size.
- get: one snippet's text with its origin, e.g. to reuse it in an edit or a new cell.
- delete: forget one.
Use it to pin the pieces you will need again (an API's signature, a failing test, a config
block) instead of re-reading whole files. Snippets are copies: they do not follow later edits."""

    name = "Snip"
    input_schema = SnipInput
    search_hint = "snippet clip save code range notebook cell reuse"

    def is_read_only(self, input: SnipInput) -> bool:
        return True

    def is_concurrency_safe(self, input: SnipInput) -> bool:
        return input.action in ("list", "get")

    async def validate_input(self, input: SnipInput, context: ToolUseContext) -> ValidationResult:
        if input.action != "list" and not (input.name or "").strip():
            return ValidationError(f"action={input.action} needs a name.")
        if input.action == "capture" and not input.file_path:
            return ValidationError("action=capture needs file_path.")
        if input.start_line and input.end_line and input.end_line < input.start_line:
            return ValidationError("end_line is before start_line.")
        return VALID

    async def check_permissions(self, input: SnipInput, context: ToolUseContext) -> PermissionResult:
        if input.action == "capture" and input.file_path:
            return check_read_permission(self, str(resolve_path(input.file_path, context)), context)
        return PermissionAllow()

    def get_path(self, input: SnipInput) -> str | None:
        return input.file_path

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        snippets = dict(load_snippets(context))
        name = (input.name or "").strip()
        if input.action == "list":
            if not snippets:
                return ToolResult("No snippets yet.")
            return ToolResult("\n".join(f"- {s.name}: {s.origin} ({len(s.text):,} chars)" for s in snippets.values()))
        if input.action == "capture":
            path = resolve_path(input.file_path, context)
            snippet = await asyncio.to_thread(capture, path, input)
            snippets[name] = snippet.model_copy(update={"name": name})
            await _save(context, snippets)
            return ToolResult("Captured " + format_snippet(snippets[name]))
        if name not in snippets:
            known = ", ".join(snippets) or "none"
            raise ToolError(f"No snippet named {name!r}. Snippets: {known}.")
        if input.action == "get":
            return ToolResult(format_snippet(snippets[name]))
        del snippets[name]
        await _save(context, snippets)
        return ToolResult(f"Deleted snippet {name!r}.")

    def render_tool_use_message(self, input: SnipInput) -> str:
        target = f" {input.name}" if input.name else ""
        source = f" from {input.file_path}" if input.action == "capture" else ""
        return f"Snip {input.action}{target}{source}"

    def render_tool_result_message(self, output: str) -> str:
        return output.splitlines()[0] if output else ""
