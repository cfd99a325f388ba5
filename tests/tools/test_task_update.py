from __future__ import annotations

from jupyter_agent.core.batches import run_tools
from jupyter_agent.core.orchestration import ToolUseRequest
from jupyter_agent.tasklist import task_store_for
from jupyter_agent.tools.task_create import TaskCreateTool
from jupyter_agent.tools.task_list import TaskListTool
from jupyter_agent.tools.task_update import TaskUpdateTool
from tests.support.tools import make_context


def _r(i: int, name: str, inp: dict) -> ToolUseRequest:
    return ToolUseRequest(f"t{i}", name, inp)


async def test_dependency_workflow_through_the_tools(tmp_path, approve):
    ctx = make_context([TaskCreateTool(), TaskUpdateTool(), TaskListTool()], tmp_path)
    run = await run_tools(
        [
            _r(1, "TaskCreate", {"subject": "Schema", "description": "design"}),
            _r(2, "TaskCreate", {"subject": "API", "description": "build"}),
            _r(3, "TaskUpdate", {"taskId": "2", "addBlockedBy": ["1"]}),
            _r(4, "TaskUpdate", {"taskId": "2", "status": "in_progress"}),
            _r(5, "TaskUpdate", {"taskId": "1", "status": "completed", "owner": "main"}),
            _r(6, "TaskUpdate", {"taskId": "2", "status": "in_progress"}),
            _r(7, "TaskList", {}),
        ],
        ctx,
        approve,
    )
    texts = [o.text for o in run.outcomes]
    assert texts[2] == "Updated task #2 blockedBy"
    assert run.outcomes[3].is_error and "blocked by #1 (pending)" in texts[3]
    assert texts[4] == "Updated task #1 status, owner"
    assert texts[5] == "Updated task #2 status"
    assert texts[6].splitlines() == ["#1 [completed] Schema (owner: main)", "#2 [in_progress] API"]


async def test_delete_and_bad_status(tmp_path, approve):
    ctx = make_context([TaskCreateTool(), TaskUpdateTool()], tmp_path)
    run = await run_tools(
        [
            _r(1, "TaskCreate", {"subject": "X", "description": ""}),
            _r(2, "TaskUpdate", {"taskId": "1", "status": "done"}),
            _r(3, "TaskUpdate", {"taskId": "1", "status": "deleted"}),
            _r(4, "TaskUpdate", {"taskId": "1", "status": "completed"}),
        ],
        ctx,
        approve,
    )
    assert run.outcomes[1].is_error and "status" in run.outcomes[1].text
    assert run.outcomes[2].text == "Task #1 deleted"
    assert run.outcomes[3].is_error and "Task not found: #1" in run.outcomes[3].text
    assert (await task_store_for(ctx).list()).tasks == []
