"""Process groups: who is still alive in one, and killing all of it (SIGTERM, then SIGKILL).

A process that leaves the group (``setsid``, a daemonizing double fork) is found by the marker
its shell put in the environment, which every descendant inherits (``ESCAPE_MARKER``), the way
Jenkins' process-tree killer finds a build's leftovers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterator

POLL_SECONDS = 0.02
ESCAPE_MARKER = "JUPYTER_AGENT_SHELL"


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of group ``pgid``.

    An empty group is recognised by one ``killpg(pgid, 0)``.  Otherwise, on Linux, /proc is
    read so that zombies left for a non-reaping PID 1 do not count as alive; elsewhere the
    group's existence is all we can know.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    except PermissionError:
        pass
    if _has_proc():
        return _linux_members(pgid)
    return [pgid]


def _linux_members(pgid: int) -> list[int]:
    return [pid for pid, fields in _live_processes() if len(fields) >= 3 and int(fields[2]) == pgid]


def _has_proc() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


def _live_processes() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the /proc stat fields after the command name: state ppid pgrp ...) of every
    process that is not a zombie."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # exited while we looked
            continue
        # The command name may hold spaces and parens: the fields start after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] not in (b"Z", b"X"):
            yield int(name), fields


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the whole group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed user (setuid): nothing more we can do
        return False
    return True


async def wait_group_gone(pgid: int, timeout: float) -> bool:
    """Poll until no live member is left; True if that happened within ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while group_members(pgid):
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(POLL_SECONDS)
    return True


async def kill_group(pgid: int, grace: float) -> None:
    """SIGTERM the group, SIGKILL whatever is left after ``grace`` seconds, wait until it is gone.

    Safe to call on a group that is already gone.  Shielded so that a cancelled caller still
    finishes the kill.
    """
    await asyncio.shield(_kill_group(pgid, grace))


async def _kill_group(pgid: int, grace: float) -> None:
    if not group_members(pgid):
        return
    signal_group(pgid, signal.SIGTERM)
    signal_group(pgid, signal.SIGCONT)  # a stopped process only sees SIGTERM once continued
    if await wait_group_gone(pgid, grace):
        return
    signal_group(pgid, signal.SIGKILL)
    await wait_group_gone(pgid, 5.0)


def marked_processes(marker: str) -> list[int]:
    """Live processes (of this user, on Linux) whose environment holds ``ESCAPE_MARKER=marker``."""
    if not _has_proc():
        return []
    needle = f"{ESCAPE_MARKER}={marker}\0".encode()
    me = os.getpid()
    found = []
    for pid, _fields in _live_processes():
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:  # exited, or another user's process
            continue
        if needle in environ or environ.endswith(needle[:-1]):
            found.append(pid)
    return found


async def kill_escapees(marker: str, rounds: int = 5) -> None:
    """SIGKILL every process still carrying ``marker`` (left its group), until none is left."""
    for _ in range(rounds):
        if not kill_escapees_now(marker):
            return
        await asyncio.sleep(POLL_SECONDS)


def kill_escapees_now(marker: str) -> int:
    """SIGKILL the processes carrying ``marker`` at once; how many there were."""
    pids = marked_processes(marker)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)
