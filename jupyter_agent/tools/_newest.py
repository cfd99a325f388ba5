"""Newest-first ordering of paths listed by rg: stat-ed as they stream in (Grep), or merged from
lists rg already sorted newest first (Glob)."""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable


class NewestFiles:
    """Collects rg's path lines as they stream in (Grep's files_with_matches), stat-ing each one
    while rg is still searching."""

    def __init__(self) -> None:
        self._partial = b""
        self._stamped: list[tuple[int, bytes]] = []

    @property
    def count(self) -> int:
        return len(self._stamped)

    def feed(self, chunk: bytes) -> None:
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        self._add(lines)

    def finish(self) -> None:
        if self._partial:
            self._add([self._partial])
            self._partial = b""

    def newest(self, n: int | None = None) -> tuple[str, ...]:
        """The ``n`` newest paths (all when None), newest first, ties by name; decoded."""
        top = sorted(self._stamped) if n is None else heapq.nsmallest(n, self._stamped)
        return tuple(os.fsdecode(path) for _, path in top)

    def _add(self, lines: list[bytes]) -> None:
        stat, append = os.stat, self._stamped.append  # the hot loop: one stat per path
        for line in lines:
            if not line:
                continue
            try:
                mtime = stat(line).st_mtime_ns
            except OSError:
                continue  # vanished since the search
            append((-mtime, line))  # sorts newest first, ties by name


def newest_of_sorted(
    outputs: list[bytes], n: int, base: str | os.PathLike[str], skip: Callable[[str], bool] | None = None,
) -> tuple[tuple[str, ...], int]:
    """The ``n`` newest files listed by rg processes that each printed theirs newest first.

    ``outputs``: each process's ``./path`` lines (``--sortr modified``), relative to ``base``.
    The newest ``n`` overall are among the first ``n`` of each list, so only those are stat-ed
    here (mtimes again, to merge the lists and break ties by name), plus any that tie with the
    ``n``-th of their list.  ``skip(path)`` drops paths (Read-denied ones) before anything is
    counted.  Returns (absolute paths newest first, number of files listed).
    """
    prefix = os.fsencode(os.path.join(base, ""))
    stamped: list[tuple[int, bytes]] = []
    total = 0
    for output in outputs:
        lines = [line for line in output.split(b"\n") if line]
        if skip is not None:
            lines = [line for line in lines if not skip(os.fsdecode(line))]
        total += len(lines)
        stamped.extend(_leading(lines, n, prefix))
    return tuple(os.fsdecode(path) for _, path in heapq.nsmallest(n, stamped)), total


def _absolute(prefix: bytes, line: bytes) -> bytes:
    return prefix + (line[2:] if line.startswith(b"./") else line)


def _leading(lines: list[bytes], n: int, prefix: bytes) -> list[tuple[int, bytes]]:
    """(-mtime, absolute path) of the first ``n`` listed files that still exist, and of those
    tying with the last of them."""
    out: list[tuple[int, bytes]] = []
    oldest = 0
    if n <= 0:
        return out
    for line in lines:
        path = _absolute(prefix, line)
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            continue  # vanished since the walk
        if len(out) >= n and mtime < oldest:
            break  # the list is newest first: nothing further down can make the top n
        out.append((-mtime, path))
        if len(out) <= n:
            oldest = mtime if len(out) == 1 else min(oldest, mtime)
    return out
