"""Background tasks of a session: shell commands now, background agents later.

``get_task_registry(context)`` gives the session's ``TaskRegistry``; tasks subclass
``BackgroundTask``.  ``TaskRegistry.shutdown_all()`` stops everything when the session ends,
and every live task is SIGKILLed when the interpreter exits.
"""

from .base import BackgroundTask, TaskSnapshot, TaskStatus
from .registry import TaskNotFoundError, TaskRegistry, get_task_registry

__all__ = [
    "BackgroundTask",
    "TaskNotFoundError",
    "TaskRegistry",
    "TaskSnapshot",
    "TaskStatus",
    "get_task_registry",
]
