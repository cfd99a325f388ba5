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
import signal
import subprocess
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
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

    def poll(self) -> int | None:
        """The exit status if the child has exited (it is reaped now then), else None."""
        return self._popen.poll()

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


@dataclass(frozen=True)
class Captured:
    """What a finished child said: its exit status and output (stdout cut at the limit if
    ``cut``; stderr likewise, silently)."""

    returncode: int
    stdout: bytes
    stderr: bytes
    cut: bool = False


async def run_child(
    args: Sequence[str], *, input: bytes | None = None, timeout: float | None = None,
    limit: int = 8 << 20, stderr: int = subprocess.PIPE, **popen_options: Any,
) -> Captured:
    """Run ``args`` to its end in a new session: ``input`` written to its stdin (none: stdin is
    ``/dev/null``), stdout and stderr (``subprocess.PIPE``, ``DEVNULL`` or ``STDOUT``) read as
    they come, keeping ``limit`` bytes of each and draining the rest so the child never stalls.

    The pipes and the exit are watched by the loop (no thread, no ``await`` between the fork and
    owning the child).  On timeout (``asyncio.TimeoutError``) or cancellation the child's whole
    process group is killed first.  OSError when it cannot start.
    """
    loop = asyncio.get_running_loop()
    popen = subprocess.Popen(
        list(args), stdin=subprocess.DEVNULL if input is None else subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=stderr, start_new_session=True, **popen_options,
    )
    child = ChildProcess(popen, loop)
    try:
        pipes = _Pipes(loop, popen, input or b"", limit)
    except NotImplementedError:  # a loop that cannot watch pipes: one thread talks to the child
        try:
            return await asyncio.wait_for(loop.run_in_executor(None, _communicate, popen, input, limit), timeout)
        except BaseException:
            kill_group_now(child.pid)
            raise
    except BaseException:
        kill_group_now(child.pid)
        raise
    expired: list[bool] = []

    def stop() -> None:
        kill_group_now(child.pid)
        pipes.close()

    def expire() -> None:
        expired.append(True)
        stop()

    # a timer rather than wait_for: no task between the caller and the child's pipes and exit
    timer = loop.call_later(timeout, expire) if timeout is not None else None
    try:
        await pipes.done
        if child.poll() is None:  # usually gone by the time its output ends
            await child.wait()
    except BaseException:
        stop()
        # a SIGKILLed process still runs until it is scheduled: the caller gets control back
        # once it is gone (a second cancellation, or a child stuck in the kernel, cuts that short)
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
            await asyncio.wait_for(child.wait(), _GONE_WITHIN)
        raise
    finally:
        if timer is not None:
            timer.cancel()
    if expired:
        raise asyncio.TimeoutError
    return Captured(popen.returncode, bytes(pipes.out), bytes(pipes.err), pipes.cut)


def _communicate(popen: subprocess.Popen[bytes], data: bytes | None, limit: int) -> Captured:
    out, err = popen.communicate(data)
    return Captured(popen.returncode, out[:limit], (err or b"")[:limit], len(out) > limit)


_GONE_WITHIN = 5.0  # seconds a killed child is waited for


def kill_group_now(pgid: int) -> None:
    """SIGKILL the process group ``pgid`` (a child started in a new session leads its own) at
    once, with nothing to await: a timeout, a cancellation, interpreter exit."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


class _Pipes:
    """A child's stdin, stdout and stderr served by loop readers and writers: ``done`` is set
    once the input is written (or refused) and both outputs reached their end."""

    def __init__(self, loop: asyncio.AbstractEventLoop, popen: subprocess.Popen[bytes], data: bytes, limit: int):
        self._loop = loop
        self.out = bytearray()
        self.err = bytearray()
        self.cut = False
        self._limit = limit
        self.done: asyncio.Future[None] = loop.create_future()
        self._open: dict[int, Any] = {}  # fd -> the Popen file object that owns it
        self._data = memoryview(data)
        for stream, sink in ((popen.stdout, self.out), (popen.stderr, self.err)):
            if stream is not None:
                self._watch(stream, lambda fd, sink=sink: self._read(fd, sink), reader=True)
        if popen.stdin is not None:
            self._watch(popen.stdin, self._write, reader=False)
        self._check_done()

    def _watch(self, stream: Any, callback: Any, *, reader: bool) -> None:
        fd = stream.fileno()
        if reader:  # first, so that a loop without readers (NotImplementedError) finds nothing changed
            self._loop.add_reader(fd, callback, fd)
        os.set_blocking(fd, False)
        self._open[fd] = stream
        if not reader and not self._write(fd):  # the input did not fit in the pipe at once
            self._loop.add_writer(fd, callback, fd)

    def _read(self, fd: int, sink: bytearray) -> None:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._end(fd, reader=True)
            return
        room = self._limit - len(sink)
        if len(chunk) > room:
            if sink is self.out:
                self.cut = True
            chunk = chunk[:max(room, 0)]
        sink += chunk

    def _write(self, fd: int) -> bool:
        """Write what the pipe takes; True once the input is all out (or the child closed its
        end), when stdin is closed so the child sees its end."""
        while self._data:
            try:
                sent = os.write(fd, self._data[: 1 << 16])
            except BlockingIOError:
                return False
            except OSError:  # BrokenPipeError: the child does not read its input
                break
            self._data = self._data[sent:]
        self._end(fd, reader=False)
        return True

    def _end(self, fd: int, *, reader: bool) -> None:
        stream = self._open.pop(fd, None)
        if stream is None:
            return
        with contextlib.suppress(Exception):
            (self._loop.remove_reader if reader else self._loop.remove_writer)(fd)
        with contextlib.suppress(OSError):
            stream.close()
        self._check_done()

    def _check_done(self) -> None:
        if not self._open and not self.done.done():
            self.done.set_result(None)

    def close(self) -> None:
        """Stop serving the pipes (the child is being killed)."""
        for fd in list(self._open):
            self._end(fd, reader=self._open[fd].readable())
