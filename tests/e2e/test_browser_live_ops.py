"""The other live ops in a real browser: a type change keeps the cell id and drops outputs,
cells run through the notebook's own machinery return their outputs, a Read sees unsaved edits."""

from __future__ import annotations

import json
import time

import nbformat
import pytest

from .browser_helpers import (
    KERNEL_IDLE,
    cells,
    dialogs,
    kernel_exec,
    open_notebook,
    tool_prelude,
    wait_result,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

_HELPERS = '''
def start(key, coro):
    async def runner():
        try:
            results[key] = await coro
        except Exception as exc:
            results[key] = {"exception": repr(exc)}
    results.pop(key, None)
    asyncio.ensure_future(runner())

async def execute(ids):
    doc = await get_document(NB)
    return (await doc.execute(ids)).model_dump()
'''


def setup(notebook) -> str:
    """Kernel code: the tool prelude for ``notebook`` and the helpers above."""
    return tool_prelude(notebook.name) + _HELPERS


@pytest.fixture
def notebook(lab, request):
    """A notebook of its own per test: its own kernel session, none inherited from the test before."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    code = nbformat.v4.new_code_cell("print('old output')", id="code", execution_count=7)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="old output\n")]
    nb.cells = [code, nbformat.v4.new_code_cell("print(6 * 7)", id="calc")]
    path = lab.root / f"ops_{request.node.name.removeprefix('test_')[:40]}.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_type_change_execute_and_unsaved_read(lab, page, notebook):
    open_notebook(page, lab.url, notebook.name)
    kernel_exec(page, setup(notebook))

    # An unsaved edit in the browser is what Read sees.
    page.evaluate("""() => {
      const nb = window.jupyterapp.shell.currentWidget.content.model.sharedModel;
      nb.getCell(1).setSource('print(6 * 7)  # unsaved');
    }""")
    kernel_exec(page, 'start("read", tool("Read", file_path=NB))')
    read = wait_result(page, "read")
    assert not read["is_error"] and "# unsaved" in read["text"], read

    # code → markdown: same id, outputs and execution count gone, one cell still.
    kernel_exec(page, 'start("md", tool("NotebookEdit", notebook_path=NB, cell_id="code", '
                      'new_source="# Now prose", cell_type="markdown"))')
    changed = wait_result(page, "md")
    assert not changed["is_error"] and changed["line"] == "Replace markdown cell 1 of 2 (open notebook)", changed
    cell = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.getCell(0).toJSON()")
    assert cell["id"] == "code" and cell["cell_type"] == "markdown" and cell["source"] == "# Now prose"
    assert "outputs" not in cell and [cid for cid, _ in cells(page)] == ["code", "calc"]

    # execute_cells runs the cell in the notebook and returns its outputs.
    kernel_exec(page, 'start("run", execute(["calc"]))')
    ran = wait_result(page, "run")
    assert "exception" not in ran, ran
    [calc] = ran["cells"]
    assert calc["cell_id"] == "calc" and calc["execution_count"] is not None
    assert "".join(o.get("text", "") for o in calc["outputs"]) == "42\n"
    shown = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.getCell(1).toJSON()")
    assert json.dumps(shown["outputs"]).count("42") == 1
    assert dialogs(page) == []


def test_delete_and_move_answer_with_the_cells_ids(lab, page, notebook):
    """JupyterLab disposes a deleted or moved cell, and its id with it: a live delete answered
    with null ids (the model was told the deletion failed, though the cell was gone), and a move
    of two cells put the second at the top.  Ids are now read before the change."""
    open_notebook(page, lab.url, notebook.name)
    kernel_exec(page, setup(notebook) + '''
from jupyter_agent.notebook.protocol import DeleteCellsArgs, MoveCellsArgs

async def move(ids, after):
    doc = await get_document(NB)
    return await doc._request(MoveCellsArgs(cell_ids=ids, after_cell_id=after))

async def delete(ids):
    doc = await get_document(NB)
    return await doc._request(DeleteCellsArgs(cell_ids=ids))
''')
    page.evaluate("""() => {
      const nb = window.jupyterapp.shell.currentWidget.content.model.sharedModel;
      for (const id of ['a', 'b', 'c']) nb.insertCell(nb.cells.length, {cell_type: 'code', source: id, id});
    }""")
    assert [cid for cid, _ in cells(page)] == ["code", "calc", "a", "b", "c"]
    kernel_exec(page, 'start("mv", move(["cell-3", "cell-4"], "code"))')  # b and c, by position
    moved = wait_result(page, "mv")
    assert "exception" not in moved and moved["cell_ids"] == ["b", "c"] and moved["index"] == 1, moved
    assert moved["cell_count"] == 5, moved
    assert [cid for cid, _ in cells(page)] == ["code", "b", "c", "calc", "a"]
    page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.undo()")
    assert [cid for cid, _ in cells(page)] == ["code", "calc", "a", "b", "c"]  # one undo step
    kernel_exec(page, 'start("mv", move(["cell-3", "cell-4"], "code"))')
    assert wait_result(page, "mv")["cell_ids"] == ["b", "c"]

    page.evaluate("""() => {
      const nb = window.jupyterapp.shell.currentWidget.content.model.sharedModel;
      for (const id of ['x', 'y']) nb.insertCell(nb.cells.length, {cell_type: 'code', source: id, id});
    }""")
    kernel_exec(page, 'start("dd", delete(["b", "x"]))')  # two cells apart: exactly those go
    dropped = wait_result(page, "dd")
    assert "exception" not in dropped and dropped["cell_ids"] == ["b", "x"] and dropped["cell_count"] == 5, dropped
    assert [cid for cid, _ in cells(page)] == ["code", "c", "calc", "a", "y"]

    kernel_exec(page, 'start("read", tool("Read", file_path=NB))')
    assert not wait_result(page, "read")["is_error"]
    kernel_exec(page, 'start("del", tool("NotebookEdit", notebook_path=NB, cell_id="calc", new_source="", '
                      'edit_mode="delete"))')
    deleted = wait_result(page, "del")
    assert not deleted["is_error"] and deleted["line"] == "Delete cell 3 of 5 (open notebook)", deleted
    assert [cid for cid, _ in cells(page)] == ["code", "c", "a", "y"]


def test_a_reloaded_page_serves_the_agent_at_once(lab, page, notebook):
    """The kernel opens its comm once; a reloaded page never heard of it, so the agent's next
    request went to the gone page and failed after the 15 s timeout ("did not answer").  Now the
    reloaded page opens its own comm when the kernel has one, and the request is answered."""
    open_notebook(page, lab.url, notebook.name)
    kernel_exec(page, setup(notebook))
    kernel_exec(page, 'start("read", tool("Read", file_path=NB))')
    assert not wait_result(page, "read")["is_error"]
    assert kernel_exec(page, "import jupyter_agent.notebook as N\nprint(len(N._bridge.clients))").strip() == "1"

    before = kernel_exec(page, "print(list(N._bridge.clients))").strip()
    page.reload()
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    page.wait_for_function("""() => {
      const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
      const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
      return !!k && k.status === 'idle' && !!w.content.model;
    }""", timeout=60_000)
    deadline = time.monotonic() + 10  # the page rejoins within moments of connecting
    while kernel_exec(page, "print(list(N._bridge.clients))").strip() == before and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert kernel_exec(page, "print(len(N._bridge._comms))").strip() == "2"  # the kernel's and the page's
    kernel_exec(page, 'start("edit", tool("NotebookEdit", notebook_path=NB, cell_id="calc", new_source="print(7 * 6)"))')
    edited = wait_result(page, "edit", limit=12)  # well inside the 15 s a stale page would take
    assert not edited["is_error"], edited
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.getCell(1)"
                           ".getSource() === 'print(7 * 6)'")
    assert kernel_exec(page, "print(len(N._bridge.clients))").strip() == "1"  # the gone page's dropped


_OTHER_SOURCE = """(path) => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
  return panel && panel.content.model ? panel.content.model.sharedModel.getCell(0).getSource() : null;
}"""


def test_another_notebook_open_in_the_page_is_read_and_edited_live(lab, page, notebook):
    """The agent of one notebook read another notebook open in the same JupyterLab from disk
    (missing its unsaved edits) and edited it on disk, under the open tab: JupyterLab then asks
    "Overwrite / Revert" and the user's unsaved edits can be lost.  Now both go to the open tab."""
    other = lab.root / "other_open.ipynb"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", id="o1"),
                                         nbformat.v4.new_code_cell("print(6 * 7, 'in', __session__)", id="o2")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(other))
    open_notebook(page, lab.url, notebook.name)
    page.evaluate("(p) => window.jupyterapp.commands.execute('docmanager:open', {path: p})", other.name)
    page.wait_for_function(f"() => ({_OTHER_SOURCE})({other.name!r}) === 'x = 1'")
    page.evaluate("""() => {
      const panel = window.jupyterapp.shell.currentWidget;
      panel.content.model.sharedModel.getCell(0).setSource('x = 1  # unsaved in the other tab');
    }""")
    page.evaluate("(p) => window.jupyterapp.commands.execute('docmanager:open', {path: p})", notebook.name)
    page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget.context.path === {notebook.name!r}")
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    kernel_exec(page, setup(notebook) + f"OTHER = os.path.abspath({other.name!r})\n")

    kernel_exec(page, 'start("read", tool("Read", file_path=OTHER))')
    read = wait_result(page, "read")
    assert not read["is_error"] and "# unsaved in the other tab" in read["text"], read
    kernel_exec(page, 'start("edit", tool("NotebookEdit", notebook_path=OTHER, cell_id="o1", '
                      'new_source="x = 2  # by the agent"))')
    edited = wait_result(page, "edit")
    assert not edited["is_error"], edited
    assert page.evaluate(_OTHER_SOURCE, other.name) == "x = 2  # by the agent"
    assert nbformat.read(str(other), as_version=4).cells[0].source == "x = 1"  # the file is untouched
    kernel_exec(page, 'start("backend", active_backend(OTHER))')
    assert wait_result(page, "backend") == "live"

    # its cells run in its own kernel (NotebookExecute went to this notebook's view, unaddressed)
    kernel_exec(page, "from jupyter_agent.tools.notebook_execute import NotebookExecuteTool\n"
                      "ctx.options = ToolUseOptions(tools=(ReadTool(), NotebookEditTool(), NotebookExecuteTool()))")
    kernel_exec(page, 'start("run", tool("NotebookExecute", notebook_path=OTHER, cell_ids=["o2"]))')
    ran = wait_result(page, "run")
    assert not ran["is_error"] and "42 in" in ran["text"] and "other_open.ipynb" in ran["text"], ran
    assert dialogs(page) == []
    assert [cid for cid, _ in cells(page)] == ["code", "calc"]  # this notebook is as it was
