"""Process groups: who is still alive in one, and killing all of it (SIGTERM, then SIGKILL)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

POLL_SECONDS = 0.02


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
    if sys.platform.startswith("linux") and os.path.isdir("/proc/self"):
        return _linux_members(pgid)
    return [pgid]


def _linux_members(pgid: int) -> list[int]:
    members = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # exited while we looked
            continue
        # Fields after the command name (which may hold spaces and parens): state ppid pgrp ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(name))
    return members


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


def kill_group_now(pgid: int) -> None:
    """SIGKILL the group at once (for interpreter exit, where nothing can be awaited)."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)
