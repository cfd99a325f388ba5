"""Wire checkpoints into a session without changing it: wrap its editing tools, watch its turns.

    store = install_checkpoints(session)         # once, after the session is built
    report = await rewind_session(session, 2)    # %agent --rewind 2
    print(report.summary())
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..agent.events import Compacted, TurnStarted
from .model import RewindReport
from .persist import CheckpointDisk
from .rewind import rewind
from .store import CheckpointStore, get_store, install_store
from .wrap import with_checkpoints


def install_checkpoints(session: Any) -> CheckpointStore:
    existing = get_store(session.context.get_app_state())
    if existing is not None:
        return existing
    store = CheckpointStore(disk=CheckpointDisk(session.context.session_dir / "checkpoints"))
    options = session.context.options
    tools = tuple(with_checkpoints(options.tools))
    session.context = session.context.with_changes(options=dataclasses.replace(options, tools=tools))
    install_store(session.context.app_state_store, store)
    session.subscribe(lambda event: _on_event(session, store, event))
    return store


def _on_event(session: Any, store: CheckpointStore, event: Any) -> None:
    """Open a checkpoint per turn, noting how long the conversation was when the turn began.
    Called for every event, each streamed text delta too: nothing but two type tests for those."""
    if isinstance(event, TurnStarted):
        store.on_event(event)
        store.turns[-1].message_count, store.turns[-1].tail_blocks = session.history_mark()
        store.save(store.turns[-1])
    elif isinstance(event, Compacted):  # the history was rewritten: old positions mean nothing
        for turn in store.turns:
            turn.message_count = turn.tail_blocks = None
            store.save(turn)


async def rewind_session(session: Any, turns: int = 1, conversation: bool = True) -> RewindReport:
    """Restore the state before the session's last ``turns`` turns: files, notebook cells and,
    with ``conversation``, the conversation (the model forgets those turns)."""
    store = get_store(session.context.get_app_state())
    if store is None:
        return RewindReport()
    await store.ready()  # a rewind right after resume waits for the saved turns
    oldest = store.turns[-turns] if 0 < turns <= len(store.turns) else (store.turns[0] if store.turns else None)
    report = await rewind(store, turns)
    if conversation and report.turns and oldest is not None:
        report.conversation, report.forgotten = _rewind_conversation(session, oldest, report.turns)
    return report


def _rewind_conversation(session: Any, oldest: Any, turn_ids: list[str]) -> tuple[str, bool]:
    turns = len(turn_ids)
    those = "that turn" if turns == 1 else "those turns"
    if oldest.message_count is None:
        return "The conversation was kept: it was compacted since (or the turn is unknown).", False
    if not session.truncate_history(oldest.message_count, oldest.tail_blocks, turn_ids):
        return "The conversation was kept: a turn is running.", False
    return f"The conversation is back to before {those}: the model no longer sees {'it' if turns == 1 else 'them'}.", True
