"""The session's permission context and hooks: settings files plus the session's own options."""

from __future__ import annotations

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

    return load_settings(config.resolved_project_dir(), home=config.home)


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

    kwargs = {"session_id": session_id, "transcript_path": str(transcript)}
    if settings is not None:
        return HookRunner.from_settings(settings, **kwargs)
    return HookRunner(cwd=config.resolved_project_dir(), **kwargs)
