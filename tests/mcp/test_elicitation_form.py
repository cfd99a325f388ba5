"""The elicitation form on the call's card, answering a real server through the real pipeline."""

from __future__ import annotations

import asyncio
import json

import pytest

from jupyter_agent.core.context import ToolUseOptions
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import ToolPermissionContext
from jupyter_agent.mcp.elicitation import ElicitAnswer, Elicitation, form_fields
from jupyter_agent.ui.elicitation_form import ElicitationForm
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript
from tests.support.cards import widget_on_card
from tests.support.tools import make_context


async def _form(transcript: Transcript, tool_use_id: str) -> ElicitationForm:
    return await widget_on_card(transcript, tool_use_id, ElicitationForm, seconds=10)


def _setup(tmp_path, manager):
    tools = manager.tools()
    ctx = make_context(tools, tmp_path)
    ctx.options = ToolUseOptions(tools=tuple(tools), mcp_clients=tuple(manager.connections.values()))
    ctx.set_app_state(lambda s: type(s)(tool_permission_context=ToolPermissionContext(
        allow_rules={"session": ("mcp__asker",)})))
    transcript = Transcript("book a table", find_tool=ctx.find_tool)
    return ctx, transcript, WidgetPermissionHandler(lambda: transcript)


def _inputs(form: ElicitationForm) -> dict:
    return {i.field.name: i for i in form.inputs}


async def _settled():
    for _ in range(5):  # a click is read on the loop (call_soon_threadsafe), then answered
        await asyncio.sleep(0)


async def test_the_user_fills_the_form_a_mistake_is_shown_and_the_server_gets_typed_values(tmp_path, asker):
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = asyncio.create_task(run_tool_use(ToolUseRequest("b1", "mcp__asker__book", {}), ctx, handler,
                                           on_event=transcript.handle))
    form = await _form(transcript, "b1")
    card = transcript.cards["b1"]
    assert card.state == "asking" and "waiting for your answer" in card.title.value
    fields = _inputs(form)
    assert fields["guests"].widget.value == "2" and fields["vegetarian"].widget.value is False  # defaults
    fields["name"].widget.value = "Ada"
    fields["guests"].widget.value = "many"
    fields["table"].widget.value = "out"
    fields["extras"].boxes[0].value = True
    form.submit.click()
    await _settled()
    assert "guests must be a number" in form.status.value and not form.pending.done and not run.done()
    fields["guests"].widget.value = "3"
    form.submit.click()
    outcome = await asyncio.wait_for(run, 30)
    assert json.loads(outcome.text) == {"action": "accept", "content": {
        "name": "Ada", "guests": 3, "vegetarian": False, "table": "out", "extras": ["cake"]}}
    assert card.state == "done" and "Input sent" in transcript.static_html()
    assert all(w.disabled for w in (form.submit, form.decline, fields["name"].widget))


@pytest.mark.parametrize("button, action", [("decline", "decline"), ("cancel", "cancel")])
async def test_decline_and_cancel_reach_the_server_without_values(tmp_path, asker, button, action):
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = asyncio.create_task(run_tool_use(ToolUseRequest("b2", "mcp__asker__book", {}), ctx, handler,
                                           on_event=transcript.handle))
    form = await _form(transcript, "b2")
    _inputs(form)["name"].widget.value = "typed but not sent"
    getattr(form, button).click()
    outcome = await asyncio.wait_for(run, 30)
    assert json.loads(outcome.text) == {"action": action, "content": None}


async def test_stopping_the_turn_cancels_the_form(tmp_path, asker):
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = asyncio.create_task(run_tool_use(ToolUseRequest("b3", "mcp__asker__book", {}), ctx, handler,
                                           on_event=transcript.handle))
    form = await _form(transcript, "b3")
    transcript.close_asks()
    outcome = await asyncio.wait_for(run, 30)
    assert json.loads(outcome.text) == {"action": "cancel", "content": None}
    assert form.status.value == "Cancelled"


async def test_a_link_is_shown_whole_and_accept_is_consent(tmp_path, asker):
    ctx, transcript, handler = _setup(tmp_path, asker)
    url = "https://auth.example.com/authorize?client=nb&state=<x>"
    run = asyncio.create_task(run_tool_use(ToolUseRequest("l1", "mcp__asker__login", {"url": url}), ctx, handler,
                                           on_event=transcript.handle))
    form = await _form(transcript, "l1")
    html = form.header.value
    assert 'href="https://auth.example.com/authorize?client=nb&amp;state=&lt;x&gt;"' in html
    assert 'rel="noopener noreferrer"' in html and "Opens auth.example.com in a new tab" in html
    assert form.submit.description == "Accept" and form.inputs == []
    assert "waiting for you to open the link" in transcript.cards["l1"].title.value
    form.submit.click()
    outcome = await asyncio.wait_for(run, 30)
    assert json.loads(outcome.text) == {"action": "accept", "content": None}
    assert form.status.value == "Accepted — asker will say when you are done"
    assert "Link accepted" in transcript.static_html()  # not "Input sent": nothing was typed
    assert "text-decoration:underline" in html  # looks like a link in a widget (no Markdown styles there)
    assert form.finished.layout.display == "none"  # the server's call runs on by itself: nothing to retry


async def test_what_the_server_wrote_is_escaped():
    schema = {"type": "object", "properties": {"x": {"type": "string", "title": "<b onmouseover=alert(1)>",
                                                     "description": "<script>alert(2)</script>"}}}
    evil = Elicitation("<i>srv</i>", "form", "<img src=x onerror=alert(3)>", schema=schema, fields=form_fields(schema))
    form = ElicitationForm(evil)
    html = form.header.value + "".join(i.label.value for i in form.inputs)
    assert "<img" not in html and "<script>" not in html and "<b onmouseover" not in html and "<i>srv" not in html
    assert "&lt;img src=x onerror=alert(3)&gt;" in html
    form.pending.answer(ElicitAnswer("accept", {"x": "<u>"}))
    await _settled()
    assert form.status.value == "Sent: x = &lt;u&gt;"


# -- a call the server will not run before a sign-in (URL_ELICITATION_REQUIRED) -------------------


def _run(ctx, transcript, handler, tool_use_id, tool="mcp__asker__private_files"):
    return asyncio.create_task(run_tool_use(ToolUseRequest(tool_use_id, tool, {}), ctx, handler,
                                            on_event=transcript.handle))


async def test_a_call_that_needs_a_sign_in_shows_the_link_and_runs_again_once_it_is_done(tmp_path, asker):
    """The server answers -32042 with a link: the user sees it on the call's card, accepts, signs
    in out of band; the server says so (2025-11-25) or the user clicks I've finished (the
    2026-07-28 protocol has no such notice) and the call runs again and succeeds."""
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = _run(ctx, transcript, handler, "s1")
    form = await _form(transcript, "s1")
    assert 'href="https://auth.example.com/files?s=1"' in form.header.value
    assert "Sign in to read your files" in form.header.value and form.finished.layout.display == "none"
    form.submit.click()
    for _ in range(100):
        await asyncio.sleep(0.01)
        if form.pending.done:
            break
    assert "runs again when" in form.status.value and form.finished.layout.display is None
    assert not run.done()  # waiting for the sign-in, not failed
    await asker.connections["asker"].call_tool("finish_sign_in", {})  # the browser, out of band
    if asker.protocol == "2025-11-25":  # the server's notice is enough
        outcome = await asyncio.wait_for(run, 30)
        assert "asker says you are done" in form.status.value
    else:
        await asyncio.sleep(0.2)
        assert not run.done()
        form.finished.click()
        outcome = await asyncio.wait_for(run, 30)
        assert "You finished" in form.status.value
    assert not outcome.is_error and outcome.text == "notes.txt, plan.md, budget.xlsx"
    assert transcript.cards["s1"].state == "done"
    assert transcript.cards["s1"].summary == "asker - private_files (MCP)"  # its name for people


async def test_a_sign_in_that_was_not_done_is_the_models_error_after_one_retry(tmp_path, asker):
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = _run(ctx, transcript, handler, "s2")
    form = await _form(transcript, "s2")
    form.submit.click()
    for _ in range(100):
        await asyncio.sleep(0.01)
        if form.finished.layout.display is None:
            break
    form.finished.click()  # but nothing was signed in: the server refuses again
    outcome = await asyncio.wait_for(run, 30)
    assert outcome.is_error
    assert 'MCP server "asker" needs the user to open a link first: Sign in to read your files' in outcome.text
    assert "https://auth.example.com/files?s=1" in outcome.text


@pytest.mark.parametrize("button, how", [("decline", "declined"), ("cancel", "cancelled")])
async def test_refusing_the_sign_in_link_ends_the_call_with_the_link_for_the_model(tmp_path, asker, button, how):
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = _run(ctx, transcript, handler, "s3")
    form = await _form(transcript, "s3")
    getattr(form, button).click()
    outcome = await asyncio.wait_for(run, 30)
    assert outcome.is_error and f"The user {how} opening it." in outcome.text
    assert "Sign in to read your files (https://auth.example.com/files?s=1)" in outcome.text
    assert "unavailable" not in outcome.text  # the tool works once the user signs in
    assert form.status.value == ("Declined" if button == "decline" else "Cancelled")


async def test_the_servers_notice_before_accept_answers_the_link_itself(tmp_path, asker):
    """The user opened the link and signed in without clicking Accept: the server's notice
    (2025-11-25) is taken as the answer and the call runs again."""
    if asker.protocol != "2025-11-25":
        pytest.skip("the 2026-07-28 protocol has no elicitation/complete notice")
    ctx, transcript, handler = _setup(tmp_path, asker)
    run = _run(ctx, transcript, handler, "s4")
    form = await _form(transcript, "s4")
    await asker.connections["asker"].call_tool("finish_sign_in", {})
    outcome = await asyncio.wait_for(run, 30)
    assert outcome.text == "notes.txt, plan.md, budget.xlsx" and form.pending.done
    assert form.submit.disabled and "asker says you are done" in form.status.value


async def test_without_anyone_to_ask_the_links_are_in_the_error(asker):
    from jupyter_agent.mcp.connection import McpLinksRequired

    conn = asker.connections["asker"]
    with pytest.raises(McpLinksRequired) as raised:
        await conn.call_tool("private_files", {})
    assert [(link.url, link.elicitation_id, link.retry) for link in raised.value.links] == [
        ("https://auth.example.com/files?s=1", "files-1", True)]
    assert conn.status == "connected"  # an answer, not a broken connection
