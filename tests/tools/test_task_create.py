from __future__ import annotations

from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasklist import task_store_for
from jupyter_agent.tools.task_create import TaskCreateTool
from tests.support.tools import make_context


async def test_create_returns_the_id_and_persists(tmp_path, reject):
    ctx = make_context([TaskCreateTool()], tmp_path)
    inp = {"subject": "Add CLI flag", "description": "add --verbose", "activeForm": "Adding flag", "metadata": {"p": 1}}
    out = await run_tool_use(ToolUseRequest("t1", "TaskCreate", inp), ctx, reject)
    assert out.text == "Task #1 created successfully: Add CLI flag"
    assert reject.asks == []
    task = await task_store_for(ctx).get("1")
    assert (task.activeForm, task.metadata, task.status) == ("Adding flag", {"p": 1}, "pending")


async def test_missing_description_is_a_schema_error(tmp_path, approve):
    ctx = make_context([TaskCreateTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("t1", "TaskCreate", {"subject": "x"}), ctx, approve)
    assert out.is_error and "`description` is missing" in out.text
