"""Starting a child process that a cancellation must not leave behind.

``asyncio.create_subprocess_exec`` forks, then connects the pipes in later loop iterations.
Cancelled in between, CPython closes what it connected, SIGKILLs the direct child only and
waits for it; whatever the child already started lives on (and a child that reads a stdin pipe
nobody closes is never waited out).  ``start_process`` lets the start finish, then hands the
abandoned process to ``abandon`` (by default: SIGKILL its whole process group, for children
started with ``start_new_session=True``) and re-raises the cancellation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from .child_process import kill_group_now

Process = asyncio.subprocess.Process


def kill_process_group(proc: Process | None) -> None:
    """SIGKILL the group that ``proc`` leads (it was started with ``start_new_session=True``)."""
    if proc is not None:
        kill_group_now(proc.pid)


async def start_process(
    starting: Coroutine[Any, Any, Process], abandon: Callable[[Process | None], None] = kill_process_group
) -> Process:
    """Await ``starting`` (a ``create_subprocess_*`` call) so that a cancellation cannot orphan
    what it started: the start runs to its end, then ``abandon`` gets the process nobody will
    own (``None`` if the start failed), once, after the start is over."""
    task = asyncio.ensure_future(starting)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(lambda done: _abandon(done, abandon))
        raise


def _abandon(done: asyncio.Future[Process], abandon: Callable[[Process | None], None]) -> None:
    failed = done.cancelled() or done.exception() is not None
    abandon(None if failed else done.result())
