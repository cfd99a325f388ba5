"""Background shell tasks end with the session and with the interpreter."""

from __future__ import annotations

from jupyter_agent.tasks import get_task_registry
from jupyter_agent.tasks.registry import _kill_everything_at_exit
from jupyter_agent.tools.shell.process_group import group_members
from tests.tasks.shell_support import bash, bash_context, eventually, live_with, sleeps_with, token


async def test_shutdown_all_stops_every_running_task(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    for _ in range(3):
        await bash(ctx, approve, f"sleep {mark} & sleep {mark}", run_in_background=True)
    await bash(ctx, approve, "echo quick", run_in_background=True)
    registry = get_task_registry(ctx)
    assert len(registry.list()) == 4
    assert await registry.list()[-1].wait(10)  # the quick one ends by itself
    await registry.shutdown_all()
    assert registry.running() == []
    assert live_with(mark) == []
    assert [t.status for t in registry.list()] == ["killed", "killed", "killed", "completed"]


async def test_interpreter_exit_kills_running_tasks(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    await bash(ctx, approve, f"(sleep {mark}) & sleep {mark}", run_in_background=True)
    (task,) = get_task_registry(ctx).running()
    assert await eventually(lambda: sleeps_with(mark) == 2)
    _kill_everything_at_exit()  # what atexit runs; it cannot await anything
    assert await eventually(lambda: live_with(mark) == [])
    assert await task.wait(10) and task.status == "killed"
    assert group_members(task.process.pgid) == []


async def test_background_task_keeps_running_across_foreground_calls(tmp_path, approve):
    ctx = bash_context(tmp_path)
    mark = token()
    await bash(ctx, approve, f"sleep {mark}", run_in_background=True)
    for _ in range(3):
        assert (await bash(ctx, approve, "echo foreground")).text == "foreground"
    assert await eventually(lambda: sleeps_with(mark) == 1)
    await get_task_registry(ctx).shutdown_all()
    assert live_with(mark) == []


async def test_a_finished_task_leaves_only_its_output_file(tmp_path, approve):
    ctx = bash_context(tmp_path)
    await bash(ctx, approve, "cd / && echo done", run_in_background=True)
    (task,) = get_task_registry(ctx).list()
    assert await task.wait(10) and task.status == "completed"
    assert [p.name for p in (tmp_path / "session" / "tasks").iterdir()] == [f"{task.id}.output"]
    assert (await bash(ctx, approve, "pwd")).text == str((tmp_path / "work").resolve())
