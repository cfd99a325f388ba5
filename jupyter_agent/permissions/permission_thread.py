"""Permission decisions off the kernel's event loop.

A Bash decision reads files: the scripts and modules a line runs, the project's manifests, git's
index.  In a large project the first decision reads hundreds of them (this repository's
``pytest tests`` under ``Bash(rm:*)``: about half a second); made on the kernel's loop, that
would freeze the kernel meanwhile (the approval cards' buttons, other cells' output, the
labextension's messages all wait).  So the synchronous checks run in a thread of their own:

- **one thread, in order**: decisions are made one at a time, in the order they were asked for,
  as they were on the loop; the approval cards of tools running in parallel still come in the
  order of the calls, and the checks' caches see one decision at a time (what the loop itself
  reads of them meanwhile, ``is_read_only`` or the Read tool's check, are single dict operations);
- what a check needs that only a subprocess can tell (git's history, ``git_history``) is found out
  on the loop between two runs of the check;
- the thread's Python code lets the loop run every switch interval (5 ms), so the kernel answers
  within milliseconds while a decision reads;
- a check that does not finish within ``CHECK_TIMEOUT`` (a file system that hangs, a device that
  blocks) gets the caller's fail-closed answer (an ask), and the decisions after it get a new
  thread: one stuck check never holds the agent.

Everything the thread is given is read there, never changed: the loop's values (the IPython
shell's aliases, the kernel's folder) are read on the loop before the check is sent.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from . import git_history

T = TypeVar("T")
THREAD_NAME = "jupyter-agent-permissions"
CHECK_TIMEOUT = 60.0  # seconds a decision may take, waiting for the ones before it included

_executor: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _the_executor() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=THREAD_NAME)
        return _executor


def _forget_after_fork() -> None:
    """A forked child has no copy of the thread: it makes its own on first use."""
    global _executor, _lock
    _executor, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def _noting(check: Callable[[], T]) -> tuple[T, set[str]]:
    with git_history.noting_wanted() as wanted:
        return check(), wanted


async def decide_off_loop(check: Callable[[], T], timed_out: Callable[[float], T]) -> T:
    """``check()`` run in the permission thread; when it found a repository's history unlisted
    (and so asked), the history is listed on the loop and ``check()`` runs again (what is still
    unlisted then, listed a moment ago with the refs moved since, asks).  ``timed_out(seconds)``
    is the answer when a run takes longer than ``CHECK_TIMEOUT``."""
    result, wanted = await _run(check, timed_out)
    if wanted and await git_history.list_wanted(wanted):
        result, _ = await _run(check, timed_out)
    return result


async def _run(check: Callable[[], T], timed_out: Callable[[float], T]) -> tuple[T, set[str]]:
    executor = _the_executor()
    future = asyncio.get_running_loop().run_in_executor(executor, _noting, check)
    try:
        return await asyncio.wait_for(asyncio.shield(future), CHECK_TIMEOUT)
    except asyncio.TimeoutError:
        _abandon(executor)
        future.add_done_callback(lambda done: done.cancelled() or done.exception())  # (its end is not awaited)
        return timed_out(CHECK_TIMEOUT), set()


def _abandon(executor: ThreadPoolExecutor) -> None:
    """The thread of ``executor`` is stuck in a check: later decisions get a thread of their own
    (the stuck one ends with its check; what was queued behind it times out in turn)."""
    global _executor
    with _lock:
        if _executor is executor:
            _executor = None
    executor.shutdown(wait=False)


__all__ = ["CHECK_TIMEOUT", "THREAD_NAME", "decide_off_loop"]
