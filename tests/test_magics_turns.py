"""%agent turns in an in-process IPython shell on the test's event loop, against the scripted model."""

from __future__ import annotations

import asyncio
import json

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def ip(server, tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_AGENT_HOME", str(tmp_path / "agent-home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_agent")
    magics = shell._jupyter_agent_magics
    magics.base_url, magics.api_key = server.url, "test-key"
    magics.model = magics._default_model()  # other tests may have %config-ured a fake model
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_agent")


async def _run(ip, prompt: str, cell_id: str):
    magics = ip._jupyter_agent_magics
    magics.current_cell_id = cell_id
    ip.run_line_magic("agent", prompt)
    turn = magics.router.by_cell[cell_id]
    await asyncio.wait_for(asyncio.shield(turn.task), 30)
    return turn


async def _new_session(ip, server, exchanges: list[tuple[str, str]], cells: str) -> str:
    """``%agent --new`` and these (prompt, reply) turns, in cells ``cell-<cells><n>``; its id."""
    ip.run_line_magic("agent", "--new")
    server.push(*(reply(text(answer)) for _, answer in exchanges))
    for n, (prompt, _) in enumerate(exchanges, 1):
        await _run(ip, prompt, f"cell-{cells}{n}")
    return ip._jupyter_agent_magics.session.id


async def _until_asked(turn) -> None:
    """Until the turn's transcript shows an approval card."""
    for _ in range(500):
        if any(card.approval is not None for card in turn.transcript.cards.values()):
            return
        await asyncio.sleep(0.01)


async def _new_session_asking(ip, cell_id: str):
    """``%agent --new``, then a turn in ``cell_id`` that the scripted model makes ask for approval."""
    magics = ip._jupyter_agent_magics
    ip.run_line_magic("agent", "--new")
    magics.current_cell_id = cell_id
    ip.run_line_magic("agent", "write a file")
    turn = magics.router.by_cell[cell_id]
    await _until_asked(turn)
    return turn


async def test_a_turn_streams_into_its_transcript_and_cost_adds_up(ip, server):
    server.push(reply(text("Hello from the **scripted** model.")))
    ip.run_line_magic("agent", "--new")
    ip.user_ns["n_rows"] = 1234
    turn = await _run(ip, "How many rows? {n_rows}", "cell-1")
    assert turn.transcript.stop_reason == "end_turn"
    assert "Hello from the <strong>scripted</strong> model." in turn.transcript.static_html()
    sent = server.message_requests[-1].messages[-1]["content"]
    sent_text = sent if isinstance(sent, str) else " ".join(b.get("text", "") for b in sent)
    assert "How many rows? 1234" in sent_text
    assert "%agent cell with id cell-1" in sent_text
    cost = ip.run_line_magic("agent", "--cost")
    assert "output 0 ·" not in cost and "cost $0.0000" not in cost
    assert "context 1% of 1M · end_turn" in turn.transcript.footer.value  # the context's fill, measured


async def test_stop_magic_ends_a_waiting_turn(ip, server, tmp_path):
    server.push(reply(tool_use("Bash", {"command": "echo x > stopped.txt"})), reply(text("unused")))
    magics = ip._jupyter_agent_magics
    magics.current_cell_id = "cell-stop"
    ip.run_line_magic("agent", "--new")
    ip.run_line_magic("agent", "write a file")
    turn = magics.router.by_cell["cell-stop"]
    await _until_asked(turn)
    assert ip.run_line_magic("agent", "--stop") == "Stopping the running turn."
    await asyncio.wait_for(asyncio.shield(turn.task), 30)
    assert turn.transcript.stop_reason == "interrupted"
    assert not (tmp_path / "stopped.txt").exists()
    assert ip.run_line_magic("agent", "--stop") == "No turn is running."


async def test_compact_and_resume(ip, server):
    ip.run_line_magic("agent", "--new")
    for i in range(3):
        server.push(reply(text(f"Answer {i}.")))
        await _run(ip, f"question {i}", f"cell-q{i}")
    magics = ip._jupyter_agent_magics
    session_id = magics.session.id
    server.push(reply(text("Summary: three questions were answered.")))
    status = ip.run_line_magic("agent", "--compact")
    for _ in range(500):
        if "ompact" in status.value and "…" not in status.value:
            break
        await asyncio.sleep(0.01)
    assert status.value.startswith("Compacted:"), status.value
    resumed = ip.run_line_magic("agent", f"--resume={session_id}")
    assert resumed.startswith(f"Resumed session {session_id}"), resumed
    assert "3 prompts so far" in resumed and "last asked: “question 2”" in resumed
    assert "last reply: “Answer 2.”" in resumed
    with pytest.raises(UsageError, match="--resume"):
        ip.run_line_magic("agent", "--resume=no-such-session-123")


async def test_sessions_lists_them_and_resume_alone_keeps_the_running_newest(ip, server):
    """A → --new → B: --sessions lists both (newest first, B marked as this kernel's); --resume
    alone while B is the newest keeps B (re-running the cell switches nothing); --resume=A goes
    back to A with its history."""
    magics = ip._jupyter_agent_magics
    assert ip.run_line_magic("agent", "--sessions").startswith("No saved sessions in ")
    first = await _new_session(ip, server, [("describe the data", "About the data."), ("plot it", "Plotted.")], "a")
    second = await _new_session(ip, server, [("something else entirely", "Hi.")], "b")
    listing = ip.run_line_magic("agent", "--sessions")
    lines = listing.splitlines()
    assert lines[0].startswith("Saved sessions, newest first")
    assert lines[1].startswith(f"  {second}") and "1 prompt " in lines[1] and "this kernel's session" in lines[1]
    assert lines[2] == "      first: “something else entirely”"
    assert lines[3].startswith(f"  {first}") and "2 prompts" in lines[3] and "this kernel" not in lines[3]
    assert lines[4:6] == ["      first: “describe the data”", "      last:  “plot it”"]
    kept = ip.run_line_magic("agent", "--resume")
    assert kept.startswith(f"Session {second} is already this kernel's session") and magics.session.id == second
    back = ip.run_line_magic("agent", f"--resume={first}")
    assert back.startswith(f"Resumed session {first}") and "last asked: “plot it”" in back
    assert magics.session.id == first and len(magics.session.messages) == 4
    server.push(reply(text("Continuing.")))
    await _run(ip, "and the outliers?", "cell-a3")
    assert "plot it" in str(server.message_requests[-1].messages)
    widget = ip.run_line_magic("agent", "--rewind")  # that turn is forgotten: not listed
    for _ in range(300):
        if "Rewinding" not in widget.value:
            break
        await asyncio.sleep(0.01)
    assert "back to before that turn" in widget.value
    first_line = [line for line in ip.run_line_magic("agent", "--sessions").splitlines() if first in line][0]
    assert "2 prompts" in first_line
    assert "last asked: “plot it”" in reports_session_text(magics.session)
    with pytest.raises(UsageError, match="takes no prompt"):
        ip.run_line_magic("agent", "--sessions hello")


async def test_the_sessions_listing_is_a_picker_whose_resume_buttons_switch_sessions(ip, server):
    """--sessions was text only: switching meant copying an id into %agent --resume=ID.  Shown in
    a notebook it is now a row per session with a Resume button; a click resumes that session
    (its status under the rows), the rows re-mark the current one, and a click while a turn runs
    is refused with the reason instead of interrupting the turn."""
    magics = ip._jupyter_agent_magics
    empty = ip.display_formatter.format(ip.run_line_magic("agent", "--sessions"))[0]
    assert list(empty) == ["text/plain"] and empty["text/plain"].startswith("No saved sessions")
    first = await _new_session(ip, server, [("describe the data", "About the data.")], "p")
    second = await _new_session(ip, server, [("something <else> & more", "Hi.")], "q")
    listing = ip.run_line_magic("agent", "--sessions")
    assert listing.startswith("Saved sessions, newest first") and listing.widget is None  # no comm until shown
    bundle = ip.display_formatter.format(listing)[0]
    assert bundle["text/plain"] == str(listing)
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == listing.widget.model_id
    picker = listing.widget
    assert list(picker.rows) == [second, first]
    label, button = picker.rows[second]
    assert button.disabled and button.description == "Current" and "this kernel's session" in label.value
    assert "something &lt;else&gt; &amp; more" in label.value  # the prompt escaped once
    label, button = picker.rows[first]
    assert not button.disabled and button.description == "Resume" and "this kernel" not in label.value
    assert "“describe the data”" in label.value and f"<code>{first}</code>" in label.value
    button.click()
    assert magics.session.id == first and len(magics.session.messages) == 2
    assert picker.status.value.startswith("<pre") and f"Resumed session {first}" in picker.status.value
    assert "last reply: “About the data.”" in picker.status.value
    assert picker.rows[first][1].disabled and not picker.rows[second][1].disabled
    assert "this kernel's session" in picker.rows[first][0].value

    server.push(reply(tool_use("Bash", {"command": "echo x > waits.txt"})), reply(text("unused")))
    magics.current_cell_id = "cell-p3"
    ip.run_line_magic("agent", "write a file")  # waits for approval: the turn is running
    turn = magics.router.by_cell["cell-p3"]
    await _until_asked(turn)
    picker.rows[second][1].click()
    assert magics.session.id == first and not turn.task.done()
    assert "A turn is running" in picker.status.value and "%agent --stop" in picker.status.value
    ip.run_line_magic("agent", "--stop")
    await asyncio.wait_for(asyncio.shield(turn.task), 30)
    picker.rows[second][1].click()
    assert magics.session.id == second and f"Resumed session {second}" in picker.status.value
    picker.rows[second][1].disabled = False  # a stale picker: its session is already running
    picker.rows[second][1].click()
    assert "already this kernel&#x27;s session" in picker.status.value and magics.session.id == second


async def test_deleting_a_cell_stops_its_turn_running_or_queued(ip, server):
    """What the labextension reports as deleted cells (``cells_deleted``) stops the turns those
    cells started: a queued one is dropped, the running one stops; other cells' turns go on."""
    server.push(reply(tool_use("Bash", {"command": "echo x > never.txt"})))
    magics = ip._jupyter_agent_magics
    running = await _new_session_asking(ip, "cell-run")
    magics.current_cell_id = "cell-queued"
    ip.run_line_magic("agent", "and then this")
    queued = magics.router.by_cell["cell-queued"]
    magics.cells_deleted(["cell-queued", "some-other-cell"])
    assert queued.transcript.stop_reason == "interrupted" and list(magics.router.queue) == []
    assert running.running
    magics.cells_deleted(["cell-run"])
    await asyncio.wait_for(asyncio.shield(running.task), 30)
    assert running.transcript.stop_reason == "interrupted" and len(server.message_requests) == 1


async def test_a_subagents_report_and_prompt_are_on_its_card(ip, server, tmp_path):
    """The Agent card showed its input as JSON and only the first line of the report."""
    (tmp_path / "a.py").write_text("import os\n")
    ip.run_line_magic("agent", "--new")
    server.push(
        reply(tool_use("Agent", {"description": "Review", "prompt": "review a.py and b.py",
                                 "subagent_type": "general-purpose"}, id="ag1")),
        reply(tool_use("Glob", {"pattern": "*.py"}, id="sub-glob")),  # the subagent's steps
        reply(tool_use("Read", {"file_path": str(tmp_path / "a.py")}, id="sub-read")),
        reply(text("Found **2** problems:\n\n- **a.py** misses an import\n- b.py divides by zero")),
        reply(text("The helper found two problems.")),
    )
    turn = await _run(ip, "review the code with a helper", "cell-ag")
    card = turn.transcript.cards["ag1"]
    assert card.summary == "general-purpose: Review" and card.result_summary == "Found 2 problems:"
    assert "<strong>a.py</strong> misses an import" in card.result.value and "b.py divides by zero" in card.result.value
    assert "Found <strong>2</strong> problems:" in card.result.value and "Found 2 problems" not in card.result.value
    assert ">Prompt</span></div><pre" in card.detail.value and "review a.py and b.py</pre>" in card.detail.value
    assert "&quot;prompt&quot;" not in card.detail.value
    saved = turn.transcript.static_html()  # the saved copy: the subagent's steps, then its report
    assert "b.py divides by zero" in saved and "Glob *.py" in saved
    assert saved.index("Glob *.py") < saved.index("b.py divides by zero")
    assert "general-purpose: Read a.py" in saved and str(tmp_path) not in saved  # relative, as the cards


def reports_session_text(session):
    from jupyter_agent.magics.reports import session_text

    return session_text(session, resumed=True)


async def test_wait_holds_a_cell_until_the_turns_end_and_never_on_an_unanswerable_ask(ip, server, tmp_path):
    """Run All ran the cells after %agent while the agent still worked; ``await
    jupyter_agent.wait()`` holds the run — and stops with a clear error when the agent waits on
    an approval (a click cannot reach a kernel whose cell is awaiting)."""
    import jupyter_agent
    from jupyter_agent.magics.waiting import AgentWaitingForYou

    assert await jupyter_agent.wait() == []  # nothing running
    magics = ip._jupyter_agent_magics
    ip.run_line_magic("agent", "--new")
    server.push(reply(text("One.")), reply(text("Two.")))
    magics.current_cell_id = "cell-w1"
    ip.run_line_magic("agent", "first")
    magics.current_cell_id = "cell-w2"
    ip.run_line_magic("agent", "second")  # queued behind the first
    assert await asyncio.wait_for(jupyter_agent.wait(), 30) == ["end_turn", "end_turn"]
    assert len(server.message_requests) == 2

    server.push(reply(tool_use("Write", {"file_path": str(tmp_path / "w.txt"), "content": "x"})), reply(text("Ok.")))
    magics.current_cell_id = "cell-w3"
    ip.run_line_magic("agent", "write w.txt")
    with pytest.raises(AgentWaitingForYou, match="answer it, then run this cell again"):
        await asyncio.wait_for(jupyter_agent.wait(), 30)
    turn = magics.router.by_cell["cell-w3"]
    card = next(c for c in turn.transcript.cards.values() if c.approval is not None)
    card.approval.approve.click()
    assert await asyncio.wait_for(jupyter_agent.wait(), 30) == ["end_turn"]
    assert (tmp_path / "w.txt").read_text() == "x"

    server.push(reply(tool_use("Write", {"file_path": str(tmp_path / "v.txt"), "content": "y"})), reply(text("No.")))
    ip.run_line_magic("agent", "--approval-timeout 0.3 write v.txt")  # the timeout answers: keep waiting
    assert await asyncio.wait_for(jupyter_agent.wait(), 30) == ["end_turn"]
    assert not (tmp_path / "v.txt").exists()
    server.push(reply(tool_use("Write", {"file_path": str(tmp_path / "u.txt"), "content": "z"})), reply(text("No.")))
    ip.run_line_magic("agent", "--approval-timeout 30 write u.txt")
    with pytest.raises(TimeoutError, match="did not end within 0.2 s"):
        await jupyter_agent.wait(timeout=0.2)
    ip.run_line_magic("agent", "--stop")
    assert await asyncio.wait_for(jupyter_agent.wait(), 30) == ["interrupted"]


async def test_code_pasted_into_a_prompt_is_sent_as_written(ip, server):
    """%%agent with a pasted function: its braces were read as {fields} and the cell failed
    with a UsageError; now the code reaches the model as written, and the transcript says why."""
    ip.run_line_magic("agent", "--new")
    ip.user_ns["n_rows"] = 7
    server.push(reply(text("It builds a dict.")))
    magics = ip._jupyter_agent_magics
    magics.current_cell_id = "cell-paste"
    ip.run_cell_magic("agent", "", "{n_rows} rows; why is this slow?\ndef f(d):\n    return {k: v for k, v in d.items()}\n")
    turn = magics.router.by_cell["cell-paste"]
    await asyncio.wait_for(asyncio.shield(turn.task), 30)
    sent = json.dumps(server.message_requests[-1].messages[-1]["content"])
    assert "7 rows; why is this slow?" in sent and "return {k: v for k, v in d.items()}" in sent
    assert "Sent as written: {k: v for k, v in d.items()} is not a value here" in turn.transcript.static_html()


async def test_resume_alone_prefers_this_notebooks_session(ip, server, tmp_path):
    """Two notebooks in one folder: --resume in a.ipynb took b.ipynb's conversation because it
    was the newest in the project; it takes a.ipynb's own newest."""
    magics = ip._jupyter_agent_magics
    ip.user_ns["__session__"] = str(tmp_path / "a.ipynb")
    ip.run_line_magic("agent", "--new")
    server.push(reply(text("About A.")), reply(text("About B.")))
    await _run(ip, "question in a", "cell-a")
    in_a = magics.session.id
    ip.user_ns["__session__"] = str(tmp_path / "b.ipynb")
    ip.run_line_magic("agent", "--new")
    await _run(ip, "question in b", "cell-b")
    assert magics.session.id != in_a
    ip.user_ns["__session__"] = str(tmp_path / "a.ipynb")  # back in a.ipynb, a new kernel's first cell
    ip.run_line_magic("agent", "--new")
    resumed = ip.run_line_magic("agent", "--resume")
    assert resumed.startswith(f"Resumed session {in_a}") and "question in a" in resumed
    assert ip.run_line_magic("agent", "--resume").startswith(f"Session {in_a} is already this kernel's session")
    ip.user_ns["__session__"] = str(tmp_path / "c.ipynb")  # a notebook with none of its own: the newest
    assert "question in b" in ip.run_line_magic("agent", "--resume")


async def test_clearing_a_running_turns_outputs_puts_its_transcript_back(ip, server, monkeypatch):
    """Clear All Outputs took a running turn's transcript — and the approval card it waited on —
    out of the notebook.  Now what the labextension reports as cleared (``outputs_cleared``)
    puts the transcript back (``show_output``, by its display id), and the turn's final copy
    replaces it there when the turn ends.  Cells without a running turn are left cleared."""
    import jupyter_agent.notebook as notebook
    from jupyter_agent.notebook.bridge import KernelBridge

    from .notebook.test_bridge_comms import Comm, hello

    bridge = KernelBridge(asyncio.get_running_loop(), request_timeout=5)
    page = Comm()
    await bridge.open(lambda **kw: page, hello_timeout=0.01)
    bridge._dispatch(hello("view", "/srv/nb.ipynb"), page)
    monkeypatch.setattr(notebook, "_bridge", bridge)
    shown: list[dict] = []
    answered = 0

    def answer() -> None:  # the page answers what it got (the waiting notice too: none shown)
        nonlocal answered
        for request in page.sent[answered:]:
            shown.extend([request] if request["op"] == "show_output" else [])
            result = {"index": 0} if request["op"] == "show_output" else {"id": None}
            bridge._dispatch({"type": "response", "id": request["id"], "ok": True, "result": result}, page)
        answered = len(page.sent)

    async def sent(ops: int) -> None:
        for _ in range(200):
            if sum(r["op"] == "show_output" for r in page.sent) >= ops:
                break
            await asyncio.sleep(0.01)
        answer()

    server.push(reply(tool_use("Bash", {"command": "echo x > cleared.txt"})), reply(text("Wrote it after all.")))
    magics = ip._jupyter_agent_magics
    turn = await _new_session_asking(ip, "cell-run")
    magics.outputs_cleared(bridge.clients["view"], ["cell-run", "cell-without-a-turn"])
    await sent(1)
    assert [(r["op"], r["args"]["cell_id"]) for r in shown] == [("show_output", "cell-run")]
    again = shown[0]["args"]
    assert again["display_id"] == turn.display.display_id
    assert again["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] == turn.transcript.model_id
    assert "echo x &gt; cleared.txt" in again["data"]["text/html"]

    card = next(c for c in turn.transcript.cards.values() if c.approval is not None)
    card.approval.approve.click()  # answered in the transcript put back
    await asyncio.wait_for(asyncio.shield(turn.task), 30)
    await sent(2)
    final = shown[-1]["args"]
    assert len(shown) == 2 and final["display_id"] == again["display_id"]
    assert "Wrote it after all." in final["data"]["text/html"] and "[end_turn]" in final["data"]["text/plain"]

    magics.outputs_cleared(bridge.clients["view"], ["cell-run"])  # the turn has ended: left cleared
    await asyncio.sleep(0.05)
    answer()
    assert len(shown) == 2
