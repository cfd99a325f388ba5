"""ToolSearch: find deferred tools by keyword or ``select:A,B`` and load them for later requests."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.result import ToolResult
from ..core.tool import Tool
from ..mcp.pool import is_deferred, with_discovered
from ._read_only import ReadOnlyTool

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class ToolSearchInput(BaseModel):
    query: str = Field(
        min_length=1,
        description='Query to find deferred tools. Use "select:<tool_name>" for direct selection, '
        "or keywords to search.",
    )
    max_results: int = Field(5, ge=1, le=50, description="Maximum number of results to return (default: 5)")


class ToolSearchOutput(BaseModel):
    matches: list[str]
    query: str
    total_deferred_tools: int
    definitions: list[dict[str, Any]] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)


def name_parts(name: str) -> list[str]:
    """``mcp__slack__post_message`` → [mcp, slack, post, message]; ``NotebookEdit`` → [notebook, edit]."""
    parts: list[str] = []
    for chunk in re.split(r"[_\-\s.]+", _CAMEL.sub("_", name)):
        if chunk:
            parts.append(chunk.lower())
    return parts


def score_tool(terms: list[str], name: str, text: str) -> int:
    """Name hits count most, then description hits; a ``+term`` that does not occur scores 0."""
    parts, lname, ltext = name_parts(name), name.lower(), text.lower()
    total = 0
    for raw in terms:
        required = raw.startswith("+")
        term = raw.lstrip("+")
        if not term:
            continue
        hit = 0
        if term == lname:
            hit = 100
        elif term in parts:
            hit = 10
        elif term in lname:
            hit = 5
        elif term in ltext:
            hit = 2
        if required and hit == 0:
            return 0
        total += hit
    return total


class ToolSearchTool(ReadOnlyTool[ToolSearchInput, ToolSearchOutput]):
    """Fetches full schema definitions for deferred tools so they can be called.

Deferred tools appear by name in <available-deferred-tools> messages. Until fetched, only the
name is known — there is no parameter schema, so the tool cannot be invoked. This tool takes a
query, matches it against the deferred tool list, and returns the matched tools' complete
definitions. Once a tool's definition appears in the result, it is callable exactly like any
tool defined at the top of this prompt, from your next message on.

Query forms:
- "select:Read,Edit,Grep" — fetch these exact tools by name
- "notebook jupyter" — keyword search, up to max_results best matches
- "+slack send" — require "slack" in the name or description, rank by remaining terms"""

    name = "ToolSearch"
    input_schema = ToolSearchInput
    max_result_size_chars = 200_000

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        deferred = [t for t in context.options.tools if is_deferred(t)]
        query = input.query.strip()
        if query.lower().startswith("select:"):
            matches, missing = self._select(query[len("select:"):], context)
        else:
            matches, missing = await self._search(query, deferred, input.max_results, context), []
        if matches:
            names = [t.name for t in matches]
            context.set_app_state(lambda s: with_discovered(s, names))
        definitions = [await _definition(t, context) for t in matches]
        return ToolResult(
            ToolSearchOutput(
                matches=[t.name for t in matches],
                query=query,
                total_deferred_tools=len(deferred),
                definitions=definitions,
                missing=missing,
            )
        )

    @staticmethod
    def _select(spec: str, context: ToolUseContext) -> tuple[list[Tool[Any, Any]], list[str]]:
        found: list[Tool[Any, Any]] = []
        missing: list[str] = []
        by_lower = {t.name.lower(): t for t in context.options.tools}
        for raw in spec.split(","):
            name = raw.strip()
            if not name:
                continue
            tool = context.find_tool(name) or by_lower.get(name.lower())
            if tool is None:
                missing.append(name)
            elif tool not in found:
                found.append(tool)
        return found, missing

    @staticmethod
    async def _search(
        query: str, deferred: list[Tool[Any, Any]], limit: int, context: ToolUseContext
    ) -> list[Tool[Any, Any]]:
        terms = query.lower().split()
        scored: list[tuple[int, int, Tool[Any, Any]]] = []
        for index, tool in enumerate(deferred):
            text = f"{tool.search_hint} {await tool.prompt(context.options)}"
            score = score_tool(terms, tool.name, text)
            if score > 0:
                scored.append((-score, index, tool))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [tool for _s, _i, tool in scored[:limit]]

    def map_result_to_content(self, data: ToolSearchOutput, tool_use_id: str):
        from ..core.result import text_block

        if not data.matches:
            note = f" Not found: {', '.join(data.missing)}." if data.missing else ""
            return [text_block(
                f"No matching deferred tools found for {data.query!r}.{note} "
                f"There are {data.total_deferred_tools} deferred tools; try other keywords "
                "or select:<exact name> from the <available-deferred-tools> list."
            )]
        lines = [
            f"Loaded {len(data.matches)} tool(s); call them directly from your next message on:",
            "<functions>",
            *(json.dumps(d, ensure_ascii=False) for d in data.definitions),
            "</functions>",
        ]
        if data.missing:
            lines.append(f"Not found: {', '.join(data.missing)}")
        return [text_block("\n".join(lines))]


async def _definition(tool: Tool[Any, Any], context: ToolUseContext) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": await tool.prompt(context.options),
        "parameters": tool.input_json_schema(),
    }
