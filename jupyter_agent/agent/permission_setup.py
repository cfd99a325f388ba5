"""The session's permission context and hooks: settings files plus the session's own options."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.permission_types import ToolPermissionContext
from .config import SessionConfig


def session_rules_context(config: SessionConfig) -> ToolPermissionContext:
    """Mode and rules from the session options alone (``load_settings=False``)."""
    return ToolPermissionContext(
        mode=config.mode or "default",
        allow_rules={"cliArg": tuple(config.allow)} if config.allow else {},
        deny_rules={"cliArg": tuple(config.deny)} if config.deny else {},
        ask_rules={"cliArg": tuple(config.ask)} if config.ask else {},
        additional_directories=tuple(Path(d) for d in config.additional_directories),
        project_dir=config.resolved_project_dir(),
    )


def load_session_settings(config: SessionConfig) -> Any | None:
    """The parsed settings files (``AgentConfigError`` when malformed), or None when disabled."""
    if not config.load_settings:
        return None
    from ..permissions.settings import load_settings

    trusted = True if config.trust_project else None  # None: the trust store decides
    return load_settings(config.resolved_project_dir(), home=config.home, trusted=trusted)


def build_permission_context(config: SessionConfig, settings: Any | None) -> ToolPermissionContext:
    """Settings files + session options (rules of every source kept; the session's mode wins)."""
    if settings is None:
        return session_rules_context(config)
    from ..permissions.settings import build_permission_context as from_settings

    return from_settings(
        settings,
        mode=config.mode,
        allow=config.allow,
        ask=config.ask,
        deny=config.deny,
        additional_directories=config.additional_directories,
    )


def make_hook_runner(settings: Any | None, config: SessionConfig, session_id: str, transcript: Path) -> Any:
    """The session's HookRunner (settings hooks; Python hooks can be registered on it)."""
    from ..permissions.hooks import HookRunner

    class SessionHookRunner(HookRunner):
        def use_settings(self, settings: Any) -> None:
            """The settings' hooks and ``env`` from now on (the folder became trusted); Python hooks stay."""
            self._matchers = list(settings.hooks)
            self.extra_env = dict(settings.env)
            self.http_policy = settings.http_hook_policy

    kwargs: dict[str, Any] = {"session_id": session_id, "transcript_path": str(transcript)}
    if settings is not None:
        if settings.env:  # hook commands see the settings' variables, as Bash commands do
            kwargs["env"] = dict(settings.env)
        return SessionHookRunner.from_settings(settings, **kwargs)
    return SessionHookRunner(cwd=config.resolved_project_dir(), **kwargs)


def reloaded_permission_context(
    current: ToolPermissionContext, config: SessionConfig, old: Any | None, settings: Any
) -> tuple[ToolPermissionContext, str | None]:
    """``current`` with the settings files read again: their rules, folders and switches replace
    the old files', while the session's own (options, rules and folders added since, the mode)
    stay; a mode the files now disable falls back to ``default`` (the note says so).
    AgentConfigError when the session's options cannot stand beside the new files."""
    from ..permissions.settings import FILE_SOURCES
    from ..permissions.settings import build_permission_context as from_settings

    files = (*FILE_SOURCES, "policySettings")
    fresh = from_settings(settings, mode="default", allow=config.allow, ask=config.ask, deny=config.deny,
                          additional_directories=config.additional_directories)
    tables = {}
    for name in ("allow_rules", "deny_rules", "ask_rules"):
        table = {source: rules for source, rules in getattr(current, name).items() if source not in files}
        table.update({source: rules for source, rules in getattr(fresh, name).items() if source in files})
        tables[name] = table
    gone = set(old.additional_directories) if old is not None else set()
    folders = tuple(dict.fromkeys((*(d for d in current.additional_directories if d not in gone),
                                   *fresh.additional_directories)))
    mode, note = current.mode, None
    for disabled, by in (("bypassPermissions", fresh.bypass_disabled_by), ("auto", fresh.auto_disabled_by)):
        if mode == disabled and by is not None:
            mode, note = "default", f"{disabled} mode is now disabled by {by}; the session is back in default mode."
    return replace(
        current, mode=mode, additional_directories=folders, block_outside_reads=fresh.block_outside_reads,
        block_outside_writes=fresh.block_outside_writes, prompts_off_by=fresh.prompts_off_by,
        managed_rules_only=fresh.managed_rules_only, bypass_disabled_by=fresh.bypass_disabled_by,
        auto_disabled_by=fresh.auto_disabled_by, **tables,
    ), note


def trusted_permission_context(
    current: ToolPermissionContext, initial: ToolPermissionContext, config: SessionConfig, settings: Any
) -> ToolPermissionContext:
    """``current`` with the trusted settings applied: the files' rules and folders, and their mode
    unless the mode was changed during the session.  Session rules added since stay."""
    from ..permissions.settings import FILE_SOURCES

    fresh = build_permission_context(config, settings)  # AgentConfigError: bypass mode disabled
    tables = {}
    for name in ("allow_rules", "deny_rules", "ask_rules"):
        table = dict(getattr(current, name))
        table.update({source: rules for source, rules in getattr(fresh, name).items() if source in FILE_SOURCES})
        tables[name] = table
    folders = tuple(dict.fromkeys((*current.additional_directories, *fresh.additional_directories)))
    mode = fresh.mode if current.mode == initial.mode else current.mode
    return replace(current, mode=mode, additional_directories=folders, **tables)

