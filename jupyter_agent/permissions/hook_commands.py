"""Run one command hook: the event JSON on stdin, a child the event loop watches, a timeout.

Exit 0: stdout is JSON (interpreted) or plain text (extra context).  Exit 2: the call is
blocked and stderr goes to the model.  Any other exit, a timeout or a failure to start is a
non-blocking error reported to the user.  On timeout or cancellation the hook's whole process
group is killed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..core.child_process import run_child
from .hook_response import HookResponse, response_from_json
from .hooks_config import CommandHook

MAX_TEXT = 10_000  # characters of one hook text the model sees (as in Claude Code)
MAX_OUTPUT = 8 << 20  # bytes of a hook's output read at all


async def run_command_hook(
    hook: CommandHook, payload: Mapping[str, object], cwd: str, env: Mapping[str, str]
) -> HookResponse:
    data = json.dumps(payload, default=str).encode("utf-8")
    try:
        done = await run_child(["/bin/sh", "-c", hook.command], input=data, timeout=hook.timeout, limit=MAX_OUTPUT,
                               cwd=cwd, env=env)
    except asyncio.TimeoutError:  # first: an OSError too, since Python 3.11
        return HookResponse(error=f"hook {hook.command!r} timed out after {hook.timeout:g}s")
    except OSError as exc:
        return HookResponse(error=f"hook {hook.command!r} could not start: {exc}")
    stdout = done.stdout.decode("utf-8", "replace").strip()
    stderr = done.stderr.decode("utf-8", "replace").strip()[:MAX_TEXT]
    if done.returncode == 2:
        return HookResponse(blocked=True, reason=stderr or f"Blocked by hook {hook.command!r}.")
    if done.returncode != 0:
        return HookResponse(error=f"hook {hook.command!r} exited with {done.returncode}: {stderr}")
    return interpret_stdout(stdout, hook.command, cut=done.cut)


def interpret_stdout(stdout: str, name: str, *, cut: bool = False) -> HookResponse:
    """A hook's answer: a JSON object (read whole, however long: an ``updatedInput`` may carry a
    file), else plain text, extra context.  What reaches the model is cut at ``MAX_TEXT``
    characters per field; output past ``MAX_OUTPUT`` bytes is not read as JSON."""
    if stdout.startswith("{"):
        if cut:
            return HookResponse(error=f"hook {name!r} answered with more than {MAX_OUTPUT >> 20} MiB, which was not read")
        try:
            return capped(response_from_json(json.loads(stdout), name))
        except json.JSONDecodeError:
            return HookResponse(error=f"hook {name!r} printed invalid JSON", additional_context=stdout[:MAX_TEXT])
    return HookResponse(additional_context=stdout[:MAX_TEXT] or None)


def capped(response: HookResponse) -> HookResponse:
    """``response`` with each text the model or the user reads cut at ``MAX_TEXT`` characters."""
    texts: dict[str, Any] = {name: value[:MAX_TEXT] for name in _TEXTS
                             if isinstance(value := getattr(response, name), str) and len(value) > MAX_TEXT}
    return replace(response, **texts) if texts else response


_TEXTS = ("reason", "permission_reason", "additional_context", "system_message", "stop_reason")
