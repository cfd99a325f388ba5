"""SubagentRuntime: what a parent session lends its subagents (model client, model, limits).

The session attaches it once, after it is built::

    from jupyter_agent.subagents.runtime import attach_subagents
    attach_subagents(session)      # session.context.extra["subagent_runtime"] = ...

Without it, subagents build their own SDK client from the environment (``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``) and the parent's model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

RUNTIME_KEY = "subagent_runtime"


@dataclass(frozen=True)
class SubagentRuntime:
    client: Any  # the SDK client (AsyncAnthropic, Bedrock or Vertex), shared with the parent
    retry: Any  # the parent's RetryPolicy
    model: str
    max_tokens: int = 16_000
    max_requests: int = 50
    project_dir: Path | None = None
    home: Path | None = None
    renews_key: bool = False  # an apiKeyHelper sets the key: a 401 is worth one more try, here too

    def model_client(self) -> Any:
        """A subagent's own streamer over the session's client, retrying as the session does."""
        from ..agent.model import ModelClient

        return ModelClient(self.client, self.retry, renews_key=self.renews_key)


def attach_subagents(session: Any) -> SubagentRuntime:
    """Make ``session``'s model client and settings available to the Agent tool."""
    config = session.config
    runtime = SubagentRuntime(
        client=session.model_client.client,
        retry=session.model_client.retry,
        renews_key=session.model_client.renews_key,
        model=config.model,
        max_tokens=config.max_tokens,
        project_dir=config.resolved_project_dir(),
        home=Path(config.home) if config.home else None,
    )
    session.context.extra[RUNTIME_KEY] = runtime
    return runtime


def session_client(context: ToolUseContext) -> Any | None:
    """The session's own SDK client (its address, key or apiKeyHelper, Bedrock / Vertex), for
    tools that ask a model themselves (WebFetch, WebSearch); None outside a session."""
    runtime = context.extra.get(RUNTIME_KEY)
    return runtime.client if isinstance(runtime, SubagentRuntime) else None


def get_runtime(context: ToolUseContext) -> SubagentRuntime:
    runtime = context.extra.get(RUNTIME_KEY)
    if isinstance(runtime, SubagentRuntime):
        return runtime
    from ..agent.model import make_client
    from ..agent.retry import RetryPolicy

    return SubagentRuntime(
        client=make_client(None, None), retry=RetryPolicy(), model=context.options.main_loop_model
    )
