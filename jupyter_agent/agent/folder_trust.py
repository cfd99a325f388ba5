"""The folder-trust card: asked once per session, on the first turn, before any hook or request.

When the project's ``.claude`` settings hold widening parts back (``Settings.withheld``), the
session asks through its approver (the same Approve / Deny card as a tool ask).  Approve
records the folder (``permissions.trust``) and the settings are loaded again with everything
applied; Deny, no approver, a timeout or Stop keep them ignored for this session, and a
notice says so.  ``SessionConfig.trust_project`` (``%agent --trust``) trusts without asking.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..core.abort import AbortController
from ..core.context import ToolUseContext
from ..core.events import PermissionRequested, PermissionResolved, ToolCallFinished
from ..core.orchestration import ToolCallOutcome
from ..core.permission_types import PermissionAllow, PermissionAsk
from ..core.tool import CanUseTool, Tool
from ..errors import AgentConfigError
from .config import SessionConfig
from .events import AgentErrorEvent, SessionEvent
from .settings_watch import use_session_settings

TRUST_KIND = "trust"
_MODE_WORDS = {
    "acceptEdits": "start in acceptEdits mode (file edits run without asking)",
    "bypassPermissions": "start in bypassPermissions mode (every tool call runs without asking)",
    "auto": "start in auto mode (a model approves tool calls in your place)",
}


class TrustFolderInput(BaseModel):
    path: str  # the folder (``path`` also names it on a card that does not know this tool)
    settings: list[str]


class TrustFolderTool(Tool[TrustFolderInput, None]):
    """Not a model tool: it gives the trust card its name and summary line."""

    name = "TrustFolder"
    input_schema = TrustFolderInput

    def render_tool_use_message(self, input: TrustFolderInput) -> str:
        return f"TrustFolder {input.path}"

    async def call(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("TrustFolder is answered by the user, never called")


def _file_effects(withheld: Any, project: Path) -> str:
    """``.claude/settings.json would allow without asking: Bash; run on SessionStart: make.``"""
    effects = []
    if withheld.rules.get("allow"):
        effects.append("allow without asking: " + ", ".join(withheld.rules["allow"]))
    if withheld.mode in _MODE_WORDS:
        effects.append(_MODE_WORDS[withheld.mode])
    if withheld.directories:
        effects.append("give access to the folders: " + ", ".join(str(d) for d in withheld.directories))
    for matcher in withheld.hooks:
        on = f"{matcher.event} ({matcher.matcher})" if matcher.matcher else matcher.event
        effects.extend(f"run on {on}: {hook.describe}" for hook in matcher.hooks)
    if withheld.env:
        effects.append("set for every command, hook and server: " + ", ".join(name for name, _ in withheld.env))
    if withheld.auto_rules:
        effects.append("add auto mode reviewer rules: " + ", ".join(section for section, _ in withheld.auto_rules))
    if withheld.http_hook_urls:
        effects.append("let HTTP hooks reach: " + ", ".join(withheld.http_hook_urls))
    if withheld.http_hook_env:
        effects.append("let HTTP hooks send the variables: " + ", ".join(withheld.http_hook_env))
    if withheld.mcp_allowed:
        effects.append("allow the MCP servers: " + ", ".join(str(i.value) for i in withheld.mcp_allowed))
    return f"{withheld.label(project)} would {'; '.join(effects)}."


def trust_message(project: Path, withheld: tuple[Any, ...]) -> str:
    """Which folder, and exactly what its settings would do."""
    lines = [f"Do you trust the files in this folder? {project}"]
    lines.extend(_file_effects(item, project) for item in withheld)
    lines.append(
        "Approve: trust this folder (recorded in ~/.jupyter-agent/trusted_folders.json) and apply "
        "these settings. Deny: ignore them for this session (deny and ask rules still apply)."
    )
    return "\n".join(lines)


def ignored_notice(project: Path, held_back: tuple[str, ...], why: str) -> str:
    return (
        f"The folder {project} is not trusted ({why}), so these parts of its settings are ignored "
        f"for this session: {' | '.join(held_back)}. Deny and ask rules still apply. To trust it, "
        "run %agent --trust (or approve the card in a new session)."
    )


def settings_notices(settings: Any | None) -> tuple[str, ...]:
    """What the settings say that does not apply here, for the user: allow rules that the
    managed settings' allowManagedPermissionRulesOnly leaves out, and an autoMode block in a
    shared file."""
    notices = []
    ignored = getattr(settings, "ignored_allow", ())
    managed = getattr(settings, "managed", None)
    if ignored and managed is not None:
        listed = "; ".join(f"{path}: {', '.join(rules)}" for path, rules in ignored)
        notices.append(f"These allow rules are ignored: {managed.path} sets allowManagedPermissionRulesOnly, so "
                       f"only the administrator's allow rules apply ({listed}). Such calls are asked about instead.")
    shared = getattr(settings, "ignored_auto_mode", None)
    if shared is not None:
        notices.append(f"The autoMode block in {shared} is not read, as in Claude Code: a committed file could "
                       "write auto mode's rules for everyone. Put it in ~/.claude/settings.json or "
                       ".claude/settings.local.json.")
    return tuple(notices)


class FolderTrustGate:
    """Asks once per session; returns reloaded settings when the folder became trusted."""

    def __init__(self, config: SessionConfig, settings: Any | None) -> None:
        self.config = config
        self.withheld: tuple[Any, ...] = tuple(getattr(settings, "withheld", ()))
        self.held_back: tuple[str, ...] = tuple(getattr(settings, "held_back", ()))
        self.problems: tuple[str, ...] = tuple(getattr(settings, "trust_problems", ()))
        self.notices: tuple[str, ...] = settings_notices(settings)  # said once, on the first turn
        self.asked = False
        self.recorded = False

    @property
    def project(self) -> Path:
        return self.config.resolved_project_dir()

    async def settle(self, approver: CanUseTool, context: ToolUseContext, emit: Callable[[SessionEvent], None]) -> Any:
        """Before the first turn's hooks: trust (``trust_project``) or ask; settings to use, or None."""
        if not self.config.load_settings:
            return None
        for notice in self.notices:
            emit(AgentErrorEvent(notice, kind="settings"))
        self.notices = ()
        if self.config.trust_project and not self.recorded:
            self.recorded = True
            await self._record(emit)
            return await self._reload() if self.withheld else None
        if self.asked or not self.withheld:
            return None
        self.asked = True
        for problem in self.problems:
            emit(AgentErrorEvent(f"Folder trust: {problem}", kind=TRUST_KIND))
        if await self._ask(approver, context, emit):
            self.recorded = True
            await self._record(emit)
            return await self._reload()
        return None

    async def _ask(self, approver: CanUseTool, context: ToolUseContext, emit: Callable[[SessionEvent], None]) -> bool:
        tool_use_id = f"trust_{uuid.uuid4().hex[:12]}"
        input = TrustFolderInput(path=str(self.project), settings=list(self.held_back))
        ask = PermissionAsk(trust_message(self.project, self.withheld), reason="folder trust")
        raw = input.model_dump()
        emit(PermissionRequested(tool_use_id, TrustFolderTool.name, raw, ask))
        decision = await approver(TrustFolderTool(), input, context, ask, tool_use_id)
        emit(PermissionResolved(tool_use_id, decision))
        trusted = isinstance(decision, PermissionAllow)
        text = f"Trusted {self.project}" if trusted else f"Not trusted: {getattr(decision, 'message', '')}"
        outcome = ToolCallOutcome(
            tool_use_id, TrustFolderTool.name, [{"type": "text", "text": text}], is_error=not trusted,
            input=input, decision="user-allow" if trusted else "user-deny",
        )
        emit(ToolCallFinished(outcome))
        if not trusted:
            why = getattr(decision, "reason", None) or "denied"
            emit(AgentErrorEvent(ignored_notice(self.project, self.held_back, str(why)), kind=TRUST_KIND))
        return trusted

    async def _record(self, emit: Callable[[SessionEvent], None]) -> None:
        from ..permissions.trust import trust_folder

        try:
            await asyncio.to_thread(trust_folder, self.project, self.config.home)
        except (AgentConfigError, OSError) as exc:
            emit(AgentErrorEvent(f"{exc} The folder is trusted for this session only.", kind=TRUST_KIND))

    async def _reload(self) -> Any:
        from ..permissions.settings import load_settings

        settings = await asyncio.to_thread(load_settings, self.project, self.config.home, True)
        self.withheld, self.held_back = (), ()
        return settings


async def settle_trust(session: Any, abort: AbortController | None) -> None:
    """Run the session's trust gate; when the folder became trusted, use its full settings:
    the permission context gains the files' rules, folders and mode, the hook runner their hooks."""
    from .permission_setup import trusted_permission_context

    context = session.context.with_changes(abort_controller=abort or AbortController())
    try:
        settings = await session.trust.settle(session.approver, context, session.emit)
        if settings is None:
            return
        permissions = trusted_permission_context(
            session.context.permission_context, session.initial_permissions, session.config, settings
        )
    except AgentConfigError as exc:  # the files changed since the session started, or bypass is disabled
        session.emit(AgentErrorEvent(f"The trusted settings were not applied: {exc}", kind=TRUST_KIND))
        return
    session.context.set_app_state(lambda state: replace(state, tool_permission_context=permissions))
    use_session_settings(session, settings)  # env, a project's allowedMcpServers, hooks, autoMode rules
    if getattr(session, "settings_watch", None) is not None:
        session.settings_watch.mark_applied()  # these files are in force now
