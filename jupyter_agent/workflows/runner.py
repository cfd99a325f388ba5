"""Running a workflow: steps in order, templated from inputs and earlier outputs; the first
failing step stops the run.  Tool steps go through the full tool pipeline (so every permission
rule and approval applies); prompt/agent steps run a subagent with the parent's approver."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.context import ToolUseContext
from ..core.orchestration import ToolUseRequest, run_tool_use
from ..core.tool import CanUseTool
from .definition import Step, Workflow

TEMPLATE_RE = re.compile(r"\{\{\s*(inputs|steps)\.([\w-]+)(?:\.(output))?\s*\}\}")
MAX_OUTPUT_IN_REPORT = 4_000
StepStatus = Literal["running", "ok", "failed", "skipped"]


class TemplateError(ValueError):
    pass


@dataclass(frozen=True)
class WorkflowProgress:
    """Sent as ``ToolProgress.data`` before and after each step (for the progress card)."""

    workflow: str
    index: int  # 0-based
    total: int
    step_id: str
    title: str
    status: StepStatus

    def line(self) -> str:
        return f"[{self.index + 1}/{self.total}] {self.title}: {self.status}"


@dataclass
class StepReport:
    step_id: str
    title: str
    status: StepStatus
    output: str = ""
    seconds: float = 0.0


@dataclass
class WorkflowRun:
    workflow: str
    steps: list[StepReport] = field(default_factory=list)
    failed_step: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed_step is None

    def report(self) -> str:
        head = (f"Workflow {self.workflow!r} completed ({len(self.steps)} steps)." if self.ok else
                f"Workflow {self.workflow!r} failed at step {self.failed_step!r}: {self.error}")
        lines = [head]
        for s in self.steps:
            out = s.output if len(s.output) <= MAX_OUTPUT_IN_REPORT else s.output[:MAX_OUTPUT_IN_REPORT] + "\n[…truncated]"
            lines.append(f"\n## {s.step_id} ({s.title}) — {s.status}, {s.seconds:.1f}s\n{out}".rstrip())
        return "\n".join(lines)


def render_template(value: Any, inputs: dict[str, str], outputs: dict[str, str]) -> Any:
    """Substitute ``{{ inputs.x }}`` / ``{{ steps.id.output }}`` in strings, lists and mappings."""
    if isinstance(value, str):
        def sub(m: re.Match[str]) -> str:
            table = inputs if m.group(1) == "inputs" else outputs
            if m.group(2) not in table:
                kind = "input" if m.group(1) == "inputs" else "earlier step"
                raise TemplateError(f"unknown {kind} {m.group(2)!r} in {m.group(0)}")
            return table[m.group(2)]
        return TEMPLATE_RE.sub(sub, value)
    if isinstance(value, list):
        return [render_template(v, inputs, outputs) for v in value]
    if isinstance(value, dict):
        return {k: render_template(v, inputs, outputs) for k, v in value.items()}
    return value


def resolve_inputs(wf: Workflow, given: dict[str, str]) -> dict[str, str]:
    known = {i.name for i in wf.inputs}
    unknown = sorted(set(given) - known)
    if unknown:
        raise TemplateError(f"unknown input(s) {', '.join(unknown)}; {wf.name} takes: {', '.join(sorted(known)) or 'none'}")
    missing = [i.name for i in wf.inputs if i.required and i.name not in given]
    if missing:
        raise TemplateError(f"missing required input(s): {', '.join(missing)}")
    return {i.name: str(given.get(i.name, i.default)) for i in wf.inputs}


Progress = Callable[[WorkflowProgress], None]
AgentRunner = Callable[[str, str], Any]  # (agent type, prompt) -> awaitable (ok, text)


async def _tool_step(step: Step, payload: dict[str, Any], context: ToolUseContext, can_use_tool: CanUseTool) -> tuple[bool, str]:
    if step.tool == "Workflow":
        return False, "a workflow cannot run another workflow"
    req = ToolUseRequest(f"toolu_wf_{uuid.uuid4().hex[:12]}", step.tool or "", payload)
    outcome = await run_tool_use(req, context, can_use_tool)
    text = "\n".join(b.get("text", "") for b in outcome.content if b.get("type") == "text")
    data = outcome.result.data if outcome.result is not None else None
    failed = outcome.is_error or bool(getattr(data, "exit_code", 0)) or bool(getattr(data, "timed_out", False))
    return not failed, text


async def run_workflow(
    wf: Workflow,
    given_inputs: dict[str, str],
    context: ToolUseContext,
    can_use_tool: CanUseTool,
    run_agent: AgentRunner,
    on_progress: Progress | None = None,
) -> WorkflowRun:
    run = WorkflowRun(wf.name)
    inputs = resolve_inputs(wf, given_inputs)
    outputs: dict[str, str] = {}
    emit = on_progress or (lambda _p: None)
    total = len(wf.steps)
    for index, step in enumerate(wf.steps):
        emit(WorkflowProgress(wf.name, index, total, step.id, step.title, "running"))
        started = time.monotonic()
        try:
            if step.kind == "tool":
                ok, text = await _tool_step(step, render_template(step.input, inputs, outputs), context, can_use_tool)
            else:
                ok, text = await run_agent(step.agent, render_template(step.prompt, inputs, outputs))
        except TemplateError as exc:
            ok, text = False, str(exc)
        status: StepStatus = "ok" if ok else "failed"
        run.steps.append(StepReport(step.id, step.title, status, text, time.monotonic() - started))
        emit(WorkflowProgress(wf.name, index, total, step.id, step.title, status))
        if not ok:
            lines = text.strip().splitlines() or ["(no output)"]
            run.failed_step, run.error = step.id, lines[-1] if step.kind == "tool" else lines[0]
            for later in wf.steps[index + 1:]:
                run.steps.append(StepReport(later.id, later.title, "skipped"))
            break
        outputs[step.id] = text
    return run
