"""Which API failures are retried, after how long, and what the user is told when they are not."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anthropic

AUTH_HELP = (
    "Set your Anthropic API key: in a notebook cell run `%env ANTHROPIC_API_KEY=sk-ant-...` "
    "or `%config AgentMagics.api_key = 'sk-ant-...'` (or export ANTHROPIC_API_KEY before starting "
    "Jupyter; an apiKeyHelper in ~/.claude/settings.json works too). From Python: api_key=... "
    "or a configured client (Bedrock, Vertex) in the session config."
)


class IncompleteStreamError(Exception):
    """The response stream ended before ``message_stop`` (a dropped connection)."""


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter; ``retry-after`` from the server wins when present."""

    max_retries: int = 8
    base_delay: float = 0.5
    max_delay: float = 32.0
    max_retry_after: float = 120.0
    jitter: float = 0.25  # fraction of the delay added at random
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(0.0, retry_after), self.max_retry_after)
        base = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return base * (1 + self.jitter * random.random())


@dataclass(frozen=True)
class ApiFailure:
    """A classified failure: what kind, whether to retry, and a message a user can act on."""

    kind: str  # "rate_limit", "overloaded", "server", "network", "auth", "api", "internal"
    retryable: bool
    message: str
    retry_after: float | None = None


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            continue
    return None


def _api_message(exc: anthropic.APIStatusError) -> str:
    text = getattr(exc, "api_message", None)
    if text:
        return str(text)
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)


def _status_failure(exc: anthropic.APIStatusError, model: str) -> ApiFailure:
    status = exc.status_code
    detail = _api_message(exc)
    kind = getattr(exc, "type", None) or ""
    if kind == "overloaded_error" or status == 529:
        return ApiFailure("overloaded", True, f"The API is overloaded (529): {detail}")
    if status == 429:
        return ApiFailure("rate_limit", True, f"Rate limited (429): {detail}", _retry_after(exc))
    if status in (408, 409) or status >= 500:
        return ApiFailure("server", True, f"The API failed ({status}): {detail}", _retry_after(exc))
    if status == 401:
        return ApiFailure("auth", False, f"Authentication failed (401): {detail}. {AUTH_HELP}")
    if status == 403:
        return ApiFailure(
            "auth", False,
            f"Permission denied (403): {detail}. Check that your API key or cloud credentials "
            f"may use model {model!r}.",
        )
    if status == 404:
        return ApiFailure("api", False, f"Not found (404): {detail}. Check the model id {model!r}.")
    if status == 413:
        return ApiFailure("api", False, f"Request too large (413): {detail}. Run compaction or start a new session.")
    if status == 200:  # an `error` event inside a stream: the body says what went wrong
        return ApiFailure("server", True, f"The stream reported an error: {detail}")
    return ApiFailure("api", False, f"The API rejected the request ({status}): {detail}")


def classify(exc: BaseException, model: str) -> ApiFailure:
    """Map any exception from a model call to an ``ApiFailure``."""
    from .api_key_helper import helper_cause

    helper = helper_cause(exc)  # the SDK wraps it as a connection error: not one to retry
    if helper is not None:
        return ApiFailure("auth", False, str(helper))
    if isinstance(exc, anthropic.APIStatusError):
        return _status_failure(exc, model)
    if isinstance(exc, anthropic.APIConnectionError):
        return ApiFailure("network", True, f"Connection error: {exc}")
    if isinstance(exc, IncompleteStreamError):
        return ApiFailure("network", True, f"The connection dropped mid-stream: {exc}")
    if isinstance(exc, json.JSONDecodeError):
        return ApiFailure("network", True, f"The response stream was malformed: {exc}")
    if _is_transport_error(exc):
        return ApiFailure("network", True, f"The connection dropped mid-stream: {exc}")
    credentials_error = getattr(anthropic, "CredentialsError", None)
    if credentials_error is not None and isinstance(exc, credentials_error):
        return ApiFailure("auth", False, f"Credentials could not be loaded: {exc}. {AUTH_HELP}")
    if isinstance(exc, TypeError) and "authentication" in str(exc).lower():
        return ApiFailure("auth", False, f"No API key found. {AUTH_HELP}")
    if isinstance(exc, anthropic.AnthropicError) and "api_key" in str(exc).lower():
        return ApiFailure("auth", False, f"No API key found. {AUTH_HELP}")
    return ApiFailure("internal", False, f"Unexpected error: {type(exc).__name__}: {exc}")


def _is_transport_error(exc: BaseException) -> bool:
    """httpx / httpx2 transport errors (the SDK does not wrap errors raised while streaming)."""
    for cls in type(exc).__mro__:
        if cls.__name__ in ("TransportError", "StreamError") and cls.__module__.startswith("httpx"):
            return True
    return False
