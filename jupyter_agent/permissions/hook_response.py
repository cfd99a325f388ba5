"""What a hook says (``HookResponse``) and what all hooks of an event say together (``HookOutcome``).

A command hook's JSON output and a Python hook's returned dict use Claude Code's fields:
``continue``/``stopReason``, ``decision: "block"``/``reason``, ``systemMessage`` and
``hookSpecificOutput: {permissionDecision, permissionDecisionReason, updatedInput,
additionalContext}`` (PermissionRequest: ``hookSpecificOutput.decision: {behavior, message,
updatedInput}``, read into the same fields; Elicitation / ElicitationResult:
``hookSpecificOutput: {action, content}``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

HookDecision = Literal["allow", "deny", "ask"]
_DECISION_RANK = {"allow": 0, "ask": 1, "deny": 2}
# MCP elicitation answers, least to most refusing: several hooks agree on the most refusing
_ACTION_RANK = {"accept": 0, "cancel": 1, "decline": 2}


@dataclass(frozen=True)
class HookResponse:
    """One hook's answer."""

    blocked: bool = False
    reason: str | None = None
    permission_decision: HookDecision | None = None
    permission_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    additional_context: str | None = None
    system_message: str | None = None
    stop: bool = False
    stop_reason: str | None = None
    error: str | None = None
    watch_paths: tuple[str, ...] = ()  # SessionStart / CwdChanged: more files for FileChanged hooks
    worktree_path: str | None = None  # WorktreeCreate: the folder it made (else its plain output says)
    elicitation_action: str | None = None  # Elicitation / ElicitationResult: accept, decline, cancel
    elicitation_content: dict[str, Any] | None = None


def response_from_json(data: object, name: str) -> HookResponse:
    """Interpret a hook's JSON object; a malformed field is an error, never a silent allow."""
    if not isinstance(data, dict):
        return HookResponse(error=f"hook {name} printed JSON that is not an object")
    specific = data.get("hookSpecificOutput") or {}
    if not isinstance(specific, dict):
        specific = {}
    decision = specific.get("permissionDecision")
    reason_text = specific.get("permissionDecisionReason")
    updated = specific.get("updatedInput")
    request = specific.get("decision")  # PermissionRequest: {"behavior": "allow" | "deny", ...}
    if isinstance(request, dict) and decision is None:
        decision = request.get("behavior", "ask")
        reason_text = request.get("message")
        updated = request.get("updatedInput", updated)
    error = None
    if data.get("decision") == "approve" and decision is None:
        decision = "allow"
    if decision is not None and decision not in _DECISION_RANK:
        error = f"hook {name} gave an unknown permissionDecision {decision!r}; asking instead"
        decision = "ask"
    if updated is not None and not isinstance(updated, dict):
        error, updated = f"hook {name} gave an updatedInput that is not an object", None
    action, content = specific.get("action"), specific.get("content")
    if action is not None and action not in _ACTION_RANK:
        error, action = f"hook {name} gave an unknown elicitation action {action!r}", None
    if content is not None and not isinstance(content, dict):
        error, content = f"hook {name} gave elicitation content that is not an object", None
    return HookResponse(
        blocked=data.get("decision") == "block",
        reason=_str(data.get("reason")),
        permission_decision=decision,
        permission_reason=_str(reason_text),
        updated_input=updated,
        additional_context=_str(specific.get("additionalContext")),
        system_message=_str(data.get("systemMessage")),
        stop=data.get("continue") is False,
        stop_reason=_str(data.get("stopReason")),
        error=error,
        watch_paths=tuple(p for p in specific.get("watchPaths") or () if isinstance(p, str) and os.path.isabs(p))
        if isinstance(specific.get("watchPaths"), list) else (),
        worktree_path=_str(specific.get("worktreePath")),
        elicitation_action=action,
        elicitation_content=content,
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class HookOutcome:
    """All matching hooks of one event, merged: deny > ask > allow; a block anywhere blocks."""

    blocked: bool = False
    block_reasons: tuple[str, ...] = ()
    permission_decision: HookDecision | None = None
    permission_reason: str | None = None
    updated_input: dict[str, Any] | None = None
    additional_context: tuple[str, ...] = ()
    system_messages: tuple[str, ...] = ()
    stop: bool = False
    stop_reason: str | None = None
    errors: tuple[str, ...] = ()
    ran: int = 0
    watch_paths: tuple[str, ...] = ()
    worktree_path: str | None = None
    elicitation_action: str | None = None
    elicitation_content: dict[str, Any] | None = None

    @property
    def block_message(self) -> str:
        return "\n".join(self.block_reasons) or "Blocked by a hook."

    @classmethod
    def merge(cls, responses: Sequence[HookResponse]) -> HookOutcome:
        decision: HookDecision | None = None
        reason = None
        for r in responses:
            if r.permission_decision and (
                decision is None or _DECISION_RANK[r.permission_decision] > _DECISION_RANK[decision]
            ):
                decision, reason = r.permission_decision, r.permission_reason
        updated = next((r.updated_input for r in reversed(responses) if r.updated_input is not None), None)
        answers = [r for r in responses if r.elicitation_action]
        answer = max(answers, key=lambda r: _ACTION_RANK[r.elicitation_action or "accept"], default=None)
        return cls(
            blocked=any(r.blocked for r in responses),
            block_reasons=tuple(r.reason or "Blocked by a hook." for r in responses if r.blocked),
            permission_decision=decision,
            permission_reason=reason,
            updated_input=updated,
            additional_context=tuple(r.additional_context for r in responses if r.additional_context),
            system_messages=tuple(r.system_message for r in responses if r.system_message),
            stop=any(r.stop for r in responses),
            stop_reason=next((r.stop_reason for r in responses if r.stop_reason), None),
            errors=tuple(r.error for r in responses if r.error),
            ran=len(responses),
            watch_paths=tuple(dict.fromkeys(p for r in responses for p in r.watch_paths)),
            worktree_path=next((r.worktree_path for r in responses if r.worktree_path), None),
            elicitation_action=answer.elicitation_action if answer else None,
            elicitation_content=answer.elicitation_content if answer else None,
        )
