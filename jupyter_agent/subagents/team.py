"""Teams (feature flag ``agent_swarms``): named, long-lived agents in the kernel with mailboxes.

One team per session lives in ``AppState.extra["team"]``.  A teammate keeps its conversation
between messages; each message in its queue becomes a new user turn, and its final reply is
sent back to whoever wrote (another teammate, or ``lead`` — the main agent); the reply to a
reply goes to the lead.  Messages for the
lead go to ``on_lead_message`` when the session provides one (``context.extra[LEAD_DELIVERY_KEY]``,
e.g. to submit them as a prompt); otherwise they wait in ``lead_inbox`` and the team tools show
them to the model.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..agent.loop import LoopLimits, run_query
from ..core.abort import AbortController
from ..core.context import AppState, ToolUseContext
from ..core.tool import CanUseTool
from .definitions import AgentDefinition
from .runner import SubagentEvent, SubagentHost, child_context
from .runtime import SubagentRuntime

STATE_KEY = "team"
LEAD_DELIVERY_KEY = "team_lead_delivery"  # context.extra: callable(TeamMessage), set by the session
LEAD = "lead"
TeammateStatus = Literal["idle", "busy", "stopped", "failed"]
MAX_IDLE_CONTINUATIONS = 3  # TeammateIdle hooks send a teammate back to work at most this often per message


@dataclass(frozen=True)
class TeamMessage:
    sender: str
    to: str
    text: str
    is_reply: bool = False  # a teammate's answer; answering it again goes to the lead, never back


class Teammate:
    """One named agent: its conversation, its queue, and the task that works through the queue."""

    def __init__(self, team: Team, name: str, agent: AgentDefinition, host: SubagentHost, can_use_tool: CanUseTool,
                 max_requests: int) -> None:
        self.team, self.name, self.agent, self.host = team, name, agent, host
        self.can_use_tool = can_use_tool
        self.queue: asyncio.Queue[TeamMessage] = asyncio.Queue()
        self.status: TeammateStatus = "idle"
        self.abort = AbortController()
        self.handled = 0
        self._limits = LoopLimits(max_requests)
        self._task = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        while True:
            message = await self.queue.get()
            self.status = "busy"
            self.host.record_user_blocks([{"type": "text", "text": f"Message from {message.sender}:\n{message.text}"}])
            reply = await self._turn()
            stop = False
            for _ in range(MAX_IDLE_CONTINUATIONS):  # TeammateIdle hooks may send it back to work
                if not self.queue.empty() or reply.startswith(f"(teammate {self.name} failed"):
                    break
                verdict = await self._idle_hooks()
                if verdict is None:
                    break
                stop, reason = verdict
                if stop:
                    break
                self.host.record_user_blocks([{"type": "text", "text": f"TeammateIdle hook feedback:\n{reason}"}])
                reply = await self._turn()
            self.handled += 1
            self.status = "stopped" if stop else "idle" if self.queue.empty() else "busy"
            # Answer the writer; the answer to an answer goes to the lead, so two teammates
            # can never bounce replies back and forth forever.
            to = LEAD if message.is_reply else message.sender
            self.team.deliver(TeamMessage(self.name, to, reply, is_reply=True))
            if stop:
                return

    async def _turn(self) -> str:
        """Run the conversation until the model ends its turn: its reply (or why it failed)."""
        try:
            result = await run_query(self.host, self.abort, self.can_use_tool, self._limits)
        except Exception as exc:  # a broken turn is reported, the teammate lives on
            return f"(teammate {self.name} failed: {type(exc).__name__}: {exc})"
        if result.stop_reason == "error":
            return f"(teammate {self.name} failed: {result.error})"
        return result.text.strip() or f"(teammate {self.name} finished without a reply)"

    async def _idle_hooks(self) -> tuple[bool, str] | None:
        """TeammateIdle hooks, as the teammate is about to go idle: None lets it; (False, reason)
        sends it back to work with the reason (exit 2 / ``decision: "block"``); (True, reason)
        stops it (``continue: false``)."""
        from ..permissions.hooks import get_hook_runner

        runner = get_hook_runner(self.host.context)
        if runner is None or not runner.has_hooks("TeammateIdle"):
            return None
        outcome = await runner.run("TeammateIdle", {"teammate_name": self.name, "team_name": self.team.name},
                                   permission_mode=self.host.context.permission_context.mode)
        if outcome.stop:
            return True, outcome.stop_reason or "stopped by a TeammateIdle hook"
        return (False, outcome.block_message) if outcome.blocked else None

    async def stop(self) -> None:
        self.abort.abort("Team deleted")
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        self.status = "stopped"


@dataclass
class Team:
    name: str
    description: str = ""
    members: dict[str, Teammate] = field(default_factory=dict)
    lead_inbox: list[TeamMessage] = field(default_factory=list)
    on_lead_message: Callable[[TeamMessage], Any] | None = None
    lead_event: asyncio.Event = field(default_factory=asyncio.Event)

    def spawn(self, name: str, agent: AgentDefinition, parent: ToolUseContext, can_use_tool: CanUseTool,
              runtime: SubagentRuntime, model: str | None,
              on_event: Callable[[SubagentEvent], None] | None = None) -> Teammate:
        chosen = model or agent.model or runtime.model
        context = child_context(parent, agent, name, chosen)
        context = context.with_changes(abort_controller=AbortController())  # outlives the turn
        host = SubagentHost(agent, name, context, runtime.model_client(), chosen,
                            runtime.max_tokens, on_event or (lambda _e: None))
        host.project_dir, host.home = runtime.project_dir, runtime.home
        mate = Teammate(self, name, agent, host, can_use_tool, runtime.max_requests)
        self.members[name] = mate
        return mate

    def deliver(self, message: TeamMessage) -> None:
        if message.to == LEAD:
            if self.on_lead_message is not None:  # the session turns it into a prompt
                with contextlib.suppress(Exception):
                    self.on_lead_message(message)
                return
            self.lead_inbox.append(message)
            self.lead_event.set()
            return
        mate = self.members.get(message.to)
        if mate is not None and mate.status != "stopped":
            mate.queue.put_nowait(message)

    def take_lead_messages(self) -> list[TeamMessage]:
        messages, self.lead_inbox = self.lead_inbox, []
        self.lead_event.clear()
        return messages

    async def wait_for_lead_messages(self, count: int = 1) -> None:
        """Wait until at least ``count`` messages are in the lead's inbox."""
        while len(self.lead_inbox) < count:
            self.lead_event.clear()
            await self.lead_event.wait()

    async def shutdown(self) -> None:
        await asyncio.gather(*(m.stop() for m in self.members.values()))


def get_team(state: AppState) -> Team | None:
    value = state.extra.get(STATE_KEY)
    return value if isinstance(value, Team) else None


def set_team(context: ToolUseContext, team: Team | None) -> None:
    def update(state: AppState) -> AppState:
        extra = {k: v for k, v in state.extra.items() if k != STATE_KEY}
        if team is not None:
            extra[STATE_KEY] = team
        return replace(state, extra=extra)

    context.set_app_state(update)


def sender_name(context: ToolUseContext) -> str:
    team = get_team(context.get_app_state())
    if team is not None and context.agent_id in team.members:
        return str(context.agent_id)
    return LEAD


def format_inbox(messages: list[TeamMessage]) -> str:
    if not messages:
        return ""
    parts = [f"<message from=\"{m.sender}\">\n{m.text}\n</message>" for m in messages]
    return "\n\nNew messages for you:\n" + "\n".join(parts)
