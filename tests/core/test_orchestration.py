from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.events import (
    PermissionRequested,
    PermissionResolved,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
)
from jupyter_agent.core.orchestration import (
    INTERRUPTED_MESSAGE,
    NOT_RUN_MESSAGE,
    ToolUseRequest,
    run_tool_use,
)
from jupyter_agent.core.permission_types import PermissionAllow
from tests.conftest import RecordingApprover
from tests.support.tools import (
    BigTool,
    FailTool,
    GuardedTool,
    ProgressTool,
    SafeModifierTool,
    SleepTool,
    Tracker,
    WriteStepTool,
    make_context,
)


def req(name: str, input: object, id: str | None = None) -> ToolUseRequest:
    return ToolUseRequest(id or f"toolu_{name}", name, input)


async def test_unknown_tool_is_an_error_result(tmp_path, approve):
    ctx = make_context([SleepTool()], tmp_path)
    out = await run_tool_use(req("Nope", {}), ctx, approve)
    assert out.is_error
    assert "No such tool available: Nope" in out.text and "Sleep" in out.text


async def test_alias_resolves(tmp_path, approve):
    ctx = make_context([SleepTool()], tmp_path)
    out = await run_tool_use(req("Nap", {"label": "x"}), ctx, approve)
    assert not out.is_error and out.text == "slept x" and out.tool_name == "Sleep"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({}, "The required parameter `label` is missing"),
        ({"label": "x", "seconds": "soon"}, "The parameter `seconds`"),
        ({"label": "x", "seconds": -1}, "greater than or equal to 0"),
        ("not an object", "expects a JSON object"),
        (None, "expects a JSON object"),
    ],
)
async def test_schema_errors_name_field_and_problem(tmp_path, approve, raw, expected):
    ctx = make_context([SleepTool()], tmp_path)
    out = await run_tool_use(req("Sleep", raw), ctx, approve)
    assert out.is_error
    assert expected in out.text
    assert approve.asks == []


async def test_validate_input_failure_reaches_model_before_permissions(tmp_path, approve):
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "bad/x"}), ctx, approve)
    assert out.is_error and "Use a path under ok/" in out.text
    assert approve.asks == []


async def test_tool_deny_becomes_error_result_without_asking(tmp_path, approve):
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "deny/x"}), ctx, approve)
    assert out.is_error and out.text == "Writing deny/x is denied."
    assert approve.asks == [] and out.decision == "deny"


async def test_ask_goes_to_can_use_tool_and_runs_when_allowed(tmp_path, approve):
    events = []
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "ok/x", "text": "hi"}), ctx, approve, on_event=events.append)
    assert not out.is_error and out.text == "wrote ok/x: hi"
    assert [a.message for _, a in approve.asks] == ["Write ok/x?"]
    kinds = [type(e) for e in events]
    assert kinds == [PermissionRequested, PermissionResolved, ToolCallStarted, ToolCallFinished]
    assert out.decision == "user-allow"


async def test_user_denial_reaches_model_with_feedback(tmp_path, reject):
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "ok/x"}), ctx, reject)
    assert out.is_error and "use a different file" in out.text
    assert out.decision == "user-deny"


async def test_user_can_change_the_input(tmp_path):
    approver = RecordingApprover(PermissionAllow(updated_input={"path": "ok/y", "text": "edited"}))
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "ok/x"}), ctx, approver)
    assert out.text == "wrote ok/y: edited"


async def test_updated_input_is_validated_again(tmp_path):
    approver = RecordingApprover(PermissionAllow(updated_input={"text": "no path"}))
    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "ok/x"}), ctx, approver)
    assert out.is_error and "`path` is missing" in out.text


async def test_raising_can_use_tool_is_a_denial(tmp_path):
    async def broken(*args):
        raise RuntimeError("widget gone")

    ctx = make_context([GuardedTool()], tmp_path)
    out = await run_tool_use(req("Guarded", {"path": "ok/x"}), ctx, broken)
    assert out.is_error and "widget gone" in out.text


@pytest.mark.parametrize(("kind", "text"), [("runtime", "RuntimeError: boom"), ("keyerror", "KeyError")])
async def test_exception_in_tool_becomes_error_result(tmp_path, approve, kind, text):
    ctx = make_context([FailTool()], tmp_path)
    out = await run_tool_use(req("Fail", {"kind": kind}), ctx, approve)
    assert out.is_error and text in out.text


async def test_none_data_is_reported_as_no_output(tmp_path, approve):
    ctx = make_context([FailTool()], tmp_path)
    out = await run_tool_use(req("Fail", {"kind": "none"}), ctx, approve)
    assert not out.is_error and out.text == "(no output)"


async def test_progress_events_arrive_while_running(tmp_path, approve):
    events = []
    ctx = make_context([ProgressTool()], tmp_path)
    await run_tool_use(req("Progress", {"steps": 3}), ctx, approve, on_event=events.append)
    progress = [e.progress.data for e in events if isinstance(e, ToolCallProgress)]
    assert progress == ["step 0", "step 1", "step 2"]
    assert isinstance(events[-1], ToolCallFinished)


async def test_abort_cancels_cancel_tool_promptly(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([SleepTool(tracker, behavior="cancel")], tmp_path)
    task = asyncio.create_task(run_tool_use(req("Sleep", {"label": "long", "seconds": 30}), ctx, approve))
    await asyncio.sleep(0.05)
    ctx.abort_controller.abort()
    out = await asyncio.wait_for(task, 2)
    assert out.is_error and out.text == INTERRUPTED_MESSAGE
    assert tracker.log == ["start long", "end long"]


async def test_abort_lets_block_tool_finish(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([SleepTool(tracker, behavior="block")], tmp_path)
    task = asyncio.create_task(run_tool_use(req("Sleep", {"label": "b", "seconds": 0.2}), ctx, approve))
    await asyncio.sleep(0.05)
    ctx.abort_controller.abort()
    out = await asyncio.wait_for(task, 2)
    assert not out.is_error and out.text == "slept b"


async def test_aborted_turn_does_not_start_more_tools(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([WriteStepTool(tracker)], tmp_path)
    ctx.abort_controller.abort()
    result = await run_tools([req("WriteStep", {"label": "a"}, "t1")], ctx, approve)
    assert result.outcomes[0].text == NOT_RUN_MESSAGE and tracker.log == []


async def test_results_in_request_order_not_finish_order(tmp_path, approve):
    ctx = make_context([SleepTool()], tmp_path)
    calls = [req("Sleep", {"label": str(i), "seconds": 0.05 * (5 - i)}, f"t{i}") for i in range(5)]
    result = await run_tools(calls, ctx, approve)
    assert [o.tool_use_id for o in result.outcomes] == [f"t{i}" for i in range(5)]
    assert [o.text for o in result.outcomes] == [f"slept {i}" for i in range(5)]


async def test_parallel_batch_capped_at_max_concurrency(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([SleepTool(tracker)], tmp_path)
    calls = [req("Sleep", {"label": str(i), "seconds": 0.05}, f"t{i}") for i in range(25)]
    await run_tools(calls, ctx, approve)
    assert tracker.peak == 10


async def test_max_concurrency_is_configurable(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([SleepTool(tracker)], tmp_path, max_concurrency=3)
    calls = [req("Sleep", {"label": str(i), "seconds": 0.02}, f"t{i}") for i in range(9)]
    await run_tools(calls, ctx, approve)
    assert tracker.peak == 3


async def test_unsafe_calls_run_one_at_a_time_in_order(tmp_path, approve):
    tracker = Tracker()
    ctx = make_context([WriteStepTool(tracker), SleepTool(tracker)], tmp_path)
    calls = [
        req("Sleep", {"label": "r1", "seconds": 0.02}, "a"),
        req("Sleep", {"label": "r2", "seconds": 0.02}, "b"),
        req("WriteStep", {"label": "w1", "seconds": 0.02}, "c"),
        req("WriteStep", {"label": "w2", "seconds": 0.01}, "d"),
        req("Sleep", {"label": "r3"}, "e"),
    ]
    await run_tools(calls, ctx, approve)
    log = tracker.log
    # the writes do not overlap anything
    assert log[4:] == ["start w1", "end w1", "start w2", "end w2", "start r3", "end r3"]
    assert set(log[:4]) == {"start r1", "start r2", "end r1", "end r2"}
    assert log.index("start r2") < log.index("end r1")  # the reads did overlap


async def test_context_modifier_applies_for_unsafe_calls_in_order(tmp_path, approve):
    writer = WriteStepTool()
    ctx = make_context([writer], tmp_path)
    calls = [
        req("WriteStep", {"label": "a", "new_cwd": "/first"}, "1"),
        req("WriteStep", {"label": "b"}, "2"),
        req("WriteStep", {"label": "c", "new_cwd": "/second"}, "3"),
    ]
    result = await run_tools(calls, ctx, approve)
    assert writer.seen_cwds == [str(tmp_path), "/first", "/first"]
    assert result.context.cwd == Path("/second")


async def test_context_modifier_of_concurrency_safe_tool_is_ignored(tmp_path, approve):
    ctx = make_context([SafeModifierTool()], tmp_path)
    result = await run_tools([req("SafeModifier", {"label": "x"}, "1")], ctx, approve)
    assert not result.outcomes[0].is_error
    assert result.context.cwd == tmp_path


async def test_bad_input_in_a_batch_does_not_stop_the_others(tmp_path, approve):
    ctx = make_context([SleepTool()], tmp_path)
    calls = [req("Sleep", {"label": "a"}, "1"), req("Sleep", {"oops": 1}, "2"), req("Sleep", {"label": "c"}, "3")]
    result = await run_tools(calls, ctx, approve)
    assert [o.is_error for o in result.outcomes] == [False, True, False]


async def test_oversized_result_is_persisted_with_preview(tmp_path, approve):
    ctx = make_context([BigTool()], tmp_path)
    out = await run_tool_use(req("Big", {"chars": 5_000}, "toolu_big/1"), ctx, approve)
    assert not out.is_error
    saved = tmp_path / "session" / "tool-results" / "toolu_big_1.txt"
    assert saved.read_text() == "".join(chr(ord("a") + i % 26) for i in range(5_000))
    assert str(saved) in out.text and "5,000 characters" in out.text
    assert len(out.text) < 1_500


async def test_small_result_is_not_persisted(tmp_path, approve):
    ctx = make_context([BigTool()], tmp_path)
    out = await run_tool_use(req("Big", {"chars": 999}), ctx, approve)
    assert len(out.text) == 999
    assert not (tmp_path / "session").exists()


async def test_to_block_shape(tmp_path, approve):
    ctx = make_context([FailTool()], tmp_path)
    out = await run_tool_use(req("Fail", {"kind": "runtime"}, "toolu_1"), ctx, approve)
    block = out.to_block()
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1"
    assert block["is_error"] is True and block["content"][0]["type"] == "text"
