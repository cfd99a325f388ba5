from __future__ import annotations

from dataclasses import replace

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.core.permission_types import PermissionAllow
from jupyter_agent.tools.plan_mode import (
    EXIT_ASK_MESSAGE,
    EnterPlanModeTool,
    ExitPlanModeTool,
    approval_input,
    get_plan_state,
    plan_feedback,
)
from tests.conftest import RecordingApprover
from tests.support.tools import SleepTool, WriteStepTool, make_context

PLAN = "1. Add `--verbose` to cli.py\n2. Test it"


def _ctx(tmp_path, mode="default"):
    ctx = make_context([EnterPlanModeTool(), ExitPlanModeTool(), WriteStepTool(), SleepTool()], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode=mode)))
    return ctx


async def _run(ctx, name, inp, approver):
    return await run_tool_use(ToolUseRequest(f"id_{name}", name, inp), ctx, approver)


async def test_plan_mode_end_to_end_read_only_then_approved_with_accept_edits(tmp_path):
    ctx = _ctx(tmp_path, mode="acceptEdits")
    approver = RecordingApprover(approval_input(PLAN + "\n3. Update docs", "default"))
    out = await _run(ctx, "EnterPlanMode", {}, approver)
    assert not out.is_error and "Entered plan mode" in out.text
    assert ctx.permission_context.mode == "plan"

    write = await _run(ctx, "WriteStep", {"label": "w"}, approver)
    assert write.is_error and "Plan mode is on" in write.text
    read = await _run(ctx, "Sleep", {"label": "r"}, approver)
    assert not read.is_error

    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN}, approver)
    assert not out.is_error, out.text
    assert [(name, ask.message) for name, ask in approver.asks] == [("ExitPlanMode", EXIT_ASK_MESSAGE)]
    assert "User has approved your plan" in out.text and "3. Update docs" in out.text
    assert ctx.permission_context.mode == "default"  # the widget's choice wins over the old mode
    assert get_plan_state(ctx.get_app_state()).approved_plan.endswith("3. Update docs")
    assert not (await _run(ctx, "WriteStep", {"label": "w2"}, approver)).is_error


async def test_plain_approval_restores_the_previous_mode(tmp_path):
    ctx = _ctx(tmp_path, mode="acceptEdits")
    approver = RecordingApprover(PermissionAllow())
    await _run(ctx, "EnterPlanMode", {}, approver)
    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN}, approver)
    assert not out.is_error and ctx.permission_context.mode == "acceptEdits"


async def test_feedback_keeps_planning(tmp_path):
    ctx = _ctx(tmp_path)
    approver = RecordingApprover(plan_feedback("Also handle the config file"))
    await _run(ctx, "EnterPlanMode", {}, approver)
    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN}, approver)
    assert out.is_error and "Also handle the config file" in out.text
    assert ctx.permission_context.mode == "plan"
    assert get_plan_state(ctx.get_app_state()).approved_plan is None


async def test_exit_outside_plan_mode_and_model_supplied_mode_are_refused(tmp_path, approve):
    ctx = _ctx(tmp_path)
    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN}, approve)
    assert out.is_error and "You are not in plan mode" in out.text
    await _run(ctx, "EnterPlanMode", {}, approve)
    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN, "mode": "acceptEdits"}, approve)
    assert out.is_error and "`mode`" in out.text
    assert approve.asks == [] and ctx.permission_context.mode == "plan"


async def test_enter_twice_and_subagents_are_refused(tmp_path, approve):
    ctx = _ctx(tmp_path)
    sub = ctx.with_changes(agent_id="a1")
    out = await _run(sub, "EnterPlanMode", {}, approve)
    assert out.is_error and "subagents" in out.text
    await _run(ctx, "EnterPlanMode", {}, approve)
    again = await _run(ctx, "EnterPlanMode", {}, approve)
    assert again.is_error and "Already in plan mode" in again.text


def test_the_model_does_not_see_the_mode_field():
    schema = ExitPlanModeTool().input_json_schema()
    assert list(schema["properties"]) == ["plan"]


async def test_bypass_mode_and_allow_rules_do_not_approve_plans(tmp_path):
    ctx = _ctx(tmp_path, mode="bypassPermissions")
    approver = RecordingApprover(plan_feedback("not yet"))
    await _run(ctx, "EnterPlanMode", {}, approver)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(
        s.tool_permission_context, allow_rules={"session": ("ExitPlanMode",)})))
    out = await _run(ctx, "ExitPlanMode", {"plan": PLAN}, approver)
    assert out.is_error and "not yet" in out.text and len(approver.asks) == 1
    assert ctx.permission_context.mode == "plan"
