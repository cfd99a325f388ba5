from __future__ import annotations

import asyncio
import json

from jupyter_agent.tasklist import TaskStore, TaskUpdate, task_store_for
from tests.support.tools import make_context


async def test_tasks_are_saved_with_the_session_and_reloaded_by_a_new_store(tmp_path):
    store = TaskStore(tmp_path / "s" / "tasks.json")
    a = await store.create("Write parser", "parse the input", "Writing parser", {"k": "v"})
    await store.create("Test parser", "cover edge cases")
    await store.update("2", TaskUpdate(add_blocked_by=(a.id,)))
    on_disk = json.loads((tmp_path / "s" / "tasks.json").read_text())
    assert [t["subject"] for t in on_disk["tasks"]] == ["Write parser", "Test parser"]
    again = await TaskStore(tmp_path / "s" / "tasks.json").get("2")
    assert again.blockedBy == ["1"]


async def test_concurrent_creates_get_distinct_ids(tmp_path):
    store = TaskStore(tmp_path / "tasks.json")
    tasks = await asyncio.gather(*(store.create(f"T{i}", "") for i in range(20)))
    assert sorted(int(t.id) for t in tasks) == list(range(1, 21))
    assert len((await store.list()).tasks) == 20


async def test_subagent_contexts_share_the_session_store(tmp_path):
    ctx = make_context([], tmp_path)
    sub = ctx.with_changes(agent_id="sub-1")
    assert task_store_for(ctx) is task_store_for(sub)
