"""The live notebook in a real browser: JupyterLab + the built labextension + chromium.

A cell runs an agent turn (Read, then NotebookEdit through the tool pipeline) as a background
task, as ``%agent`` does.  The edit must appear in the open notebook without any "File Changed"
dialog, be one undo step, never clobber a cell the user changed after the agent's read, and
leave a notebook that saves cleanly.
"""

from __future__ import annotations

import nbformat
import pytest

from .browser_helpers import (
    cell_locator,
    cells,
    dialogs,
    is_dirty,
    kernel_exec,
    open_notebook,
    select_cell,
    tool_prelude,
    wait_result,
)

pytestmark = pytest.mark.e2e

DRIVER = tool_prelude('live.ipynb') + '''
async def _turn(key, calls):
    done = [{"backend": await active_backend(NB)}]
    for name, input in calls:
        done.append(await tool(name, **input))
    results[key] = done

def turn(key, *calls):
    results.pop(key, None)
    asyncio.ensure_future(_turn(key, calls))

turn("insert", ("Read", {"file_path": NB}),
     ("NotebookEdit", {"notebook_path": NB, "cell_id": "target", "new_source": "print('the agent was " + "here')",
                       "cell_type": "code", "edit_mode": "insert"}))
print("agent started")'''


@pytest.fixture
def notebook(lab):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Live notebook", id="title"),
        nbformat.v4.new_code_cell(DRIVER, id="driver"),
        nbformat.v4.new_code_cell("x = 41", id="target"),
        nbformat.v4.new_code_cell("y = 1", id="user"),
    ]
    path = lab.root / "live.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_agent_edits_the_open_notebook(lab, page, notebook):
    open_notebook(page, lab.url, notebook.name)
    saved = notebook.read_bytes()

    # 1. A cell runs an agent turn; its NotebookEdit lands in the open notebook.
    select_cell(page, "driver")
    page.keyboard.press("Shift+Enter")
    page.locator(".jp-Cell", has_text="the agent was here").wait_for()
    backend, read, edit = wait_result(page, "insert")
    assert backend == {"backend": "live"}
    assert not read["is_error"] and not edit["is_error"], (read, edit)
    ids = [cid for cid, _ in cells(page)]
    new_id = edit["text"].split()[2]
    assert ids == ["title", "driver", "target", new_id, "user"]
    assert dialogs(page) == []  # no "File Changed" dialog: the file was not written
    assert notebook.read_bytes() == saved

    # 2. The edit is one undo step: Ctrl+Z in command mode removes the new cell.
    select_cell(page, "user")
    page.keyboard.press("Control+z")
    page.locator(".jp-Cell", has_text="the agent was here").wait_for(state="detached")
    assert [cid for cid, _ in cells(page)] == ["title", "driver", "target", "user"]

    # 3. The agent reads; then the user changes a cell; the agent's edit of that cell is refused.
    kernel_exec(page, 'turn("read", ("Read", {"file_path": NB}))')
    assert not wait_result(page, "read")[1]["is_error"]
    editor = cell_locator(page, "user").locator(".cm-content")
    editor.click()
    page.keyboard.press("End")
    page.keyboard.type(" + 1")
    page.keyboard.press("Escape")
    assert dict(cells(page))["user"] == "y = 1 + 1"
    kernel_exec(page, 'turn("stale", ("NotebookEdit", {"notebook_path": NB, "cell_id": "user", "new_source": "y = 100"}),'
                      ' ("NotebookEdit", {"notebook_path": NB, "cell_id": "target", "new_source": "x = 42"}))')
    _, stale, other = wait_result(page, "stale")
    assert stale["is_error"] and "modified since read" in stale["text"], stale
    assert not other["is_error"], other
    live = dict(cells(page))
    assert live["user"] == "y = 1 + 1" and live["target"] == "x = 42"

    # 4. The notebook saves cleanly: no conflict dialog, a valid file with the live content.
    select_cell(page, "title")
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    assert dialogs(page) == [] and not is_dirty(page)
    on_disk = nbformat.read(str(notebook), as_version=4)
    nbformat.validate(on_disk)
    assert [c.id for c in on_disk.cells] == ["title", "driver", "target", "user"]
    assert [c.source for c in on_disk.cells][2:] == ["x = 42", "y = 1 + 1"]
