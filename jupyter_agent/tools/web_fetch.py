"""WebFetch {url, prompt}: fetch a page, convert it, and answer ``prompt`` with a small model."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from anthropic import APIError
from pydantic import BaseModel, Field

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionResult,
)
from ..core.result import ContentBlock, ToolResult, text_block
from ..core.tool import VALID, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.rules import host_rule_matches
from ._content_rules import decide_by_content_rules
from ._model_client import model_client
from ._read_only import ReadOnlyTool
from .web_fetch_convert import PageContent, UnsupportedContent, convert
from .web_fetch_http import (
    CrossHostRedirect,
    FetchError,
    FetchSettings,
    TtlCache,
    fetch_url,
    upgrade_url,
)

SMALL_MODEL_ENVS = ("JUPYTER_AGENT_SMALL_MODEL", "ANTHROPIC_SMALL_FAST_MODEL")
MAX_URL_LENGTH = 2000
_CACHE = TtlCache()


@dataclass(frozen=True)
class WebFetchSettings:
    """Put one in ``context.extra["web_fetch"]`` to override; otherwise read from the environment.

    ``model`` None: ``$JUPYTER_AGENT_SMALL_MODEL`` / ``$ANTHROPIC_SMALL_FAST_MODEL``, else the main
    model.  ``base_url``/``api_key`` None: the anthropic SDK's own environment variables.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    max_markdown_chars: int = 100_000
    max_answer_tokens: int = 2048
    fetch: FetchSettings = field(default_factory=FetchSettings)
    use_cache: bool = True
    client: Any = None  # an AsyncAnthropic / Bedrock / Vertex client to use (e.g. the session's)

    def resolve_model(self, main_model: str) -> str:
        if self.model:
            return self.model
        return next((os.environ[e] for e in SMALL_MODEL_ENVS if os.environ.get(e)), main_model)


class WebFetchInput(BaseModel):
    url: str = Field(description="The URL to fetch content from")
    prompt: str = Field(description="The prompt to run on the fetched content")


class WebFetchOutput(BaseModel):
    url: str
    code: int = 0
    code_text: str = ""
    bytes: int = 0
    result: str = ""
    redirect_url: str | None = None
    image: dict[str, Any] | None = None


class WebFetchTool(ReadOnlyTool[WebFetchInput, WebFetchOutput]):
    """- Fetches content from a specified URL and processes it using an AI model
- Takes a URL and a prompt as input
- Fetches the URL content, converts HTML to markdown
- Processes the content with the prompt using a small, fast model
- Returns the model's response about the content
- Use this tool when you need to retrieve and analyze web content

Usage notes:
  - The URL must be a fully-formed valid URL; HTTP URLs are upgraded to HTTPS
  - The prompt should describe what information you want to extract from the page
  - This tool is read-only and does not modify any files
  - Results may be summarized if the content is very large
  - Includes a self-cleaning 15-minute cache for faster responses when repeatedly accessing the same URL
  - When a URL redirects to a different host, the tool will inform you and provide the redirect
    URL in a special format. You should then make a new WebFetch request with the redirect URL."""

    name = "WebFetch"
    input_schema = WebFetchInput
    search_hint = "fetch url web page http download read website"

    def interrupt_behavior(self) -> str:  # type: ignore[override]
        return "cancel"

    async def validate_input(self, input: WebFetchInput, context: ToolUseContext) -> ValidationResult:
        if len(input.url) > MAX_URL_LENGTH:
            return ValidationError(f"The URL is too long (over {MAX_URL_LENGTH} characters).")
        parts = urlsplit(input.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return ValidationError(
                f"Invalid URL {input.url!r}: give a full http:// or https:// URL with a host."
            )
        if parts.username or parts.password:
            return ValidationError("URLs with a username or password are not fetched.")
        return VALID

    async def check_permissions(self, input: WebFetchInput, context: ToolUseContext) -> PermissionResult:
        host = (urlsplit(input.url).hostname or "").lower()
        return decide_by_content_rules(
            context, self.name, lambda c: host_rule_matches(c, host),
            denied=lambda rule: f"Permission to fetch {host} has been denied by rule {rule}.",
            needs_approval=lambda rule: f"Fetching {host} requires approval (rule {rule}).",
            question=f"Claude wants to fetch content from {host}", suggest=f"WebFetch(domain:{host})",
        )

    def render_tool_use_message(self, input: WebFetchInput) -> str:
        return f"Fetch {input.url}"

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        settings = context.extra.get("web_fetch")
        if not isinstance(settings, WebFetchSettings):
            settings = WebFetchSettings()
        url = upgrade_url(input.url, settings.fetch.http_hosts)
        cached = _CACHE.get(url) if settings.use_cache else None
        if cached is None:
            cached = await self._fetch(url, settings)
            if isinstance(cached, WebFetchOutput):
                return ToolResult(cached)  # a cross-host redirect: never cached
            if settings.use_cache:
                _CACHE.put(url, cached, cached[1].size)
        meta, page = cached
        if page.image is not None:
            return ToolResult(WebFetchOutput(**meta, result="(image)", image=dict(page.image)))
        answer = await _answer(page, input.prompt, settings, context)
        return ToolResult(WebFetchOutput(**meta, result=answer))

    async def _fetch(self, url: str, settings: WebFetchSettings) -> tuple[dict[str, Any], PageContent] | WebFetchOutput:
        import asyncio

        try:
            outcome = await fetch_url(url, settings.fetch)
        except FetchError as exc:
            raise ToolError(str(exc)) from exc
        if isinstance(outcome, CrossHostRedirect):
            return WebFetchOutput(url=url, code=outcome.status, redirect_url=outcome.redirect_url)
        if outcome.status >= 400:
            raise ToolError(f"Request to {url} failed with status code {outcome.status} {outcome.reason}.")
        try:
            page = await asyncio.to_thread(convert, outcome.body, outcome.content_type)
        except UnsupportedContent as exc:
            raise ToolError(str(exc)) from exc
        if outcome.truncated:
            cap = settings.fetch.max_bytes
            note = f"[Content truncated: page larger than {cap:,} bytes; only the start was read]\n\n"
            page = PageContent(page.kind, note + page.text, page.image)
        meta = {"url": url, "code": outcome.status, "code_text": outcome.reason, "bytes": len(outcome.body)}
        return meta, page

    def map_result_to_content(self, data: WebFetchOutput, tool_use_id: str) -> list[ContentBlock]:
        if data.redirect_url:
            return [text_block(
                f"REDIRECT DETECTED: The URL redirects to a different host.\n\n"
                f"Original URL: {data.url}\nRedirect URL: {data.redirect_url}\nStatus: {data.code}\n\n"
                f"To complete your request, I need to fetch content from the redirected URL. "
                f'Please use WebFetch again with these parameters:\n- url: "{data.redirect_url}"\n'
                f"- prompt: the same prompt"
            )]
        if data.image is not None:
            return [text_block(f"Image fetched from {data.url} ({data.bytes:,} bytes):"), data.image]  # type: ignore[list-item]
        return [text_block(data.result)]

    def render_tool_result_message(self, output: WebFetchOutput) -> str:
        if output.redirect_url:
            return f"Redirected to {output.redirect_url}"
        return f"Received {output.bytes:,} bytes ({output.code} {output.code_text})"


def _secondary_prompt(content: str, prompt: str) -> str:
    return (
        f"Web page content:\n---\n{content}\n---\n\n{prompt}\n\n"
        "Answer from the content above only, concisely. Quote at most 125 characters verbatim "
        "from any one source and mark quotes with quotation marks; summarize the rest in your own "
        "words. If the content does not answer the request, say so."
    )


async def _answer(page: PageContent, prompt: str, settings: WebFetchSettings, context: ToolUseContext) -> str:
    text = page.text
    if len(text) > settings.max_markdown_chars:
        text = text[: settings.max_markdown_chars] + "\n\n[Content truncated due to length...]"
    client = model_client(settings, context)
    try:
        message = await client.messages.create(
            model=settings.resolve_model(context.options.main_loop_model),
            max_tokens=settings.max_answer_tokens,
            messages=[{"role": "user", "content": _secondary_prompt(text, prompt)}],
        )
    except (APIError, TypeError) as exc:  # TypeError: no API key or auth token configured
        raise ToolError(f"The page was fetched but could not be processed by the model: {exc}") from exc
    finally:
        if settings.client is None:
            await client.close()
    answer = "".join(getattr(b, "text", "") for b in message.content).strip()
    return answer or "No response from the model about this page."


def clear_web_fetch_cache() -> None:
    _CACHE.clear()
