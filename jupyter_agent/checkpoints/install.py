"""Wire checkpoints into a session without changing it: wrap its editing tools, watch its turns.

    store = install_checkpoints(session)         # once, after the session is built
    report = await rewind_session(session, 2)    # %agent --rewind 2
    print(report.summary())
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .model import RewindReport
from .rewind import rewind
from .store import CheckpointStore, get_store, install_store
from .wrap import with_checkpoints


def install_checkpoints(session: Any) -> CheckpointStore:
    existing = get_store(session.context.get_app_state())
    if existing is not None:
        return existing
    store = CheckpointStore()
    options = session.context.options
    tools = tuple(with_checkpoints(options.tools))
    session.context = session.context.with_changes(options=dataclasses.replace(options, tools=tools))
    install_store(session.context.app_state_store, store)
    session.subscribe(store.on_event)
    return store


async def rewind_session(session: Any, turns: int = 1) -> RewindReport:
    """Restore the state before the session's last ``turns`` turns (files and notebook cells)."""
    store = get_store(session.context.get_app_state())
    if store is None:
        return RewindReport()
    return await rewind(store, turns)
