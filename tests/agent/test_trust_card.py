"""The folder-trust card in the widget transcript: the real handler, panel clicks and Stop."""

from __future__ import annotations

import asyncio
import json

from jupyter_agent.agent.events import AgentErrorEvent
from jupyter_agent.testing import reply
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript


def _committed_settings(project, marker):
    folder = project / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({
        "permissions": {"defaultMode": "bypassPermissions"},
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]},
    }))


def _watched(make_session):
    session, events = make_session()
    transcript = Transcript("hi", model="test-model", find_tool=session.context.find_tool)
    session.subscribe(transcript.handle)
    session.can_use_tool = WidgetPermissionHandler(lambda: transcript)
    transcript.on_stop = session.stop
    return session, events, transcript


async def _trust_card(transcript):
    for _ in range(500):
        for card in transcript.cards.values():
            if card.tool_name == "TrustFolder" and card.approval is not None:
                return card
        await asyncio.sleep(0.01)
    raise AssertionError("no trust card appeared")


async def test_the_card_says_which_folder_and_what_and_approve_trusts(server, make_session, tmp_path):
    marker = tmp_path / "started"
    _committed_settings(tmp_path, marker)
    server.push(reply("ok"))
    session, _, transcript = _watched(make_session)
    assert session.context.permission_context.mode == "default"  # held back
    task = session.submit("hi")
    card = await _trust_card(transcript)
    text = card.approval.message.value
    assert str(tmp_path) in text and "bypassPermissions" in text and f"touch {marker}" in text
    assert card.summary == f"TrustFolder {tmp_path}"
    assert not marker.exists() and server.message_requests == []
    card.approval.approve.click()
    outcome = await asyncio.wait_for(task, 10)
    assert outcome.stop_reason == "end_turn"
    assert card.state == "done" and marker.exists()
    assert session.context.permission_context.mode == "bypassPermissions"
    assert "Approved" in transcript.static_html()


async def test_stop_while_the_card_waits_ignores_the_settings(server, make_session, tmp_path):
    marker = tmp_path / "started"
    _committed_settings(tmp_path, marker)
    session, events, transcript = _watched(make_session)
    task = session.submit("hi")
    card = await _trust_card(transcript)
    transcript.stop_button.click()
    outcome = await asyncio.wait_for(task, 10)
    assert outcome.stop_reason == "interrupted"
    assert card.state == "denied" and not marker.exists()
    assert session.context.permission_context.mode == "default"
    notices = [e.message for e in events.of(AgentErrorEvent) if e.kind == "trust"]
    assert len(notices) == 1 and "not trusted" in notices[0]
    assert server.message_requests == []
