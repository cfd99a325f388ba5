"""Task values and the pure rules for changing a task list (ids, dependencies, deletion)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

TaskStatus = Literal["pending", "in_progress", "completed"]
UpdateStatus = Literal["pending", "in_progress", "completed", "deleted"]


class Task(BaseModel):
    id: str
    subject: str
    description: str = ""
    activeForm: str | None = None  # noqa: N815 - Claude Code's wire name
    status: TaskStatus = "pending"
    owner: str | None = None
    blocks: list[str] = Field(default_factory=list)
    blockedBy: list[str] = Field(default_factory=list)  # noqa: N815
    metadata: dict[str, Any] = Field(default_factory=dict)


class TaskListData(BaseModel):
    """What is saved on disk: the tasks and the next id to hand out."""

    next_id: int = 1
    tasks: list[Task] = Field(default_factory=list)


@dataclass(frozen=True)
class TaskUpdate:
    """The fields of one TaskUpdate call (``None`` = leave unchanged)."""

    status: UpdateStatus | None = None
    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    owner: str | None = None
    add_blocks: tuple[str, ...] = ()
    add_blocked_by: tuple[str, ...] = ()
    metadata: dict[str, Any] | None = None


class TaskListError(ValueError):
    """A change the model asked for that cannot be made; the message says why."""


def open_blockers(data: TaskListData, task: Task) -> list[Task]:
    """The tasks that still block ``task`` (not completed)."""
    by_id = {t.id: t for t in data.tasks}
    return [by_id[b] for b in task.blockedBy if b in by_id and by_id[b].status != "completed"]


def find(data: TaskListData, task_id: str) -> Task | None:
    return next((t for t in data.tasks if t.id == task_id.lstrip("#")), None)


def add_task(data: TaskListData, task: Task) -> TaskListData:
    """Append ``task`` under the next id."""
    new = task.model_copy(update={"id": str(data.next_id)})
    return TaskListData(next_id=data.next_id + 1, tasks=[*data.tasks, new])


def apply_update(data: TaskListData, task_id: str, upd: TaskUpdate) -> tuple[TaskListData, list[str]]:
    """The list after ``upd`` and the names of the fields that changed; raises TaskListError."""
    task = find(data, task_id)
    if task is None:
        raise TaskListError(f"Task not found: #{task_id}. Call TaskList to see the task ids.")
    if upd.status == "deleted":
        return _delete(data, task.id), ["deleted"]
    tasks = {t.id: t.model_copy(deep=True) for t in data.tasks}
    me = tasks[task.id]
    changed = _apply_fields(me, upd)
    for other in upd.add_blocks:
        _link(tasks, blocker=me.id, blocked=other.lstrip("#"))
    for other in upd.add_blocked_by:
        _link(tasks, blocker=other.lstrip("#"), blocked=me.id)
    if upd.add_blocks:
        changed.append("blocks")
    if upd.add_blocked_by:
        changed.append("blockedBy")
    result = TaskListData(next_id=data.next_id, tasks=list(tasks.values()))
    if upd.status == "in_progress":
        waiting = open_blockers(result, me)
        if waiting:
            names = ", ".join(f"#{t.id} ({t.status})" for t in waiting)
            raise TaskListError(
                f"Task #{me.id} is blocked by {names}. Complete those tasks first, or work on "
                "an unblocked task (see TaskList)."
            )
    return result, changed


def _apply_fields(me: Task, upd: TaskUpdate) -> list[str]:
    changed: list[str] = []
    for attr, value in (
        ("status", upd.status),
        ("subject", upd.subject),
        ("description", upd.description),
        ("activeForm", upd.active_form),
        ("owner", upd.owner),
    ):
        if value is not None and getattr(me, attr) != value:
            setattr(me, attr, value)
            changed.append(attr)
    if upd.metadata:
        merged = {**me.metadata, **upd.metadata}
        me.metadata = {k: v for k, v in merged.items() if v is not None}  # null deletes a key
        changed.append("metadata")
    return changed


def _link(tasks: dict[str, Task], *, blocker: str, blocked: str) -> None:
    for tid in (blocker, blocked):
        if tid not in tasks:
            raise TaskListError(f"Task not found: #{tid}. Call TaskList to see the task ids.")
    if blocker == blocked:
        raise TaskListError(f"Task #{blocker} cannot block itself.")
    if _reaches(tasks, start=blocked, goal=blocker):
        raise TaskListError(
            f"Making #{blocker} block #{blocked} would create a dependency cycle "
            f"(#{blocked} already blocks #{blocker}, directly or indirectly)."
        )
    if blocked not in tasks[blocker].blocks:
        tasks[blocker].blocks.append(blocked)
    if blocker not in tasks[blocked].blockedBy:
        tasks[blocked].blockedBy.append(blocker)


def _reaches(tasks: dict[str, Task], *, start: str, goal: str) -> bool:
    """True when ``goal`` can be reached from ``start`` by following ``blocks`` edges."""
    stack, seen = [start], set()
    while stack:
        tid = stack.pop()
        if tid == goal:
            return True
        if tid in seen or tid not in tasks:
            continue
        seen.add(tid)
        stack.extend(tasks[tid].blocks)
    return False


def _delete(data: TaskListData, task_id: str) -> TaskListData:
    kept = []
    for t in data.tasks:
        if t.id == task_id:
            continue
        kept.append(
            t.model_copy(
                update={
                    "blocks": [b for b in t.blocks if b != task_id],
                    "blockedBy": [b for b in t.blockedBy if b != task_id],
                }
            )
        )
    return TaskListData(next_id=data.next_id, tasks=kept)
