"""%agent in JupyterLab 4 in a real browser: the transcript widget renders, the real Approve
button is clicked, the answer streams in, and the saved notebook keeps the static transcript."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.testing import reply, text, tool_use

from .browser_helpers import open_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_approve_in_jupyterlab_and_the_saved_notebook_keeps_the_audit(lab, page, server):
    server.push(
        reply(text("I'll create the file."), tool_use("Bash", {"command": "echo hi > browser_made.txt"})),
        reply(text("All done: **browser_made.txt** says hi."), chunk_chars=8, delay_s=0.002),
    )
    setup = (
        "%load_ext jupyter_agent\n"
        f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
        "%config AgentMagics.api_key = 'test-key'"
    )
    nb = new_notebook(cells=[new_code_cell(setup), new_code_cell("%agent create browser_made.txt")])
    nb.cells[1].id = "agent-cell"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    name = "agent_ui.ipynb"
    nbformat.write(nb, lab.root / name)

    open_notebook(page, lab.url, name)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    card = page.locator(".jupyter-agent-card")
    card.first.wait_for()
    approve = page.get_by_role("button", name="Approve")
    approve.wait_for()
    assert "echo hi &gt; browser_made.txt" in card.first.inner_html()
    assert page.get_by_role("button", name="Deny").is_visible()
    assert not (lab.root / "browser_made.txt").exists()
    approve.click()

    page.get_by_text("All done:").wait_for(timeout=60_000)
    assert (lab.root / "browser_made.txt").read_text().strip() == "hi"
    page.locator(".jupyter-agent-transcript button:has-text('Done')").wait_for()

    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000
    )
    saved = nbformat.read(lab.root / name, as_version=4)
    [agent_cell] = [c for c in saved.cells if c.id == "agent-cell"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in agent_cell.outputs)
    assert "All done: <strong>browser_made.txt</strong> says hi." in html
    assert "Approved" in html and "echo hi &gt; browser_made.txt" in html


def test_run_all_waits_for_the_agent_and_the_card_is_answered_meanwhile(lab, page, server):
    """Run All with ``await jupyter_agent.wait()`` between the agent and a cell that reads what
    it wrote: the wait cell holds the run, the approval is clicked while it waits (JupyterLab
    and ipykernel 7.4 deliver the click), and the reading cell then sees the file."""
    server.push(
        reply(tool_use("Write", {"file_path": str(lab.root / "w.txt"), "content": "written by the agent"})),
        reply(text("Wrote it.")),
    )
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'")
    cells = [setup, "%agent write w.txt", "import jupyter_agent\nawait jupyter_agent.wait()",
             "print('read:', open('w.txt').read())"]
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, lab.root / "run_all.ipynb")
    open_notebook(page, lab.url, "run_all.ipynb")
    # not awaited: Run All's promise settles only when every cell has run
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    page.get_by_role("button", name="Approve").wait_for(timeout=60000)
    assert not (lab.root / "w.txt").exists()
    page.get_by_role("button", name="Approve").click()
    page.get_by_text("read: written by the agent", exact=True).wait_for(timeout=60000)
    page.get_by_text("['end_turn']", exact=True).wait_for(timeout=10000)
