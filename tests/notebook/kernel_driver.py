"""Drive a real kernel from a test: run code, and run agent coroutines as background tasks.

Agent work runs as an asyncio task on the kernel's loop (as ``%agent`` does), so the shell
stays free for the frontend's comm replies; the test polls the task's result.
"""

from __future__ import annotations

import json
import queue
import time
from typing import Any

# ``start(key, coro)`` runs ``coro`` as a task on the kernel's loop; ``KernelDriver.run`` polls
# ``_results[key]``.  A template like SETUP (``str.format`` with ``root``), for other preludes too.
TASK_RUNNER = """
_results = {{}}

def start(key, coro):
    async def runner():
        try:
            _results[key] = {{"ok": await coro}}
        except Exception as exc:
            _results[key] = {{"exc": repr(exc)}}
    asyncio.ensure_future(runner())
"""

SETUP = """
import asyncio, json
from pathlib import Path
from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.notebook import get_document
from jupyter_agent.tools.notebook_edit import NotebookEditTool
from jupyter_agent.tools.read import ReadTool

_ctx = ToolUseContext(options=ToolUseOptions(tools=(ReadTool(), NotebookEditTool())),
                      cwd=Path({root!r}), session_dir=Path({root!r}) / ".session")

async def _allow(*args):
    return PermissionAllow()

async def call_tool(name, **input):
    out = await run_tool_use(ToolUseRequest("t", name, input), _ctx, _allow)
    return {{"is_error": out.is_error, "text": "".join(b.get("text", "") for b in out.content)}}

async def backend(path, **kw):
    return (await get_document(path, _ctx, **kw)).backend

""" + TASK_RUNNER


class KernelDriver:
    def __init__(self, kc: Any) -> None:
        self.kc = kc
        self._n = 0

    def execute(self, code: str, timeout: float = 60) -> str:
        """Run code, return its stdout; raise on an error in the kernel."""
        msg_id = self.kc.execute(code)
        out: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"kernel did not finish: {code[:80]}") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                raise RuntimeError("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(out)

    def run(self, expr: str, timeout: float = 60) -> Any:
        """Await ``expr`` (a coroutine expression) as a background task; return its value."""
        self._n += 1
        key = f"r{self._n}"
        self.execute(f"start({key!r}, {expr})")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = self.poll(key, deadline)
            if result is not None:
                if "exc" in result:
                    raise RuntimeError(result["exc"])
                return result["ok"]
            time.sleep(0.05)
        raise TimeoutError(f"task did not finish: {expr}")

    def poll(self, key: str, deadline: float) -> dict[str, Any] | None:
        """The task's ``{"ok": value}`` or ``{"exc": repr}``; None while it runs."""
        return json.loads(self.execute(f"print(json.dumps(_results.get({key!r})))").strip())
