"""A sandboxed command's network question, on the Bash call's own card in the transcript: the
real Bash tool under bwrap, the kernel's proxy, and the widget permission handler."""

from __future__ import annotations

import asyncio
import json
import uuid

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript

from .conftest import sandboxed_context
from .test_sandbox_network import FETCH, names, upstream  # noqa: F401 (fixtures)


def _session(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    ctx = sandboxed_context(tmp_path)
    (tmp_path / "work" / "fetch.py").write_text(FETCH)
    transcript = Transcript("fetch it", model="test-model", find_tool=ctx.find_tool)
    handler = WidgetPermissionHandler(lambda: transcript, project_dir=ctx.cwd)
    return ctx, transcript, handler


def _start(ctx, transcript, handler, command, **more):
    req = ToolUseRequest(f"toolu_{uuid.uuid4().hex[:10]}", "Bash", {"command": command, **more})
    return req.id, asyncio.ensure_future(run_tool_use(req, ctx, handler, on_event=transcript.handle))


async def _panel(transcript, tool_use_id):
    for _ in range(1000):
        card = transcript.cards.get(tool_use_id)
        if card is not None and card.approval is not None:
            return card, card.approval
        await asyncio.sleep(0.01)
    raise AssertionError("no network question appeared on the card")


async def test_always_allow_saves_the_host_and_the_command_goes_on(tmp_path, bwrap_ok, upstream, names):  # noqa: F811
    port, seen = upstream
    names["data.example"] = ["127.0.0.1"]  # a public name, served here (the saved rule names it)
    ctx, transcript, handler = _session(tmp_path)
    tool_use_id, run = _start(ctx, transcript, handler, f"python3 fetch.py http://data.example:{port}/saved")
    card, panel = await _panel(transcript, tool_use_id)
    assert card.state == "asking" and f"data.example (port {port})" in panel.message.value
    assert panel.always.description == "Always allow WebFetch(domain:data.example)"
    panel.always.click()
    outcome = await asyncio.wait_for(run, 60)
    assert "hello from upstream /saved" in outcome.text and seen == ["/saved"], outcome.text
    assert card.state == "done"
    saved = json.loads((ctx.cwd / ".claude" / "settings.local.json").read_text())
    assert "WebFetch(domain:data.example)" in saved["permissions"]["allow"]
    again_id, again = _start(ctx, transcript, handler, f"python3 fetch.py http://data.example:{port}/again")
    assert "hello from upstream /again" in (await asyncio.wait_for(again, 60)).text
    assert transcript.cards[again_id].approval is None  # the saved rule answers now


async def test_approve_lets_the_card_run_on_and_deny_is_reported(tmp_path, bwrap_ok, upstream):  # noqa: F811
    port, seen = upstream
    ctx, transcript, handler = _session(tmp_path)
    tool_use_id, run = _start(ctx, transcript, handler, f"python3 fetch.py http://localhost:{port}/a; sleep 1")
    card, panel = await _panel(transcript, tool_use_id)
    panel.approve.click()
    for _ in range(1000):
        if seen:
            break
        await asyncio.sleep(0.01)
    assert card.state == "running"  # answered mid-command: running again, not "pending"
    assert not (await asyncio.wait_for(run, 60)).is_error and seen == ["/a"]
    ctx2, transcript2, handler2 = _session(tmp_path / "other")
    denied_id, denied = _start(ctx2, transcript2, handler2, f"python3 fetch.py http://localhost:{port}/b")
    _card, panel2 = await _panel(transcript2, denied_id)
    panel2.feedback.value = "use the cached copy"
    panel2.deny.click()
    outcome = await asyncio.wait_for(denied, 60)
    assert "403 jupyter-agent sandbox: the connection to localhost was not approved" in outcome.text
    assert "use the cached copy" in outcome.text and seen == ["/a"]


async def test_a_question_still_open_when_the_command_ends_is_withdrawn(tmp_path, bwrap_ok, upstream):  # noqa: F811
    port, seen = upstream
    ctx, transcript, handler = _session(tmp_path)
    other_id, other = _start(ctx, transcript, handler, "true", dangerouslyDisableSandbox=True)  # an ordinary ask
    _other_card, other_panel = await _panel(transcript, other_id)
    # The program asks through the proxy, then gives up (exits) once the test has seen the
    # question: with no wait the command could end before the proxy had read the request.
    quick = (
        "import os, socket, time; s = socket.create_connection(('127.0.0.1', 3128)); "
        f"s.sendall(b'CONNECT localhost:{port} HTTP/1.1\\r\\n\\r\\n'); "
        "[time.sleep(0.05) for _ in range(1200) if not os.path.exists('seen')]"
    )
    tool_use_id, run = _start(ctx, transcript, handler, f'python3 -c "{quick}"; echo gave up')
    card, panel = await _panel(transcript, tool_use_id)
    (ctx.cwd / "seen").write_text("")
    outcome = await asyncio.wait_for(run, 60)  # nobody answered: the program gave up and exited
    assert "gave up" in outcome.text and seen == []
    for _ in range(1000):
        if panel.approve.disabled:
            break
        await asyncio.sleep(0.01)
    assert panel.approve.disabled and "Stopped before an answer" in panel.status.value
    assert not other_panel.approve.disabled  # the other call's question stays open
    other_panel.deny.click()
    assert (await asyncio.wait_for(other, 10)).is_error
