"""Claude Code settings files → the session's ``ToolPermissionContext`` and hook config.

Sources, lowest to highest precedence: ``~/.claude/settings.json``,
``<project>/.claude/settings.json``, ``<project>/.claude/settings.local.json``, then the
session's own options.  Rules of every source are kept (a deny anywhere wins); the mode comes
from the highest source that sets one.  A malformed file or rule raises ``AgentConfigError``
naming the file and the problem.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.permission_types import (
    PERMISSION_MODES,
    PermissionMode,
    RuleSource,
    ToolPermissionContext,
)
from ..errors import AgentConfigError
from .hooks_config import HookMatcher, parse_hooks
from .rules import RuleSyntaxError, parse_rule

FILE_SOURCES: tuple[RuleSource, ...] = ("userSettings", "projectSettings", "localSettings")
_BEHAVIORS = ("allow", "ask", "deny")


def settings_path(source: RuleSource, project_dir: Path, home: Path | None = None) -> Path:
    """Where a settings source lives on disk."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    if source == "userSettings":
        return home / ".claude" / "settings.json"
    if source == "projectSettings":
        return project_dir / ".claude" / "settings.json"
    if source == "localSettings":
        return project_dir / ".claude" / "settings.local.json"
    raise ValueError(f"{source} is not stored in a file")


@dataclass(frozen=True)
class Settings:
    """Everything the permission system reads from the settings files."""

    project_dir: Path
    home: Path
    rules: dict[str, dict[RuleSource, tuple[str, ...]]] = field(default_factory=dict)
    default_mode: PermissionMode | None = None
    additional_directories: tuple[Path, ...] = ()
    hooks: tuple[HookMatcher, ...] = ()
    files: tuple[Path, ...] = ()
    bypass_disabled_by: Path | None = None  # permissions.disableBypassPermissionsMode: "disable"
    cleanup_period_days: int | None = None  # cleanupPeriodDays (the highest-precedence file's)


def read_settings_file(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when absent); AgentConfigError when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AgentConfigError(f"Cannot read settings file {path}: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AgentConfigError(
            f"Settings file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from exc
    if not isinstance(data, dict):
        raise AgentConfigError(f"Settings file {path} must contain a JSON object, not {type(data).__name__}.")
    return data


def load_settings(project_dir: str | os.PathLike[str], home: str | os.PathLike[str] | None = None) -> Settings:
    """Read and validate the three settings files of ``project_dir``."""
    project = Path(os.path.abspath(os.fspath(project_dir)))
    home_path = Path(os.fspath(home)) if home is not None else Path(os.path.expanduser("~"))
    rules: dict[str, dict[RuleSource, tuple[str, ...]]] = {b: {} for b in _BEHAVIORS}
    mode: PermissionMode | None = None
    dirs: list[Path] = []
    hooks: list[HookMatcher] = []
    files: list[Path] = []
    bypass_off: Path | None = None
    cleanup_days: int | None = None
    for source in FILE_SOURCES:
        path = settings_path(source, project, home_path)
        data = read_settings_file(path)
        if not data:
            continue
        files.append(path)
        perms = _permissions_block(data, path)
        for behavior in _BEHAVIORS:
            rules[behavior][source] = validate_rules(perms.get(behavior, []), f"{path}: permissions.{behavior}")
        mode = _mode(perms.get("defaultMode"), path) or mode
        base = home_path if source == "userSettings" else project
        dirs.extend(_directories(perms.get("additionalDirectories", []), base, path))
        hooks.extend(parse_hooks(data.get("hooks", {}), path, source))
        if perms.get("disableBypassPermissionsMode") == "disable":
            bypass_off = bypass_off or path
        if "cleanupPeriodDays" in data:
            cleanup_days = _cleanup_days(data["cleanupPeriodDays"], path)
    return Settings(project, home_path, rules, mode, tuple(dirs), tuple(hooks), tuple(files), bypass_off,
                    cleanup_days)


def _cleanup_days(value: Any, path: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AgentConfigError(f"{path}: cleanupPeriodDays must be a whole number of days (0 keeps every "
                               f"session), not {value!r}")
    return value


def _permissions_block(data: dict[str, Any], path: Path) -> dict[str, Any]:
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise AgentConfigError(f"Settings file {path}: 'permissions' must be an object.")
    return perms


def validate_rules(rules: object, where: str) -> tuple[str, ...]:
    """Rules as a tuple of strings, each one parsed; AgentConfigError names ``where``."""
    if not isinstance(rules, list | tuple) or not all(isinstance(r, str) for r in rules):
        raise AgentConfigError(f"{where} must be a list of rule strings like \"Bash(git diff:*)\".")
    for text in rules:
        try:
            rule = parse_rule(text)
        except RuleSyntaxError as exc:
            raise AgentConfigError(f"{where}: invalid rule {text!r}: {exc}.") from exc
        content = rule.content or ""
        if rule.tool_name == "Bash" and ":*" in content[:-2]:
            raise AgentConfigError(f"{where}: invalid rule {text!r}: ':*' is only allowed at the end.")
        if rule.tool_name == "WebFetch" and rule.content is not None and not content.startswith("domain:"):
            raise AgentConfigError(f"{where}: invalid rule {text!r}: use WebFetch(domain:example.com).")
    return tuple(rules)


def _mode(value: object, path: Path) -> PermissionMode | None:
    if value is None:
        return None
    if value not in PERMISSION_MODES:
        raise AgentConfigError(
            f"Settings file {path}: defaultMode {value!r} is not one of {', '.join(PERMISSION_MODES)}."
        )
    return value  # type: ignore[return-value]


def _directories(value: object, base: Path, where: object) -> list[Path]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str | os.PathLike) for v in value):
        raise AgentConfigError(f"{where}: additionalDirectories must be a list of folder paths.")
    return [Path(os.path.normpath(base / os.path.expanduser(os.fspath(v)))) for v in value]


def build_permission_context(
    settings: Settings,
    *,
    mode: PermissionMode | None = None,
    allow: Iterable[str] = (),
    ask: Iterable[str] = (),
    deny: Iterable[str] = (),
    additional_directories: Iterable[str | os.PathLike[str]] = (),
    source: RuleSource = "cliArg",
) -> ToolPermissionContext:
    """Settings plus the session's options (magic flags / API) as the permission context."""
    if mode is not None and mode not in PERMISSION_MODES:
        raise AgentConfigError(f"Permission mode {mode!r} is not one of {', '.join(PERMISSION_MODES)}.")
    session = {
        "allow": validate_rules(list(allow), "allow rule option"),
        "ask": validate_rules(list(ask), "ask rule option"),
        "deny": validate_rules(list(deny), "deny rule option"),
    }
    tables = {b: dict(settings.rules.get(b, {})) for b in _BEHAVIORS}
    for behavior, extra in session.items():
        if extra:
            tables[behavior][source] = tables[behavior].get(source, ()) + extra
    extra_dirs = _directories(list(additional_directories), settings.project_dir, "additional directories option")
    final_mode = mode or settings.default_mode or "default"
    if final_mode == "bypassPermissions" and settings.bypass_disabled_by is not None:
        raise AgentConfigError(
            f"bypassPermissions mode is disabled by {settings.bypass_disabled_by} "
            "(permissions.disableBypassPermissionsMode). Use another mode."
        )
    return ToolPermissionContext(
        mode=final_mode,
        allow_rules=tables["allow"],
        deny_rules=tables["deny"],
        ask_rules=tables["ask"],
        additional_directories=settings.additional_directories + tuple(extra_dirs),
        project_dir=settings.project_dir,
    )


def apply_permission_update(update: Any, context: Any, project_dir: Any = None, **kwargs: Any) -> Any:
    """Re-export of ``updates.apply_permission_update`` (imported lazily: updates imports this module)."""
    from .updates import apply_permission_update as apply

    return apply(update, context, project_dir, **kwargs)
