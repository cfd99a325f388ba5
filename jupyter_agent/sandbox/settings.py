"""The ``sandbox`` block of the Claude Code settings files, merged (later sources win per key).

    {"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true,
                 "allowUnsandboxedCommands": true}}

A session (or a test) may set a ``SandboxSettings`` in ``app_state.extra["sandbox"]``; it then
wins over the files.  A malformed block raises ``AgentConfigError`` naming the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AgentConfigError
from ..permissions.settings import FILE_SOURCES, read_settings_file, settings_path
from ..permissions.trust import is_trusted

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

APP_STATE_KEY = "sandbox"
_KEYS = {
    "enabled": "enabled",
    "autoAllowBashIfSandboxed": "auto_allow",
    "allowUnsandboxedCommands": "allow_unsandboxed",
}


@dataclass(frozen=True)
class SandboxSettings:
    """Whether Bash runs sandboxed, and what may skip asking or leave the sandbox."""

    enabled: bool = False
    auto_allow: bool = True  # sandboxed commands run without asking (ask rules still ask)
    allow_unsandboxed: bool = True  # dangerouslyDisableSandbox may re-run outside (after asking)


def load_sandbox_settings(
    project_dir: str | os.PathLike[str], home: str | os.PathLike[str] | None = None, trusted: bool | None = None
) -> SandboxSettings:
    """The merged ``sandbox`` blocks of the user, project and local settings files.

    In a folder the user has not trusted (``permissions.trust``; ``trusted=None`` looks it up) the
    project's and local files only restrict: their ``true`` for ``autoAllowBashIfSandboxed`` or
    ``allowUnsandboxedCommands`` is held back, and a sandbox they turn on asks as before unless
    the user's own file says sandboxed commands may run unasked.
    """
    project = Path(os.path.abspath(os.fspath(project_dir)))
    home_path = Path(os.fspath(home)) if home is not None else None
    values: dict[str, bool] = {}
    user: dict[str, bool] = {}
    for source in FILE_SOURCES:
        path = settings_path(source, project, home_path)
        block = read_settings_file(path).get("sandbox")
        if block is None:
            continue
        parsed = _parse_block(block, path)
        if source == "userSettings":
            user = parsed
        elif not (is_trusted(project, home_path) if trusted is None else trusted):
            parsed = {k: v for k, v in parsed.items() if k == "enabled" or not v}  # only what restricts
            if parsed.get("enabled") and "auto_allow" not in user:
                parsed["auto_allow"] = False
        values.update(parsed)
    return SandboxSettings(**values)


def _parse_block(block: Any, path: Path) -> dict[str, bool]:
    if not isinstance(block, dict):
        raise AgentConfigError(f"Settings file {path}: 'sandbox' must be an object.")
    parsed: dict[str, bool] = {}
    for key, attr in _KEYS.items():
        if key not in block:
            continue
        if not isinstance(block[key], bool):
            raise AgentConfigError(f"Settings file {path}: sandbox.{key} must be true or false.")
        parsed[attr] = block[key]
    return parsed


def sandbox_settings(context: ToolUseContext) -> SandboxSettings:
    """This session's sandbox settings: the app-state override, else the settings files."""
    override = context.get_app_state().extra.get(APP_STATE_KEY)
    if isinstance(override, SandboxSettings):
        return override
    project = context.permission_context.project_dir or context.cwd
    return load_sandbox_settings(project)
