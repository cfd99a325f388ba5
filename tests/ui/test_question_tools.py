"""The question and plan widgets answer the real AskUserQuestion / ExitPlanMode tools' contracts."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.ask_user_question import AskUserQuestionTool
from jupyter_agent.tools.plan_mode import ExitPlanModeTool
from jupyter_agent.ui.permission_handler import WidgetPermissionHandler
from jupyter_agent.ui.transcript import Transcript
from tests.support.cards import widget_on_card
from tests.support.tools import make_context

QUESTIONS = {
    "questions": [
        {"question": "Which database?", "header": "DB", "multiSelect": False,
         "options": [{"label": "Postgres", "description": "server"}, {"label": "SQLite", "description": "file"}]},
        {"question": "Which extras?", "header": "Extras", "multiSelect": True,
         "options": [{"label": "auth", "description": ""}, {"label": "api", "description": ""}]},
    ]
}


def _setup(tmp_path, tool, mode="default"):
    ctx = make_context([tool], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode=mode)))
    transcript = Transcript("ask me", find_tool=ctx.find_tool)
    return ctx, transcript, WidgetPermissionHandler(lambda: transcript)


async def test_question_form_answers_ask_user_question(tmp_path):
    from jupyter_agent.ui.questions import QuestionForm

    ctx, transcript, handler = _setup(tmp_path, AskUserQuestionTool())
    run = asyncio.create_task(
        run_tool_use(ToolUseRequest("q1", "AskUserQuestion", QUESTIONS), ctx, handler, on_event=transcript.handle)
    )
    form = await widget_on_card(transcript, "q1", QuestionForm)
    card = transcript.cards["q1"]
    assert card.state == "asking" and "waiting for your answer" in card.title.value
    # each option shows its description beside it; the answer is the label alone
    assert form.questions[0].select.options == (("Postgres — server", "Postgres"), ("SQLite — file", "SQLite"),
                                                 ("Other", "Other"))
    assert [c.description for c in form.questions[1].choices] == ["auth", "api"]
    form.questions[0].select.value = "SQLite"
    form.questions[1].choices[1].value = True
    form.questions[1].other.value = "admin UI"
    form.submit.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error
    assert '"Which database?"="SQLite"' in outcome.text
    assert '"Which extras?"="api, admin UI"' in outcome.text
    assert "Answered: SQLite; api, admin UI" in transcript.static_html()
    assert card.decision == "Answered: SQLite; api, admin UI" and "waiting" not in card.title.value


async def test_plan_approval_switches_mode(tmp_path):
    from jupyter_agent.ui.questions import PlanApproval

    ctx, transcript, handler = _setup(tmp_path, ExitPlanModeTool(), mode="plan")
    req = ToolUseRequest("p1", "ExitPlanMode", {"plan": "1. Add tests\n2. Fix the bug"})
    run = asyncio.create_task(run_tool_use(req, ctx, handler, on_event=transcript.handle))
    widget = await widget_on_card(transcript, "p1", PlanApproval)
    assert "<li>Add tests</li>" in widget.plan.value
    assert "waiting for you to approve the plan" in transcript.cards["p1"].title.value
    widget.mode.value = "acceptEdits"
    widget.approve.click()
    outcome = await asyncio.wait_for(run, 5)
    assert not outcome.is_error and "Permission mode is now acceptEdits" in outcome.text
    assert ctx.permission_context.mode == "acceptEdits"
    assert transcript.cards["p1"].decision == "Plan approved (mode acceptEdits)"


async def test_keep_planning_sends_feedback_and_stays_in_plan_mode(tmp_path):
    from jupyter_agent.ui.questions import PlanApproval

    ctx, transcript, handler = _setup(tmp_path, ExitPlanModeTool(), mode="plan")
    req = ToolUseRequest("p2", "ExitPlanMode", {"plan": "Rewrite everything"})
    run = asyncio.create_task(run_tool_use(req, ctx, handler, on_event=transcript.handle))
    widget = await widget_on_card(transcript, "p2", PlanApproval)
    widget.feedback.value = "Smaller steps, please."
    widget.keep.click()
    outcome = await asyncio.wait_for(run, 5)
    assert outcome.is_error and "Smaller steps, please." in outcome.text
    assert ctx.permission_context.mode == "plan"
    assert "Keep planning: Smaller steps, please." in transcript.static_html()
