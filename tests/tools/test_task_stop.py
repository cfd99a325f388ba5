"""TaskStop: kills a background command's whole process group."""

from __future__ import annotations

from tests.tasks.shell_support import bash, bash_context, call, live_with, token
from tests.tools.test_task_output import task_id_of


async def test_stop_kills_the_group_including_grandchildren(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    command = f"(sleep {mark}; echo x) & bash -c 'sleep {mark}' & echo up; wait"
    task_id = task_id_of(await bash(ctx, approve, command, run_in_background=True))
    stopped = await call(ctx, approve, "TaskStop", {"task_id": task_id})
    assert not stopped.is_error
    assert stopped.text.startswith(f"Stopped task {task_id}") and "Status: killed" in stopped.text
    assert live_with(mark) == []
    after = await call(ctx, approve, "TaskOutput", {"task_id": task_id})
    assert "<status>killed</status>" in after.text


async def test_stopping_a_finished_task_says_so(tmp_path, approve):
    ctx = bash_context(tmp_path)
    task_id = task_id_of(await bash(ctx, approve, "exit 0", run_in_background=True))
    await call(ctx, approve, "TaskOutput", {"task_id": task_id})
    outcome = await call(ctx, approve, "TaskStop", {"task_id": task_id})
    assert outcome.is_error
    assert f"Task {task_id} is not running (status: completed, exit code 0)" in outcome.text


async def test_unknown_id_is_an_error(tmp_path, approve):
    ctx = bash_context(tmp_path)
    outcome = await call(ctx, approve, "TaskStop", {"task_id": "nope"})
    assert outcome.is_error and "No task found with ID: nope" in outcome.text


async def test_stop_needs_no_approval(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    task_id = task_id_of(await bash(ctx, approve, f"sleep {mark}", run_in_background=True))
    asks = len(approve.asks)
    await call(ctx, approve, "TaskStop", {"task_id": task_id})
    assert len(approve.asks) == asks
    assert live_with(mark) == []
