"""Run one command hook: the event JSON on stdin, an asyncio subprocess, a timeout.

Exit 0: stdout is JSON (interpreted) or plain text (extra context).  Exit 2: the call is
blocked and stderr goes to the model.  Any other exit, a timeout or a failure to start is a
non-blocking error reported to the user.  On timeout or cancellation the hook's whole process
group is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping

from ..core.process_start import start_process
from .hook_response import HookResponse, response_from_json
from .hooks_config import CommandHook

_MAX_TEXT = 10_000


async def run_command_hook(
    hook: CommandHook, payload: Mapping[str, object], cwd: str, env: Mapping[str, str]
) -> HookResponse:
    data = json.dumps(payload, default=str).encode("utf-8")
    try:
        proc = await _start(hook.command, cwd, env)
    except OSError as exc:
        return HookResponse(error=f"hook {hook.command!r} could not start: {exc}")
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), hook.timeout)
    except asyncio.TimeoutError:
        await _kill(proc)
        return HookResponse(error=f"hook {hook.command!r} timed out after {hook.timeout:g}s")
    except asyncio.CancelledError:
        await _kill(proc)
        raise
    stdout = out.decode("utf-8", "replace").strip()[:_MAX_TEXT]
    stderr = err.decode("utf-8", "replace").strip()[:_MAX_TEXT]
    if proc.returncode == 2:
        return HookResponse(blocked=True, reason=stderr or f"Blocked by hook {hook.command!r}.")
    if proc.returncode != 0:
        return HookResponse(error=f"hook {hook.command!r} exited with {proc.returncode}: {stderr}")
    return interpret_stdout(stdout, hook.command)


async def _start(command: str, cwd: str, env: Mapping[str, str]) -> asyncio.subprocess.Process:
    """Start the hook's shell in its own process group; cancelled while it starts, the group is
    killed once it exists (``start_process``)."""
    return await start_process(asyncio.create_subprocess_shell(
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    ))


def interpret_stdout(stdout: str, name: str) -> HookResponse:
    if stdout.startswith("{"):
        try:
            return response_from_json(json.loads(stdout), name)
        except json.JSONDecodeError:
            return HookResponse(error=f"hook {name!r} printed invalid JSON", additional_context=stdout)
    return HookResponse(additional_context=stdout or None)


async def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        await proc.wait()
