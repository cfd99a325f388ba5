"""The session's permission context: settings files (when the loader exists) plus session options."""

from __future__ import annotations

from pathlib import Path

from ..core.permission_types import ToolPermissionContext
from .config import SessionConfig


def session_rules_context(config: SessionConfig) -> ToolPermissionContext:
    """Mode and rules from the session options alone (source ``session``)."""
    return ToolPermissionContext(
        mode=config.mode,
        allow_rules={"session": tuple(config.allow)} if config.allow else {},
        deny_rules={"session": tuple(config.deny)} if config.deny else {},
        ask_rules={"session": tuple(config.ask)} if config.ask else {},
        additional_directories=tuple(Path(d) for d in config.additional_directories),
        project_dir=config.resolved_project_dir(),
    )


def build_permission_context(config: SessionConfig) -> ToolPermissionContext:
    """Settings files + session options; raises ``AgentConfigError`` for malformed settings."""
    return session_rules_context(config)
