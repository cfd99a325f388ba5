"""What a session writes to its JSONL transcript, from its events and its message changes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.events import PermissionResolved, ToolCallFinished
from ..core.permission_types import PermissionAllow
from .config import SessionConfig
from .events import AgentErrorEvent, SessionEvent, TurnEnded, TurnStarted
from .transcript import FORMAT_VERSION, TranscriptWriter


class SessionLog:
    """The transcript writer plus the header, written before the first entry."""

    def __init__(self, path: Path, session_id: str, config: SessionConfig) -> None:
        self._writer = TranscriptWriter(path)
        self._session_id = session_id
        self._config = config
        self._started = False
        self.resumed = False

    @property
    def path(self) -> Path:
        return self._writer.path

    def write(self, kind: str, **fields: Any) -> None:
        if not self._started:
            self._started = True
            self._writer.write(
                "session",
                session_id=self._session_id,
                version=FORMAT_VERSION,
                cwd=str(self._config.cwd),
                model=self._config.model,
                resumed=self.resumed,
                pid=os.getpid(),
            )
        self._writer.write(kind, **fields)

    def on_event(self, event: SessionEvent) -> None:
        """Tool calls, decisions, errors and turn boundaries go to the transcript."""
        match event:
            case ToolCallFinished(outcome=o):
                self.write(
                    "tool_call", tool_use_id=o.tool_use_id, tool_name=o.tool_name,
                    decision=o.decision, is_error=o.is_error,
                    input=o.input.model_dump(mode="json") if o.input is not None else None,
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
