from __future__ import annotations

from dataclasses import replace

import pytest

from jupyter_agent.agent.events import TurnStarted
from jupyter_agent.checkpoints import CheckpointStore
from jupyter_agent.checkpoints.store import install_store
from jupyter_agent.core.orchestration import ToolUseRequest, run_tool_use
from jupyter_agent.tasklist import task_store_for
from jupyter_agent.tools.plan_mode import STATE_KEY, PlanModeState
from jupyter_agent.tools.todo_write import TodoItem
from jupyter_agent.tools.verify_plan import VerifyPlanExecutionTool, mentioned_paths, plan_steps, verify
from tests.support.tools import make_context

PLAN = """# Plan
1. Add a `--verbose` flag in `src/cli.py`
2. Update docs/usage.md with the flag
3. Run the test suite
- [ ] Touch notebooks/demo.ipynb and src/log.py
"""


def test_steps_and_paths():
    assert plan_steps(PLAN) == [
        "Add a `--verbose` flag in `src/cli.py`",
        "Update docs/usage.md with the flag",
        "Run the test suite",
        "Touch notebooks/demo.ipynb and src/log.py",
    ]
    assert mentioned_paths("Add a `--verbose` flag in `src/cli.py`") == ["src/cli.py"]
    assert mentioned_paths("Run the test suite") == []


@pytest.mark.parametrize(
    ("changed", "statuses"),
    [
        (["/p/src/cli.py", "/p/docs/usage.md", "/p/notebooks/demo.ipynb", "/p/src/log.py"], ["done", "done", "unverified", "done"]),
        (["/p/src/cli.py", "/p/notebooks/demo.ipynb"], ["done", "gap", "unverified", "gap"]),
        ([], ["gap", "gap", "unverified", "gap"]),
    ],
)
def test_verify_table(changed, statuses):
    assert [c.status for c in verify(PLAN, changed, []).steps] == statuses


async def test_tool_reports_gaps_from_checkpoints_todos_and_tasks(tmp_path, reject):
    ctx = make_context([VerifyPlanExecutionTool()], tmp_path)
    out = await run_tool_use(ToolUseRequest("v", "VerifyPlanExecution", {}), ctx, reject)
    assert out.is_error and "no approved plan" in out.text

    store = CheckpointStore()
    install_store(ctx.app_state_store, store)
    store.on_event(TurnStarted("t1", "go"))
    (tmp_path / "src").mkdir()
    cli = tmp_path / "src" / "cli.py"
    await store.before_file_write(str(cli))
    cli.write_text("verbose = True\n")
    await store.after_file_write(str(cli))
    todo = TodoItem(content="Run tests", status="in_progress", activeForm="Running tests")
    ctx.set_app_state(lambda s: replace(s, todos=[todo], extra={**s.extra, STATE_KEY: PlanModeState(approved_plan=PLAN)}))
    await task_store_for(ctx).create("Write docs", "usage.md")

    out = await run_tool_use(ToolUseRequest("v", "VerifyPlanExecution", {}), ctx, reject)
    lines = out.text.splitlines()
    assert lines[0] == "Plan verification: 4 step(s) — 1 done, 2 with gaps, 1 not verifiable from file changes."
    assert lines[1] == "✓ Add a `--verbose` flag in `src/cli.py`  [changed: src/cli.py]"
    assert lines[2] == "✗ Update docs/usage.md with the flag  [NOT changed: docs/usage.md]"
    assert "- todo: Run tests (in_progress)" in lines and "- task #1: Write docs (pending)" in lines
    assert reject.asks == []
