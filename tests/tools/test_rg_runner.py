"""The ripgrep runner: timeout, abort and output cap kill rg and leave no process behind."""

from __future__ import annotations

import asyncio
import os

import psutil
import pytest

from jupyter_agent.core.abort import AbortController
from jupyter_agent.errors import ToolError
from jupyter_agent.tools._rg import rg_executable, run_rg


def _rg_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.name() == "rg"]


async def test_timeout_kills_rg(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # rg blocks opening a FIFO nobody writes to
    with pytest.raises(ToolError, match="timed out"):
        await run_rg(["-e", "x", "--", str(fifo)], cwd=tmp_path, timeout=0.5)
    await asyncio.sleep(0)  # let the child watcher reap
    assert _rg_children() == []


async def test_abort_kills_rg(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    abort = AbortController()
    asyncio.get_running_loop().call_later(0.3, abort.abort)
    with pytest.raises(ToolError, match="interrupted"):
        await run_rg(["-e", "x", "--", str(fifo)], cwd=tmp_path, timeout=60, abort=abort)
    assert _rg_children() == []


async def test_output_cap_stops_rg(tmp_path):
    (tmp_path / "big.txt").write_text("match\n" * 200_000)
    res = await run_rg(["-e", "match", "--", str(tmp_path)], cwd=tmp_path, timeout=60, max_bytes=10_000)
    assert res.truncated and len(res.stdout) == 10_000
    assert _rg_children() == []


async def test_stdout_and_exit_codes(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    hit = await run_rg(["-l", "-e", "hello", "--", str(tmp_path)], cwd=tmp_path, timeout=60)
    assert (hit.returncode, hit.stdout) == (0, f"{tmp_path}/a.txt\n".encode())
    miss = await run_rg(["-l", "-e", "absent", "--", str(tmp_path)], cwd=tmp_path, timeout=60)
    assert (miss.returncode, miss.stdout) == (1, b"")
    bad = await run_rg(["-e", "(", "--", str(tmp_path)], cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "regex parse error" in bad.stderr


def test_rg_is_found_next_to_python():
    assert os.access(rg_executable(), os.X_OK)


async def test_a_cancelled_search_leaves_no_rg_and_no_descriptor(tmp_path):
    """The caller cancelled while rg runs (the user's Stop reaching a parallel batch): rg is
    killed and reaped before the cancellation goes on, and its pipes are closed."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    before = set(os.listdir("/proc/self/fd"))
    search = asyncio.ensure_future(run_rg(["-e", "x", "--", str(fifo)], cwd=tmp_path, timeout=60))
    for _ in range(200):
        if _rg_children():
            break
        await asyncio.sleep(0.01)
    assert _rg_children()
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
    assert _rg_children() == []
    assert set(os.listdir("/proc/self/fd")) <= before
