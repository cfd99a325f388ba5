"""Workflow (flag ``workflow_tool``): run a workflow from ``.claude/workflows`` (see
``jupyter_agent.workflows``) with inputs; progress per step; a failing step stops the run."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..core.context import ToolUseContext, ToolUseOptions
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ToolProgress, ValidationError, ValidationResult
from ..errors import ToolError
from ..permissions.filesystem import project_dir
from ..subagents.definitions import load_agents
from ..subagents.runner import run_subagent
from ..subagents.runtime import get_runtime
from ..workflows.definition import WorkflowCatalog, load_workflows
from ..workflows.runner import TemplateError, WorkflowRun, run_workflow


class WorkflowInput(BaseModel):
    action: Literal["run", "list"] = Field("run", description="run a workflow, or list the available ones")
    workflow: str | None = Field(None, description="The workflow's name (its file name without extension)")
    inputs: dict[str, str] = Field(default_factory=dict, description="Values for the workflow's inputs")


def _home(context: ToolUseContext) -> Any:
    return getattr(context.extra.get("subagent_runtime"), "home", None)


async def _catalog(context: ToolUseContext) -> WorkflowCatalog:
    return await asyncio.to_thread(load_workflows, project_dir(context), _home(context))


def describe(catalog: WorkflowCatalog) -> str:
    if not catalog.workflows:
        text = "No workflows found in .claude/workflows/."
    else:
        lines = []
        for wf in catalog.workflows.values():
            ins = ", ".join(f"{i.name}{'' if i.required else '?'}" for i in wf.inputs) or "no inputs"
            lines.append(f"- {wf.name}: {wf.description} ({len(wf.steps)} steps; inputs: {ins})")
        text = "Workflows:\n" + "\n".join(lines)
    if catalog.errors:
        text += "\nFiles that could not be loaded:\n" + "\n".join(f"- {e}" for e in catalog.errors)
    return text


class WorkflowTool(Tool[WorkflowInput, WorkflowRun | str]):
    name = "Workflow"
    input_schema = WorkflowInput
    search_hint = "workflow pipeline steps recipe run automation"

    async def prompt(self, options: ToolUseOptions) -> str:
        return """Run a predefined workflow from .claude/workflows/ (the project's or the user's): an
ordered list of steps — tool calls (e.g. Bash, Read), prompts run by a subagent, or a named
subagent — with inputs. Each step's output is available to later steps. The run stops at the
first failing step and reports which step failed and why, with every earlier step's output.

Use it when the user names a workflow or asks for a routine the project has scripted (a
release check, a lint-test-summarize loop). Use action "list" to see the workflows and their
inputs. Each tool call inside a workflow asks for permission like a direct call would."""

    def is_read_only(self, input: WorkflowInput) -> bool:
        return input.action == "list"

    def is_concurrency_safe(self, input: WorkflowInput) -> bool:
        return input.action == "list"

    async def validate_input(self, input: WorkflowInput, context: ToolUseContext) -> ValidationResult:
        if input.action == "run" and not (input.workflow or "").strip():
            return ValidationError("action=run needs the workflow's name (use action=list to see them).")
        return VALID

    async def check_permissions(self, input: WorkflowInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()  # every step's own tool call is checked when it runs

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        catalog = await _catalog(context)
        if input.action == "list":
            return ToolResult(describe(catalog))
        wf = catalog.workflows.get(input.workflow.strip())
        if wf is None:
            raise ToolError(f"No workflow named {input.workflow!r}.\n{describe(catalog)}")

        async def run_agent(agent_type: str, prompt: str) -> tuple[bool, str]:
            agents = await asyncio.to_thread(load_agents, project_dir(context), _home(context))
            agent = agents.get(agent_type)
            if agent is None:
                return False, f"unknown agent type {agent_type!r} (known: {', '.join(agents.agents)})"
            result = await run_subagent(agent, prompt, context, can_use_tool, get_runtime(context))
            if result.error or result.stop_reason not in ("end_turn", "stop_sequence"):
                return False, result.error or f"the agent stopped: {result.stop_reason}. {result.text}".strip()
            return True, result.text

        report = (lambda p: on_progress(ToolProgress("", p))) if on_progress else None
        try:
            run = await run_workflow(wf, input.inputs, context, can_use_tool, run_agent, report)
        except TemplateError as exc:
            raise ToolError(f"Workflow {wf.name!r}: {exc}") from exc
        if not run.ok:
            raise ToolError(run.report())
        return ToolResult(run)

    def map_result_to_content(self, data: WorkflowRun | str, tool_use_id: str):
        return [{"type": "text", "text": data if isinstance(data, str) else data.report()}]

    def render_tool_use_message(self, input: WorkflowInput) -> str:
        return f"Workflow: {input.workflow}" if input.action == "run" else "Workflow: list"

    def render_tool_result_message(self, output: WorkflowRun | str) -> str:
        if isinstance(output, str):
            return output.splitlines()[0]
        done = sum(s.status == "ok" for s in output.steps)
        return f"{done}/{len(output.steps)} steps ok" + ("" if output.ok else f"; failed at {output.failed_step}")
