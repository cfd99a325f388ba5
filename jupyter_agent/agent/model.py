"""One model call: build the request, stream it through the SDK, retry what may be retried."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import anthropic

from ..errors import AgentError
from .caching import mark_messages, mark_system
from .events import AgentErrorEvent
from .models import thinking_param
from .retry import ApiFailure, RetryPolicy, classify
from .stream import AssistantTurn, Emit, StreamAssembler


class ModelCallError(AgentError):
    """A model call failed for good (not retryable, or out of retries)."""

    def __init__(self, failure: ApiFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@dataclass(frozen=True)
class ModelRequest:
    """Everything one Messages API call needs; ``cache`` adds the prompt-cache breakpoints."""

    model: str
    max_tokens: int
    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)
    thinking_budget: int | None = None
    effort: str | None = None
    tool_choice: dict[str, Any] | None = None
    cache: bool = True

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": mark_system(self.system) if self.cache else self.system,
            "messages": mark_messages(self.messages) if self.cache else self.messages,
        }
        if self.tools:
            params["tools"] = self.tools
        if self.tool_choice is not None and self.tools:
            params["tool_choice"] = self.tool_choice
        thinking = thinking_param(self.model, self.thinking_budget)
        if thinking is not None:
            params["thinking"] = thinking
        if self.effort:
            params["output_config"] = {"effort": self.effort}
        return params


def make_client(api_key: str | None, base_url: str | None, client: Any = None, http_client: Any = None) -> Any:
    """The SDK client with its own retries off (we retry, so a stream is never resumed twice);
    ``http_client``: the httpx client it sends with (the apiKeyHelper's, which sets the key)."""
    if client is not None:
        with_options = getattr(client, "with_options", None)
        return with_options(max_retries=0) if with_options else client
    kwargs: dict[str, Any] = {"max_retries": 0}
    if api_key:
        kwargs["api_key"] = api_key
    if base_url:
        kwargs["base_url"] = base_url
    if http_client is not None:
        kwargs["http_client"] = http_client
    return anthropic.AsyncAnthropic(**kwargs)


def _sentence(text: str) -> str:
    """``text`` ending as a sentence (a server's message may lack the full stop)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


class ModelClient:
    """Streams one assistant message; retries rate limits, overload, 5xx and dropped streams.

    A retry restarts the whole message: tools only run after a message is complete, so no tool
    ever runs twice.  ``current`` is the assembler of the attempt in flight (for partial text
    when the user stops mid-stream).
    """

    def __init__(self, client: Any, retry: RetryPolicy, renews_key: bool = False) -> None:
        self.client = client
        self.retry = retry
        self.renews_key = renews_key  # an apiKeyHelper sets the key: a 401 is worth one more try
        self.current: StreamAssembler | None = None

    async def stream(self, request: ModelRequest, emit: Emit) -> AssistantTurn:
        params = request.params()
        attempt = 0
        renewed = False
        while True:
            try:
                return await self._once(params, emit)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.renews_key and not renewed and isinstance(exc, anthropic.AuthenticationError):
                    renewed = True  # the 401 made the helper's key stale: the next try runs it again
                    continue
                failure = classify(exc, request.model)
                attempt += 1
                if not failure.retryable or attempt > self.retry.max_retries:
                    raise ModelCallError(failure) from exc
                delay = self.retry.delay(attempt, failure.retry_after)
                partial = self.current is not None and self.current.started
                emit(
                    AgentErrorEvent(
                        f"{_sentence(failure.message)} Retrying in {delay:.1f}s "
                        f"(attempt {attempt} of {self.retry.max_retries})"
                        + ("; the partial reply is discarded." if partial else "."),
                        kind=failure.kind,
                        retrying=True,
                    )
                )
                await self.retry.sleep(delay)

    async def _once(self, params: dict[str, Any], emit: Emit) -> AssistantTurn:
        assembler = StreamAssembler(emit)
        self.current = assembler
        stream = await self.client.messages.create(**params, stream=True)
        async with stream:
            async for event in stream:
                assembler.feed(event)
        return assembler.result()

    async def complete(self, request: ModelRequest) -> AssistantTurn:
        """A call whose deltas nobody watches (compaction summaries)."""
        return await self.stream(request, lambda _e: None)

    async def count_tokens(self, request: ModelRequest) -> int:
        params = request.params()
        params.pop("max_tokens", None)
        result = await self.client.messages.count_tokens(**params)
        return int(result.input_tokens)
