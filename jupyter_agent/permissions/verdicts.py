"""Asks that no mode may wave through, and the messages the model reads.

An ask from an ask rule or a safety check (protected paths) is *sticky*: bypassPermissions and
a hook's "allow" do not turn it into an allow.  Other asks ("this needs approval") are soft.
"""

from __future__ import annotations

from ..core.permission_types import PermissionAsk, PermissionUpdate, RuleSource

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
    return new_ask(message, suggestions, f"{kind}: {detail}".rstrip(": "))


def _plain_frozen(cls: type, names: tuple[str, ...]) -> bool:
    """Is ``cls`` still a frozen dataclass with exactly these fields, values in ``__dict__``?"""
    params = getattr(cls, "__dataclass_params__", None)
    fields = getattr(cls, "__dataclass_fields__", {})
    return bool(params and params.frozen) and tuple(fields) == names and "__slots__" not in vars(cls)


_NEW = object.__new__
# The permission results are frozen dataclasses; their generated __init__ (one
# object.__setattr__ per field) is a large part of a fast decision.  These build the same
# objects directly; if the classes ever change shape, the plain constructors are used.
_FAST = _plain_frozen(PermissionAsk, ("message", "suggestions", "reason", "behavior")) and _plain_frozen(
    PermissionUpdate, ("rules", "behavior", "destination")
)


def new_ask(message: str, suggestions: tuple[PermissionUpdate, ...] = (), reason: str | None = None) -> PermissionAsk:
    """``PermissionAsk(message, suggestions, reason)``, built without the dataclass __init__."""
    if not _FAST:
        return PermissionAsk(message, suggestions=suggestions, reason=reason)
    ask = _NEW(PermissionAsk)
    values = ask.__dict__
    values["message"], values["suggestions"], values["reason"], values["behavior"] = message, suggestions, reason, "ask"
    return ask


def new_update(rules: tuple[str, ...], destination: RuleSource) -> PermissionUpdate:
    """``PermissionUpdate(rules, "allow", destination)``, built without the dataclass __init__."""
    if not _FAST:
        return PermissionUpdate(rules=rules, destination=destination)
    update = _NEW(PermissionUpdate)
    values = update.__dict__
    values["rules"], values["behavior"], values["destination"] = rules, "allow", destination
    return update


def is_sticky(ask: PermissionAsk) -> bool:
    return bool(ask.reason) and ask.reason.split(":", 1)[0] in (RULE, SAFETY)  # type: ignore[union-attr]
