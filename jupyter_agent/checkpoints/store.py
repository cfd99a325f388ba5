"""CheckpointStore: per turn, the prior state of each file and notebook cell the agent changed.

The session feeds it its events (``on_event``: a ``TurnStarted`` opens a turn); the
``CheckpointingTool`` wrapper around Edit, Write and NotebookEdit records what they change
(Bash is not tracked).  ``rewind`` (in ``rewind.py``) puts things back.

With a disk, the saved turns (snapshots included) are read in a worker thread started by the
constructor, never on the kernel's loop: async code awaits ``ready()`` before it looks at
``turns``; sync code touching ``turns`` earlier waits for the load (it never sees part of it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.context import AppState, AppStateStore
from ..core.file_state import content_hash
from ..notebook.cells import cell_key, find_cell, source_text
from .model import CellChange, FileChange, TurnCheckpoint
from .persist import CheckpointDisk

log = logging.getLogger(__name__)

STATE_KEY = "checkpoints"


def read_or_none(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


def bytes_hash(data: bytes | None) -> str | None:
    return None if data is None else content_hash(data)


def load_in_thread(disk: CheckpointDisk) -> concurrent.futures.Future[list[TurnCheckpoint]]:
    """``disk.load()`` in a daemon thread (no event loop needed); its future cannot be cancelled."""
    future: concurrent.futures.Future[list[TurnCheckpoint]] = concurrent.futures.Future()
    future.set_running_or_notify_cancel()  # a cancelled waiter must not cancel the load itself

    def run() -> None:
        try:
            future.set_result(disk.load())
        except BaseException as exc:  # handed to whoever waits for the turns
            future.set_exception(exc)

    threading.Thread(target=run, name="jupyter-agent-checkpoint-load", daemon=True).start()
    return future


MAX_TURNS = 100  # turns a session keeps checkpoints of (the oldest are dropped)


class CheckpointStore:
    def __init__(self, max_turns: int = MAX_TURNS, disk: CheckpointDisk | None = None) -> None:
        self._turns: list[TurnCheckpoint] = []
        self.max_turns = max_turns
        self.disk = disk  # with it, every change is saved (rewind after a kernel restart)
        self._loading = load_in_thread(disk) if disk is not None else None

    # -- loading ---------------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """The saved turns are in ``turns`` (no wait left)."""
        return self._loading is None

    async def ready(self) -> None:
        """Wait, without blocking the loop, until the saved turns are in ``turns``."""
        if self._loading is not None:
            await asyncio.wait([asyncio.wrap_future(self._loading)])  # its error: _finish_load
            self._finish_load()

    def _finish_load(self) -> None:
        """Take the loaded turns (waiting for them if still loading); a failed load starts empty."""
        loading = self._loading
        if loading is None:
            return
        try:
            turns = loading.result()[-self.max_turns:]
        except Exception as exc:
            log.warning("could not load the saved checkpoints: %s", exc)
            turns = []
        self._loading, self._turns = None, turns

    @property
    def turns(self) -> list[TurnCheckpoint]:
        """The recorded turns, oldest first (the saved ones included: waits for them if needed)."""
        self._finish_load()
        return self._turns

    @turns.setter
    def turns(self, value: list[TurnCheckpoint]) -> None:
        self._finish_load()
        self._turns = value

    # -- turns -----------------------------------------------------------------------------

    def begin_turn(self, turn_id: str, prompt: str = "") -> TurnCheckpoint:
        turn = TurnCheckpoint(turn_id, prompt)
        turns = self.turns
        turns.append(turn)
        trimmed = len(turns) > self.max_turns
        del turns[: -self.max_turns]
        self.save(turn)
        if trimmed:
            self.forget_dropped()
        return turn

    def save(self, turn: TurnCheckpoint) -> None:
        """Write ``turn`` to disk (when persisting); a failure is logged, never raised."""
        if self.disk is not None:
            try:
                self.disk.save(turn)
            except OSError as exc:
                log.warning("could not save checkpoint %s: %s", turn.turn_id, exc)

    def forget_dropped(self) -> None:
        """Delete from disk the turns no longer kept (rewound or too old)."""
        if self.disk is not None:
            try:
                self.disk.keep_only(self.turns)
            except OSError as exc:
                log.warning("could not prune checkpoints: %s", exc)

    def current(self) -> TurnCheckpoint:
        return self.turns[-1] if self.turns else self.begin_turn("turn-0")

    def on_event(self, event: Any) -> None:
        """Session subscriber: a new turn starts a new checkpoint."""
        from ..agent.events import TurnStarted

        if isinstance(event, TurnStarted):
            self.begin_turn(event.turn_id, event.prompt)

    def changed_files(self) -> list[str]:
        """Every file and notebook changed in the recorded turns (oldest first, no repeats)."""
        seen: dict[str, None] = {}
        for turn in self.turns:
            seen.update(dict.fromkeys(turn.files))
            seen.update(dict.fromkeys(nb for nb, _ in turn.cells))
        return list(seen)

    # -- files -----------------------------------------------------------------------------

    async def before_file_write(self, path: str) -> None:
        await self.ready()
        turn = self.current()
        if path not in turn.files:
            turn.files[path] = FileChange(path, await asyncio.to_thread(read_or_none, path))

    async def after_file_write(self, path: str) -> None:
        await self.ready()
        change = self.current().files.get(path)
        if change is None:
            return
        now = bytes_hash(await asyncio.to_thread(read_or_none, path))
        if change.after_hash is None and now == bytes_hash(change.before):
            return  # nothing was written (the call failed before writing)
        change.after_hash = now
        await asyncio.to_thread(self.save, self.current())

    # -- cells -----------------------------------------------------------------------------

    def before_cell_edit(self, notebook: str, nb: dict[str, Any], cell_id: str | None, mode: str) -> CellChange | None:
        """Snapshot the cell a NotebookEdit is about to change (``nb``: the notebook before)."""
        if mode == "insert" or cell_id is None:
            return None  # the new cell's id is known only afterwards
        cells = nb.get("cells", [])
        index = find_cell(cells, cell_id)
        if index is None:
            return None
        real_id = cell_key(cells[index], index)
        turn = self.current()
        key = (notebook, real_id)
        if key not in turn.cells:
            cell = cells[index]
            prev = cell_key(cells[index - 1], index - 1) if index > 0 else None
            turn.cells[key] = CellChange(notebook, real_id, source_text(cell), cell.get("cell_type"), prev)
        return turn.cells[key]

    def after_cell_edit(self, notebook: str, nb: dict[str, Any], cell_id: str, mode: str) -> None:
        """Record the cell's state after a successful NotebookEdit (``nb``: the notebook after)."""
        turn = self.current()
        key = (notebook, cell_id)
        change = turn.cells.get(key)
        if change is None:
            if mode != "insert":
                return
            change = turn.cells[key] = CellChange(notebook, cell_id, None)
        cells = nb.get("cells", [])
        index = find_cell(cells, cell_id)
        change.after_hash = None if index is None else content_hash(source_text(cells[index]))
        change.done = True
        self.save(turn)


def install_store(app_state_store: AppStateStore, store: CheckpointStore) -> None:
    app_state_store.set(lambda s: replace(s, extra={**s.extra, STATE_KEY: store}))


def get_store(state: AppState) -> CheckpointStore | None:
    value = state.extra.get(STATE_KEY)
    return value if isinstance(value, CheckpointStore) else None
