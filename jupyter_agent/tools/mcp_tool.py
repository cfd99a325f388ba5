"""MCPTool: one tool of one MCP server, named ``mcp__<server>__<tool>``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import mcp_types
from pydantic import BaseModel, ConfigDict

from ..core.result import ContentBlock, ToolResult
from ..core.tool import VALID, Tool, ToolProgress, ValidationError, ValidationResult
from ..errors import ToolError
from ..mcp.convert import call_result_to_blocks, result_meta

if TYPE_CHECKING:
    from ..mcp.connection import McpConnection

MAX_MCP_DESCRIPTION = 2048
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def normalize_name_part(name: str) -> str:
    """Characters the API does not allow in tool names become ``_``."""
    return _UNSAFE.sub("_", name)


def mcp_tool_name(server: str, tool: str) -> str:
    return f"mcp__{normalize_name_part(server)}__{normalize_name_part(tool)}"


class McpToolInput(BaseModel):
    """Any JSON object: the server validates its own arguments against its schema."""

    model_config = ConfigDict(extra="allow")


class MCPTool(Tool[McpToolInput, list[ContentBlock]]):
    """A server tool; its schema, description and annotations come from the server."""

    name = "mcp"
    input_schema = McpToolInput
    max_result_size_chars = 100_000

    def __init__(self, connection: McpConnection, spec: mcp_types.Tool) -> None:
        self.connection = connection
        self.spec = spec
        self.server_name = connection.name
        self.tool_name = spec.name
        self.name = mcp_tool_name(connection.name, spec.name)  # type: ignore[misc]
        self.should_defer = False  # type: ignore[misc]  # decided per session by assemble_tool_pool
        self.search_hint = f"{spec.title or ''} {spec.description or ''}".strip()  # type: ignore[misc]

    # -- what the model sees -------------------------------------------------------------------

    def input_json_schema(self) -> dict[str, Any]:
        schema = dict(self.spec.input_schema or {})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        return schema

    async def prompt(self, options: Any) -> str:
        text = (self.spec.description or self.spec.title or self.tool_name).strip()
        if len(text) > MAX_MCP_DESCRIPTION:
            text = text[:MAX_MCP_DESCRIPTION] + "… [truncated]"
        return text

    async def description(self, input: McpToolInput | None, options: Any) -> str:
        return await self.prompt(options)

    def user_facing_name(self, input: McpToolInput | None = None) -> str:
        return f"{self.server_name} - {self.spec.title or self.tool_name} (MCP)"

    # -- behaviour from annotations (fail closed: no hint means it may write) -----------------------

    def _hints(self) -> mcp_types.ToolAnnotations:
        return self.spec.annotations or mcp_types.ToolAnnotations()

    def is_read_only(self, input: McpToolInput) -> bool:
        return self._hints().read_only_hint is True

    def is_concurrency_safe(self, input: McpToolInput) -> bool:
        return self.is_read_only(input)

    def is_destructive(self, input: McpToolInput) -> bool:
        hints = self._hints()
        if hints.read_only_hint is True:
            return False
        return hints.destructive_hint is not False  # the MCP default for writing tools is destructive

    def is_open_world(self) -> bool:
        return self._hints().open_world_hint is not False

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"

    async def validate_input(self, input: McpToolInput, context: Any) -> ValidationResult:
        """Check the arguments against the server's schema, so the model gets a precise error."""
        import jsonschema

        try:
            validator = jsonschema.Draft202012Validator(self.input_json_schema())
            errors = sorted(validator.iter_errors(input.model_dump(mode="json")), key=lambda e: list(e.path))
        except jsonschema.SchemaError:
            return VALID  # the server's own schema is broken: let the server judge
        if not errors:
            return VALID
        lines = [f"- {'.'.join(str(p) for p in e.path) or '(input)'}: {e.message}" for e in errors[:5]]
        return ValidationError(f"InputValidationError: {self.name} failed due to:\n" + "\n".join(lines))

    # -- the call -------------------------------------------------------------------------------------

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        from ..mcp.connection import McpCallError, McpLinksRequired
        from ..mcp.elicitation import asker_for_call

        try:
            report = (lambda p: on_progress(ToolProgress("", p))) if on_progress else None
            result = await self.connection.call_tool(
                self.tool_name, input.model_dump(mode="json"), on_progress=report,
                on_elicit=asker_for_call(self, input, context, can_use_tool),
            )
        except McpLinksRequired as exc:
            raise ToolError(f"{exc} {self.name} cannot run until the user has.") from exc
        except McpCallError as exc:
            raise ToolError(f"{exc} The tool {self.name} is unavailable; continue without it.") from exc
        blocks = call_result_to_blocks(result)
        if result.is_error:
            text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")  # type: ignore[misc]
            raise ToolError(f"Error from MCP tool {self.name}: {text or '(no message)'}")
        return ToolResult(blocks, mcp_meta=result_meta(result))

    def render_tool_result_message(self, output: list[ContentBlock]) -> str:
        text = " ".join(b.get("text", "[image]") for b in output)  # type: ignore[misc]
        return text if len(text) <= 200 else text[:200] + "…"
