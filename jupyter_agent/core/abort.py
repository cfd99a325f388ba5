"""Abort controller: one signal a turn, with children for subagents."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class AbortController:
    """Signals that the user stopped the turn.

    ``abort()`` must run on the event loop's thread; from another thread (a widget callback on
    a kernel subshell) use ``loop.call_soon_threadsafe(controller.abort, reason)``.
    """

    def __init__(self, parent: AbortController | None = None) -> None:
        self._event = asyncio.Event()
        self.reason: str | None = None
        self._listeners: list[Callable[[str], None]] = []
        self._children: list[AbortController] = []
        if parent is not None:
            parent._children.append(self)
            if parent.aborted:
                self.abort(parent.reason or "aborted")

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str = "Interrupted by user") -> None:
        if self._event.is_set():
            return
        self.reason = reason
        self._event.set()
        for listener in list(self._listeners):
            listener(reason)
        for child in list(self._children):
            child.abort(reason)

    def child(self) -> AbortController:
        return AbortController(parent=self)

    def on_abort(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    async def wait(self) -> str:
        await self._event.wait()
        return self.reason or "aborted"


class Aborted(Exception):
    """The controller aborted before the awaited work finished."""


async def await_unless_aborted(task: asyncio.Future[T], controller: AbortController) -> T:
    """``task``'s result; if ``controller`` aborts first, cancel the task, wait for it, raise Aborted.

    If the caller itself is cancelled, the task is cancelled and awaited too, so nothing keeps
    running behind the caller's back.
    """
    waiter = asyncio.ensure_future(controller.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _cancel_and_wait(task)
        raise
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    await _cancel_and_wait(task)
    raise Aborted


async def _cancel_and_wait(task: asyncio.Future[object]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
