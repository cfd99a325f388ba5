"""Asks that no mode may wave through, and the messages the model reads.

An ask from an ask rule or a safety check (protected paths) is *sticky*: bypassPermissions and
a hook's "allow" do not turn it into an allow.  Other asks ("this needs approval") are soft.
"""

from __future__ import annotations

from ..core.permission_types import PermissionAsk, PermissionUpdate

RULE = "rule"
SAFETY = "safety"

PLAN_MODE_MESSAGE = (
    "Plan mode is on: only read-only tools may run. Finish the plan and call ExitPlanMode "
    "to ask the user to approve it before making changes."
)
DONT_ASK_MESSAGE = (
    "Permission to use {tool} was not granted, and the session is in dontAsk mode "
    "(nothing is asked). Use another approach or ask the user to allow it."
)


def sticky_ask(
    message: str, kind: str, detail: str = "", suggestions: tuple[PermissionUpdate, ...] = ()
) -> PermissionAsk:
    """An ask that bypassPermissions and hook approvals cannot skip (``kind``: rule/safety)."""
    return PermissionAsk(message, suggestions=suggestions, reason=f"{kind}: {detail}".rstrip(": "))


def is_sticky(ask: PermissionAsk) -> bool:
    return bool(ask.reason) and ask.reason.split(":", 1)[0] in (RULE, SAFETY)  # type: ignore[union-attr]
