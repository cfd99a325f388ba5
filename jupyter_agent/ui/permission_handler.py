"""The session's ``can_use_tool``: asks in the active transcript and turns clicks into decisions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from typing_extensions import assert_never

from ..core.permission_types import (
    ELICITATION_REASON,
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionUpdate,
    UserDecision,
)
from .approval import AlwaysAllowed, Approved, Denied, Stopped
from .questions import Answers, KeepPlanning, PlanApproved

if TYPE_CHECKING:
    from ..core.context import AppState, ToolUseContext
    from ..core.tool import ChangePreview, Tool
    from .transcript import Transcript

log = logging.getLogger(__name__)

REJECT_MESSAGE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
REJECT_WITH_FEEDBACK = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\n{feedback}"
)
STOPPED_MESSAGE = "The user stopped the turn before answering this permission request."
NO_UI_MESSAGE = (
    "Permission is needed to run {tool}, but no notebook cell is showing this turn to approve "
    "it. Ask the user to run the request again with %agent."
)
TIMEOUT_MESSAGE = "Nobody answered the permission request for {tool} within {seconds:g} seconds."
DISMISSED_MESSAGE = "The user dismissed the questions without answering. Continue without asking again."


def plan_feedback_message(feedback: str) -> str:
    """ExitPlanMode's keep-planning denial (the tool module's wording, when it is installed)."""
    try:
        from ..tools.plan_mode import plan_feedback
    except ImportError:
        text = feedback.strip() or "(no feedback given)"
        return f"The user did not approve the plan and is staying in plan mode. Their feedback:\n{text}"
    return plan_feedback(feedback).message


def deny_message(feedback: str) -> str:
    return REJECT_WITH_FEEDBACK.format(feedback=feedback) if feedback else REJECT_MESSAGE


def apply_rule_update(update: PermissionUpdate, context: ToolUseContext, project_dir: Path | None) -> str:
    """Save and apply an "Always allow" rule; returns where it went (for the audit line).

    Uses the permission system's settings writer when present; otherwise adds the rule to the
    session's in-memory permission context only.
    """
    try:
        from ..permissions.settings import apply_permission_update
    except ImportError:
        apply_permission_update = None
    if apply_permission_update is not None:
        apply_permission_update(update, context, project_dir)
        return update.destination

    def _add(state: AppState) -> AppState:
        perm = state.tool_permission_context
        table = {"allow": perm.allow_rules, "deny": perm.deny_rules, "ask": perm.ask_rules}[update.behavior]
        merged = dict(table)
        merged["session"] = tuple(dict.fromkeys((*merged.get("session", ()), *update.rules)))
        field_name = f"{update.behavior}_rules"
        return replace(state, tool_permission_context=replace(perm, **{field_name: merged}))

    context.set_app_state(_add)
    return "session"


class WidgetPermissionHandler:
    """``can_use_tool`` for a session whose turns are shown by ``Transcript`` widgets."""

    def __init__(
        self,
        active: Callable[[], Transcript | None],
        *,
        project_dir: Path | None = None,
        timeout: float | None = None,
    ) -> None:
        self._active = active
        self.project_dir = project_dir
        self.timeout = timeout

    async def __call__(
        self, tool: Tool[Any, Any], input: BaseModel, context: ToolUseContext, ask: PermissionAsk, tool_use_id: str
    ) -> UserDecision:
        transcript = self._active()
        if transcript is None:
            return PermissionDeny(NO_UI_MESSAGE.format(tool=tool.name))
        raw = input.model_dump(by_alias=True, exclude_none=True, mode="json")
        try:
            if tool.name == "AskUserQuestion":
                return await self._questions(transcript, tool_use_id, raw)
            if tool.name == "ExitPlanMode":
                return await self._plan(transcript, tool_use_id, raw)
            if ask.reason == ELICITATION_REASON and getattr(ask, "elicitation", None) is not None:
                return await self._elicitation(transcript, tool, context, ask, tool_use_id)
            return await self._approve(transcript, tool, input, context, ask, tool_use_id)
        except asyncio.TimeoutError:
            return PermissionDeny(TIMEOUT_MESSAGE.format(tool=tool.name, seconds=self.timeout))

    async def _wait(self, widget: Any) -> Any:
        """The widget's answer.  Withdrawn (the turn stopped, the session timed it out, or the
        command that asked has ended) or timed out: this widget alone is dismissed."""
        try:
            if self.timeout is None:
                return await widget.wait()
            return await asyncio.wait_for(widget.wait(), self.timeout)
        except (asyncio.CancelledError, asyncio.TimeoutError):
            widget.dismiss()
            raise

    async def _approve(
        self, transcript: Transcript, tool: Tool[Any, Any], input: BaseModel,
        context: ToolUseContext, ask: PermissionAsk, tool_use_id: str,
    ) -> UserDecision:
        change = await _change_preview(tool, input, context)
        panel = transcript.ask_permission(tool_use_id, tool, input, ask, agent_id=context.agent_id, change=change)
        choice = await self._wait(panel)
        match choice:
            case Approved():
                return PermissionAllow(reason="user approved")
            case AlwaysAllowed(update=update):
                try:
                    apply_rule_update(update, context, self.project_dir)
                except Exception as exc:  # saving failed: still run once, tell the user
                    log.warning("could not save rule %s: %s", update.rules, exc)
                    transcript.note(f"Could not save the rule {', '.join(update.rules)}: {exc}")
                return PermissionAllow(reason=f"user always allowed {', '.join(update.rules)}")
            case Denied(feedback=feedback):
                return PermissionDeny(deny_message(feedback), reason="user denied")
            case Stopped():
                return PermissionDeny(STOPPED_MESSAGE, reason="stopped")
            case _:
                assert_never(choice)

    async def _questions(self, transcript: Transcript, tool_use_id: str, raw: dict[str, Any]) -> UserDecision:
        questions = list(raw.get("questions") or [])
        form = transcript.ask_questions(tool_use_id, questions)
        answers: Answers | None = await self._wait(form)
        if answers is None:
            return PermissionDeny(DISMISSED_MESSAGE, reason="dismissed")
        return PermissionAllow(updated_input={"questions": questions, "answers": answers.answers})

    async def _elicitation(
        self, transcript: Transcript, tool: Tool[Any, Any], context: ToolUseContext, ask: PermissionAsk,
        tool_use_id: str,
    ) -> UserDecision:
        """An MCP server's form: what the user did, as ``mcp.elicitation.answer_from_decision``
        reads it (a dismissed form is ``cancel``)."""
        form = transcript.ask_elicitation(tool_use_id, tool, ask.elicitation,  # type: ignore[attr-defined]
                                          agent_id=context.agent_id)
        answer = await self._wait(form)
        return PermissionAllow(updated_input={"action": answer.action, "content": answer.content},
                               reason=f"elicitation {answer.action}")

    async def _plan(self, transcript: Transcript, tool_use_id: str, raw: dict[str, Any]) -> UserDecision:
        plan = str(raw.get("plan", ""))
        widget = transcript.ask_plan(tool_use_id, plan)
        choice = await self._wait(widget)
        match choice:
            case PlanApproved(mode=mode):
                # ExitPlanMode's contract: the tool switches to ``mode`` when it runs.
                return PermissionAllow(updated_input={"plan": plan, "mode": mode}, reason="plan approved")
            case KeepPlanning(feedback=feedback):
                return PermissionDeny(plan_feedback_message(feedback), reason="keep planning")
            case _:
                assert_never(choice)


PREVIEW_SECONDS = 2.0  # an approval is never held up longer to show what changes


async def _change_preview(tool: Any, input: Any, context: ToolUseContext) -> ChangePreview | None:
    """What the call would change, when its input does not show it; None when the tool has no
    preview, or it fails or is slow (the card then shows the input, as always)."""
    try:
        return await asyncio.wait_for(tool.change_preview(input, context), PREVIEW_SECONDS)
    except asyncio.CancelledError:
        raise
    except Exception:
        return None
