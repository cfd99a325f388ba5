"""Page-side helpers for the browser tests: the open notebook's model, its kernel, dialogs."""

from __future__ import annotations

import json
import time
from typing import Any

_PANEL = "window.jupyterapp.shell.currentWidget"

KERNEL_IDLE = f"""() => {{
  const w = window.jupyterapp && {_PANEL};
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle' && !!w.content.model;
}}"""

_EXEC = f"""async (code) => {{
  const kernel = {_PANEL}.sessionContext.session.kernel;
  const future = kernel.requestExecute({{ code, stop_on_error: true }});
  let out = '';
  future.onIOPub = msg => {{
    if (msg.header.msg_type === 'stream') out += msg.content.text;
    if (msg.header.msg_type === 'error') out += 'KERNEL ERROR: ' + msg.content.ename + ': ' + msg.content.evalue;
  }};
  await future.done;
  return out;
}}"""


def open_notebook(page: Any, url: str, name: str) -> None:
    page.goto(f"{url}/lab/tree/{name}?reset")  # ?reset: no tabs restored from an earlier page
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)


def cells(page: Any) -> list[tuple[str, str]]:
    """(id, source) of every cell in the live model."""
    return [tuple(c) for c in page.evaluate(
        f"() => {_PANEL}.content.model.sharedModel.cells.map(c => [c.id, c.getSource()])"
    )]


def kernel_exec(page: Any, code: str) -> str:
    """Run code on the notebook's kernel (not in a cell) and return its stdout."""
    out = page.evaluate(_EXEC, code)
    assert "KERNEL ERROR" not in out, out
    return out


def wait_result(page: Any, key: str, limit: float = 60) -> Any:
    """Poll the kernel's ``results[key]`` (set by an agent turn running in the background)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        raw = kernel_exec(page, f"print(json.dumps(results.get({key!r})))").strip()
        if raw != "null":
            return json.loads(raw)
        page.wait_for_timeout(100)
    raise TimeoutError(f"agent turn {key} did not finish")


def select_cell(page: Any, cell_id: str) -> None:
    """Make ``cell_id`` the active cell, in command mode, with the notebook focused."""
    page.evaluate(
        """(id) => {
          const nb = window.jupyterapp.shell.currentWidget.content;
          nb.activeCellIndex = nb.widgets.findIndex(w => w.model.id === id);
          nb.mode = 'command';
          nb.node.focus();
        }""",
        cell_id,
    )


def cell_locator(page: Any, cell_id: str) -> Any:
    index = [cid for cid, _ in cells(page)].index(cell_id)
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def dialogs(page: Any) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('.jp-Dialog')].map(d => d.innerText)")


def is_dirty(page: Any) -> bool:
    return bool(page.evaluate(f"() => {_PANEL}.context.model.dirty"))




def wait_cell_count(page: Any, n: int) -> None:
    """Wait until the live model has ``n`` cells."""
    page.wait_for_function(f"(n) => {_PANEL}.content.model.sharedModel.cells.length === n", arg=n)


_TOOL_PRELUDE = """import asyncio, json, os
from pathlib import Path
from jupyter_agent.core.context import ToolUseContext, ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.notebook import active_backend, get_document
from jupyter_agent.tools.notebook_edit import NotebookEditTool
from jupyter_agent.tools.read import ReadTool

NB = os.path.abspath({notebook!r})
ctx = ToolUseContext(options=ToolUseOptions(tools=(ReadTool(), NotebookEditTool())), cwd=Path.cwd())
results = {{}}

async def _allow(*args):
    return PermissionAllow()

async def tool(name, **input):
    out = await run_tool_use(ToolUseRequest(name, name, input), ctx, _allow)
    data = getattr(getattr(out, "result", None), "data", None)
    line = NotebookEditTool().render_tool_result_message(data) if name == "NotebookEdit" and data else None
    return {{"is_error": out.is_error, "text": "".join(b.get("text", "") for b in out.content), "line": line}}
"""


def tool_prelude(notebook: str) -> str:
    """Kernel-side code that runs Read/NotebookEdit through ``run_tool_use`` on ``notebook``."""
    return _TOOL_PRELUDE.format(notebook=notebook)
