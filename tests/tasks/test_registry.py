"""The task registry: ids, lookup, listeners, shutdown, and a non-shell task kind."""

from __future__ import annotations

import asyncio
import re

import pytest

from jupyter_agent.tasks import BackgroundTask, TaskNotFoundError, TaskRegistry, get_task_registry
from jupyter_agent.tasks.base import LIVE_TASKS
from tests.tasks.shell_support import bash_context


class CountingTask(BackgroundTask):
    """A task that is not a shell (like a background agent): output kept in memory."""

    kind = "local_agent"
    id_prefix = "agent"

    def __init__(self, task_id: str) -> None:
        super().__init__(task_id, "count to three")
        self._pending: list[str] = []
        self.killed_now = False
        self._runner = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        for i in range(3):
            self._pending.append(f"step {i}")
            await asyncio.sleep(0)
        self._finish("completed", 0)

    async def read_new(self, max_chars: int) -> str:
        text, self._pending = "\n".join(self._pending), []
        return text[-max_chars:]

    async def stop(self) -> None:
        self._runner.cancel()
        self._finish("killed")

    def kill_now(self) -> None:
        self.killed_now = True


def test_ids_are_short_unique_and_prefixed():
    registry = TaskRegistry()
    ids = set()
    for _ in range(300):
        task_id = registry.new_id("bash")
        assert re.fullmatch(r"bash_[0-9a-f]{4,}", task_id)
        registry._tasks[task_id] = object()  # type: ignore[assignment]
        ids.add(task_id)
    assert len(ids) == 300


async def test_an_agent_like_task_runs_reads_and_notifies():
    registry = TaskRegistry()
    seen: list[tuple[str, str]] = []
    registry.subscribe(lambda t: seen.append((t.id, t.status)))
    task = registry.add(CountingTask(registry.new_id("agent")))
    assert registry.get(task.id) is task and registry.running() == [task]
    assert await task.wait(5)
    assert await task.read_new(1000) == "step 0\nstep 1\nstep 2"
    assert await task.read_new(1000) == ""
    assert seen == [(task.id, "running"), (task.id, "completed")]
    assert task.snapshot().exit_code == 0 and task not in LIVE_TASKS


async def test_a_failing_listener_does_not_break_the_task():
    registry = TaskRegistry()

    def broken(task):
        raise RuntimeError("ui crashed")

    registry.subscribe(broken)
    task = registry.add(CountingTask("agent_0001"))
    assert await task.wait(5) and task.status == "completed"


def test_unknown_id_names_the_known_ones():
    registry = TaskRegistry()
    with pytest.raises(TaskNotFoundError, match="No task found with ID: bash_zz.*none"):
        registry.get("bash_zz")


async def test_registry_lives_in_the_session_app_state(tmp_path):
    ctx = bash_context(tmp_path)
    registry = get_task_registry(ctx)
    copy = ctx.with_changes(cwd=tmp_path)
    assert get_task_registry(copy) is registry
    assert ctx.get_app_state().extra["background_tasks"] is registry


async def test_wait_times_out_on_a_task_that_does_not_end():
    class Forever(CountingTask):
        async def _run(self) -> None:
            await asyncio.Event().wait()

    task = Forever("agent_ffff")
    assert await task.wait(0.05) is False
    await task.stop()
    assert task.status == "killed" and await task.wait(0)
