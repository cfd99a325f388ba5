from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasklist import TaskUpdate, task_store_for
from jupyter_agent.tools.task_get import TaskGetTool
from tests.support.tools import make_context


async def test_get_shows_details_and_dependencies(tmp_path, approve):
    ctx = make_context([TaskGetTool()], tmp_path)
    store = task_store_for(ctx)
    await store.create("First", "do the first thing")
    await store.create("Second", "then this")
    await store.update("2", TaskUpdate(add_blocked_by=("1",), owner="explorer"))
    out = await run_tool_use(ToolUseRequest("t1", "TaskGet", {"taskId": "2"}), ctx, approve)
    assert out.text.splitlines() == [
        "Task #2: Second",
        "Status: pending",
        "Owner: explorer",
        "Description: then this",
        "Blocked by: #1",
    ]


async def test_unknown_task_is_an_error(tmp_path, approve):
    ctx = make_context([TaskGetTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("t1", "TaskGet", {"taskId": "42"}), ctx, approve)
    assert out.is_error and "Task not found: #42" in out.text
