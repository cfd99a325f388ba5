"""ListMcpResourcesTool and ReadMcpResourceTool: resources of the connected MCP servers.

The servers are the ``McpConnection`` objects in ``context.options.mcp_clients``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.result import ContentBlock, ToolResult, text_block
from ..errors import ToolError
from ._read_only import ReadOnlyTool

if TYPE_CHECKING:  # the MCP SDK loads with the first server, not with these tools
    from ..mcp.connection import McpConnection

NO_RESOURCES = (
    "No resources found. MCP servers may still provide tools even if they have no resources."
)


def _connections(context: ToolUseContext) -> list[McpConnection]:
    if not context.options.mcp_clients:
        return []
    from ..mcp.connection import McpConnection

    return [c for c in context.options.mcp_clients if isinstance(c, McpConnection)]


def _find_server(context: ToolUseContext, name: str) -> McpConnection:
    conns = _connections(context)
    for conn in conns:
        if conn.name == name:
            return conn
    known = ", ".join(c.name for c in conns) or "(none)"
    raise ToolError(f'Server "{name}" not found. Available servers: {known}')


class ListMcpResourcesInput(BaseModel):
    server: str | None = Field(None, description="Optional server name to filter resources by")


class ListMcpResourcesTool(ReadOnlyTool[ListMcpResourcesInput, list[dict[str, Any]]]):
    """Lists available resources from configured MCP servers.
Each resource object includes a 'server' field indicating which server it's from.

Usage examples:
- List all resources from all servers: `listMcpResources`
- List resources from a specific server: `listMcpResources({ server: "myserver" })`"""

    name = "ListMcpResourcesTool"
    input_schema = ListMcpResourcesInput
    should_defer = True
    search_hint = "list mcp resources server files documents"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        conns = [_find_server(context, input.server)] if input.server else _connections(context)
        if not conns:
            return ToolResult([])
        from ..mcp.connection import McpCallError

        out: list[dict[str, Any]] = []
        for conn in conns:
            if conn.status != "connected" or not conn.supports_resources:
                continue
            try:
                resources = await conn.list_resources()
            except McpCallError:
                continue  # one failing server does not hide the others' resources
            for r in resources:
                item = {"uri": str(r.uri), "name": r.name, "server": conn.name}
                if r.mime_type:
                    item["mimeType"] = r.mime_type
                if r.description:
                    item["description"] = r.description
                out.append(item)
        return ToolResult(out)

    def map_result_to_content(self, data: list[dict[str, Any]], tool_use_id: str) -> list[ContentBlock]:
        if not data:
            return [text_block(NO_RESOURCES)]
        return [text_block(json.dumps(data, ensure_ascii=False))]


class ReadMcpResourceInput(BaseModel):
    server: str = Field(description="The MCP server name")
    uri: str = Field(description="The resource URI to read")


class ReadMcpResourceTool(ReadOnlyTool[ReadMcpResourceInput, list[ContentBlock]]):
    """Reads a specific resource from an MCP server, identified by server name and resource URI.

Parameters:
- server (required): The name of the MCP server from which to read the resource
- uri (required): The URI of the resource to read"""

    name = "ReadMcpResourceTool"
    input_schema = ReadMcpResourceInput
    should_defer = True
    search_hint = "read mcp resource uri server"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        conn = _find_server(context, input.server)
        if conn.status == "connected" and not conn.supports_resources:
            raise ToolError(f'Server "{input.server}" does not support resources.')
        from ..mcp.connection import McpCallError
        from ..mcp.convert import resource_contents_to_blocks
        from ..mcp.elicitation import asker_for_call

        try:
            result = await conn.read_resource(input.uri, on_elicit=asker_for_call(self, input, context, can_use_tool))
        except McpCallError as exc:
            raise ToolError(str(exc)) from exc
        blocks = resource_contents_to_blocks(list(result.contents))
        return ToolResult(blocks or [text_block(f"(resource {input.uri} is empty)")])

    def render_tool_use_message(self, input: ReadMcpResourceInput) -> str:
        return f"ReadMcpResource {input.server}: {input.uri}"
