"""%agent in a real kernel: clicks arrive by comm_msg (also on a subshell), the tool runs, the
model hears a denial's feedback, Stop cancels Bash, other cells run while an ask waits, and
re-running a cell stops its old turn.  The model is the scripted server, reached by the SDK."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.ui.approval import FEEDBACK_PLACEHOLDER
from tests.ui.kernel_harness import KernelHarness, start_agent_kernel

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    return work


@pytest.fixture
def kernel(server: ScriptedServer, project: Path, tmp_path: Path):
    harness = start_agent_kernel(server.url, project, tmp_path / "home")
    harness.run("%config AgentMagics.stream_interval = 0.02")
    yield harness
    harness.close()


def turn_end(h: KernelHarness, msg_id: str, timeout: float = 60) -> dict:
    """The transcript's final update_display_data, sent to the cell that started the turn."""
    def match(m: dict) -> bool:
        return (
            m["msg_type"] == "update_display_data"
            and m["parent_header"].get("msg_id") == msg_id
            and m["content"]["data"]["text/plain"].endswith("]")
        )

    return h.wait_for(match, timeout)["content"]["data"]


def tool_results(server: ScriptedServer) -> list[dict]:
    blocks = []
    for request in server.message_requests:
        for message in request.messages:
            content = message.get("content")
            if message["role"] == "user" and isinstance(content, list):
                blocks.extend(b for b in content if b.get("type") == "tool_result")
    return blocks


def result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [])


def any_widget_value_contains(h: KernelHarness, needle: str) -> bool:
    for m in list(h.messages):
        if m["msg_type"] in ("comm_open", "comm_msg"):
            value = m["content"].get("data", {}).get("state", {}).get("value")
            if isinstance(value, str) and needle in value:
                return True
    return False


def _approve_flow(h: KernelHarness, server: ScriptedServer, project: Path, subshell: str | None) -> None:
    server.push(
        reply(text("I'll create the file."), tool_use("Bash", {"command": "echo hi > made.txt", "description": "Create made.txt"})),
        reply(text("All done: made.txt now says hi.")),
    )
    start = len(h.messages)
    msg_id = h.execute("%agent create made.txt containing hi", cell_id="cell-approve")
    approve = h.wait_widget("ButtonModel", after=start, description="Approve")
    assert not (project / "made.txt").exists()  # nothing runs before the click
    h.click(approve, subshell_id=subshell)
    data = turn_end(h, msg_id)
    assert (project / "made.txt").read_text().strip() == "hi"
    results = tool_results(server)
    assert len(results) == 1 and not results[0].get("is_error")
    assert any_widget_value_contains(h, "All done: made.txt now says hi.")
    html = data["text/html"]
    assert "All done: made.txt now says hi." in html and "Approved" in html and "echo hi &gt; made.txt" in html
    assert data["text/plain"].endswith("[end_turn]")


def test_approve_click_runs_the_tool_and_text_arrives(kernel, server, project):
    _approve_flow(kernel, server, project, subshell=None)


def test_approve_click_on_a_kernel_subshell(kernel, server, project):
    if not kernel.supports_subshells:
        pytest.skip("this ipykernel has no subshells (ipykernel < 7)")
    _approve_flow(kernel, server, project, subshell=kernel.create_subshell())


def test_deny_with_feedback_reaches_the_model(kernel, server, project):
    h = kernel
    server.push(
        reply(tool_use("Bash", {"command": "rm -rf build && echo gone > gone.txt"})),
        reply(text("Understood, I will not delete anything.")),
    )
    start = len(h.messages)
    msg_id = h.execute("%agent clean the build", cell_id="cell-deny")
    deny = h.wait_widget("ButtonModel", after=start, description="Deny")
    feedback = h.wait_widget("TextareaModel", after=start, placeholder=FEEDBACK_PLACEHOLDER)
    h.set_value(feedback, "Do not delete build/, it holds the release.")
    h.click(deny)
    data = turn_end(h, msg_id)
    assert not (project / "gone.txt").exists()
    [result] = tool_results(server)
    assert result.get("is_error") is True
    assert "the user said:\nDo not delete build/, it holds the release." in result_text(result)
    assert "Denied: Do not delete build/, it holds the release." in data["text/html"]


def test_stop_cancels_a_running_bash(kernel, server, project):
    h = kernel
    server.push(
        reply(tool_use("Bash", {"command": "sleep 60 && echo late > late.txt"})),
        reply(text("never requested")),
    )
    start = len(h.messages)
    # acceptEdits lets the redirection into the project write: the command runs, nothing asks
    msg_id = h.execute('%agent --mode acceptEdits --allow "Bash(sleep:*)" wait a minute', cell_id="cell-stop")
    stop = h.wait_widget("ButtonModel", after=start, description="Stop")
    # the Bash card's title, not the footer's "running" shown before the model is even asked
    def bash_running(m):
        value = str(m["content"]["data"].get("state", {}).get("value", "")) if m["msg_type"] == "comm_msg" else ""
        return "▶" in value and "sleep 60" in value

    h.wait_for(bash_running, start=start)
    h.click(stop)
    data = turn_end(h, msg_id, timeout=30)  # far less than the 60 s the command would take
    assert data["text/plain"].endswith("[interrupted]")
    assert not (project / "late.txt").exists()
    assert len(server.message_requests) == 1  # the model was not asked again after the stop


def _bash_running(h: KernelHarness, start: int, command: str) -> None:
    """Wait until the Bash card's title shows ``command`` running."""
    def running(m):
        value = str(m["content"]["data"].get("state", {}).get("value", "")) if m["msg_type"] == "comm_msg" else ""
        return "▶" in value and command in value

    h.wait_for(running, start=start)


def test_the_kernels_interrupt_button_stops_the_running_turn(kernel, server, project):
    """The interrupt button (SIGINT, as JupyterLab sends it) used to be ignored while the agent
    worked: ipykernel ignores SIGINT between cells.  Now it stops the turn like Stop does; a cell
    that runs still gets its KeyboardInterrupt; ``await jupyter_agent.wait()`` interrupted stops
    the turns it waits for; an idle interrupt with no turn does nothing."""
    h = kernel
    server.push(reply(tool_use("Bash", {"command": "sleep 61 && echo late > late.txt"})))  # the model is not asked again
    start = len(h.messages)
    msg_id = h.execute('%agent --mode acceptEdits --allow "Bash(sleep:*)" wait a minute', cell_id="cell-int")
    _bash_running(h, start, "sleep 61")
    h.km.interrupt_kernel()
    data = turn_end(h, msg_id, timeout=30)
    assert data["text/plain"].endswith("[interrupted]")
    assert not (project / "late.txt").exists() and len(server.message_requests) == 1

    h.km.interrupt_kernel()  # nothing runs: nothing happens, the kernel goes on
    h.run("x = 40 + 2")
    busy = h.execute("import time\ntime.sleep(30)", stop_on_error=False)
    h.wait_for(lambda m: m["msg_type"] == "status" and m["parent_header"].get("msg_id") == busy
               and m["content"]["execution_state"] == "busy")
    time.sleep(0.5)  # inside time.sleep
    h.km.interrupt_kernel()
    assert h.shell_reply(busy, timeout=20)["content"]["ename"] == "KeyboardInterrupt"

    server.push(reply(tool_use("Bash", {"command": "sleep 62 && echo late > late2.txt"})))
    start = len(h.messages)
    msg_id = h.execute('%agent wait another minute', cell_id="cell-int-2")
    _bash_running(h, start, "sleep 62")
    waiting = h.execute("import jupyter_agent\nawait jupyter_agent.wait()", stop_on_error=False)
    h.wait_for(lambda m: m["msg_type"] == "status" and m["parent_header"].get("msg_id") == waiting
               and m["content"]["execution_state"] == "busy")
    time.sleep(0.5)
    h.km.interrupt_kernel()
    assert h.shell_reply(waiting, timeout=20)["content"]["status"] == "error"
    assert turn_end(h, msg_id, timeout=30)["text/plain"].endswith("[interrupted]")
    assert not (project / "late2.txt").exists() and len(server.message_requests) == 2
    h.run("%unload_ext jupyter_agent\nimport signal\nassert signal.getsignal(signal.SIGINT) is signal.default_int_handler")
    h.run("import ipykernel.kernelbase, signal\nk = get_ipython().kernel\n"
          "assert k.saved_sigint_handler == signal.SIG_IGN, k.saved_sigint_handler")


def test_another_cell_runs_while_an_approval_waits(kernel, server, project):
    h = kernel
    server.push(
        reply(tool_use("Bash", {"command": "echo ok > waited.txt"})),
        reply(text("Finished after the wait.")),
    )
    start = len(h.messages)
    msg_id = h.execute("%agent write waited.txt", cell_id="cell-wait")
    approve = h.wait_widget("ButtonModel", after=start, description="Approve")
    other = h.run("21 * 2", cell_id="cell-other")
    assert other["content"]["status"] == "ok"
    [result] = [m for m in h.outputs_of(other["parent_header"]["msg_id"]) if m["msg_type"] == "execute_result"]
    assert result["content"]["data"]["text/plain"] == "42"
    h.click(approve)
    data = turn_end(h, msg_id)
    assert (project / "waited.txt").exists()
    assert "Finished after the wait." in data["text/html"]


def test_rerunning_the_cell_stops_its_old_turn(kernel, server, project):
    h = kernel
    server.push(
        reply(tool_use("Bash", {"command": "echo first > first.txt"})),
        reply(text("Second prompt answered.")),
    )
    start = len(h.messages)
    first = h.execute("%agent first request", cell_id="cell-same")
    h.wait_widget("ButtonModel", after=start, description="Approve")
    second = h.execute("%agent second request", cell_id="cell-same")
    old = turn_end(h, first)
    assert old["text/plain"].endswith("[interrupted]")
    new = turn_end(h, second)
    assert "Second prompt answered." in new["text/html"]
    assert not (project / "first.txt").exists()
    last = server.message_requests[-1].messages
    assert "second request" in json.dumps(last)


def test_an_mcp_servers_form_is_filled_in_the_cell(kernel, server, project):
    """An MCP tool asks for input mid-call: the form appears on its card in the cell, the user
    types and submits (comm messages, as from JupyterLab), and the server gets the values."""
    import sys

    from tests.mcp.conftest import ELICIT_SERVER

    h = kernel
    config = json.dumps({"asker": {"command": sys.executable, "args": [str(ELICIT_SERVER)]}})
    server.push(reply(tool_use("mcp__asker__book", {})), reply(text("Booked.")))
    start = len(h.messages)
    msg_id = h.execute(f"%agent --mcp '{config}' --allow mcp__asker book a table for two", cell_id="cell-mcp")
    name = h.wait_widget("TextModel", after=start, placeholder="")
    guests = h.wait_widget("TextModel", after=start, value="2", placeholder="a whole number")
    submit = h.wait_widget("ButtonModel", after=start, description="Submit")
    h.set_value(name, "Ada")
    h.set_value(guests, "4")
    h.click(submit)
    data = turn_end(h, msg_id)
    [result] = tool_results(server)
    assert json.loads(result_text(result)) == {"action": "accept", "content": {
        "name": "Ada", "guests": 4, "vegetarian": False}}
    assert "Input sent" in data["text/html"]
    assert "asker - book (MCP)" in data["text/html"]  # the card knew the tool the servers brought


def test_a_question_mark_reaches_the_agent_not_ipythons_help(kernel, server, project):
    """IPython reads `… x?` as help on x: `%agent what is x?` printed "Object `x` not found."
    and no request was made.  In a real kernel it now reaches the model, word for word."""
    server.push(reply(text("x is the answer.")), reply(text("Still the answer.")))
    kernel.run("x = 42")
    msg_id = kernel.execute("%agent what is x?", cell_id="cell-q")
    data = turn_end(kernel, msg_id)
    assert "x is the answer." in data["text/html"]
    msg_id = kernel.execute("y = 1\n%agent how many lines in data.csv?", cell_id="cell-q2")
    turn_end(kernel, msg_id)
    prompts = [m["content"] for r in server.message_requests for m in r.messages if m["role"] == "user"]
    said = json.dumps(prompts)
    assert "what is x?" in said and "how many lines in data.csv?" in said
    shown = json.dumps(kernel.run("%agent?")["content"].get("payload", []))  # help on the magic itself
    assert "--permissions" in shown and "not found" not in shown


def test_a_key_set_after_the_first_try_is_used_without_a_new_session(server, tmp_path):
    """A newcomer runs %agent without a key, reads the error, sets the key and runs it again:
    it answered with the same error until %agent --new (the SDK client had read the environment
    once).  A session that never got a reply now starts again when a key has appeared."""
    server.push(reply(text("hello back")), reply(text("and again")))
    h = KernelHarness(tmp_path, {"ANTHROPIC_API_KEY": None, "ANTHROPIC_AUTH_TOKEN": None, "HOME": str(tmp_path)})
    try:
        h.run("%load_ext jupyter_agent\n%config AgentMagics.base_url = " + repr(server.url))
        first = turn_end(h, h.execute("%agent hello", cell_id="k1"))
        assert "No API key found" in first["text/html"] and first["text/plain"].endswith("[error]")
        h.run("%env ANTHROPIC_API_KEY=test-key")
        second = turn_end(h, h.execute("%agent hello", cell_id="k2"))
        assert "hello back" in second["text/html"] and second["text/plain"].endswith("[end_turn]")
        third = turn_end(h, h.execute("%agent again", cell_id="k3"))  # and the conversation goes on
        assert "and again" in third["text/html"]
        assert [len(r.messages) for r in server.message_requests] == [1, 3]
    finally:
        h.close()


def test_wait_holds_a_run_all_and_an_approval_is_answered_or_reported(kernel, server, project):
    """Run All: the cell after %agent waits with ``await jupyter_agent.wait()``.  Whether a
    click reaches the kernel while a cell awaits depends on ipykernel (7.4 reads widget messages
    then; 6.29 only after the cell): checked here with a cell that merely awaits.  Where it does,
    ``wait`` goes on waiting while the card is answered; where it does not, it stops with
    AgentWaitingForYou (it would wait forever), and after the click the next run waits."""
    h = kernel
    h.run("from jupyter_agent.magics.waiting import clicks_reach_awaiting_cells\n"
          "print('clicks while awaiting:', clicks_reach_awaiting_cells())")
    printed = lambda: "".join(m["content"].get("text", "") for m in h.messages if m["msg_type"] == "stream")  # noqa: E731
    concurrent = "clicks while awaiting: True" in printed()

    def agent_asks(command: str, cell_id: str) -> str:
        """Start a turn whose Bash command asks; the Approve button's comm id."""
        server.push(reply(tool_use("Bash", {"command": command, "description": "Create a file"})), reply(text("Made.")))
        start = len(h.messages)
        h.execute(f"%agent run {command}", cell_id=cell_id)
        return h.wait_widget("ButtonModel", after=start, description="Approve")

    approve = agent_asks("echo hi > made.txt", "cell-agent")
    h.execute("import asyncio, os\nawait asyncio.sleep(2)\nprint('during the await:', os.path.exists('made.txt'))",
              cell_id="cell-sleep")
    h.click(approve)
    h.wait_for(lambda m: m["msg_type"] == "stream" and "during the await:" in m["content"]["text"])
    assert f"during the await: {concurrent}" in printed()  # the detection tells the truth
    h.run("import jupyter_agent\nawait jupyter_agent.wait()")
    assert (project / "made.txt").read_text() == "hi\n"

    approve2 = agent_asks("echo two > two.txt", "cell-agent-2")
    waiting = h.execute("import jupyter_agent\nprint('reasons', await jupyter_agent.wait())", cell_id="cell-wait",
                        stop_on_error=False)
    if concurrent:  # the card is answered while the cell waits
        h.click(approve2)
        assert h.shell_reply(waiting)["content"]["status"] == "ok"
    else:
        assert h.shell_reply(waiting)["content"]["ename"] == "AgentWaitingForYou"
        h.click(approve2)
        h.run("import jupyter_agent\nprint('reasons', await jupyter_agent.wait())", cell_id="cell-wait")
    h.wait_for(lambda m: m["msg_type"] == "stream" and "reasons" in m["content"]["text"])
    assert (project / "two.txt").read_text() == "two\n" and "reasons ['end_turn']" in printed()
