"""The saved sessions of a project, as ``%agent --sessions`` lists them and ``--resume`` reports.

Read from the JSONL transcripts without replaying them: the turn entries give the prompts (the
cell context the magic puts in front is cut off), the usage entries the cost, the last assistant
message the reply.  A line that is not JSON (a torn last write) is skipped.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .history import content_blocks, split_reminder
from .transcript import read_entries


@dataclass
class SavedSession:
    id: str
    path: Path
    modified: float  # the transcript's mtime
    model: str = ""
    notebook: str = ""  # the notebook it was started from (the last one, when resumed elsewhere)
    cost_usd: float = 0.0
    # turn id → (what the user asked, the turn's last reply), in order; rewound turns left out
    turns: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def prompts(self) -> list[str]:
        """What the user asked, oldest first."""
        return [prompt for prompt, _ in self.turns.values()]

    @property
    def first_prompt(self) -> str:
        return self.prompts[0] if self.turns else ""

    @property
    def last_prompt(self) -> str:
        return self.prompts[-1] if self.turns else ""

    @property
    def last_reply(self) -> str:
        """The text of the last reply of a turn still in the conversation."""
        return next((reply for _, reply in reversed(self.turns.values()) if reply), "")


def read_saved_session(path: Path) -> SavedSession:
    saved = SavedSession(path.stem, path, path.stat().st_mtime)
    current: list[str | None] = [None]  # the turn the entries belong to
    # tool results and the like are not parsed at all
    for entry in read_entries(path, ('"turn"', '"usage"', '"session"', '"assistant"', '"rewind"'), "replace"):
        if isinstance(entry, dict):
            _take(saved, entry, current)
    return saved


def _take(saved: SavedSession, entry: dict[str, Any], current: list[str | None]) -> None:
    kind = entry.get("type")
    if kind == "session":
        saved.model = saved.model or str(entry.get("model") or "")
        saved.notebook = str(entry.get("notebook") or saved.notebook)
    elif kind == "turn" and entry.get("phase") == "start" and isinstance(entry.get("prompt"), str):
        typed = split_reminder(entry["prompt"])[1]
        turn_id = str(entry.get("turn_id") or len(saved.turns))
        current[0] = turn_id if typed else None
        if typed:
            saved.turns[turn_id] = (typed, "")
    elif kind == "rewind":
        for turn_id in entry.get("turn_ids") or ():
            saved.turns.pop(str(turn_id), None)
    elif kind == "usage":
        with contextlib.suppress(TypeError, ValueError):
            saved.cost_usd += float(entry.get("cost_usd") or 0.0)
    elif kind == "message" and isinstance(entry.get("message"), dict) and entry["message"].get("role") == "assistant":
        texts = [b.get("text", "") for b in content_blocks(entry["message"]) if b.get("type") == "text"]
        owner = current[0]
        if owner is not None and owner in saved.turns and any(t.strip() for t in texts):
            saved.turns[owner] = (saved.turns[owner][0], "\n".join(t for t in texts if t.strip()).strip())


def saved_sessions(sessions_dir: Path, limit: int = 20) -> list[SavedSession]:
    """The ``limit`` most recently written sessions, newest first (empty ones left out)."""
    if not sessions_dir.is_dir():
        return []
    paths = []
    for path in sessions_dir.glob("*.jsonl"):
        try:
            paths.append((path.stat().st_mtime, path))
        except OSError:
            continue
    found: list[SavedSession] = []
    for _, path in sorted(paths, key=lambda p: p[0], reverse=True):
        try:
            saved = read_saved_session(path)
        except OSError:
            continue
        if saved.prompts:
            found.append(saved)
        if len(found) >= limit:
            break
    return found
