"""Newest-first ordering of paths streamed from rg, stat-ing each one while rg is still running."""

from __future__ import annotations

import heapq
import os


class NewestFiles:
    """Collects rg's path lines as they stream in, stat-ing each one (overlapping rg's walk)."""

    def __init__(self) -> None:
        self._partial = b""
        self._stamped: list[tuple[int, bytes]] = []
        self.count = 0

    def feed(self, chunk: bytes) -> None:
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            self._add(line)

    def finish(self) -> None:
        if self._partial:
            self._add(self._partial)
            self._partial = b""

    def newest(self, n: int | None = None) -> tuple[str, ...]:
        """The ``n`` newest paths (all when None), newest first, ties by name; decoded."""
        top = sorted(self._stamped) if n is None else heapq.nsmallest(n, self._stamped)
        return tuple(os.fsdecode(path) for _, path in top)

    def _add(self, path: bytes) -> None:
        if not path:
            return
        try:
            self._stamped.append((-os.stat(path).st_mtime_ns, path))  # sorts newest first
            self.count += 1
        except OSError:
            pass  # vanished since the walk
