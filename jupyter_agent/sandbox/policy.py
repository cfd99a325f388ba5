"""How the sandbox changes a Bash call: its permission, its command line, and its error notes.

* ``dangerouslyDisableSandbox: true`` always asks (a sticky ask: bypassPermissions and hooks do
  not skip it), or is denied when ``allowUnsandboxedCommands`` is false.
* With ``autoAllowBashIfSandboxed`` (the default), a command that would only ask because it
  "needs approval" runs sandboxed without asking; deny rules, ask rules and safety asks remain.
* Fail closed: with the sandbox enabled and bwrap unusable, nothing is auto-allowed and the
  call fails with "sandbox unavailable" unless the user approved running it outside.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionResult
from ..errors import AgentConfigError, ToolError
from ..permissions.verdicts import SAFETY, is_sticky, sticky_ask
from .bwrap import bwrap_args, probe
from .settings import SandboxSettings, sandbox_settings

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

UNSANDBOXED_DENIED = (
    "Running commands outside the sandbox is disabled by the settings "
    "(sandbox.allowUnsandboxedCommands is false). Run the command without dangerouslyDisableSandbox."
)
SANDBOX_NOTE = (
    "The command ran in the sandbox (read-only filesystem outside the working directories and "
    "/tmp, protected paths read-only, no network) and may have failed because of it. If it must "
    "run outside, call Bash again with dangerouslyDisableSandbox: true (the user will be asked)."
)
_SANDBOX_SYMPTOMS = re.compile(
    r"Read-only file system|Network is unreachable|Temporary failure in name resolution|"
    r"Could not resolve host|Name or service not known|getaddrinfo|^bwrap: ",
    re.MULTILINE,
)


def settings_or_deny(context: ToolUseContext) -> SandboxSettings | PermissionDeny:
    try:
        return sandbox_settings(context)
    except AgentConfigError as exc:  # fail closed: a broken sandbox block runs nothing
        return PermissionDeny(f"The sandbox settings are invalid, so Bash cannot run: {exc}")


async def sandbox_permission(
    command: str, unsandboxed: bool, context: ToolUseContext, result: PermissionResult
) -> PermissionResult:
    """``result`` (Bash's own verdict) adjusted for the sandbox settings."""
    settings = settings_or_deny(context)
    if isinstance(settings, PermissionDeny):
        return settings
    if not settings.enabled or isinstance(result, PermissionDeny):
        return result
    if unsandboxed:
        if not settings.allow_unsandboxed:
            return PermissionDeny(UNSANDBOXED_DENIED)
        return sticky_ask(f"Run {command!r} outside the sandbox?", SAFETY, "dangerouslyDisableSandbox")
    soft_ask = isinstance(result, PermissionAsk) and not is_sticky(result)
    if soft_ask and settings.auto_allow and (await probe()).ok:
        return PermissionAllow(reason="runs in the sandbox")
    return result


async def sandbox_prefix(
    unsandboxed: bool, context: ToolUseContext, cwd: Path, extra_writable: Sequence[Path] = ()
) -> list[str] | None:
    """The bwrap argv prefix for this call; None when it runs outside.  ToolError: unavailable."""
    settings = sandbox_settings(context)
    if not settings.enabled or (unsandboxed and settings.allow_unsandboxed):
        return None
    available = await probe()
    if not available.ok or available.path is None:
        raise ToolError(
            f"Sandbox unavailable: {available.reason}. The command was not run. Sandboxing is on "
            "(sandbox.enabled); to run it outside the sandbox, call Bash again with "
            "dangerouslyDisableSandbox: true (the user will be asked)."
        )
    for directory in extra_writable:  # bound into the sandbox, so it must exist first
        directory.mkdir(parents=True, exist_ok=True)
    return bwrap_args(available.path, writable=[*working_directories(context), *extra_writable], cwd=cwd)


def working_directories(context: ToolUseContext) -> list[Path]:
    """The project directory, the additional directories, and the session's start directory."""
    pc = context.permission_context
    dirs: list[Any] = [pc.project_dir or context.cwd, *pc.additional_directories]
    return [Path(os.path.abspath(os.fspath(d))) for d in dirs]


def failure_note(output: str, exit_code: int | None) -> str | None:
    """A note for the model when a sandboxed command failed in a way the sandbox explains."""
    if not exit_code:
        return None
    return SANDBOX_NOTE if _SANDBOX_SYMPTOMS.search(output[-20_000:]) else None


def sandboxed_command(prefix: Sequence[str], command: str) -> str:
    """``command`` as a shell line that runs it inside the sandbox (for background tasks)."""
    from ..tools.shell.environment import find_bash

    return shlex.join([*prefix, find_bash(), "-c", command])
