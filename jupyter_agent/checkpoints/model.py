"""Checkpoint values: what one turn changed (files, notebook cells) and what a rewind did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass
class FileChange:
    """A file the agent changed in a turn: its content before the turn and the hash it left."""

    path: str
    before: bytes | None  # None: the file did not exist
    after_hash: str | None = None  # None: not written yet (the call failed)


@dataclass
class CellChange:
    """A notebook cell the agent changed in a turn."""

    notebook: str
    cell_id: str
    before_source: str | None  # None: the agent inserted the cell
    before_type: str | None = None
    prev_cell_id: str | None = None  # the cell above it, to put a deleted cell back in place
    after_hash: str | None = None  # None: the agent deleted the cell
    done: bool = False  # the edit went through


@dataclass
class TurnCheckpoint:
    turn_id: str
    prompt: str = ""
    files: dict[str, FileChange] = field(default_factory=dict)
    cells: dict[tuple[str, str], CellChange] = field(default_factory=dict)
    message_count: int | None = None  # the conversation's length when the turn began (None: unknown)
    # the blocks of its last message then, when that was a user message: the turn's prompt is
    # merged into it (after a compaction summary, a stopped turn's tool results)
    tail_blocks: int | None = None


RestoreAction = Literal["restored", "deleted", "recreated", "refused"]


@dataclass(frozen=True)
class RestoreOutcome:
    kind: Literal["file", "cell"]
    target: str  # a path, or "<notebook>#<cell id>"
    action: RestoreAction
    reason: str = ""


@dataclass
class RewindReport:
    turns: list[str] = field(default_factory=list)
    outcomes: list[RestoreOutcome] = field(default_factory=list)
    conversation: str = ""  # what happened to the conversation (empty: not touched)
    forgotten: bool = False  # the conversation went back to before those turns

    @property
    def refused(self) -> list[RestoreOutcome]:
        return [o for o in self.outcomes if o.action == "refused"]

    def summary(self) -> str:
        """Plain text for the transcript: one line per file or cell."""
        if not self.turns:
            return "Nothing to rewind: no turns have been recorded."
        n = len(self.turns)
        head = f"Rewound {n} turn{'s' if n != 1 else ''}."
        tail = [f"  {self.conversation}"] if self.conversation else []
        if not self.outcomes:
            return "\n".join([head + " They changed no files or cells.", *tail])
        lines = [head]
        for o in self.outcomes:
            detail = f" — {o.reason}" if o.reason else ""
            lines.append(f"  {o.action:9} {o.kind} {o.target}{detail}")
        return "\n".join([*lines, *tail])
