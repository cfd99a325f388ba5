"""A child process the event loop hears of when it exits, started without an ``await``.

``asyncio.create_subprocess_exec`` forks synchronously too, but then has Python 3.11's default
child watcher start a thread per child (and wait until that thread runs), and connects the
child in later loop iterations, so a cancellation can arrive between the fork and the caller
owning the process (``process_start.py`` deals with that).  Here the fork is one synchronous
step: the caller owns the process the moment it exists, and on Linux the exit is announced by
a pidfd the loop watches like a socket (``os.pidfd_open``, Linux 5.3), with no thread at all.
Where there are no pidfds (macOS, an old kernel, a loop without ``add_reader``) one daemon
thread per child waits for it instead, as asyncio's own watcher does.

The child is reaped by ``Popen.poll`` once its exit is seen; nothing else here waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import Any


class ChildProcess:
    """``pid``, ``returncode`` (None while it runs) and ``await wait()``, like asyncio's Process."""

    def __init__(self, popen: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop):
        self._popen = popen
        self.pid = popen.pid
        self._loop = loop
        self._exit: asyncio.Future[int] = loop.create_future()
        self._pidfd: list[int] = []  # the pidfd while it is open (closed once, by whoever gets there first)
        if not self._watch_pidfd():
            threading.Thread(target=self._wait_in_thread, name=f"wait-{self.pid}", daemon=True).start()

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def wait(self) -> int:
        """The exit status (negative: killed by that signal); cancelling the wait leaves the
        child watched."""
        return await asyncio.shield(self._exit)

    def _watch_pidfd(self) -> bool:
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is None:
            return False
        try:
            pidfd = pidfd_open(self.pid)
        except OSError:  # no pidfd support in this kernel (or forbidden by a seccomp filter)
            return False
        try:
            self._loop.add_reader(pidfd, self._pidfd_ready)
        except (NotImplementedError, OSError, ValueError):  # a loop that cannot watch descriptors
            os.close(pidfd)
            return False
        self._pidfd.append(pidfd)
        # a loop closed while the child runs never calls back: the pidfd is closed once this
        # object is collected (not before: the loop's reader holds it while the loop lives)
        weakref.finalize(self, _close_held, self._pidfd)
        return True

    def _pidfd_ready(self) -> None:
        if self._popen.poll() is None:  # readable only once it has exited; be safe all the same
            return
        self._stop_watching()
        self._settle()

    def _stop_watching(self) -> None:
        if self._pidfd:
            with contextlib.suppress(Exception):  # the loop may already be closed
                self._loop.remove_reader(self._pidfd[0])
            _close_held(self._pidfd)

    def _wait_in_thread(self) -> None:
        self._popen.wait()
        with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
            self._loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        if not self._exit.done() and self._popen.returncode is not None:
            self._exit.set_result(self._popen.returncode)


def _close_held(held: list[int]) -> None:
    """Close the descriptor in ``held`` once, whoever gets there first."""
    if held:
        os.close(held.pop())


def start_child(args: Sequence[str], **popen_options: Any) -> ChildProcess:
    """Fork and exec ``args`` now (``subprocess.Popen`` options; OSError when it cannot start);
    the caller's running event loop will hear of its exit."""
    loop = asyncio.get_running_loop()
    return ChildProcess(subprocess.Popen(list(args), **popen_options), loop)
