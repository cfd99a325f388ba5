"""A manual clock for the scheduler: time moves only when the test advances it."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import datetime, timedelta


class ManualClock:
    def __init__(self, start: datetime) -> None:
        self.t = start
        self._waiters: list[tuple[datetime, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def now(self) -> datetime:
        return self.t

    async def sleep(self, seconds: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (self.t + timedelta(seconds=seconds), next(self._seq), fut))
        await fut

    async def advance_to(self, when: datetime) -> None:
        """Move time forward, waking each sleeper at its deadline, in order."""
        await _settle()
        while self._waiters and self._waiters[0][0] <= when:
            deadline, _, fut = heapq.heappop(self._waiters)
            self.t = max(self.t, deadline)
            if not fut.done():
                fut.set_result(None)
            await _settle()
        self.t = when


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)
