"""The agent is told which notebooks are open in JupyterLab: the page says so with its hello and
again whenever a notebook is opened or closed, and each ``%agent`` prompt carries the list.  In a
real JupyterLab with the scripted model server."""

from __future__ import annotations

import json
import time

import nbformat
import pytest

from jupyter_agent.testing import reply, text

from .browser_helpers import KERNEL_IDLE, kernel_exec, open_notebook, select_cell

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

_OPEN = "async (p) => { await window.jupyterapp.commands.execute('docmanager:open', {path: p}); }"
# dispose: the tab goes without the "Save your work" dialog (opening it set kernel metadata)
_CLOSE = """(p) => { Array.from(window.jupyterapp.shell.widgets('main'))
  .find(w => w.context && w.context.path === p).dispose(); }"""
_CURRENT = "(p) => window.jupyterapp.shell.currentWidget.context.path === p"


def _write(path, cells) -> None:
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def _kernel_sees(page, expected: list[str], limit: float = 30) -> None:
    """Wait until this kernel's bridge has heard that exactly ``expected`` (names) are open."""
    code = "import jupyter_agent.notebook as N, os\n" \
           "print(json.dumps(sorted(os.path.basename(p) for p in (N._bridge.open_notebooks() " \
           "if N._bridge and not N._bridge.closed else []))))"
    deadline = time.monotonic() + limit
    seen = None
    while time.monotonic() < deadline:
        seen = json.loads(kernel_exec(page, "import json\n" + code).strip())
        if seen == sorted(expected):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the kernel heard {seen}, not {sorted(expected)}")


def _prompt_blocks(server, index: int) -> str:
    """The text of the last user message of model request ``index``."""
    content = server.message_requests[index].messages[-1]["content"]
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def _back_to(page, name: str) -> None:
    page.evaluate("""(p) => {
      const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === p);
      window.jupyterapp.shell.activateById(w.id);
    }""", name)
    page.wait_for_function(_CURRENT, arg=name)
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)


def test_each_prompt_names_the_other_notebooks_open_in_jupyterlab(lab, page, server):
    setup = ("%load_ext jupyter_agent\n"
             f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'")
    _write(lab.root / "open_main.ipynb", [
        nbformat.v4.new_code_cell(setup, id="setup"),
        nbformat.v4.new_code_cell("%agent which notebooks are open?", id="first"),
        nbformat.v4.new_code_cell("%agent and now?", id="second"),
    ])
    _write(lab.root / "open_data.ipynb", [nbformat.v4.new_code_cell("df = None", id="d1")])
    _write(lab.root / "open_plots.ipynb", [nbformat.v4.new_code_cell("plot = None", id="p1")])
    server.push(reply(text("Turn one done.")), reply(text("Turn two done.")))

    open_notebook(page, lab.url, "open_main.ipynb")
    page.evaluate(_OPEN, "open_data.ipynb")
    page.wait_for_function(_CURRENT, arg="open_data.ipynb")
    _back_to(page, "open_main.ipynb")
    select_cell(page, "setup")
    page.keyboard.press("Shift+Enter")  # %load_ext opens the bridge: the page says hello, and what is open
    _kernel_sees(page, ["open_data.ipynb", "open_main.ipynb"])
    select_cell(page, "first")
    page.keyboard.press("Shift+Enter")
    page.get_by_text("Turn one done.").wait_for(timeout=60_000)
    first = _prompt_blocks(server, 0)
    assert "which notebooks are open?" in first
    assert "Also open in JupyterLab: open_data.ipynb. Read, NotebookEdit and NotebookExecute act on these live" \
        in first, first
    assert "Also open in JupyterLab: open_main" not in first  # the user's own notebook is said apart

    # the user closes one notebook and opens another: the page tells the kernel, unasked
    page.evaluate(_CLOSE, "open_data.ipynb")
    page.evaluate(_OPEN, "open_plots.ipynb")
    page.wait_for_function(_CURRENT, arg="open_plots.ipynb")
    _back_to(page, "open_main.ipynb")
    _kernel_sees(page, ["open_main.ipynb", "open_plots.ipynb"])
    select_cell(page, "second")
    page.keyboard.press("Shift+Enter")
    page.get_by_text("Turn two done.").wait_for(timeout=60_000)
    second = _prompt_blocks(server, 1)
    assert "and now?" in second
    assert "Also open in JupyterLab: open_plots.ipynb." in second and "open_data" not in second, second
