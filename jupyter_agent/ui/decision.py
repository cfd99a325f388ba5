"""A one-shot answer from a widget click to a coroutine on the kernel's event loop.

Clicks may arrive on a kernel *subshell* thread (JupyterLab >= 4.4 with ipykernel 7.0-7.3);
``future.set_result`` from another thread never wakes the loop, so every answer goes through
``loop.call_soon_threadsafe``.  The first answer wins; later ones are ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PendingAnswer(Generic[T]):
    """A future on ``loop`` that widget callbacks on any thread may answer once."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop or asyncio.get_running_loop()
        self.future: asyncio.Future[T] = self.loop.create_future()
        self._on_answer: list[Callable[[T], None]] = []

    def on_answer(self, callback: Callable[[T], None]) -> None:
        """Run ``callback(value)`` on the loop thread when the answer is accepted."""
        self._on_answer.append(callback)

    def answer(self, value: T) -> None:
        """Thread-safe: schedule the answer on the loop."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self._accept, value)

    def _accept(self, value: T) -> None:
        if self.future.done():
            return
        self.future.set_result(value)
        for callback in self._on_answer:
            callback(value)

    @property
    def done(self) -> bool:
        return self.future.done()

    async def wait(self, timeout: float | None = None) -> T:
        """The answer.  A waiter that is cancelled leaves the future open (``dismiss`` then still
        answers it, and the widget shows it)."""
        if timeout is None:
            return await asyncio.shield(self.future)
        return await asyncio.wait_for(asyncio.shield(self.future), timeout)
