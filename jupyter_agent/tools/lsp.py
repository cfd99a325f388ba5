"""LSP: code intelligence from a real language server (see ``jupyter_agent.lsp``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, InterruptBehavior, ValidationError, ValidationResult
from ..errors import ToolError
from ..lsp.client import LspClient, uri_to_path
from ..lsp.format import (
    LineCache,
    format_diagnostics,
    format_document_symbols,
    format_hover,
    format_locations,
    format_workspace_symbols,
)
from ..lsp.manager import SERVERS_ENV, LspSettings, get_lsp_manager, lsp_settings
from ..permissions.filesystem import check_read_permission, path_scope, project_dir, read_denied
from ._paths import resolve_path
from ._read_only import ReadOnlyTool
from .shell.environment import process_environment

Operation = Literal["definition", "references", "hover", "document_symbols", "workspace_symbols", "diagnostics"]
_NEEDS_POSITION = ("definition", "references", "hover")


class LSPInput(BaseModel):
    operation: Operation = Field(description="What to ask the language server")
    file_path: str = Field(description="The file to ask about (for workspace_symbols: any file of the language)")
    line: int | None = Field(None, ge=1, description="1-based line (definition, references, hover)")
    character: int | None = Field(None, ge=1, description="1-based column (definition, references, hover)")
    query: str | None = Field(None, description="The symbol name to search for (workspace_symbols)")


class LSPTool(ReadOnlyTool[LSPInput, str]):
    """Ask a language server about code, instead of guessing from text search:
- definition: where the symbol at file_path:line:character is defined
- references: every use of the symbol at that position across the workspace
- hover: its type, signature and documentation
- document_symbols: the outline of file_path (classes, functions, methods, variables)
- workspace_symbols: symbols whose name matches `query` anywhere in the workspace
- diagnostics: the errors and warnings the server reports for file_path

Lines and characters are 1-based, as shown by Read (character = column of the symbol's first
letter). Results are `path:line:col: source line`. The server (Python: jedi-language-server)
starts on first use per language and workspace, so the first call can take a few seconds.
Prefer it over Grep when you need the real definition or real uses of a name."""

    name = "LSP"
    input_schema = LSPInput
    search_hint = "language server definition references hover symbols diagnostics lsp"

    def is_enabled(self) -> bool:
        try:
            return LspSettings.from_env().available()  # no server installed: the model never sees LSP
        except ValueError:
            return True  # a malformed $JUPYTER_AGENT_LSP_SERVERS is reported when the tool is used

    def interrupt_behavior(self) -> InterruptBehavior:
        return "cancel"

    def get_path(self, input: LSPInput) -> str | None:
        return input.file_path

    async def validate_input(self, input: LSPInput, context: ToolUseContext) -> ValidationResult:
        if input.operation in _NEEDS_POSITION and (input.line is None or input.character is None):
            return ValidationError(f"operation={input.operation} needs line and character (1-based).")
        if input.operation == "workspace_symbols" and not (input.query or "").strip():
            return ValidationError("operation=workspace_symbols needs a query.")
        path = resolve_path(input.file_path, context)
        try:
            settings = lsp_settings(context)
        except ValueError as exc:
            return ValidationError(f"The language server configuration ${SERVERS_ENV} is malformed: {exc}")
        if settings.for_path(path) is None:
            known = ", ".join(sorted({e for c in settings.servers.values() for e in c.extensions}))
            return ValidationError(f"No language server is configured for {path.suffix or 'this file'} files (configured: {known}).")
        if input.operation != "workspace_symbols" and not path.is_file():
            return ValidationError(f"File does not exist: {path}")
        return VALID

    async def check_permissions(self, input: LSPInput, context: ToolUseContext) -> PermissionResult:
        return check_read_permission(self, str(resolve_path(input.file_path, context)), context)

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        path = resolve_path(input.file_path, context)
        settings = lsp_settings(context)
        language, config = settings.for_path(path)  # type: ignore[misc]
        root = _workspace_root(path, context)
        client = await get_lsp_manager(context).client_for(language, config, root, settings, process_environment(context))
        denied = (lambda p: read_denied(str(p), context)) if path_scope(context).read_deny else None
        lines = LineCache(context.cwd, denied)
        if input.operation == "workspace_symbols":
            result = await client.request("workspace/symbol", {"query": input.query}, settings.request_timeout)
            return ToolResult(format_workspace_symbols(result, lines, input.query or ""))
        uri = await _sync(client, path, config.language_id)
        doc = {"textDocument": {"uri": uri}}
        if input.operation == "diagnostics":
            diags = await client.wait_diagnostics(uri, settings.diagnostics_timeout)
            return ToolResult(format_diagnostics(diags, lines, path))
        if input.operation == "document_symbols":
            result = await client.request("textDocument/documentSymbol", doc, settings.request_timeout)
            return ToolResult(format_document_symbols(result, lines, path))
        pos = {**doc, "position": {"line": input.line - 1, "character": input.character - 1}}
        if input.operation == "hover":
            hover = await client.request("textDocument/hover", pos, settings.request_timeout)
            if denied is not None:  # the server shows the definition's source: `API_KEY = "sk-…"`
                hidden = await _defined_in_denied(client, pos, lines, settings.request_timeout)
                if hidden is not None:
                    return ToolResult(f"Hover not shown: the symbol is defined in {hidden}, which a Read deny "
                                      f"rule covers.")
            return ToolResult(format_hover(hover))
        if input.operation == "definition":
            result = await client.request("textDocument/definition", pos, settings.request_timeout)
            return ToolResult(format_locations(result, lines, "definition(s)"))
        params = {**pos, "context": {"includeDeclaration": True}}
        result = await client.request("textDocument/references", params, settings.request_timeout)
        return ToolResult(format_locations(result, lines, "reference(s)"))

    def render_tool_use_message(self, input: LSPInput) -> str:
        where = f":{input.line}:{input.character}" if input.line else ""
        query = f" {input.query!r}" if input.query else ""
        return f"LSP {input.operation} {input.file_path}{where}{query}"

    def render_tool_result_message(self, output: str) -> str:
        return output.splitlines()[0] if output else ""


async def _defined_in_denied(client: LspClient, pos: dict[str, Any], lines: LineCache, timeout: float) -> str | None:
    """Where the symbol at ``pos`` is defined, when that is a Read-denied file."""
    result = await client.request("textDocument/definition", pos, timeout)
    for loc in result if isinstance(result, list) else [result] if isinstance(result, dict) else []:
        uri = loc.get("uri") or loc.get("targetUri") or ""
        if uri and lines.denied(uri_to_path(uri)):
            return lines.show(uri_to_path(uri))
    return None


def _workspace_root(path: Path, context: ToolUseContext) -> Path:
    """The project directory when the file is inside it, else the file's folder."""
    root = project_dir(context).resolve()
    try:
        path.resolve().relative_to(root)
        return root
    except ValueError:
        return path.resolve().parent


async def _sync(client: LspClient, path: Path, language_id: str) -> str:
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ToolError(f"Could not read {path}: {exc}") from exc
    return client.sync_document(path, text, language_id)
