"""%agent in Notebook 7 in a real browser: the transcript widget renders, the real Approve button
is clicked, the Bash command runs and the answer appears; the labextension's live bridge edits
the open notebook there too (no "File Changed" dialog, nothing written to disk behind its back).

Notebook 7 runs with the same flags as the JupyterLab fixture (free port, no token, temporary
Jupyter dirs, the freshly built labextension first on the extension path).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use

from .browser_helpers import KERNEL_IDLE, cells, dialogs, wait_cell_count
from .conftest import Lab, require_chromium, start_jupyter

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


@contextlib.contextmanager
def start_notebook7(base: Path) -> Iterator[Lab]:
    """A Notebook 7 server on a free port, serving ``base/root``; stopped on exit."""
    pytest.importorskip("notebook", minversion="7")
    with start_jupyter(base, "notebook", "--JupyterNotebookApp") as server:
        yield server


@pytest.fixture(scope="module")
def nb7(tmp_path_factory) -> Iterator[Lab]:
    require_chromium()
    with start_notebook7(tmp_path_factory.mktemp("nb7")) as server:
        yield server


def _setup_source(server: ScriptedServer) -> str:
    return (
        "%load_ext jupyter_agent\n"
        f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
        "%config AgentMagics.api_key = 'test-key'"
    )


def _open(page, nb7: Lab, name: str) -> None:
    page.goto(f"{nb7.url}/notebooks/{name}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    assert page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"  # really Notebook 7


def _run_all(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")


def test_approve_bash_in_notebook7(nb7, page, server):
    server.push(
        reply(text("I'll create the file."), tool_use("Bash", {"command": "echo hi > nb7_made.txt"})),
        reply(text("All done: **nb7_made.txt** says hi."), chunk_chars=8, delay_s=0.002),
    )
    nb = new_notebook(
        cells=[new_code_cell(_setup_source(server)), new_code_cell("%agent create nb7_made.txt")]
    )
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, nb7.root / "agent_nb7.ipynb")

    _open(page, nb7, "agent_nb7.ipynb")
    _run_all(page)
    card = page.locator(".jupyter-agent-card")
    approve = page.get_by_role("button", name="Approve")
    approve.wait_for()
    assert "echo hi &gt; nb7_made.txt" in card.first.inner_html()
    assert page.get_by_role("button", name="Deny").is_visible()
    assert not (nb7.root / "nb7_made.txt").exists()
    approve.click()

    page.get_by_text("All done:").wait_for(timeout=60_000)
    assert (nb7.root / "nb7_made.txt").read_text().strip() == "hi"
    page.locator(".jupyter-agent-transcript button:has-text('Done')").wait_for()
    assert page.locator(".jupyter-agent-transcript strong", has_text="nb7_made.txt").count() == 1


def test_live_bridge_edits_the_open_notebook_in_notebook7(nb7, page, server):
    name = "edit_nb7.ipynb"
    path = nb7.root / name
    server.push(
        reply(tool_use("Read", {"file_path": str(path)}, id="toolu_read")),
        reply(
            text("Adding a cell."),
            tool_use(
                "NotebookEdit",
                {
                    "notebook_path": str(path),
                    "cell_id": "target",
                    "new_source": "print('from' + ' nb7')",
                    "cell_type": "code",
                    "edit_mode": "insert",
                },
                id="toolu_insert",
            ),
        ),
        reply(text("Finished editing.")),
    )
    nb = new_notebook()
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.cells = [
        new_code_cell(_setup_source(server), id="setup"),
        new_code_cell("%agent add a cell after target", id="agent"),
        new_code_cell("x = 41", id="target"),
    ]
    nbformat.write(nb, path)
    saved = path.read_bytes()

    _open(page, nb7, name)
    _run_all(page)
    approve = page.get_by_role("button", name="Approve")
    approve.first.wait_for()
    assert "NotebookEdit" in page.locator(".jupyter-agent-card").last.inner_text()
    approve.first.click()
    page.get_by_text("Finished editing.").wait_for(timeout=60_000)
    wait_cell_count(page, 4)
    ids = [cid for cid, _ in cells(page)]
    assert ids[:3] == ["setup", "agent", "target"]
    assert dict(cells(page))[ids[3]] == "print('from' + ' nb7')"
    assert dialogs(page) == [] and path.read_bytes() == saved  # edited live, not behind the page's back


def test_fix_with_the_agent_button_in_notebook7(nb7, page, server):
    """The traceback's "Fix with the agent" button works in Notebook 7 as in JupyterLab."""
    server.push(reply(text("Fixed in Notebook 7 too.")))
    nb = new_notebook(cells=[new_code_cell(_setup_source(server), id="setup"), new_code_cell("1 / 0", id="fails")])
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, nb7.root / "fix_nb7.ipynb")
    _open(page, nb7, "fix_nb7.ipynb")
    _run_all(page)
    button = page.locator(".jp-agent-fix-button:visible")
    button.wait_for(timeout=60_000)
    button.click()
    page.get_by_text("Fixed in Notebook 7 too.").wait_for(timeout=60_000)
    assert [source for _, source in cells(page)][2] == "%agent fix the error in the cell above"
    assert "ZeroDivisionError" in json.dumps(server.message_requests[0].messages)
