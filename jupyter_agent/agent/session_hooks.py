"""Session-level hooks (settings ``hooks`` and Python hooks): SessionStart, UserPromptSubmit, Stop,
StopFailure, PreCompact, PostCompact, InstructionsLoaded, SessionEnd.  Tool hooks (PreToolUse,
PermissionRequest, PostToolUse, …) run inside ``run_tool_use``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .events import AgentErrorEvent, SessionEvent

MAX_STOP_CONTINUATIONS = 3


@dataclass
class PromptCheck:
    blocked: str | None = None
    context: list[str] = field(default_factory=list)


class SessionHooks:
    """Runs one session's hooks; a misbehaving hook is reported, never fatal."""

    def __init__(
        self,
        runner: Any,
        emit: Callable[[SessionEvent], None],
        mode: Callable[[], str],
        prepare: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.runner = runner
        self._emit = emit
        self._mode = mode
        self._prepare = prepare  # runs before every prompt's hooks (the folder-trust card)
        self._started = False
        self._loaded: set[str] = set()  # memory files InstructionsLoaded has reported

    async def _run(self, event: str, payload: dict[str, Any]) -> Any | None:
        if self.runner is None or not self.runner.has_hooks(event):
            return None
        outcome = await self.runner.run(event, payload, permission_mode=self._mode())
        if getattr(self.runner, "on_notice", None) is None:  # else the runner has told the user already
            for error in outcome.errors:
                self._emit(AgentErrorEvent(f"{event} hook: {error}", kind="hook"))
        return outcome

    async def before_prompt(self, prompt: str, resumed: bool) -> PromptCheck:
        """SessionStart (first prompt only) and UserPromptSubmit: block, or add context."""
        check = PromptCheck()
        if self._prepare is not None:
            await self._prepare()
        take_finished = getattr(self.runner, "take_finished", None)
        if take_finished is not None:  # async hooks that finished after the last step
            check.context.extend(take_finished())
        if not self._started:
            self._started = True
            start = await self._run("SessionStart", {"source": "resume" if resumed else "startup"})
            if start is not None:
                check.context.extend(start.additional_context)
        outcome = await self._run("UserPromptSubmit", {"prompt": prompt})
        if outcome is not None:
            if outcome.blocked or outcome.stop:
                why = outcome.stop_reason if outcome.stop and outcome.stop_reason else outcome.block_message
                check.blocked = f"The prompt was blocked by a UserPromptSubmit hook: {why}"
            check.context.extend(outcome.additional_context)
        return check

    async def continue_reason(self, attempt: int, last_text: str = "") -> str | None:
        """A Stop hook that blocks makes the model go on, with its reason as the next input."""
        if attempt >= MAX_STOP_CONTINUATIONS:
            return None
        outcome = await self._run("Stop", {"stop_hook_active": attempt > 0, "last_assistant_message": last_text})
        if outcome is None or not outcome.blocked:
            return None
        return outcome.block_message

    async def subagent_start(self, agent_id: str, agent_type: str) -> list[str]:
        """SubagentStart: the context its hooks add to the subagent's prompt."""
        outcome = await self._run("SubagentStart", {"agent_id": agent_id, "agent_type": agent_type})
        return list(outcome.additional_context) if outcome is not None else []

    async def subagent_continue_reason(self, agent_id: str, agent_type: str, attempt: int) -> str | None:
        """A SubagentStop hook that blocks sends the subagent back to work, as Stop does the session."""
        if attempt >= MAX_STOP_CONTINUATIONS:
            return None
        payload = {"agent_id": agent_id, "agent_type": agent_type, "stop_hook_active": attempt > 0}
        outcome = await self._run("SubagentStop", payload)
        if outcome is None or not outcome.blocked:
            return None
        return str(outcome.block_message)

    async def instructions_loaded(self, project: Path, home: Path) -> None:
        """InstructionsLoaded, once per CLAUDE.md file the system prompt took in (it cannot block)."""
        if self.runner is None or not self.runner.has_hooks("InstructionsLoaded"):
            return
        from .prompts import memory_files

        for path in memory_files(project, home):
            if str(path) in self._loaded:
                continue
            self._loaded.add(str(path))
            kind = "User" if path.parent == home / ".claude" else "Local" if path.name == "CLAUDE.local.md" else "Project"
            await self._run("InstructionsLoaded", {"file_path": str(path), "memory_type": kind,
                                                   "load_reason": "session_start"})

    async def stop_failure(self, error: str) -> None:
        """StopFailure: the turn ended because the API failed (instead of Stop; it cannot block)."""
        await self._run("StopFailure", {"error": error})

    async def pre_compact(self, trigger: str) -> None:
        await self._run("PreCompact", {"trigger": trigger, "custom_instructions": ""})

    async def post_compact(self, trigger: str, summary: str) -> None:
        await self._run("PostCompact", {"trigger": trigger, "compact_summary": summary})

    async def restart_after_compaction(self) -> list[str]:
        """SessionStart with source ``compact``: the context its hooks add (to re-add what the
        summary should not lose)."""
        outcome = await self._run("SessionStart", {"source": "compact"})
        return list(outcome.additional_context) if outcome is not None else []

    async def session_end(self, reason: str = "other") -> None:
        await self._run("SessionEnd", {"reason": reason})
