"""VerifyPlanExecution (feature flag ``verify_plan_execution``): check the approved plan's steps
against what the session actually changed, and report the gaps.

Evidence: the files and notebooks changed this session (the checkpoint store), the todo list
and the task list.  A step that names files is "done" when all of them were changed and a
"gap" otherwise; a step that names no file is "unverified" (the model must check it itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..core.context import ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionResult
from ..core.result import ToolResult
from ..errors import ToolError
from ._read_only import ReadOnlyTool
from .plan_mode import get_plan_state

StepStatus = Literal["done", "gap", "unverified"]
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+(?:\[[ xX]\]\s+)?(.+?)\s*$")
_PATH = re.compile(r"`([^`\s]+)`|((?:[\w.-]+/)*[\w-]+\.[A-Za-z][\w]{0,7})\b")
MARKS = {"done": "✓", "gap": "✗", "unverified": "?"}


@dataclass(frozen=True)
class StepCheck:
    step: str
    status: StepStatus
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass
class PlanVerification:
    steps: list[StepCheck] = field(default_factory=list)
    open_items: list[str] = field(default_factory=list)

    def text(self) -> str:
        counts = {s: sum(c.status == s for c in self.steps) for s in MARKS}
        lines = [
            f"Plan verification: {len(self.steps)} step(s) — {counts['done']} done, "
            f"{counts['gap']} with gaps, {counts['unverified']} not verifiable from file changes."
        ]
        for c in self.steps:
            line = f"{MARKS[c.status]} {c.step}"
            if c.changed:
                line += f"  [changed: {', '.join(c.changed)}]"
            if c.missing:
                line += f"  [NOT changed: {', '.join(c.missing)}]"
            lines.append(line)
        if self.open_items:
            lines.append("Unfinished todos/tasks:")
            lines.extend(f"- {item}" for item in self.open_items)
        if counts["gap"] or counts["unverified"] or self.open_items:
            lines.append(
                "Check each ✗ and ? step yourself (Read the files, run the tests) and finish what is "
                "missing before telling the user the plan is done."
            )
        else:
            lines.append("Every step has matching changes and nothing is left open.")
        return "\n".join(lines)


def plan_steps(plan: str) -> list[str]:
    """The list items of a Markdown plan (numbered or bulleted), in order."""
    steps = []
    for line in plan.splitlines():
        match = _ITEM.match(line)
        if match:
            steps.append(match.group(1).strip())
    return steps or [line.strip() for line in plan.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def mentioned_paths(step: str) -> list[str]:
    found = []
    for quoted, bare in _PATH.findall(step):
        candidate = (quoted or bare).strip("./") if (quoted or bare) else ""
        if candidate and ("." in candidate.rsplit("/", 1)[-1] or "/" in candidate) and candidate not in found:
            found.append(candidate)
    return found


def verify(plan: str, changed_files: list[str], open_items: list[str]) -> PlanVerification:
    result = PlanVerification(open_items=list(open_items))
    normalized = [f.replace("\\", "/") for f in changed_files]
    for step in plan_steps(plan):
        paths = mentioned_paths(step)
        if not paths:
            result.steps.append(StepCheck(step, "unverified"))
            continue
        hit = tuple(p for p in paths if any(f == p or f.endswith("/" + p) for f in normalized))
        miss = tuple(p for p in paths if p not in hit)
        result.steps.append(StepCheck(step, "gap" if miss else "done", hit, miss))
    return result


async def _open_items(context: ToolUseContext) -> list[str]:
    from ..tasklist import task_store_for

    items = [f"todo: {t.content} ({t.status})" for t in context.get_app_state().todos if t.status != "completed"]
    data = await task_store_for(context).list()
    items.extend(f"task #{t.id}: {t.subject} ({t.status})" for t in data.tasks if t.status != "completed")
    return items


class VerifyPlanInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VerifyPlanExecutionTool(ReadOnlyTool[VerifyPlanInput, PlanVerification]):
    """After carrying out an approved plan, check each of its steps against the files and
    notebooks actually changed this session and the open todos/tasks, and get the gaps."""

    name = "VerifyPlanExecution"
    input_schema = VerifyPlanInput

    async def check_permissions(self, input: VerifyPlanInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        from ..checkpoints import get_store

        plan = get_plan_state(context.get_app_state()).approved_plan
        if not plan:
            raise ToolError("There is no approved plan to verify: plans are approved through ExitPlanMode.")
        store = get_store(context.get_app_state())
        changed = store.changed_files() if store is not None else []
        return ToolResult(verify(plan, changed, await _open_items(context)))

    def map_result_to_content(self, data: PlanVerification, tool_use_id: str):
        return [{"type": "text", "text": data.text()}]
