"""Session and turn control in JupyterLab: the ``%agent --sessions`` picker's Resume button,
clicked in the browser, switches the kernel's session (the click travels over the widget comm);
deleting the cell of a running turn stops it (the labextension tells the kernel)."""

from __future__ import annotations

import json
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from jupyter_agent.testing import reply, text, tool_use

from .browser_helpers import kernel_exec, open_notebook, select_cell

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def run_new_cell(page, source: str, after: int | None = None) -> None:
    """Insert a cell below cell ``after`` (default: the last) and run it, as a user would."""
    page.evaluate("""([source, after]) => {
        const nb = window.jupyterapp.shell.currentWidget.content;
        nb.activeCellIndex = after === null ? nb.widgets.length - 1 : after;
        window.jupyterapp.commands.execute('notebook:insert-cell-below');
        nb.activeCell.model.sharedModel.setSource(source);
        window.jupyterapp.commands.execute('notebook:run-cell');
    }""", [source, after])


KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def write_notebook(lab, name: str, sources: list[str], ids: dict[int, str] | None = None) -> None:
    """A notebook of code cells ``sources`` (cell ``i`` with id ``ids[i]``) in the lab's root."""
    nb = new_notebook(cells=[new_code_cell(source) for source in sources])
    for index, cell_id in (ids or {}).items():
        nb.cells[index].id = cell_id
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, lab.root / name)


def open_and_run_all(page, lab, name: str) -> None:
    open_notebook(page, lab.url, name)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")


def test_resume_button_of_the_sessions_listing_switches_the_session(lab, page, server):
    server.push(reply(text("First answer.")), reply(text("Second answer.")), reply(text("Back in the first.")))
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'\nimport jupyter_agent")
    cells = [setup, "%agent --new\n%agent first question", "await jupyter_agent.wait()",
             "%agent --new\n%agent second question", "await jupyter_agent.wait()", "%agent --sessions"]
    write_notebook(lab, "sessions.ipynb", cells)
    open_and_run_all(page, lab, "sessions.ipynb")
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
    run_new_cell(page, "%agent and now?")
    page.get_by_text("Back in the first.").wait_for(timeout=60_000)
    sent = json.dumps(server.message_requests[-1].messages)
    assert "first question" in sent and "second question" not in sent


def _turn_state(page) -> str:
    return kernel_exec(page, "m = get_ipython()._jupyter_agent_magics\n"
                             "print(m.router.active.cell_id if m.router.active else None, len(m.router.queue))").strip()


def test_deleting_the_cell_of_a_running_turn_stops_it_and_a_move_does_not(lab, page, server):
    """A deleted %agent cell took its approval card out of sight, and the turn waited on it for
    ever, holding every later %agent prompt in the queue.  Now deleting the cell stops its turn;
    moving the cell (removed and re-inserted with its id) does not, nor does the agent's own
    NotebookEdit."""
    server.push(reply(tool_use("Bash", {"command": "echo hi > deleted.txt", "description": "Write a file"})))
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'")
    write_notebook(lab, "deleting.ipynb", [setup, "%agent write deleted.txt", "x = 1"], {1: "agent-cell"})
    open_and_run_all(page, lab, "deleting.ipynb")
    page.get_by_role("button", name="Approve").wait_for(timeout=60_000)
    assert _turn_state(page) == "agent-cell 0"

    select_cell(page, "agent-cell")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:move-cell-down')")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[2].id"
                           " === 'agent-cell'")
    page.wait_for_timeout(500)  # what a deletion would have sent has arrived by now
    assert _turn_state(page) == "agent-cell 0"  # a move is no deletion

    select_cell(page, "agent-cell")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:delete-cell')")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.length"
                           " === 2")
    deadline = time.monotonic() + 30
    while _turn_state(page) != "None 0" and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert _turn_state(page) == "None 0"
    assert not (lab.root / "deleted.txt").exists() and len(server.message_requests) == 1

    server.push(reply(text("Nothing holds me up.")))  # the next prompt is not stuck behind it
    run_new_cell(page, "%agent anything else?")
    page.get_by_text("Nothing holds me up.").wait_for(timeout=60_000)

    # the agent's own NotebookEdit deleting its own cell is no withdrawal: the turn goes on
    own = page.evaluate("""() => {
        window.jupyterapp.commands.execute('notebook:insert-cell-below');
        const cell = window.jupyterapp.shell.currentWidget.content.activeCell.model;
        cell.sharedModel.setSource('%agent --mode acceptEdits remove this cell');
        return cell.id;
    }""")
    server.push(
        reply(tool_use("Read", {"file_path": str(lab.root / "deleting.ipynb")})),
        reply(tool_use("NotebookEdit", {"notebook_path": str(lab.root / "deleting.ipynb"), "cell_id": own,
                                        "new_source": "", "edit_mode": "delete"})),
        reply(text("Removed my own cell.")),
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    deadline = time.monotonic() + 60
    while len(server.message_requests) < 5 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    page.wait_for_function(f"() => !window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
                           f".some(c => c.id === {json.dumps(own)})")
    reason = ""
    while reason != "end_turn" and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        reason = kernel_exec(page, "print(get_ipython()._jupyter_agent_magics.router.by_cell"
                                   f"[{own!r}].transcript.stop_reason)").strip()
    assert reason == "end_turn" and len(server.message_requests) == 5
    assert "Removed my own cell." not in str(server.message_requests[-1].messages)  # sanity: the last ask
    last = json.dumps(server.message_requests[-1].messages[-1])
    assert '"is_error": true' not in last, last


def test_an_approval_out_of_sight_is_announced_and_show_brings_it_into_view(lab, page, server):
    """The agent asked in a cell scrolled out of sight and waited, unnoticed.  Now the page shows
    a notification ("The agent is waiting for you to approve Bash: …") whose Show button scrolls
    the card into view; answering takes the notification down.  A card in view gets none."""
    server.push(
        reply(tool_use("Bash", {"command": "echo hi > noticed.txt", "description": "Write a file"}), delay_s=0.3),
        reply(text("Wrote it.")),
    )
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'")
    filler = [f"# filler {i}\n" + "y = 1\n" * 12 for i in range(30)]
    write_notebook(lab, "notice.ipynb", [setup, "%agent write noticed.txt", *filler])
    open_and_run_all(page, lab, "notice.ipynb")
    page.evaluate("""async () => {
        const nb = window.jupyterapp.shell.currentWidget.content;
        nb.activeCellIndex = nb.widgets.length - 1;
        await nb.scrollToItem(nb.widgets.length - 1);
    }""")
    notice = page.locator(".Toastify__toast", has_text="The agent is waiting for you to approve")
    notice.wait_for(timeout=60_000)
    assert "Bash: echo hi > noticed.txt" in notice.inner_text()
    approve = page.get_by_role("button", name="Approve")
    in_view = "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }"
    assert not approve.evaluate(in_view)  # out of sight: that is why it was announced
    notice.get_by_role("button", name="Show").click()
    page.wait_for_function(f"() => ({in_view})(document.querySelector('.jupyter-agent-approval button'))")
    approve.click()
    page.get_by_text("Wrote it.").wait_for(timeout=60_000)
    assert (lab.root / "noticed.txt").read_text() == "hi\n"
    notice.wait_for(state="detached", timeout=10_000)  # answered: the notification is gone

    server.push(reply(tool_use("Bash", {"command": "echo two > seen.txt", "description": "Write"})), reply(text("Ok.")))
    run_new_cell(page, "%agent write seen.txt", after=1)
    second = page.locator(".jupyter-agent-card", has_text="echo two").get_by_role("button", name="Approve")
    second.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)  # the page has answered the notice request by now
    assert page.locator(".Toastify__toast", has_text="The agent is waiting").count() == 0  # in view: none
    second.click()
    page.get_by_text("Ok.").wait_for(timeout=60_000)


def _outputs(page, cell_id: str) -> list:
    return page.evaluate("""(id) => {
        const cell = window.jupyterapp.shell.currentWidget.content.widgets.find(w => w.model.id === id);
        return cell.model.outputs.toJSON();
    }""", cell_id)


def test_clearing_outputs_puts_a_running_turns_transcript_back(lab, page, server):
    """Clear All Outputs took a running turn's transcript, and the approval card it waited on,
    out of the notebook: the turn waited for a click nobody could make.  Now the transcript comes
    back in its cell, the card can be answered there, and the turn's final copy replaces it.
    Other cells stay cleared; running a cell (which clears its outputs too) is no clearing."""
    server.push(reply(tool_use("Bash", {"command": "echo hi > cleared.txt", "description": "Write a file"})),
                reply(text("Wrote it after the clear.")))
    setup = ("%load_ext jupyter_agent\n" f"%config AgentMagics.base_url = {json.dumps(server.url)}\n"
             "%config AgentMagics.api_key = 'test-key'")
    write_notebook(lab, "clearing.ipynb", [setup, "%agent write cleared.txt", "print('other')"],
                   {1: "agent-cell", 2: "other-cell"})
    open_and_run_all(page, lab, "clearing.ipynb")
    page.get_by_role("button", name="Approve").wait_for(timeout=60_000)
    page.get_by_text("other", exact=True).wait_for()
    kernel_exec(page, "import jupyter_agent.notebook.bridge as B\nheard = []\n"
                      "B.OUTPUTS_CLEARED_LISTENERS.append(lambda client, ids: heard.append(ids))")

    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    approve = page.get_by_role("button", name="Approve")
    approve.wait_for(timeout=30_000)  # back in its cell
    assert page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
        .find(w => w.model.id === 'agent-cell').node.querySelector('.jupyter-agent-approval') !== null""")
    assert _outputs(page, "other-cell") == []  # no turn there: left cleared
    assert kernel_exec(page, "print(heard)").strip() == "[['agent-cell', 'other-cell']]"

    select_cell(page, "other-cell")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    page.get_by_text("other", exact=True).wait_for()
    page.wait_for_timeout(500)
    assert kernel_exec(page, "print(heard)").strip() == "[['agent-cell', 'other-cell']]"  # a run: not heard

    approve.click()
    page.get_by_text("Wrote it after the clear.").wait_for(timeout=60_000)
    assert (lab.root / "cleared.txt").read_text() == "hi\n"
    page.wait_for_function("""() => {
        const cell = window.jupyterapp.shell.currentWidget.content.widgets.find(w => w.model.id === 'agent-cell');
        const html = cell.model.outputs.toJSON().map(o => (o.data || {})['text/html'] || '').join('');
        return html.includes('Wrote it after the clear.');
    }""", timeout=30_000)  # the final static copy, for the saved notebook
    outputs = _outputs(page, "agent-cell")
    assert len(outputs) == 1 and "application/vnd.jupyter.widget-view+json" in outputs[0]["data"], outputs
    assert outputs[0]["metadata"]["jupyter_agent"]["display_id"]


def _cell_sources(page) -> list[str]:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
                         ".map(c => c.getSource())")


def _context_menu(page, cell_id: str):
    """Right-click the cell's input, as a user would; the menu's item labels."""
    index = page.evaluate("(id) => window.jupyterapp.shell.currentWidget.content.widgets"
                          ".findIndex(w => w.model.id === id)", cell_id)
    page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").nth(index).click(button="right")
    menu = page.locator(".lm-Menu").last
    menu.wait_for()
    return menu


def test_fix_this_cell_with_the_agent_from_the_cells_context_menu(lab, page, server):
    """Getting the agent onto a failed cell took typing %load_ext and a %agent prompt.  Now the
    failed cell's context menu has "Fix This Cell with the Agent": it loads jupyter_agent in the
    kernel, adds `%agent fix the error in the cell above` below and runs it (the traceback goes
    along).  "Ask the Agent Below" adds a %agent cell ready for typing.  A kernel that cannot load
    jupyter_agent gets a clear notification and no cell."""
    write_notebook(lab, "fixing.ipynb", ["import math", "ratio = 1 / 0", "y = 2"], {0: "ok-cell", 1: "failed-cell"})
    open_and_run_all(page, lab, "fixing.ipynb")
    page.get_by_text("ZeroDivisionError").first.wait_for(timeout=60_000)
    kernel_exec(page, f"cfg = get_ipython().config.AgentMagics\ncfg.base_url = {json.dumps(server.url)}\n"
                      "cfg.api_key = 'test-key'\nimport sys\nsys.modules['jupyter_agent'] = None")
    assert kernel_exec(page, "print('agent' in get_ipython().magics_manager.magics['line'])").strip() == "False"

    menu = _context_menu(page, "ok-cell")  # no error there: no fix offered
    assert "Ask the Agent Below" in menu.inner_text() and "Fix This Cell" not in menu.inner_text()
    page.keyboard.press("Escape")

    menu = _context_menu(page, "failed-cell")  # jupyter_agent cannot be imported in this kernel
    menu.get_by_text("Fix This Cell with the Agent").click()
    page.locator(".Toastify__toast", has_text="jupyter-agent is not installed").wait_for(timeout=30_000)
    assert _cell_sources(page) == ["import math", "ratio = 1 / 0", "y = 2"]  # nothing added

    kernel_exec(page, "del sys.modules['jupyter_agent']")
    select_cell(page, "failed-cell")  # run again, as a user would before asking for the fix
    count = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCell.model.executionCount")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget.content.widgets[1].model.executionCount"
                           f" > {count}")
    server.push(reply(text("It divides by zero: use a non-zero denominator.")))
    menu = _context_menu(page, "failed-cell")
    menu.get_by_text("Fix This Cell with the Agent").click()
    page.get_by_text("It divides by zero: use a non-zero denominator.").wait_for(timeout=60_000)
    assert _cell_sources(page) == ["import math", "ratio = 1 / 0", "%agent fix the error in the cell above", "y = 2"]
    sent = json.dumps(server.message_requests[0].messages)
    assert "fix the error in the cell above" in sent and "ZeroDivisionError" in sent and "ratio = 1 / 0" in sent

    menu = _context_menu(page, "ok-cell")
    menu.get_by_text("Ask the Agent Below").click()
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.mode === 'edit'")
    page.keyboard.type("what does math give me?")
    assert _cell_sources(page)[1] == "%agent what does math give me?"


def test_a_traceback_has_a_fix_with_the_agent_button(lab, page, server):
    """Like a notebook service's "explain error" button: under a traceback (not under text a
    cell wrote to stderr) a "Fix with the agent" button does what the context menu's Fix This
    Cell with the Agent does."""
    write_notebook(lab, "button.ipynb", ["import sys\nprint('just a warning', file=sys.stderr)",
                                         "rows = []  # costs $' and $&\nmean = sum(rows) / len(rows)"],
                   {0: "warns", 1: "fails"})
    open_and_run_all(page, lab, "button.ipynb")
    page.get_by_text("ZeroDivisionError").first.wait_for(timeout=60_000)
    page.get_by_text("just a warning", exact=True).wait_for()
    buttons = page.locator(".jp-agent-fix-button:visible")
    # the button comes when JupyterLab has finished rendering the traceback, which can be after
    # its text shows
    buttons.first.wait_for()
    assert buttons.count() == 1  # the traceback's; the stderr text has none
    assert page.evaluate("""() => document.querySelector('.jp-agent-fix-button:not([hidden])')
        .closest('.jp-Cell') === window.jupyterapp.shell.currentWidget.content.widgets[1].node""")
    # code runs after the failure, so it is not the last execution: the page hands it over
    kernel_exec(page, f"cfg = get_ipython().config.AgentMagics\ncfg.base_url = {json.dumps(server.url)}\n"
                      "cfg.api_key = 'test-key'")

    server.push(reply(text("The list is empty: guard against it.")))
    page.evaluate("""() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel
        .requestExecute({code: 'import time; time.sleep(3)', silent: true})""")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
                           " === 'busy'")
    buttons.first.click()
    page.locator(".Toastify__toast", has_text="the agent starts when it is done").wait_for()  # not silence
    page.get_by_text("The list is empty: guard against it.").wait_for(timeout=60_000)
    assert _cell_sources(page)[2] == "%agent fix the error in the cell above"
    sent = json.dumps(server.message_requests[0].messages)
    assert "The cell the user asks to fix (cell id fails) failed" in sent, sent
    assert "ZeroDivisionError" in sent and "sum(rows) / len(rows)" in sent and "\\u001b[" not in sent
    assert "costs $' and $&" in sent  # handed over as written (no replacement patterns)

    # the setting fixButton (here through the palette's toggle) hides the buttons, and stays off
    toggle = "() => window.jupyterapp.commands.execute('jupyter-agent:toggle-fix-button')"
    page.evaluate(toggle)
    buttons.first.wait_for(state="hidden")
    assert page.evaluate("() => window.jupyterapp.commands.isToggled('jupyter-agent:toggle-fix-button')") is False
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.reload()
    page.get_by_text("ZeroDivisionError").first.wait_for(timeout=60_000)
    page.locator(".jp-agent-fix-button").wait_for(state="attached")
    page.wait_for_function("() => document.body.classList.contains('jp-agent-no-fix-button')")
    assert page.locator(".jp-agent-fix-button").count() == 1 and buttons.count() == 0
    page.evaluate(toggle)  # on again, for the tests after this one
    buttons.first.wait_for()
