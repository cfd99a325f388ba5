"""The many-hands tools through the notebook UI's real permission handler and widgets
(in-process ipywidgets; clicks through ``button.click()``)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from jupyter_agent.core.events import PermissionRequested
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.subagents.runtime import RUNTIME_KEY
from jupyter_agent.testing import ScriptedServer, reply, text, tool_use
from jupyter_agent.tools.agent_tool import AgentTool
from jupyter_agent.tools.ask_user_question import AskUserQuestionTool
from jupyter_agent.tools.plan_mode import EnterPlanModeTool, ExitPlanModeTool
from jupyter_agent.tools.write import WriteTool
from jupyter_agent.ui.approval import ApprovalPanel
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.questions import PlanApproval, QuestionForm
from jupyter_agent.ui.transcript import Transcript
from tests.support.sessions import scripted_runtime
from tests.support.tools import make_context


async def find_widget(transcript: Transcript, kind: type, timeout: float = 20.0):
    """The first open widget of ``kind`` in any card (waits until the ask shows up)."""
    async def look():
        while True:
            for card in list(transcript.cards.values()):
                for child in card.body.children:
                    if isinstance(child, kind):
                        return card, child
            await asyncio.sleep(0.01)

    return await asyncio.wait_for(look(), timeout)


async def test_plan_approved_in_the_widget_switches_the_mode(tmp_path):
    transcript = Transcript("plan it")
    handler = WidgetPermissionHandler(lambda: transcript)
    ctx = make_context([EnterPlanModeTool(), ExitPlanModeTool()], tmp_path)
    await run_tool_use(ToolUseRequest("e", "EnterPlanMode", {}), ctx, handler, on_event=transcript.handle)
    call = asyncio.ensure_future(run_tool_use(
        ToolUseRequest("x", "ExitPlanMode", {"plan": "1. Edit `a.py`"}), ctx, handler, on_event=transcript.handle))
    card, widget = await find_widget(transcript, PlanApproval)
    assert transcript.cards["x"] is card
    widget.mode.value = "default"
    widget.approve.click()
    out = await asyncio.wait_for(call, 20)
    assert not out.is_error, out.text
    assert ctx.permission_context.mode == "default"


async def test_question_answered_in_the_widget(tmp_path):
    transcript = Transcript("ask")
    handler = WidgetPermissionHandler(lambda: transcript)
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    q = {"question": "Which plot style?", "header": "Style",
         "options": [{"label": "dark", "description": ""}, {"label": "light", "description": ""}], "multiSelect": False}
    call = asyncio.ensure_future(run_tool_use(
        ToolUseRequest("q", "AskUserQuestion", {"questions": [q]}), ctx, handler, on_event=transcript.handle))
    _card, form = await find_widget(transcript, QuestionForm)
    form.questions[0].select.value = "Other"
    form.questions[0].other.value = "solarized"
    form.submit.click()
    out = await asyncio.wait_for(call, 20)
    assert '"Which plot style?"="solarized"' in out.text


async def test_subagent_write_is_approved_in_the_parents_transcript(tmp_path):
    target = tmp_path / "result.txt"
    transcript = Transcript("delegate")
    handler = WidgetPermissionHandler(lambda: transcript)
    events = []

    def on_event(event):
        events.append(event)
        transcript.handle(event)

    with ScriptedServer() as server:
        server.push(reply(tool_use("Write", {"file_path": str(target), "content": "done\n"}, id="toolu_sub_write")),
                    reply(text("Wrote result.txt.")))
        runtime = scripted_runtime(server, tmp_path)
        ctx = make_context([AgentTool(), WriteTool()], tmp_path)
        ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context,
                                                                                project_dir=tmp_path)))
        ctx.extra[RUNTIME_KEY] = runtime
        call = asyncio.ensure_future(run_tool_use(
            ToolUseRequest("toolu_agent", "Agent", {"description": "write it", "prompt": "Write result.txt"}),
            ctx, handler, on_event=on_event))
        card, panel = await find_widget(transcript, ApprovalPanel)
        assert transcript.cards["toolu_sub_write"] is card and not target.exists()
        panel.approve.click()
        out = await asyncio.wait_for(call, 20)
        await runtime.client.close()
    assert out.text == "Wrote result.txt." and target.read_text() == "done\n"
    asks = [e for e in events if isinstance(e, PermissionRequested)]
    assert asks == []  # the parent's own events: the ask came from inside the subagent


def _shown(path) -> str:
    """A path as a progress line shows it: at most 80 characters (tmp_path's length varies)."""
    text = str(path)
    return text if len(text) <= 80 else text[:77] + "..."


async def test_subagent_progress_shows_one_line_per_tool_call(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    transcript = Transcript("explore")
    with ScriptedServer() as server:
        server.push(reply(text("Let me look. "), tool_use("Read", {"file_path": str(tmp_path / "a.txt")})),
                    reply(tool_use("Read", {"file_path": str(tmp_path / "missing.txt")})),
                    reply(text("a.txt says alpha.")))
        runtime = scripted_runtime(server, tmp_path)
        from jupyter_agent.tools.read import ReadTool

        ctx = make_context([AgentTool(), ReadTool()], tmp_path)
        ctx.extra[RUNTIME_KEY] = runtime
        out = await run_tool_use(
            ToolUseRequest("toolu_agent", "Agent", {"description": "look", "prompt": "p", "subagent_type": "Explore"}),
            ctx, WidgetPermissionHandler(lambda: transcript), on_event=transcript.handle)
        await runtime.client.close()
    assert out.text == "a.txt says alpha."
    tail = transcript.cards["toolu_agent"].tail
    assert tail[0] == f"Explore: Read {_shown(tmp_path / 'a.txt')}"
    assert tail[1] == f"Explore: Read {_shown(tmp_path / 'missing.txt')}"
    assert tail[2].startswith("Explore: Read failed: ")
    assert len(tail) == 3  # text deltas and usage add no lines
