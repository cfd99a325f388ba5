"""What a session writes to its JSONL transcript, from its events and its message changes."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ..core.events import PermissionRequested, PermissionResolved, ToolCallFinished, ToolCallStarted
from ..core.permission_types import PermissionAllow
from .config import SessionConfig
from .events import AgentErrorEvent, SessionEvent, TurnEnded, TurnStarted
from .transcript import FORMAT_VERSION, TranscriptWriter

log = logging.getLogger(__name__)
_LOGGED = frozenset(
    {ToolCallStarted, PermissionRequested, ToolCallFinished, PermissionResolved, AgentErrorEvent, TurnStarted, TurnEnded}
)


class SessionLog:
    """The transcript writer plus the header, written before the first entry."""

    def __init__(self, path: Path, session_id: str, config: SessionConfig) -> None:
        self._writer = TranscriptWriter(path)
        self._session_id = session_id
        self._config = config
        self._started = False
        self.resumed = False
        self.failed = False
        self._inputs: dict[str, Any] = {}  # observable inputs of calls in flight, by tool_use id

    @property
    def path(self) -> Path:
        return self._writer.path

    def write(self, entry_type: str, /, **fields: Any) -> None:
        """Append one entry; a transcript that cannot be written is reported once, never fatal."""
        try:
            self._write(entry_type, fields)
        except (OSError, TypeError, ValueError) as exc:
            if not self.failed:
                log.warning("cannot write the session transcript %s: %s", self.path, exc)
            self.failed = True

    def _write(self, entry_type: str, fields: dict[str, Any]) -> None:
        if not self._started:
            self._started = True
            self._writer.write(
                "session",
                session_id=self._session_id,
                version=FORMAT_VERSION,
                cwd=str(self._config.cwd),
                model=self._config.model,
                notebook=str(self._config.notebook_path) if self._config.notebook_path else None,
                resumed=self.resumed,
                pid=os.getpid(),
            )
        self._writer.write(entry_type, **fields)

    def on_event(self, event: SessionEvent) -> None:
        """Tool calls, decisions, errors and turn boundaries go to the transcript."""
        if type(event) not in _LOGGED:  # the hot path: text and thinking deltas
            return
        match event:
            case ToolCallStarted(tool_use_id=tid, input=data) | PermissionRequested(tool_use_id=tid, input=data):
                self._inputs[tid] = data
            case ToolCallFinished(outcome=o):
                self.write(
                    "tool_call", tool_use_id=o.tool_use_id, tool_name=o.tool_name,
                    decision=o.decision, is_error=o.is_error, input=self._inputs.pop(o.tool_use_id, None),
                )
            case PermissionResolved(tool_use_id=tid, decision=d):
                allowed = isinstance(d, PermissionAllow)
                message = None if allowed else getattr(d, "message", None)
                self.write("permission", tool_use_id=tid, allowed=allowed, message=message)
            case AgentErrorEvent(message=m, kind=k, retrying=r):
                self.write("error", message=m, kind=k, retrying=r)
            case TurnStarted(turn_id=tid, prompt=p):
                self.write("turn", turn_id=tid, phase="start", prompt=p)
            case TurnEnded(turn_id=tid, stop_reason=reason, duration_s=d):
                self.write("turn", turn_id=tid, phase="end", stop_reason=reason, duration_s=round(d, 3))
            case _:
                pass

    def close(self) -> None:
        self._writer.close()
