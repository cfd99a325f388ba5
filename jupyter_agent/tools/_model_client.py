"""The client a tool that asks a model itself (WebFetch, WebSearch) sends with."""

from __future__ import annotations

from typing import Any

from ..core.context import ToolUseContext


def model_client(settings: Any, context: ToolUseContext) -> Any:
    """The settings' own client, else one for the address / key the settings name, else the
    session's (so ``%config AgentMagics.base_url`` / ``api_key`` and an apiKeyHelper hold for
    these tools too; they used the environment's before), else the SDK's from the environment."""
    if settings.client is not None:
        return settings.client
    if settings.base_url is None and settings.api_key is None:
        from ..subagents.runtime import session_client

        shared = session_client(context)
        if shared is not None:
            with_options = getattr(shared, "with_options", None)
            return with_options(max_retries=2) if with_options else shared
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(base_url=settings.base_url, api_key=settings.api_key, max_retries=2)
