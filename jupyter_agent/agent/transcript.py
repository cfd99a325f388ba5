"""The JSONL transcript of a session (messages, tool calls, decisions, usage) and resuming from it.

One file per session: ``<sessions_dir>/<session_id>.jsonl``.  Each line is one entry with a
``type``: ``session``, ``message``, ``repair``, ``tool_call``, ``permission``, ``usage``,
``turn``, ``compaction`` or ``error``.  Replaying ``message`` and ``repair`` entries (a
``compaction`` entry replaces everything before it) rebuilds the conversation exactly.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..errors import AgentConfigError
from .events import Usage
from .history import (
    INTERRUPTED_TOOL,
    append_user_blocks,
    close_dangling_tool_uses,
    content_blocks,
    strip_thinking,
    truncate_messages,
)

FORMAT_VERSION = 1


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


class TranscriptWriter:
    """Appends entries, one JSON object a line, flushed at once (a crash loses nothing written)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def write(self, entry_type: str, /, **fields: Any) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        entry = {"type": entry_type, "ts": _now(), **fields}
        self._file.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class LoadedTranscript:
    session_id: str
    path: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0
    header: dict[str, Any] = field(default_factory=dict)
    skipped_lines: int = 0


class SessionNotFoundError(AgentConfigError, LookupError):
    """No transcript to resume (also a ``LookupError`` for callers that catch that)."""


def transcript_path(sessions_dir: Path, session_id: str) -> Path:
    return sessions_dir / f"{session_id}.jsonl"


def find_transcript(sessions_dir: Path, session_id: str | None = None) -> Path:
    """The transcript of ``session_id``, or the most recently written one."""
    if session_id is not None:
        path = transcript_path(sessions_dir, session_id)
        if not path.is_file():
            raise SessionNotFoundError(f"No session {session_id!r} in {sessions_dir} (no file {path.name}).")
        return path
    candidates = sorted(sessions_dir.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if sessions_dir.is_dir() else []
    if not candidates:
        raise SessionNotFoundError(f"No saved sessions in {sessions_dir} to resume.")
    return candidates[-1]


def read_entries(path: Path, only: tuple[str, ...] = (), errors: str = "strict") -> Iterator[Any]:
    """Each line's entry, in order; None for a line that is not JSON (a torn last write).  With
    ``only``, a line holding none of those strings is passed over unparsed."""
    with path.open(encoding="utf-8", errors=errors) as handle:
        for line in handle:
            if not line.strip() or (only and not any(s in line for s in only)):
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                yield None


def load_transcript(path: Path) -> LoadedTranscript:
    """Replay a transcript; unreadable lines (a torn last write) are skipped and counted."""
    loaded = LoadedTranscript(session_id=path.stem, path=path)
    for entry in read_entries(path):
        if entry is None:
            loaded.skipped_lines += 1
        else:
            _apply(loaded, entry)
    return loaded


def _apply(loaded: LoadedTranscript, entry: dict[str, Any]) -> None:
    kind = entry.get("type")
    if kind == "session":
        loaded.header = entry
        loaded.session_id = str(entry.get("session_id") or loaded.session_id)
    elif kind == "message" and isinstance(entry.get("message"), dict):
        message = entry["message"]
        if message.get("role") == "user":
            append_user_blocks(loaded.messages, content_blocks(message))
        else:
            loaded.messages.append(message)
    elif kind == "strip_thinking":
        strip_thinking(loaded.messages)
    elif kind == "repair":
        close_dangling_tool_uses(loaded.messages, str(entry.get("text") or INTERRUPTED_TOOL))
    elif kind == "compaction" and isinstance(entry.get("messages"), list):
        loaded.messages = list(entry["messages"])
    elif kind == "rewind" and isinstance(entry.get("message_count"), int):
        tail = entry.get("tail_blocks")
        truncate_messages(loaded.messages, entry["message_count"], tail if isinstance(tail, int) else None)
    elif kind == "usage" and isinstance(entry.get("usage"), dict):
        loaded.usage = loaded.usage + Usage(**{k: int(v) for k, v in entry["usage"].items() if k in _USAGE_KEYS})
        loaded.cost_usd += float(entry.get("cost_usd") or 0.0)


_USAGE_KEYS = frozenset(
    {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}
)
