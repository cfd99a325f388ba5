"""Events a tool run reports while it happens (consumed by the agent loop, the UI, tests)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from .permission_types import PermissionAsk, UserDecision
from .tool import ToolProgress

if TYPE_CHECKING:
    from .orchestration import ToolCallOutcome


@dataclass(frozen=True)
class ToolCallStarted:
    """Input passed the schema, validation and permissions; ``call`` is about to run."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class PermissionRequested:
    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    ask: PermissionAsk


@dataclass(frozen=True)
class PermissionResolved:
    tool_use_id: str
    decision: UserDecision


@dataclass(frozen=True)
class ToolCallProgress:
    progress: ToolProgress


@dataclass(frozen=True)
class ToolCallFinished:
    outcome: ToolCallOutcome


ToolEvent = Union[
    ToolCallStarted, PermissionRequested, PermissionResolved, ToolCallProgress, ToolCallFinished
]
EventSink = Callable[[ToolEvent], None]
