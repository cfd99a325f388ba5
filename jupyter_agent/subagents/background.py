"""AgentTask: an Agent call with ``run_in_background`` — a subagent in the session's task registry.

TaskOutput reads its progress (one line per tool call) and then its final report; TaskStop
aborts it through its own abort controller.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from ..core.abort import AbortController
from ..core.events import ToolCallStarted
from ..tasks.base import BackgroundTask
from .runner import SubagentEvent, SubagentResult

RunAgent = Callable[[Callable[[SubagentEvent], None]], Awaitable[SubagentResult]]


class AgentTask(BackgroundTask):
    kind = "local_agent"
    id_prefix = "agent"

    def __init__(self, task_id: str, description: str, run: RunAgent, abort: AbortController) -> None:
        super().__init__(task_id, description)
        self._abort = abort
        self._pending: list[str] = []
        self.result: SubagentResult | None = None
        self._runner = asyncio.ensure_future(self._run(run))

    def _on_event(self, event: SubagentEvent) -> None:
        inner = event.event
        if isinstance(inner, ToolCallStarted):
            self._pending.append(f"[{inner.tool_name}] {inner.input}")

    async def _run(self, run: RunAgent) -> None:
        try:
            self.result = result = await run(self._on_event)
        except asyncio.CancelledError:
            self._pending.append("(agent stopped)")
            self._finish("killed")
            raise
        except Exception as exc:
            self._pending.append(f"Agent failed: {type(exc).__name__}: {exc}")
            self._finish("failed")
            return
        if result.stop_reason == "interrupted":
            self._pending.append("(agent stopped)")
            self._finish("killed")
        elif result.stop_reason == "error":
            self._pending.append(f"Agent failed: {result.error}")
            self._finish("failed")
        else:
            self._pending.append(f"Agent report:\n{result.text or '(no report)'}")
            self._finish("completed", 0)

    async def read_new(self, max_chars: int) -> str:
        text, self._pending = "\n".join(self._pending), []
        return text if len(text) <= max_chars else "…" + text[-max_chars:]

    async def stop(self) -> None:
        if not self.done:
            self._abort.abort("Stopped by TaskStop")
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(self._runner), 30)
        if not self.done:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner

    def kill_now(self) -> None:
        self._abort.abort("Interpreter exiting")
        self._runner.cancel()
