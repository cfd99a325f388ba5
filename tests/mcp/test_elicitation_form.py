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
    assert card.state == "asking" and "waiting for approval" in card.title.value
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
    form.submit.click()
    outcome = await asyncio.wait_for(run, 30)
    assert json.loads(outcome.text) == {"action": "accept", "content": None}


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
