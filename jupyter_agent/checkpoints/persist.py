"""Checkpoints on disk: ``<session_dir>/checkpoints/``, so ``--rewind`` works after a kernel restart.

One JSON file per turn (``turn-<seq>-<turn id>.json``: its files' hashes, its cells' sources,
where the conversation stood) and the prior contents of files in ``blobs/<sha256>``, written
once and shared between turns.  Everything is written atomically and readable only by you
(0600): a snapshot may hold a secret the agent edited.  A file that cannot be read back is
skipped, never fatal; turns no longer kept (rewound, or beyond the last 100) are deleted with
the blobs nobody references any more.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from ..core.atomic import atomic_write_bytes
from ..core.file_state import content_hash as _sha  # SHA-256 hex, as the store's hashes
from .model import CellChange, FileChange, TurnCheckpoint

log = logging.getLogger(__name__)
PRIVATE = 0o600


class CheckpointDisk:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.blobs = self.folder / "blobs"
        self._names: dict[str, str] = {}  # turn id -> file name
        self._seq = 0

    def save(self, turn: TurnCheckpoint) -> None:
        """Write ``turn`` (and the blobs it needs) now."""
        for change in turn.files.values():
            if change.before is not None:
                self._blob(change.before)
        name = self._names.get(turn.turn_id)
        if name is None:
            self._seq += 1
            name = self._names[turn.turn_id] = f"turn-{self._seq:06d}-{_safe(turn.turn_id)}.json"
        atomic_write_bytes(self.folder / name, json.dumps(_turn_json(turn)).encode(), mode=PRIVATE)

    def load(self) -> list[TurnCheckpoint]:
        """The saved turns, oldest first (unreadable ones skipped)."""
        turns = []
        for path in sorted(self.folder.glob("turn-*.json")):
            try:
                turn = self._turn(json.loads(path.read_bytes()))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("skipping unreadable checkpoint %s: %s", path, exc)
                continue
            self._names[turn.turn_id] = path.name
            self._seq = max(self._seq, int(path.name.split("-")[1]))
            turns.append(turn)
        return turns

    def keep_only(self, turns: list[TurnCheckpoint]) -> None:
        """Delete the turns not in ``turns`` and the blobs none of the kept ones needs."""
        kept = {t.turn_id for t in turns}
        for turn_id in [t for t in self._names if t not in kept]:
            with contextlib.suppress(OSError):
                (self.folder / self._names.pop(turn_id)).unlink()
        needed = {_sha(c.before) for t in turns for c in t.files.values() if c.before is not None}
        if self.blobs.is_dir():
            for blob in self.blobs.iterdir():
                if blob.name not in needed:
                    with contextlib.suppress(OSError):
                        blob.unlink()

    def _blob(self, data: bytes) -> str:
        digest = _sha(data)
        path = self.blobs / digest
        if not path.exists():
            atomic_write_bytes(path, data, mode=PRIVATE)
        return digest

    def _turn(self, data: dict[str, Any]) -> TurnCheckpoint:
        turn = TurnCheckpoint(str(data["turn_id"]), str(data.get("prompt", "")))
        turn.message_count = data.get("message_count")
        turn.tail_blocks = data.get("tail_blocks")
        for item in data.get("files", []):
            blob = item.get("before")
            before = None if blob is None else (self.blobs / blob).read_bytes()
            if before is not None and _sha(before) != blob:
                raise ValueError(f"blob {blob} does not match its content")
            turn.files[item["path"]] = FileChange(item["path"], before, item.get("after_hash"))
        for item in data.get("cells", []):
            change = CellChange(**item)
            turn.cells[(change.notebook, change.cell_id)] = change
        return turn


def _turn_json(turn: TurnCheckpoint) -> dict[str, Any]:
    return {
        "turn_id": turn.turn_id,
        "prompt": turn.prompt,
        "message_count": turn.message_count,
        "tail_blocks": turn.tail_blocks,
        "files": [{"path": c.path, "before": None if c.before is None else _sha(c.before),
                   "after_hash": c.after_hash} for c in turn.files.values()],
        "cells": [vars(c) for c in turn.cells.values()],
    }


def _safe(turn_id: str) -> str:
    text = "".join(c for c in turn_id if c.isalnum() or c in "-_")[:40]
    return text or base64.urlsafe_b64encode(turn_id.encode()).decode()[:40]
