"""Settings files changed on disk during a session are read again and applied.

A session lives across many ``%agent`` prompts, so a deny rule you add to
``.claude/settings.json`` in the editor, an ``env`` variable you change or a hook you remove
must not wait for a new session.  Before every turn and before every batch of tool calls, the
session compares the settings files it read (``~/.claude/settings.json``, the project's
``settings.json`` and ``settings.local.json``, the managed ``managed-settings.json`` and its
``managed-settings.d/``) with what is on disk now — one ``stat`` each.  When one changed:

- ``ConfigChange`` hooks (the ones in force, not those of the new file) hear of each changed
  file (``source``: ``user_settings``, ``project_settings``, ``local_settings`` or
  ``policy_settings``; ``file_path``) and may block it: then the change is not applied (the
  managed settings' cannot be blocked, as in Claude Code);
- otherwise the files are read again: their rules, working directories, switches
  (``blockWrites…``, ``denyInsteadOfPrompting``, ``disableBypassPermissionsMode``, …), hooks,
  ``env`` block and MCP server lists replace the old ones, while rules, folders and the mode
  given to or chosen during the session stay.  A mode the new files disable falls back to
  ``default``.  A file that cannot be read (a half-saved edit) is reported once and the settings
  in force stay.  The folder trust decision is kept: a project file's widening parts stay held
  back in a folder that is not trusted.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.permission_types import RuleSource
from ..errors import AgentConfigError
from ..permissions.updates import file_signature
from .events import AgentErrorEvent

_SOURCE_NAMES = {"userSettings": "user_settings", "projectSettings": "project_settings",
                 "localSettings": "local_settings", "policySettings": "policy_settings"}
Signature = tuple[tuple[str, Path, object], ...]
REFRESH_KEY = "refresh_settings"  # context.extra: the session's refresh, which its subagents' loops call too


class SettingsWatch:
    """The settings files one session read, what they looked like on disk then, and the
    contents in force (a change a ConfigChange hook blocked keeps its file's old contents)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._lock: asyncio.Lock | None = None
        self.signature: Signature = ()
        self.held: set[Path] = set()  # files whose last change was blocked
        self.applied: dict[Path, dict[str, Any]] = {}  # each user / project / local file's JSON in force
        self.mark_applied()

    def _files(self) -> list[tuple[RuleSource, Path]]:
        from ..permissions.settings import settings_files

        config = self.session.config
        return settings_files(config.resolved_project_dir(), Path(config.home) if config.home else None)

    def _read(self) -> Signature:
        return tuple((source, path, file_signature(path)) for source, path in self._files())

    def mark_applied(self) -> None:
        """The files on disk now are the ones in force (the session began, or the folder was
        just trusted)."""
        from ..permissions.settings import read_settings_file

        self.signature, self.held = self._read(), set()
        for source, path, _sig in self.signature:
            if source != "policySettings":
                with contextlib.suppress(AgentConfigError):
                    self.applied[path] = read_settings_file(path)

    async def refresh(self) -> bool:
        """Apply the settings files if they changed since the last look; True when applied.
        Loops running side by side (subagents) wait for one another's look."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            return await self._refresh()

    async def _refresh(self) -> bool:
        now = self._read()
        if now == self.signature:
            return False
        before = {path: sig for _source, path, sig in self.signature}
        listed = {path for _source, path, _sig in now}
        changed = [(source, path) for source, path, sig in now if before.get(path) != sig]
        changed += [(source, path) for source, path, _sig in self.signature if path not in listed]
        self.signature = now  # each change is looked at once (a half-saved file is reported once)
        changed = [(source, path) for source, path in changed if not self._own_write(path)]
        if not changed:
            return False
        blocked = await self._config_change_hooks(changed)
        try:
            contents = await asyncio.to_thread(self._contents, changed, blocked)
            if contents is None:  # every change was blocked
                self._tell("Settings changed on disk but were not applied: " + "; ".join(blocked.values()))
                return False
            if contents == self.applied and all(source != "policySettings" for source, _path in changed):
                return False  # saved unchanged
            settings = await asyncio.to_thread(self._load, contents)
            apply_reloaded_settings(self.session, settings)
        except AgentConfigError as exc:
            self._tell(f"Settings changed on disk but were not applied ({exc}); the settings in force stay.")
            return False
        self.applied = contents
        names = ", ".join(_label(self.session, path) for _source, path in dict.fromkeys(changed) if path not in blocked)
        self._tell(f"Settings reloaded: {names} changed." + (
            f" Not applied: {'; '.join(blocked.values())}." if blocked else ""))
        return True

    def _own_write(self, path: Path) -> bool:
        """Did this process write ``path`` as it is now ("Always allow")?  Its rules are in
        force already: the file's new contents are taken as applied, with no hook and no notice."""
        from ..permissions.settings import read_settings_file
        from ..permissions.updates import OWN_WRITES

        if path not in OWN_WRITES or OWN_WRITES[path] != file_signature(path):
            return False
        with contextlib.suppress(AgentConfigError):
            self.applied[path] = read_settings_file(path)
        self.held.discard(path)
        return True

    def _contents(self, changed: list[tuple[str, Path]], blocked: dict[Path, str]) -> dict[Path, dict[str, Any]] | None:
        """Each user / project / local file's JSON to use: a blocked (or still held) file's
        contents in force, the disk's for the rest; None when nothing is left to apply."""
        from ..permissions.settings import read_settings_file

        self.held = (self.held - {path for _source, path in changed}) | set(blocked)
        if all(path in blocked for _source, path in changed):
            return None
        return {path: self.applied.get(path, {}) if path in self.held else read_settings_file(path)
                for source, path in self._files() if source != "policySettings"}

    def _load(self, contents: dict[Path, dict[str, Any]]) -> Any:
        from ..permissions.settings import load_settings

        config, trust = self.session.config, self.session.trust
        trusted = True if config.trust_project or trust.recorded else None  # None: the trust store decides
        return load_settings(config.resolved_project_dir(), home=config.home, trusted=trusted, contents=contents)

    async def _config_change_hooks(self, changed: list[tuple[str, Path]]) -> dict[Path, str]:
        """Run ConfigChange hooks per changed file; why each blocked one was blocked (the
        managed settings' changes cannot be blocked)."""
        from ..permissions.hooks import HOOKS_KEY

        runner = self.session.context.extra.get(HOOKS_KEY)
        if runner is None or not runner.has_hooks("ConfigChange"):
            return {}
        blocked = {}
        for source, path in dict.fromkeys(changed):
            payload = {"source": _SOURCE_NAMES.get(source, source), "file_path": str(path)}
            outcome = await runner.run("ConfigChange", payload, permission_mode=self.session.context.permission_context.mode)
            if (outcome.blocked or outcome.stop) and source != "policySettings":
                blocked[path] = f"{_label(self.session, path)}: {outcome.block_message or outcome.stop_reason}"
        return blocked

    def _tell(self, text: str) -> None:
        self.session.emit(AgentErrorEvent(text, kind="settings"))


def _label(session: Any, path: Path) -> str:
    project = session.config.resolved_project_dir()
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def apply_reloaded_settings(session: Any, settings: Any) -> None:
    """Use ``settings`` (read again) in place of ``session.settings``: permissions first (an
    AgentConfigError leaves everything as it was), then env, MCP lists and hooks."""
    from .permission_setup import reloaded_permission_context

    old = session.settings
    current = session.context.permission_context
    permissions, note = reloaded_permission_context(current, session.config, old, settings)
    session.context.set_app_state(lambda state: replace(state, tool_permission_context=permissions))
    if note:
        session.emit(AgentErrorEvent(note, kind="settings"))
    use_session_settings(session, settings, replace_env=True)


def use_session_settings(session: Any, settings: Any, *, replace_env: bool = False) -> None:
    """The non-permission parts of ``settings`` for the session from now on: ``env`` (commands,
    hooks and servers started from now on; the API client keeps its start-up values), the MCP
    server lists, hooks (Python hooks stay) and auto mode's rules (``session.settings``)."""
    from ..permissions.hooks import HOOKS_KEY
    from ..tools.shell.environment import use_settings_env

    old = session.settings
    session.settings = settings
    if settings.env or replace_env:
        use_settings_env(session.context, settings.env)
    mcp = session.tool_pool.mcp
    if hasattr(mcp, "use_policy") and (settings.mcp_lists or (replace_env and old is not None and old.mcp_lists)):
        from ..mcp.policy import load_mcp_policy

        mcp.use_policy(load_mcp_policy(files=settings.mcp_lists))
    runner = session.context.extra.get(HOOKS_KEY)
    if hasattr(runner, "use_settings"):
        runner.use_settings(settings)
    elif settings.hooks:
        session.emit(AgentErrorEvent("The settings' hooks were not applied: the session's hook runner was replaced.",
                                     kind="settings"))
