"""A child started in one synchronous step, its exit heard through a pidfd (or one thread)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading

import pytest

from jupyter_agent.core.child_process import start_child


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _start(*args: str):
    return start_child(list(args), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)


async def test_exit_status_is_heard_without_a_thread_and_nothing_stays_open():
    before_fds = _fds()
    threads = threading.active_count()
    child = _start("bash", "-c", "sleep 0.2; exit 7")
    assert child.returncode is None
    assert threading.active_count() == threads  # the pidfd is watched by the loop itself
    assert await asyncio.wait_for(child.wait(), 10) == 7
    assert child.returncode == 7
    assert _fds() <= before_fds


async def test_death_by_signal_reads_as_the_negative_signal():
    child = _start("sleep", "30")
    os.kill(child.pid, signal.SIGKILL)
    assert await asyncio.wait_for(child.wait(), 10) == -signal.SIGKILL


async def test_a_cancelled_wait_leaves_the_child_watched():
    child = _start("bash", "-c", "sleep 0.3")
    waiting = asyncio.ensure_future(child.wait())
    await asyncio.sleep(0.05)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert await asyncio.wait_for(child.wait(), 10) == 0


async def test_a_program_that_cannot_start_raises_and_leaks_nothing(tmp_path):
    before_fds = _fds()
    with pytest.raises(FileNotFoundError):
        _start(str(tmp_path / "missing"))
    assert _fds() <= before_fds


@pytest.mark.parametrize("how", ["no pidfd_open", "pidfd_open fails"])
async def test_without_pidfds_one_thread_waits_for_the_child(monkeypatch, how):
    if how == "no pidfd_open":
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    else:
        def refuse(pid: int, flags: int = 0) -> int:
            raise OSError(38, "Function not implemented")
        monkeypatch.setattr(os, "pidfd_open", refuse)
    threads = threading.active_count()
    child = _start("bash", "-c", "sleep 0.3; exit 3")
    assert threading.active_count() == threads + 1
    assert await asyncio.wait_for(child.wait(), 10) == 3
    for _ in range(100):  # the waiting thread ends with the child
        if threading.active_count() == threads:
            break
        await asyncio.sleep(0.02)
    assert threading.active_count() == threads


def test_a_loop_closed_while_the_child_runs_leaks_no_descriptor():
    """The loop that watched the child is gone before the child ends (a test's loop, a
    session's helper loop): its pidfd is closed once nothing refers to the child any more."""
    import gc

    before = _fds()

    async def start_and_leave() -> int:
        return _start("sleep", "30").pid

    pid = asyncio.run(start_and_leave())
    gc.collect()
    assert _fds() <= before
    os.kill(pid, signal.SIGKILL)
