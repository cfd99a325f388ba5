"""The v2 task list: tasks with dependencies, shared by a session's agents, saved with the session."""

from .model import Task, TaskStatus, TaskUpdate
from .store import TaskStore, task_store_for

__all__ = ["Task", "TaskStatus", "TaskStore", "TaskUpdate", "task_store_for"]
