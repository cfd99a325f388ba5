from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tools.todo_write import RESULT_TEXT, TodoWriteTool, get_todos
from tests.support.tools import make_context


def _todo(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": content + "ing"}


async def test_todos_are_stored_in_app_state_and_listeners_see_them(tmp_path, reject):
    ctx = make_context([TodoWriteTool()], tmp_path)
    seen: list[list[str]] = []
    ctx.app_state_store.subscribe(lambda s: seen.append([t.content for t in s.todos]))
    todos = [_todo("Write tests", "in_progress"), _todo("Fix bug", "pending")]
    out = await run_tool_use(ToolUseRequest("t1", "TodoWrite", {"todos": todos}), ctx, reject)
    assert not out.is_error, out.text
    assert out.text == RESULT_TEXT
    assert reject.asks == []  # never asks the user
    assert [t.status for t in ctx.get_app_state().todos] == ["in_progress", "pending"]
    assert seen == [["Write tests", "Fix bug"]]
    assert out.result.data.old_todos == []


async def test_two_in_progress_is_an_error_and_state_is_unchanged(tmp_path, approve):
    ctx = make_context([TodoWriteTool()], tmp_path)
    todos = [_todo("A", "in_progress"), _todo("B", "in_progress")]
    out = await run_tool_use(ToolUseRequest("t1", "TodoWrite", {"todos": todos}), ctx, approve)
    assert out.is_error
    assert "Only one todo may be in_progress" in out.text
    assert ctx.get_app_state().todos == []


async def test_bad_status_and_missing_active_form_are_schema_errors(tmp_path, approve):
    ctx = make_context([TodoWriteTool()], tmp_path)
    bad = {"todos": [{"content": "A", "status": "doing", "activeForm": "A"}, {"content": "B", "status": "pending"}]}
    out = await run_tool_use(ToolUseRequest("t1", "TodoWrite", bad), ctx, approve)
    assert out.is_error
    assert "todos.0.status" in out.text and "todos.1.activeForm" in out.text


async def test_all_completed_clears_the_list_and_old_todos_are_reported(tmp_path, approve):
    ctx = make_context([TodoWriteTool()], tmp_path)
    await run_tool_use(ToolUseRequest("t1", "TodoWrite", {"todos": [_todo("A", "in_progress")]}), ctx, approve)
    out = await run_tool_use(ToolUseRequest("t2", "TodoWrite", {"todos": [_todo("A", "completed")]}), ctx, approve)
    assert [t.status for t in out.result.data.old_todos] == ["in_progress"]
    assert ctx.get_app_state().todos == []


async def test_subagent_todos_are_kept_apart_from_the_main_list(tmp_path, approve):
    ctx = make_context([TodoWriteTool()], tmp_path)
    sub = ctx.with_changes(agent_id="agent-1")
    await run_tool_use(ToolUseRequest("t1", "TodoWrite", {"todos": [_todo("Sub", "pending")]}), sub, approve)
    assert ctx.get_app_state().todos == []
    assert [t.content for t in get_todos(ctx.get_app_state(), "agent-1")] == ["Sub"]


async def test_plan_mode_still_allows_todowrite(tmp_path, approve):
    from dataclasses import replace

    ctx = make_context([TodoWriteTool()], tmp_path)
    ctx.set_app_state(lambda s: replace(s, tool_permission_context=replace(s.tool_permission_context, mode="plan")))
    out = await run_tool_use(ToolUseRequest("t1", "TodoWrite", {"todos": [_todo("Plan", "pending")]}), ctx, approve)
    assert not out.is_error, out.text
