"""How the sandbox changes a Bash call: its permission, its command line, and its error notes.

* ``dangerouslyDisableSandbox: true`` always asks (a sticky ask: bypassPermissions and hooks do
  not skip it), or is denied when ``allowUnsandboxedCommands`` is false.
* With ``autoAllowBashIfSandboxed`` (the default), a command that would only ask because it
  "needs approval" runs sandboxed without asking; deny rules, ask rules and safety asks remain.
* Fail closed: with the sandbox enabled and bwrap unusable, nothing is auto-allowed and the
  call fails with "sandbox unavailable" unless the user approved running it outside.
* The sandbox enforces the path rules a command's text cannot show (``masks.py``); a command
  is run unasked only when it can enforce all of them.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.permission_types import PermissionAllow, PermissionAsk, PermissionDeny, PermissionResult
from ..errors import AgentConfigError, ToolError
from ..permissions.bash_analysis import analyze
from ..permissions.bash_rules import compile_bash_pattern
from ..permissions.compiled import READ_RULES, PathRules, compiled_rules
from ..permissions.filesystem import working_directories
from ..permissions.path_patterns import compile_pattern, rule_root
from ..permissions.verdicts import SAFETY, is_sticky, sticky_ask
from .bwrap import blanks, bwrap_args, probe
from .masks import Masks, compute_masks
from .network import Ask, NetworkGate
from .protected import PROTECTED_GAP, disarm, existing_protected, repository_settings
from .proxy import ProxyLink, forwarder_python, kernel_python_folders
from .seccomp import filter_file
from .settings import SandboxSettings, sandbox_settings

if TYPE_CHECKING:
    from ..core.context import ToolUseContext

UNSANDBOXED_DENIED = (
    "Running commands outside the sandbox is disabled by the settings "
    "(sandbox.allowUnsandboxedCommands is false). Run the command without dangerouslyDisableSandbox."
)
SANDBOX_NOTE = (
    "The command ran in the sandbox (read-only filesystem outside the working directories and "
    "/tmp, protected paths read-only, network only to the hosts allowed or approved, no Unix sockets) "
    "and may have failed because of it. If it must "
    "run outside, call Bash again with dangerouslyDisableSandbox: true (the user will be asked)."
)
_SANDBOX_SYMPTOMS = re.compile(
    r"Read-only file system|Network is unreachable|Temporary failure in name resolution|"
    r"Could not resolve host|Name or service not known|getaddrinfo|^bwrap: ",
    re.MULTILINE,
)
_PROXY_ANSWER = "jupyter-agent sandbox: "  # a 403 or 502 from the kernel's proxy


def settings_or_deny(context: ToolUseContext) -> SandboxSettings | PermissionDeny:
    try:
        return sandbox_settings(context)
    except AgentConfigError as exc:  # fail closed: a broken sandbox block runs nothing
        return PermissionDeny(f"The sandbox settings are invalid, so Bash cannot run: {exc}")


async def sandbox_permission(
    command: str,
    unsandboxed: bool,
    context: ToolUseContext,
    result: PermissionResult,
    extra_writable: Sequence[Path] = (),
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
    if excluded_by(command, settings):  # runs outside the sandbox: asked about as without it
        return result
    soft_ask = isinstance(result, PermissionAsk) and not is_sticky(result)  # "needs approval" only
    if soft_ask and settings.auto_allow and isinstance(result, PermissionAsk) and (await probe()).ok:
        masks, _found = await sandbox_masks(context, settings, writable_folders(context, settings, extra_writable))
        if not settings.allow_unix_sockets and filter_file() is None:
            masks = replace(masks, gaps=(*masks.gaps, f"Unix sockets cannot be blocked on {platform.machine()}"))
        if masks.gaps:  # the sandbox cannot hold every rule: the user decides, as without it
            gap = f"(The sandbox cannot run it unasked: {masks.gaps[0]}.)"
            return PermissionAsk(f"{result.message}\n{gap}".strip(), result.suggestions, result.reason)
        return PermissionAllow(reason="runs in the sandbox")
    return result


def mask_rules(context: ToolUseContext, settings: SandboxSettings) -> tuple[PathRules, PathRules, PathRules]:
    """The read rules (hidden), write rules (read-only) and ``denyRead`` (hidden, but carved
    around the working directories and ``allowRead``) the sandbox enforces."""
    pc = context.permission_context
    project = os.fspath(pc.project_dir or context.cwd)
    rules = compiled_rules(pc)
    scope = rules.scope(project)
    reads = (scope.read_deny + rules.paths("ask", READ_RULES, project)
             + _setting_rules("credentials.files", settings.credential_files, project))
    writes = scope.edit_deny + scope.edit_ask + _setting_rules("denyWrite", settings.deny_write, project)
    deny_read = settings.deny_read + ((("userSettings", "~/"),) if pc.block_outside_reads else ())  # your home
    return reads, writes, _setting_rules("denyRead", deny_read, project)


def _setting_rules(key: str, items: Sequence[tuple[Any, str]], project: str) -> PathRules:
    return tuple(
        (f"{key}({text})", compile_pattern(text, rule_root(source, project), project, fold=True)) for source, text in items
    )


@dataclass(frozen=True)
class Confinement:
    """One sandboxed call: bwrap's argv prefix, the writable folders (real paths), and the
    protected paths found in them before it ran (None when the walk was incomplete)."""

    args: list[str]
    writable: tuple[str, ...]
    protected: frozenset[str] | None
    git_settings: frozenset[str] = frozenset()  # inside the repository folders, before it ran
    link: ProxyLink | None = None  # the network, through the kernel's proxy (proxy.py)
    gate: NetworkGate | None = None  # which hosts it may reach (network.py)

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """File descriptors the sandbox must inherit."""
        return (self.link.theirs.fileno(),) if self.link is not None else ()

    def started(self) -> None:
        """The command runs: the kernel's end of the network link starts serving."""
        if self.link is not None:
            self.link.started()

    def abandon(self) -> None:
        """The command did not start: nothing to serve."""
        if self.link is not None:
            self.link.close()

    def network_note(self) -> str | None:
        """For the model: the connections refused while the command ran."""
        return self.gate.notes() if self.gate is not None else None

    def disarm(self) -> str | None:
        """After the command: rename the protected paths it created (``protected.disarm``)."""
        if self.protected is None:
            return None
        return disarm(self.protected, self.writable, self.git_settings)

    def after_background(self) -> str | None:
        """A background command's closing notes (in a thread, once it ended): what it created
        that was disarmed, and the connections refused."""
        notes = [n for n in (self.disarm(), self.network_note()) if n]
        return "\n".join(notes) or None


async def sandbox_masks(
    context: ToolUseContext, settings: SandboxSettings, real: Sequence[str]
) -> tuple[Masks, frozenset[str]]:
    """What the sandbox hides and keeps read-only for this session's rules, and the protected
    paths of the writable folders ``real`` at any depth (both walked off the loop; gaps in the
    masks)."""
    reads, writes, opened = mask_rules(context, settings)
    project = os.fspath(context.permission_context.project_dir or context.cwd)
    reopened = [os.path.realpath(settings_path(text, source, project)) for source, text in settings.allow_read]
    if opened:  # the network's forwarder runs on the kernel's Python, and so may the command
        reopened += kernel_python_folders()

    def walk() -> tuple[Masks, frozenset[str]]:
        masks = compute_masks(reads, writes, real, open_rules=opened, reopened=reopened) if reads or writes or opened else Masks()
        found, gaps = existing_protected(real)
        return (replace(masks, gaps=masks.gaps + gaps) if gaps else masks), found

    return await asyncio.to_thread(walk)


async def sandbox_prefix(
    unsandboxed: bool,
    context: ToolUseContext,
    cwd: Path,
    extra_writable: Sequence[Path] = (),
    environment: Mapping[str, str] | None = None,
    command: str = "",
    ask: Ask | None = None,
) -> Confinement | None:
    """How this call is confined; None when it runs outside.  ToolError: unavailable.

    ``ask``: how to ask the user about a host the settings neither allow nor refuse (the
    Bash call's card); None refuses such hosts."""
    settings = sandbox_settings(context)
    if not settings.enabled or (unsandboxed and settings.allow_unsandboxed) or excluded_by(command, settings):
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
    real = writable_folders(context, settings, extra_writable)
    env = os.environ if environment is None else environment
    masks, protected = await sandbox_masks(context, settings, real)
    gate = NetworkGate(context, settings, ask)
    python = forwarder_python() if gate.reaches_anything() else None  # else: no network at all
    link = ProxyLink(gate, on_close=gate.close) if python else None
    args = bwrap_args(
        available.path, writable=[Path(w) for w in real], cwd=cwd, masks=masks,
        env_unset=settings.env_deny, env_mask=[n for n in settings.env_mask if n in env],
        unix_sockets=settings.allow_unix_sockets, nested=protected,
        proxy=(python, link.theirs.fileno()) if python and link else None,
    )
    complete = not any(g.startswith(PROTECTED_GAP) for g in masks.gaps)
    return Confinement(args, real, protected if complete else None, repository_settings(protected, real), link, gate)


def excluded_by(command: str, settings: SandboxSettings) -> str | None:
    """The ``excludedCommands`` entry one of the line's commands matches (``docker`` matches
    ``docker ps`` as ``Bash(docker:*)`` would), or None.  A line that names one runs outside."""
    if not settings.excluded or not command:
        return None
    patterns = [(e, compile_bash_pattern(e if "*" in e else e + ":*")) for e in settings.excluded]
    for info in analyze(command).commands:
        for text, _fixed, _all_fixed in info.form_texts:
            for entry, pattern in patterns:
                if pattern.matches(text):
                    return entry
    return None


def writable_folders(
    context: ToolUseContext, settings: SandboxSettings, extra: Sequence[Path] = ()
) -> tuple[str, ...]:
    """What the sandbox binds writable, as existing real folders: the working directories (the
    project and ``additionalDirectories``), the folders ``sandbox.filesystem.allowWrite`` names,
    and ``extra`` (the session's scratch folder)."""
    project = os.fspath(context.permission_context.project_dir or context.cwd)
    allowed = [settings_path(text, source, project) for source, text in settings.allow_write]
    folders = [*map(str, working_directories(context)), *allowed, *map(str, extra)]
    return tuple(dict.fromkeys(os.path.realpath(f) for f in folders if os.path.isdir(f)))


def settings_path(text: str, source: Any, project: str) -> str:
    """An ``allowWrite`` / ``allowRead`` entry as a path: ``//abs``, ``~/x``, ``/x`` (settings root), ``./x`` or ``x``."""
    if text.startswith("//"):
        return os.path.normpath(text[1:])
    if text == "~" or text.startswith("~/"):
        return os.path.normpath(os.path.expanduser(text))
    root = rule_root(source, project) if text.startswith("/") else project
    return os.path.normpath(os.path.join(root, text.lstrip("/").removeprefix("./")))


def failure_note(output: str, exit_code: int | None, refusals_reported: bool = False) -> str | None:
    """A note for the model when a sandboxed command failed in a way the sandbox explains.
    ``refusals_reported``: the network's own note names the refused connections (and says not
    to get round them), so the proxy's answers alone do not suggest running outside."""
    if not exit_code:
        return None
    tail = output[-20_000:]
    if _SANDBOX_SYMPTOMS.search(tail) or (not refusals_reported and _PROXY_ANSWER in tail):
        return SANDBOX_NOTE
    return None


def hidden_note(prefix: Sequence[str], command: str, output: str) -> str | None:
    """A note naming the hidden paths the command or its output mentions (read from ``prefix``)."""
    stand_ins = set(blanks())
    hidden = [prefix[i + 2] for i, arg in enumerate(prefix[:-2]) if arg == "--ro-bind" and prefix[i + 1] in stand_ins]
    text = command + "\n" + output[-20_000:]
    named = [p for p in hidden if os.path.basename(p) in text]
    if not named:
        return None
    shown = ", ".join(named[:5]) + (" …" if len(named) > 5 else "")
    return (
        f"In the sandbox these paths are hidden by the permission rules (an empty stand-in that "
        f"cannot be read): {shown}. Use the Read tool for them if the task needs them (the user decides)."
    )


def sandboxed_command(prefix: Sequence[str], command: str) -> str:
    """``command`` as a shell line that runs it inside the sandbox (for background tasks)."""
    from ..tools.shell.environment import find_bash

    return shlex.join([*prefix, find_bash(), "-c", command])
