from __future__ import annotations

import pytest

from jupyter_agent.tasklist.model import (
    Task,
    TaskListData,
    TaskListError,
    TaskUpdate,
    add_task,
    apply_update,
    find,
    open_blockers,
)


def _data(n: int) -> TaskListData:
    data = TaskListData()
    for i in range(n):
        data = add_task(data, Task(id="?", subject=f"T{i + 1}"))
    return data


def test_ids_are_handed_out_in_order_and_never_reused_after_delete():
    data = _data(2)
    assert [t.id for t in data.tasks] == ["1", "2"]
    data, _ = apply_update(data, "2", TaskUpdate(status="deleted"))
    data = add_task(data, Task(id="?", subject="T3"))
    assert [t.id for t in data.tasks] == ["1", "3"]


def test_links_are_symmetric_and_hash_prefixed_ids_work():
    data, changed = apply_update(_data(3), "#1", TaskUpdate(add_blocks=("2",), add_blocked_by=("#3",)))
    assert changed == ["blocks", "blockedBy"]
    t1, t2, t3 = (find(data, i) for i in "123")
    assert (t1.blocks, t1.blockedBy, t2.blockedBy, t3.blocks) == (["2"], ["3"], ["1"], ["1"])


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (None, ("1", TaskUpdate(add_blocks=("1",))), "cannot block itself"),
        (None, ("1", TaskUpdate(add_blocks=("9",))), "Task not found: #9"),
        (("1", TaskUpdate(add_blocks=("2",))), ("2", TaskUpdate(add_blocks=("1",))), "cycle"),
        (("1", TaskUpdate(add_blocks=("2",))), ("3", TaskUpdate(add_blocked_by=("2",), add_blocks=("1",))), "cycle"),
        (None, ("7", TaskUpdate(status="completed")), "Task not found: #7"),
    ],
)
def test_impossible_changes_raise_with_a_reason(first, second, message):
    data = _data(3)
    if first:
        data, _ = apply_update(data, *first)
    with pytest.raises(TaskListError, match=message):
        apply_update(data, *second)


def test_a_blocked_task_cannot_start_until_its_blocker_completes():
    data, _ = apply_update(_data(2), "1", TaskUpdate(add_blocks=("2",)))
    with pytest.raises(TaskListError, match="blocked by #1"):
        apply_update(data, "2", TaskUpdate(status="in_progress"))
    data, _ = apply_update(data, "1", TaskUpdate(status="completed"))
    assert open_blockers(data, find(data, "2")) == []
    data, changed = apply_update(data, "2", TaskUpdate(status="in_progress"))
    assert changed == ["status"] and find(data, "2").status == "in_progress"


def test_delete_removes_references_and_metadata_null_deletes_a_key():
    data, _ = apply_update(_data(2), "1", TaskUpdate(add_blocks=("2",), metadata={"a": 1, "b": 2}))
    data, _ = apply_update(data, "1", TaskUpdate(metadata={"a": None}))
    assert find(data, "1").metadata == {"b": 2}
    data, _ = apply_update(data, "1", TaskUpdate(status="deleted"))
    assert find(data, "1") is None and find(data, "2").blockedBy == []


def test_unchanged_values_report_no_change():
    data, changed = apply_update(_data(1), "1", TaskUpdate(status="pending", subject="T1"))
    assert changed == []
