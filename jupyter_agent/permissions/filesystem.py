"""Path permissions for the file tools (Read, Write, Edit, NotebookEdit, Glob, Grep).

The file tools call ``check_read_permission`` / ``check_write_permission`` from their
``check_permissions``.  Order for reads: deny → ask → allow rules → inside the working
directories → ask.  Writes: deny (Edit *or* Read deny) → ask rules → protected paths (ask in
every mode) → Edit allow rules (on the real path) → acceptEdits inside the working
directories → ask.  Both the path as written and its real path are checked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.context import ToolUseContext
from ..core.permission_types import (
    PermissionAllow,
    PermissionAsk,
    PermissionDeny,
    PermissionResult,
    PermissionUpdate,
    RuleBehavior,
)
from .compiled import compiled_rules
from .paths import (
    BadPath,
    ResolvedPath,
    is_within,
    pattern_matches,
    protected_reason,
    resolve_path,
)
from .verdicts import RULE, SAFETY, sticky_ask

READ_RULES = ("Read",)
EDIT_RULES = ("Edit", "Write", "NotebookEdit")


def project_dir(context: ToolUseContext) -> Path:
    return context.permission_context.project_dir or context.cwd


def working_directories(context: ToolUseContext | None) -> list[Path]:
    """The project directory (or cwd) plus ``additionalDirectories``, as real paths."""
    if context is None:
        return []
    return [Path(r) for r in _roots(context)]


def _roots(context: ToolUseContext) -> tuple[str, ...]:
    return compiled_rules(context.permission_context).working_roots(os.fspath(context.cwd))


def is_in_working_directories(path: str | os.PathLike[str], context: ToolUseContext | None) -> bool:
    """Compare by path components after resolving symlinks (``/w/proj-evil`` ∉ ``/w/proj``)."""
    if context is None:
        return False
    try:
        real = resolve_path(os.fspath(path), context.cwd).real
    except BadPath:
        return False
    return real_in_working_directories(real, context)


def real_in_working_directories(real: str, context: ToolUseContext) -> bool:
    return any(is_within(real, root) for root in _roots(context))


def matching_rule(
    context: ToolUseContext,
    behavior: RuleBehavior,
    rule_names: tuple[str, ...],
    resolved: ResolvedPath,
    *,
    real_only: bool = False,
) -> str | None:
    """The text of the first ``behavior`` rule among ``rule_names`` matching the path."""
    project = os.fspath(project_dir(context))
    target = ResolvedPath(resolved.real, resolved.real) if real_only else resolved
    for text, patterns in compiled_rules(context.permission_context).paths(behavior, rule_names, project):
        if pattern_matches(patterns, target):
            return text
    return None


def read_deny_rule_below(folder: str, context: ToolUseContext) -> str | None:
    """A Read deny rule that may match some file below ``folder`` (for recursive searches)."""
    project = os.fspath(project_dir(context))
    for text, patterns in compiled_rules(context.permission_context).paths("deny", READ_RULES, project):
        if any(p.may_match_below(folder) for p in patterns):
            return text
    return None


def read_denied(path: str, context: ToolUseContext) -> bool:
    """For search tools filtering results: is reading ``path`` denied by a rule?"""
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath:
        return True
    return matching_rule(context, "deny", READ_RULES, resolved) is not None


def check_read_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    denied = matching_rule(context, "deny", READ_RULES, resolved)
    if denied is not None:
        return PermissionDeny(f"Permission to read {path} has been denied by the rule {denied}.")
    asked = matching_rule(context, "ask", READ_RULES, resolved)
    if asked is not None:
        return sticky_ask(f"{_name(tool)} wants to read {path} (rule {asked}).", RULE, asked)
    allowed = matching_rule(context, "allow", READ_RULES, resolved, real_only=True)
    if allowed is not None:
        return PermissionAllow(reason=f"rule {allowed}")
    if real_in_working_directories(resolved.real, context):
        return PermissionAllow(reason="inside the working directories")
    folder = os.path.dirname(resolved.real) or "/"
    return PermissionAsk(
        f"{_name(tool)} wants to read {path}, outside the working directories.",
        suggestions=(PermissionUpdate(rules=(f"Read(/{folder}/**)",), destination="session"),),
    )


def check_write_permission(tool: Any, path: str, context: ToolUseContext) -> PermissionResult:
    try:
        resolved = resolve_path(path, context.cwd)
    except BadPath as exc:
        return PermissionDeny(str(exc))
    denied = matching_rule(context, "deny", EDIT_RULES, resolved) or matching_rule(
        context, "deny", READ_RULES, resolved
    )
    if denied is not None:
        return PermissionDeny(f"Permission to write {path} has been denied by the rule {denied}.")
    asked = matching_rule(context, "ask", EDIT_RULES, resolved)
    if asked is not None:
        return sticky_ask(f"{_name(tool)} wants to write {path} (rule {asked}).", RULE, asked)
    protected = protected_reason(resolved)
    if protected is not None:
        return sticky_ask(f"{_name(tool)} wants to write {path}: {protected}.", SAFETY, protected)
    allowed = matching_rule(context, "allow", EDIT_RULES, resolved, real_only=True)
    if allowed is not None:
        return PermissionAllow(reason=f"rule {allowed}")
    inside = real_in_working_directories(resolved.real, context)
    if inside and context.permission_context.mode == "acceptEdits":
        return PermissionAllow(reason="acceptEdits mode")
    return PermissionAsk(
        _write_message(tool, path, resolved, inside),
        suggestions=(PermissionUpdate(rules=(_edit_rule_for(resolved, context),), destination="session"),),
    )


def _write_message(tool: Any, path: str, resolved: ResolvedPath, inside: bool) -> str:
    if inside:
        return f"{_name(tool)} wants to write {path}."
    where = f" (really {resolved.real})" if resolved.real != resolved.lexical else ""
    return f"{_name(tool)} wants to write {path}{where}, outside the working directories."


def _edit_rule_for(resolved: ResolvedPath, context: ToolUseContext) -> str:
    for root in working_directories(context):
        if is_within(resolved.real, str(root)):
            return f"Edit(/{root}/**)"
    return f"Edit(/{os.path.dirname(resolved.real)}/**)"


def _name(tool: Any) -> str:
    return getattr(tool, "name", None) or str(tool)
