"""``%agent --sessions`` in JupyterLab: the listing is a picker, and its Resume button, clicked in
the browser, switches the kernel's session (the click travels over the widget comm)."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.testing import reply, text

from .browser_helpers import open_notebook

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_resume_button_of_the_sessions_listing_switches_the_session(lab, page, server):
    server.push(reply(text("First answer.")), reply(text("Second answer.")), reply(text("Back in the first.")))
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'\nimport jupyter_agent")
    cells = [setup, "%agent --new\n%agent first question", "await jupyter_agent.wait()",
             "%agent --new\n%agent second question", "await jupyter_agent.wait()", "%agent --sessions"]
    nb = new_notebook(cells=[new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, lab.root / "sessions.ipynb")
    open_notebook(page, lab.url, "sessions.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    rows = page.locator(".jupyter-agent-session-row")
    rows.nth(1).wait_for(timeout=60_000)
    assert rows.count() == 2
    assert "second question" in rows.nth(0).inner_text() and "this kernel's session" in rows.nth(0).inner_text()
    assert rows.nth(0).get_by_role("button", name="Current").is_disabled()
    assert "first question" in rows.nth(1).inner_text()
    rows.nth(1).get_by_role("button", name="Resume").click()
    picker = page.locator(".jupyter-agent-sessions")
    picker.get_by_text("Resumed session").wait_for(timeout=30_000)
    assert "last reply: “First answer.”" in picker.inner_text()
    rows.nth(1).get_by_role("button", name="Current").wait_for()
    assert "this kernel's session" in rows.nth(1).inner_text()
    page.screenshot(path=str(lab.root.parent / "sessions-picker.png"))

    # the next %agent cell continues the resumed conversation
    page.evaluate("""() => {
        const nb = window.jupyterapp.shell.currentWidget.content;
        nb.activeCellIndex = nb.widgets.length - 1;
        window.jupyterapp.commands.execute('notebook:insert-cell-below');
        nb.activeCell.model.sharedModel.setSource('%agent and now?');
        window.jupyterapp.commands.execute('notebook:run-cell');
    }""")
    page.get_by_text("Back in the first.").wait_for(timeout=60_000)
    sent = json.dumps(server.message_requests[-1].messages)
    assert "first question" in sent and "second question" not in sent
