"""Run one subagent: its own conversation and ToolUseContext, D's query loop, a final report.

The child context shares the parent's app state (permission rules and mode), its
``can_use_tool`` (approvals still reach the user) and session directory; it gets a child abort
controller (the parent's stop stops it), a clone of the file-state cache, its own message list
and ``agent_id``.  Every event of the subagent is handed to ``on_event`` as a ``SubagentEvent``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as _dt
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.events import SessionEvent, Usage
from ..agent.history import append_user_blocks
from ..agent.loop import LoopLimits, run_query
from ..agent.model import ModelClient, ModelRequest
from ..agent.session_hooks import SessionHooks
from ..agent.toolset import api_tools
from ..core.context import ToolUseContext
from ..core.tool import CanUseTool, Tool
from .definitions import NEVER_FOR_SUBAGENTS, AgentDefinition
from .read_only import ReadOnlyGuard
from .runtime import SubagentRuntime


@dataclass(frozen=True)
class SubagentEvent:
    """One event of a running subagent (for nesting its cards under the Agent call's card).

    ``line`` is a one-line summary for a progress tail ("" for events not worth a line, such
    as text deltas); the full ``event`` is there for richer views.
    """

    agent_id: str
    agent_type: str
    event: SessionEvent

    @property
    def line(self) -> str:
        from ..agent.events import AgentErrorEvent
        from ..core.events import PermissionRequested, ToolCallFinished, ToolCallStarted

        event = self.event
        if isinstance(event, ToolCallStarted):
            return f"{self.agent_type}: {event.tool_name} {_short_input(event.input)}".rstrip()
        if isinstance(event, PermissionRequested):
            return f"{self.agent_type}: {event.tool_name} is waiting for approval"
        if isinstance(event, ToolCallFinished) and event.outcome.is_error:
            first = (event.outcome.text.splitlines() or [""])[0][:120]
            return f"{self.agent_type}: {event.outcome.tool_name} failed: {first}"
        if isinstance(event, AgentErrorEvent):
            return f"{self.agent_type}: {event.message}"
        return ""


def _short_input(data: dict[str, Any]) -> str:
    for key in ("file_path", "notebook_path", "command", "pattern", "url", "query", "path", "description"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value if len(value) <= 80 else value[:77] + "..."
    return ""


@dataclass
class SubagentResult:
    agent_id: str
    agent_type: str
    stop_reason: str
    text: str
    usage: Usage
    tool_uses: int
    error: str | None = None
    cost_usd: float = 0.0


def subagent_tools(parent_tools: Sequence[Tool[Any, Any]], agent: AgentDefinition) -> list[Tool[Any, Any]]:
    """The parent's tools this agent may use (read-only agents get guarded copies)."""
    def names(tool: Tool[Any, Any]) -> set[str]:
        return {tool.name, *tool.aliases}

    chosen = []
    for tool in parent_tools:
        if names(tool) & NEVER_FOR_SUBAGENTS:
            continue
        if agent.tools is not None and not names(tool) & set(agent.tools):
            continue
        if names(tool) & set(agent.disallowed_tools):
            continue
        chosen.append(ReadOnlyGuard(tool, agent.name) if agent.read_only else tool)
    return chosen


def child_context(parent: ToolUseContext, agent: AgentDefinition, agent_id: str, model: str) -> ToolUseContext:
    options = dataclasses.replace(
        parent.options, tools=tuple(subagent_tools(parent.options.tools, agent)), main_loop_model=model
    )
    return parent.with_changes(
        options=options,
        abort_controller=parent.abort_controller.child(),
        read_file_state=parent.read_file_state.clone(),
        messages=[],
        agent_id=agent_id,
    )


@dataclass
class SubagentHost:
    """The loop's host for one subagent (D's ``LoopHost`` protocol)."""

    agent: AgentDefinition
    agent_id: str
    context: ToolUseContext
    model_client: ModelClient
    model: str
    max_tokens: int
    forward: Callable[[SubagentEvent], None]
    messages: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    tool_uses: int = 0
    cost_usd: float = 0.0
    project_dir: Path | None = None
    home: Path | None = None
    _system: list[dict[str, Any]] | None = None
    _tools: list[dict[str, Any]] | None = None

    def emit(self, event: SessionEvent) -> None:
        from ..core.events import ToolCallStarted

        if isinstance(event, ToolCallStarted):
            self.tool_uses += 1
        self.forward(SubagentEvent(self.agent_id, self.agent.name, event))

    async def refresh_settings(self) -> None:
        """The session's settings files changed on disk: applied before this subagent's next tool calls too."""
        from ..agent.settings_watch import REFRESH_KEY

        refresh = self.context.extra.get(REFRESH_KEY)
        if refresh is not None:
            await refresh()

    def record_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def record_user_blocks(self, blocks: list[dict[str, Any]]) -> None:
        append_user_blocks(self.messages, blocks)

    def add_usage(self, usage: Usage, turn: Usage) -> None:
        from ..agent.events import UsageUpdated
        from ..agent.pricing import cost_usd

        self.usage = self.usage + usage
        cost = cost_usd(usage, self.model)
        self.cost_usd += cost
        # Reported to the UI inside a SubagentEvent; the parent's totals are the session's call.
        self.emit(UsageUpdated(turn, self.usage, cost_usd(turn, self.model), self.cost_usd))

    async def build_request(self) -> ModelRequest:
        if self._system is None:
            self._system = await asyncio.to_thread(self._system_blocks)
        if self._tools is None:
            self._tools = await api_tools(self.context.options.tools, self.context.options)
        return ModelRequest(self.model, self.max_tokens, self._system, self.messages, self._tools)

    def _system_blocks(self) -> list[dict[str, Any]]:
        from ..agent.prompts import memory_section

        texts = [self.agent.prompt, self._env()]
        if self.project_dir is not None:  # project memory (CLAUDE.md) binds subagents too
            memory = memory_section(self.project_dir, self.home or Path.home())
            if memory:
                texts.append(memory)
        return [{"type": "text", "text": t} for t in texts]

    def _env(self) -> str:
        return (
            f"<env>\nWorking directory: {self.context.cwd}\nToday's date: {_dt.date.today().isoformat()}\n"
            f"Agent: {self.agent.name} ({self.agent_id})\n</env>"
        )

    async def maybe_compact(self) -> None:
        return None  # subagent conversations are short-lived


async def run_subagent(
    agent: AgentDefinition,
    prompt: str,
    parent: ToolUseContext,
    can_use_tool: CanUseTool,
    runtime: SubagentRuntime,
    *,
    model: str | None = None,
    on_event: Callable[[SubagentEvent], None] | None = None,
    agent_id: str | None = None,
) -> SubagentResult:
    """Run ``agent`` on ``prompt`` until it ends its turn; never raises for model errors."""
    agent_id = agent_id or f"agent_{secrets.token_hex(4)}"
    chosen_model = model or agent.model or runtime.model
    context = child_context(parent, agent, agent_id, chosen_model)
    host = SubagentHost(
        agent, agent_id, context, runtime.model_client(), chosen_model,
        runtime.max_tokens, on_event or (lambda _e: None),
    )
    host.project_dir, host.home = runtime.project_dir, runtime.home
    # SubagentStart / SubagentStop: the session's hooks, their errors shown on the subagent's card
    hooks = SessionHooks(parent.extra.get("hooks"), host.emit, lambda: parent.permission_context.mode)
    started = await hooks.subagent_start(agent_id, agent.name)
    host.record_user_blocks([{"type": "text", "text": t} for t in (prompt, *started)])
    limits = LoopLimits(runtime.max_requests)
    result = await run_query(host, context.abort_controller, can_use_tool, limits)
    attempt = 0
    while result.error is None and not context.abort_controller.aborted:
        reason = await hooks.subagent_continue_reason(agent_id, agent.name, attempt)
        if reason is None:
            break
        attempt += 1
        host.record_user_blocks([{"type": "text", "text": f"A SubagentStop hook says: {reason}"}])
        result = await run_query(host, context.abort_controller, can_use_tool, limits)
    return SubagentResult(
        agent_id, agent.name, result.stop_reason, result.text, host.usage, host.tool_uses, result.error,
        host.cost_usd,
    )

