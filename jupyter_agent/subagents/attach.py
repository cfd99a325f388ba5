"""Wire the many-hands features into an ``AgentSession`` in one call, without changing it.

    hands = attach_many_hands(session)     # after building the session, before the first turn
    ...
    await hands.aclose()                   # when the session ends

It lends the session's model client to subagents, wraps Edit/Write/NotebookEdit for
checkpoints (``%agent --rewind``), starts the cron scheduler (a fired job becomes
``session.submit(job.prompt)``) and makes teammates' messages to the lead arrive as prompts.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..checkpoints import CheckpointStore, install_checkpoints
from ..scheduler import Clock, CronScheduler, install_scheduler
from .runtime import SubagentRuntime, attach_subagents
from .team import LEAD_DELIVERY_KEY, TeamMessage, get_team


@dataclass
class ManyHands:
    session: Any
    runtime: SubagentRuntime
    checkpoints: CheckpointStore | None
    scheduler: CronScheduler | None

    async def ready(self) -> None:
        """Wait (off the loop) for what loads in the background: the saved checkpoints."""
        if self.checkpoints is not None:
            await self.checkpoints.ready()

    async def aclose(self) -> None:
        """Stop scheduled jobs and teammates (the session itself is closed by its owner)."""
        if self.scheduler is not None:
            await self.scheduler.close()
        team = get_team(self.session.context.get_app_state())
        if team is not None:
            with contextlib.suppress(Exception):
                await team.shutdown()


def teammate_prompt(message: TeamMessage) -> str:
    return f'<teammate-message from="{message.sender}">\n{message.text}\n</teammate-message>'


def attach_many_hands(
    session: Any, *, checkpoints: bool = True, scheduler: bool = True, clock: Clock | None = None
) -> ManyHands:
    runtime = attach_subagents(session)
    store = install_checkpoints(session) if checkpoints else None
    sched = None
    if scheduler:
        sched = CronScheduler(lambda job: session.submit(job.prompt), clock)
        install_scheduler(session.context.app_state_store, sched)
    session.context.extra[LEAD_DELIVERY_KEY] = lambda message: session.submit(teammate_prompt(message))
    return ManyHands(session, runtime, store, sched)
