"""Which transcript shows which turn: session events are routed to the cell that asked.

Prompts are queued by the session in submission order, so transcripts wait in a FIFO; the
one at the head becomes *active* on ``TurnStarted`` and stops being active on ``TurnEnded``.
The permission handler asks in the active transcript.  Re-running a cell stops its old turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..agent import events as ev
from ..checkpoints.store import MAX_TURNS
from ..ui.transcript import Transcript


@dataclass
class Turn:
    """One ``%agent`` run: its transcript, the session task and the cell it came from."""

    transcript: Transcript
    cell_id: str | None
    task: Any = None  # what session.submit returned (an asyncio.Task / Future)
    display: Any = None  # the LiveDisplay showing the transcript in the cell

    @property
    def running(self) -> bool:
        return not self.transcript.done


class TurnRouter:
    """Routes one session's events to the transcript of the turn they belong to."""

    def __init__(self, stop_session: Callable[[], None]) -> None:
        self._stop_session = stop_session
        self.queue: deque[Turn] = deque()
        self.active: Turn | None = None
        self.by_cell: dict[str, Turn] = {}
        self.by_turn_id: dict[str, Turn] = {}  # the turns --rewind can still reach, to mark them

    def active_transcript(self) -> Transcript | None:
        return self.active.transcript if self.active is not None else None

    def add(self, turn: Turn) -> None:
        if self.active is not None or self.queue:
            turn.transcript.mark_queued()
        self.queue.append(turn)
        if turn.cell_id:
            self.by_cell[turn.cell_id] = turn

    def dispatch(self, event: Any) -> None:
        """The session subscriber: called on the loop thread for every event."""
        if isinstance(event, ev.TurnStarted):
            self.active = self.queue.popleft() if self.queue else None
            if self.active is not None:
                self.by_turn_id[event.turn_id] = self.active
                if len(self.by_turn_id) > MAX_TURNS:  # older than any checkpoint: let its widgets go
                    del self.by_turn_id[next(iter(self.by_turn_id))]
        turn = self.active
        if turn is not None:
            turn.transcript.handle(event)
        if isinstance(event, ev.TurnEnded):
            self.active = None

    def stop(self, turn: Turn) -> None:
        """Stop ``turn``: the running one through the session, a queued one by cancelling it."""
        if turn is self.active:
            turn.transcript.close_asks()  # an ask waiting for a click must not hold the turn
            self._stop_session()
            return
        if turn in self.queue:
            self.queue.remove(turn)
            if turn.task is not None and hasattr(turn.task, "cancel"):
                turn.task.cancel()
            turn.transcript.finish("interrupted")

    def stop_cell(self, cell_id: str | None) -> Turn | None:
        """Re-running a cell stops the turn it started before; returns that turn."""
        old = self.by_cell.get(cell_id) if cell_id else None
        if old is not None and old.running:
            self.stop(old)
            return old
        return None

    def mark_rewound(self, turn_ids: list[str], forgotten: bool) -> None:
        """The transcripts of turns ``%agent --rewind`` undid say so."""
        for turn_id in turn_ids:
            turn = self.by_turn_id.pop(turn_id, None)
            if turn is not None:
                turn.transcript.mark_rewound(forgotten)

    def task_done(self, turn: Turn, task: Any) -> None:
        """The session task ended: close the transcript if no TurnEnded did (cancel, crash)."""
        if turn.transcript.done:
            return
        reason = "end_turn"
        with contextlib.suppress(asyncio.CancelledError, Exception):
            if task.cancelled():
                reason = "interrupted"
            elif task.exception() is not None:
                exc = task.exception()
                turn.transcript.note(f"The turn failed: {type(exc).__name__}: {exc}", error=True)
                reason = "error"
        if turn in self.queue:
            self.queue.remove(turn)
        if self.active is turn:
            self.active = None
        turn.transcript.finish(reason)
