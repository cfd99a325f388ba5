""""Always allow": add a rule to the session and, for file destinations, to a settings file.

The settings file is rewritten atomically and everything else in it is kept.  A malformed
file is never overwritten: the error is raised instead.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.atomic import atomic_write_text
from ..core.context import AppState, ToolUseContext
from ..core.permission_types import PermissionUpdate, ToolPermissionContext
from ..errors import AgentConfigError
from .settings import FILE_SOURCES, read_settings_file, settings_path, validate_rules

_TABLES = {"allow": "allow_rules", "deny": "deny_rules", "ask": "ask_rules"}
# settings files this process rewrote, with their ``file_signature`` just after: a session that
# notices the change on disk knows it made it itself (its rules are in force already)
OWN_WRITES: dict[Path, object] = {}


def file_signature(path: Path) -> object:
    """What a change on disk changes: times, size, inode (None: no file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _written(path: Path, text: str) -> None:
    atomic_write_text(path, text)
    OWN_WRITES[path] = file_signature(path)


def apply_permission_update(
    update: PermissionUpdate,
    context: ToolUseContext,
    project_dir: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
) -> Path | None:
    """Add ``update.rules`` now; also persist them when the destination is a settings file.

    Returns the settings file written, or None for session-only updates.
    """
    rules = validate_rules(list(update.rules), f"{update.behavior} rule update")
    if update.behavior == "allow" and context.permission_context.managed_rules_only:
        from .settings import managed_only_message

        raise AgentConfigError(managed_only_message(None, rules))
    context.set_app_state(lambda state: _with_rules(state, update, rules))
    if update.destination not in FILE_SOURCES:
        return None
    project = Path(project_dir) if project_dir is not None else (
        context.permission_context.project_dir or context.cwd
    )
    path = settings_path(update.destination, project, Path(home) if home is not None else None)
    add_rules_to_file(path, update.behavior, rules)
    return path


def _with_rules(state: AppState, update: PermissionUpdate, rules: tuple[str, ...]) -> AppState:
    pc = state.tool_permission_context
    table = dict(getattr(pc, _TABLES[update.behavior]))
    existing = table.get(update.destination, ())
    table[update.destination] = existing + tuple(r for r in rules if r not in existing)
    changes: dict[str, Any] = {_TABLES[update.behavior]: table}
    new_pc: ToolPermissionContext = replace(pc, **changes)
    return replace(state, tool_permission_context=new_pc)


def add_rules_to_file(path: Path, behavior: str, rules: tuple[str, ...]) -> None:
    """Append missing ``rules`` to ``permissions.<behavior>`` in ``path``, atomically."""
    data = read_settings_file(path)
    perms = data.setdefault("permissions", {})
    if not isinstance(perms, dict):
        raise AgentConfigError(f"Settings file {path}: 'permissions' must be an object; not changing it.")
    current = perms.setdefault(behavior, [])
    if not isinstance(current, list):
        raise AgentConfigError(f"Settings file {path}: permissions.{behavior} must be a list; not changing it.")
    added = [r for r in rules if r not in current]
    if not added:
        return
    current.extend(added)
    _written(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def remove_rule_from_file(path: Path, rule: str) -> list[str]:
    """Remove ``rule`` from ``permissions.allow / ask / deny`` in ``path``, atomically (everything
    else kept); returns the behaviours it was removed from (empty: the file does not have it)."""
    data = read_settings_file(path)
    perms = data.get("permissions")
    if not isinstance(perms, dict):
        return []
    removed = [b for b in _TABLES if isinstance(perms.get(b), list) and rule in perms[b]]
    for behavior in removed:
        perms[behavior] = [r for r in perms[behavior] if r != rule]
    if removed:
        _written(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return removed
