"""WebSearch {query, allowed_domains?, blocked_domains?} through the API's server-side search tool.

The tool makes its own Messages request with ``{"type": "web_search_20250305", ...}``: the API
runs the searches (``server_tool_use`` blocks) and returns ``web_search_tool_result`` blocks.
A ``pause_turn`` stop means the API paused a long search turn: the assistant content is sent
back so it can continue.  The result lists titles and URLs and tells the model to cite them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from anthropic import APIError
from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAsk, PermissionResult, PermissionUpdate
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ._model_client import model_client
from ._read_only import ReadOnlyTool

WEB_SEARCH_TOOL_TYPE = "web_search_20250305"
MAX_PAUSE_CONTINUATIONS = 5


@dataclass(frozen=True)
class WebSearchSettings:
    """Put one in ``context.extra["web_search"]`` to override; model None = the main model."""

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    max_uses: int = 8
    max_tokens: int = 4096
    client: Any = None  # an AsyncAnthropic / Bedrock / Vertex client to use (e.g. the session's)


def web_search_tool_param(
    allowed_domains: list[str] | None = None,
    blocked_domains: list[str] | None = None,
    max_uses: int = 8,
) -> dict[str, Any]:
    """The server tool definition for a Messages request (also usable by the main loop)."""
    param: dict[str, Any] = {"type": WEB_SEARCH_TOOL_TYPE, "name": "web_search", "max_uses": max_uses}
    if allowed_domains:
        param["allowed_domains"] = list(allowed_domains)
    if blocked_domains:
        param["blocked_domains"] = list(blocked_domains)
    return param


class WebSearchInput(BaseModel):
    query: str = Field(min_length=2, description="The search query to use")
    allowed_domains: list[str] | None = Field(None, description="Only include search results from these domains")
    blocked_domains: list[str] | None = Field(None, description="Never include search results from these domains")


class SearchHit(BaseModel):
    title: str
    url: str


class SearchResults(BaseModel):
    tool_use_id: str
    content: list[SearchHit] = Field(default_factory=list)
    error: str | None = None


class WebSearchOutput(BaseModel):
    query: str
    results: list[SearchResults | str] = Field(default_factory=list)
    duration_seconds: float = 0.0


def collect_results(blocks: list[dict[str, Any]]) -> list[SearchResults | str]:
    """Text commentary and search result blocks, in order (server_tool_use blocks are skipped)."""
    out: list[SearchResults | str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and block.get("text", "").strip():
            out.append(block["text"].strip())
        elif kind == "web_search_tool_result":
            content = block.get("content")
            if isinstance(content, dict):  # web_search_tool_result_error
                out.append(SearchResults(tool_use_id=block.get("tool_use_id", ""),
                                         error=str(content.get("error_code", "unknown_error"))))
                continue
            hits = [SearchHit(title=r.get("title", ""), url=r.get("url", ""))
                    for r in content or [] if isinstance(r, dict) and r.get("url")]
            out.append(SearchResults(tool_use_id=block.get("tool_use_id", ""), content=hits))
    return out


def format_output(output: WebSearchOutput) -> str:
    lines = [f'Web search results for query: "{output.query}"', ""]
    for item in output.results:
        if isinstance(item, str):
            lines += [item, ""]
        elif item.error:
            lines += [f"Web search error: {item.error}", ""]
        else:
            links = [h.model_dump() for h in item.content]
            lines += [f"Links: {json.dumps(links, ensure_ascii=False)}", ""]
    if not any(isinstance(i, SearchResults) and i.content for i in output.results):
        lines += ["No links were found.", ""]
    lines.append(
        "REMINDER: You MUST include the sources above in your response to the user using "
        "markdown hyperlinks, e.g. [Title](URL)."
    )
    return "\n".join(lines)


class WebSearchTool(ReadOnlyTool[WebSearchInput, WebSearchOutput]):
    """- Allows Claude to search the web and use the results to inform responses
- Provides up-to-date information for current events and recent data
- Returns search result information formatted as search result blocks, including links as markdown hyperlinks
- Use this tool for accessing information beyond Claude's knowledge cutoff
- Domain filtering is supported to include or block specific websites

CRITICAL REQUIREMENT - You MUST follow this:
  - After answering the user's question, you MUST include a "Sources:" section at the end of your response
  - In the Sources section, list all relevant URLs from the search results as markdown hyperlinks: [Title](URL)"""

    name = "WebSearch"
    input_schema = WebSearchInput
    search_hint = "search the web internet google news current events"

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"

    async def validate_input(self, input: WebSearchInput, context: ToolUseContext) -> ValidationResult:
        if input.allowed_domains and input.blocked_domains:
            return ValidationError(
                "Cannot specify both allowed_domains and blocked_domains in the same request."
            )
        return VALID

    async def check_permissions(self, input: WebSearchInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAsk(
            f'Search the web for "{input.query}"?',
            suggestions=(PermissionUpdate(rules=("WebSearch",), destination="localSettings"),),
        )

    def render_tool_use_message(self, input: WebSearchInput) -> str:
        return f'WebSearch "{input.query}"'

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        settings = context.extra.get("web_search")
        if not isinstance(settings, WebSearchSettings):
            settings = WebSearchSettings()
        started = time.monotonic()
        blocks = await _run_search(input, settings, settings.model or context.options.main_loop_model,
                                   model_client(settings, context))
        return ToolResult(WebSearchOutput(
            query=input.query, results=collect_results(blocks),
            duration_seconds=round(time.monotonic() - started, 3),
        ))

    def map_result_to_content(self, data: WebSearchOutput, tool_use_id: str) -> list[ContentBlock]:
        return [text_block(format_output(data))]

    def render_tool_result_message(self, output: WebSearchOutput) -> str:
        count = sum(len(r.content) for r in output.results if isinstance(r, SearchResults))
        return f"{count} results for {output.query!r}"


async def _run_search(
    input: WebSearchInput, settings: WebSearchSettings, model: str, client: Any
) -> list[dict[str, Any]]:
    """Every content block of the search turn, continuing after ``pause_turn`` stops."""
    tool = web_search_tool_param(input.allowed_domains, input.blocked_domains, settings.max_uses)
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": f"Perform a web search for the query: {input.query}"}
    ]
    collected: list[dict[str, Any]] = []
    try:
        for _round in range(MAX_PAUSE_CONTINUATIONS + 1):
            response = await client.messages.create(
                model=model, max_tokens=settings.max_tokens, tools=[tool],  # type: ignore[list-item]
                system="You are an assistant for performing a web search tool use",
                messages=messages,  # type: ignore[arg-type]
            )
            content = [b.model_dump(mode="json", exclude_none=True) for b in response.content]
            collected.extend(content)
            if response.stop_reason != "pause_turn":
                break
            messages = [*messages[:1], {"role": "assistant", "content": _continuation(collected)}]
    except (APIError, TypeError) as exc:  # TypeError: no API key or auth token configured
        raise ToolError(f"Web search failed: {exc}") from exc
    finally:
        if settings.client is None:
            await client.close()
    return collected


def _continuation(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The paused assistant turn sent back as is (server blocks included) to let it resume."""
    return [b for b in blocks if b.get("type") in ("text", "server_tool_use", "web_search_tool_result")]
