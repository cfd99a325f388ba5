from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasklist import TaskUpdate, task_store_for
from jupyter_agent.tools.task_list import TaskListTool
from tests.support.tools import make_context


async def test_empty_list(tmp_path, approve):
    ctx = make_context([TaskListTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("t1", "TaskList", {}), ctx, approve)
    assert out.text == "No tasks found"


async def test_list_shows_only_open_blockers(tmp_path, approve):
    ctx = make_context([TaskListTool()], tmp_path)
    store = task_store_for(ctx)
    for s in ("A", "B", "C"):
        await store.create(s, "")
    await store.update("3", TaskUpdate(add_blocked_by=("1", "2")))
    await store.update("1", TaskUpdate(status="completed", owner="me"))
    out = await run_tool_use(ToolUseRequest("t1", "TaskList", {}), ctx, approve)
    assert out.text.splitlines() == [
        "#1 [completed] A (owner: me)",
        "#2 [pending] B",
        "#3 [pending] C [blocked by #2]",
    ]


async def test_unexpected_parameter_is_refused(tmp_path, approve):
    ctx = make_context([TaskListTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("t1", "TaskList", {"status": "x"}), ctx, approve)
    assert out.is_error and "unexpected parameter `status`" in out.text
