"""A subagent's approval card sits inside its Agent call's card (live widget and saved HTML)."""

from __future__ import annotations

import asyncio

from jupyter_agent.agent.events import TextDelta
from jupyter_agent.core import events as tev
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.tool import ToolProgress
from jupyter_agent.subagents.runner import SubagentEvent
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript
from tests.support.tools import GuardedTool, make_context


async def _panel(transcript, tool_use_id):
    for _ in range(300):
        card = transcript.cards.get(tool_use_id)
        if card is not None and card.approval is not None:
            return card
        await asyncio.sleep(0.01)
    raise AssertionError("no approval panel appeared")


async def test_subagent_ask_nests_under_the_agent_card(tmp_path):
    parent_ctx = make_context([GuardedTool()], tmp_path)
    transcript = Transcript("explore", model="test-model", find_tool=parent_ctx.find_tool)
    handler = WidgetPermissionHandler(lambda: transcript, project_dir=tmp_path)
    transcript.handle(tev.ToolCallStarted("toolu_agent", "Agent", {"description": "look", "prompt": "p"}))
    agent_card = transcript.cards["toolu_agent"]
    transcript.handle(tev.ToolCallProgress(ToolProgress("toolu_agent", SubagentEvent("agent-7", "general-purpose", TextDelta("hi")))))

    child_ctx = parent_ctx.with_changes(agent_id="agent-7")
    req = ToolUseRequest("toolu_child", "Guarded", {"path": "ok/x", "text": "from the subagent"})
    task = asyncio.create_task(run_tool_use(req, child_ctx, handler))
    card = await _panel(transcript, "toolu_child")

    assert card in agent_card.nested and card in agent_card.body.children
    assert card not in transcript.blocks
    card.approval.approve.click()
    out = await asyncio.wait_for(task, 5)
    assert out.text == "wrote ok/x: from the subagent"
    html = transcript.static_html()
    agent_html = agent_card.static_html()
    assert card.static_html() in agent_html and agent_html in html


async def test_top_level_ask_stays_top_level(tmp_path):
    ctx = make_context([GuardedTool()], tmp_path)
    transcript = Transcript("write", model="test-model", find_tool=ctx.find_tool)
    handler = WidgetPermissionHandler(lambda: transcript, project_dir=tmp_path)
    task = asyncio.create_task(run_tool_use(ToolUseRequest("toolu_top", "Guarded", {"path": "ok/y"}), ctx, handler))
    card = await _panel(transcript, "toolu_top")
    assert card in transcript.blocks
    card.approval.approve.click()
    await asyncio.wait_for(task, 5)
