"""Coalesce many updates into at most one call per interval, on the event loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class Throttle:
    """Calls ``flush`` at most once per ``interval`` seconds after ``poke()``; ``flush_now()`` forces it.

    ``poke`` must run on the loop's thread (session events do).  Without a running loop (plain
    scripts) every poke flushes at once.
    """

    def __init__(self, flush: Callable[[], None], interval: float = 0.1) -> None:
        self._flush = flush
        self.interval = interval
        self._last = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self.flushes = 0

    def poke(self) -> None:
        if self._handle is not None:
            return
        wait = self.interval - (time.monotonic() - self._last)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if wait <= 0 or loop is None:
            self._run()
            return
        self._handle = loop.call_later(wait, self._run)

    def flush_now(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._run()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    @property
    def pending(self) -> bool:
        return self._handle is not None

    def _run(self) -> None:
        self._handle = None
        self._last = time.monotonic()
        self.flushes += 1
        self._flush()
