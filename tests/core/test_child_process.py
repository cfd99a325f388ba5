"""A child started in one synchronous step, its exit heard through a pidfd (or one thread)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading

import pytest

from jupyter_agent.core.child_process import run_child, start_child
from tests.tasks.shell_support import eventually, sleeps_with, token


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


# run_child: a child run to its end with its pipes served by the loop


async def test_input_and_output_larger_than_the_pipes_cross_without_a_thread():
    """2 MB through ``cat`` both ways at once (a pipe holds 64 kB: writing all before reading
    would deadlock); no thread serves it, and no descriptor stays open."""
    before_fds = _fds()
    threads = threading.active_count()
    data = os.urandom(2 << 20)
    running = asyncio.ensure_future(run_child(["sh", "-c", "cat; echo done >&2"], input=data, timeout=30))
    await asyncio.sleep(0.05)
    assert threading.active_count() == threads
    done = await running
    assert (done.returncode, done.stdout, done.stderr, done.cut) == (0, data, b"done\n", False)
    assert _fds() <= before_fds


async def test_a_child_that_does_not_read_its_input_is_no_error():
    done = await run_child(["sh", "-c", "echo ok; exit 4"], input=b"x" * (1 << 20), timeout=30)
    assert (done.returncode, done.stdout) == (4, b"ok\n")


async def test_output_past_the_limit_is_drained_and_dropped():
    done = await run_child(["sh", "-c", "head -c 5000000 /dev/zero; head -c 300000 /dev/zero >&2; echo end >&2"],
                           timeout=30, limit=1000)
    assert (done.returncode, len(done.stdout), len(done.stderr), done.cut) == (0, 1000, 1000, True)


@pytest.mark.parametrize(("stderr", "out", "err"), [
    (subprocess.STDOUT, b"o\ne\n", b""), (subprocess.DEVNULL, b"o\n", b""), (subprocess.PIPE, b"o\n", b"e\n"),
])
async def test_stderr_can_join_stdout_or_be_dropped(stderr, out, err):
    done = await run_child(["sh", "-c", "echo o; echo e >&2"], stderr=stderr, timeout=30)
    assert (done.stdout, done.stderr) == (out, err)


@pytest.mark.parametrize("end", ["timeout", "cancel"])
async def test_a_timeout_or_a_cancellation_kills_the_whole_group(end):
    """The child's own child (which holds the output pipe open) dies with it."""
    marker = token()
    running = asyncio.ensure_future(
        run_child(["sh", "-c", f"sleep {marker} & sleep {marker}; wait"], input=b"", timeout=0.5 if end == "timeout" else 60))
    assert await eventually(lambda: sleeps_with(marker) == 2)
    if end == "cancel":
        running.cancel()
    with pytest.raises(asyncio.TimeoutError if end == "timeout" else asyncio.CancelledError):
        await asyncio.wait_for(running, 20)
    assert await eventually(lambda: sleeps_with(marker) == 0)


async def test_a_cancelled_run_returns_once_the_killed_child_is_gone(monkeypatch):
    """SIGKILL is not instant: the child dies when it is next scheduled (on a busy machine, some
    time later).  A cancelled ``run_child`` hands control back after the child is gone, so a
    caller that stops its hooks or commands finds nothing left running.  The delay is made
    certain here by a kill that lands 0.3 s late."""
    from jupyter_agent.core import child_process

    marker = token()
    kill = os.killpg

    def late_kill(pgid: int, sig: int) -> None:
        threading.Timer(0.3, kill, (pgid, sig)).start()

    running = asyncio.ensure_future(run_child(["sleep", marker], input=b"", timeout=60))
    assert await eventually(lambda: sleeps_with(marker) == 1)
    monkeypatch.setattr(child_process.os, "killpg", late_kill)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(running, 20)
    assert sleeps_with(marker) == 0


async def test_a_program_that_cannot_be_run_raises_oserror_and_leaks_nothing(tmp_path):
    before_fds = _fds()
    with pytest.raises(FileNotFoundError):
        await run_child([str(tmp_path / "missing")], input=b"x", timeout=5)
    assert _fds() <= before_fds


def test_a_loop_that_cannot_watch_pipes_talks_to_the_child_from_a_thread():
    class NoReaders(asyncio.SelectorEventLoop):
        def add_reader(self, *args):
            raise NotImplementedError

    async def main():
        return await run_child(["sh", "-c", "cat; exit 3"], input=b"through a thread", timeout=30)

    with asyncio.Runner(loop_factory=NoReaders) as runner:
        done = runner.run(main())
    assert (done.returncode, done.stdout, done.cut) == (3, b"through a thread", False)
