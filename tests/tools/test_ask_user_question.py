from __future__ import annotations

from dataclasses import replace

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionDeny
from jupyter_agent.tools.ask_user_question import AskUserQuestionTool, answers_input
from tests.support.tools import make_context

Q1 = {
    "question": "Which database should we use?",
    "header": "Database",
    "options": [
        {"label": "SQLite (Recommended)", "description": "Zero setup"},
        {"label": "Postgres", "description": "Production grade"},
    ],
    "multiSelect": False,
}
Q2 = {
    "question": "Which extras do you want?",
    "header": "Extras",
    "options": [{"label": "Docs", "description": ""}, {"label": "CI", "description": ""}],
    "multiSelect": True,
}


class Widget:
    """Answers like the question widget: reads the questions it was given, picks answers."""

    def __init__(self, picks):
        self.picks = picks
        self.seen = []

    async def __call__(self, tool, input, context, ask, tool_use_id):
        self.seen.append([q.question for q in input.questions])
        answers = {q.question: self.picks[q.header] for q in input.questions if q.header in self.picks}
        return answers_input(input, answers)


async def _ask(ctx, inp, approver):
    return await run_tool_use(ToolUseRequest("q1", "AskUserQuestion", inp), ctx, approver)


async def test_answers_from_the_widget_reach_the_model(tmp_path):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    widget = Widget({"Database": "Postgres", "Extras": "Docs, CI"})
    out = await _ask(ctx, {"questions": [Q1, Q2]}, widget)
    assert not out.is_error, out.text
    assert widget.seen == [[Q1["question"], Q2["question"]]]
    assert out.text == (
        'User has answered your questions: "Which database should we use?"="Postgres", '
        '"Which extras do you want?"="Docs, CI". You can now continue with the user\'s answers in mind.'
    )


async def test_unanswered_question_is_reported(tmp_path):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    out = await _ask(ctx, {"questions": [Q1, Q2]}, Widget({"Database": "free text: MySQL"}))
    assert '"Which extras do you want?"=(no answer)' in out.text and "MySQL" in out.text


async def test_dismissed_questions_are_an_error_with_the_users_message(tmp_path):
    from tests.conftest import RecordingApprover

    ctx = make_context([AskUserQuestionTool()], tmp_path)
    out = await _ask(ctx, {"questions": [Q1]}, RecordingApprover(PermissionDeny("User dismissed the questions.")))
    assert out.is_error and out.text == "User dismissed the questions."


async def test_no_one_can_answer_in_dont_ask_mode_or_non_interactive(tmp_path, approve):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="dontAsk")))
    out = await _ask(ctx, {"questions": [Q1]}, approve)
    assert out.is_error and "No one can answer" in out.text and "dontAsk" in out.text
    headless = make_context([AskUserQuestionTool()], tmp_path, is_non_interactive=True)
    out = await _ask(headless, {"questions": [Q1]}, approve)
    assert out.is_error and "non-interactive" in out.text
    assert approve.asks == []


async def test_bypass_mode_still_asks_the_user(tmp_path):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    ctx.set_app_state(
        lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="bypassPermissions"))
    )
    widget = Widget({"Database": "SQLite (Recommended)"})
    out = await _ask(ctx, {"questions": [Q1]}, widget)
    assert widget.seen and "SQLite" in out.text


async def test_shape_limits_are_enforced(tmp_path, approve):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    one_option = {**Q1, "options": Q1["options"][:1]}
    cases = [
        ({"questions": []}, "questions"),
        ({"questions": [Q1, Q2, {**Q1, "question": "a?"}, {**Q1, "question": "b?"}, {**Q1, "question": "c?"}]}, "questions"),
        ({"questions": [one_option]}, "options"),
        ({"questions": [{**Q1, "header": "A very long header"}]}, "header"),
        ({"questions": [Q1, Q1]}, "unique"),
        ({"questions": [{**Q1, "options": [Q1["options"][0], Q1["options"][0]]}]}, "unique"),
        ({"questions": [Q1], "answers": {Q1["question"]: "Postgres"}}, "`answers`"),
    ]
    for inp, needle in cases:
        out = await _ask(ctx, inp, approve)
        assert out.is_error and needle in out.text, (inp, out.text)
    assert approve.asks == []


def test_schema_hides_answers():
    assert list(AskUserQuestionTool().input_json_schema()["properties"]) == ["questions"]


async def test_an_allow_rule_cannot_answer_for_the_user(tmp_path, approve):
    ctx = make_context([AskUserQuestionTool()], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(
        s.tool_permission_context, allow_rules={"session": ("AskUserQuestion",)})))
    widget = Widget({"Database": "Postgres"})
    out = await _ask(ctx, {"questions": [Q1]}, widget)
    assert widget.seen and "Postgres" in out.text
    # An approver that allows without the widget's answers gets no fake answers.
    out = await _ask(ctx, {"questions": [Q1]}, approve)
    assert out.is_error and "not shown to the user" in out.text
