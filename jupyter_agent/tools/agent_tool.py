"""Agent (alias Task): run a subagent with its own conversation and return its final report.

Built-in types: ``general-purpose`` (the parent's tools), ``Explore`` and ``Plan`` (read-only,
enforced); custom agents come from ``.claude/agents/*.md``.  Permission rules ``Agent(<type>)``
allow, ask for or deny one type.  Calls of read-only types are concurrency-safe, so several in
one message run in parallel; a subagent's tool calls ask the user through the parent's
``can_use_tool`` (their ``context.agent_id`` names the subagent).  The subagent's events are
reported as progress (``ToolProgress(tool_use_id, SubagentEvent)``) for nesting in the UI.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ToolProgress, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.rules import RuleSyntaxError, parse_rule
from ..subagents import GENERAL_PURPOSE, AgentCatalog, load_agents
from ..subagents.definitions import MODEL_ALIASES
from ..subagents.runtime import get_runtime
from ..subagents.team import LEAD, TeamMessage, get_team, sender_name

READ_ONLY_TYPES = frozenset({"Explore", "Plan"})


class AgentInput(BaseModel):
    description: str = Field(min_length=1, description="A short (3-5 word) description of the task")
    prompt: str = Field(min_length=1, description="The task for the agent to perform, with all context it needs")
    subagent_type: str | None = Field(None, description="The type of agent to use (default general-purpose)")
    model: str | None = Field(None, description="Optional model: sonnet, opus, haiku, or a model id")
    run_in_background: bool | None = Field(None, description="Run in the background; read it with TaskOutput")
    name: str | None = Field(None, description="Optional name for the agent")


def _project_dir(context: ToolUseContext) -> Path:
    runtime = context.extra.get("subagent_runtime")
    project = getattr(runtime, "project_dir", None) or context.permission_context.project_dir
    return Path(project) if project else Path(context.cwd)


# The read-only agent types seen in the last catalog load: ``is_concurrency_safe`` is
# synchronous and has no context, so custom read-only agents are known from the last load
# (the tool's prompt loads the catalog when the session starts).
_read_only_custom: frozenset[str] = frozenset()


def _remember(catalog: AgentCatalog) -> AgentCatalog:
    global _read_only_custom
    _read_only_custom = frozenset(a.name for a in catalog.agents.values() if a.read_only)
    return catalog


async def catalog_for(context: ToolUseContext, *, remember: bool = False) -> AgentCatalog:
    """The agents for this context; ``remember`` updates what ``is_read_only`` answers from."""
    home = getattr(context.extra.get("subagent_runtime"), "home", None)
    catalog = await asyncio.to_thread(load_agents, _project_dir(context), home)
    return _remember(catalog) if remember else catalog


def _read_only_type(kind: str) -> bool:
    return kind in READ_ONLY_TYPES or kind in _read_only_custom


def _agent_type(input: AgentInput) -> str:
    return input.subagent_type or GENERAL_PURPOSE


class AgentTool(Tool[AgentInput, str]):
    """Launch a subagent to handle a complex, multi-step task on its own.

    The agent starts with no memory of this conversation: give it a complete, self-contained
    prompt and say what it should report back. Its final report is returned to you (the user
    does not see it: summarise it for them). Launch several agents in one message to run
    read-only ones (Explore, Plan) in parallel. Available agent types:"""

    name = "Agent"
    aliases = ("Task",)
    summary = "Launches a subagent to handle a complex, multi-step task on its own."  # its prompt reads files
    input_schema = AgentInput
    # added to plan mode's denial of an agent that may write: research still has a way
    plan_mode_hint = (" Agents that only read run in plan mode: use subagent_type "
                      + " or ".join(f'"{t}"' for t in sorted(READ_ONLY_TYPES)) + " to research.")

    async def prompt(self, options: ToolUseOptions) -> str:
        base = " ".join((type(self).__doc__ or "").split())
        catalog = _remember(await asyncio.to_thread(load_agents, Path.cwd()))
        return f"{base}\n{catalog.describe()}"

    def is_read_only(self, input: AgentInput) -> bool:
        return _read_only_type(_agent_type(input))

    def is_concurrency_safe(self, input: AgentInput) -> bool:
        return _read_only_type(_agent_type(input))

    def prepare_permission_matcher(self, input: AgentInput):
        kind = _agent_type(input)
        return lambda pattern: pattern in ("*", "Agent", "Task", f"Agent({kind})", f"Task({kind})")

    async def validate_input(self, input: AgentInput, context: ToolUseContext) -> ValidationResult:
        catalog = await catalog_for(context)
        if catalog.get(_agent_type(input)) is None:
            known = ", ".join(catalog.agents)
            message = f"Agent type '{_agent_type(input)}' not found. Available agents: {known}"
            if catalog.errors:
                message += "\nThese agent files could not be loaded:\n" + "\n".join(catalog.errors)
            return ValidationError(message)
        return VALID

    async def check_permissions(self, input: AgentInput, context: ToolUseContext) -> PermissionResult:
        kind = _agent_type(input)
        for behavior in ("deny", "ask", "allow"):
            rule = _type_rule(context, behavior, kind)
            if rule is None:
                continue
            if behavior == "deny":
                return PermissionDeny(f"Permission to use the {kind} agent has been denied by rule {rule}.")
            if behavior == "ask":
                return PermissionAsk(f"Run the {kind} agent? ({input.description})")
            return PermissionAllow(reason=f"allow rule {rule}")
        return PermissionAllow()  # the subagent's own tool calls are checked one by one

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        from ..subagents.runner import run_subagent

        promised = self.is_read_only(input)  # what plan mode and the scheduler relied on
        agent = (await catalog_for(context, remember=True)).get(_agent_type(input))
        if agent is None:
            raise ToolError(f"Agent type '{_agent_type(input)}' not found.")
        if promised and not agent.read_only:  # the file changed since: keep the promise
            agent = dataclasses.replace(agent, read_only=True)
        runtime = get_runtime(context)
        model = MODEL_ALIASES.get(input.model, input.model) if input.model else None

        def forward(event: Any) -> None:
            if on_progress is not None:
                on_progress(ToolProgress("", event))  # the orchestration stamps the id

        team = get_team(context.get_app_state())
        if input.name and team is not None:
            return ToolResult(_spawn_teammate(team, input, agent, context, can_use_tool, runtime, model))
        if input.run_in_background:
            return ToolResult(_start_background(input, agent, context, can_use_tool, runtime, model))
        result = await run_subagent(agent, input.prompt, context, can_use_tool, runtime, model=model, on_event=forward)
        if result.stop_reason == "error":
            raise ToolError(f"The {agent.name} agent failed: {result.error}")
        if result.stop_reason == "interrupted":
            raise ToolError(f"The {agent.name} agent was interrupted before it finished.")
        return ToolResult(result.text.strip() or f"The {agent.name} agent finished without a report.")

    def render_tool_use_message(self, input: AgentInput) -> str:
        return f"{_agent_type(input)}: {input.description}"


def _spawn_teammate(team, input, agent, context, can_use_tool, runtime, model) -> str:
    name = input.name.strip()
    if name == LEAD or name in team.members:
        raise ToolError(f"The name '{name}' is taken in team '{team.name}'. Choose another name.")
    team.spawn(name, agent, context, can_use_tool, runtime, model)  # outlives this call: no progress
    team.deliver(TeamMessage(sender_name(context), name, input.prompt))
    return (
        f"Teammate '{name}' ({agent.name}) joined team '{team.name}' and is working on your prompt. "
        f"Its reply will arrive as a message from {name}; talk to it with SendMessage."
    )


def _start_background(input, agent, context, can_use_tool, runtime, model) -> str:
    from ..subagents.background import AgentTask
    from ..subagents.runner import run_subagent
    from ..tasks.registry import get_task_registry

    registry = get_task_registry(context)
    task_id = registry.new_id(AgentTask.id_prefix)
    # The background agent outlives the turn: it gets its own abort, not the turn's.
    detached = context.with_changes(abort_controller=type(context.abort_controller)())

    def run(on_event):
        return run_subagent(
            agent, input.prompt, detached, can_use_tool, runtime, model=model, on_event=on_event, agent_id=task_id
        )

    task = AgentTask(task_id, input.description, run, detached.abort_controller)
    registry.add(task)
    return (
        f"Started the {agent.name} agent in the background with task id {task_id}. "
        f'Read its progress and final report with TaskOutput {{"task_id": "{task_id}"}}; stop it with TaskStop.'
    )


def _type_rule(context: ToolUseContext, behavior: str, kind: str) -> str | None:
    for _source, text in context.permission_context.rules(behavior):  # type: ignore[arg-type]
        try:
            rule = parse_rule(text)
        except RuleSyntaxError:
            continue
        if rule.tool_name in ("Agent", "Task") and rule.content == kind:
            return text
    return None
