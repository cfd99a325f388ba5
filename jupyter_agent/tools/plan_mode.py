"""EnterPlanMode / ExitPlanMode: explore read-only, then ask the user to approve a plan.

Plan mode is the permission context's mode ``"plan"``: the permission pipeline denies every
call that is not read-only.  ``EnterPlanMode`` switches the shared app state to ``"plan"`` and
remembers the mode it replaced.

Contract with the UI (the plan-approval widget answers ``can_use_tool``)
------------------------------------------------------------------------
``ExitPlanMode`` always asks: the pipeline calls ``can_use_tool(tool, input, context, ask,
tool_use_id)`` with ``tool.name == "ExitPlanMode"``, ``input.plan`` (Markdown) and
``ask.message == "Approve this plan and leave plan mode?"``.  The widget answers with

* ``PermissionAllow()`` — approved; the session continues in the mode it had before plan mode
  (``default`` when that was ``plan`` or unknown);
* ``PermissionAllow(updated_input={"plan": <plan, possibly edited>, "mode": "default" |
  "acceptEdits"})`` — approved, continue in that mode (``approval_input(plan, mode)`` builds it);
* ``PermissionDeny(message)`` — keep planning; build the message with
  ``plan_feedback(feedback)`` so the model reads the user's feedback.

In ``dontAsk`` mode the pipeline denies the ask; the model is told to keep planning.
The approved plan is kept in ``AppState.extra["plan_mode"].approved_plan`` for
``VerifyPlanExecution``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from ..core.context import AppState, ToolUseContext
from ..core.permission_types import PermissionAllow, PermissionDeny, PermissionMode, PermissionResult
from ..core.result import ToolResult
from ..core.tool import VALID, Tool, ValidationError, ValidationResult
from ..permissions.verdicts import SAFETY, sticky_ask

STATE_KEY = "plan_mode"
EXIT_ASK_MESSAGE = "Approve this plan and leave plan mode?"
ContinueMode = Literal["default", "acceptEdits"]

ENTERED_TEXT = (
    "Entered plan mode. Explore the code with read-only tools (Read, Glob, Grep...) and design "
    "an implementation approach; do not edit files yet. When the plan is ready, call "
    "ExitPlanMode with the plan to ask the user to approve it."
)


@dataclass(frozen=True)
class PlanModeState:
    """What plan mode remembers: the mode it replaced and the last approved plan."""

    previous_mode: PermissionMode = "default"
    approved_plan: str | None = None


def get_plan_state(state: AppState) -> PlanModeState:
    value = state.extra.get(STATE_KEY)
    return value if isinstance(value, PlanModeState) else PlanModeState()


def _set_mode(state: AppState, mode: PermissionMode, plan_state: PlanModeState) -> AppState:
    perm = replace(state.tool_permission_context, mode=mode)
    return replace(state, tool_permission_context=perm, extra={**state.extra, STATE_KEY: plan_state})


def plan_feedback(feedback: str) -> PermissionDeny:
    """The denial the approval widget returns when the user wants changes to the plan."""
    text = feedback.strip() or "(no feedback given)"
    return PermissionDeny(
        "The user did not approve the plan and is staying in plan mode. Their feedback:\n"
        f"{text}\nRevise the plan accordingly and call ExitPlanMode again."
    )


def approval_input(plan: str, mode: ContinueMode = "default") -> PermissionAllow:
    """The allow the approval widget returns for an approved plan and the mode to continue in."""
    return PermissionAllow(updated_input={"plan": plan, "mode": mode})


class EnterPlanModeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnterPlanModeTool(Tool[EnterPlanModeInput, str]):
    """Enter plan mode before a non-trivial implementation task: explore the code read-only,
    design an approach, then present it with ExitPlanMode for the user's approval. Use it when
    the task is ambiguous, touches several files, or has several reasonable approaches."""

    name = "EnterPlanMode"
    input_schema = EnterPlanModeInput

    def is_read_only(self, input: EnterPlanModeInput) -> bool:
        return True

    async def check_permissions(self, input: EnterPlanModeInput, context: ToolUseContext) -> PermissionResult:
        return PermissionAllow()  # entering plan mode only takes capabilities away

    async def validate_input(self, input: EnterPlanModeInput, context: ToolUseContext) -> ValidationResult:
        if context.agent_id is not None:
            return ValidationError("EnterPlanMode cannot be used by subagents.")
        if context.permission_context.mode == "plan":
            return ValidationError("Already in plan mode. Finish the plan and call ExitPlanMode.")
        return VALID

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        previous = context.permission_context.mode
        context.set_app_state(
            lambda s: _set_mode(s, "plan", replace(get_plan_state(s), previous_mode=previous))
        )
        return ToolResult(ENTERED_TEXT)


class ExitPlanModeInput(BaseModel):
    plan: str = Field(min_length=1, description="The plan to present to the user, in Markdown")
    # Set only by the approval widget (through updated_input), never by the model.
    mode: SkipJsonSchema[ContinueMode | None] = None


@dataclass(frozen=True)
class ExitPlanModeOutput:
    plan: str
    mode: PermissionMode


class ExitPlanModeTool(Tool[ExitPlanModeInput, ExitPlanModeOutput]):
    """Present your implementation plan to the user for approval and leave plan mode.

    Call it only in plan mode, once the plan is complete: concrete steps, files to change, how
    to verify. If the user asks for changes you stay in plan mode and get their feedback."""

    name = "ExitPlanMode"
    aliases = ("ExitPlanModeV2",)
    input_schema = ExitPlanModeInput

    def is_read_only(self, input: ExitPlanModeInput) -> bool:
        return True  # it must be callable in plan mode; it changes nothing on disk

    async def validate_input(self, input: ExitPlanModeInput, context: ToolUseContext) -> ValidationResult:
        if input.mode is not None:
            return ValidationError("An unexpected parameter `mode` was provided; send only `plan`.")
        if context.permission_context.mode != "plan":
            return ValidationError(
                "You are not in plan mode. This tool is only for exiting plan mode after "
                "writing a plan; go ahead with the work instead."
            )
        return VALID

    async def check_permissions(self, input: ExitPlanModeInput, context: ToolUseContext) -> PermissionResult:
        # Sticky: only the user approves a plan (not bypass mode, an allow rule or a hook).
        return sticky_ask(EXIT_ASK_MESSAGE, SAFETY, "only the user can approve a plan")

    async def call(self, input, context, can_use_tool, parent_message, on_progress=None):
        plan_state = get_plan_state(context.get_app_state())
        mode: PermissionMode = input.mode or (
            plan_state.previous_mode if plan_state.previous_mode != "plan" else "default"
        )
        approved = PlanModeState(previous_mode=mode, approved_plan=input.plan)
        context.set_app_state(lambda s: _set_mode(s, mode, approved))
        return ToolResult(ExitPlanModeOutput(input.plan, mode))

    def render_tool_result_message(self, output: ExitPlanModeOutput) -> str:
        return f"Continuing in {output.mode} mode"

    def map_result_to_content(self, data: ExitPlanModeOutput, tool_use_id: str) -> list[Any]:
        text = (
            f"User has approved your plan. Permission mode is now {data.mode}. You can now start "
            f"coding; start with updating your todo list if applicable.\n\n## Approved Plan:\n{data.plan}"
        )
        return [{"type": "text", "text": text}]
