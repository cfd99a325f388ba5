"""The full flow in a real browser: ``%agent`` against the scripted model server edits the open
notebook.  The permission card appears, Approve is clicked, the new cell shows up without any
"File Changed" dialog, Ctrl+Z removes it, an edit of a cell the user changed while the agent
waited for approval is refused, and the notebook saves cleanly."""

from __future__ import annotations

import json

import nbformat
import pytest

from jupyter_agent.testing import reply, text, tool_use

from .browser_helpers import cell_locator, cells, dialogs, open_notebook, select_cell, wait_cell_count

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def _tool_results(server) -> dict[str, dict]:
    """Every tool_result the model received, by tool_use id."""
    found = {}
    for req in server.message_requests:
        for msg in req.messages:
            if msg["role"] != "user" or isinstance(msg["content"], str):
                continue
            for block in msg["content"]:
                if block.get("type") == "tool_result":
                    found[block["tool_use_id"]] = block
    return found


def _text(block: dict) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [])


def test_agent_edits_the_open_notebook_with_approval(lab, page, server):
    name = "agent_edit.ipynb"
    path = lab.root / name
    nb_path = str(path)
    server.push(
        reply(tool_use("Read", {"file_path": nb_path}, id="toolu_read")),
        reply(text("Adding a cell."), tool_use("NotebookEdit", {
            "notebook_path": nb_path, "cell_id": "target", "new_source": "print('agent' + ' cell')",
            "cell_type": "code", "edit_mode": "insert"}, id="toolu_insert")),
        reply(tool_use("NotebookEdit", {
            "notebook_path": nb_path, "cell_id": "user", "new_source": "y = 100"}, id="toolu_stale")),
        reply(text("Finished editing.")),
    )
    setup = (
        "%load_ext jupyter_agent\n"
        f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
        "%config AgentMagics.api_key = 'test-key'"
    )
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(setup, id="setup"),
        nbformat.v4.new_code_cell("%agent add a cell after target", id="agent"),
        nbformat.v4.new_code_cell("x = 41", id="target"),
        nbformat.v4.new_code_cell("y = 1", id="user"),
    ]
    nbformat.write(nb, nb_path)
    saved = path.read_bytes()

    open_notebook(page, lab.url, name)
    select_cell(page, "setup")
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")  # runs the %agent cell

    # First ask: the insert.  Approve it; the cell appears in the open notebook.
    approve = page.get_by_role("button", name="Approve")
    approve.first.wait_for()
    assert "NotebookEdit" in page.locator(".jupyter-agent-card").last.inner_text()
    approve.first.click()
    wait_cell_count(page, 5)
    ids = [cid for cid, _ in cells(page)]
    assert ids[:3] == ["setup", "agent", "target"] and ids[4] == "user"
    assert dict(cells(page))[ids[3]] == "print('agent' + ' cell')"
    assert dialogs(page) == [] and path.read_bytes() == saved

    # Second ask: an edit of the "user" cell.  The user changes that cell before approving.
    # Address the second card by its content: the first card's button may still be on its way out.
    second = page.locator(".jupyter-agent-card", has_text="y = 100").get_by_role("button", name="Approve")
    second.wait_for()
    # the card shows what the replace changes, the cell read live from the open notebook
    shown = page.locator(".jupyter-agent-card", has_text="y = 100").last.inner_text()
    assert "-y = 1\n" in shown and "+y = 100" in shown, shown
    editor = cell_locator(page, "user").locator(".cm-content")
    editor.click()
    page.keyboard.press("End")
    page.keyboard.type(" + 1")
    page.keyboard.press("Escape")
    second.click()
    page.get_by_text("Finished editing.").wait_for(timeout=60_000)
    results = _tool_results(server)
    assert not results["toolu_insert"].get("is_error"), _text(results["toolu_insert"])
    assert results["toolu_stale"].get("is_error") and "modified since read" in _text(results["toolu_stale"])
    assert dict(cells(page))["user"] == "y = 1 + 1"

    # Ctrl+Z (command mode) removes the agent's cell: one undo step.
    select_cell(page, "target")
    page.keyboard.press("Control+z")
    wait_cell_count(page, 4)
    assert [cid for cid, _ in cells(page)] == ["setup", "agent", "target", "user"]

    # Saves cleanly: no "File Changed" dialog, a valid notebook with the user's edit.
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    assert dialogs(page) == []
    on_disk = nbformat.read(nb_path, as_version=4)
    nbformat.validate(on_disk)
    assert [c.id for c in on_disk.cells] == ["setup", "agent", "target", "user"]
    assert on_disk.cells[3].source == "y = 1 + 1"
